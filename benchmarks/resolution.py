"""Call resolution on real repositories: how many calls resolve, how, how fast, and a sample.

    python benchmarks/resolution.py [--repos aiohttp trpc gin] [--root /work/bench-repos]
                                    [--sample 50] [--seed 7] [--synthetic]

For each repository (a checked-out plain directory): parse with ``parse_path(root, Config())``,
``resolve`` the files, and print the share of calls resolved (of all calls, and of the calls that
are not into a library or builtin), edges by kind and resolution, external and unresolved counts,
and the time taken; then the same per language over all the repositories, with the reasons of
the calls without an edge (external, dynamic, ambiguous, unknown) and resolved / (calls -
external - dynamic). Then a seeded random sample of ``unique_name`` edges (split evenly over the
repositories), each with the line of the call and both endpoints' path:line, to be checked by
hand (results in benchmarks/RESOLUTION.md). ``--synthetic`` also times a generated repository of
50,000 symbols and 300,000 calls.
"""

from __future__ import annotations

import argparse
import gc
import random
import sys
import time
from collections import Counter
from pathlib import Path

from codebot.core.config import Config
from codebot.core.model import Call, FileResult, Import, Symbol
from codebot.graph.resolve import internal_rate, resolve
from codebot.parse.extract import parse_path

DEFAULT_REPOS = ["aiohttp", "trpc", "gin"]  # one large Python, one TypeScript, one Go


def measure(root: Path) -> tuple[dict, list[tuple[str, object, object, object]]]:
    t0 = time.perf_counter()
    report = parse_path(root, Config())
    t1 = time.perf_counter()
    gc.disable()
    try:
        res = resolve(report.files)
    finally:
        gc.enable()
    t2 = time.perf_counter()
    by_id = {s.id: s for f in report.files for s in f.symbols}
    s = res.stats
    symbols = sum(1 for x in by_id.values() if x.kind != "chunk")
    edges = Counter((e.kind, e.resolution) for e in res.edges)
    row = {
        "repo": root.name,
        "files": len(report.files),
        "symbols": symbols,
        "calls": s["calls"],
        "resolved": s["resolved"],
        "unique_name_calls": s["unique_name"],
        "external": s["external"],
        "unresolved": s["unresolved"],
        "ignored": s["ignored"],
        "rate_all": s["resolved"] / max(s["calls"], 1),
        "rate_internal": internal_rate(s),
        "edges": dict(sorted((f"{k}/{r}", n) for (k, r), n in edges.items())),
        "parse_s": t1 - t0,
        "resolve_s": t2 - t1,
        "by_language": res.by_language,
    }
    unique = [
        (root.name, e, by_id[e.src], by_id[e.dst])
        for e in res.edges
        if e.kind == "calls" and e.resolution == "unique_name"
    ]
    return row, unique


def synthetic(n_symbols: int = 50_000, calls_per_symbol: int = 7) -> tuple[float, dict]:
    """A generated Python repository: modules of 10 functions and classes, imports between
    them, and calls of every kind the resolver meets (local, imported, self, library, unknown)."""
    files = []
    n_modules = n_symbols // 10
    for m in range(n_modules):
        module = f"pkg.sub{m % 50}.m{m}"
        nxt = f"pkg.sub{(m + 1) % 50}.m{(m + 1) % n_modules}"
        imports = [Import(nxt, "f3", None, 0, 1), Import("os", None, None, 0, 2)]
        symbols = [Symbol(f"{module}.C", "C", "class", "python", f"{module}.py", 3, 40)]
        for k in range(9):
            texts = ("f3", f"f{3 + (k + 1) % 6}", "self.f0", "os.path.join", "x.run", "len", "cb")
            calls = tuple(Call(t, 5 + k) for t in texts[:calls_per_symbol])
            sid = f"{module}.C.f{k}" if k < 3 else f"{module}.f{k}"
            symbols.append(
                Symbol(
                    sid,
                    f"f{k}",
                    "method" if k < 3 else "function",
                    "python",
                    f"{module}.py",
                    5 + k,
                    6 + k,
                    class_name="C" if k < 3 else None,
                    parent=f"{module}.C" if k < 3 else None,
                    calls=calls,
                )
            )
        files.append(FileResult(f"{module}.py", "python", "source", module, symbols, imports))
    gc.disable()
    try:
        t0 = time.perf_counter()
        res = resolve(files)
        elapsed = time.perf_counter() - t0
    finally:
        gc.enable()
    return elapsed, {"symbols": sum(len(f.symbols) for f in files), **res.stats}


def source_line(root: Path, path: str, line: int) -> str:
    try:
        lines = (root / path).read_text(errors="replace").splitlines()
        return lines[line - 1].strip() if 0 < line <= len(lines) else ""
    except OSError:
        return ""


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--repos", nargs="+", default=DEFAULT_REPOS)
    ap.add_argument("--root", default="/work/bench-repos")
    ap.add_argument("--sample", type=int, default=50)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--synthetic", action="store_true")
    args = ap.parse_args()

    rows, pools = [], []
    for name in args.repos:
        row, unique = measure(Path(args.root) / name)
        rows.append(row)
        pools.append(unique)

    head = f"{'repo':10s} {'files':>5s} {'symbols':>7s} {'calls':>7s} {'resolved':>8s} "
    head += f"{'external':>8s} {'unresolv':>8s} {'res/all':>7s} {'res/int':>7s} {'parse':>6s} {'resolve':>7s}"
    print(head)
    for r in rows:
        print(
            f"{r['repo']:10s} {r['files']:5d} {r['symbols']:7d} {r['calls']:7d} {r['resolved']:8d} "
            f"{r['external']:8d} {r['unresolved']:8d} {r['rate_all']:7.3f} {r['rate_internal']:7.3f} "
            f"{r['parse_s']:5.1f}s {r['resolve_s']:6.2f}s"
        )
    print("\nres/all = resolved / all calls; res/int = resolved / (all - external - dynamic)")
    print("calls resolved only by the unique-name fallback:")
    for r in rows:
        print(f"  {r['repo']}: {r['unique_name_calls']} of {r['resolved']}")
    print("\nedges by kind/resolution:")
    for r in rows:
        print(f"  {r['repo']}: " + ", ".join(f"{k} {n}" for k, n in r["edges"].items()))

    languages: dict[str, Counter[str]] = {}
    for r in rows:
        for lang, counts in r["by_language"].items():
            languages.setdefault(lang, Counter()).update(counts)
    print("\nper language (all repositories):")
    cols = ("calls", "resolved", "exact", "override", "overload", "unique_name")
    cols += ("external", "dynamic", "ambiguous", "unknown")
    print(f"{'language':11s} " + " ".join(f"{c[:9]:>9s}" for c in cols) + f" {'res/int':>7s}")
    for lang, c in sorted(languages.items(), key=lambda kv: -kv[1]["calls"]):
        if not c["calls"]:
            continue
        line = " ".join(f"{c[k]:9d}" for k in cols)
        print(f"{lang:11s} {line} {internal_rate(c):7.3f}")
    print("res/int = resolved / (calls - external - dynamic - ignored)")

    if args.synthetic:
        elapsed, stats = synthetic()
        print(
            f"\nsynthetic: {stats['symbols']} symbols, {stats['calls']} calls resolved in "
            f"{elapsed:.2f}s ({stats['resolved']} resolved, {stats['external']} external, "
            f"{stats['unresolved']} unresolved)"
        )

    if args.sample:
        rng = random.Random(args.seed)
        share = -(-args.sample // len(pools))
        picked = []
        for pool in pools:
            pool = sorted(pool, key=lambda x: (x[1].src, x[1].dst))
            picked += rng.sample(pool, min(share, len(pool)))
        picked = picked[: args.sample]
        print(f"\n{len(picked)} unique_name edges (seed {args.seed}), to check by hand:")
        for i, (repo, e, src, dst) in enumerate(picked, 1):
            root = Path(args.root) / repo
            print(
                f"\n[{i}] {repo}  {src.path}:{e.line}  {source_line(root, src.path, e.line)[:140]}"
            )
            print(f"     caller {src.id}")
            print(f"     callee {dst.id}  ({dst.path}:{dst.start_line})")
            print(f"            {source_line(root, dst.path, dst.start_line)[:140]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

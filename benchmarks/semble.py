"""codebot on the semble code-search benchmark: NDCG@10 per repository, beside semble's published figures.

    python benchmarks/semble.py [--repos-dir /work/bench-repos] [--repo NAME ...] [--language L ...]
        [--modes bm25,vector,hybrid,graph] [--embedder builtin|none] [--out benchmarks/results/semble-<date>.json]

For each checkout listed in ``<repos-dir>/manifest.json`` the ``benchmark_root`` subtree is indexed
from scratch (timed) into a directory outside the checkout, every annotated query is run in each
mode (timed), and ``codebot.query.evaluate`` scores the top 10 exactly as semble does. Scores are averaged
per repository, then over repositories; categories likewise (semble's summary is computed so).
semble's own columns are its published results restricted to the repositories run here.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import sys
import tempfile
import time
import traceback
from dataclasses import dataclass
from pathlib import Path
from statistics import mean
from typing import Any

from codebot.core.config import Config
from codebot.index.build import build_index
from codebot.index.overlay import open_index
from codebot.query.evaluate import EvalReport, Target, evaluate, load_queries, percentile
from codebot.query.search import Searcher

HERE = Path(__file__).resolve().parent
DEFAULT_SEMBLE = Path("/work/shared/bench/semble")
# Our mode -> the semble run it compares with (hybrid file; ablations file for the other two).
# ``graph`` is hybrid plus the graph stage (the flat list of ``Searcher.answer``).
SEMBLE_MODES = {
    "hybrid": "semble-auto",
    "bm25": "semble-bm25",
    "vector": "semble-semantic",
    "graph": "semble-auto",
}
CATEGORIES = ("architecture", "semantic", "symbol")


@dataclass(frozen=True, slots=True)
class RepoHit:
    """A hit with its path made relative to the checkout, like the annotation paths."""

    id: str
    path: str
    start_line: int
    end_line: int


def load_semble(semble_dir: Path) -> dict[str, dict[str, dict[str, Any]]]:
    """semble's published per-repo rows: {semble mode: {repo: row}} (row has ndcg10, by_category)."""
    out: dict[str, dict[str, dict[str, Any]]] = {}
    results = semble_dir / "results"
    for pattern in ("semble-hybrid-*.json", "semble-ablations-*.json"):
        files = sorted(results.glob(pattern))
        if not files:
            continue
        for row in json.loads(files[-1].read_text())["repos"]:
            mode = (
                row["mode"] if row["mode"].startswith(("semble-", "unranked-")) else "semble-auto"
            )
            out.setdefault(mode, {})[row["repo"]] = row
    return out


def checkout_prefix(index: Any, checkout: Path) -> str:
    """The indexed root's place in the checkout as a path prefix ("" at its top). Hit paths are
    relative to the indexed root (the benchmark_root of a plain directory); annotations are
    relative to the checkout."""
    prefix = os.path.relpath(index.root, checkout.resolve()).replace(os.sep, "/")
    return "" if prefix == "." else prefix + "/"


def suffix_index(paths: list[str]) -> set[str]:
    """Every "/"-suffix of every path, so "is this target's file indexed?" is one set lookup."""
    out: set[str] = set()
    for p in paths:
        parts = p.split("/")
        out.update("/".join(parts[i:]) for i in range(len(parts)))
    return out


def ensure_index(target_dir: Path, config: Config, rebuild: bool) -> tuple[str, float, dict]:
    """Index ``target_dir`` unless its index (in ``config.index_dir``) is already current.

    Current: built by this format under the same settings and embedder, at the commit the
    checkout's HEAD is at; ``update_index`` then answers "up-to-date" in well under a second (and
    brings an index at another commit forward incrementally). ``rebuild`` builds from scratch
    whatever is there: needed after a change to what codebot indexes (parsing, indexed text),
    which no manifest records. Returns (built | rebuilt | updated | up-to-date, seconds, counts).
    """
    from codebot.core.errors import StoreError
    from codebot.git.workspace import Workspace
    from codebot.index.store import read_manifest
    from codebot.index.update import update_index

    started = time.perf_counter()
    try:
        manifest = read_manifest(Workspace.of(target_dir, config.index_dir).index_dir)
    except StoreError:
        manifest = None
    want = None if config.embedder == "none" else config.embedder
    have = (manifest.embedder or {}).get("provider") if manifest else None
    if rebuild or manifest is None or manifest.vectors_pending or have != want:
        build = build_index(target_dir, config)
        return ("built" if manifest is None else "rebuilt"), build.seconds, build.counts
    report = update_index(target_dir, config)
    return report.action, time.perf_counter() - started, report.manifest.counts


def run_repo(
    entry: dict[str, Any],
    semble_dir: Path,
    modes: list[str],
    config: Config,
    rebuild: bool = True,
) -> dict:
    checkout = Path(entry["path"])
    target_dir = checkout / (entry.get("benchmark_root") or "")
    queries = load_queries(semble_dir / "annotations" / f"{entry['name']}.json")

    how, seconds, counts = ensure_index(target_dir, config, rebuild)
    index = open_index(target_dir, config)
    prefix = checkout_prefix(index, checkout)
    in_index = suffix_index([prefix + f.path for f in index.files()])
    # semble leaves a target its index cannot contain out of the ideal DCG. Judge that by the files
    # under the benchmark root, not by what codebot chose to index: a file codebot skips (as
    # vendored or generated) is codebot's miss, not a smaller denominator.
    on_disk = suffix_index(
        [
            Path(d, f).relative_to(checkout).as_posix()
            for d, _, files in os.walk(target_dir)
            for f in files
        ]
    )

    def indexed(t: Target) -> bool:
        return t.path is not None and t.path.strip("/") in on_disk

    def in_index_has(t: Target) -> bool:
        return t.path is not None and t.path.strip("/") in in_index

    targets = [t for q in queries for t in q.targets]

    searcher = Searcher(index, config)
    row: dict[str, Any] = {
        "name": entry["name"],
        "language": entry["language"],
        "revision": entry.get("revision_used"),
        "note": entry.get("note") or "",
        "benchmark_root": entry.get("benchmark_root"),
        "index": how,  # built, rebuilt, updated or up-to-date (an --index-root kept from before)
        "index_seconds": round(seconds, 3),
        "counts": counts,
        # Targets not under the benchmark root (out of the denominator, as in semble), and targets
        # under it that codebot did not index (they count, and are missed).
        "targets_outside_root": sorted({str(t.path) for t in targets if not indexed(t)}),
        "targets_skipped": sorted(
            {str(t.path) for t in targets if indexed(t) and not in_index_has(t)}
        ),
        "modes": {},
    }
    for mode in modes:
        # Warm-up: loads retrievers, the model and (graph mode) the call graph's adjacency.
        searcher.answer(queries[0].query, k=10, mode=mode.replace("graph", "hybrid"))

        def search(q: str, mode: str = mode) -> list[RepoHit]:
            if mode == "graph":
                hits = searcher.answer(q, k=10, mode="hybrid", graph=True).hits
            else:
                hits = searcher.search(q, k=10, mode=mode)
            return [RepoHit(h.id, prefix + h.path, h.start_line, h.end_line) for h in hits]

        report = evaluate(queries, search, indexed=indexed)
        row["modes"][mode] = mode_summary(report)
    return row


def tree_bytes(entry: dict[str, Any]) -> int:
    """Bytes of the files under an entry's benchmark root at HEAD (0 when git cannot say)."""
    import subprocess

    if not entry.get("ok") or not Path(entry["path"]).is_dir():
        return 0
    root = entry.get("benchmark_root") or "."
    listing = subprocess.run(
        ["git", "ls-tree", "-r", "-l", "HEAD", "--", root],
        cwd=entry["path"],
        capture_output=True,
        text=True,
        check=False,
    ).stdout
    return sum(int(f[3]) for line in listing.splitlines() if (f := line.split(None, 4))[3] != "-")


def write_result(
    out: Path,
    rows: list[dict],
    modes: list[str],
    semble: dict,
    embedder: str,
    today: str,
    started: float,
) -> dict[str, Any]:
    """Write the results so far to ``out``; the summary over the repositories done."""
    summary = summarize([r for r in rows if "modes" in r], modes, semble)
    written = [
        {
            **r,
            "modes": {m: {k: v for k, v in x.items() if k != "ms"} for m, x in r["modes"].items()},
        }
        if "modes" in r
        else r
        for r in rows
    ]
    result = {
        "benchmark": "semble",
        "date": today,
        "embedder": embedder,
        "modes": modes,
        "seconds": round(time.perf_counter() - started, 1),
        "summary": summary,
        "repos": written,
    }
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=1) + "\n")
    return summary


def mode_summary(report: EvalReport) -> dict[str, Any]:
    full = report.to_dict(returned=0)
    return {
        **full["overall"],
        "by_category": {c: m["ndcg10"] for c, m in full["by_category"].items()},
        "ms": [r.ms for r in report.results],  # kept for pooled percentiles; dropped on write
        "queries": [
            {"query": q["query"], "category": q["category"], "ndcg10": round(q["ndcg10"], 4)}
            for q in full["queries"]
        ],
        "misses": full["misses"],
    }


def summarize(rows: list[dict], modes: list[str], semble: dict) -> dict[str, Any]:
    """Mean over repositories per mode (and per category), with semble's over the same repos."""
    out: dict[str, Any] = {}
    for mode in modes:
        done = [r for r in rows if mode in r.get("modes", {})]
        if not done:
            continue
        ms = [x for r in done for x in r["modes"][mode]["ms"]]
        m: dict[str, Any] = {"repos": len(done)}
        for key in ("ndcg10", "recall5", "recall10", "mrr10"):
            m[key] = mean(r["modes"][mode][key] for r in done)
        m["p50_ms"], m["p95_ms"] = percentile(ms, 50), percentile(ms, 95)
        m["by_category"] = category_means([r["modes"][mode]["by_category"] for r in done])
        published = semble.get(SEMBLE_MODES[mode], {})
        theirs = [published[r["name"]] for r in done if r["name"] in published]
        if theirs:
            m["semble"] = {
                "run": SEMBLE_MODES[mode],
                "repos": len(theirs),
                "ndcg10": mean(t["ndcg10"] for t in theirs),
                "by_category": category_means([t.get("by_category", {}) for t in theirs]),
            }
        out[mode] = m
    return out


def category_means(per_repo: list[dict[str, float]]) -> dict[str, float]:
    cats = sorted({c for d in per_repo for c in d})
    return {c: mean(d[c] for d in per_repo if c in d) for c in cats}


def print_header(modes: list[str]) -> None:
    cols = "".join(f" {m + ' ndcg':>12} {'semble':>7} {'p50ms':>6}" for m in modes)
    print(
        f"{'repo':<20} {'lang':<10} {'symbols':>7} {'index s':>7} {'index':<10}{cols}", flush=True
    )


def print_row(row: dict, modes: list[str], semble: dict) -> None:
    cells = ""
    for m in modes:
        got = row["modes"][m]
        theirs = semble.get(SEMBLE_MODES[m], {}).get(row["name"], {}).get("ndcg10")
        cells += f" {got['ndcg10']:>12.3f} {_fmt(theirs):>7} {got['p50_ms']:>6.1f}"
    symbols = row["counts"].get("symbols", 0)
    print(
        f"{row['name']:<20} {row['language']:<10} {symbols:>7} {row['index_seconds']:>7.1f} "
        f"{row['index']:<10}{cells}",
        flush=True,
    )


def print_summary(summary: dict[str, Any]) -> None:
    print("\nmean over repositories (semble's published figure for the same repositories)")
    head = f"{'mode':<8} {'repos':>5} {'NDCG@10':>15} {'R@5':>5} {'R@10':>5} {'MRR@10':>6} {'p50ms':>6} {'p95ms':>6}"
    print(head + "".join(f" {c:>20}" for c in CATEGORIES))
    for mode, m in summary.items():
        s = m.get("semble", {})
        cats = "".join(
            f" {_pair(m['by_category'].get(c), s.get('by_category', {}).get(c)):>20}"
            for c in CATEGORIES
        )
        print(
            f"{mode:<8} {m['repos']:>5} {_pair(m['ndcg10'], s.get('ndcg10')):>15} "
            f"{m['recall5']:>5.3f} {m['recall10']:>5.3f} {m['mrr10']:>6.3f} "
            f"{m['p50_ms']:>6.1f} {m['p95_ms']:>6.1f}{cats}"
        )


def _fmt(x: float | None) -> str:
    return "-" if x is None else f"{x:.3f}"


def _pair(ours: float | None, theirs: float | None) -> str:
    return f"{_fmt(ours)} ({_fmt(theirs)})"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repos-dir", type=Path, default=Path("/work/bench-repos"))
    ap.add_argument("--semble-dir", type=Path, default=DEFAULT_SEMBLE, help="annotations + results")
    ap.add_argument("--repo", action="append", default=[], help="only this repository (repeatable)")
    ap.add_argument(
        "--language", action="append", default=[], help="only this language (repeatable)"
    )
    ap.add_argument("--modes", default=None, help="comma-separated: bm25,vector,hybrid")
    ap.add_argument("--embedder", default="builtin", choices=["builtin", "none"])
    ap.add_argument(
        "--index-root",
        type=Path,
        help="keep indexes (and the vector cache) here; an index already current is reused",
    )
    ap.add_argument(
        "--rebuild",
        action="store_true",
        help="with --index-root: build every index afresh (after a change to what is indexed)",
    )
    ap.add_argument(
        "--smallest-first",
        action="store_true",
        help="run the repositories in order of size (bytes under benchmark_root), smallest first",
    )
    ap.add_argument(
        "--out", type=Path, help="JSON results (default benchmarks/results/semble-<date>.json)"
    )
    args = ap.parse_args(argv)

    default_modes = "bm25" if args.embedder == "none" else "bm25,vector,hybrid"
    modes = [m.strip() for m in (args.modes or default_modes).split(",") if m.strip()]
    if bad := [m for m in modes if m not in SEMBLE_MODES]:
        ap.error(f"unknown mode(s) {', '.join(bad)}; choose from {', '.join(SEMBLE_MODES)}")
    if args.embedder == "none" and set(modes) - {"bm25"}:
        ap.error("vector and hybrid modes need an embedder; use --embedder builtin or --modes bm25")

    manifest = json.loads((args.repos_dir / "manifest.json").read_text())
    entries = [
        e
        for e in manifest
        if (not args.repo or e["name"] in args.repo)
        and (not args.language or e["language"] in args.language)
    ]
    if unknown := set(args.repo) - {e["name"] for e in manifest}:
        ap.error(f"not in {args.repos_dir}/manifest.json: {', '.join(sorted(unknown))}")
    if args.smallest_first:
        entries.sort(key=tree_bytes)
    semble = load_semble(args.semble_dir)

    today = datetime.date.today().isoformat()
    out = args.out or HERE / "results" / f"semble-{today}.json"
    index_root = args.index_root or Path(tempfile.mkdtemp(prefix="codebot-semble-"))
    print(f"{len(entries)} repositories, modes {','.join(modes)}, embedder {args.embedder}")
    print(f"indexes in {index_root}\n")
    print_header(modes)

    rows: list[dict] = []
    started = time.perf_counter()
    for entry in entries:
        if not entry.get("ok"):
            print(f"{entry['name']:<20} skipped: {entry.get('note', 'no checkout')}", flush=True)
            rows.append({"name": entry["name"], "skipped": entry.get("note", "no checkout")})
            continue
        config = Config(index_dir=str(index_root / entry["name"]), embedder=args.embedder)
        try:
            row = run_repo(
                entry, args.semble_dir, modes, config, rebuild=args.rebuild or not args.index_root
            )
        except Exception as exc:  # one broken repository must not lose the other results
            traceback.print_exc()
            print(f"{entry['name']:<20} FAILED: {exc}", flush=True)
            rows.append({"name": entry["name"], "error": f"{type(exc).__name__}: {exc}"})
            continue
        rows.append(row)
        print_row(row, modes, semble)
        # Written after every repository: a long run's results so far survive an interruption.
        write_result(out, rows, modes, semble, args.embedder, today, started)

    summary = write_result(out, rows, modes, semble, args.embedder, today, started)
    print_summary(summary)
    print(f"\nwrote {out}")
    if not args.index_root:
        import shutil

        shutil.rmtree(index_root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

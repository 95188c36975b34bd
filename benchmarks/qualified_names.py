"""Is every exact qualified name first? Real repositories' own methods, asked for by name.

    python benchmarks/qualified_names.py --index-root /tmp/semble-idx [--repo NAME ...]
        [--per-repo 60] [--modes bm25,hybrid] [--out FILE.json]

For each repository indexed by ``benchmarks/semble.py --index-root DIR`` (nothing is rebuilt),
methods are sampled evenly from the index (every n-th, in index order, up to ``--per-repo``) and
each is asked for in three forms: ``Class.method``, ``file/path.py:Class.method`` and the
module-qualified ``module.Class.method`` (the id's last three parts). The answer is right when
the first hit is a definition of that qualified name (any member of an overload set of it, any
of the classes of that name when two modules define one). Reported with the ranking signals on
(the default) and off (fusion and the earlier name boost only).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path
from typing import Any

from codebot.core.config import Config
from codebot.index.overlay import open_index
from codebot.query.search import DEFAULT_SIGNALS, Searcher

_DUPLICATE = re.compile(r"#\d+$")


def tail(symbol_id: str, n: int) -> tuple[str, ...]:
    return tuple(_DUPLICATE.sub("", symbol_id).split(".")[-n:])


def run_repo(entry: dict[str, Any], index_root: Path, per_repo: int, modes: list[str]) -> dict:
    checkout = Path(entry["path"])
    target_dir = checkout / (entry.get("benchmark_root") or "")
    config = Config(index_dir=str(index_root / entry["name"]), embedder="builtin")
    index = open_index(target_dir, config)
    symbols = index.symbols
    methods = [
        s
        for s in (symbols[r] for r in range(len(symbols)))
        if s.class_name
        and s.kind not in ("chunk", "class")
        and s.role == "source"
        # the id ends with Class.method (not a nested function or a property setter's alias)
        and tail(s.id, 2) == (s.class_name, s.name)
    ]
    step = max(1, len(methods) // per_repo)
    sample = methods[::step][:per_repo]
    out: dict[str, Any] = {"name": entry["name"], "methods": len(sample), "results": {}}
    for label, signals in (("on", DEFAULT_SIGNALS), ("off", frozenset())):
        searcher = Searcher(index, config, signals=signals)
        for mode in modes:
            right = 0
            wrong: list[str] = []
            for s in sample:
                forms = {
                    f"{s.class_name}.{s.name}": 2,
                    f"{s.path}:{s.class_name}.{s.name}": 2,
                    ".".join(tail(s.id, 3)): 3,
                }
                for query, n in forms.items():
                    hits = searcher.search(query, k=1, mode=mode)
                    ok = bool(hits) and tail(hits[0].id, n) == tail(s.id, n)
                    if ":" in query and hits:
                        ok = ok and hits[0].path == s.path
                    right += ok
                    if not ok and len(wrong) < 5:
                        wrong.append(f"{query} -> {hits[0].id if hits else None}")
            out["results"][f"{label} {mode}"] = {"right": right, "asked": 3 * len(sample)}
            out.setdefault("wrong", {})[f"{label} {mode}"] = wrong
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repos-dir", type=Path, default=Path("/work/bench-repos"))
    ap.add_argument("--index-root", type=Path, required=True)
    ap.add_argument("--repo", action="append", default=[])
    ap.add_argument("--per-repo", type=int, default=60)
    ap.add_argument("--modes", default="bm25,hybrid")
    ap.add_argument("--out", type=Path)
    args = ap.parse_args(argv)
    modes = args.modes.split(",")
    manifest = json.loads((args.repos_dir / "manifest.json").read_text())
    rows = []
    for e in manifest:
        if not e.get("ok") or (args.repo and e["name"] not in args.repo):
            continue
        if not (args.index_root / e["name"] / "manifest.json").exists():
            continue
        row = run_repo(e, args.index_root, args.per_repo, modes)
        rows.append(row)
        cells = " ".join(
            f"{k}={v['right']}/{v['asked']}" for k, v in sorted(row["results"].items())
        )
        print(f"{row['name']:<12} {cells}", flush=True)
    totals: dict[str, list[int]] = {}
    for row in rows:
        for k, v in row["results"].items():
            t = totals.setdefault(k, [0, 0])
            t[0] += v["right"]
            t[1] += v["asked"]
    for k, (right, asked) in sorted(totals.items()):
        print(f"signals {k:<12} {right}/{asked} first ({right / max(asked, 1):.3f})")
    if args.out:
        args.out.write_text(json.dumps({"totals": totals, "repos": rows}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""What takes the top slots on the semble benchmark: result types per category, per repository.

    python benchmarks/semble_diagnose.py --index-root /work/semble-idx [--repo NAME ...]
        [--mode hybrid] [--results benchmarks/results/semble-63.json] [--out diagnosis.json]

Query phase only: each repository's index is opened from ``--index-root/<repo>`` (as
``benchmarks/semble.py --index-root`` leaves it) and every annotated query is run again. Each of
the top 10 results is classed by what it is:

- ``docs`` (markdown, rst, files under doc/), ``test``, ``example``, ``config`` (the file's role);
- among source files: ``chunk`` (a stretch of a file that is no definition: module code, a
  README section), ``type`` (class, struct, interface, trait, enum, module), ``callable``
  (function, method), ``value`` (constant, variable);

and judged relevant when it covers a target (relevant or secondary, semble's binary judgement).
Reported per category (architecture, semantic, symbol): the share of the top-10 slots and of first
places each class takes, and each class's precision (how many of its slots are relevant); per
repository: the file that comes first most often (a README first on 9 of 20 queries says prose
outranks code), and, with ``--results``, the worst queries of each repository with what came
first instead. Prints the tables; ``--out`` writes them as JSON.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

from codebot.core.config import Config
from codebot.core.model import FUNCTION_KINDS, TYPE_KINDS, VALUE_KINDS
from codebot.index.overlay import open_index
from codebot.query.evaluate import load_queries
from codebot.query.search import Searcher

sys.path.insert(0, str(Path(__file__).resolve().parent))

from semble import checkout_prefix  # noqa: E402

DEFAULT_SEMBLE = Path("/work/shared/bench/semble")
CLASSES = ("callable", "type", "value", "chunk", "docs", "test", "example", "config", "other")
CATEGORIES = ("architecture", "semantic", "symbol")


def result_class(symbol: Any) -> str:
    """What a result is (see the module docstring)."""
    if symbol.role in ("docs", "test", "example", "config"):
        return symbol.role
    if symbol.kind == "chunk":
        return "chunk"
    if symbol.kind in TYPE_KINDS:
        return "type"
    if symbol.kind in FUNCTION_KINDS:
        return "callable"
    if symbol.kind in VALUE_KINDS:
        return "value"
    return "other"


def run_repo(entry: dict, index_root: Path, semble_dir: Path, mode: str) -> list[dict]:
    """Per query: its category, ndcg-free facts about the top 10 (classes, relevance, files)."""
    checkout = Path(entry["path"])
    target_dir = checkout / (entry.get("benchmark_root") or "")
    config = Config(index_dir=str(index_root / entry["name"]))
    index = open_index(target_dir, config)
    prefix = checkout_prefix(index, checkout)
    searcher = Searcher(index, config)
    out = []
    for q in load_queries(semble_dir / "annotations" / f"{entry['name']}.json"):
        hits = searcher.search(q.query, k=10, mode=mode)
        rows = []
        for h in hits:
            located = _Located(h, prefix)
            rows.append(
                {
                    "class": result_class(h.symbol),
                    "kind": h.symbol.kind,
                    "path": located.path,
                    "name": h.symbol.name,
                    "relevant": any(t.covered_by(located) for t in q.targets),
                }
            )
        out.append(
            {
                "query": q.query,
                "category": q.category or "",
                "targets": sorted({str(t) for t in q.targets}),
                "top": rows,
            }
        )
    return out


class _Located:
    """A hit with its path relative to the checkout, as annotations give paths."""

    def __init__(self, hit: Any, prefix: str) -> None:
        self.id, self.path = hit.id, prefix + hit.path
        self.start_line, self.end_line = hit.start_line, hit.end_line


def class_table(queries: list[dict]) -> dict[str, dict[str, float]]:
    """Per class: share of slots, share of first places, precision of its slots."""
    slots, firsts, good = Counter(), Counter(), Counter()
    for q in queries:
        for i, r in enumerate(q["top"]):
            slots[r["class"]] += 1
            good[r["class"]] += r["relevant"]
            if i == 0:
                firsts[r["class"]] += 1
    total, n = sum(slots.values()) or 1, sum(firsts.values()) or 1
    return {
        c: {
            "slots": round(slots[c] / total, 3),
            "first": round(firsts[c] / n, 3),
            "precision": round(good[c] / slots[c], 3) if slots[c] else None,
        }
        for c in CLASSES
        if slots[c]
    }


def spread(queries: list[dict]) -> dict[str, float]:
    """Distinct files in the top 10, and the share of first places that are relevant."""
    files = [len({r["path"] for r in q["top"]}) for q in queries if q["top"]]
    first_ok = [q["top"][0]["relevant"] for q in queries if q["top"]]
    return {
        "queries": len(queries),
        "distinct_files_top10": round(sum(files) / max(len(files), 1), 2),
        "first_relevant": round(sum(first_ok) / max(len(first_ok), 1), 3),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repos-dir", type=Path, default=Path("/work/bench-repos"))
    ap.add_argument("--semble-dir", type=Path, default=DEFAULT_SEMBLE)
    ap.add_argument("--index-root", type=Path, required=True)
    ap.add_argument("--repo", action="append", default=[])
    ap.add_argument("--mode", default="hybrid", choices=["bm25", "vector", "hybrid"])
    ap.add_argument("--results", type=Path, help="a semble.py result file: list worst queries")
    ap.add_argument("--worst", type=int, default=3, help="worst queries listed per repository")
    ap.add_argument("--out", type=Path)
    ap.add_argument(
        "--with-queries", action="store_true", help="--out also holds every query's top 10"
    )
    args = ap.parse_args(argv)

    manifest = json.loads((args.repos_dir / "manifest.json").read_text())
    entries = [
        e
        for e in manifest
        if e.get("ok")
        and (not args.repo or e["name"] in args.repo)
        and (args.index_root / e["name"]).is_dir()
    ]
    scores: dict[tuple[str, str], float] = {}
    if args.results:
        for r in json.loads(args.results.read_text())["repos"]:
            for q in r.get("modes", {}).get(args.mode, {}).get("queries", []):
                scores[(r["name"], q["query"])] = q["ndcg10"]

    per_repo: dict[str, list[dict]] = {}
    for e in entries:
        try:
            per_repo[e["name"]] = run_repo(e, args.index_root, args.semble_dir, args.mode)
        except Exception as exc:  # an index still being built, or broken: say so, go on
            print(f"{e['name']}: {type(exc).__name__}: {exc}", file=sys.stderr)
    everything = [q for qs in per_repo.values() for q in qs]
    by_cat: dict[str, list[dict]] = defaultdict(list)
    for q in everything:
        by_cat[q["category"]].append(q)

    report: dict[str, Any] = {
        "mode": args.mode,
        "repos": len(per_repo),
        "overall": {"classes": class_table(everything), **spread(everything)},
        "by_category": {
            c: {"classes": class_table(by_cat[c]), **spread(by_cat[c])} for c in CATEGORIES
        },
        "per_repo": {},
    }
    for name, qs in per_repo.items():
        firsts = Counter(q["top"][0]["path"] for q in qs if q["top"])
        path, times = firsts.most_common(1)[0] if firsts else ("", 0)
        repo: dict[str, Any] = {
            "queries": len(qs),
            "most_often_first": {"path": path, "times": times},
            "first_classes": dict(Counter(q["top"][0]["class"] for q in qs if q["top"])),
            "non_code_slots": round(
                sum(
                    r["class"] in ("docs", "test", "example", "config")
                    for q in qs
                    for r in q["top"]
                )
                / max(sum(len(q["top"]) for q in qs), 1),
                3,
            ),
        }
        if scores:
            ranked = sorted(qs, key=lambda q: scores.get((name, q["query"]), 1.0))
            repo["worst"] = [
                {
                    "query": q["query"],
                    "category": q["category"],
                    "ndcg10": scores.get((name, q["query"])),
                    "targets": q["targets"],
                    "first": [
                        f"{r['class']} {r['path']}:{r['name']}{' *' if r['relevant'] else ''}"
                        for r in q["top"][:3]
                    ],
                }
                for q in ranked[: args.worst]
            ]
        report["per_repo"][name] = repo

    if args.with_queries:
        report["queries"] = per_repo
    print_report(report)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(report, indent=1) + "\n")
        print(f"\nwrote {args.out}")
    return 0


def print_report(report: dict[str, Any]) -> None:
    print(f"{report['repos']} repositories, mode {report['mode']}")
    print("\nshare of top-10 slots / of first places, and precision of the slots, per class")
    groups = {"all": report["overall"], **report["by_category"]}
    print(f"{'':<10}" + "".join(f" {g:>22}" for g in groups))
    print(f"{'class':<10}" + f" {'slots':>6} {'first':>6} {'prec':>7}" * len(groups))
    for c in CLASSES:
        cells = ""
        for g in groups.values():
            x = g["classes"].get(c)
            cells += (
                f" {x['slots']:>6.1%} {x['first']:>6.1%} {x['precision'] or 0:>7.1%}"
                if x
                else f" {'-':>22}"
            )
        print(f"{c:<10}{cells}")
    print(
        f"{'files@10':<10}" + "".join(f" {g['distinct_files_top10']:>22}" for g in groups.values())
    )
    print(f"{'1st ok':<10}" + "".join(f" {g['first_relevant']:>22.1%}" for g in groups.values()))
    print("\nper repository: the file most often first, non-code share of the top 10")
    for name, r in sorted(report["per_repo"].items(), key=lambda kv: -kv[1]["non_code_slots"]):
        m = r["most_often_first"]
        print(
            f"{name:<20} {r['non_code_slots']:>6.1%}  {m['path']} first on {m['times']}/"
            f"{r['queries']}"
        )
        for w in r.get("worst", []):
            print(f"    {w['ndcg10']:.2f} [{w['category']}] {w['query']}")
            print(f"         want {', '.join(w['targets'][:3])}")
            for f in w["first"]:
                print(f"         got  {f}")


if __name__ == "__main__":
    sys.exit(main())

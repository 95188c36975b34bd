"""Several repositories searched at once: does the merged ranking keep each repository's quality?

    python benchmarks/multirepo.py [--repo flask --repo requests --repo click] [--embedder none|builtin]
        [--embedder-of requests=none] [--modes bm25,hybrid] [--index-root DIR]
        [--out benchmarks/results/multirepo-<embedder>-<date>.json]

Each repository's ``benchmark_root`` (``<repos-dir>/manifest.json``) is indexed on its own (kept
under --index-root as <embedder>/<name>, reused when there; --embedder-of gives a repository
another embedder, for a set of mixed indexes). Every annotated query of every repository is then run
against the set (``codebot.query.multi.MultiSearcher``, as ``codebot search --repo ... --repo``),
and scored with the semble metric (``codebot.query.evaluate``) on targets prefixed by their
repository, so a hit of another repository never covers one. Beside it:

- ``alone``: the same query on its own repository only (the ceiling the merge should stay near);
- ``raw``: the naive merge, by the searchers' raw scores;
- ``normalised``: each repository's scores divided by its best, interleaved (no confidence);
- ``calibrated`` at sharpness 1 and 3: the shipped merge with another exponent (sensitivity);
- ``by raw BM25``: the confidence from the sum of each corpus's 10 best raw BM25 scores instead
  of the share of its symbols holding the query's words (why the shipped merge uses the share).

NDCG@10 is averaged per repository, then over repositories (as benchmarks/semble.py does).
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import sys
import tempfile
import time
from dataclasses import dataclass, replace
from pathlib import Path
from statistics import mean, median
from typing import Any

from codebot.core.config import Config
from codebot.index.build import build_index
from codebot.index.lexical import LexicalIndex
from codebot.index.store import MANIFEST
from codebot.index.text import query_words
from codebot.query.evaluate import EvalQuery, Target, evaluate, load_queries
from codebot.query.multi import (
    SHARPNESS,
    Member,
    MultiSearcher,
    SharedEmbedder,
    confidences,
    merge,
    open_member,
)

HERE = Path(__file__).resolve().parent
DEFAULT_SEMBLE = Path("/work/shared/bench/semble")
VARIANTS = (
    "alone",
    "calibrated",
    "raw",
    "normalised",
    "calibrated s=1",
    "calibrated s=3",
    "by raw BM25",
)


@dataclass(frozen=True, slots=True)
class RepoHit:
    """A hit with its path prefixed by its repository and its place in the checkout."""

    id: str
    path: str
    start_line: int
    end_line: int


def prefixed(name: str, q: EvalQuery) -> EvalQuery:
    def move(t: Target) -> Target:
        return t if t.path is None else replace(t, path=f"{name}/{t.path.strip('/')}")

    return EvalQuery(
        q.query, tuple(map(move, q.relevant)), tuple(map(move, q.secondary)), q.category
    )


def suffixes(paths: list[str]) -> set[str]:
    out: set[str] = set()
    for p in paths:
        parts = p.split("/")
        out.update("/".join(parts[i:]) for i in range(len(parts)))
    return out


def confidences_by(evidence: dict[str, dict[str, float]], kind: str) -> dict[str, float]:
    """The shipped confidence computed from another evidence ``kind`` alone."""
    return confidences({repo: {"words": e[kind]} for repo, e in evidence.items()})


def open_repos(
    entries: list[dict], index_root: Path, embedders: dict[str, str],
    shared: dict[str, SharedEmbedder],
) -> tuple[list[Member], dict[str, str], set[str]]:  # fmt: skip
    """Members (indexes built when absent), each repository's hit-path prefix, and every file
    under the benchmark roots (prefixed), for semble's "could the index hold it" rule."""
    members, prefixes, on_disk = [], {}, set()
    for e in entries:
        checkout = Path(e["path"])
        target = checkout / (e.get("benchmark_root") or "")
        index_dir = index_root / embedders[e["name"]] / e["name"]
        config = Config(index_dir=str(index_dir), embedder=embedders[e["name"]])
        if not (index_dir / MANIFEST).exists():
            started = time.perf_counter()
            build_index(target, config)
            print(f"indexed {e['name']} in {time.perf_counter() - started:.1f}s", flush=True)
        m = open_member(e["name"], target, config, shared)
        if m.searcher is None:
            raise SystemExit(f"{e['name']}: {m.error}")
        members.append(m)
        rel = os.path.relpath(m.searcher.index.root, checkout.resolve()).replace(os.sep, "/")
        prefixes[e["name"]] = f"{e['name']}/" + ("" if rel == "." else rel + "/")
        on_disk |= suffixes(
            [
                f"{e['name']}/" + Path(d, f).relative_to(checkout).as_posix()
                for d, _, files in os.walk(target)
                for f in files
            ]
        )
    return members, prefixes, on_disk


def run(members: list[Member], queries: dict[str, list[EvalQuery]], prefixes: dict[str, str],
        on_disk: set[str], mode: str) -> dict[str, Any]:  # fmt: skip
    multi = MultiSearcher(members)
    by_name = {m.name: m for m in members}
    lexical = {m.name: LexicalIndex(m.searcher.index.gen_dir / "lexical") for m in members}
    lists: dict[str, dict[str, list]] = {}  # query -> variant -> hits (RepoHit)
    ms: list[float] = []

    def as_hits(items) -> list[RepoHit]:
        return [RepoHit(h.id, prefixes[h.repo] + h.path, h.start_line, h.end_line) for h in items]

    for name, qs in queries.items():
        for q in qs:
            multi.answer(q.query, k=10, mode=mode)  # warm (first query loads the retrievers)
            started = time.perf_counter()
            merged = multi.answer(q.query, k=10, mode=mode).hits
            ms.append((time.perf_counter() - started) * 1000)
            per_repo = {m.name: m.searcher.search(q.query, k=10, mode=mode) for m in members}
            top_bm25 = {
                m.name: {
                    "bm25": sum(s for _, s in lexical[m.name].search(query_words(q.query), 10))
                }
                for m in members
            }
            evidence = {m.name: m.searcher.evidence(q.query, mode) for m in members}
            alone = [
                RepoHit(h.id, prefixes[name] + h.path, h.start_line, h.end_line)
                for h in per_repo[name]
            ]
            lists[q.query + "\0" + name] = {
                "alone": alone,
                "calibrated": as_hits(merged),
                "raw": as_hits(merge(per_repo, 10, "raw")),
                "normalised": as_hits(merge(per_repo, 10, "normalised")),
                "calibrated s=1": as_hits(
                    merge(per_repo, 10, "calibrated", confidences(evidence, 1.0))
                ),
                "calibrated s=3": as_hits(
                    merge(per_repo, 10, "calibrated", confidences(evidence, 3.0))
                ),
                "by raw BM25": as_hits(
                    merge(per_repo, 10, "calibrated", confidences_by(top_bm25, "bm25"))
                ),
            }
    assert set(by_name) == set(queries)

    def indexed(t: Target) -> bool:
        return t.path is not None and t.path.strip("/") in on_disk

    out: dict[str, Any] = {"p50_ms": round(median(ms), 1), "variants": {}}
    for variant in VARIANTS:
        per_repo_ndcg = {}
        for name, qs in queries.items():
            report = evaluate(
                qs, lambda text, n=name, v=variant: lists[text + "\0" + n][v], indexed=indexed
            )
            per_repo_ndcg[name] = report.to_dict(returned=0)["overall"]["ndcg10"]
        out["variants"][variant] = {
            "mean": round(mean(per_repo_ndcg.values()), 4),
            "repos": {n: round(v, 4) for n, v in per_repo_ndcg.items()},
        }
    # How often the merged top 10 holds a hit of another repository than the query's.
    foreign = {}
    for variant in VARIANTS[1:]:
        counts = [
            sum(not h.path.startswith(key.split("\0")[1] + "/") for h in v[variant])
            for key, v in lists.items()
        ]
        foreign[variant] = round(mean(counts), 2)
    out["foreign_in_top10"] = foreign
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repos-dir", type=Path, default=Path("/work/bench-repos"))
    ap.add_argument("--semble-dir", type=Path, default=DEFAULT_SEMBLE)
    ap.add_argument(
        "--repo", action="append", default=[], help="repeatable; default flask, requests, click"
    )
    ap.add_argument("--embedder", default="none", choices=["builtin", "none"])
    ap.add_argument(
        "--embedder-of",
        action="append",
        default=[],
        metavar="NAME=EMBEDDER",
        help="this repository with another embedder (repeatable): a set of mixed indexes",
    )
    ap.add_argument("--modes", default=None, help="default: bm25 (none), bm25,hybrid (builtin)")
    ap.add_argument("--index-root", type=Path, help="keep the indexes here (reused when present)")
    ap.add_argument("--out", type=Path)
    args = ap.parse_args(argv)

    names = args.repo or ["flask", "requests", "click"]
    manifest = {e["name"]: e for e in json.loads((args.repos_dir / "manifest.json").read_text())}
    if unknown := [n for n in names if n not in manifest or not manifest[n].get("ok")]:
        ap.error(f"no checkout in {args.repos_dir}/manifest.json: {', '.join(unknown)}")
    modes = (args.modes or ("bm25" if args.embedder == "none" else "bm25,hybrid")).split(",")
    index_root = args.index_root or Path(tempfile.mkdtemp(prefix="codebot-multirepo-"))
    shared: dict[str, SharedEmbedder] = {}
    embedders = {n: args.embedder for n in names}
    embedders.update(dict(item.split("=", 1) for item in args.embedder_of))
    members, prefixes, on_disk = open_repos(
        [manifest[n] for n in names], index_root, embedders, shared
    )
    queries = {
        n: [prefixed(n, q) for q in load_queries(args.semble_dir / "annotations" / f"{n}.json")]
        for n in names
    }
    with_embedders = ", ".join(f"{n} ({embedders[n]})" for n in names)
    print(f"{with_embedders}: {sum(map(len, queries.values()))} queries")
    result: dict[str, Any] = {
        "benchmark": "multirepo",
        "date": datetime.date.today().isoformat(),
        "repos": names,
        "embedders": embedders,
        "sharpness": SHARPNESS,
        "modes": {},
    }
    for mode in modes:
        r = result["modes"][mode] = run(members, queries, prefixes, on_disk, mode)
        print(
            f"\nmode {mode}: NDCG@10 (mean over repositories; per repository)   p50 {r['p50_ms']} ms"
        )
        for variant, v in r["variants"].items():
            per = "  ".join(f"{n} {x:.3f}" for n, x in v["repos"].items())
            foreign = r["foreign_in_top10"].get(variant, 0.0)
            print(f"  {variant:<15} {v['mean']:.3f}   {per}   foreign in top 10: {foreign}")
    tag = "mixed" if len(set(embedders.values())) > 1 else args.embedder
    out = args.out or HERE / "results" / f"multirepo-{tag}-{result['date']}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=1) + "\n")
    print(f"\nwrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

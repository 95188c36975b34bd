"""Each ranking signal of ``Searcher`` measured alone, on the semble benchmark, against fusion with
all signals and with none: the ablation table of benchmarks/RESULTS.md.

    python benchmarks/rank_ablation.py --index-root /tmp/semble-idx [--repo NAME ...]
        [--modes bm25,hybrid] [--variants all,none,-qualified,+qualified,...] [--out FILE.json]
        [--set _FILE_BOOST=0.3 ...]

The indexes are the ones ``benchmarks/semble.py --index-root DIR`` built and kept (nothing is
rebuilt: a ranking change only re-queries). A variant is ``default`` (the signals on by default),
``all`` (every signal), ``none`` (fusion and the earlier rerank only), ``-NAME`` (the default
signals but NAME) or ``+NAME`` (NAME alone).
Scores are averaged per repository, then over repositories, per category too, as semble.py does.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from statistics import mean
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from semble import (  # noqa: E402
    CATEGORIES,
    DEFAULT_SEMBLE,
    RepoHit,
    category_means,
    checkout_prefix,
    suffix_index,
)

from codebot.core.config import Config  # noqa: E402
from codebot.index.overlay import open_index  # noqa: E402
from codebot.query.evaluate import evaluate, load_queries  # noqa: E402
from codebot.query.search import DEFAULT_SIGNALS, SIGNALS, Searcher  # noqa: E402


class CachedEmbedder:
    """The index's embedder, with each query embedded once for all variants."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.memo: dict[str, Any] = {}

    def embed_queries(self, queries: list[str]) -> list[Any]:
        missing = [q for q in queries if q not in self.memo]
        if missing:
            for q, v in zip(missing, self.inner.embed_queries(missing)):
                self.memo[q] = v
        return [self.memo[q] for q in queries]


def variant_signals(variant: str) -> frozenset[str]:
    if variant == "default":
        return DEFAULT_SIGNALS
    if variant == "all":
        return frozenset(SIGNALS)
    if variant == "none":
        return frozenset()
    name = variant[1:]
    if variant[0] not in "+-" or name not in SIGNALS:
        raise SystemExit(f"unknown variant {variant!r}: all, none, +NAME or -NAME of {SIGNALS}")
    return frozenset({name}) if variant[0] == "+" else DEFAULT_SIGNALS - {name}


def run_repo(
    entry: dict[str, Any], semble_dir: Path, index_root: Path, modes: list[str], variants: list[str]
) -> dict[str, Any]:
    checkout = Path(entry["path"])
    target_dir = checkout / (entry.get("benchmark_root") or "")
    queries = load_queries(semble_dir / "annotations" / f"{entry['name']}.json")
    config = Config(index_dir=str(index_root / entry["name"]), embedder="builtin")
    index = open_index(target_dir, config)
    prefix = checkout_prefix(index, checkout)
    on_disk = suffix_index(
        [
            Path(d, f).relative_to(checkout).as_posix()
            for d, _, files in os.walk(target_dir)
            for f in files
        ]
    )
    embedder = CachedEmbedder(Searcher(index, config).embedder())
    out: dict[str, Any] = {"name": entry["name"], "language": entry["language"], "variants": {}}
    for variant in variants:
        searcher = Searcher(index, config, embedder=embedder, signals=variant_signals(variant))
        out["variants"][variant] = {}
        for mode in modes:

            def search(q: str, mode: str = mode, searcher: Searcher = searcher) -> list[RepoHit]:
                hits = searcher.search(q, k=10, mode=mode)
                return [RepoHit(h.id, prefix + h.path, h.start_line, h.end_line) for h in hits]

            report = evaluate(
                queries,
                search,
                indexed=lambda t: t.path is not None and t.path.strip("/") in on_disk,
            ).to_dict(returned=0)
            out["variants"][variant][mode] = {
                "ndcg10": report["overall"]["ndcg10"],
                "by_category": {c: m["ndcg10"] for c, m in report["by_category"].items()},
                "queries": [round(q["ndcg10"], 4) for q in report["queries"]],
            }
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repos-dir", type=Path, default=Path("/work/bench-repos"))
    ap.add_argument("--semble-dir", type=Path, default=DEFAULT_SEMBLE)
    ap.add_argument("--index-root", type=Path, required=True)
    ap.add_argument("--repo", action="append", default=[])
    ap.add_argument("--modes", default="bm25,hybrid")
    ap.add_argument(
        "--variants",
        default=",".join(
            ["none", "default", *(f"+{s}" for s in SIGNALS), *(f"-{s}" for s in SIGNALS)]
        ),
    )
    ap.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="try another value of one of search.py's constants (_FILE_BOOST=0.3): for tuning",
    )
    ap.add_argument("--out", type=Path)
    args = ap.parse_args(argv)
    import codebot.query.search as search_module

    for item in args.set:
        name, _, value = item.partition("=")
        if not hasattr(search_module, name):
            raise SystemExit(f"codebot.query.search has no {name}")
        now = getattr(search_module, name)
        setattr(
            search_module,
            name,
            tuple(json.loads(value)) if isinstance(now, tuple) else type(now)(value),
        )
    modes = args.modes.split(",")
    variants = args.variants.split(",")
    for v in variants:
        variant_signals(v)
    manifest = json.loads((args.repos_dir / "manifest.json").read_text())
    entries = [
        e
        for e in manifest
        if e.get("ok")
        and (not args.repo or e["name"] in args.repo)
        and (args.index_root / e["name"] / "manifest.json").exists()
    ]
    rows = []
    for entry in entries:
        rows.append(run_repo(entry, args.semble_dir, args.index_root, modes, variants))
        print(
            f"{entry['name']:<12}"
            + "".join(
                f" {v}:{m}={rows[-1]['variants'][v][m]['ndcg10']:.3f}"
                for v in variants
                for m in modes
            ),
            flush=True,
        )
    print(f"\n{len(rows)} repositories")
    print(f"{'variant':<16} {'mode':<7} {'NDCG@10':>8}" + "".join(f" {c:>13}" for c in CATEGORIES))
    summary: dict[str, Any] = {}
    for v in variants:
        for m in modes:
            cats = category_means([r["variants"][v][m]["by_category"] for r in rows])
            overall = mean(r["variants"][v][m]["ndcg10"] for r in rows)
            summary[f"{v} {m}"] = {"ndcg10": overall, "by_category": cats}
            print(
                f"{v:<16} {m:<7} {overall:>8.4f}"
                + "".join(f" {cats.get(c, float('nan')):>13.4f}" for c in CATEGORIES)
            )
    if args.out:
        args.out.write_text(json.dumps({"summary": summary, "repos": rows}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())

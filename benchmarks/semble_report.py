"""Markdown tables of a ``benchmarks/semble.py`` result beside semble's published figures.

    python benchmarks/semble_report.py RESULT.json [MORE.json ...] [--subset NAME ...]

Per repository (our modes, semble's published hybrid, BM25 and semantic runs, the gap in hybrid),
per language and per category, and overall: on every repository that ran, and on ``--subset``
(several result files are merged: per repository, each mode from the first file that has it)
(default: the 15 repositories ``benchmarks/RESULTS.md`` first reported). Means are over
repositories, as semble's summary is; semble's columns are restricted to the same repositories.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from pathlib import Path
from statistics import mean
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from semble import CATEGORIES, DEFAULT_SEMBLE, SEMBLE_MODES, load_semble  # noqa: E402

FIRST_15 = (
    "flask", "requests", "httpx", "click", "starlette", "fastapi", "model2vec", "aiohttp",
    "pydantic", "express", "trpc", "chi", "sinatra", "monolog", "ktor",
)  # fmt: skip


def _f(x: float | None) -> str:
    return "-" if x is None else f"{x:.3f}"


def _gap(ours: float | None, theirs: float | None) -> str:
    return "-" if ours is None or theirs is None else f"{ours - theirs:+.3f}"


def tables(result: dict[str, Any], semble: dict, subset: tuple[str, ...]) -> str:
    modes = [m for m in ("bm25", "vector", "hybrid") if m in result["modes"]]
    rows = [r for r in result["repos"] if "modes" in r]
    main = "hybrid" if "hybrid" in modes else modes[-1]
    theirs = {m: semble.get(SEMBLE_MODES[m], {}) for m in modes}
    out: list[str] = []

    def ours(r: dict, m: str, cat: str | None = None) -> float | None:
        got = r["modes"].get(m)
        if got is None:
            return None
        return got["ndcg10"] if cat is None else got["by_category"].get(cat)

    def pub(r: dict, m: str, cat: str | None = None) -> float | None:
        row = theirs[m].get(r["name"])
        if row is None:
            return None
        return row["ndcg10"] if cat is None else row.get("by_category", {}).get(cat)

    def avg(values: list[float | None]) -> float | None:
        got = [v for v in values if v is not None]
        return mean(got) if got else None

    # Overall, per mode on the repositories that ran it, on all and on the subset.
    out.append(
        "| mode | repositories | n | NDCG@10 (semble) | "
        + " | ".join(f"{c} (semble)" for c in CATEGORIES)
        + " |"
    )
    out.append("|---" * (4 + len(CATEGORIES)) + "|")
    for m in modes:
        ran = [r for r in rows if m in r["modes"]]
        for label, group in (("all that ran", ran), (f"of the {len(subset)}", _only(ran, subset))):
            if not group:
                continue
            cells = [
                f"{_f(avg([ours(r, m) for r in group]))} ({_f(avg([pub(r, m) for r in group]))})"
            ]
            cells += [
                f"{_f(avg([ours(r, m, c) for r in group]))} "
                f"({_f(avg([pub(r, m, c) for r in group]))})"
                for c in CATEGORIES
            ]
            out.append(f"| {m} | {label} | {len(group)} | " + " | ".join(cells) + " |")

    # Per language.
    out.append("")
    out.append(f"| language | repos | {' | '.join(modes)} | semble {main} | gap | ahead / behind |")
    out.append("|---" * (5 + len(modes)) + "|")
    by_lang: dict[str, list[dict]] = defaultdict(list)
    for r in rows:
        if main in r["modes"]:
            by_lang[r["language"]].append(r)
    for lang, group in sorted(by_lang.items()):
        mine, pubs = avg([ours(r, main) for r in group]), avg([pub(r, main) for r in group])
        ahead = sum(1 for r in group if (pub(r, main) or 0) < ours(r, main))
        behind = sum(1 for r in group if (pub(r, main) or 0) > ours(r, main))
        cells = " | ".join(_f(avg([ours(r, m) for r in group])) for m in modes)
        out.append(
            f"| {lang} | {len(group)} | {cells} | {_f(pubs)} | {_gap(mine, pubs)} | "
            f"{ahead} / {behind} |"
        )

    # Per repository, worst gap first.
    out.append("")
    head = " | ".join(modes)
    sem = " | ".join(SEMBLE_MODES[m] for m in modes)
    cat_head = " | ".join(f"{c[:4]} ours/semble" for c in CATEGORIES)
    out.append(f"| repo | language | symbols | {head} | {sem} | gap | {cat_head} |")
    out.append("|---" * (4 + 2 * len(modes) + len(CATEGORIES)) + "|")
    order = sorted(rows, key=lambda r: (main not in r["modes"], _gap_value(r, main, ours, pub)))
    for r in order:
        cells = " | ".join(_f(ours(r, m)) for m in modes)
        pubs = " | ".join(_f(pub(r, m)) for m in modes)
        shown = main if main in r["modes"] else modes[0]  # a keyword-only row: its BM25
        cats = " | ".join(f"{_f(ours(r, shown, c))}/{_f(pub(r, shown, c))}" for c in CATEGORIES)
        out.append(
            f"| {r['name']} | {r['language']} | {r['counts'].get('symbols', 0)} | {cells} | "
            f"{pubs} | {_gap(ours(r, main), pub(r, main))} | {cats} |"
        )
    for m in modes:
        ran = [r for r in rows if m in r["modes"] and pub(r, m) is not None]
        ahead = sum(1 for r in ran if pub(r, m) < ours(r, m))
        behind = sum(1 for r in ran if pub(r, m) > ours(r, m))
        out.append("")
        out.append(
            f"{m}: ahead of semble on {ahead} of {len(ran)} repositories, behind on {behind}."
        )
    missing = [r for r in result["repos"] if "modes" not in r]
    if missing:
        out.append("")
        out.append("Not run: " + "; ".join(
            f"{r['name']} ({r.get('skipped') or r.get('error')})" for r in missing
        ))  # fmt: skip
    return "\n".join(out)


def _gap_value(r: dict, mode: str, ours, pub) -> float:
    a, b = ours(r, mode), pub(r, mode)
    return 0.0 if a is None or b is None else a - b


def merge(results: list[dict[str, Any]]) -> dict[str, Any]:
    """Several result files as one: per repository, each mode from the first file that has it
    (a full run with the built-in embedder first, then a keyword-only run over more)."""
    by_name: dict[str, dict] = {}
    modes: list[str] = []
    for result in results:
        modes += [m for m in result["modes"] if m not in modes]
        for r in result["repos"]:
            have = by_name.get(r["name"])
            if have is None or "modes" not in have:
                by_name[r["name"]] = {**r, "modes": dict(r.get("modes", {}))} if "modes" in r else r
            elif "modes" in r:
                for m, got in r["modes"].items():
                    have["modes"].setdefault(m, got)
    return {"modes": modes, "repos": list(by_name.values())}


def _only(rows: list[dict], names: tuple[str, ...]) -> list[dict]:
    return [r for r in rows if r["name"] in names]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument(
        "result",
        type=Path,
        nargs="+",
        help="benchmarks/semble.py result files (merged, first wins)",
    )
    ap.add_argument("--semble-dir", type=Path, default=DEFAULT_SEMBLE)
    ap.add_argument("--subset", action="append", default=[], help="default: RESULTS.md's 15")
    args = ap.parse_args(argv)
    result = merge([json.loads(p.read_text()) for p in args.result])
    print(tables(result, load_semble(args.semble_dir), tuple(args.subset) or FIRST_15))
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""A contributor's questions, answered by reading the code: how many of the top-5 slots are relevant.

    python benchmarks/contributor_questions.py [--repo click] [--mode hybrid] [--graph]
        [--signals default|none|+NAME|-NAME] [--index-root /tmp/cq-idx] [--out benchmarks/results/contributor-questions-<date>.json]

``benchmarks/contributor_questions/<repo>.json`` holds ten questions per repository, written as a
new contributor would ask them, and the definitions that answer each one, judged by reading the
code at the revision named there (``path::Qualified.name``; a listed class covers its methods).
Each question is asked of an index of the whole checkout (tests, docs and examples included, as a
user's index is): built with the built-in embedder under ``--index-root/<repo>`` when missing. A
top-5 slot is relevant when its hit lies inside a listed definition. A query that names one
definition by its qualified name (``Group.invoke``; listed apart under ``qualified``, not counted in
the slots) should find that definition first. Every listed definition must exist in the index: a
name that resolves to nothing is an error in the question file, reported, and the run fails.
"""

from __future__ import annotations

import argparse
import datetime
import json
import time
from pathlib import Path

from codebot.core.config import Config
from codebot.git.workspace import Workspace
from codebot.index.store import read_index
from codebot.query.search import DEFAULT_SIGNALS, SIGNALS, Searcher

HERE = Path(__file__).resolve().parent
QUESTIONS = HERE / "contributor_questions"
TOP = 5


def qualified(symbol) -> str:
    """``Class.method`` for a method, the bare name otherwise (Go: ``Type.Method``)."""
    return f"{symbol.class_name}.{symbol.name}" if symbol.class_name else symbol.name


def spans(index, relevant: list[str]) -> tuple[dict[str, list[tuple[int, int]]], list[str]]:
    """Per path, the line spans of the listed definitions; and the entries matching nothing."""
    wanted: dict[tuple[str, str], str] = {}
    for entry in relevant:
        path, name = entry.split("::", 1)
        wanted[(path, name)] = entry
    out: dict[str, list[tuple[int, int]]] = {}
    found = set()
    for s in index.symbols:
        key = (s.path, qualified(s))
        if key in wanted and s.kind != "chunk":
            out.setdefault(s.path, []).append((s.start_line, s.end_line))
            found.add(wanted[key])
    return out, [e for e in relevant if e not in found]


def relevant_hit(hit, where: dict[str, list[tuple[int, int]]]) -> bool:
    return any(a <= hit.start_line and hit.end_line <= b for a, b in where.get(hit.path, []))


def ensure_index(spec: dict, config: Config) -> None:
    if not (Path(config.index_dir) / "manifest.json").exists():
        from codebot.index.build import build_index

        build_index(spec["checkout"], config)


def signals_of(variant: str) -> frozenset[str]:
    """The ranking signals of a variant, as ``rank_ablation.py`` names them: ``default``,
    ``none``, ``+NAME`` (that signal alone) or ``-NAME`` (the default ones but that)."""
    if variant == "default":
        return DEFAULT_SIGNALS
    if variant == "none":
        return frozenset()
    name = variant[1:]
    if variant[:1] not in ("+", "-") or name not in SIGNALS:
        raise SystemExit(f"unknown variant {variant!r}: default, none, +NAME or -NAME of {SIGNALS}")
    return frozenset({name}) if variant[0] == "+" else DEFAULT_SIGNALS - {name}


def run_repo(
    spec: dict, index_root: Path, mode: str, graph: bool, signals: frozenset[str] | None = None
) -> dict:
    index_dir = index_root / spec["repo"]
    config = Config(index_dir=str(index_dir))
    ensure_index(spec, config)
    index = read_index(Workspace.of(spec["checkout"], config.index_dir))
    if index.manifest.commit != spec["revision"]:
        raise SystemExit(
            f"{spec['repo']}: the index is of {index.manifest.commit}, the answers of "
            f"{spec['revision']}: check out that revision"
        )
    searcher = Searcher(index, config, signals=signals)
    rows, slots, unresolved = [], 0, []
    for q in spec["questions"]:
        where, missing = spans(index, q["relevant"])
        unresolved += missing
        hits = searcher.answer(q["query"], k=TOP, mode=mode, graph=graph).hits[:TOP]
        marks = [relevant_hit(h, where) for h in hits]
        slots += sum(marks)
        row = {
            "query": q["query"],
            "relevant": sum(marks),
            "hits": [{"id": h.id, "path": h.path, "relevant": m} for h, m in zip(hits, marks)],
        }
        rows.append(row)
    firsts = []
    for q in spec.get("qualified", []):
        where, missing = spans(index, [q["relevant"]])
        unresolved += missing
        hits = searcher.answer(q["query"], k=TOP, mode=mode, graph=graph).hits[:TOP]
        rank = next((i + 1 for i, h in enumerate(hits) if relevant_hit(h, where)), None)
        first = hits[0].id if hits else None
        firsts.append({"query": q["query"], "rank": rank, "first": first})
    return {"slots": slots, "of": TOP * len(spec["questions"]), "questions": rows,
            "qualified": firsts, "unresolved": unresolved}  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repo", action="append", default=[])
    ap.add_argument("--mode", default="hybrid", choices=["hybrid", "bm25", "vector"])
    ap.add_argument("--graph", action=argparse.BooleanOptionalAction, default=True,
                    help="the graph stage, as `codebot search` answers (default: on)")  # fmt: skip
    ap.add_argument("--index-root", type=Path, default=Path("/tmp/cq-idx"))
    ap.add_argument("--signals", default="default",
                    help="the ranking signals: default, none, +NAME alone, -NAME left out")  # fmt: skip
    ap.add_argument("--verbose", "-v", action="store_true", help="print every hit")
    ap.add_argument("--out", type=Path)
    args = ap.parse_args(argv)
    names = args.repo or sorted(p.stem for p in QUESTIONS.glob("*.json"))
    started = time.perf_counter()
    repos, failed = {}, False
    for name in names:
        spec = json.loads((QUESTIONS / f"{name}.json").read_text())
        r = run_repo(spec, args.index_root, args.mode, args.graph, signals_of(args.signals))
        repos[name] = r
        print(f"\n{name}: {r['slots']}/{r['of']} top-{TOP} slots relevant")
        for q in r["questions"]:
            print(f"  {q['relevant']}/{TOP}  {q['query']}")
            if args.verbose:
                for h in q["hits"]:
                    print(f"        {'+' if h['relevant'] else '-'} {h['id']}")
        for q in r["qualified"]:
            where = "first" if q["rank"] == 1 else f"rank {q['rank'] or '>5'}, first {q['first']}"
            print(f"  qualified name {q['query']}: {where}")
        if r["unresolved"]:
            failed = True
            print(f"  unresolved answers (fix the question file): {r['unresolved']}")
    total = sum(r["slots"] for r in repos.values())
    of = sum(r["of"] for r in repos.values())
    firsts = [q["rank"] == 1 for r in repos.values() for q in r["qualified"]]
    print(f"\nall: {total}/{of} slots relevant; qualified names first: {sum(firsts)}/{len(firsts)}")
    result = {
        "benchmark": "contributor-questions",
        "date": datetime.date.today().isoformat(),
        "mode": args.mode,
        "graph": args.graph,
        "signals": args.signals,
        "top": TOP,
        "slots": total,
        "of": of,
        "qualified_first": sum(firsts),
        "qualified": len(firsts),
        "repos": repos,
        "seconds": round(time.perf_counter() - started, 1),
    }
    out = args.out or HERE / "results" / f"contributor-questions-{result['date']}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=1) + "\n")
    print(f"wrote {out}")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())

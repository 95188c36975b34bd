"""The impact report scored against claims checked by hand, on real merged pull requests.

Each case (``benchmarks/impact_cases/<name>.json``) names a repository, a merge and its first
parent, the headline a reader counts in the diff, and one verdict per claim the report made when
it was labelled (``true``: checked in the diff and the code and right; ``false``: wrong):

    definitions   "<change> <id>": this definition really changed that way
    callers       "<definition id> <- <caller id>": the caller really calls it (directly)
    tests         "<definition id> <- <test id>": the test really reaches it, through the calls
    may_reach     "<definition id> <- <test id>": a path of calls from the test to it exists in
                  the code (the report says "may reach": a call on the way is conditional)
    no_test       "<definition id>": really no test reaches it ("No test reaches this")
    still_named   "<definition id> <- <path>:<line>": the line still calls or imports the old name

For every case the script clones the repository into a cache directory (read from git, the
checkout under ``/work/bench-repos`` is not touched), builds the index at the base (no
vectors), runs ``impact`` base..merge and rescores the claims of the current code: a claim with
a verdict counts right or wrong; one without (new since labelling) is listed as unlabelled;
a definition the labels hold but the report lost is a miss. Prints per-claim-type accuracy,
false "No test reaches this" claims, the headline against the reader's, the compact form's
tokens and the comment's length.

    python benchmarks/impact_eval.py                  # score every case
    python benchmarks/impact_eval.py --case click-e1fd5946 --show   # the claims of one case
    python benchmarks/impact_eval.py --case click-e1fd5946 --evidence  # what shows each claim
    python benchmarks/impact_eval.py --label           # add new claims (verdict null) to the cases

Writes ``benchmarks/results/impact_eval.json``. Exit status 1 when the targets are missed
(>= 97% of labelled claims right, no false "No test reaches this", headlines equal, every
compact form under 1,500 tokens, every comment under 65,536 characters).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from codebot.core.config import Config
from codebot.git.workspace import Workspace
from codebot.graph.callgraph import KIND_CODE
from codebot.index.build import build_index
from codebot.query.impact import (
    COMMENT_LIMIT,
    impact,
    impact_compact_text,
    impact_markdown,
)
from codebot.query.tokens import token_counter

HERE = Path(__file__).resolve().parent
CASES = HERE / "impact_cases"
RESULTS = HERE / "results"
CACHE = Path("/tmp/codebot-impact-eval")
CALLABLE = ("function", "method", "constructor")
TYPES = ("definitions", "callers", "tests", "may_reach", "no_test", "still_named")
COMPACT_TOKENS = 1_500


def claims(doc: dict[str, Any]) -> dict[str, list[str]]:
    """Every claim the report makes, by type, as the keys the verdicts are stored under."""
    out: dict[str, list[str]] = {t: [] for t in TYPES}
    for e in doc["definitions"]:
        out["definitions"].append(f"{e['change']} {e['id']}")
        for c in e["callers"]:
            if c["depth"] == 1:
                out["callers"].append(f"{e['id']} <- {c['id']}")
        for t in e["tests"]:
            out["tests"].append(f"{e['id']} <- {t['id']}")
        for t in e.get("may_tests", []):
            out["may_reach"].append(f"{e['id']} <- {t['id']}")
        if e["test_reach"] == "untested":
            out["no_test"].append(e["id"])
        for s in e.get("still_calling", []) + e.get("imports", []):
            out["still_named"].append(f"{e['id']} <- {s['path']}:{s['line']}")
    return out


def headline(doc: dict[str, Any]) -> dict[str, int]:
    s = doc["summary"]
    return {
        **{k: s[k] for k in ("added", "modified", "deleted", "renamed", "signature_changed")},
        "other_files": sum(1 for f in doc["files"] if not f["code"]),
    }


def checkout(case: dict[str, Any]) -> Path:
    """A clone of the case's repository in the cache, at the base commit."""
    where = CACHE / case["repo"]
    if not where.exists():
        CACHE.mkdir(parents=True, exist_ok=True)
        subprocess.run(["git", "clone", "-q", "--shared", case["source"], str(where)], check=True)
    subprocess.run(
        ["git", "-c", "advice.detachedHead=false", "checkout", "-q", "--detach", case["base"]],
        cwd=where,
        check=True,
    )
    return where


def run_case(case: dict[str, Any]) -> dict[str, Any]:
    repo = checkout(case)
    config = Config(embedder="none")
    build_index(repo, config)
    return impact(repo, config, case["base"], case["merge"])


def evidence(case: dict[str, Any], doc: dict[str, Any]) -> None:
    """For labelling by hand: each claim with what shows it, read from the merge's code (the
    line of each call on the way from a caller or test to the definition)."""
    from collections import deque

    from codebot.index.store import read_index

    repo = checkout(case)
    subprocess.run(["git", "checkout", "-q", "--detach", case["merge"]], cwd=repo, check=True)
    config = Config(embedder="none")
    build_index(repo, config)
    index = read_index(Workspace.of(repo, None))
    graph, symbols, rows = index.graph, index.symbols, index.by_id
    deleted = {e["id"] for e in doc["definitions"] if e["change"] == "deleted"}

    def text(path: str, line: int) -> str:
        try:
            return (repo / path).read_text().splitlines()[line - 1].strip()[:110]
        except (OSError, IndexError):
            return "?"

    def path_to(start: int, goal: set[int]) -> list[tuple[int, int]]:
        """(row, line of its call to the next) from ``start`` to a row of ``goal``."""
        back: dict[int, tuple[int, int] | None] = {start: None}
        queue = deque([start])
        while queue:
            r = queue.popleft()
            if r in goal:
                out = []
                while back[r] is not None:
                    prev, line = back[r]
                    out.append((prev, line))
                    r = prev
                return out[::-1]
            steps = [
                (int(graph.dst[e]), int(graph.line[e]))
                for e in graph.out_edges(r, ("calls", "decorates", "contains"))
                if graph.kind[e] != KIND_CODE["contains"]
                or (symbols[r].kind in CALLABLE and symbols[int(graph.dst[e])].kind in CALLABLE)
            ]  # a nested function is reached from the one defining it
            for d, line in steps:
                if d not in back:
                    back[d] = (r, line)
                    queue.append(d)
        return []

    for e in doc["definitions"]:
        print(f"== {e['change']} {e['id']} {e['path']}:{e['start_line']}-{e['end_line']}")
        if e["id"] in deleted or e["id"] not in rows:
            for c in e["callers"]:
                if c["depth"] == 1:
                    print(f"   caller {c['id']} (at base) line {c['line']}")
            for c in e.get("still_calling", []) + e.get("imports", []):
                print(f"   still {c['path']}:{c['line']}: {text(c['path'], c['line'])}")
            continue
        row = rows[e["id"]]
        goal = {row}
        if symbols[row].kind not in CALLABLE:  # a type: its members, its subclasses
            goal |= {int(graph.dst[x]) for x in graph.out_edges(row, ("contains",))}
            goal |= {int(graph.src[x]) for x in graph.in_edges(row, ("inherits",))}
        if symbols[row].name in ("__init__", "__new__"):
            goal |= {int(graph.src[x]) for x in graph.in_edges(row, ("contains",))}
        for c in e["callers"]:
            if c["depth"] == 1:
                s = symbols[rows[c["id"]]]
                print(f"   caller {c['id']} {s.path}:{c['line']}: {text(s.path, c['line'])}")
        for t, may in [(t, "") for t in e["tests"]] + [(t, "may ") for t in e["may_tests"]]:
            hops = path_to(rows[t["id"]], goal)
            chain = " > ".join(
                f"{symbols[r].name}@{ln}[{text(symbols[r].path, ln)[:50]}]" for r, ln in hops
            )
            print(f"   {may}test {t['id']}: {chain}")
        if e["test_reach"] not in ("tested", "conditional"):
            print(f"   {e['test_reach']} unresolved {e['unresolved_calls']}")


def score(case: dict[str, Any], doc: dict[str, Any], counter) -> dict[str, Any]:
    made = claims(doc)
    verdicts = case.get("verdicts", {})
    out: dict[str, Any] = {"name": case["name"], "types": {}, "unlabelled": [], "wrong": []}
    for t in TYPES:
        labelled = verdicts.get(t, {})
        right = wrong = 0
        for key in made[t]:
            verdict = labelled.get(key)
            if verdict is None:
                out["unlabelled"].append(f"{t}: {key}")
            elif verdict:
                right += 1
            else:
                wrong += 1
                out["wrong"].append(f"{t}: {key}")
        out["types"][t] = {"right": right, "wrong": wrong}
    changed = {k for k, v in verdicts.get("definitions", {}).items() if v}
    out["missed"] = sorted(changed - set(made["definitions"]))
    out["false_no_test"] = [
        k for k in made["no_test"] if verdicts.get("no_test", {}).get(k) is False
    ]
    out["headline"] = headline(doc)
    out["headline_expected"] = case["headline"]
    out["headline_ok"] = out["headline"] == case["headline"]
    out["compact_tokens"] = counter.count(impact_compact_text(doc))
    out["comment_chars"] = len(impact_markdown(doc))
    out["definitions"] = len(doc["definitions"])
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--case", action="append", help="only these cases (by name)")
    parser.add_argument("--show", action="store_true", help="print the claims and the reports")
    parser.add_argument("--label", action="store_true", help="add new claims to the case files")
    parser.add_argument("--evidence", action="store_true", help="each claim with its evidence")
    args = parser.parse_args()
    counter = token_counter()
    paths = sorted(CASES.glob("*.json"))
    results = []
    for path in paths:
        case = json.loads(path.read_text())
        if args.case and case["name"] not in args.case:
            continue
        doc = run_case(case)
        if args.show:
            print(impact_compact_text(doc))
            print(json.dumps(claims(doc), indent=1))
        if args.evidence:
            evidence(case, doc)
        if args.label:
            verdicts = case.setdefault("verdicts", {})
            for t, keys in claims(doc).items():
                for key in keys:
                    verdicts.setdefault(t, {}).setdefault(key, None)
            path.write_text(json.dumps(case, indent=1) + "\n")
        r = score(case, doc, counter)
        results.append(r)
        types = "  ".join(
            f"{t} {v['right']}/{v['right'] + v['wrong']}" for t, v in r["types"].items()
        )
        print(
            f"{r['name']:<22} defs {r['definitions']:>2}  {types}  compact {r['compact_tokens']} tok"
            f"  comment {r['comment_chars']} ch  headline {'ok' if r['headline_ok'] else 'DIFFERS'}"
        )
        for line in r["wrong"] + [f"missed: {m}" for m in r["missed"]]:
            print(f"    {line}")
        if r["unlabelled"]:
            print(f"    {len(r['unlabelled'])} unlabelled claims")
        if not r["headline_ok"]:
            print(f"    headline {r['headline']} != reader's {r['headline_expected']}")
    totals = {t: {"right": 0, "wrong": 0} for t in TYPES}
    for r in results:
        for t in TYPES:
            for k in ("right", "wrong"):
                totals[t][k] += r["types"][t][k]
    right = sum(v["right"] for v in totals.values())
    judged = right + sum(v["wrong"] for v in totals.values())
    missed = sum(len(r["missed"]) for r in results)
    accuracy = right / (judged + missed) if judged + missed else 0.0
    summary = {
        "cases": len(results),
        "claims": judged,
        "right": right,
        "missed_definitions": missed,
        "accuracy": round(accuracy, 4),
        "by_type": {
            t: {**v, "accuracy": round(v["right"] / max(1, v["right"] + v["wrong"]), 4)}
            for t, v in totals.items()
        },
        "false_no_test": sum(len(r["false_no_test"]) for r in results),
        "unlabelled": sum(len(r["unlabelled"]) for r in results),
        "headlines_ok": sum(r["headline_ok"] for r in results),
        "compact_tokens_max": max((r["compact_tokens"] for r in results), default=0),
        "comment_chars_max": max((r["comment_chars"] for r in results), default=0),
        "token_counter": counter.name,
    }
    print()
    for t, v in summary["by_type"].items():
        print(f"{t:<12} {v['right']}/{v['right'] + v['wrong']} right ({v['accuracy']:.1%})")
    print(
        f"all claims: {right}/{judged} right, {missed} changed definitions missed: "
        f"{accuracy:.1%}; false 'No test reaches this': {summary['false_no_test']}; "
        f"headlines equal: {summary['headlines_ok']}/{len(results)}; compact max "
        f"{summary['compact_tokens_max']} tokens ({counter.name}); comment max "
        f"{summary['comment_chars_max']} chars; unlabelled {summary['unlabelled']}"
    )
    if not args.case:
        RESULTS.mkdir(exist_ok=True)
        (RESULTS / "impact_eval.json").write_text(
            json.dumps({"summary": summary, "cases": results}, indent=1) + "\n"
        )
    ok = (
        accuracy >= 0.97
        and summary["false_no_test"] == 0
        and summary["headlines_ok"] == len(results)
        and summary["compact_tokens_max"] < COMPACT_TOKENS
        and summary["comment_chars_max"] < COMMENT_LIMIT
        and summary["unlabelled"] == 0
    )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

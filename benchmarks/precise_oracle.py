"""The heuristic resolvers scored against precise edges (issue 19): a SCIP index made by a
compiler-grade indexer (scip-python on pyright, scip-typescript on the TypeScript compiler) is
the oracle, on real repositories.

    python benchmarks/precise_oracle.py --repos flask requests click trpc \\
        --scip-dir /work/precise-work --work /work/precise-work

Each repository is a clone of ``/work/bench-repos/<name>`` in ``--work`` (made and indexed with
``codebot index --embedder none`` when missing); its SCIP index is ``<scip-dir>/<name>.scip``
(``scip-python index --project-name <name>`` / ``scip-typescript index`` in the clone).

Per language of the caller and per resolution kind of the heuristic edge (``calls`` edges of
callers in files the SCIP index covers; the whole repository, tests included):

- ``confirmed``: the precise index has the same edge (a class called stands for its
  constructor, an ``@overload`` signature for the set's implementation);
- ``contradicted``: every call site of the caller that may have made the edge (a call of the
  callee's name) the precise index resolved to something else (another definition, a library);
- ``unknown``: the precise index is silent on some such site (an untyped value);
- **precision** = confirmed / (confirmed + contradicted);
- **recall** (per language) = precise edges the heuristic graph has (any resolution) / precise
  edges. ``override`` edges are possible runtime targets the static index never names: their
  precision is listed, and is no fault of the kind.

Writes ``benchmarks/results/precise-oracle.json`` and prints a markdown table.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
KINDS = ("exact", "override", "overload", "unique_name")


def ensure_index(name: str, work: Path) -> Path:
    repo = work / name
    if not repo.exists():
        subprocess.run(["git", "clone", "-q", f"/work/bench-repos/{name}", str(repo)], check=True)
    if not (repo / ".git" / "codebot" / "manifest.json").exists():
        subprocess.run([sys.executable, "-m", "codebot", "index", "--embedder", "none", "."],
                       cwd=repo, check=True, capture_output=True)  # fmt: skip
    return repo


def score(repo: Path, scip_path: Path) -> dict:
    from codebot.git.workspace import Workspace
    from codebot.graph.precise import judge_edges, map_scip
    from codebot.graph.resolve import resolve
    from codebot.graph.scip import read_scip
    from codebot.index.store import read_index
    from codebot.index.tables import file_result

    t = time.perf_counter()
    index = read_index(Workspace.at(repo))
    table, by_id = index.symbols, index.by_id
    files = [file_result(e, [table[by_id[s]] for s in e.symbols]) for e in index.files()]
    scip = read_scip(scip_path)
    precise = map_scip(scip, files, index.manifest.commit)
    edges = resolve(files).edges
    verdicts, oracle = judge_edges(edges, files, precise)
    lang_of = {s.id: s.language for f in files for s in f.symbols}
    by: dict[str, dict[str, Counter]] = defaultdict(lambda: defaultdict(Counter))
    heuristic = set()
    for e, v in zip(edges, verdicts):
        if e.kind != "calls":
            continue
        heuristic.add((e.src, e.dst))
        if v != "uncovered":
            by[lang_of[e.src]][e.resolution][v] += 1
    recall: dict[str, Counter] = defaultdict(Counter)
    for src, dst in oracle:
        recall[lang_of[src]]["precise"] += 1
        recall[lang_of[src]]["found"] += (src, dst) in heuristic
    m = precise.mapping
    out = {
        "tool": precise.tool,
        "documents": m.get("documents", 0),
        "references": m.get("references", 0),
        "references_mapped": m.get("references_mapped", 0),
        "mapped_share": round(m.get("references_mapped", 0) / max(m.get("references", 0), 1), 4),
        "callable_mapped_share": round(
            m.get("callable_references_mapped", 0) / max(m.get("callable_references", 0), 1), 4
        ),
        "mapping": m,
        "languages": {},
        "seconds": round(time.perf_counter() - t, 1),
    }
    for lang in sorted(set(by) | set(recall)):
        kinds = {}
        for kind in KINDS:
            c = by[lang].get(kind, Counter())
            judged = c["confirmed"] + c["contradicted"]
            kinds[kind] = {
                **{k: c[k] for k in ("confirmed", "contradicted", "unknown")},
                "precision": round(c["confirmed"] / judged, 4) if judged else None,
            }
        r = recall[lang]
        out["languages"][lang] = {
            "by_resolution": kinds,
            "precise_edges": r["precise"],
            "found": r["found"],
            "recall": round(r["found"] / r["precise"], 4) if r["precise"] else None,
        }
    return out


def table(results: dict) -> str:
    rows = [
        "| repository | language | mapped | kind | confirmed | contradicted | unknown | "
        "precision | recall |",
        "|---|---|---:|---|---:|---:|---:|---:|---:|",
    ]
    for name, r in results.items():
        for lang, lr in r["languages"].items():
            first = True
            for kind, k in lr["by_resolution"].items():
                if not (k["confirmed"] + k["contradicted"] + k["unknown"]):
                    continue
                p = "-" if k["precision"] is None else f"{k['precision']:.1%}"
                rec = f"{lr['recall']:.1%} of {lr['precise_edges']}" if first else ""
                mapped = f"{r['mapped_share']:.1%}" if first else ""
                rows.append(
                    f"| {name if first else ''} | {lang if first else ''} | {mapped} | {kind} | "
                    f"{k['confirmed']} | {k['contradicted']} | {k['unknown']} | {p} | {rec} |"
                )
                first = False
    return "\n".join(rows)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repos", nargs="+", default=["flask", "requests", "click", "trpc"])
    ap.add_argument("--scip-dir", type=Path, required=True)
    ap.add_argument("--work", type=Path, required=True)
    ap.add_argument("--out", type=Path, default=HERE / "results" / "precise-oracle.json")
    args = ap.parse_args()
    results = {}
    for name in args.repos:
        repo = ensure_index(name, args.work)
        results[name] = score(repo, args.scip_dir / f"{name}.scip")
        print(f"{name}: {results[name]['seconds']} s", file=sys.stderr)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=1) + "\n")
    print(table(results))


if __name__ == "__main__":
    main()

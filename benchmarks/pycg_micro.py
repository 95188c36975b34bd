"""Codebot's Python call graph scored on PyCG's micro-benchmark (an independent suite).

    git clone https://github.com/vitsalis/PyCG /tmp/pycg      # Apache-2.0; never vendored here
    python benchmarks/pycg_micro.py --pycg /tmp/pycg [--json] [--misses]

PyCG's ``micro-benchmark/snippets/<category>/<case>/`` holds a small program (``main.py`` and the
modules it imports) and ``callgraph.json``, the call graph PyCG's authors expect: node -> callees,
names dotted from the module (``main.func``, ``main.Class.method``, ``to_import.func``), the
module's own code as the module's node (``main``). Each case is parsed and resolved by codebot
in-process (``parse_source`` + ``resolve``, what ``codebot index`` runs), alone, and its ``calls``
and ``decorates`` edges are mapped onto PyCG's names:

- a symbol id is its node (``main.Class.method``; a redefinition's ``#2`` dropped), a module's
  chunks (``main.<module>``, ``main.<module>#2``) and its variables' values (``main.app``) are
  the module node ``main``;
- an edge to a class stands for its instantiation: PyCG records the ``__init__`` that runs, or
  nothing when the class has none, and codebot already binds a call to ``__init__`` when there
  is one; an edge to a class is dropped (as PyCG does);
- decorators: PyCG counts applying one as a call from the scope that runs the definition, which
  is codebot's ``decorates`` edge from the same scope.

Left out of both sides, and counted apart: edges from or to ``<builtin>.*`` (codebot makes no
edge into builtins by design) and to modules that are not in the case's directory (``ext.Cls``
of the ``external`` category: a library codebot does not see). What cannot map, and how:
PyCG gives each lambda a node (``main.<lambda1>``, ``main.func.<lambda2>``); codebot has no lambda
symbols and gives a lambda's calls to the function around it. So a lambda node is folded into its
enclosing node (``main.func.<lambda1>`` -> ``main.func``), edges into a lambda are dropped (the
lambda body's calls are then edges of the enclosing function), and a self-edge that folding
creates is dropped. Generator expressions and comprehensions are not nodes in PyCG either.

Scores: precision and recall of the mapped edge sets, per category and overall (micro-averaged
over edges), and the number of cases whose graph matches exactly.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import defaultdict
from pathlib import Path

from codebot.graph.resolve import resolve
from codebot.parse.extract import module_id, parse_source

_LAMBDA = re.compile(r"\.<lambda\d+>")


def case_dirs(pycg: Path) -> list[Path]:
    root = pycg / "micro-benchmark" / "snippets"
    if not root.is_dir():
        raise SystemExit(f"{root} not found: --pycg is the path to a checkout of vitsalis/PyCG")
    return sorted(p.parent for p in root.glob("*/*/callgraph.json"))


def _fold(node: str) -> str:
    """``main.func.<lambda1>`` -> ``main.func``: a lambda is its enclosing scope here."""
    return _LAMBDA.split(node, maxsplit=1)[0]


def expected_edges(case: Path, modules: set[str]) -> tuple[set[tuple[str, str]], int]:
    """PyCG's expected edges, mapped; and how many were left out (builtins, libraries)."""
    graph = json.loads((case / "callgraph.json").read_text())
    out: set[tuple[str, str]] = set()
    left_out = 0
    for src, dsts in graph.items():
        for dst in dsts:
            if not (_in_program(src, modules) and _in_program(dst, modules)):
                left_out += 1
                continue
            if dst.rsplit(".", 1)[-1].startswith("<lambda"):
                continue  # a call into a lambda: the lambda's calls are its definer's
            a, b = _fold(src), _fold(dst)
            if a == b and src != dst:
                continue  # folding made it
            out.add((a, b))
    return out, left_out


def _in_program(node: str, modules: set[str]) -> bool:
    if node.startswith("<builtin>"):
        return False
    parts = node.split(".")
    return any(".".join(parts[:i]) in modules for i in range(1, len(parts) + 1))


def codebot_edges(case: Path) -> tuple[set[tuple[str, str]], set[str]]:
    files = []
    for path in sorted(case.rglob("*.py")):
        rel = path.relative_to(case).as_posix()
        files.append(parse_source(rel, path.read_bytes(), "python", module=module_id(rel)))
    modules = {f.module for f in files}
    res = resolve(files)
    syms = {s.id: s for f in files for s in f.symbols}
    out: set[tuple[str, str]] = set()
    for e in res.edges:
        if e.kind not in ("calls", "decorates"):
            continue
        dst = syms.get(e.dst)
        if dst is not None and dst.kind == "class":
            continue  # an instantiation with no __init__: PyCG records none
        out.add((_node(e.src, syms), _node(e.dst, syms)))
    return out, modules


def _node(sid: str, syms: dict) -> str:
    sym = syms.get(sid)
    base = sid.split("#", 1)[0]
    if sym is not None and sym.kind in ("chunk", "variable", "constant"):
        # module-level code: a chunk (main.<module>) or a name's value (main.app = create_app())
        return base.rsplit(".", 1)[0]
    return base


def score(pycg: Path) -> dict:
    per_cat: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0, 0, 0, 0])
    cases = []
    for case in case_dirs(pycg):
        category = case.parent.name
        got, modules = codebot_edges(case)
        want, left_out = expected_edges(case, modules)
        tp, fp, fn = len(got & want), len(got - want), len(want - got)
        c = per_cat[category]
        c[0] += tp
        c[1] += fp
        c[2] += fn
        c[3] += 1
        c[4] += got == want
        c[5] += left_out
        cases.append(
            {
                "case": f"{category}/{case.name}",
                "tp": tp,
                "fp": sorted(map(list, got - want)),
                "fn": sorted(map(list, want - got)),
                "left_out": left_out,
            }
        )
    rows = {}
    tot = [0] * 6
    for cat, c in sorted(per_cat.items()):
        rows[cat] = _row(c)
        tot = [a + b for a, b in zip(tot, c)]
    return {"categories": rows, "overall": _row(tot), "cases": cases}


def _row(c: list[int]) -> dict:
    tp, fp, fn = c[0], c[1], c[2]
    return {
        "precision": round(tp / (tp + fp), 3) if tp + fp else None,
        "recall": round(tp / (tp + fn), 3) if tp + fn else None,
        "expected": tp + fn,
        "found": tp + fp,
        "cases": c[3],
        "exact_cases": c[4],
        "left_out": c[5],
    }


def _fmt(x: float | None) -> str:
    return "-" if x is None else f"{x:.3f}"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("--pycg", type=Path, required=True, help="a checkout of vitsalis/PyCG")
    ap.add_argument("--json", action="store_true", help="print the scores as JSON")
    ap.add_argument("--misses", action="store_true", help="list each case's wrong and missed")
    args = ap.parse_args(argv)
    out = score(args.pycg)
    if args.json:
        print(json.dumps(out, indent=1))
        return 0
    print("| category | precision | recall | expected edges | exact cases | left out |")
    print("|---|---|---|---|---|---|")
    for cat, r in [*out["categories"].items(), ("**overall**", out["overall"])]:
        print(
            f"| {cat} | {_fmt(r['precision'])} | {_fmt(r['recall'])} | {r['expected']} "
            f"| {r['exact_cases']}/{r['cases']} | {r['left_out']} |"
        )
    if args.misses:
        for c in out["cases"]:
            for a, b in c["fp"]:
                print(f"  wrong  {c['case']}: {a} -> {b}")
            for a, b in c["fn"]:
                print(f"  missed {c['case']}: {a} -> {b}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

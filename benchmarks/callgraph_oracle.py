"""Call resolution scored against an independent oracle (jedi) on real Python repositories.

    pip install -e '.[bench]'       # jedi
    python benchmarks/callgraph_oracle.py [--repos flask requests click httpx]
        [--root /work/bench-repos] [--jedi-env /work/oracle-env] [--sample 0] [--seed 7]
        [--jobs 2] [--examples 3] [--out benchmarks/results/callgraph-oracle.json]

For each repository of ``--root/manifest.json``: parse the whole repository and ``resolve`` it
exactly as ``codebot index`` does, then replay the resolver call site by call site (the same
``Resolver.context``/``resolve_call``/``decorator_calls`` that ``resolve`` runs, cross-checked
against its edges) to know which edges each call site gave. Only the files under the manifest's
``benchmark_root`` (the package: ``src/flask``...) are scored.

The call sites are every call expression of those files, found with Python's ``ast`` (so calls
the parser records nowhere, at module level or in a class body, count too), and every decorator.
Each is matched to the raw call codebot recorded for it (by line and callee name), and jedi is
asked where its callee goes: ``Script.goto(line, column, follow_imports=True)`` on the callee's
last name, then ``infer`` when goto lands on a variable or attribute rather than a definition.
Jedi's answer (a module path and the line of a ``def``/``class``) is mapped to the innermost
codebot symbol of that name whose lines contain it; a class stands for its constructor (the
class itself, or ``__init__``/``__new__`` of it or of a base, as codebot binds it).

An oracle answer is one of: ``repo`` (one or more definitions of the repository), ``external``
(the standard library, a dependency, a builtin), ``silent`` (nothing, or only a variable jedi
cannot see through), ``unmapped`` (a definition of the repository that is no codebot symbol: a
lambda, a variable).

Figures, per repository and per resolution kind (``exact``, ``override``, ``overload``,
``unique_name``; ``all``, and ``declared``: all but ``override``, the edges a reader takes for
the callee the code names):

- link precision: of the (call site, callee) pairs codebot gave where the oracle answers
  ``repo``, the share whose callee is the oracle's; pairs where the oracle is ``external`` or
  ``silent``/``unmapped`` are counted apart, not in the ratio;
- edge precision: the same over the graph's ``calls`` edges (an edge is right when any of its call
  sites is);
- recall: of the call sites the oracle binds to the repository, the share for which codebot has
  an edge from the enclosing symbol to that definition.

Every disagreement goes to one category (decorators on their own), with seeded examples.
``--sample N`` scores N call sites per repository drawn with ``--seed`` (0: all of them).
``--jedi-env`` is a virtual environment holding the repositories' dependencies but not the
repositories themselves, so that jedi sees library calls as external rather than silent; without
it jedi uses the running interpreter.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import random
import subprocess
import sys
import time
from collections import Counter, defaultdict
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from codebot.core.config import Config
from codebot.core.model import VALUE_KINDS, FileResult, Symbol
from codebot.graph.resolve import as_resolvers_see, decorator_call, resolve
from codebot.graph.resolvers import FAMILY, resolver_class
from codebot.parse.extract import parse_path

DEFAULT_REPOS = ["flask", "requests", "click", "httpx"]
KINDS = ("exact", "override", "overload", "unique_name")
# Repositories scored here that the shared ``--root/manifest.json`` does not list (a clone of
# ``url`` at ``revision`` in ``--root/<name>``); the manifest's entry wins when it has one.
EXTRA_REPOS = [
    {
        "name": "zustand",
        "language": "typescript",
        "url": "https://github.com/pmndrs/zustand.git",
        "revision": "f094eebe9bd3b4b0d77b997f69ab1d273f69a877",
        "benchmark_root": "",
    },
    {
        "name": "hono",
        "language": "typescript",
        "url": "https://github.com/honojs/hono.git",
        "revision": "28a9c128912de19f3fb28b00ae289c9b93f6f392",
        "benchmark_root": "src",
    },
]
_RANK = {k: i for i, k in enumerate(KINDS)}  # an edge found twice keeps the surer resolution
TOTALS = ("all", "declared")
CTORS = ("__init__", "__new__", "constructor")
FANOUT = "self.method fan-out to an override"


# --------------------------------------------------------------------------- call sites


@dataclass
class Site:
    path: str  # relative to the repository root
    line: int  # codebot's line: the call expression's first line; a decorator's symbol's start
    kind: str  # "call" or "decorator"
    callee: str  # the callee as written
    where: str  # "function", "module", "class body" (where the call sits)
    pos: tuple[int, int] | None  # jedi's (line, column) of the callee's last name, or None
    sym: str | None = None  # the codebot symbol that records it (None: recorded nowhere)
    outcome: object = None  # codebot: a status string, or [(dst, resolution), ...]
    oracle: str = ""  # repo / external / silent / unmapped
    targets: list = field(default_factory=list)  # oracle's definitions [(path, line, name, type)]
    expected: set = field(default_factory=set)  # codebot ids that count as the oracle's callee


def _char_col(line_text: bytes, byte_col: int) -> int:
    return len(line_text[:byte_col].decode("utf-8", errors="replace"))


def _last_name(text: str) -> str:
    return _as_written(text).rsplit(".", 1)[-1].strip()


def _as_written(text: str) -> str:
    """A call text without what the parser annotated its head with: ``(a = f | g)`` -> ``a``,
    ``(x = C()).m`` -> ``x.m`` (see codebot/languages/python.py and receivers.py)."""
    if text[:1] != "(" or " = " not in text and ": " not in text:
        return text
    depth = 0
    for i, ch in enumerate(text):
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
            if depth == 0:
                head = text[1:i]
                for op in (" = ", ": "):
                    if op in head:
                        return head.split(op, 1)[0] + text[i + 1 :]
                return text
    return text


def ast_sites(path: str, source: str) -> list[Site]:
    """Every call expression and decorator of a file, with the position jedi is asked at."""
    tree = ast.parse(source)
    raw = source.encode().splitlines()
    out: list[Site] = []

    def callee_pos(fn: ast.expr) -> tuple[int, int] | None:
        if isinstance(fn, ast.Attribute):
            line = fn.end_lineno
            return line, _char_col(raw[line - 1], fn.end_col_offset) - len(fn.attr)
        if isinstance(fn, ast.Name):
            return fn.lineno, _char_col(raw[fn.lineno - 1], fn.col_offset)
        return None

    def visit(node: ast.AST, where: str) -> None:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            start = min([d.lineno for d in node.decorator_list] + [node.lineno])
            for d in node.decorator_list:
                fn = d.func if isinstance(d, ast.Call) else d
                out.append(Site(path, start, "decorator", ast.unparse(fn), where, callee_pos(fn)))
                if isinstance(d, ast.Call):  # the decorator's own arguments
                    for a in [*d.args, *(k.value for k in d.keywords)]:
                        visit(a, where)
            inner = "class body" if isinstance(node, ast.ClassDef) else "function"
            for child in ast.iter_child_nodes(node):
                if child not in node.decorator_list:
                    visit(child, inner)
            return
        if isinstance(node, ast.Call):
            fn = node.func
            out.append(Site(path, node.lineno, "call", ast.unparse(fn), where, callee_pos(fn)))
        for child in ast.iter_child_nodes(node):
            visit(child, where)

    for top in tree.body:
        visit(top, "module")
    return out


def attach(sites: list[Site], symbols: list[Symbol], outcomes: dict) -> None:
    """Match each ast site to the raw call (or decorator) codebot recorded for it."""
    recorded: dict[tuple[str, int], list[tuple[str, str, int, str]]] = defaultdict(list)
    for s in symbols:
        if s.kind in ("chunk", *VALUE_KINDS) and (s.id, "call", 0) not in outcomes:
            continue  # module-level code the language's resolver does not resolve
        for i, c in enumerate(s.calls):
            key = "call" if (s.id, "call", i) in outcomes else "decorator-call"
            recorded[("call", c.line)].append((s.id, c.name, i, key))
        for i, d in enumerate(s.decorators):
            name = d.split("(", 1)[0].strip()
            recorded[("decorator", s.start_line)].append((s.id, name, i, "decorator"))
    by_key: dict[tuple[str, int], list[Site]] = defaultdict(list)
    for site in sites:
        by_key[(site.kind, site.line)].append(site)
    for key, group in by_key.items():
        pool = recorded.get(key, [])
        used: set[int] = set()
        for exact in (True, False):  # by callee name first, then what is left, in order
            for site in group:
                if site.sym is not None:
                    continue
                for j, (sid, name, i, okey) in enumerate(pool):
                    if j in used:
                        continue
                    same = _last_name(name) == _last_name(site.callee)
                    if exact and not same:
                        continue
                    if not exact and (site.pos is not None or _last_name(name).isidentifier()):
                        continue
                    used.add(j)
                    site.sym = sid
                    site.outcome = outcomes[(sid, okey, i)]
                    break


# --------------------------------------------------------------------------- codebot


def replay(files: list[FileResult], scored: set[str]) -> dict:
    """(symbol id, "call"|"decorator", index) -> the resolver's outcome, as ``resolve`` runs it."""
    # As `resolve` sees them: definitions only, module variables known by id (callers, no names)
    defs, index = as_resolvers_see(files)
    by_family: dict[str, list[FileResult]] = defaultdict(list)
    for f in defs:
        if f.language in FAMILY:
            by_family[FAMILY[f.language]].append(f)
    resolvers = {fam: resolver_class(fam)(index, ff) for fam, ff in by_family.items()}
    for r in resolvers.values():
        r.prepare()
    out: dict = {}
    for f, whole in zip(defs, files):
        r = resolvers.get(FAMILY.get(f.language, ""))
        if r is None or f.path not in scored:
            continue
        for s in whole.symbols:
            if s.kind == "chunk" and not r.module_calls:
                continue
            if s.kind in VALUE_KINDS and s.parent is None and not r.module_calls:
                continue
            if not (s.calls or s.decorators):
                continue
            ctx = r.context(s, f)
            decorate = getattr(r, "decorator_calls", None)
            applied: dict[str, object] = {}
            if decorate is not None and s.decorators:
                for i, (callee, o) in enumerate(decorate(ctx)):
                    out[(s.id, "decorator", i)] = applied[callee] = _norm(o)
            for i, c in enumerate(s.calls):
                if s.decorators and decorator_call(s, c) and c.name in applied:
                    # `@register("x")`: the decorator's own call, a `decorates` edge of the scope
                    out[(s.id, "decorator-call", i)] = applied[c.name]
                else:
                    ctx.line = c.line
                    out[(s.id, "call", i)] = _norm(r.resolve_call(ctx, c.name))
    return out


def _norm(outcome: object) -> object:
    return outcome if isinstance(outcome, str) else [(d, r) for d, r in outcome]


# --------------------------------------------------------------------------- jedi

_PROJECT = None


def _jedi_init(root: str, extra: list[str], env: str | None) -> None:
    global _PROJECT
    import jedi

    # A parameter's type is not guessed from call sites in other modules (a test's fake object
    # passed in would become the oracle's answer for library code).
    jedi.settings.dynamic_params_for_other_modules = False
    environment = jedi.create_environment(env, safe=False) if env else None
    _PROJECT = (jedi.Project(root, added_sys_path=extra), environment, Path(root).resolve())


def _jedi_file(path: str, positions: list[tuple[int, int]]) -> list[tuple[str, list]]:
    import jedi

    project, environment, root = _PROJECT
    full = root / path
    script = jedi.Script(full.read_text(), path=full, project=project, environment=environment)
    answers = []
    for line, col in positions:
        try:
            answers.append(_ask(script, root, line, col))
        except Exception as e:  # jedi gives up on some code; that is the oracle being silent
            answers.append(("silent", [f"jedi error: {type(e).__name__}"]))
    return answers


def _ask(script, root: Path, line: int, col: int) -> tuple[str, list]:
    names = script.goto(line, col, follow_imports=True)
    defs = [n for n in names if n.type in ("function", "class")]
    if not defs:
        defs = [n for n in script.infer(line, col) if n.type in ("function", "class")]
    if not defs:
        kinds = sorted({n.type for n in names})
        return ("silent", [f"goto: {', '.join(kinds)}" if kinds else "goto: nothing"])
    inside, outside = [], []
    for n in defs:
        mp = n.module_path
        rel = None
        if mp is not None and not n.in_builtin_module():
            try:
                rel = str(Path(mp).resolve().relative_to(root))
            except ValueError:
                rel = None
        if rel is not None and rel.endswith(".py"):
            inside.append((rel, n.line, n.name, n.type))
        else:
            outside.append(f"{n.full_name or n.name}")
    if inside:
        return ("repo", inside)
    return ("external", sorted(set(outside)))


# --------------------------------------------------------------------------- scoring


class Symbols:
    def __init__(self, files: list[FileResult], edges) -> None:
        self.by_id: dict[str, Symbol] = {}
        self.by_path: dict[str, list[Symbol]] = defaultdict(list)
        self.children: dict[str, list[Symbol]] = defaultdict(list)
        for f in files:
            for s in f.symbols:  # chunks too: module-level code calls from them
                self.by_id[s.id] = s
                self.by_path[s.path].append(s)
                if s.parent:
                    self.children[s.parent].append(s)
        self.bases: dict[str, list[str]] = defaultdict(list)
        for e in edges:
            if e.kind == "inherits":
                self.bases[e.src].append(e.dst)

    def at(self, path: str, line: int, name: str) -> Symbol | None:
        best = None
        for s in self.by_path.get(path, ()):
            if s.name == name and s.start_line <= line <= s.end_line:
                if best is None or s.start_line >= best.start_line:
                    best = s
        return best

    def ancestors(self, cid: str) -> list[str]:
        seen, todo = [], [cid]
        while todo:
            c = todo.pop(0)
            if c not in seen:
                seen.append(c)
                todo += self.bases.get(c, [])
        return seen

    def expected(self, sym: Symbol) -> set[str]:
        if sym.kind != "class":
            return {sym.id}
        out = {sym.id}
        for c in self.ancestors(sym.id):
            out |= {m.id for m in self.children.get(c, ()) if m.name in CTORS}
        return out


def _describe(sym: Symbol | None, sid: str) -> str:
    return f"{sid} ({sym.path}:{sym.start_line})" if sym is not None else sid


def _is_overload(sym: Symbol | None) -> bool:
    return sym is not None and any(x.split("(")[0].endswith("overload") for x in sym.decorators)


def classify_wrong(site: Site, dst: str, res: str, syms: Symbols) -> str:
    d = syms.by_id.get(dst)
    if site.kind == "decorator":
        return "decorator: bound to another definition"
    if _is_overload(d):
        return "bound to an @overload stub"
    targets = [syms.by_id[t] for t in site.expected if t in syms.by_id]
    if d is not None and any(t.kind == "class" for t in targets):
        return "constructor: bound to another definition"
    for t in targets:
        if d is not None and t.name == d.name and t.parent and d.parent:
            if t.parent in syms.ancestors(d.parent):
                return FANOUT
            if d.parent in syms.ancestors(t.parent):
                return "bound to the base, the oracle to an override"
            return f"{res}: same-name method of an unrelated class"
    return f"{res}: another definition"


def classify_miss(site: Site, syms: Symbols) -> str:
    if site.sym is None:
        return f"not recorded by the parser ({site.where})"
    if site.kind == "decorator":
        return f"decorator: {site.outcome if isinstance(site.outcome, str) else 'bound elsewhere'}"
    if not isinstance(site.outcome, str):
        if any(_is_overload(syms.by_id.get(d)) for d, _ in site.outcome):
            return "bound to an @overload stub only"
        return "bound to another definition only"
    c = site.callee
    if site.outcome == "external":
        return "codebot says external"
    head = c.split(".", 1)[0]
    if "." not in c:
        shape = "a bare name"
    elif head in ("self", "cls"):
        shape = "self./cls. method"
    elif head == "super()":
        shape = "super() method"
    elif "(" in c or "[" in c:
        shape = "a method on a call's or subscript's result"
    else:
        shape = "a method on a variable, parameter or attribute"
    return f"{site.outcome}: {shape}"


def python_oracle(root: Path, scored: set[str], syms, outcomes: dict, args) -> tuple[list, int]:
    sites: list[Site] = []
    for path in sorted(scored):
        source = (root / path).read_text(encoding="utf-8")
        fsites = ast_sites(path, source)
        attach(fsites, syms.by_path.get(path, []), outcomes)
        sites += fsites
    total = len(sites)
    if args.sample and args.sample < len(sites):
        sites = random.Random(args.seed).sample(sites, args.sample)
    per_file: dict[str, list[Site]] = defaultdict(list)
    for s in sites:
        if s.pos is not None:
            per_file[s.path].append(s)
        else:
            s.oracle, s.targets = "silent", ["no name to ask about"]
    extra = [str(root / "src")] if (root / "src").is_dir() else []
    with ProcessPoolExecutor(
        args.jobs, initializer=_jedi_init, initargs=(str(root), extra, args.jedi_env)
    ) as pool:
        paths = sorted(per_file, key=lambda p: -len(per_file[p]))
        futures = [pool.submit(_jedi_file, p, [s.pos for s in per_file[p]]) for p in paths]
        for p, fut in zip(paths, futures):
            for s, (status, targets) in zip(per_file[p], fut.result()):
                s.oracle, s.targets = status, targets
    return sites, total


def ts_oracle(root: Path, bench_root: str, syms, outcomes: dict, args) -> tuple[list, int]:
    """The TypeScript compiler's answers (callgraph_oracle_ts.js), matched to codebot's calls."""
    script = Path(__file__).with_name("callgraph_oracle_ts.js")
    env = {**os.environ, "NODE_PATH": str(Path(args.node_dir) / "node_modules")}
    done = subprocess.run(
        ["node", str(script), str(root), bench_root],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    by_path: dict[str, list[Site]] = defaultdict(list)
    for rec in json.loads(done.stdout):
        pos = (rec["line"], rec["col"]) if rec["col"] is not None else None
        site = Site(rec["path"], rec["line"], rec["kind"], rec["callee"], rec["where"], pos)
        if rec["decls"]:
            site.oracle = "repo"
            site.targets = [(d["path"], d["line"], d["name"], d["kind"]) for d in rec["decls"]]
        elif rec["external"]:
            site.oracle, site.targets = "external", rec["external"]
        else:
            site.oracle, site.targets = "silent", ["no symbol"]
        by_path[site.path].append(site)
    sites: list[Site] = []
    for path, fsites in sorted(by_path.items()):
        attach(fsites, syms.by_path.get(path, []), outcomes)
        sites += fsites
    total = len(sites)
    if args.sample and args.sample < len(sites):
        sites = random.Random(args.seed).sample(sites, args.sample)
    return sites, total


def score_repo(name: str, language: str, root: Path, bench_root: str, args) -> dict:
    t0 = time.perf_counter()
    report = parse_path(root, Config())
    files = report.files
    res = resolve(files)
    t_codebot = time.perf_counter() - t0
    family = FAMILY.get(language)
    scored = {
        f.path
        for f in files
        if FAMILY.get(f.language) == family
        and family is not None
        and _under(f.path, bench_root)
        and (family == "python" or f.path.endswith((".ts", ".tsx")) and ".d.ts" not in f.path)
    }
    outcomes = replay(files, scored)
    syms = Symbols(files, res.edges)

    # The replay must give the graph's own edges, or the figures describe something else.
    graph = {
        (e.src, e.dst): e.resolution
        for e in res.edges
        if e.kind == "calls" and syms.by_id.get(e.src) and syms.by_id[e.src].path in scored
    }
    replayed: dict[tuple[str, str], str] = {}
    for (sid, what, _), out in outcomes.items():
        if what == "call" and not isinstance(out, str):  # decorators make `decorates` edges
            for dst, r in out:
                old = replayed.get((sid, dst))
                if old is None or _RANK.get(r, 0) < _RANK.get(old, 0):
                    replayed[(sid, dst)] = r
    replay_ok = replayed == graph

    t1 = time.perf_counter()
    if language == "python":
        sites, total_sites = python_oracle(root, scored, syms, outcomes, args)
    else:
        sites, total_sites = ts_oracle(root, bench_root, syms, outcomes, args)
    t_oracle = time.perf_counter() - t1

    for s in sites:
        if s.oracle != "repo":
            continue
        for path, line, nm, _ in s.targets:
            sym = syms.at(path, line, nm)
            if sym is not None:
                s.expected |= syms.expected(sym)
        if not s.expected:
            s.oracle = "unmapped"

    # Scoring.
    links = {k: Counter() for k in (*KINDS, *TOTALS)}
    cats: dict[str, list[Site | tuple]] = defaultdict(list)
    edge_verdict: dict[tuple[str, str], set[str]] = defaultdict(set)
    recall = {"sites": 0, "hit": 0, "by_where": Counter(), "hit_by_where": Counter()}
    oracle_counts = Counter(s.oracle for s in sites)
    for s in sites:
        given = s.outcome if isinstance(s.outcome, list) else []
        for dst, r in given:
            if s.oracle == "repo":
                verdict = "right" if dst in s.expected else "wrong"
            else:
                verdict = {"external": "external"}.get(s.oracle, "silent")
            edge_verdict[(s.sym, dst)].add(verdict)
            for k in _totals(r):
                links[k][verdict] += 1
                links[k][f"{s.kind}:{verdict}"] += 1
            if verdict == "wrong":
                cat = classify_wrong(s, dst, r, syms)
                cats["wrong: " + cat].append((s, dst, r))
                if cat == FANOUT:
                    for k in _totals(r):
                        links[k]["fanout"] += 1
            elif verdict == "external":
                head = "decorator" if s.kind == "decorator" else f"{r}"
                cats[f"external: library call bound to the repository ({head})"].append((s, dst, r))
            elif verdict == "silent":
                head = "decorator" if s.kind == "decorator" else r
                cats[f"oracle silent: codebot bound it ({head})"].append((s, dst, r))
        if s.oracle == "repo":
            bucket = s.kind if s.kind == "decorator" else s.where
            recall["sites"] += 1
            recall["by_where"][bucket] += 1
            if any(dst in s.expected for dst, _ in given):
                recall["hit"] += 1
                recall["hit_by_where"][bucket] += 1
            else:
                cats["missed: " + classify_miss(s, syms)].append((s, None, None))

    edges = {k: Counter() for k in (*KINDS, *TOTALS)}
    for key, verdicts in edge_verdict.items():
        v = next(x for x in ("right", "wrong", "external", "silent") if x in verdicts)
        for k in _totals(graph.get(key, "exact")):
            edges[k][v] += 1

    rng = random.Random(args.seed)
    categories = []
    for cat, items in sorted(cats.items(), key=lambda kv: -len(kv[1])):
        items = sorted(items, key=lambda x: (x[0].path, x[0].line, x[0].callee, x[1] or ""))
        picked = rng.sample(items, min(args.examples, len(items)))
        picked.sort(key=lambda x: (x[0].path, x[0].line))
        categories.append(
            {
                "category": cat,
                "count": len(items),
                "examples": [_example(root, syms, *x) for x in picked],
            }
        )

    return {
        "repo": name,
        "benchmark_root": bench_root,
        "files_scored": len(scored),
        "call_sites": total_sites,
        "call_sites_scored": len(sites),
        "sampled": bool(args.sample and args.sample < total_sites),
        "oracle": dict(oracle_counts),
        "links": {k: _ratio(v, fanout=True) for k, v in links.items()},
        "edges": {k: _ratio(v) for k, v in edges.items()},
        "recall": {
            "in_repository_sites": recall["sites"],
            "found": recall["hit"],
            "recall": _div(recall["hit"], recall["sites"]),
            "by_where": {
                w: {"sites": n, "found": recall["hit_by_where"][w]}
                for w, n in sorted(recall["by_where"].items())
            },
        },
        "categories": categories,
        "replay_matches_graph": replay_ok,
        "seconds": {"codebot": round(t_codebot, 2), "oracle": round(t_oracle, 1)},
    }


def _under(path: str, root: str) -> bool:
    return not root or root == "." or path == root or path.startswith(root.rstrip("/") + "/")


def _div(a: int, b: int) -> float | None:
    return round(a / b, 3) if b else None


def _totals(resolution: str) -> tuple[str, ...]:
    """The rows a link or an edge of ``resolution`` counts in."""
    return (resolution, "all") if resolution == "override" else (resolution, *TOTALS)


def _ratio(c: Counter, fanout: bool = False) -> dict:
    out = {k: c[k] for k in ("right", "wrong", "external", "silent")}
    out["precision"] = _div(c["right"], c["right"] + c["wrong"])
    if fanout:
        out["fanout"] = c["fanout"]
        # Edges to overrides of the oracle's method are what codebot means to give (the runtime
        # receiver may be a subclass); this ratio leaves them out of the wrong ones.
        out["precision_fanout_allowed"] = _div(c["right"], c["right"] + c["wrong"] - c["fanout"])
    out.update({k: v for k, v in sorted(c.items()) if ":" in k})
    return out


def _line(root: Path, path: str, line: int) -> str:
    try:
        lines = (root / path).read_text(errors="replace").splitlines()
    except OSError:
        return ""
    return lines[line - 1].strip()[:120] if 0 < line <= len(lines) else ""


def _example(root: Path, syms: Symbols, s: Site, dst: str | None, r: str | None) -> dict:
    if dst is not None:
        said = f"{r} -> {_describe(syms.by_id.get(dst), dst)}"
    elif isinstance(s.outcome, list):
        said = "; ".join(f"{rr} -> {d}" for d, rr in s.outcome)
    elif s.sym is None:
        said = "no call recorded"
    else:
        said = str(s.outcome)
    if s.oracle in ("repo", "unmapped"):
        oracle = ", ".join(f"{n} ({p}:{ln})" for p, ln, n, _ in s.targets)
    else:
        oracle = f"{s.oracle}: {', '.join(map(str, s.targets))}"
    return {
        "at": f"{s.path}:{s.line}",
        "code": _line(root, s.path, s.pos[0] if s.pos else s.line),
        "kind": s.kind,
        "caller": s.sym,
        "codebot": said,
        "oracle": oracle,
    }


# --------------------------------------------------------------------------- main


def _fmt(p: float | None) -> str:
    return "   -  " if p is None else f"{p:6.3f}"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--repos", nargs="+", default=DEFAULT_REPOS)
    ap.add_argument("--root", default="/work/bench-repos")
    ap.add_argument("--jedi-env", default=None, help="a venv with the repositories' dependencies")
    ap.add_argument("--node-dir", default="/work/oracle-node", help="where npm put typescript")
    ap.add_argument("--sample", type=int, default=0, help="call sites per repository (0: all)")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--jobs", type=int, default=min(4, os.cpu_count() or 1))
    ap.add_argument("--examples", type=int, default=3)
    ap.add_argument("--out", default="benchmarks/results/callgraph-oracle.json")
    args = ap.parse_args()

    manifest = {r["name"]: r for r in EXTRA_REPOS}
    manifest.update(
        {r["name"]: r for r in json.loads((Path(args.root) / "manifest.json").read_text())}
    )
    t0 = time.perf_counter()
    rows = []
    for name in args.repos:
        m = manifest[name]
        root = Path(m.get("path") or Path(args.root) / name)
        row = score_repo(name, m["language"], root, m.get("benchmark_root") or "", args)
        row["revision"] = m.get("revision_used") or m.get("revision")
        rows.append(row)
        _print_row(row)
    elapsed = time.perf_counter() - t0

    result = {
        "oracle": _oracle_versions(args, [manifest[n]["language"] for n in args.repos]),
        "jedi_env": args.jedi_env,
        "sample": args.sample,
        "seed": args.seed,
        "seconds": round(elapsed, 1),
        "repos": rows,
    }
    if args.out:
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_text(json.dumps(result, indent=1) + "\n")
        print(f"\nwritten {args.out} ({elapsed:.0f} s)")
    return 0


def _oracle_versions(args, languages: list[str]) -> dict:
    out = {}
    if "python" in languages:
        import jedi

        out["python"] = f"jedi {jedi.__version__}"
    if "typescript" in languages:
        pkg = Path(args.node_dir) / "node_modules" / "typescript" / "package.json"
        out["typescript"] = f"typescript {json.loads(pkg.read_text())['version']}"
    return out


def _print_row(row: dict) -> None:
    print(
        f"\n== {row['repo']} ({row['benchmark_root']}): {row['call_sites_scored']} of "
        f"{row['call_sites']} call sites, oracle {dict(row['oracle'])}, "
        f"codebot {row['seconds']['codebot']} s, oracle {row['seconds']['oracle']} s"
        + ("" if row["replay_matches_graph"] else "  (REPLAY DIFFERS FROM THE GRAPH)")
    )
    print(
        f"{'':16s} {'right':>6s} {'wrong':>6s} {'extern':>6s} {'silent':>6s} {'prec':>6s} "
        f"{'fanout':>6s} {'prec-fanout':>11s}"
    )
    for what in ("links", "edges"):
        for k, v in row[what].items():
            if not any(v[x] for x in ("right", "wrong", "external", "silent")):
                continue  # a resolution this repository has no edge of
            extra = ""
            if "fanout" in v:
                extra = f" {v['fanout']:6d} {_fmt(v['precision_fanout_allowed']):>11s}"
            print(
                f"{what[:-1] + ' ' + k:16s} {v['right']:6d} {v['wrong']:6d} {v['external']:6d} "
                f"{v['silent']:6d} {_fmt(v['precision'])}{extra}"
            )
    rc = row["recall"]
    print(f"recall {rc['found']}/{rc['in_repository_sites']} = {_fmt(rc['recall'])}  ", end="")
    print(", ".join(f"{w} {d['found']}/{d['sites']}" for w, d in rc["by_where"].items()))
    for c in row["categories"][:12]:
        print(f"  {c['count']:5d}  {c['category']}")
        for ex in c["examples"][:2]:
            print(f"         {ex['at']}  {ex['code'][:70]}")
            print(f"           codebot: {ex['codebot'][:110]}")
            print(f"           oracle:  {ex['oracle'][:110]}")


if __name__ == "__main__":
    sys.exit(main())

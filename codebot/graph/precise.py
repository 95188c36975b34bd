"""Precise edges: a SCIP index's references mapped onto codebot's symbols, and merged with the
heuristic edges of :mod:`codebot.graph.resolve`.

Mapping (:func:`map_scip`), by path and range:

- a SCIP symbol with a definition occurrence in a document of the index is a *repository
  definition*; it maps to the innermost codebot symbol of that path whose name is the symbol's
  last descriptor and whose lines hold the definition's line;
- a reference inside a definition's lines comes from the innermost codebot symbol holding it
  (a function, a method, a module's chunk);
- a reference at a line where that caller makes a raw call of the same name is a *call site*:
  ``(line, name, target)``, the target a codebot id, or ``""`` when the SCIP symbol is a
  library's (the precise index knows the call leaves the repository);
- a reference into an installed copy of the repository (``import flask`` answered by the
  ``Flask 3.1.3`` package in a src layout) maps by module path and descriptors; an ``@overload``
  signature maps to its set's implementation; a symbol the indexer gives several definitions
  (nested functions of one name) maps to the one whose scope holds the reference, or to none;
  a ``local`` symbol to the codebot definition starting on its definition's line;
- a decorator called (``@app.route(...)``) is no call site: it is the scope's ``decorates``
  edge, which stays heuristic; a repository definition codebot has no symbol for (a field, a
  lambda) or a value (a module variable) is no knowledge either.

Merging (:func:`merge_precise`), call site by call site, for callers in *fresh* files (covered
by the precise index, and unchanged since: same content hash):

- a site whose target is a symbol of a fresh file gives a ``calls`` edge of resolution
  ``precise``; the heuristic edge to the same target is replaced by it;
- a heuristic ``calls`` edge (not ``override``: a possible runtime target the static type does
  not rule out) whose every call site of that name the precise index resolved elsewhere is
  contradicted, and dropped; a site resolved to a member of an interface (or trait) rules
  nothing out: an implementation may be what runs;
- a site whose target's file changed is not served: the heuristic edges stand for it;
- callers in changed or uncovered files keep their heuristic edges.

The precise index, what it covered and the content hash of each covered file, is
``precise.msgpack`` in a generation (:func:`pack_precise`); an update carries it to the next
generation unchanged and the merge sorts fresh from stale each time, so no edge whose caller or
callee changed is ever served as precise.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from codebot.core.errors import DamagedIndex
from codebot.core.model import VALUE_KINDS, Call, Edge, FileResult, Symbol, is_overload_stub
from codebot.graph.resolve import decorator_call
from codebot.graph.scip import IMPORT, ScipIndex, descriptor_name, descriptors, is_local

__all__ = [
    "PRECISE",
    "PRECISE_FILE",
    "PRECISE_FORMAT",
    "PreciseEdges",
    "call_name",
    "judge_edges",
    "map_scip",
    "merge_precise",
    "pack_precise",
    "read_precise",
    "rebase_paths",
    "unpack_precise",
]

PRECISE = "precise"
PRECISE_FILE = "precise.msgpack"
PRECISE_FORMAT = 1
_CTOR = {"python": "__init__", "typescript": "constructor", "tsx": "constructor",
         "javascript": "constructor", "jsx": "constructor"}  # fmt: skip
_IDENT = re.compile(r"[A-Za-z_$][\w$]*")
_CALLABLE = ("().", "#")  # method/function and type descriptors: what a call can name


@dataclass
class PreciseEdges:
    """What ``precise.msgpack`` holds: the sites of every covered caller, and what they came from."""

    commit: str | None = None
    tool: str = ""
    files: dict[str, str] = field(default_factory=dict)  # covered path -> content hash then
    sites: dict[str, list[tuple[int, str, str]]] = field(default_factory=dict)  # src -> sites
    mapping: dict[str, int] = field(default_factory=dict)  # counts of the mapping (stats)

    def site_count(self) -> int:
        return sum(len(v) for v in self.sites.values())


def call_name(raw: str) -> str:
    """The name a raw call ends with: ``self.load`` -> ``load``, ``(x = C()).m`` -> ``m``,
    ``new Foo`` -> ``Foo``; "" when it has none."""
    names = _IDENT.findall(raw.rsplit("/(", 1)[0])
    return names[-1] if names else ""


def _calls(s: Symbol) -> list[Call]:
    """A symbol's raw calls less its decorators called (``@app.route(...)``): those are the
    scope's ``decorates`` edges, which precise edges leave as they are."""
    if not s.decorators:
        return s.calls
    return [c for c in s.calls if not decorator_call(s, c)]


def _innermost(candidates: list[Symbol], line: int, name: str | None = None) -> Symbol | None:
    best = None
    for s in candidates:
        if s.start_line <= line <= s.end_line and (name is None or s.name == name):
            if best is None or (s.start_line, -s.end_line) > (best.start_line, -best.end_line):
                best = s
    return best


def rebase_paths(index: ScipIndex, indexed: set[str], under: str = "") -> None:
    """Make the paths of ``index`` the repository's when an indexer ran in a folder of it
    (``scip-python --target-only src/pkg``, an indexer run in the indexed subtree): ``under``,
    or else the prefix that makes the most of them indexed files."""
    if not under:
        votes: Counter[str] = Counter()
        for doc in index.documents:
            if doc.path in indexed:
                votes[""] += 1
                continue
            for full in indexed:
                if full.endswith("/" + doc.path):
                    votes[full[: -len(doc.path)]] += 1
        under = votes.most_common(1)[0][0] if votes else ""
    if under:
        for doc in index.documents:
            if doc.path not in indexed and under + doc.path in indexed:
                doc.path = under + doc.path


def map_scip(index: ScipIndex, files: list[FileResult], commit: str | None = None) -> PreciseEdges:
    """The call sites of ``index`` over codebot's ``files`` (see the module's docstring)."""
    by_path = {f.path: f for f in files}
    # Definitions first: a reference may come before its definition's document.
    defined: dict[str, list[tuple[str, int]]] = {}  # SCIP symbol -> (path, 1-based line)...
    for doc in index.documents:
        for occ in doc.occurrences:
            if occ.is_definition and not is_local(occ.symbol):
                defined.setdefault(occ.symbol, []).append((doc.path, occ.start_line + 1))
    defs_of: dict[str, list[Symbol]] = {}
    callers_of: dict[str, list[Symbol]] = {}
    by_id: dict[str, Symbol] = {}
    for f in files:
        defs_of[f.path] = [s for s in f.symbols if s.kind not in VALUE_KINDS or s.parent is None]
        callers_of[f.path] = [s for s in f.symbols if s.kind not in VALUE_KINDS]
        by_id.update((s.id, s) for s in f.symbols)
    implementation = _implementations(files)
    # SCIP symbol -> the codebot symbols its definitions map to (several: a symbol the indexer
    # gives to more than one definition, such as nested functions of the same name)
    targets: dict[str, list[str]] = {}
    for symbol, places in defined.items():
        name, _suffix = descriptor_name(symbol)
        got: list[str] = []
        for path, line in places:
            hit = _innermost(defs_of.get(path, []), line, name) if name else None
            if hit is not None:
                sid = implementation.get(hit.id, hit.id)  # an @overload: the set's body
                if sid not in got:
                    got.append(sid)
        targets[symbol] = got
    aliases = _aliases(defined)

    def target(symbol: str, path: str, line: int) -> str | None:
        got = targets.get(symbol, [])
        if len(got) == 1:
            return got[0]
        near = [  # several: the one whose scope holds the reference, if one alone does
            sid for sid in got
            if by_id[sid].path == path and (p := by_id.get(by_id[sid].parent or "")) is not None
            and p.start_line <= line <= p.end_line
        ]  # fmt: skip
        return near[0] if len(near) == 1 else None

    counts: Counter[str] = Counter()
    sites: dict[str, list[tuple[int, str, str]]] = defaultdict(list)
    covered: dict[str, str] = {}
    for doc in index.documents:
        f = by_path.get(doc.path)
        if f is None:
            counts["documents_not_indexed"] += 1
            continue
        covered[f.path] = f.content_hash
        raw: dict[str, dict[int, set[str]]] = {}  # caller -> line -> names called there
        for s in callers_of[f.path]:
            for c in _calls(s):
                raw.setdefault(s.id, {}).setdefault(c.line, set()).add(call_name(c.name))
        # A local symbol (``local 7``: a function inside a function, a TypeScript closure) is
        # defined in this document: the codebot definition starting on its line, if any.
        local: dict[str, Symbol] = {}
        for occ in doc.occurrences:
            if occ.is_definition and is_local(occ.symbol):
                hit = [s for s in defs_of[f.path] if s.start_line == occ.start_line + 1
                       and s.kind not in VALUE_KINDS]  # fmt: skip
                if len(hit) == 1:
                    local[occ.symbol] = hit[0]
        seen: set[tuple[str, int, str]] = set()
        for occ in doc.occurrences:
            if occ.is_definition:
                continue
            if is_local(occ.symbol):
                sym = local.get(occ.symbol)
                if sym is None:
                    continue
                line = occ.start_line + 1
                caller = _innermost(callers_of[f.path], line)
                if caller is not None and sym.name in raw.get(caller.id, {}).get(line, ()):
                    key = (caller.id, line, sym.name)
                    if key not in seen:
                        seen.add(key)
                        sites[caller.id].append((line, sym.name, sym.id))
                        counts["sites_internal"] += 1
                continue
            name, suffix = descriptor_name(occ.symbol)
            repo = occ.symbol in defined
            if not repo:
                alias = aliases.get(_module_key(occ.symbol))
                if alias is not None:  # the repository's own code, as an installed package
                    counts["references_via_package"] += 1
                    targets[occ.symbol] = targets[alias]
                    defined[occ.symbol] = defined[alias]
                    repo = True
            callable_ = suffix in _CALLABLE
            line = occ.start_line + 1
            dst = target(occ.symbol, f.path, line) if repo else None
            if repo:  # by what codebot indexes: functions, methods, types, module-level values
                counts["all_references"] += 1
                counts["all_references_mapped"] += dst is not None
                if callable_ or suffix == "." and _module_level(occ.symbol):
                    counts["references"] += 1
                    counts["references_mapped"] += dst is not None
                if callable_:
                    counts["callable_references"] += 1
                    counts["callable_references_mapped"] += dst is not None
            if occ.roles & IMPORT or not (callable_ or suffix == "."):
                continue  # a term may be called too: a TypeScript `const f = () => ...`
            caller = _innermost(callers_of[f.path], line)
            if caller is None or name not in raw.get(caller.id, {}).get(line, ()):
                continue
            if repo and (dst is None or by_id[dst].kind in VALUE_KINDS):
                counts["sites_unmapped"] += 1
                continue  # a definition codebot does not have (or a value): no knowledge
            dst = dst or ""
            key = (caller.id, line, name)
            if key in seen and not dst:
                continue
            seen.add(key)
            sites[caller.id].append((line, name, dst))
            counts["sites_internal" if dst else "sites_external"] += 1
    counts["documents"] = len(covered)
    out = PreciseEdges(commit, f"{index.tool} {index.version}".strip(), covered, dict(sites))
    out.mapping = dict(sorted(counts.items()))
    return out


def _module_level(symbol: str) -> bool:
    """A term of a module (a constant, a variable), not a field of a type or a function's."""
    last = descriptors(symbol)[1].rsplit("/", 1)[-1]
    return "#" not in last and "(" not in last and "`" not in last


def _implementations(files: list[FileResult]) -> dict[str, str]:
    """Each ``@overload`` signature -> the implementation of its set (the definition of the
    same name and scope without it), where there is one: the heuristic resolvers' target."""
    out: dict[str, str] = {}
    for f in files:
        sets: dict[tuple[str | None, str], list[Symbol]] = defaultdict(list)
        for s in f.symbols:
            if s.kind in ("function", "method"):
                sets[(s.parent, s.name)].append(s)
        for members in sets.values():
            bodies = [s for s in members if not is_overload_stub(s)]
            if len(members) > 1 and bodies:
                for s in members:
                    if is_overload_stub(s):
                        out[s.id] = bodies[-1].id
    return out


def _module_key(symbol: str) -> tuple[str, str] | None:
    """A Python symbol as (dotted module, the descriptors after it): ``Flask 3.1.3
    `flask.app`/Flask#`` -> ("flask.app", "Flask#"); None for another kind of symbol."""
    package, rest = descriptors(symbol)
    if not package.startswith("scip-python ") or " python-stdlib " in package:
        return None
    if rest.startswith("`"):
        end = rest.find("`/", 1)
        if end < 0:
            return None
        return rest[1:end], rest[end + 2 :]
    module, sep, tail = rest.partition("/")
    return (module, tail) if sep else None


def _aliases(defined: dict[str, list[tuple[str, int]]]) -> dict[tuple[str, str], str]:
    """The repository's Python definitions by every dotted suffix of their module
    (``src.flask.app`` -> ``flask.app``, ``app``), where one definition alone has it: a
    reference the type checker resolved into an installed copy of the repository (``import
    flask`` with flask installed from PyPI or in editable mode, in a src layout) is one to the
    repository's definition of the same module path and descriptors."""
    out: dict[tuple[str, str], str | None] = {}
    for symbol in defined:
        key = _module_key(symbol)
        if key is None:
            continue
        module, tail = key
        parts = module.split(".")
        for i in range(len(parts)):
            alias = (".".join(parts[i:]), tail)
            out[alias] = symbol if alias not in out else None  # two definitions: neither
    return {k: v for k, v in out.items() if v is not None}


def _constructor(dst: str, by_id: dict[str, Symbol], children: dict[str, dict[str, str]],
                 bases: dict[str, list[str]]) -> str:  # fmt: skip
    """A type called is its constructor (as the heuristic resolvers say it), found in the type
    or its bases (Python's ``__init__`` is inherited); the type itself when it has none."""
    sym = by_id.get(dst)
    if sym is None or sym.kind in ("function", "method", "chunk"):
        return dst
    ctor = _CTOR.get(sym.language)
    if ctor is None:
        return dst
    todo, seen = [dst], set()
    while todo:
        t = todo.pop(0)
        if t in seen:
            continue
        seen.add(t)
        hit = children.get(t, {}).get(ctor)
        if hit is not None:
            return hit
        if sym.language == "python":
            todo += bases.get(t, [])
    return dst


@dataclass
class _Sites:
    by_id: dict[str, Symbol]
    fresh: set[str]  # covered paths unchanged since the precise index
    calls_of: dict[str, list[tuple[int, str]]]  # caller -> (line, name) of its raw calls
    served: dict[str, dict[str, int]]  # caller -> callee -> first line: the precise edges
    decided: dict[tuple[str, str], set[int]]  # (caller, name) -> lines the index resolved
    stale_sites: int


def _sites(edges: list[Edge], files: list[FileResult], precise: PreciseEdges) -> _Sites:
    by_id: dict[str, Symbol] = {}
    fresh: set[str] = set()
    calls_of: dict[str, list[tuple[int, str]]] = {}
    for f in files:
        if precise.files.get(f.path) == f.content_hash:
            fresh.add(f.path)
        for s in f.symbols:
            by_id[s.id] = s
            if s.calls:
                calls_of[s.id] = [(c.line, call_name(c.name)) for c in _calls(s)]
    children: dict[str, dict[str, str]] = defaultdict(dict)
    for s in by_id.values():
        if s.parent is not None:
            children[s.parent].setdefault(s.name, s.id)
    bases: dict[str, list[str]] = defaultdict(list)
    for e in edges:
        if e.kind == "inherits":
            bases[e.src].append(e.dst)
        elif e.kind == "contains":
            children[e.src].setdefault(by_id[e.dst].name if e.dst in by_id else "", e.dst)
    served: dict[str, dict[str, int]] = defaultdict(dict)
    decided: dict[tuple[str, str], set[int]] = defaultdict(set)
    stale_sites = 0
    for src, src_sites in precise.sites.items():
        sym = by_id.get(src)
        if sym is None or sym.path not in fresh:
            continue
        for line, name, dst in src_sites:
            if dst:
                dsym = by_id.get(dst)
                if dsym is None or dsym.path not in fresh:
                    stale_sites += 1  # the callee changed (or is gone): not served
                    continue
                dst = _constructor(dst, by_id, children, bases)
                served[src].setdefault(dst, line)
                owner = by_id.get(by_id[dst].parent or "")
                if owner is not None and owner.kind in ("interface", "trait"):
                    continue  # the declared type's member: an implementation may be the target
            decided[(src, name)].add(line)
    return _Sites(by_id, fresh, calls_of, served, decided, stale_sites)


def judge_edges(
    edges: list[Edge], files: list[FileResult], precise: PreciseEdges
) -> tuple[list[str], set[tuple[str, str]]]:
    """The precise index as an oracle: for each of ``edges``, ``confirmed`` (a precise edge
    too), ``contradicted`` (every call site that may have made it resolved elsewhere),
    ``unknown`` (the index is silent on some site) or ``uncovered`` (not a call, or its
    caller's file is not covered); and the precise edges (caller, callee) of covered callers."""
    k = _sites(edges, files, precise)
    verdicts = []
    for e in edges:
        if e.kind != "calls" or e.src not in k.by_id or k.by_id[e.src].path not in k.fresh:
            verdicts.append("uncovered")
        elif e.dst in k.served.get(e.src, {}):
            verdicts.append("confirmed")
        elif _contradicted(e, k.by_id, k.calls_of, k.decided):
            verdicts.append("contradicted")
        else:
            verdicts.append("unknown")
    return verdicts, {(src, dst) for src, dsts in k.served.items() for dst in dsts}


def merge_precise(
    edges: list[Edge], files: list[FileResult], precise: PreciseEdges
) -> tuple[list[Edge], dict[str, Any]]:
    """The heuristic ``edges`` with the precise call sites merged in (see the module's
    docstring); and what the index says about it (``meta["precise"]``)."""
    k = _sites(edges, files, precise)
    out: list[Edge] = []
    replaced = dropped = 0
    for e in edges:
        if e.kind == "calls" and e.src in k.by_id and k.by_id[e.src].path in k.fresh:
            if e.dst in k.served.get(e.src, {}):
                replaced += 1
                continue  # the precise edge stands for it (added below)
            if e.resolution != "override" and _contradicted(e, k.by_id, k.calls_of, k.decided):
                dropped += 1
                continue
        out.append(e)
    added = 0
    for src, dsts in k.served.items():
        for dst, line in dsts.items():
            out.append(Edge(src, dst, "calls", line, PRECISE))
            added += 1
    meta = {
        "commit": precise.commit,
        "tool": precise.tool,
        "files": len(precise.files),
        "fresh_files": len(k.fresh),
        "stale_files": len(precise.files) - len(k.fresh),
        "edges": added,
        "confirmed": replaced,
        "new": added - replaced,
        "dropped": dropped,
        "stale_sites": k.stale_sites,
    }
    return out, meta


def _contradicted(
    e: Edge,
    by_id: dict[str, Symbol],
    calls_of: dict[str, list[tuple[int, str]]],
    decided: dict[tuple[str, str], set[int]],
) -> bool:
    """Whether the precise index resolved every call site of ``e``'s caller that may have made
    it (a call of the callee's name, or of its type's for a constructor), to something else."""
    dsym = by_id.get(e.dst)
    if dsym is None:
        return False
    names = {dsym.name}
    if dsym.name in _CTOR.values() and dsym.parent in by_id:
        names.add(by_id[dsym.parent].name)
    lines = [ln for ln, n in calls_of.get(e.src, ()) if n in names]
    if not lines:
        return False
    known = set()
    for n in names:
        known |= decided.get((e.src, n), set())
    return all(ln in known for ln in lines)


def pack_precise(p: PreciseEdges) -> bytes:
    import msgpack

    return msgpack.packb(
        {
            "format": PRECISE_FORMAT,
            "commit": p.commit,
            "tool": p.tool,
            "files": p.files,
            "sites": {src: [list(s) for s in v] for src, v in p.sites.items()},
            "mapping": p.mapping,
        },
        use_bin_type=True,
    )


def read_precise(path: Path) -> PreciseEdges:
    try:
        blob = path.read_bytes()
    except OSError as exc:
        raise DamagedIndex(path, f"cannot read the precise edges: {exc}") from exc
    return unpack_precise(blob, str(path))


def unpack_precise(blob: bytes, where: str = PRECISE_FILE) -> PreciseEdges:
    """The precise edges in ``blob``; a DamagedIndex (naming ``where``) for anything else."""
    import msgpack

    def broken(why: object) -> DamagedIndex:
        return DamagedIndex(where, f"unreadable precise edges: {why}")

    try:
        data = msgpack.unpackb(blob, raw=False, strict_map_key=True)
    except (ValueError, TypeError, msgpack.UnpackException) as exc:
        raise broken(exc) from exc
    if not isinstance(data, dict) or data.get("format") != PRECISE_FORMAT:
        raise broken(f"not precise edges of format {PRECISE_FORMAT}")
    try:
        commit, tool = data["commit"], data["tool"]
        files, sites, mapping = data["files"], data["sites"], data["mapping"]
        if not (commit is None or isinstance(commit, str)) or not isinstance(tool, str):
            raise ValueError("commit or tool")
        if not all(isinstance(k, str) and isinstance(v, str) for k, v in files.items()):
            raise ValueError("files")
        if not all(isinstance(k, str) and isinstance(v, int) for k, v in mapping.items()):
            raise ValueError("mapping")
        out: dict[str, list[tuple[int, str, str]]] = {}
        for src, rows in sites.items():
            if not isinstance(src, str) or not isinstance(rows, list):
                raise ValueError("sites")
            got = []
            for line, name, dst in rows:
                if not (isinstance(line, int) and isinstance(name, str) and isinstance(dst, str)):
                    raise ValueError(f"a site of {src}")
                got.append((line, name, dst))
            out[src] = got
    except (KeyError, ValueError, TypeError, AttributeError) as exc:
        raise broken(f"{exc.__class__.__name__}: {exc}") from exc
    return PreciseEdges(commit, tool, dict(files), out, dict(mapping))

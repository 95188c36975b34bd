"""Re-resolve only the files a change can affect; keep every other file's edges and counts.

A full resolution (:func:`codebot.graph.resolve.resolve`) is the reference: this module gives the
same edges, call counts and call-site counts, and ``tests/test_incremental.py`` and
``benchmarks/update_replay.py`` compare the two on generated and real histories.

Every edge comes from one file (a ``contains`` edge from the child's, every other from its
source's), so a file's results depend on the repository only through what its own text names. A
file is resolved again when one of these holds; otherwise its previous edges and counts stand:

- it changed (reparsed, added; a removed file's results go with it);
- one of its previous edges leaves or reaches a symbol whose declaration changed or that went
  away (the callers of changed and removed definitions);
- it names a *dirty name*: the name of a definition added, removed or whose declaration changed
  in a changed file (a new definition can capture a call that was unresolved or bound
  elsewhere; a unique-name fallback or an ambiguity depends on how many definitions share the
  name), in a call, a decorator, a base, a parameter's or return type, a receiver's class or an
  import. A declaration is what other files can read of a definition (see ``_shapes``): an
  edit inside a function's body changes no declaration, so it re-resolves that file alone;
- its imports name a changed module whose *surface* changed (its imports, its set of
  definitions or its first chunk, a module-level value such as ``__all__``): re-exports, star imports and module
  ids matched by suffix go through the surface; every name of such a module is dirty too;
- a changed module's own imports changed: then also the files within two imports of it, whose
  reach (the modules a unique-name fallback may land in, three imports deep) went through it;
- it defines a subclass (in the old or the new hierarchy) of a changed type: its method
  resolution order changed, and so did every name of a member along it, which are dirty.

"Names" are matched as whole identifiers, so the test is conservative: a file that mentions a
dirty name for another reason is resolved again for nothing, never the reverse.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from typing import Any

import numpy as np

from codebot.core.model import EDGE_KINDS, TYPE_KINDS, VALUE_KINDS, FileResult, Symbol
from codebot.graph.analytics import build_graph, build_graph_rows
from codebot.graph.callgraph import CodeGraph
from codebot.graph.resolve import CALL_SITE_KEYS, Resolution, prepare, resolve_prepared, summed

__all__ = ["Previous", "merged_graph", "pack_file_sites", "resolve_changed", "unpack_file_sites"]

_IDENT = re.compile(r"[A-Za-z_$][\w$]*")
_CONTAINS = EDGE_KINDS.index("contains")
_INHERITS = EDGE_KINDS.index("inherits")
# Two imports back from a module whose imports changed: a fallback's reach is three deep.
_REACH_BACK = 2


@dataclass
class Previous:
    """What the base generation resolved: its graph, the id and path of each of its symbol
    rows, and its version of every changed path (None where the path was not indexed)."""

    graph: CodeGraph
    ids: list[str]
    paths: list[str]
    old_files: dict[str, FileResult | None]
    # Optional, to keep the merge proportional to the change: the base row of each symbol of the
    # new table (-1 for a new id; an update knows it from the files it kept), and the base's
    # row of each id. Without them the merge maps ids to rows through dicts of every symbol.
    old_rows: np.ndarray | None = None
    row_of: dict[str, int] | None = None

    def new_rows(self, symbols: list[Symbol]) -> np.ndarray:
        """The new row of each base row (-1 for a symbol gone): ``old_rows`` inverted."""
        old_rows = self.old_rows
        if old_rows is None:
            rows = {s.id: i for i, s in enumerate(symbols)}
            return np.fromiter(
                (rows.get(sid, -1) for sid in self.ids), dtype=np.int64, count=len(self.ids)
            )
        new_row = np.full(len(self.ids), -1, dtype=np.int64)
        there = np.flatnonzero(old_rows >= 0)
        new_row[old_rows[there]] = there
        return new_row


def pack_file_sites(by_file: dict[str, dict[str, Counter[str]]]) -> dict[str, Any]:
    """Per-file, per-language call-site counters as stored in ``graph.msgpack``."""
    keys = list(CALL_SITE_KEYS)
    languages = sorted({lang for per in by_file.values() for lang in per})
    code = {lang: i for i, lang in enumerate(languages)}
    paths, rows = [], []
    for path in sorted(by_file):
        for lang, c in sorted(by_file[path].items()):
            paths.append(path)
            rows.append([code[lang], *(c.get(k, 0) for k in keys)])
    array = np.asarray(rows, dtype="<i4").reshape(len(rows), 1 + len(keys))
    return {"keys": keys, "languages": languages, "paths": paths, "rows": array.tobytes()}


def unpack_file_sites(packed: dict[str, Any]) -> dict[str, dict[str, Counter[str]]]:
    """The counters ``pack_file_sites`` stored; KeyError, ValueError... when malformed."""
    keys, languages, paths = packed["keys"], packed["languages"], packed["paths"]
    if any(k not in CALL_SITE_KEYS for k in keys):
        raise ValueError("unknown call-site counter")
    rows = np.frombuffer(packed["rows"], dtype="<i4").reshape(len(paths), 1 + len(keys))
    out: dict[str, dict[str, Counter[str]]] = {}
    for path, row in zip(paths, rows.tolist()):
        counts = Counter({k: v for k, v in zip(keys, row[1:]) if v})
        out.setdefault(path, {})[languages[row[0]]] = counts
    return out


def resolve_changed(
    files: list[FileResult], previous: Previous, changed: set[str]
) -> tuple[Resolution, set[str]] | None:
    """The resolution of ``files`` (the whole repository after a change of the paths
    ``changed``), resolving again only the files the change can affect (see the module), and
    those files; None when ``previous`` cannot be built on: it kept no per-file counts, or it
    dropped edges (whose files it does not record). See :func:`merged_graph` for the graph."""
    graph = previous.graph
    if graph.file_sites is None or graph.meta.get("dropped_edges", 0):
        return None
    try:  # from an artifact, say: a malformed record is one the base does not have
        kept_sites = unpack_file_sites(graph.file_sites)
    except (KeyError, ValueError, TypeError, IndexError, AttributeError):
        return None
    prepared = prepare(files)
    index = prepared.index
    now = {f.path: f for f in files}
    ids, paths = previous.ids, previous.paths

    dirty: set[str] = set()  # names
    surface: set[str] = set()  # identifiers of the modules whose surface changed
    rewired: set[str] = set()  # identifiers of the modules whose imports changed
    gone: set[str] = set()  # ids of symbols changed or removed
    types: set[str] = set()  # ids of types changed, added or removed
    for path in changed:
        old, new = previous.old_files.get(path), now.get(path)
        before = {s.id: s for s in old.symbols} if old is not None else {}
        after = {s.id: s for s in new.symbols} if new is not None else {}
        shape_before, shape_after = _shapes(old), _shapes(new)
        differ = [
            sid
            for sid in before.keys() | after.keys()
            if sid not in before or sid not in after or shape_before[sid] != shape_after[sid]
        ]
        gone.update(sid for sid in differ if sid in before)
        for sid in differ:
            for s in (before.get(sid), after.get(sid)):
                if s is not None:
                    dirty.add(s.name)
                    if s.kind in TYPE_KINDS:
                        types.add(sid)
        imports_moved = (
            old is None
            or new is None
            or old.module != new.module
            or _import_surface(old) != _import_surface(new)
        )
        if (
            imports_moved
            or _declared(before) != _declared(after)
            or any(s.kind in VALUE_KINDS for sid in differ for s in (before.get(sid),) if s)
            or any(s.kind in VALUE_KINDS for sid in differ for s in (after.get(sid),) if s)
        ):
            names = _module_names(path, old, new)
            surface |= names
            dirty.update(s.name for s in (*before.values(), *after.values()))
            if imports_moved:
                rewired |= names

    # The hierarchy: subclasses of changed types, old and new, and the members along them.
    src, dst, kind = graph.src, graph.dst, graph.kind
    inherits = np.flatnonzero(kind == _INHERITS)
    old_subclasses: dict[str, list[str]] = {}
    old_bases: dict[str, list[str]] = {}
    for e in inherits.tolist():
        old_subclasses.setdefault(ids[dst[e]], []).append(ids[src[e]])
        old_bases.setdefault(ids[src[e]], []).append(ids[dst[e]])
    old_members: dict[str, list[str]] = {}
    for e in np.flatnonzero(kind == _CONTAINS).tolist():
        old_members.setdefault(ids[src[e]], []).append(ids[dst[e]])
    affected: set[str] = {p for p in changed if p in now}
    if types:
        family: set[str] = set()
        stack = list(types)
        while stack:
            t = stack.pop()
            if t in family:
                continue
            family.add(t)
            stack.extend(index.subclasses.get(t, ()))
            stack.extend(old_subclasses.get(t, ()))
        row_of_old = {sid: row for row, sid in enumerate(ids)} if family else {}
        for t in family:
            new_t = index.by_id.get(t)
            if new_t is not None:
                affected.add(index.file_of[t].path)
                dirty.add(new_t.name)
                for a in index.mro(t):
                    dirty.update(index.members.get(a, {}).keys())
            row = row_of_old.get(t)
            if row is not None:
                affected.add(paths[row])
                line, up = set(), [t]  # the old ancestors, the type included
                while up:
                    a = up.pop()
                    if a not in line:
                        line.add(a)
                        up.extend(old_bases.get(a, ()))
                for a in line:
                    dirty.update(_last_name(m) for m in old_members.get(a, ()))
        dirty.discard("")

    # Callers (and every other file with an edge) of what changed or went away.
    if gone:
        gone_rows = np.fromiter((row for row, sid in enumerate(ids) if sid in gone), dtype=np.int64)
        touch = np.isin(src, gone_rows) | np.isin(dst, gone_rows)
        for e in np.flatnonzero(touch).tolist():
            origin = dst[e] if kind[e] == _CONTAINS else src[e]
            affected.add(paths[origin])

    # Files that name a dirty name, or import a module whose surface changed.
    names_re = _words(dirty)
    surface_re = _words(surface)
    importers: dict[str, set[str]] = {}  # identifier -> files whose imports name it
    for f in files:
        if rewired:
            for w in set(_IDENT.findall(_import_words(f))):
                importers.setdefault(w, set()).add(f.path)
        if f.path in affected:
            continue
        if surface_re is not None and surface_re.search(_import_words(f)):
            affected.add(f.path)
        elif names_re is not None and names_re.search(_text(f)):
            affected.add(f.path)
    # The reach of a unique-name fallback (three imports deep) went through a module whose
    # imports changed: its importers, and theirs, are resolved again.
    frontier, seen = rewired, set()
    for _ in range(_REACH_BACK):
        hop = set()
        for w in frontier:
            hop |= importers.get(w, set())
        hop -= seen
        seen |= hop
        affected |= hop
        frontier = set()
        for p in hop:
            frontier |= _module_names(p, None, now.get(p))

    fresh = resolve_prepared(prepared, only=affected)
    by_file = {p: c for p, c in kept_sites.items() if p not in affected and p in now}
    by_file.update(fresh.by_file)
    # The edges and counts are fresh's: the kept files' are added by merged_graph, as arrays.
    return summed(fresh.edges, fresh.external, fresh.unresolved, by_file), affected


def merged_graph(
    symbols: list[Symbol], fresh: Resolution, previous: Previous, affected: set[str]
) -> CodeGraph:
    """The graph (no analytics yet) over ``symbols``: ``fresh``'s edges and counts (the
    affected files'), and ``previous``'s rows for every other file still present, renumbered.
    The same graph as ``build_graph`` over a full resolution gives."""
    graph, paths = previous.graph, previous.paths
    present = {s.path for s in symbols}
    keep = np.fromiter(
        (p not in affected and p in present for p in paths), dtype=bool, count=len(paths)
    )
    new_row = previous.new_rows(symbols)
    if previous.old_rows is None or previous.row_of is None:
        part = build_graph(symbols, fresh.edges, fresh.external, fresh.unresolved, analyze=False)
    else:
        part = _part_graph(symbols, fresh, previous.row_of, new_row, affected)
    origin = np.where(graph.kind == _CONTAINS, graph.dst, graph.src)
    kept = np.flatnonzero(keep[origin])
    src, dst = new_row[graph.src[kept]], new_row[graph.dst[kept]]
    whole = (src >= 0) & (dst >= 0)  # always: an edge to a symbol gone made its file affected
    kept = kept[whole]
    merged = CodeGraph(
        len(symbols),
        np.concatenate([part.src, src[whole]]),
        np.concatenate([part.dst, dst[whole]]),
        np.concatenate([part.kind, graph.kind[kept]]),
        np.concatenate([part.resolution, graph.resolution[kept]]),
        np.concatenate([part.line, graph.line[kept]]),
        part.external.copy(),
        part.unresolved.copy(),
    )
    old_rows = np.flatnonzero(keep)
    merged.external[new_row[old_rows]] = graph.external[old_rows]
    merged.unresolved[new_row[old_rows]] = graph.unresolved[old_rows]
    merged.meta["dropped_edges"] = part.meta["dropped_edges"] + int((~whole).sum())
    return merged


def _part_graph(
    symbols: list[Symbol],
    fresh: Resolution,
    row_of: dict[str, int],
    new_row: np.ndarray,
    affected: set[str],
) -> CodeGraph:
    """What ``build_graph(symbols, fresh...)`` gives, its rows found without a dict of every
    symbol: an id is at its base row's new row, or (a new id) in an affected file."""
    local = {s.id: i for i, s in enumerate(symbols) if s.path in affected and s.id not in row_of}

    def row(sid: str) -> int | None:
        old = row_of.get(sid)
        if old is None:
            return local.get(sid)
        new = int(new_row[old])
        return new if new >= 0 else None

    return build_graph_rows(len(symbols), row, fresh.edges, fresh.external, fresh.unresolved)


def _import_surface(f: FileResult) -> list[tuple]:
    """A file's imports as other files can see them: what each binds, and whether inside a
    function (bound there only), without the lines an edit above them shifts."""
    spans = [(s.start_line, s.end_line) for s in f.symbols if s.kind in ("function", "method")]
    return [
        (i.module, i.name, i.alias, i.level, any(a <= i.line <= b for a, b in spans))
        for i in f.imports
    ]


def _declared(symbols: dict[str, Symbol]) -> tuple[set[str], str | None]:
    """The ids other files can name: every definition's, and of the module-level code only
    the first chunk's (an import's edge lands there; the others are the file's own)."""
    chunks = [s for s in symbols.values() if s.kind == "chunk"]
    first = min(chunks, key=lambda s: s.start_line).id if chunks else None
    return {sid for sid, s in symbols.items() if s.kind != "chunk"}, first


def _shapes(f: FileResult | None) -> dict[str, tuple]:
    """What other files' resolution may read of each symbol of ``f``: its declaration (kind,
    name, parent, signature, parameters, decorators, return type, bases) and its children's
    ids; for a constant or variable, its whole text. A change inside a body (a statement
    added to a method, which changes the method's and its class's content hash) leaves the
    shape as it was: only the file's own calls, resolved again, can differ."""
    if f is None:
        return {}
    children: dict[str, list[str]] = {}
    for s in f.symbols:
        if s.parent is not None:
            children.setdefault(s.parent, []).append(s.id)
    return {
        s.id: (
            s.kind,
            s.name,
            s.language,
            s.parent,
            s.class_name,
            s.signature,
            s.parameters,
            s.decorators,
            s.return_type,
            s.bases,
            tuple(children.get(s.id, ())),
            s.content_hash if s.kind in VALUE_KINDS else s.end_line - s.start_line == 0,
        )
        for s in f.symbols
    }


def _module_names(path: str, old: FileResult | None, new: FileResult | None) -> set[str]:
    """The identifiers an import of this file's module may be written with."""
    text = path.rsplit(".", 1)[0]
    for f in (old, new):
        if f is not None:
            text += " " + f.module
    return set(_IDENT.findall(text))


def _last_name(symbol_id: str) -> str:
    return symbol_id.rsplit(".", 1)[-1].split("#", 1)[0]


def _words(names: set[str]) -> re.Pattern[str] | None:
    if not names:
        return None
    alternatives = "|".join(sorted(map(re.escape, names)))
    return re.compile(rf"(?<![\w$])(?:{alternatives})(?![\w$])")


def _import_words(f: FileResult) -> str:
    return " ".join(f"{i.module} {i.name or ''} {i.alias or ''}" for i in f.imports)


def _text(f: FileResult) -> str:
    """Every text of a file its resolution reads names from."""
    parts = [_import_words(f)]
    for s in f.symbols:
        parts.extend(c.name for c in s.calls)
        parts.extend(s.decorators)
        parts.extend(s.bases)
        parts.extend(p.type for p in s.parameters if p.type)
        if s.return_type:
            parts.append(s.return_type)
        if s.class_name:
            parts.append(s.class_name)
    return "\n".join(parts)

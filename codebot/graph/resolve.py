"""Raw calls -> edges between symbols, over a symbol table of the whole repository.

:func:`resolve` takes the parsed files and gives the edges of the code graph:

``calls``
    caller -> callee, with the line of the (first) call. ``resolution`` is ``exact`` when the
    callee follows from the code: an import, ``self``/``this``/``cls``, the MRO over resolved
    bases, ``super()``, a name in the module or an enclosing function, a typed parameter, a class
    instantiated (-> its constructor, or the class when it has none). A call on a value of a
    declared type (``self``, a typed parameter) also reaches the overrides of the method in the
    type's subclasses: those edges are ``override`` (a possible runtime target; the declared
    method keeps ``exact``, or an abstract one none at all). ``unique_name`` is the fallback
    for a call on a value of unknown type: the method of that name is the only definition of
    the name in the repository (in the caller's language family), and the name is no common
    library method; never on a value known to be a library's (a declared library type, a
    literal). An ambiguous name makes no edge.
    Module-level code (Python) calls from its chunk (``<module>``, ``<module>#2``...): a script's
    ``main()``, ``app = create_app()``. An overload set (Python ``@overload``) is reached at its
    implementation; with none (a ``.pyi``), at every signature, resolution ``overload``.
``decorates``
    scope -> decorator (Python): the class around a decorated method, the function around a
    decorated nested function, the module's chunk before a decorated top-level definition (the
    code that runs the decorator), at the definition's line. Not a call of the definition; calls
    written in a decorator's arguments (``@app.route(path())``) stay the definition's.
``inherits``
    type -> base type, for each base that resolves to a type of the repository.
``contains``
    parent -> child symbol (class -> method, function -> nested function), and a type -> a
    method defined outside its body (a Go receiver, a Rust ``impl``, a C++ out-of-line
    definition, a Swift extension).
``imports``
    a file's first chunk (``<module>``) -> the symbol an import binds, or the first chunk of the
    module it imports (Python, JavaScript/TypeScript, Java/Kotlin/Scala); a file without module
    level code has no chunk and no ``imports`` edges.

A call without an edge has a reason (``codebot.graph.resolvers.base.NO_EDGE``): ``external``
(a library's, a builtin, the standard library's, or a method of a value of a library type),
``dynamic`` (reflection, a call of a subscript or of a computed expression), ``ambiguous`` (several
definitions share the name and no rule picks one), ``unknown`` (the rest). Per caller, calls into
libraries are counted in ``external``, the others in ``unresolved``; per language, every call
site is counted by outcome in ``Resolution.by_language`` (``codebot stats``). Per-language rules
live in :mod:`codebot.graph.resolvers`.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from codebot.core.model import VALUE_KINDS, Call, Edge, FileResult, Symbol
from codebot.graph.resolvers import FAMILY, NameTable, Resolver, resolver_class
from codebot.graph.resolvers.base import (
    DYNAMIC,
    EXACT,
    EXTERNAL_CALL,
    IGNORED,
    NO_EDGE,
    OVERLOAD,
    OVERRIDE,
    UNIQUE,
)

__all__ = [
    "CALL_SITE_KEYS",
    "Prepared",
    "Resolution",
    "as_resolvers_see",
    "complete_counts",
    "decorator_call",
    "internal_rate",
    "prepare",
    "resolve",
    "resolve_prepared",
    "summed",
]

# How sure an edge is, surest first: a call site counts as resolved by its surest edge, and an
# edge found twice keeps the surer resolution.
_RANK = {EXACT: 0, OVERRIDE: 1, OVERLOAD: 2, UNIQUE: 3}
# Call-site counts (see Resolution.stats), in the order reports list them.
CALL_SITE_KEYS = ("calls", "resolved", *_RANK, *NO_EDGE, "unresolved", IGNORED)


@dataclass
class Resolution:
    edges: list[Edge]
    external: dict[str, int]  # symbol id -> calls into libraries and builtins (no edge)
    unresolved: dict[str, int]  # symbol id -> other calls without an edge (dynamic, ambiguous...)
    # Call-site counts (CALL_SITE_KEYS): calls (every raw call and decorator), resolved (gave at
    # least one edge), of them by their surest edge's resolution (exact, override, overload,
    # unique_name), the reasons of the others (external, dynamic, ambiguous, unknown), unresolved
    # (dynamic + ambiguous + unknown), ignored (a property setter decorator: no call).
    stats: dict[str, int] = field(default_factory=dict)
    by_language: dict[str, dict[str, int]] = field(default_factory=dict)  # the same, per language
    # The raw call-site counters per file and language (what by_language sums): an update
    # keeps those of the files it does not resolve again (graph/incremental.py).
    by_file: dict[str, dict[str, Counter[str]]] = field(default_factory=dict)


@dataclass
class Prepared:
    """The repository's name table with every language resolver prepared (bases resolved,
    out-of-body methods attached): what resolving any file's calls needs."""

    every: list[FileResult]  # the files as parsed
    files: list[FileResult]  # as the resolvers see them (definitions only), in the same order
    index: NameTable
    resolvers: dict[str, Resolver]
    chunks: dict[str, list[tuple[int, str]]]  # module -> (start line, id) of its chunks


def internal_rate(counts: dict[str, int]) -> float:
    """Of the calls that can have an edge (all but external, dynamic and ignored ones), the
    share resolved; 1.0 when there are none."""
    into_repo = counts.get("calls", 0) - sum(counts.get(k, 0) for k in (EXTERNAL_CALL, DYNAMIC))
    into_repo -= counts.get(IGNORED, 0)
    return round(counts.get("resolved", 0) / into_repo, 4) if into_repo > 0 else 1.0


def as_resolvers_see(files: list[FileResult]) -> tuple[list[FileResult], NameTable]:
    """The files with their definitions only, and the name table over them in which each
    constant or variable is known as a caller (by id, by no name)."""
    defs = [_definitions(f) for f in files]
    index = NameTable(defs)
    for f, whole in zip(defs, files):
        if f is not whole:
            prefix = f.module + "." if f.module else ""
            for s in whole.symbols:
                if s.kind in VALUE_KINDS:
                    index.by_id[s.id] = s
                    index.file_of[s.id] = f
                    index.local_name[s.id] = s.id.removeprefix(prefix)
    return defs, index


def resolve(files: list[FileResult]) -> Resolution:
    """Resolve the raw calls, bases and imports of parsed files into edges.

    The resolvers see the definitions only: a constant or variable is never a callee, a base or
    a scope's name (``a = func; a()`` is data flow). Its initializer's calls are resolved like
    code around it: a type's static field like the type's code, a module's like its chunks'."""
    return resolve_prepared(prepare(files))


def prepare(files: list[FileResult]) -> Prepared:
    """The name table over ``files`` and a prepared resolver per language family."""
    every = files
    files, index = as_resolvers_see(files)
    by_family: dict[str, list[FileResult]] = {}
    for f in files:
        family = FAMILY.get(f.language)
        if family is not None:
            by_family.setdefault(family, []).append(f)
    resolvers: dict[str, Resolver] = {}
    for family, family_files in by_family.items():
        resolvers[family] = resolver_class(family)(index, family_files)
    for r in resolvers.values():  # bases first: every call may walk a hierarchy
        r.prepare()
    chunks: dict[str, list[tuple[int, str]]] = {}
    for f in files:
        for s in f.symbols:
            if s.kind == "chunk":
                chunks.setdefault(f.module, []).append((s.start_line, s.id))
    return Prepared(every, files, index, resolvers, chunks)


def resolve_prepared(prepared: Prepared, only: set[str] | None = None) -> Resolution:
    """The edges, call counts and call-site counts of the files at paths ``only`` (None: every
    file), resolved against the whole repository. Every edge comes from one file's symbols (a
    ``contains`` edge from the child's, every other from the source's), so the files' results
    are independent and a subset's is that part of the whole."""
    index, resolvers, chunks = prepared.index, prepared.resolvers, prepared.chunks
    edges: dict[tuple[str, str, str], Edge] = {}
    external: Counter[str] = Counter()
    unresolved: Counter[str] = Counter()
    by_file: dict[str, dict[str, Counter[str]]] = {}

    def add(src: str, dst: str, kind: str, line: int, resolution: str = "exact") -> None:
        key = (src, dst, kind)
        old = edges.get(key)
        if old is None:
            edges[key] = Edge(src, dst, kind, line, resolution)
        elif _RANK.get(resolution, 0) < _RANK.get(old.resolution, 0):
            edges[key] = Edge(src, dst, kind, old.line, resolution)

    for f, whole in zip(prepared.files, prepared.every):
        if only is not None and f.path not in only:
            continue
        by_language: dict[str, Counter[str]] = {}
        r = resolvers.get(FAMILY.get(f.language, ""))
        for s in whole.symbols:
            if s.kind == "chunk" and not (s.calls and r is not None and r.module_calls):
                continue
            if (
                s.kind in VALUE_KINDS
                and s.parent is None
                and not (r is not None and r.module_calls)
            ):
                continue
            if s.parent is not None and s.parent in index.by_id:
                add(s.parent, s.id, "contains", s.start_line)
            elif s.id in (r.attached if r is not None else ()):
                add(r.attached[s.id], s.id, "contains", s.start_line)
            for base in index.bases.get(s.id, ()):
                add(s.id, base, "inherits", s.start_line)
            if r is None or not (s.calls or s.decorators):
                continue
            ctx = r.context(s, f)
            calls = s.calls
            if s.decorators and calls:
                calls = [c for c in calls if not decorator_call(s, c)]
            outcomes = []
            for c in calls:
                ctx.line = c.line
                outcomes.append((c.line, r.resolve_call(ctx, c.name), "calls"))
            decorate = getattr(r, "decorator_calls", None)
            if decorate is not None and s.decorators:
                outcomes += [(s.start_line, out, "decorates") for _, out in decorate(ctx)]
            stats = by_language.get(s.language)
            if stats is None:
                stats = by_language[s.language] = Counter()
            for line, out, kind in outcomes:
                stats["calls"] += 1
                if isinstance(out, str):
                    stats[out] += 1
                    if out == EXTERNAL_CALL:
                        external[s.id] += 1
                    elif out != IGNORED:
                        unresolved[s.id] += 1
                    continue
                stats["resolved"] += 1
                if len(out) == 1:
                    stats[out[0][1]] += 1
                else:  # by the surest edge (none: an abstract method without overrides)
                    stats[min((r for _, r in out), key=_RANK.__getitem__, default=EXACT)] += 1
                src = s.id if kind == "calls" else _applier(s, index.by_id, chunks.get(f.module))
                for dst, res in out:
                    add(src, dst, kind, line, res)
        if r is not None:
            chunk = index.first_chunk.get(f.module)
            if chunk is not None:
                for line, dst in r.import_targets(f):
                    if dst != chunk:
                        add(chunk, dst, "imports", line)
        if by_language:
            by_file[f.path] = by_language
    return summed(list(edges.values()), dict(external), dict(unresolved), by_file)


def summed(
    edges: list[Edge],
    external: dict[str, int],
    unresolved: dict[str, int],
    by_file: dict[str, dict[str, Counter[str]]],
) -> Resolution:
    """A Resolution whose call-site counts are the sum of the files' counters."""
    by_language: dict[str, Counter[str]] = {}
    for per_language in by_file.values():
        for lang, c in per_language.items():
            by_language.setdefault(lang, Counter()).update(c)
    langs = {lang: complete_counts(c) for lang, c in sorted(by_language.items())}
    total: Counter[str] = Counter()
    for c in langs.values():
        total.update(c)
    return Resolution(edges, external, unresolved, complete_counts(total), langs, by_file)


def complete_counts(counts: Counter[str]) -> dict[str, int]:
    """Every CALL_SITE_KEYS count, ``unresolved`` the sum of the reasons other than external."""
    out = {key: int(counts.get(key, 0)) for key in CALL_SITE_KEYS}
    out["unresolved"] = sum(out[k] for k in NO_EDGE if k != EXTERNAL_CALL)
    return out


def _definitions(f: FileResult) -> FileResult:
    """``f`` as the resolvers see it: without its constants and variables."""
    if not any(s.kind in VALUE_KINDS for s in f.symbols):
        return f
    kept = [s for s in f.symbols if s.kind not in VALUE_KINDS]
    return FileResult(
        f.path, f.language, f.role, f.module, kept, f.imports, f.issues, f.content_hash
    )


def decorator_call(sym: Symbol, call: Call) -> bool:
    """Whether a raw call of a definition is one of its decorators called (``@register("x")``
    reads as a call of ``register``): the decorator stands for it, applied by the scope. Only
    the decorators' lines count (one line each at most), so a call in the body never does."""
    if call.line >= sym.start_line + len(sym.decorators):
        return False
    return any(d.split("(", 1)[0].strip() == call.name for d in sym.decorators if "(" in d)


def _applier(sym: Symbol, by_id: dict[str, Symbol], chunks: list[tuple[int, str]] | None) -> str:
    """Who applies a definition's decorators: the scope the definition runs in. The class or
    function around it; for a top-level definition, the module's chunk before it (its first one
    if none is), or the definition itself in a file with no module-level code at all."""
    if sym.parent is not None and sym.parent in by_id:
        return sym.parent
    if not chunks:
        return sym.id
    before = [sid for start, sid in chunks if start < sym.start_line]
    return before[-1] if before else chunks[0][1]

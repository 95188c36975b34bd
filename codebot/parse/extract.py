"""Parse one file into symbols: definitions from a tree-sitter query, the rest as chunks.

One query run per file does the heavy lifting in C; Python then makes a single sweep over the
captures in document order, keeping a stack of open definitions to derive nesting, ids and the
owner of each call. Code outside any definition becomes chunks (cAST style: split oversized nodes
at their children, merge small neighbours), and a file without a grammar becomes line chunks, so
nothing in a file is unsearchable.
"""

from __future__ import annotations

import hashlib
import os
from bisect import bisect_left, bisect_right
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from operator import attrgetter, itemgetter

import numpy as np
from tree_sitter import Node

from codebot.core.config import Config
from codebot.core.model import (
    FUNCTION_KINDS,
    TYPE_KINDS,
    VALUE_KINDS,
    Call,
    FileResult,
    ParseIssue,
    Symbol,
    paused_gc,
    printable,
)
from codebot.git.repo import Repo
from codebot.git.workspace import Workspace
from codebot.languages import get_spec
from codebot.languages.base import LanguageSpec, squash
from codebot.parse.chunks import ChunkLimits, content_hash, end_line, line_chunks, module_chunks
from codebot.parse.files import (
    Selection,
    Selector,
    Skipped,
    SourceFile,
    content_skip_reason,
    select_files,
)
from codebot.parse.guard import (
    MAX_PARSE_SECONDS,
    Budget,
    ParseRefused,
    bounded_tree,
    query_captures,
    tree_sitter_bytes,
)

__all__ = [
    "ParseReport",
    "module_id",
    "parse_path",
    "parse_source",
    "blob_id",
    "module_ids",
    "parse_file",
]

_MAX_CALL_TEXT = 120
_MAX_ERRORS_REPORTED = 5
_DEFAULT_LIMITS = ChunkLimits()


def blob_id(data: bytes) -> str:
    """The git blob id of these bytes: equal to the committed blob when the file is unchanged."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def module_id(path: str) -> str:
    """The id prefix of a file: its path without extension, with dots for separators.

    ``pkg/mod.py`` -> ``pkg.mod``; a Python package's ``__init__.py`` is the package itself.
    """
    stem, _ = os.path.splitext(path.replace("\\", "/"))
    parts = [p for p in stem.split("/") if p and p != "."]
    if len(parts) > 1 and parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def parse_source(
    path: str,
    data: bytes,
    language: str,
    role: str = "source",
    limits: ChunkLimits = _DEFAULT_LIMITS,
    module: str | None = None,
) -> FileResult:
    """Extract the symbols, imports and chunks of one file's bytes.

    Bad input never raises, with one exception: a file over a resource bound (parse time,
    :data:`MAX_PARSE_SECONDS`, :data:`MAX_NESTING`, :data:`MAX_ERROR_WIDTH`) raises :class:`ParseRefused` with the reason, so that the caller
    skips it rather than index part of it. Anything else that goes wrong inside the parser is a
    parse issue, and the file is indexed as line chunks.
    """
    module = module if module is not None else module_id(path)
    result = FileResult(path, language, role, module, content_hash=blob_id(data))
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    spec = get_spec(language)
    parsed_bytes = data  # what tree-sitter sees: the same length, valid UTF-8
    try:
        if not data.isascii():  # the common case needs no decoding to know it is valid
            data.decode("utf-8")
    except UnicodeDecodeError as exc:
        if spec is None:
            how = "read with replacement characters"
        else:
            how = "parsed with '?' in place of each invalid byte"
            parsed_bytes = tree_sitter_bytes(data)
        result.issues.append(ParseIssue(path, f"invalid UTF-8 at byte {exc.start}; {how}"))
    if spec is None:
        result.symbols = line_chunks(path, data, language, role, module, limits)
        return result
    # Compile the query here, outside the guard below: a query that does not fit its grammar is
    # codebot's bug (QueryError is a ValueError) and must fail loudly, not turn every file of
    # the language into line chunks with a per-file note.
    spec.query  # noqa: B018
    if spec.preprocess is not None:  # (C++: macros blanked; the same length, lines kept)
        parsed_bytes = spec.preprocess(parsed_bytes)
    try:
        _extract(spec, path, data, parsed_bytes, role, module, limits, result)
    except ParseRefused:
        raise
    except Exception as exc:  # noqa: BLE001 - a grammar or nesting limit, a binding's error:
        # one bad file must not stop indexing (tree-sitter raised SystemError on invalid UTF-8)
        reason = f"parser failed ({exc.__class__.__name__}: {_short(exc)}); indexed as line chunks"
        result.issues.append(ParseIssue(path, reason))
        result.symbols = line_chunks(path, data, language, role, module, limits)
        result.imports = []
    return result


# --- definitions ----------------------------------------------------------------------------------


class _KindOf(dict):
    """``definition.class`` -> ``class``, ``definition.variable.mutable`` -> ``variable``; a scope
    capture -> None."""

    def __missing__(self, cap: str) -> str | None:
        kind = None if cap.startswith("scope.") else cap.split(".")[1]
        self[cap] = kind
        return kind


_KIND = _KindOf()
# Captures whose ALL_CAPS names are constants (not Rust's `static mut`, the mutable capture).
_BY_CASE = frozenset(("definition.variable", "scope.value"))


def _short(exc: BaseException, limit: int = 200) -> str:
    text = str(exc)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _decode(b: bytes) -> str:
    return b.decode("utf-8", "replace")


def _line(node: Node) -> int:
    return node.start_point[0] + 1


def _extract(
    spec: LanguageSpec,
    path: str,
    data: bytes,
    parsed_bytes: bytes,
    role: str,
    module: str,
    limits: ChunkLimits,
    result: FileResult,
) -> None:
    budget = Budget(MAX_PARSE_SECONDS)
    tree = bounded_tree(spec, parsed_bytes, budget)
    # Items wrapped in a macro the grammar reads as tokens: parsed again with the wrappers
    # blanked (lines and byte offsets unchanged), nested wrappers one level a round.
    for _ in range(3 if spec.unwrap is not None else 0):
        unwrapped = spec.unwrap(tree.root_node, parsed_bytes)
        if unwrapped is None:
            break
        parsed_bytes = unwrapped
        tree = bounded_tree(spec, parsed_bytes, budget)
    root = tree.root_node
    if root.has_error:
        result.issues.extend(_syntax_errors(spec, path, root))

    # One pass of the query. `captures` (lists of nodes in document order) costs half of what
    # `matches` (a dict per match) does on call-heavy code. Captures come unordered, so they
    # are sorted, and a definition is paired with its name by position: the first unused @name
    # inside it (see languages/__init__).
    caps = query_captures(spec, root, budget)
    for node in sorted(caps.get("import", ()), key=_start_byte):
        result.imports.extend(spec.imports(node))
    found: list[tuple[int, int, int, str, Node]] = []  # start, -end, capture order, capture, node
    rank = spec.capture_rank
    for cap, nodes in caps.items():
        if cap.startswith(("definition.", "scope.")):
            found.extend((n.start_byte, -n.end_byte, rank[cap], cap, n) for n in nodes)
    found.sort(key=_position)
    names = sorted(caps.get("name", ()), key=_start_byte)
    name_starts = [n.start_byte for n in names]
    used = [False] * len(names)
    defs: list[tuple] = []  # (outer start, -outer end, order, capture, node, name, outer node)
    last_key = None
    for start, neg_end, _, cap, node in found:
        if (start, neg_end) == last_key:
            continue  # the same node under two captures: the one earlier in the query wins
        last_key = (start, neg_end)
        i = _name_of(node, names, name_starts, used, start, -neg_end)
        if i is None:
            continue
        used[i] = True
        outer = spec.outer(node)
        defs.append((outer.start_byte, -outer.end_byte, len(defs), cap, node, names[i], outer))
    defs.sort(key=_position)  # outer before inner
    # A binding that is an import (`const x = require('x')`) is an import, not a variable.
    imported = {(n.start_byte, n.end_byte) for n in caps.get("import", ())}
    call_nodes = caps.get("call", [])
    # `@call.expr`: a whole call whose callee text has no node of its own (Java's
    # `this.repo.save(x)` has `this.repo` and `save` as siblings): record from its start.
    receivers = {(n.start_byte, n.end_byte) for n in caps.get("call.expr", ())}

    symbols: list[Symbol] = []
    spans: list[tuple[int, int]] = []  # byte span of each symbol, in symbol order
    # Open definitions and scopes: (end byte, id, name, is a type, id of the nearest symbol,
    # inside a function's body).
    stack: list[tuple[int, str, str, bool, str | None, bool]] = []
    ids: dict[str, int] = {}
    values: list[tuple[int, str]] = []  # (symbol index, qualified name) of constants, variables
    language = spec.name
    for k, (start, neg_end, _, cap, node, name_node, outer) in enumerate(defs):
        end = -neg_end
        while stack and stack[-1][0] <= start:
            stack.pop()
        kind = _KIND[cap]
        if cap == "scope.value" and not (k + 1 < len(defs) and defs[k + 1][0] < end):
            kind = "variable"  # `const api = {...}` prefixes its methods; with none, a variable
        if kind in VALUE_KINDS:
            if not _plain_value(defs, k, end, stack, imported, node):
                continue
            if cap in _BY_CASE and _all_caps(_decode(name_node.text)):
                kind = "constant"
        owner, name = spec.owner(node, _decode(name_node.text))
        if stack:
            prefix, parent_name, parent_is_type, parent_symbol, in_body = stack[-1][1:]
        else:
            prefix, parent_name, parent_is_type, parent_symbol, in_body = (
                module,
                None,
                False,
                None,
                False,
            )
        for part in owner:
            prefix = f"{prefix}.{part}" if prefix else part
        qualified = f"{prefix}.{name}" if prefix else name
        if kind is None:  # a scope: nests ids, makes no symbol
            stack.append((end, qualified, name, cap == "scope.type", parent_symbol, in_body))
            continue
        class_name = owner[-1] if owner else parent_name if parent_is_type else None
        if kind == "function" and class_name is not None:
            kind = "method"
        if kind in VALUE_KINDS:  # named after the definitions: `f = wrap(f)` above `def f`
            values.append((len(symbols), qualified))
            sym_id = qualified
        else:
            n = ids.get(qualified, 0) + 1
            ids[qualified] = n
            sym_id = qualified if n == 1 else f"{qualified}#{n}"
        is_function = kind in FUNCTION_KINDS
        is_type = kind in TYPE_KINDS
        # Leading documentation and attributes that are siblings of the node (Elixir's `@doc`,
        # Zig's `pub` and `///`): the symbol's lines and span start there.
        first = outer
        if spec.lead is not None and kind not in VALUE_KINDS:
            first = spec.lead(node) or outer
        symbols.append(
            Symbol(
                id=sym_id,
                name=name,
                kind=kind,
                language=language,
                path=path,
                start_line=first.start_point[0] + 1,
                end_line=end_line(outer),
                role=role,
                class_name=class_name,
                parent=parent_symbol,
                signature=squash(_decode(data[start : _signature_end(spec, node, kind, data)])),
                parameters=spec.parameters(node) if is_function else (),
                decorators=tuple(spec.decorators(node)),
                return_type=spec.return_type(node) if is_function else None,
                docstring=spec.docstring(node),
                bases=(
                    tuple(spec.bases(node))
                    if is_type
                    else tuple(spec.scope_bases(node))
                    if is_function
                    else ()
                ),
                content_hash=content_hash(data[start:end]),
            )
        )
        spans.append((min(start, first.start_byte), end))
        if kind not in VALUE_KINDS:  # a value holds no definition (see _plain_value)
            stack.append((end, sym_id, name, is_type, sym_id, in_body or is_function))
    # A constant or variable takes its plain id only when no definition has it: a function's id
    # never depends on the values around it.
    for i, qualified in values:
        n = ids.get(qualified, 0) + 1
        ids[qualified] = n
        if n > 1:
            object.__setattr__(symbols[i], "id", f"{qualified}#{n}")

    # Receivers' types, where the language reads them (one cache of scopes per file).
    annotate = partial(spec.receivers.annotate, cache={}) if spec.receivers is not None else None
    per_symbol, outside = _assign_calls(call_nodes, spans, data, receivers, annotate)
    for sym, found_calls in zip(symbols, per_symbol):
        if found_calls:  # frozen, but still ours: setting the field beats rebuilding the symbol
            object.__setattr__(sym, "calls", found_calls)
    result.symbols = symbols
    top_spans = [(*spans[i], sym.docstring) for i, sym in enumerate(symbols) if sym.parent is None]
    chunks = module_chunks(path, data, spec.name, role, module, root, top_spans, limits)
    if outside and chunks:
        _chunk_calls(chunks, outside)
    result.symbols += chunks


def _signature_end(spec: LanguageSpec, node: Node, kind: str, data: bytes) -> int:
    """Where a symbol's signature ends: the language's rule; a value's first line at most (a
    table's signature is its name, not its rows)."""
    end = spec.signature_end(node)
    if kind in VALUE_KINDS:
        # the declaration's line: past modifiers on lines of their own (`@OptIn(X::class)\n
        # public val SSE: ClientPlugin<SSEConfig> = ...`, Java's annotated fields)
        first = node.child(0) if node.child_count else None
        begin = first.end_byte if first is not None and first.type == "modifiers" else 0
        begin = max(node.start_byte, begin)
        if end <= begin:
            end = node.end_byte
        nl = data.find(b"\n", begin, end)
        if nl >= 0:
            end = nl
    return end


def _plain_value(
    defs: list[tuple], k: int, end: int, stack: list[tuple], imported: set, node: Node
) -> bool:
    """Whether the constant or variable ``defs[k]`` is a symbol: bound at module level or in a
    type's body (a function's locals are its own code), not an import, and holding no definition
    (`const api = createApp({ setup() {...} })`: the functions inside are the symbols)."""
    if stack and stack[-1][5]:
        return False
    if (node.start_byte, node.end_byte) in imported:
        return False
    return k + 1 >= len(defs) or defs[k + 1][0] >= end


def _all_caps(name: str) -> bool:
    """``MAX_SIZE``, ``_SOURCE_BASH``, ``HTTP2``: a constant by convention."""
    return name.upper() == name and any(c.isalpha() for c in name)


def _chunk_calls(chunks: list[Symbol], calls: list[Call]) -> None:
    """Module-level calls go to the chunk holding their line (or the last chunk before it):
    ``main()`` at the bottom of a script, ``app = create_app()``, a registration at import."""
    starts = [c.start_line for c in chunks]
    found: list[list[Call]] = [[] for _ in chunks]
    for call in calls:
        found[max(bisect_right(starts, call.line) - 1, 0)].append(call)
    for chunk, mine in zip(chunks, found):
        if mine:
            object.__setattr__(chunk, "calls", tuple(mine))


def _name_of(
    node: Node, names: list[Node], starts: list[int], used: list[bool], start: int, end: int
) -> int | None:
    """Index of the definition's name among the @name captures: a direct child if one of the
    first unused names inside it is (a decorator or nested type may come first), else the first.
    An empty or missing name (error recovery) gives no symbol."""
    first = None
    i = bisect_left(starts, start)
    looked = 0
    while i < len(names) and names[i].start_byte < end and looked < 4:
        if not used[i]:
            looked += 1
            if first is None:
                first = i
            if names[i].parent == node:
                first = i
                break
        i += 1
    if (
        first is None
        or names[first].end_byte > end
        or names[first].end_byte == names[first].start_byte
    ):
        return None
    return first


def _assign_calls(
    call_nodes: list[Node],
    spans: list[tuple[int, int]],
    data: bytes,
    receivers: set[tuple[int, int]],
    annotate: Callable[[Node, str], str] | None = None,
) -> tuple[list[tuple[Call, ...]], list[Call]]:
    """Give each call to the innermost symbol around it; the calls outside every symbol (module
    level code) come back apart, in order. ``annotate`` writes the receiver's type into a call's
    text where the language reads it (see languages/receivers.py): the receiver's type or what
    a name holds, and (Java, Kotlin, C#) the arguments' types, ``get/(Class)``, for choosing
    among overloads. An empty text drops the call: a node the query captures in case it makes
    one (Python's loop over a value makes the iteration protocol's calls only on an instance).

    Calls are ordered by start, outer first on a tie (`a.get` and `a.get(k).map` start at one
    byte and come from the query in no fixed order). Hot loop: one pass, locals only.
    """
    found: list[list[Call]] = [[] for _ in spans]
    starts = list(map(_start_byte, call_nodes))
    ends = list(map(_end_byte, call_nodes))
    # One integer key per call, sorted in C: start ascending, then end descending.
    order = sorted(range(len(call_nodes)), key=list(map(_order_key, starts, ends)).__getitem__)
    # Lines of all calls at once: count the newlines before each start, in numpy.
    newlines = np.flatnonzero(np.frombuffer(data, dtype=np.uint8) == 10)
    lines = (np.searchsorted(newlines, np.array(starts, dtype=np.int64)) + 1).tolist()
    stack: list[tuple[int, int]] = []  # (end, symbol index)
    outside: list[Call] = []
    n_spans = len(spans)
    j = 0
    next_start = spans[0][0] if spans else _NEVER
    for i in order:
        s = starts[i]
        while next_start <= s:
            while stack and stack[-1][0] <= next_start:
                stack.pop()
            stack.append((spans[j][1], j))
            j += 1
            next_start = spans[j][0] if j < n_spans else _NEVER
        while stack and stack[-1][0] <= s:
            stack.pop()
        start = s
        if receivers:
            parent = call_nodes[i].parent
            if parent is not None and (parent.start_byte, parent.end_byte) in receivers:
                start = parent.start_byte
        raw = data[start : ends[i]].decode("utf-8", "replace")
        if len(raw) > _MAX_CALL_TEXT or "\n" in raw or "  " in raw:
            raw = squash(raw, _MAX_CALL_TEXT)
        if annotate is not None:
            raw = annotate(call_nodes[i], raw)  # the receiver's type, where a reader sees it
            if not raw:
                continue  # a node the language captured that makes no call (a plain loop)
        if stack:
            found[stack[-1][1]].append(Call(raw, lines[i]))
        else:
            outside.append(Call(raw, lines[i]))
    return [tuple(c) for c in found], outside


_NEVER = float("inf")


def _order_key(start: int, end: int) -> int:
    return (start << 32) - end


_start_byte = attrgetter("start_byte")
_end_byte = attrgetter("end_byte")
_position = itemgetter(0, 1, 2)


def _syntax_errors(spec: LanguageSpec, path: str, root: Node) -> list[ParseIssue]:
    issues: list[ParseIssue] = []
    stack = [root]
    while stack and len(issues) < _MAX_ERRORS_REPORTED:
        node = stack.pop()
        if node.is_error or node.is_missing:
            what = f"missing {node.type}" if node.is_missing else "syntax error"
            where = f"lines {_line(node)}-{end_line(node)}"
            issues.append(ParseIssue(path, f"{what} ({where})", _line(node)))
        elif node.has_error:
            stack.extend(reversed(node.children))
    return issues


# --- many files -----------------------------------------------------------------------------------


@dataclass
class ParseReport:
    """What a run over a tree found: parsed files, skipped files, and problems worth reporting."""

    root: str
    files: list[FileResult]
    skipped: list[Skipped]
    repo: Repo | None = None
    commit: str | None = None  # the commit the files were read from; None: the work tree
    selector: Selector | None = None  # the rules that picked the files (an update reuses them)
    notes: list[str] = field(default_factory=list)  # how the parse went (a worker that died)

    @property
    def issues(self) -> list[ParseIssue]:
        return [issue for f in self.files for issue in f.issues]

    def to_dict(self) -> dict:
        return {
            "root": self.root,
            "counts": self.counts(),
            "files": [f.to_dict() for f in self.files],
            "skipped": [{"path": s.path, "reason": s.reason} for s in self.skipped],
        }

    def counts(self) -> dict[str, int]:
        symbols = [s for f in self.files for s in f.symbols]
        return {
            "files": len(self.files),
            "symbols": len(symbols),
            "chunks": sum(1 for s in symbols if s.kind == "chunk"),
            "skipped": len(self.skipped),
            "issues": len(self.issues),
        }

    def to_text(self) -> str:
        """One line per symbol: where, kind, id."""
        return "".join(
            f"{s.path}:{s.start_line}-{s.end_line}  {s.kind:<9} {s.id}\n"
            for f in self.files
            for s in f.symbols
        )

    def summary(self, quiet_when_clean: bool = False) -> str:
        """Counts, then every skipped file and every problem with its reason (for stderr)."""
        if quiet_when_clean and not self.skipped and not self.issues and not self.notes:
            return ""
        c = self.counts()
        lines = [
            f"{c['files']} files, {c['symbols']} symbols ({c['chunks']} chunks), "
            f"{c['skipped']} skipped, {c['issues']} problems",
            *(f"  skipped {printable(s.path)}: {s.reason}" for s in self.skipped),
            *(f"  problem {printable(issue.path)}: {issue.reason}" for issue in self.issues),
            *(f"  note: {note}" for note in self.notes),
        ]
        return "\n".join(lines) + "\n"


@paused_gc()
def parse_path(
    where: Workspace | str | os.PathLike,
    config: Config,
    progress: Callable[[int, int, str], None] | None = None,
    on_file: Callable[[FileResult, bytes], None] | None = None,
    at: str | None = None,
) -> ParseReport:
    """Parse every file :func:`~codebot.parse.files.select_files` picks under ``where`` (in the
    work tree, or in commit ``at``).

    A file that cannot be read or is not text is skipped with its reason; a file that parses
    badly keeps what could be extracted and carries the problem in its ``issues``. ``on_file``
    sees each parsed file with its bytes as soon as it is done (the indexer streams them on).
    """
    return _parse_selection(select_files(where, config, at), config, progress, on_file)


def _parse_selection(
    selection: Selection,
    config: Config,
    progress: Callable[[int, int, str], None] | None,
    on_file: Callable[[FileResult, bytes], None] | None,
) -> ParseReport:
    limits = ChunkLimits(config.chunk_max_chars, config.chunk_max_lines)
    results: list[FileResult] = []
    skipped = list(selection.skipped)
    modules = module_ids([f.path for f in selection.files])
    total = len(selection.files)
    for n, source in enumerate(selection.files, 1):
        if progress is not None:
            progress(n, total, source.path)
        result, data = parse_file(selection.selector, source, config, modules[source.path], limits)
        if isinstance(result, Skipped):
            skipped.append(result)
            continue
        results.append(result)
        if on_file is not None:
            on_file(result, data)
    skipped.sort(key=lambda s: s.path)
    return ParseReport(
        str(selection.root), results, skipped, selection.repo, selection.commit, selection.selector
    )


def parse_file(
    selector: Selector, source: SourceFile, config: Config, module: str, limits: ChunkLimits
) -> tuple[FileResult | Skipped, bytes]:
    """Read and parse one selected file; a file that cannot be read, is not text, is over a
    resource bound or makes the parser fail outright comes back as Skipped with the reason."""
    try:
        data = selector.read(source)
    except OSError as exc:
        return Skipped(source.path, f"cannot read: {exc.strerror or exc}", True), b""
    reason = content_skip_reason(data, config)
    if reason is not None:
        return Skipped(source.path, reason, True), data
    try:
        result = parse_source(source.path, data, source.language, source.role, limits, module)
    except ParseRefused as exc:
        return Skipped(source.path, exc.reason, True), data
    except Exception as exc:  # noqa: BLE001 - one hostile file never stops indexing
        return Skipped(
            source.path, f"parser failed ({type(exc).__name__}: {_short(exc)})", True
        ), data
    return result, data


def module_ids(paths: list[str]) -> dict[str, str]:
    """Module ids for all paths, unique: a clash (``a.js`` and ``a.ts``) keeps the extension;
    a clash that keeping it makes (``a.d``, ``a.stp`` and ``a.d.expected``, as in CPython's
    tests) takes the whole path. Two files with one id would give two symbols one key."""
    ids = {p: module_id(p) for p in paths}
    widen = (
        lambda p, mid: f"{mid}.{os.path.splitext(p)[1].lstrip('.')}" if "." in p else mid,
        lambda p, mid: p.replace("\\", "/"),  # paths are unique: the last word
    )
    for step in widen:
        seen: dict[str, int] = {}
        for mid in ids.values():
            seen[mid] = seen.get(mid, 0) + 1
        clashing = [p for p, mid in ids.items() if seen[mid] > 1]
        if not clashing:
            break
        for p in clashing:
            ids[p] = step(p, ids[p])
    return ids

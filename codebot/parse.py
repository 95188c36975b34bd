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
from bisect import bisect_right
from dataclasses import dataclass, replace

from tree_sitter import Node, QueryCursor

from .languages import get_spec
from .languages.base import LanguageSpec, squash
from .model import TYPE_KINDS, Call, FileResult, Import, ParseIssue, Symbol

__all__ = ["ChunkLimits", "module_id", "parse_source", "content_hash"]

_MAX_CALL_TEXT = 120
_MAX_ERRORS_REPORTED = 5


@dataclass(frozen=True)
class ChunkLimits:
    """Size bounds of module chunks, in characters and lines."""

    max_chars: int = 1500
    max_lines: int = 60


def content_hash(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=12).hexdigest()


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
    limits: ChunkLimits = ChunkLimits(),
    module: str | None = None,
) -> FileResult:
    """Extract the symbols, imports and chunks of one file's bytes. Never raises on bad input."""
    result = FileResult(path=path, language=language, role=role, content_hash=content_hash(data))
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        result.issues.append(ParseIssue(path, f"invalid UTF-8 at byte {exc.start}; decoded with replacement"))
    module = module if module is not None else module_id(path)
    spec = get_spec(language)
    if spec is None:
        result.symbols = _line_chunks(path, data, language, role, module, limits)
        return result
    try:
        _extract(spec, path, data, role, module, limits, result)
    except (RecursionError, ValueError, RuntimeError) as exc:  # a grammar or nesting limit
        result.issues.append(ParseIssue(path, f"parser failed ({exc.__class__.__name__}: {exc}); indexed as line chunks"))
        result.symbols = _line_chunks(path, data, language, role, module, limits)
        result.imports = []
    return result


# --- definitions ----------------------------------------------------------------------------------


@dataclass(slots=True)
class _Open:
    """A definition or scope on the sweep's stack."""

    end: int
    id: str
    name: str
    is_type: bool  # its direct function children are methods
    symbol: int | None  # index into the symbol list, None for a scope


def _line(node: Node) -> int:
    return node.start_point[0] + 1


def _end_line(node: Node) -> int:
    row, col = node.end_point
    return row + (1 if col > 0 or row == node.start_point[0] else 0)


def _extract(
    spec: LanguageSpec,
    path: str,
    data: bytes,
    role: str,
    module: str,
    limits: ChunkLimits,
    result: FileResult,
) -> None:
    tree = spec.parser().parse(data)
    root = tree.root_node
    if root.has_error:
        result.issues.extend(_syntax_errors(spec, path, root))

    # (start, -end, order, what, node, name node). Definitions sort before the calls they contain.
    events: list[tuple] = []
    seen_defs: set[tuple[int, int]] = set()
    for _, caps in QueryCursor(spec.query).matches(root):
        for cap, nodes in caps.items():
            if cap.startswith("definition.") or cap.startswith("scope."):
                node = nodes[0]
                key = (node.start_byte, node.end_byte)
                if key in seen_defs:
                    break
                seen_defs.add(key)
                name = caps.get("name")
                if not name:
                    break
                outer = spec.outer(node)
                events.append((outer.start_byte, -outer.end_byte, 0, cap, node, name[0]))
                break
            if cap == "call":
                for node in nodes:
                    events.append((node.start_byte, -node.end_byte, 1, cap, node, None))
            elif cap == "import":
                for node in nodes:
                    result.imports.extend(spec.imports(node))
    events.sort(key=lambda e: (e[0], e[1], e[2]))

    symbols: list[Symbol] = []
    calls: dict[int, list[Call]] = {}
    stack: list[_Open] = []
    ids: dict[str, int] = {}
    top_spans: list[tuple[int, int]] = []  # byte spans of symbols not inside another symbol
    for start, neg_end, _, cap, node, name_node in events:
        while stack and stack[-1].end <= start:
            stack.pop()
        if cap == "call":
            for entry in reversed(stack):
                if entry.symbol is not None:
                    call_text = squash(node.text.decode("utf-8", "replace"), _MAX_CALL_TEXT)
                    calls.setdefault(entry.symbol, []).append(Call(call_text, _line(node)))
                    break
            continue
        kind = cap.split(".", 1)[1]
        owner, name = spec.owner(node, name_node.text.decode("utf-8", "replace"))
        parent = stack[-1] if stack else None
        prefix = parent.id if parent else module
        for part in owner:
            prefix = f"{prefix}.{part}" if prefix else part
        qualified = f"{prefix}.{name}" if prefix else name
        if cap.startswith("scope."):
            stack.append(_Open(-neg_end, qualified, name, kind == "type", None))
            continue
        class_name = None
        if owner:
            class_name = owner[-1]
        elif parent is not None and parent.is_type:
            class_name = parent.name
        if kind == "function" and class_name is not None:
            kind = "method"
        n = ids.get(qualified, 0) + 1
        ids[qualified] = n
        sym_id = qualified if n == 1 else f"{qualified}#{n}"
        outer = spec.outer(node)
        parent_symbol = next((e for e in reversed(stack) if e.symbol is not None), None)
        symbols.append(
            Symbol(
                id=sym_id,
                name=name,
                kind=kind,
                language=spec.name,
                path=path,
                start_line=_line(outer),
                end_line=_end_line(outer),
                role=role,
                class_name=class_name,
                parent=parent_symbol.id if parent_symbol else None,
                signature=squash(data[outer.start_byte : spec.signature_end(node)].decode("utf-8", "replace")),
                parameters=spec.parameters(node) if kind in ("function", "method") else (),
                decorators=tuple(spec.decorators(node)),
                return_type=spec.return_type(node) if kind in ("function", "method") else None,
                docstring=spec.docstring(node),
                bases=tuple(spec.bases(node)) if kind in TYPE_KINDS else (),
                content_hash=content_hash(data[outer.start_byte : outer.end_byte]),
            )
        )
        if parent_symbol is None:
            top_spans.append((outer.start_byte, outer.end_byte))
        stack.append(_Open(outer.end_byte, sym_id, name, kind in TYPE_KINDS, len(symbols) - 1))

    for index, found in calls.items():
        symbols[index] = replace(symbols[index], calls=tuple(found))
    chunks = _module_chunks(path, data, spec.name, role, module, root, top_spans, limits)
    result.symbols = symbols + chunks


def _syntax_errors(spec: LanguageSpec, path: str, root: Node) -> list[ParseIssue]:
    issues: list[ParseIssue] = []
    stack = [root]
    while stack and len(issues) < _MAX_ERRORS_REPORTED:
        node = stack.pop()
        if node.is_error or node.is_missing:
            what = f"missing {node.type}" if node.is_missing else "syntax error"
            issues.append(ParseIssue(path, f"{what} (lines {_line(node)}-{_end_line(node)})", _line(node)))
        elif node.has_error:
            stack.extend(reversed(node.children))
    return issues


# --- chunks ---------------------------------------------------------------------------------------


def _chunk_symbol(
    path: str, language: str, role: str, module: str, n: int, start_line: int, end_line: int, body: bytes
) -> Symbol:
    name = "<module>"
    base = f"{module}.{name}" if module else name
    return Symbol(
        id=base if n == 1 else f"{base}#{n}",
        name=name,
        kind="chunk",
        language=language,
        path=path,
        start_line=start_line,
        end_line=end_line,
        role=role,
        signature=squash(body.decode("utf-8", "replace"), 120),
        content_hash=content_hash(body),
    )


def _module_chunks(
    path: str,
    data: bytes,
    language: str,
    role: str,
    module: str,
    root: Node,
    top_spans: list[tuple[int, int]],
    limits: ChunkLimits,
) -> list[Symbol]:
    """The code outside top-level definitions, as chunks of bounded size."""
    top_spans.sort()
    ends = [e for _, e in top_spans]
    pieces: list[_Piece | None] = []  # None marks a definition in between: chunks never span one
    _collect(root, top_spans, ends, pieces, limits, data, depth=0)
    out: list[Symbol] = []
    group: list[_Piece] = []

    def flush() -> None:
        if group:
            first, last = group[0], group[-1]
            body = data[first[0] : last[1]]
            if body.strip():
                n = len(out) + 1
                out.append(_chunk_symbol(path, language, role, module, n, first[2], last[3], body))
            group.clear()

    for piece in pieces:
        if piece is None:
            flush()
            continue
        if group and piece[1] - group[0][0] > limits.max_chars:
            flush()
        group.append(piece)
    flush()
    return out


# (start byte, end byte, first line, last line)
_Piece = tuple[int, int, int, int]


def _collect(
    node: Node,
    spans: list[tuple[int, int]],
    ends: list[int],
    pieces: list[_Piece | None],
    limits: ChunkLimits,
    data: bytes,
    depth: int,
) -> None:
    """Append the pieces of ``node``'s children that no definition covers, splitting big ones."""
    for child in node.children:
        s, e = child.start_byte, child.end_byte
        i = bisect_right(ends, s)  # the first definition that ends after this child starts
        overlap = i < len(spans) and spans[i][0] < e
        if overlap and spans[i][0] <= s and e <= spans[i][1]:
            if pieces and pieces[-1] is not None:
                pieces.append(None)
        elif overlap or e - s > limits.max_chars:
            if child.child_count and depth < 50:
                _collect(child, spans, ends, pieces, limits, data, depth + 1)
            elif overlap:
                pieces.append(None)
            else:
                pieces.extend(_split_lines(data, s, e, child.start_point[0] + 1, limits))
        else:
            pieces.append((s, e, child.start_point[0] + 1, _end_line(child)))


def _split_lines(
    data: bytes, start: int, end: int, line: int, limits: ChunkLimits
) -> list[_Piece | None]:
    out: list[_Piece | None] = []
    pos = start
    while pos < end:
        stop = min(end, pos + limits.max_chars)
        if stop < end:
            nl = data.rfind(b"\n", pos, stop)
            if nl > pos:
                stop = nl + 1
        lines = data.count(b"\n", pos, stop)
        last = line + max(0, lines - (1 if data[stop - 1 : stop] == b"\n" else 0))
        out.extend(((pos, stop, line, last), None))  # an oversized piece is a chunk of its own
        line += lines
        pos = stop
    return out


def _line_chunks(
    path: str, data: bytes, language: str, role: str, module: str, limits: ChunkLimits
) -> list[Symbol]:
    """A whole file as chunks of lines: for languages without a grammar, and as a fallback."""
    lines = data.splitlines(keepends=True)
    out: list[Symbol] = []
    i = 0
    while i < len(lines):
        j, size = i, 0
        while j < len(lines) and j - i < limits.max_lines and size + len(lines[j]) <= limits.max_chars * 2:
            size += len(lines[j])
            j += 1
        if j == i:
            j = i + 1
        elif j < len(lines):
            # Prefer to cut at a blank line in the last third of the window.
            for k in range(j - 1, i + (j - i) * 2 // 3, -1):
                if not lines[k].strip():
                    j = k + 1
                    break
        body = b"".join(lines[i:j])
        if body.strip():
            out.append(_chunk_symbol(path, language, role, module, len(out) + 1, i + 1, j, body))
        i = j
    return out

"""Parse one file into symbols: definitions from a tree-sitter query, the rest as chunks.

One query run per file does the heavy lifting in C; Python then makes a single sweep over the
captures in document order, keeping a stack of open definitions to derive nesting, ids and the
owner of each call. Code outside any definition becomes chunks (cAST style: split oversized nodes
at their children, merge small neighbours), and a file without a grammar becomes line chunks, so
nothing in a file is unsearchable.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, replace

from tree_sitter import Node, QueryCursor

from .chunks import ChunkLimits, content_hash, end_line, line_chunks, module_chunks
from .languages import get_spec
from .languages.base import LanguageSpec, squash
from .model import TYPE_KINDS, Call, FileResult, ParseIssue, Symbol

__all__ = ["module_id", "parse_source"]

_MAX_CALL_TEXT = 120
_MAX_ERRORS_REPORTED = 5
_DEFAULT_LIMITS = ChunkLimits()


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
    """Extract the symbols, imports and chunks of one file's bytes. Never raises on bad input."""
    result = FileResult(path=path, language=language, role=role, content_hash=content_hash(data))
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        reason = f"invalid UTF-8 at byte {exc.start}; read with replacement characters"
        result.issues.append(ParseIssue(path, reason))
    module = module if module is not None else module_id(path)
    spec = get_spec(language)
    if spec is None:
        result.symbols = line_chunks(path, data, language, role, module, limits)
        return result
    try:
        _extract(spec, path, data, role, module, limits, result)
    except (RecursionError, ValueError, RuntimeError) as exc:  # a grammar or nesting limit
        reason = f"parser failed ({exc.__class__.__name__}: {exc}); indexed as line chunks"
        result.issues.append(ParseIssue(path, reason))
        result.symbols = line_chunks(path, data, language, role, module, limits)
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


def _decode(b: bytes) -> str:
    return b.decode("utf-8", "replace")


def _line(node: Node) -> int:
    return node.start_point[0] + 1


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
                    call_text = squash(_decode(node.text), _MAX_CALL_TEXT)
                    calls.setdefault(entry.symbol, []).append(Call(call_text, _line(node)))
                    break
            continue
        kind = cap.split(".", 1)[1]
        owner, name = spec.owner(node, _decode(name_node.text))
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
                end_line=end_line(outer),
                role=role,
                class_name=class_name,
                parent=parent_symbol.id if parent_symbol else None,
                signature=squash(_decode(data[outer.start_byte : spec.signature_end(node)])),
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
    chunks = module_chunks(path, data, spec.name, role, module, root, top_spans, limits)
    result.symbols = symbols + chunks


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

"""Chunks: code outside any definition, so nothing in a file is unsearchable.

Module-level code is cut cAST style: walk the syntax tree, keep the children that no definition
covers, split a child that is too big at its own children (or at line ends for a leaf), and merge
small neighbours up to a size bound without crossing a definition. A file without a grammar is cut
into windows of lines, preferring blank lines as cut points.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass

from tree_sitter import Node

from codebot.core.model import Symbol
from codebot.languages.base import squash

__all__ = ["ChunkLimits", "content_hash", "module_chunks", "line_chunks", "end_line"]

CHUNK_NAME = "<module>"


@dataclass(frozen=True)
class ChunkLimits:
    """Size bounds of chunks, in characters and lines."""

    max_chars: int = 1500
    max_lines: int = 60


def content_hash(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=12).hexdigest()


def end_line(node: Node) -> int:
    """The 1-based last line of a node (a node ending at column 0 ends on the line before)."""
    row, col = node.end_point
    return row + (1 if col > 0 or row == node.start_point[0] else 0)


def _chunk(
    path: str, language: str, role: str, module: str, n: int, first: int, last: int, body: bytes
) -> Symbol:
    base = f"{module}.{CHUNK_NAME}" if module else CHUNK_NAME
    return Symbol(
        id=base if n == 1 else f"{base}#{n}",
        name=CHUNK_NAME,
        kind="chunk",
        language=language,
        path=path,
        start_line=first,
        end_line=last,
        role=role,
        signature=squash(body.decode("utf-8", "replace"), 120),
        content_hash=content_hash(body),
    )


def module_chunks(
    path: str,
    data: bytes,
    language: str,
    role: str,
    module: str,
    root: Node,
    top_spans: list[tuple[int, int, str | None]],
    limits: ChunkLimits,
) -> list[Symbol]:
    """The code outside top-level definitions, as chunks of bounded size.

    Works on the gaps between definitions: a small gap is one chunk as it is (no tree walk at
    all, the common case); only a gap over the bound is cut along the syntax tree.
    """
    out: list[Symbol] = []
    lines = _LineCounter(data)
    pos = 0
    for start, end, doc in sorted(top_spans) + [(len(data), len(data), None)]:
        if start > pos:
            pieces = _gap_pieces(root, data, pos, start, limits)
            if pieces and doc:
                # The comment above a definition is its docstring: no chunk of its own.
                a, b = pieces[-1]
                cut = _doc_comment_start(data[a:b], doc)
                if cut is not None:
                    pieces[-1] = (a, a + cut)
                    if not data[a : a + cut].strip():
                        pieces.pop()
                    else:
                        pieces[-1] = (a, a + len(data[a : a + cut].rstrip()))
            for a, b in pieces:
                if _bare(data[a:b]):
                    continue
                n = len(out) + 1
                first, last = lines.line_of(a), lines.line_of(b - 1)
                out.append(_chunk(path, language, role, module, n, first, last, data[a:b]))
        pos = max(pos, end)
    return out


# What is left of a statement once the names it binds are symbols: `var` and `,` of `var a = 1,
# b = 2;`, the `const (` and `)` around Go's grouped constants, a closing `});`.
_BARE = re.compile(rb"[^\w]*(?:(?:var|let|const|export|static|end)[^\w]*)?")


def _bare(piece: bytes) -> bool:
    """A piece with nothing to search for: punctuation, or one declaration keyword."""
    return len(piece) <= 16 and _BARE.fullmatch(piece) is not None


_COMMENT_LINE = re.compile(rb"^\s*(#|//|/\*|\*|--|;|<!--)")


def _doc_comment_start(piece: bytes, doc: str) -> int | None:
    """Offset where ``piece`` ends in a block of comment lines holding ``doc``'s first line."""
    first = doc.strip().splitlines()[0].strip().encode("utf-8", "replace") if doc.strip() else b""
    if not first:
        return None
    lines = piece.splitlines(keepends=True)
    offset = len(piece)
    for line in reversed(lines):
        if line.strip() and not _COMMENT_LINE.match(line):
            break
        offset -= len(line)
    if offset == len(piece) or first not in piece[offset:]:
        return None
    return offset


class _LineCounter:
    """1-based line of a byte offset, for offsets asked in increasing order: O(file) in all."""

    def __init__(self, data: bytes) -> None:
        self.data, self.pos, self.line = data, 0, 1

    def line_of(self, offset: int) -> int:
        if offset < self.pos:  # rare: restart rather than keep an index of every line
            self.pos, self.line = 0, 1
        self.line += self.data.count(b"\n", self.pos, offset)
        self.pos = offset
        return self.line


def _gap_pieces(
    root: Node, data: bytes, start: int, end: int, limits: ChunkLimits
) -> list[tuple[int, int]]:
    """Byte ranges of the chunks of one gap, trimmed of surrounding blank space."""
    gap = data[start:end]
    text = gap.strip()
    if not text:
        return []
    start += len(gap) - len(gap.lstrip())
    end -= len(gap) - len(gap.rstrip())
    if end - start <= limits.max_chars:
        return [(start, end)]
    nodes: list[Node] = []
    _nodes_within(root, start, end, nodes, 0)
    ranges: list[tuple[int, int]] = []
    for node in nodes:
        _split_node(node, data, limits, ranges, 0)
    return ranges


def _nodes_within(node: Node, start: int, end: int, out: list[Node], depth: int) -> None:
    """The largest nodes lying wholly inside [start, end)."""
    for child in node.children:
        if child.end_byte <= start or child.start_byte >= end:
            continue
        if start <= child.start_byte and child.end_byte <= end:
            out.append(child)
        elif child.child_count and depth < 64:
            _nodes_within(child, start, end, out, depth + 1)


def _split_node(
    node: Node, data: bytes, limits: ChunkLimits, out: list[tuple[int, int]], depth: int
) -> None:
    """A node within the bound as it is; a bigger one at its children, or at line ends. Pieces
    are merged with their neighbour as they come, while the two fit the bound (cAST)."""
    bound = limits.max_chars
    a, b = node.start_byte, node.end_byte
    if b - a <= bound:
        _emit(out, a, b, bound)
    elif node.child_count and depth < 64:
        for child in node.children:
            ca, cb = child.start_byte, child.end_byte
            if cb - ca <= bound:
                _emit(out, ca, cb, bound)
            else:
                _split_node(child, data, limits, out, depth + 1)
    else:
        while a < b:
            stop = min(b, a + bound)
            if stop < b:
                nl = data.rfind(b"\n", a, stop)
                stop = nl + 1 if nl > a else stop
            out.append((a, stop))
            a = stop


def _emit(out: list[tuple[int, int]], a: int, b: int, bound: int) -> None:
    if out and b - out[-1][0] <= bound:
        out[-1] = (out[-1][0], b)
    else:
        out.append((a, b))


def line_chunks(
    path: str, data: bytes, language: str, role: str, module: str, limits: ChunkLimits
) -> list[Symbol]:
    """A whole file as chunks of lines: for languages without a grammar, and as a fallback."""
    lines = data.splitlines(keepends=True)
    out: list[Symbol] = []
    i = 0
    while i < len(lines):
        j, size = i, 0
        while (
            j < len(lines)
            and j - i < limits.max_lines
            and size + len(lines[j]) <= limits.max_chars * 2
        ):
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
            out.append(_chunk(path, language, role, module, len(out) + 1, i + 1, j, body))
        i = j
    return out

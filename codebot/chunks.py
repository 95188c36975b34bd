"""Chunks: code outside any definition, so nothing in a file is unsearchable.

Module-level code is cut cAST style: walk the syntax tree, keep the children that no definition
covers, split a child that is too big at its own children (or at line ends for a leaf), and merge
small neighbours up to a size bound without crossing a definition. A file without a grammar is cut
into windows of lines, preferring blank lines as cut points.
"""

from __future__ import annotations

import hashlib
from bisect import bisect_right
from dataclasses import dataclass

from tree_sitter import Node

from .languages.base import squash
from .model import Symbol

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
                out.append(_chunk(path, language, role, module, n, first[2], last[3], body))
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
            pieces.append((s, e, child.start_point[0] + 1, end_line(child)))


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

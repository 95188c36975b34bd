"""Bounds on what one file may cost tree-sitter, so that a hostile or broken file is skipped
with the reason instead of crashing or stalling an index: valid UTF-8 for the query's
predicates, CPU time for the parse and the query, bracket nesting and the width of an error node
(the query's time grows with their square and cannot be stopped once it runs).
"""

from __future__ import annotations

import time

import numpy as np
from tree_sitter import Node, QueryCursor

from codebot.languages import get_spec
from codebot.languages.base import LanguageSpec

__all__ = [
    "MAX_ERROR_WIDTH",
    "MAX_NESTING",
    "MAX_PARSE_SECONDS",
    "Budget",
    "ParseRefused",
    "bracket_depth",
    "bounded_tree",
    "bounded_tree_or_none",
    "parse_tree",
    "query_captures",
    "tree_sitter_bytes",
]

# Per-file bound on tree-sitter's work: CPU seconds of the parsing thread for the parse and the
# query of one file. Measured on a 2-core machine: the largest file of CPython's stdlib
# (pydoc_data/topics.py, 757 KB) takes 0.12 s for the whole of parse_source, _pydecimal.py
# (229 KB) 0.07 s; random bytes parse at 10-25 us a byte (100 KB of random tokens as JavaScript:
# 2.5 s; a 999 KB random .go file was reported at 43 s). A file over the bound is skipped and
# reported, never cut short.
MAX_PARSE_SECONDS = 5.0
# Files up to this size are parsed straight from their bytes, without the progress callback
# (which costs a second, incremental parse to give the tree its bytes back: ~7% of a parse).
# The slowest 64 KB input measured (random tokens, TSX grammar) parsed in 0.56 s, far below the
# bound; the time is still checked once the parse returns.
_UNWATCHED_BYTES = 64 * 1024
# The most children one ERROR node may have before the query runs. The query's time grows with
# the square of it on bracket floods (`((((...`: 10,000 -> 0.07 s, 50,000 -> 1.7-1.9 s,
# 100,000 -> 8 s) and cannot be stopped once started. Real files stay far below: the widest
# among 13,843 files (CPython's stdlib, site-packages, node_modules, /usr/include with C++
# headers parsed as C) is 12,660.
MAX_ERROR_WIDTH = 50_000
# The deepest bracket nesting a file may have. The query's time grows with the square of the
# nesting of calls (`f(f(f(...)))` 50,000 deep: 10-45 s depending on the grammar; 4,900 deep
# at most 1.25 s, Scala's nested arrays, over all 15 grammars) and cannot be stopped. Counted on the bytes, strings and comments included, before
# parsing; real code nests a few dozen deep.
MAX_NESTING = 5_000
_BRACKET_STEP = np.zeros(256, dtype=np.int32)
_BRACKET_STEP[list(b"([{")] = 1
_BRACKET_STEP[list(b")]}")] = -1
_NOT_BRACKETS = bytes(b for b in range(256) if b not in b"()[]{}")


class ParseRefused(Exception):
    """A file over a resource bound: skipped, with ``reason``, rather than indexed in part."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class Budget:
    """A deadline in this thread's CPU time, and the progress callback that enforces it.

    tree-sitter calls it every so often while parsing (with the offset and whether an error was
    seen); returning True stops the parse. It must never raise: the binding does not check for
    an exception there (a NULL result crashes the process).
    """

    __slots__ = ("deadline", "exceeded", "seconds")

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.deadline = time.thread_time() + seconds
        self.exceeded = False

    def __call__(self, *_: object) -> bool:
        if time.thread_time() > self.deadline:
            self.exceeded = True
        return self.exceeded

    def check(self, what: str) -> None:
        if self.exceeded or time.thread_time() > self.deadline:
            raise self.refused(what)

    def refused(self, what: str) -> ParseRefused:
        return ParseRefused(f"{what} took longer than {self.seconds:g} s (CPU)")


def bracket_depth(data: bytes) -> int:
    """The deepest nesting of ``( [ {`` in ``data``; a stray closing bracket resets the count."""
    brackets = data.translate(None, _NOT_BRACKETS)  # in C, ~1 ms a MB: numpy sees only these
    if len(brackets) <= MAX_NESTING:  # cannot nest deeper than there are brackets
        return 0
    level = np.cumsum(_BRACKET_STEP[np.frombuffer(brackets, dtype=np.uint8)])
    floor = np.minimum.accumulate(np.minimum(level, 0))
    return int((level - floor).max())


def tree_sitter_bytes(data: bytes) -> bytes:
    """``data`` as tree-sitter may see it: each byte that is not valid UTF-8 becomes ``?``.

    Same length, so every offset, line and column holds for the real bytes. Query predicates
    (``#match?``, ``#eq?``) decode node text, and on invalid UTF-8 ``QueryCursor.captures``
    raised SystemError. Symbols' text (signatures, calls, chunks, hashes) still comes from the
    real bytes; only what hooks read from nodes (names, parameters) has the ``?``.
    """
    if data.isascii():
        return data
    # surrogateescape: one lone surrogate per invalid byte; encoding replaces each with one "?".
    return data.decode("utf-8", "surrogateescape").encode("utf-8", "replace")


def bounded_tree(spec: LanguageSpec, data: bytes, budget: Budget):
    """The tree of ``data`` (made valid UTF-8 by :func:`tree_sitter_bytes`) within every bound:
    nesting, then CPU time; :class:`ParseRefused` with the reason otherwise. Indexing and any
    later reading of a repository's file (``impact``'s call conditions) both go through it."""
    depth = bracket_depth(data)
    if depth > MAX_NESTING:
        raise ParseRefused(f"brackets nested {depth:,} deep (over {MAX_NESTING:,})")
    return parse_tree(spec, data, budget)


def bounded_tree_or_none(language: str, data: bytes):
    """A repository file's tree read again after indexing (``impact``), within the same bounds;
    None when the language has no grammar or the file is over a bound."""
    spec = get_spec(language)
    if spec is None:
        return None
    try:
        return bounded_tree(spec, tree_sitter_bytes(data), Budget(MAX_PARSE_SECONDS))
    except ParseRefused:
        return None


def parse_tree(spec: LanguageSpec, data: bytes, budget: Budget):
    """The tree of ``data`` (UTF-8 already made valid), within the budget."""
    parser = spec.parser()
    if len(data) <= _UNWATCHED_BYTES:
        tree = parser.parse(data)
        budget.check("parse")
        return tree
    # Only a parse from a read callback takes a progress callback. Its tree reads node text back
    # through the callback (slow, and crashes in tree-sitter 0.26.1 on a non-bytes buffer), so
    # the tree is parsed again from the bytes, reusing the first: cheap for a tree without
    # errors, a full parse at worst (within the bound, since the first one was).
    view = memoryview(data)
    try:
        first = parser.parse(lambda offset, _point: view[offset:], progress_callback=budget)
    except ValueError:  # "Parsing failed": stopped by the budget (or a parser without language)
        parser.reset()  # a halted parse would otherwise resume on the next file
        if budget.exceeded:
            raise budget.refused("parse") from None
        raise
    tree = parser.parse(data, old_tree=first)
    budget.check("parse")
    return tree


def query_captures(spec: LanguageSpec, root: Node, budget: Budget) -> dict[str, list[Node]]:
    """The query's captures over the whole tree, within the bounds.

    ``captures``' own progress callback crashes the process in tree-sitter 0.26.1 (seen on a
    50-byte Java file) and a byte range does not make a wide error node cheaper, so the tree's
    shape is checked first: see MAX_ERROR_WIDTH.
    """
    if root.has_error:
        width = _widest_error(root)
        if width > MAX_ERROR_WIDTH:
            raise ParseRefused(
                f"a syntax error spans {width:,} tokens (over {MAX_ERROR_WIDTH:,}): "
                "unbalanced brackets or not source code"
            )
    caps = QueryCursor(spec.query).captures(root)
    budget.check("query")
    return caps


def _widest_error(root: Node) -> int:
    """The most children any ERROR node has; walks only the nodes that contain an error."""
    widest = 0
    stack = [root]
    while stack:
        node = stack.pop()
        if node.is_error:
            widest = max(widest, node.child_count)
        stack.extend(c for c in node.children if c.has_error)
    return widest

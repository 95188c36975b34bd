"""``codebot map``: a repository map in the manner of Aider's, cut to a token budget.

The most important symbols' signatures, grouped by file, methods nested under their classes::

    shop/orders.py:
       6│ class OrderService:
       9│     def place(self, order_id: int, express: bool = False) -> bool:

Importance is PageRank on the call graph (a function many others call, directly or through
important callers, ranks high), personalised to a focus: the teleport vector of the power iteration
sits on the focus file's symbols (``--focus PATH``) or on a query's hits (``--focus QUERY``), so the
map shows what matters *around* the focus. A type counts its own rank and its members' (a class
whose methods the code calls everywhere is central even when nothing calls it by name). A method
is printed under its class, whose line is shown with it; a function's inner functions and Python
``@overload`` stubs are left out (the implementation stands for its set); a signature is printed
on one line, without its comments, cut at ``LINE_CHARS``.

The number of symbols shown is binary-searched: the largest prefix of the ranking whose rendered
map fits the budget. Adding a symbol never removes text (a class's line, once shown, stays), so
the count of tokens grows with the prefix, and the search is exact.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from codebot.core.errors import CodebotError
from codebot.core.model import FUNCTION_KINDS, TYPE_KINDS, is_overload_stub
from codebot.graph.analytics import call_pairs, pagerank
from codebot.query.tokens import TokenCounter

if TYPE_CHECKING:
    from codebot.core.model import Symbol
    from codebot.index.store import Index
    from codebot.query.search import Searcher

__all__ = [
    "LINE_CHARS",
    "RepoMap",
    "focus_vector",
    "rank_symbols",
    "render_map",
    "repo_map",
    "signature_line",
]

# Chunks have no signature; a module is its file's header; a module's constants and variables
# are found by name and search, and would crowd the functions and types out of a map.
_SKIP_KINDS = ("chunk", "module", "constant", "variable")
LINE_CHARS = 120  # a signature longer than this is cut (a long parameter list is one line)
# Where a line comment starts, per language (every other grammar language: //).
_HASH_COMMENTS = ("python", "ruby", "bash", "shell", "r", "perl", "elixir", "julia", "yaml")
_DASH_COMMENTS = ("lua", "haskell", "sql", "elm")


def focus_vector(index: Index, focus: str | None, searcher: Searcher | None = None) -> np.ndarray:
    """The teleport weights for ``focus``: a path (a file, or a directory prefix) puts equal weight
    on its symbols; anything else is a query, and its hits weigh by their scores."""
    n = len(index.symbols)
    p = np.zeros(n)
    if not focus:
        return p
    path = focus.strip().strip("/").removeprefix("./")
    paths = index.symbols.column("path")
    rows = [r for r, sp in enumerate(paths) if sp == path or sp.startswith(path + "/")]
    if rows:
        p[rows] = 1.0
        return p
    if searcher is None:
        from codebot.query.search import Searcher

        searcher = Searcher(index)
    for hit in searcher.search(focus, k=10):
        p[index.by_id[hit.id]] += max(hit.score, 1e-9)
    return p


def _owner(symbols: Any, index: Index, row: int) -> int | None:
    """The row of the type a member belongs to: its parent, or (a Go or Rust method, declared
    apart from its type) the type of its class name in the same file."""
    s = symbols[row]
    if s.parent is not None:
        parent = index.by_id.get(s.parent)
        if parent is not None and symbols[parent].kind in TYPE_KINDS:
            return parent
        return None
    if s.class_name:
        for r in index.by_name.get(s.class_name, []):
            t = symbols[r]
            if t.path == s.path and t.kind in TYPE_KINDS and r != row:
                return r
    return None


def _mappable(index: Index) -> list[int]:
    """Rows a map may show: no chunks, modules or values, no overload stub, nothing defined
    inside a function (its inner helpers are the function's business)."""
    symbols = index.symbols
    kinds, parents = symbols.column("kind"), symbols.column("parent")
    by_id = index.by_id
    rows = []
    for r, kind in enumerate(kinds):
        if kind in _SKIP_KINDS:
            continue
        parent = parents[r]
        if parent is not None and parent in by_id and kinds[by_id[parent]] in FUNCTION_KINDS:
            continue
        if kind in FUNCTION_KINDS and is_overload_stub(symbols[r]):
            continue
        rows.append(r)
    return rows


def rank_symbols(index: Index, personalization: np.ndarray | None = None) -> list[int]:
    """Rows of the symbols a map may show, most important first (ties: path, line). A type's
    importance is its own rank and its members' together."""
    symbols = index.symbols
    src, dst = call_pairs(index.graph)
    # Converged tighter than the PageRank stored at index time, as the map always has been.
    rank = pagerank(len(symbols), src, dst, personalization, tol=1e-9, max_iter=200)
    score = np.array(rank, dtype=float)
    rows = _mappable(index)
    for r in rows:
        owner = _owner(symbols, index, r)
        if owner is not None:
            score[owner] += rank[r]
    paths, starts = symbols.column("path"), symbols.column("start_line")
    rows.sort(key=lambda r: (-score[r], paths[r], starts[r]))
    return rows


def _markers(language: str) -> tuple[str, ...]:
    if language in _HASH_COMMENTS:
        return ("#",)
    if language in _DASH_COMMENTS:
        return ("--",)
    return ("#", "//", "/*") if language == "php" else ("//", "/*")


def _strip_comment(line: str, markers: tuple[str, ...]) -> str:
    """``line`` without its comments (a marker inside a string literal is kept)."""
    quote = None
    i = 0
    while i < len(line):
        c = line[i]
        if quote:
            if c == "\\":
                i += 1
            elif c == quote:
                quote = None
        elif c in "\"'`":
            quote = c
        else:
            for m in markers:
                if line.startswith(m, i):
                    end = line.find("*/", i + 2) if m == "/*" else -1
                    if end == -1:
                        return line[:i]
                    return line[:i] + _strip_comment(line[end + 2 :], markers)
        i += 1
    return line


def signature_line(index: Index, s: Symbol) -> str:
    """``s``'s signature on one line, without comments, cut at LINE_CHARS."""
    sig = " ".join((s.signature or s.name).split())
    markers = _markers(s.language)
    if any(m in sig for m in markers):
        # The signature is the source squashed: rebuild it from the source's lines, comments
        # dropped, down to the line where the squashed signature ends.
        try:
            lines = index.code(s).splitlines()
        except CodebotError:  # the file is gone from the work tree and git: print it as is
            lines = []
        kept, seen = [], 0
        for line in lines:
            seen += len(" ".join(line.split())) + 1
            kept.append(_strip_comment(line, markers))
            if seen > len(sig):
                break
        if kept:
            sig = " ".join(" ".join(kept).split())
    return sig if len(sig) <= LINE_CHARS else sig[: LINE_CHARS - 1].rstrip() + "…"


def render_map(index: Index, rows: list[int], lines: dict[int, str] | None = None) -> str:
    """The chosen rows grouped by file (files in order of their best symbol), lines in order, each
    member under its type (the type's line shown for it), indented by depth. ``lines`` caches
    the printed signatures by row across calls."""
    symbols = index.symbols
    lines = {} if lines is None else lines
    by_file: dict[str, set[int]] = {}
    depth: dict[int, int] = {}

    def place(r: int) -> int:
        if r not in depth:
            depth[r] = 0  # a cycle guard: set before the owner is placed
            owner = _owner(symbols, index, r)
            if owner is not None and symbols[owner].path == symbols[r].path:
                depth[r] = place(owner) + 1
                by_file.setdefault(symbols[r].path, set()).add(owner)
        by_file.setdefault(symbols[r].path, set()).add(r)
        return depth[r]

    for r in rows:
        place(r)
    out = []
    for path, members in by_file.items():
        out.append(f"{path}:")
        for r in sorted(members, key=lambda r: (symbols[r].start_line, -symbols[r].end_line)):
            if r not in lines:
                lines[r] = signature_line(index, symbols[r])
            out.append(f"{symbols[r].start_line:5d}│ {'    ' * depth[r]}{lines[r]}")
    return "\n".join(out) + ("\n" if out else "")


@dataclass
class RepoMap:
    budget: int
    counter: str
    tokens: int
    focus: str | None
    symbols: int  # how many symbols the map shows
    ranked: int  # how many it could have shown
    text: str
    rows: list[int]

    def to_dict(self, index: Index) -> dict[str, Any]:
        return {
            "budget": self.budget,
            "tokenizer": self.counter,
            "tokens": self.tokens,
            "focus": self.focus,
            "symbols": self.symbols,
            "ranked": self.ranked,
            "results": [index.symbols[r].ref() for r in self.rows],
            "text": self.text,
        }


def repo_map(
    index: Index,
    budget: int,
    counter: TokenCounter,
    focus: str | None = None,
    searcher: Searcher | None = None,
) -> RepoMap:
    """The map of the most symbols that fits ``budget`` tokens."""
    ranked = rank_symbols(index, focus_vector(index, focus, searcher) if focus else None)
    lines: dict[int, str] = {}
    lo, hi = 0, len(ranked)  # invariant: the top `lo` fit; more than `hi` do not
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if counter.count(render_map(index, ranked[:mid], lines)) <= budget:
            lo = mid
        else:
            hi = mid - 1
    rows = ranked[:lo]
    text = render_map(index, rows, lines)
    return RepoMap(budget, counter.name, counter.count(text), focus, lo, len(ranked), text, rows)

"""``codebot map``: a repository map in the manner of Aider's, cut to a token budget.

The most important symbols' signatures, grouped by file::

    shop/orders.py:
       6│ class OrderService
       9│     def place(self, order_id: int, express: bool = False) -> bool

Importance is PageRank on the call graph (a function many others call, directly or through
important callers, ranks high), personalised to a focus: the teleport vector of the power iteration
sits on the focus file's symbols (``--focus PATH``) or on a query's hits (``--focus QUERY``), so the
map shows what matters *around* the focus. The number of symbols shown is binary-searched: the
largest prefix of the ranking whose rendered map fits the budget. Adding a symbol never removes
text, so the count of tokens grows with the prefix, and the search is exact.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from codebot.graph.analytics import call_pairs, pagerank
from codebot.query.tokens import TokenCounter

if TYPE_CHECKING:
    from codebot.core.model import Symbol
    from codebot.index.store import Index
    from codebot.query.search import Searcher

__all__ = ["RepoMap", "focus_vector", "rank_symbols", "repo_map"]

# Chunks have no signature; a module is its file's header; a module's constants and variables
# are found by name and search, and would crowd the functions and types out of a map.
_SKIP_KINDS = ("chunk", "module", "constant", "variable")


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


def rank_symbols(index: Index, personalization: np.ndarray | None = None) -> list[int]:
    """Rows of the symbols a map may show, most important first (ties: path, line)."""
    symbols = index.symbols
    src, dst = call_pairs(index.graph)
    # Converged tighter than the PageRank stored at index time, as the map always has been.
    rank = pagerank(len(symbols), src, dst, personalization, tol=1e-9, max_iter=200)
    kinds, paths = symbols.column("kind"), symbols.column("path")
    starts = symbols.column("start_line")
    rows = [r for r, k in enumerate(kinds) if k not in _SKIP_KINDS]
    rows.sort(key=lambda r: (-rank[r], paths[r], starts[r]))
    return rows


def _line(s: Symbol) -> str:
    sig = " ".join((s.signature or s.name).split())  # one line, whatever the source layout
    indent = "    " if s.class_name and s.kind != "class" else ""
    return f"{s.start_line:5d}│ {indent}{sig}"


def render_map(symbols: Any, rows: list[int]) -> str:
    """The chosen rows grouped by file (files in order of their best symbol), lines in order."""
    by_file: dict[str, list[Symbol]] = {}
    for r in rows:
        s = symbols[r]
        by_file.setdefault(s.path, []).append(s)
    out = []
    for path, members in by_file.items():
        out.append(f"{path}:")
        out += [_line(s) for s in sorted(members, key=lambda s: (s.start_line, s.end_line))]
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
    symbols = index.symbols
    lo, hi = 0, len(ranked)  # invariant: the top `lo` fit; more than `hi` do not
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if counter.count(render_map(symbols, ranked[:mid])) <= budget:
            lo = mid
        else:
            hi = mid - 1
    rows = ranked[:lo]
    text = render_map(symbols, rows)
    return RepoMap(budget, counter.name, counter.count(text), focus, lo, len(ranked), text, rows)

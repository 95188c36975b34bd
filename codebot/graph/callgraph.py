"""The code graph: resolved edges between symbols, persisted as packed arrays, queried by row.

A node is a row of the symbol table (``index.symbols[row]``); an edge is five parallel integer
arrays (source row, destination row, kind code, resolution code, line), sorted by source. On disk
(``graph.msgpack`` in a generation) the arrays are raw little-endian bytes in a msgpack map: loading
200k edges is a few ``np.frombuffer`` calls, not 200k Python objects (STACK.md: < 1 ms against
35 ms for string edge lists and 0.4 s for a networkx DiGraph). The format, and loading and
saving: :mod:`codebot.graph.io`.

Queries (callers, callees, chains, neighbourhoods) walk compressed adjacency arrays; networkx is
only built on demand (:meth:`CodeGraph.to_networkx`) for algorithms that need it. The analytics
computed at index time (entry points, leaves, isolated symbols, PageRank, communities), and
``build_graph`` that makes a graph with them, live in :mod:`codebot.graph.analytics` and are stored
in the same file. Both modules import this one, never the reverse.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from codebot.core.model import EDGE_KINDS, RESOLUTIONS, Edge, Symbol

if TYPE_CHECKING:
    import networkx as nx

__all__ = [
    "GRAPH_FORMAT",
    "GRAPH_FILE",
    "ChainNode",
    "CodeGraph",
    "Community",
    "Neighbor",
    "CALLERS",
    "CALLS",
    "F64",
    "I32",
    "KIND_CODE",
    "RESOLUTION_CODE",
    "U8",
]

GRAPH_FORMAT = 1
GRAPH_FILE = "graph.msgpack"
KIND_CODE = {k: i for i, k in enumerate(EDGE_KINDS)}
RESOLUTION_CODE = {r: i for i, r in enumerate(RESOLUTIONS)}
CALLS = ("calls",)
CALLERS = ("calls", "decorates")  # who uses a symbol: its callers, and scopes applying it

# Fixed byte order and widths, so a file written on one machine reads the same on another.
I32 = np.dtype("<i4")
U8 = np.dtype("u1")
F64 = np.dtype("<f8")


@dataclass(frozen=True, slots=True)
class Neighbor:
    """A symbol reached from the start in ``depth`` steps, through ``via`` (the row one step
    closer to the start), by an edge at ``line`` (the line of the call, in the caller)."""

    row: int
    depth: int
    via: int
    line: int
    resolution: str
    kind: str = "calls"  # or "decorates": the scope applying a decorator (a caller of it)


@dataclass(slots=True)
class ChainNode:
    """One call in an execution tree. ``mark`` says why a node has no children although its
    symbol calls others: ``cycle`` (it is its own ancestor), ``repeat`` (expanded earlier in the
    tree), ``depth`` (the depth bound) or ``limit`` (the node budget)."""

    row: int
    line: int | None = None  # the line of the call in the parent; None for the root
    resolution: str | None = None
    children: list[ChainNode] = field(default_factory=list)
    mark: str | None = None

    def size(self) -> int:
        return 1 + sum(c.size() for c in self.children)


@dataclass(frozen=True, slots=True)
class Community:
    """A cluster of symbols that call each other more than they call the rest."""

    id: int
    size: int
    central: tuple[int, ...]  # its most central rows, by PageRank
    paths: tuple[tuple[str, int], ...]  # its most common files, with how many members each holds


class CodeGraph:
    """Edges between symbol rows, per-symbol call counts and the index-time analytics."""

    def __init__(
        self,
        n: int,
        src: np.ndarray,
        dst: np.ndarray,
        kind: np.ndarray,
        resolution: np.ndarray,
        line: np.ndarray,
        external: np.ndarray | None = None,
        unresolved: np.ndarray | None = None,
        presorted: bool = False,
    ) -> None:
        self.n = n
        if not presorted:  # by source, then kind, line, destination (a stored graph already is)
            order = np.lexsort((dst, line, kind, src))
            src, dst, kind, resolution, line = (
                a[order] for a in (src, dst, kind, resolution, line)
            )
        self.src, self.dst = src.astype(I32, copy=False), dst.astype(I32, copy=False)
        self.kind, self.resolution = (
            kind.astype(U8, copy=False),
            resolution.astype(U8, copy=False),
        )
        self.line = line.astype(I32, copy=False)
        zeros = np.zeros(n, dtype=I32)
        self.external = zeros if external is None else external.astype(I32, copy=False)
        self.unresolved = zeros.copy() if unresolved is None else unresolved.astype(I32, copy=False)
        # Index-time analytics (see analytics.analyze); empty until computed or loaded.
        self.pagerank = np.full(n, 1.0 / n if n else 0.0, dtype=F64)
        self.community = np.full(n, -1, dtype=I32)
        self.communities: list[Community] = []
        self.entry_points = np.zeros(0, dtype=I32)
        self.leaves = np.zeros(0, dtype=I32)
        self.isolated = np.zeros(0, dtype=I32)
        self.meta: dict[str, Any] = {}
        # Per-file call-site counters, packed (graph/incremental.py); None in a graph built
        # before they were kept, which an update then resolves whole.
        self.file_sites: dict[str, Any] | None = None
        self.timings: dict[str, float] = {}  # of the analytics, when built here (not persisted)
        # Adjacency: edges are sorted by source, so the out-pointer is a cumulative count.
        self._out_ptr = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(np.bincount(self.src, minlength=n), out=self._out_ptr[1:])
        self._in: tuple[np.ndarray, np.ndarray] | None = None
        self._nx: dict[tuple[str, ...], nx.DiGraph] = {}

    def __len__(self) -> int:
        return len(self.src)

    # --- edges ------------------------------------------------------------------------------------

    def edge_rows(self, kinds: Iterable[str] | None = None) -> np.ndarray:
        """Indexes of the edges of the given kinds (all edges when None)."""
        if kinds is None:
            return np.arange(len(self.src))
        return np.flatnonzero(np.isin(self.kind, self._codes(kinds)))

    def to_edges(self, symbols: Sequence[Symbol], kinds: Iterable[str] | None = None) -> list[Edge]:
        """The edges as :class:`~codebot.core.model.Edge` objects with symbol ids."""
        return [
            Edge(
                symbols[self.src[e]].id,
                symbols[self.dst[e]].id,
                EDGE_KINDS[self.kind[e]],
                int(self.line[e]),
                RESOLUTIONS[self.resolution[e]],
            )
            for e in self.edge_rows(kinds).tolist()
        ]

    def count(self, kind: str | None = None, resolution: str | None = None) -> int:
        mask = np.ones(len(self.src), dtype=bool)
        if kind is not None:
            mask &= self.kind == KIND_CODE[kind]
        if resolution is not None:
            mask &= self.resolution == RESOLUTION_CODE[resolution]
        return int(mask.sum())

    @staticmethod
    def _codes(kinds: Iterable[str]) -> list[int]:
        return [KIND_CODE[k] for k in kinds]

    def out_edges(self, row: int, kinds: Iterable[str] = CALLS) -> list[int]:
        """Indexes of the edges out of ``row``, by kind, then line."""
        lo, hi = int(self._out_ptr[row]), int(self._out_ptr[row + 1])
        codes = self._codes(kinds)
        return [e for e, k in zip(range(lo, hi), self.kind[lo:hi].tolist()) if k in codes]

    def in_edges(self, row: int, kinds: Iterable[str] = CALLS) -> list[int]:
        """Indexes of the edges into ``row``, ordered by source row, then line."""
        if self._in is None:
            # Built on the first backwards question only: a stable sort keeps source order.
            order = np.argsort(self.dst, kind="stable")
            ptr = np.zeros(self.n + 1, dtype=np.int64)
            np.cumsum(np.bincount(self.dst, minlength=self.n), out=ptr[1:])
            self._in = (order, ptr)
        order, ptr = self._in
        codes = self._codes(kinds)
        edges = order[ptr[row] : ptr[row + 1]]
        return [e for e, k in zip(edges.tolist(), self.kind[edges].tolist()) if k in codes]

    def degree(self, kinds: Iterable[str] = CALLS) -> tuple[np.ndarray, np.ndarray]:
        """(in-degree, out-degree) of every row over distinct neighbours of the given kinds."""
        e = self.edge_rows(kinds)
        pairs = np.unique(self.src[e].astype(np.int64) * self.n + self.dst[e])
        src, dst = pairs // max(self.n, 1), pairs % max(self.n, 1)
        return np.bincount(dst, minlength=self.n), np.bincount(src, minlength=self.n)

    # --- queries ----------------------------------------------------------------------------------

    def callees(self, row: int, depth: int = 1, kinds: Iterable[str] = CALLS) -> list[Neighbor]:
        """What ``row`` calls, breadth first up to ``depth`` steps; each symbol once, nearest."""
        return self._walk(row, depth, tuple(kinds), forward=True)

    def callers(self, row: int, depth: int = 1, kinds: Iterable[str] = CALLS) -> list[Neighbor]:
        """Who calls ``row``, breadth first up to ``depth`` steps; each symbol once, nearest."""
        return self._walk(row, depth, tuple(kinds), forward=False)

    def _walk(
        self, start: int, depth: int, kinds: tuple[str, ...], forward: bool
    ) -> list[Neighbor]:
        seen = {start}
        frontier = [start]
        out: list[Neighbor] = []
        for level in range(1, depth + 1):
            nxt = []
            for row in frontier:
                edges = self.out_edges(row, kinds) if forward else self.in_edges(row, kinds)
                for e in edges:
                    other = int(self.dst[e] if forward else self.src[e])
                    if other in seen:
                        continue
                    seen.add(other)
                    nxt.append(other)
                    res = RESOLUTIONS[self.resolution[e]]
                    kind = EDGE_KINDS[self.kind[e]]
                    out.append(Neighbor(other, level, row, int(self.line[e]), res, kind))
            if not nxt:
                break
            frontier = nxt
        return out

    def chain(self, row: int, depth: int = 4, max_nodes: int = 500) -> ChainNode:
        """The execution tree below ``row``: its callees in call-line order, theirs, and so on.

        Depth-first, so the tree reads like the code runs. A symbol that is its own ancestor is
        marked ``cycle``; one already expanded elsewhere in the tree is marked ``repeat`` and not
        expanded again (a hub would otherwise repeat its whole subtree under every caller).
        """
        root = ChainNode(row)
        expanded: set[int] = set()
        budget = [max_nodes - 1]

        def grow(node: ChainNode, path: set[int], level: int) -> None:
            children: dict[int, int] = {}  # callee -> its first call edge
            for e in self.out_edges(node.row):
                children.setdefault(int(self.dst[e]), e)
            if children and level >= depth:
                node.mark = "depth"
                return
            # Only a node really expanded counts: one cut by the depth bound may be expanded
            # where it appears nearer the root.
            expanded.add(node.row)
            for callee, e in sorted(
                children.items(), key=lambda kv: (int(self.line[kv[1]]), kv[0])
            ):
                if budget[0] <= 0:
                    node.mark = "limit"
                    return
                budget[0] -= 1
                child = ChainNode(callee, int(self.line[e]), RESOLUTIONS[self.resolution[e]])
                node.children.append(child)
                if callee in path:
                    child.mark = "cycle"
                elif callee in expanded:
                    if self.out_edges(callee):
                        child.mark = "repeat"
                else:
                    grow(child, path | {callee}, level + 1)

        grow(root, {row}, 0)
        return root

    def neighborhood(
        self, rows: Iterable[int], depth: int = 1, kinds: Iterable[str] = CALLS
    ) -> list[int]:
        """Rows within ``depth`` steps of any of ``rows``, in either direction, sorted."""
        kinds = tuple(kinds)
        seen = set(rows)
        frontier = list(seen)
        for _ in range(depth):
            nxt = []
            for row in frontier:
                for e in self.out_edges(row, kinds):
                    nxt.append(int(self.dst[e]))
                for e in self.in_edges(row, kinds):
                    nxt.append(int(self.src[e]))
            frontier = [r for r in dict.fromkeys(nxt) if r not in seen]
            seen.update(frontier)
        return sorted(seen)

    def edges_among(self, rows: Iterable[int], kinds: Iterable[str] = CALLS) -> list[int]:
        """Indexes of the edges of the given kinds with both ends in ``rows``."""
        inside = np.zeros(self.n, dtype=bool)
        inside[list(rows)] = True
        mask = inside[self.src] & inside[self.dst] & np.isin(self.kind, self._codes(kinds))
        return np.flatnonzero(mask).tolist()

    def to_networkx(self, kinds: Iterable[str] = CALLS) -> nx.DiGraph:
        """A networkx DiGraph over all rows (cached). Parallel edges merge: ``weight`` counts
        them, ``line`` and ``resolution`` are the first one's. Slow (~0.4 s at 200k edges):
        for algorithms, not for the queries above."""
        key = tuple(sorted(kinds))
        if key not in self._nx:
            import networkx as nx

            g = nx.DiGraph()
            g.add_nodes_from(range(self.n))
            for e in self.edge_rows(key).tolist():
                u, v = int(self.src[e]), int(self.dst[e])
                if g.has_edge(u, v):
                    g[u][v]["weight"] += 1
                else:
                    g.add_edge(
                        u,
                        v,
                        kind=EDGE_KINDS[self.kind[e]],
                        line=int(self.line[e]),
                        resolution=RESOLUTIONS[self.resolution[e]],
                        weight=1,
                    )
            self._nx[key] = g
        return self._nx[key]

"""Index-time analytics of the call graph: entry points, leaves, isolated symbols, PageRank and
communities. Computed once per build and stored with the graph, so queries only read them; the
repository map (``query/repomap.py``) runs the same :func:`pagerank`, personalised to a focus.

Costs are bounded by design (see ``benchmarks/graph_build.py`` for the figures): PageRank is a
numpy power iteration (``nx.pagerank`` needs scipy, which is not a dependency); communities use
Louvain on the undirected call graph while it is small enough, and label propagation in numpy
above that (bounded rounds, linear memory), because networkx's Louvain takes tens of seconds on
a 50k-node graph (STACK.md) and its label propagation minutes and gigabytes on a million.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Iterable, Sequence

import numpy as np

from codebot.core.model import FUNCTION_KINDS, Edge, Symbol
from codebot.graph.callgraph import (
    CALLS,
    I32,
    KIND_CODE,
    RESOLUTION_CODE,
    CodeGraph,
    Community,
)

__all__ = [
    "LOUVAIN_MAX_EDGES",
    "NETWORKX_MAX_EDGES",
    "PENDING",
    "analyze",
    "build_graph",
    "build_graph_rows",
    "call_pairs",
    "detect_communities",
    "pagerank",
]

# Above this many distinct undirected call pairs, Louvain gives way to label propagation. Measured
# (benchmarks/graph_build.py): Louvain 2.7 s on the stdlib's 57k pairs, 6 s on 94k synthetic
# hub-heavy pairs, 38 s on 180k; semi-synchronous label propagation 1-4 s at those sizes, with a
# lower modularity (0.64 against 0.81 on the stdlib).
LOUVAIN_MAX_EDGES = 100_000
# Above this many, networkx's label propagation gives way to the same idea in numpy
# (:func:`_label_propagation`): on the 124k call pairs of a generated 58k-symbol tree, 2.1 s
# against 48.7 s (a loaded machine), modularity 0.58 against 0.60; a networkx graph of the two
# million call pairs of a million symbols takes gigabytes and minutes. By default networkx's
# label propagation is skipped (the bound equals Louvain's); tests and benchmarks can ask for it.
NETWORKX_MAX_EDGES = LOUVAIN_MAX_EDGES
LPA_ROUNDS = 20  # rounds of the numpy label propagation at most (it stops when labels settle)
CENTRAL_NAMES = 5  # members listed per community summary, by PageRank
COMMON_PATHS = 3  # files listed per community summary
MIN_COMMUNITY = 2  # a symbol alone is no community: it gets id -1
# The community method of a graph whose communities come later, with the vectors: a build that
# answers at once leaves their detection (and networkx's import) to the background embedder.
PENDING = "pending"


def build_graph(
    symbols: Sequence[Symbol],
    edges: Iterable[Edge],
    external: dict[str, int] | None = None,
    unresolved: dict[str, int] | None = None,
    analyze: bool = True,
    communities: bool | str = True,
    carry: np.ndarray | None = None,
) -> CodeGraph:
    """A graph over ``symbols`` (rows in this order) from resolved edges and per-id call counts,
    with its analytics (see :func:`analyze`) unless ``analyze`` is False.

    Edges whose ends are not in ``symbols`` are dropped and counted in ``meta["dropped_edges"]``;
    duplicates (same ends, kind and line) are kept once.
    """
    rows = {s.id: i for i, s in enumerate(symbols)}
    g = build_graph_rows(len(symbols), rows.get, edges, external, unresolved)
    if analyze:
        g.timings = _analyze(g, symbols, communities=communities, carry=carry)
    return g


def build_graph_rows(
    n: int,
    row: Callable[[str], int | None],
    edges: Iterable[Edge],
    external: dict[str, int] | None = None,
    unresolved: dict[str, int] | None = None,
) -> CodeGraph:
    """:func:`build_graph` without analytics, over ``n`` rows, ``row`` giving the row of a
    symbol id (None: not in the graph, the edge dropped): an update finds its rows without a
    dict of every symbol (graph/incremental.py)."""
    seen: set[tuple[int, int, int, int]] = set()
    cols: tuple[list[int], ...] = ([], [], [], [], [])
    dropped = 0
    for e in edges:
        s, d = row(e.src), row(e.dst)
        if s is None or d is None:
            dropped += 1
            continue
        key = (s, d, KIND_CODE[e.kind], e.line)
        if key in seen:
            continue
        seen.add(key)
        for col, value in zip(cols, (*key, RESOLUTION_CODE[e.resolution])):
            col.append(value)

    def counts(by_id: dict[str, int] | None) -> np.ndarray:
        out = np.zeros(n, dtype=I32)
        for sid, c in (by_id or {}).items():
            r = row(sid)
            if r is not None:
                out[r] = c
        return out

    src, dst, kind, line, resolution = (np.asarray(c, dtype=np.int64) for c in cols)
    g = CodeGraph(n, src, dst, kind, resolution, line, counts(external), counts(unresolved))
    g.meta["dropped_edges"] = dropped
    return g


def call_pairs(graph: CodeGraph) -> tuple[np.ndarray, np.ndarray]:
    """(src, dst) rows of the distinct calls between two different symbols: recursion says
    nothing about who else calls a function, and a call made twice counts once."""
    e = graph.edge_rows(CALLS)
    src, dst = graph.src[e].astype(np.int64), graph.dst[e].astype(np.int64)
    keep = src != dst
    n = max(graph.n, 1)
    # np.unique, by hand: np.unique imports numpy.ma (to refuse masked arrays), 0.02-0.09 s of
    # every update's start.
    pairs = np.sort(src[keep] * n + dst[keep])
    if len(pairs):
        pairs = pairs[np.concatenate(([True], pairs[1:] != pairs[:-1]))]
    return pairs // n, pairs % n


def analyze(
    graph: CodeGraph,
    symbols: Sequence[Symbol],
    communities: bool | str = True,
    carry: np.ndarray | None = None,
) -> dict[str, float]:
    """Fill in the graph's analytics; returns how long each part took, in seconds.

    ``communities``: True to detect them, False for none, :data:`PENDING` to leave them to be
    detected later (every label -1 until then).

    ``carry``: community labels to keep instead of detecting them again (an update: detection
    waits for the next settle, see ``update.SETTLE_SHARE``); -1 for new symbols. The carried
    labels are summarised again over the current symbols (sizes, central members, files).
    """
    timings: dict[str, float] = {}
    t = time.perf_counter()
    n = graph.n
    psrc, pdst = call_pairs(graph)
    indeg = np.bincount(pdst, minlength=n)
    outdeg = np.bincount(psrc, minlength=n)
    callable_ = np.fromiter((s.kind in FUNCTION_KINDS for s in symbols), dtype=bool, count=n)
    graph.entry_points = np.flatnonzero((indeg == 0) & (outdeg > 0)).astype(np.int32)
    graph.leaves = np.flatnonzero((indeg > 0) & (outdeg == 0)).astype(np.int32)
    graph.isolated = np.flatnonzero(callable_ & (indeg == 0) & (outdeg == 0)).astype(np.int32)
    timings["degrees"] = time.perf_counter() - t

    t = time.perf_counter()
    graph.pagerank = pagerank(n, psrc, pdst)
    timings["pagerank"] = time.perf_counter() - t

    t = time.perf_counter()
    if carry is not None:
        method = "carried"
        graph.community, graph.communities = _summarize(carry, graph.pagerank, symbols)
    elif communities == PENDING:
        method = PENDING
    elif communities:
        labels, method = detect_communities(n, psrc, pdst)
        graph.community, graph.communities = _summarize(labels, graph.pagerank, symbols)
    else:
        method = "none"
    graph.meta["community_method"] = method
    timings["communities"] = time.perf_counter() - t
    return timings


_analyze = analyze  # build_graph's flag of the same name hides the function there


def pagerank(
    n: int,
    src: np.ndarray,
    dst: np.ndarray,
    personalization: np.ndarray | None = None,
    alpha: float = 0.85,
    tol: float = 1e-6,
    max_iter: int = 100,
) -> np.ndarray:
    """PageRank of a directed graph given as distinct (src, dst) pairs, as networkx defines it:
    dangling nodes spread like the teleport, converged when the L1 change < n*tol.

    ``personalization``: teleport weights (normalised here); uniform when None or all zero.
    """
    if n == 0:
        return np.zeros(0)
    p = None
    if personalization is not None and personalization.sum() > 0:
        p = personalization / personalization.sum()
    out = np.bincount(src, minlength=n).astype(np.float64)
    dangling = out == 0
    share = 1.0 / out[src] if len(src) else np.zeros(0)
    x = np.full(n, 1.0 / n) if p is None else p.copy()
    for _ in range(max_iter):
        last = x
        spread = np.bincount(dst, weights=last[src] * share, minlength=n)
        rest = alpha * last[dangling].sum() + 1.0 - alpha
        x = alpha * spread + (rest / n if p is None else rest * p)
        if np.abs(x - last).sum() < n * tol:
            break
    return x


def detect_communities(
    n: int,
    src: np.ndarray,
    dst: np.ndarray,
    max_louvain_edges: int = LOUVAIN_MAX_EDGES,
    max_networkx_edges: int = NETWORKX_MAX_EDGES,
) -> tuple[np.ndarray, str]:
    """A community label per row (-1 for rows without call edges) and the method used.

    Deterministic for a given graph: fixed seed, nodes and edges added in row order.
    """
    labels = np.full(n, -1, dtype=np.int64)
    a, b = np.minimum(src, dst), np.maximum(src, dst)
    undirected, weight = np.unique(a * max(n, 1) + b, return_counts=True)
    if len(undirected) == 0:
        return labels, "none"
    ua, ub = undirected // max(n, 1), undirected % max(n, 1)
    if len(undirected) > max_networkx_edges:
        return _label_propagation(n, ua, ub, weight.astype(np.float64)), "label_propagation_numpy"
    import networkx as nx

    g = nx.Graph()
    g.add_weighted_edges_from(zip(ua.tolist(), ub.tolist(), weight.tolist()))
    if len(undirected) <= max_louvain_edges:
        method = "louvain"
        parts = nx.community.louvain_communities(g, weight="weight", seed=0)
    else:
        method = "label_propagation"  # semi-synchronous: deterministic, no seed needed
        parts = nx.community.label_propagation_communities(g)
    for i, part in enumerate(parts):
        labels[list(part)] = i
    return labels, method


def _label_propagation(
    n: int, a: np.ndarray, b: np.ndarray, weight: np.ndarray, rounds: int = LPA_ROUNDS
) -> np.ndarray:
    """Label propagation over the undirected weighted edges ``a``-``b``, in numpy: each round,
    every node takes the label its neighbours carry with the most weight (its own label when
    that is among the best, else the smallest). Half the nodes (by parity, alternating) move
    per round, which keeps two neighbours from swapping labels forever as a fully synchronous
    update would. At most ``rounds`` rounds, each a sort of the edges: time and memory linear
    in the edges up to a log, deterministic. Rows without an edge get -1."""
    src = np.concatenate((a, b)).astype(np.int64)
    dst = np.concatenate((b, a)).astype(np.int64)
    w = np.concatenate((weight, weight))
    by_src = np.argsort(src, kind="stable")
    src, dst, w = src[by_src], dst[by_src], w[by_src]
    labels = np.arange(n, dtype=np.int64)
    halves = [np.flatnonzero((src & 1) == h) for h in (0, 1)]
    quiet = 0
    for r in range(rounds):
        moving = halves[r & 1]
        if len(moving) == 0:
            continue
        s, ws = src[moving], w[moving]
        key = s * n + labels[dst[moving]]  # sorted by node already: sort each node's labels
        order = np.argsort(key, kind="stable")
        key, ws = key[order], ws[order]
        run = np.flatnonzero(np.r_[True, key[1:] != key[:-1]])
        total = np.add.reduceat(ws, run)
        node, cand = key[run] // n, key[run] % n
        starts = np.flatnonzero(np.r_[True, node[1:] != node[:-1]])
        best = np.maximum.reduceat(total, starts)
        per_run = np.repeat(best, np.diff(np.r_[starts, len(node)]))
        top = total == per_run
        # Among the best: the node's own label if it is one, else the smallest (runs are
        # sorted by label within a node, so the first best run of each node).
        own = top & (cand == labels[node])
        keep = np.zeros(n, dtype=bool)
        keep[node[own]] = True
        first_top = np.flatnonzero(top & ~keep[node])
        if len(first_top):
            first_top = first_top[np.r_[True, node[first_top[1:]] != node[first_top[:-1]]]]
        changed = len(first_top) - np.count_nonzero(cand[first_top] == labels[node[first_top]])
        labels[node[first_top]] = cand[first_top]
        quiet = quiet + 1 if changed <= n // 1000 else 0
        if quiet >= 2:  # both halves settled
            break
    out = np.full(n, -1, dtype=np.int64)
    touched = np.zeros(n, dtype=bool)
    touched[src] = True
    out[touched] = labels[touched]
    return out


def _summarize(labels: np.ndarray, rank: np.ndarray, symbols: Sequence[Symbol]):
    """Renumber communities by size (largest first, ties by lowest row), drop singletons, and
    describe each by its most central members and its most common files."""
    members: dict[int, list[int]] = {}
    for row, label in enumerate(labels.tolist()):
        if label >= 0:
            members.setdefault(label, []).append(row)
    groups = sorted(
        (m for m in members.values() if len(m) >= MIN_COMMUNITY), key=lambda m: (-len(m), m[0])
    )
    community = np.full(len(labels), -1, dtype=np.int32)
    summaries = []
    for cid, rows in enumerate(groups):
        community[rows] = cid
        central = sorted(rows, key=lambda r: (-rank[r], r))[:CENTRAL_NAMES]
        paths = Counter(symbols[r].path for r in rows)
        common = sorted(paths.items(), key=lambda pc: (-pc[1], pc[0]))[:COMMON_PATHS]
        summaries.append(Community(cid, len(rows), tuple(central), tuple(common)))
    return community, summaries

"""The graph stage of search: from ranked hits to the call trees that connect them.

    ranked hits ──► seeds ──► neighbours (callers/callees) ──┐
                       └────► bridges (bounded bidirectional ─┴─► prune ──► trees from entry points
                              searches between seed pairs)                 └─► flat list, reranked

Everything works on the CodeGraph's integer arrays plus one undirected adjacency over the call
edges, built on the first query and cached per graph: networkx is never built at query time
(STACK.md: its ``steiner_tree`` takes 1-6 s on 50k nodes and fails on disconnected graphs; the
union of pairwise shortest paths is nearly the same tree in milliseconds).

The flat list only gains evidence: a hit in the community of the strongest hits rises a little,
and a bridge or neighbour enters below the strong hits only when its own score is high (a boost
for hits linked to other hits measured worse and is not applied). The trees are extra.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from codebot.graph.callgraph import CALLS, RESOLUTION_CODE, CodeGraph
from codebot.index.store import Index
from codebot.query.answer import AnswerNode

__all__ = ["GraphStage", "graph_stage"]

Ranked = list[tuple[int, float]]

# Neighbours: an exact edge is sure, a unique-name edge a guess (the only symbol of that name).
_EDGE_WEIGHT = {
    RESOLUTION_CODE["exact"]: 0.5,
    RESOLUTION_CODE["unique_name"]: 0.3,
    RESOLUTION_CODE["overload"]: 0.3,
    RESOLUTION_CODE["override"]: 0.3,
}
_EDGE_COST = {
    RESOLUTION_CODE["exact"]: 1.0,
    RESOLUTION_CODE["unique_name"]: 1.5,
    RESOLUTION_CODE["overload"]: 1.5,
    RESOLUTION_CODE["override"]: 1.5,
}
_MAX_NEIGHBOURS = 12  # kept overall, best first: a tree of every caller of a hub reads as noise
_NEIGHBOUR_FLOOR = 0.2  # relevance below which a neighbour is pruned
_BRIDGE_RADIUS = 2  # each side of a bidirectional search: paths of up to 4 calls between seeds
_HUB_DEGREE = 60  # nodes with more call neighbours are not walked through (logging, helpers...)
_BALL_LIMIT = 4000  # nodes one seed's search may visit; bounds the latency on dense graphs
_MAX_TREES = 3
_TREE_DEPTH = 8
# Flat-list reranking: mild, so the graph stage adds evidence without overriding retrieval.
# Measured on the semble benchmark (15 repos, NDCG@10, hybrid 0.8575): a boost per linked seed of
# 0.03-0.15 scored 0.853-0.859 against 0.860 without, so there is none; the community boost
# scored 0.855-0.861 over 0.05-0.2, best at 0.07.
_COMMUNITY_BOOST = 0.07  # a candidate in the community of the strongest hits
_RERANK_DEPTH = 30  # candidates the community boost applies to
_ENTRY = 0.3  # a graph-found node's score in the flat list, relative to the top hit's
# The query is widened with the strongest community's terms when the top hits are scattered
# (each of the top five in another community). Measured: triggering at four of five with weight
# 0.3 cost 0.005 NDCG@10; at five of five with weight 0.1 it is neutral.
_WEAK_TOP = 5
_WEAK_COMMUNITIES = 5
_EXPANSION_WEIGHT = 0.1
# A community holding this share of all symbols is a catch-all (the stdlib's largest has 6.7k
# members, ``__init__`` among its central names): it says nothing about where an answer lives.
_FOCUSED_SHARE = 0.05


def _focused(graph: CodeGraph, community: int) -> bool:
    return community >= 0 and graph.communities[community].size <= _FOCUSED_SHARE * graph.n


@dataclass
class GraphStage:
    flat: list[tuple[int, float, str]]  # (row, score, why), best first
    trees: list[AnswerNode] = field(default_factory=list)
    expanded_query: str | None = None  # the rewritten query, when the first pass was weak
    nodes: dict[int, tuple[str, float]] = field(default_factory=dict)  # the selected set


class _Adjacency:
    """Undirected call adjacency in CSR form: neighbours of ``r`` are ``nbr[ptr[r]:ptr[r+1]]``."""

    def __init__(self, graph: CodeGraph) -> None:
        e = graph.edge_rows(CALLS)
        src, dst = graph.src[e], graph.dst[e]
        keep = src != dst
        u = np.concatenate([src[keep], dst[keep]])
        v = np.concatenate([dst[keep], src[keep]])
        res = np.concatenate([graph.resolution[e][keep]] * 2)
        order = np.argsort(u, kind="stable")
        self.ptr = np.zeros(graph.n + 1, dtype=np.int64)
        np.cumsum(np.bincount(u, minlength=graph.n), out=self.ptr[1:])
        self.nbr = v[order]
        costs = np.array([_EDGE_COST.get(c, 1.5) for c in range(max(_EDGE_COST) + 1)])
        self.cost = costs[res[order]]
        self.degree = np.diff(self.ptr)

    def around(self, row: int) -> tuple[list[int], list[float]]:
        lo, hi = self.ptr[row], self.ptr[row + 1]
        return self.nbr[lo:hi].tolist(), self.cost[lo:hi].tolist()


_ADJ: weakref.WeakKeyDictionary[CodeGraph, _Adjacency] = weakref.WeakKeyDictionary()


def _adjacency(graph: CodeGraph) -> _Adjacency:
    adj = _ADJ.get(graph)
    if adj is None:
        adj = _ADJ[graph] = _Adjacency(graph)
    return adj


def graph_stage(
    index: Index,
    graph: CodeGraph,
    query: str,
    ranked: Ranked,
    k: int = 10,
    seeds: int = 8,
    research: Callable[[str], Ranked] | None = None,
) -> GraphStage:
    """Run the graph stage on ``ranked`` (all candidates, best first) for ``query``.

    ``research`` runs the first-pass search again for a rewritten query; without it the query is
    never expanded.
    """
    expanded = None
    if research is not None and ranked:
        expanded = _expansion(index, graph, query, ranked)
        if expanded:
            ranked = _merge(ranked, research(expanded))
    if not ranked:
        return GraphStage([], [], expanded)
    top = ranked[0][1] or 1.0
    rel = {row: score / top for row, score in ranked}
    seed_rows = [row for row, _ in ranked[:seeds]]
    adj = _adjacency(graph)
    nodes: dict[int, tuple[str, float]] = {r: ("hit", rel[r]) for r in seed_rows}
    for row, score in _neighbours(graph, seed_rows, rel).items():
        nodes.setdefault(row, ("neighbour", score))
    for row, score in _bridges(adj, seed_rows, rel).items():
        if row not in nodes or nodes[row][0] == "neighbour":
            nodes[row] = ("bridge", max(score, nodes.get(row, ("", 0.0))[1]))
    trees = _trees(graph, nodes, seed_rows, index)
    flat = _flat(graph, ranked, nodes, seed_rows, k)
    return GraphStage(flat, trees, expanded, nodes)


# --- expansion ------------------------------------------------------------------------------------


def _expansion(index: Index, graph: CodeGraph, query: str, ranked: Ranked) -> str | None:
    """The query plus the strongest community's central names and file stems, when the top hits
    are scattered over communities (no area of the code stands out); None otherwise."""
    if not graph.communities:
        return None
    top = [row for row, _ in ranked[:_WEAK_TOP]]
    labels = [int(graph.community[r]) for r in top]
    if len(top) < _WEAK_TOP or len(set(labels)) < _WEAK_COMMUNITIES:
        return None
    weight: dict[int, float] = {}
    for row, score in ranked[: _WEAK_TOP * 2]:
        c = int(graph.community[row])
        if _focused(graph, c):
            weight[c] = weight.get(c, 0.0) + score
    if not weight:
        return None
    summary = graph.communities[max(weight, key=weight.__getitem__)]
    symbols = index.symbols
    # Dunder names (``__init__``) are in every community: no signal.
    names = [symbols[r].name for r in summary.central if not symbols[r].name.startswith("__")]
    stems = [p.rsplit("/", 1)[-1].rsplit(".", 1)[0] for p, _ in summary.paths]
    terms = [t for t in dict.fromkeys(names + stems) if t and t.lower() not in query.lower()]
    return f"{query} {' '.join(terms)}" if terms else None


def _merge(first: Ranked, second: Ranked) -> Ranked:
    """The first pass, with the expanded pass's candidates added at a lower weight."""
    scores = dict(first)
    for row, score in second:
        scores[row] = scores.get(row, 0.0) + _EXPANSION_WEIGHT * score
    return sorted(scores.items(), key=lambda item: (-item[1], item[0]))


# --- neighbours and bridges -----------------------------------------------------------------------


def _neighbours(graph: CodeGraph, seeds: list[int], rel: dict[int, float]) -> dict[int, float]:
    """Callers and callees of the seeds, scored by the edge's resolution times the seed's
    relevance, plus the node's own retrieval relevance (a neighbour the search also ranked
    is likelier part of the answer)."""
    seed_set = set(seeds)
    scores: dict[int, float] = {}
    for s in seeds:
        for forward in (True, False):
            edges = graph.out_edges(s) if forward else graph.in_edges(s)
            for e in edges[: _HUB_DEGREE * 2]:
                other = int(graph.dst[e] if forward else graph.src[e])
                if other in seed_set:
                    continue
                w = _EDGE_WEIGHT.get(int(graph.resolution[e]), 0.3)
                score = w * rel[s] + 0.5 * rel.get(other, 0.0)
                if score > scores.get(other, 0.0):
                    scores[other] = score
    kept = sorted(
        (item for item in scores.items() if item[1] >= _NEIGHBOUR_FLOOR),
        key=lambda item: (-item[1], item[0]),
    )
    return dict(kept[:_MAX_NEIGHBOURS])


def _ball(adj: _Adjacency, start: int) -> dict[int, tuple[float, int]]:
    """Nodes within ``_BRIDGE_RADIUS`` undirected calls of ``start``: {row: (cost, parent)}.

    Level by level (a bounded Dijkstra: a cheaper parent at the same level wins). Hubs are
    reached but not walked through."""
    best: dict[int, tuple[float, int]] = {start: (0.0, -1)}
    frontier = [start]
    for _ in range(_BRIDGE_RADIUS):
        nxt: dict[int, tuple[float, int]] = {}
        for row in frontier:
            if row != start and adj.degree[row] > _HUB_DEGREE:
                continue
            base = best[row][0]
            for other, cost in zip(*adj.around(row)):
                if other in best:
                    continue
                c = base + cost
                if other not in nxt or c < nxt[other][0]:
                    nxt[other] = (c, row)
        best.update(nxt)
        frontier = list(nxt)
        if len(best) > _BALL_LIMIT:
            break
    return best


def _bridges(adj: _Adjacency, seeds: list[int], rel: dict[int, float]) -> dict[int, float]:
    """Intermediate nodes on the cheapest short path between each pair of seeds.

    Pairwise bidirectional search: each seed's ball meets another's at the node that minimises
    the summed cost; the path through it joins the answer. Its nodes score by the pair's
    relevance, discounted by the path's length, plus their own retrieval relevance."""
    balls = {s: _ball(adj, s) for s in dict.fromkeys(seeds)}
    out: dict[int, float] = {}
    order = list(balls)
    for i, a in enumerate(order):
        ba = balls[a]
        for b in order[i + 1 :]:
            bb = balls[b]
            small, large = (ba, bb) if len(ba) <= len(bb) else (bb, ba)
            meet, cost = -1, float("inf")
            for row, (c, _) in small.items():
                other = large.get(row)
                if other is not None and c + other[0] < cost:
                    meet, cost = row, c + other[0]
            if meet < 0:
                continue
            path = _unwind(ba, meet)[::-1] + _unwind(bb, meet)[1:]
            inner = path[1:-1]
            score = (rel[a] * rel[b]) ** 0.5 / (1.0 + 0.5 * len(inner))
            for row in inner:
                s = score + 0.5 * rel.get(row, 0.0)
                if row not in balls and s > out.get(row, 0.0):
                    out[row] = s
    return out


def _unwind(ball: dict[int, tuple[float, int]], row: int) -> list[int]:
    """The path from ``row`` back to the ball's centre, ``row`` first."""
    path = [row]
    while ball[path[-1]][1] >= 0:
        path.append(ball[path[-1]][1])
    return path


# --- trees ----------------------------------------------------------------------------------------


def _trees(
    graph: CodeGraph, nodes: dict[int, tuple[str, float]], seeds: list[int], index: Index
) -> list[AnswerNode]:
    """Call trees over the selected nodes from their entry points, best first."""
    children: dict[int, list[tuple[int, int]]] = {}  # row -> [(call line, callee)] in line order
    has_caller: set[int] = set()
    for row in nodes:
        seen: dict[int, int] = {}
        for e in graph.out_edges(row):
            callee = int(graph.dst[e])
            if callee in nodes and callee not in seen:
                seen[callee] = int(graph.line[e])
        children[row] = sorted(((line, c) for c, line in seen.items()), key=lambda lc: lc)
        has_caller.update(c for c in seen if c != row)
    by_score = sorted(nodes, key=lambda r: (-nodes[r][1], r))
    roots = [r for r in by_score if r not in has_caller]
    covered: set[int] = set()
    built: list[tuple[float, AnswerNode]] = []
    symbols = index.symbols
    # Entry points first; a cycle with no entry point is entered at its best-scoring node.
    for root in roots + [r for r in by_score if r not in roots]:
        if root in covered:
            continue
        expanded: set[int] = set()
        tree = _grow(root, None, frozenset(), 0, nodes, children, expanded, symbols)
        covered |= expanded
        built.append((_tree_score(tree, seeds), tree))
    built.sort(key=lambda st: -st[0])
    multi = [t for _, t in built if t.children]
    return (multi or [t for _, t in built])[:_MAX_TREES]


def _grow(
    row: int,
    line: int | None,
    path: frozenset[int],
    depth: int,
    nodes: dict[int, tuple[str, float]],
    children: dict[int, list[tuple[int, int]]],
    expanded: set[int],
    symbols,
) -> AnswerNode:
    """Depth first, in call-line order, so the tree reads like the code runs. A node that is its
    own ancestor is marked ``cycle``; one expanded elsewhere in the tree ``repeat``."""
    why, score = nodes[row]
    node = AnswerNode(row, symbols[row], why, score, line)
    if row in path:
        node.mark = "cycle"
        return node
    if row in expanded:
        node.mark = "repeat" if children[row] else None
        return node
    expanded.add(row)
    if children[row] and depth >= _TREE_DEPTH:
        node.mark = "depth"
        return node
    for call_line, callee in children[row]:
        node.children.append(
            _grow(callee, call_line, path | {row}, depth + 1, nodes, children, expanded, symbols)
        )
    return node


def _tree_score(tree: AnswerNode, seeds: list[int]) -> float:
    """Relevance of its nodes, the share of the seeds it covers, and a little for depth (a
    workflow is a chain, not a star)."""
    rows: set[int] = set()
    total, depth = 0.0, 0
    stack = [(tree, 0)]
    while stack:
        node, d = stack.pop()
        if node.row not in rows:
            rows.add(node.row)
            total += node.score
        depth = max(depth, d)
        stack.extend((c, d + 1) for c in node.children)
    coverage = len(rows & set(seeds)) / max(len(seeds), 1)
    return total + 2.0 * coverage + 0.1 * min(depth, 4)


# --- flat list ------------------------------------------------------------------------------------


def _flat(
    graph: CodeGraph,
    ranked: Ranked,
    nodes: dict[int, tuple[str, float]],
    seeds: list[int],
    k: int,
) -> list[tuple[int, float, str]]:
    """The hits reranked mildly with graph evidence, and strong graph-found nodes added."""
    strongest = [c for c in (int(graph.community[r]) for r in seeds[:3]) if _focused(graph, c)]
    home = max(set(strongest), key=strongest.count) if strongest else -1
    out: dict[int, tuple[float, str]] = {}
    for row, score in ranked[:_RERANK_DEPTH]:
        boost = 1.0
        if home >= 0 and int(graph.community[row]) == home:
            boost += _COMMUNITY_BOOST
        why = nodes[row][0] if row in nodes else "hit"
        out[row] = (score * boost, why)
    for row, score in ranked[_RERANK_DEPTH : _RERANK_DEPTH + k]:
        out.setdefault(row, (score, "hit"))
    top = ranked[0][1]
    for row, (why, score) in nodes.items():
        if why != "hit" and row not in out:
            out[row] = (_ENTRY * score * top, why)
    flat = sorted(((r, s, w) for r, (s, w) in out.items()), key=lambda x: (-x[1], x[0]))
    return flat[:k]

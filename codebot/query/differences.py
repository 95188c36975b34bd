"""What differs between two indexes of the same commit: the invariant of an update (an index
updated commit by commit is identical to one built from scratch), checked by the tests and by
``benchmarks/update_replay.py``."""

from __future__ import annotations

from codebot.index.store import Index
from codebot.query.search import Searcher

__all__ = ["index_differences"]


def index_differences(
    updated: Index, built: Index, queries: list[str], modes: list[str], embedder=None
) -> list[str]:
    """What differs between two indexes of the same commit (empty: identical): symbols row by
    row, files, counts, skipped files, edges with their resolution, call counts, PageRank,
    communities, and the top 10 of each query in each search mode. The invariant of an update
    (tests and ``benchmarks/update_replay.py`` check it against a fresh build)."""
    out = []
    a, b = updated.symbols, built.symbols
    if len(a) != len(b):
        out.append(f"symbols: {len(a)} updated, {len(b)} built")
    else:
        rows = [i for i in range(len(a)) if a[i] != b[i]]
        if rows:
            out.append(f"symbols: {len(rows)} rows differ, first {a[rows[0]].id}")
    if updated.files() != built.files():
        out.append("file entries differ")
    ma, mb = updated.manifest, built.manifest
    if ma.counts != mb.counts:
        out.append(f"counts: {ma.counts} != {mb.counts}")
    if ma.skipped != mb.skipped:
        out.append("skipped files differ")
    ga, gb = updated.graph, built.graph
    ea = {(e.src, e.dst, e.kind, e.line, e.resolution) for e in ga.to_edges(a)}
    eb = {(e.src, e.dst, e.kind, e.line, e.resolution) for e in gb.to_edges(b)}
    if ea != eb:
        out.append(f"edges: {len(ea - eb)} only updated, {len(eb - ea)} only built")
    if (ga.external != gb.external).any() or (ga.unresolved != gb.unresolved).any():
        out.append("external/unresolved call counts differ")
    if (
        len(ga.pagerank) == len(gb.pagerank)
        and abs(ga.pagerank - gb.pagerank).max(initial=0) > 1e-9
    ):
        out.append("pagerank differs")
    if (ga.community != gb.community).any() if len(ga.community) == len(gb.community) else True:
        out.append("communities differ")
    sa, sb = Searcher(updated, embedder=embedder), Searcher(built, embedder=embedder)
    for mode in modes:
        for q in queries:
            ta = [h.id for h in sa.search(q, 10, mode=mode)]
            tb = [h.id for h in sb.search(q, 10, mode=mode)]
            if ta != tb:
                out.append(f"{mode} top-10 for {q!r} differs")
    return out

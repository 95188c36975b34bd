"""What differs between two indexes of the same commit: the invariant of an update, checked by
the tests and by ``benchmarks/update_replay.py``.

A settled index (built, or updated and settled) is identical to one built from scratch in every
respect. An unsettled one (updated since its last settle: ``update.unsettled``) is identical in
everything but two derived values that wait for the settle (ARCHITECTURE.md, "The update
invariant"): the keyword index's BM25 statistics, which still count the deleted documents of
changed symbols, and the communities, carried over (or pending until the vectors come, or
detected afresh by the background embedder: then compared). For those two it is held to what
it must be meanwhile: every symbol searchable by exactly one live document, and every community
label one of the base's (a new symbol none)."""

from __future__ import annotations

from codebot.index.store import Index
from codebot.query.search import Searcher

__all__ = ["index_differences"]


# Counts that say how far an index is from its settle: not part of what it describes.
_SETTLE_COUNTS = ("lexical_deleted", "carried_symbols")
# Community methods of labels that wait for a detection: carried over by updates until the
# settle, or pending until the vectors come (index.background). Any other was detected.
_WAITING = ("carried", "pending", "none")


def index_differences(
    updated: Index, built: Index, queries: list[str], modes: list[str], embedder=None
) -> list[str]:
    """What differs between two indexes of the same commit (empty: identical): symbols row by
    row, files, counts, skipped files, edges with their resolution, call counts, PageRank,
    communities, and the top 10 of each query in each search mode. The invariant of an update
    (tests and ``benchmarks/update_replay.py`` check it against a fresh build); for an unsettled
    ``updated``, communities and rankings are checked as the module says."""
    from codebot.index.update import unsettled

    settled = not unsettled(updated.manifest)
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
    ca = {k: v for k, v in ma.counts.items() if settled or k not in _SETTLE_COUNTS}
    cb = {k: v for k, v in mb.counts.items() if settled or k not in _SETTLE_COUNTS}
    if ca != cb:
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
    if settled or ga.meta.get("community_method") not in _WAITING:  # detected: as a build's
        if (ga.community != gb.community).any() if len(ga.community) == len(gb.community) else True:
            out.append("communities differ")
    if not settled:
        return out + _unsettled_differences(updated)
    sa, sb = Searcher(updated, embedder=embedder), Searcher(built, embedder=embedder)
    for mode in modes:
        for q in queries:
            ta = [h.id for h in sa.search(q, 10, mode=mode)]
            tb = [h.id for h in sb.search(q, 10, mode=mode)]
            if ta != tb:
                out.append(f"{mode} top-10 for {q!r} differs")
    return out


def _unsettled_differences(updated: Index) -> list[str]:
    """What an unsettled index must hold for its keyword index and communities: one live
    document per symbol (found by its key), and communities carried (labels in range)."""
    out = []
    graph = updated.graph
    if len(graph.community) and graph.community.max(initial=-1) >= len(graph.communities):
        out.append("a carried community label out of range")
    from codebot.index.lexical import LexicalIndex

    live = len(LexicalIndex(updated.gen_dir / "lexical"))  # documents not deleted
    if live != len(updated.symbols):
        out.append(f"lexical: {live} live documents, {len(updated.symbols)} symbols")
    return out

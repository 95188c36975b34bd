"""``codebot precise``'s generation: the committed index with a SCIP index's edges merged in.

:func:`apply_precise` maps one or more SCIP indexes (:mod:`codebot.graph.scip`) onto the index's
symbols (:func:`codebot.graph.precise.map_scip`) and writes the next generation: every file of
the base linked unchanged but the graph, re-resolved with the precise edges merged, and
``precise.msgpack`` beside it. Later updates carry that file and merge it again, serving only
the edges of files unchanged since (see :mod:`codebot.graph.precise`).

A SCIP index describes the work tree it was made from: a document whose file on disk is not the
blob the index holds is left out (``documents_changed``), so the edges always describe the
indexed commit. Running the indexers is not done here (``serve/indexers.py``).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from codebot.core.errors import PreciseError
from codebot.git.workspace import Workspace
from codebot.graph.precise import PreciseEdges, map_scip, rebase_paths
from codebot.graph.scip import ScipIndex
from codebot.index.store import Index, Manifest, lock_for_writing, read_manifest
from codebot.index.tables import file_result
from codebot.index.writer import GenerationWriter

__all__ = ["PreciseReport", "apply_precise", "combine"]


@dataclass
class PreciseReport:
    commit: str | None
    tools: list[str]
    mapping: dict[str, int]
    merged: dict[str, Any]
    generation: str
    skipped_documents: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        m = self.mapping
        refs, callable_ = m.get("references", 0), m.get("callable_references", 0)
        return {
            "commit": self.commit,
            "tools": self.tools,
            "generation": self.generation,
            "documents": m.get("documents", 0),
            "references": refs,
            "references_mapped": m.get("references_mapped", 0),
            "mapped_share": round(m.get("references_mapped", 0) / refs, 4) if refs else 1.0,
            "callable_references": callable_,
            "callable_mapped_share": (
                round(m.get("callable_references_mapped", 0) / callable_, 4) if callable_ else 1.0
            ),
            "mapping": m,
            "merged": self.merged,
        }

    def to_text(self) -> str:
        d = self.to_dict()
        at = (self.commit or "the work tree")[:12]
        g = self.merged
        return (
            f"precise at {at} ({', '.join(self.tools) or 'SCIP'}): {d['documents']} files\n"
            f"references   {d['references_mapped']} of {d['references']} to repository "
            f"definitions mapped to codebot symbols ({d['mapped_share']:.1%}; functions and "
            f"types {d['callable_mapped_share']:.1%} of {d['callable_references']}; "
            f"parameters and fields, which codebot does not index, left out)\n"
            f"call edges   {g.get('edges', 0)} precise ({g.get('confirmed', 0)} confirm a "
            f"heuristic edge, {g.get('new', 0)} new), {g.get('dropped', 0)} heuristic edges "
            "the precise index contradicts dropped\n"
        )


def combine(parts: list[PreciseEdges]) -> PreciseEdges:
    """Several indexers' edges as one (a Python and a TypeScript index of one repository)."""
    out = PreciseEdges(parts[0].commit if parts else None)
    counts: Counter[str] = Counter()
    for p in parts:
        out.files.update(p.files)
        for src, sites in p.sites.items():
            out.sites.setdefault(src, []).extend(sites)
        counts.update(p.mapping)
    out.tool = ", ".join(p.tool for p in parts if p.tool)
    out.mapping = dict(sorted(counts.items()))
    return out


def apply_precise(ws: Workspace, scips: list[ScipIndex], wait: float = 0.0) -> PreciseReport:
    """Write the next generation of ``ws``'s index with the edges of ``scips`` merged."""
    with lock_for_writing(ws.index_dir, wait=wait):
        manifest = read_manifest(ws.index_dir)
        base = Index(ws.index_dir, ws.root, manifest, ws.repo)
        table, by_id = base.symbols, base.by_id
        files = [file_result(e, [table[by_id[s]] for s in e.symbols]) for e in base.files()]
        indexed = {f.path: f.content_hash for f in files}
        prefix = f"{ws.subtree}/" if ws.subtree else ""
        skipped: list[str] = []
        parts = []
        for scip in scips:
            rebase_paths(scip, set(indexed), prefix)
            kept = []
            for doc in scip.documents:
                if doc.path in indexed and _on_disk(ws, doc.path) != indexed[doc.path]:
                    skipped.append(doc.path)  # the work tree is not the indexed commit here
                    continue
                kept.append(doc)
            scip.documents = kept
            parts.append(map_scip(scip, files, manifest.commit))
        if not parts or not any(p.files for p in parts):
            raise PreciseError(
                "the SCIP index covers none of the indexed files (was it made in this "
                "repository, at the indexed commit?)"
            )
        precise = combine(parts)
        precise.mapping["documents_changed"] = len(skipped)
        with GenerationWriter(ws.index_dir, base) as writer:
            writer.link_from_base(but="graph.msgpack")
            writer.precise = precise
            counts = writer.graph(files, table)
            merged = writer.last_graph_meta.get("precise", {})
            new = Manifest(**{**vars(manifest), "counts": {**manifest.counts, **counts}})
            committed = writer.commit(new)
        return PreciseReport(
            manifest.commit,
            [p.tool for p in parts if p.tool],
            precise.mapping,
            merged,
            committed.generation,
            skipped,
        )


def _on_disk(ws: Workspace, path: str) -> str | None:
    from codebot.parse.extract import blob_id

    try:
        return blob_id((ws.root / path).read_bytes())
    except OSError:
        return None

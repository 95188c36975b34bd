"""What ``codebot status`` and the MCP tool ``index_status`` say about an index: where it is, what
it describes, how big it is, which files it skipped and which work-tree files differ from it.

One report, two readers: the command prints :meth:`IndexStatus.to_text` (or ``to_dict`` with
--json); the server prints the same text between its own ``repo`` and ``updates`` lines.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from codebot.core.config import Config
from codebot.core.model import printable
from codebot.git.repo import short_commit
from codebot.git.workspace import Workspace
from codebot.index.background import EmbedProgress, embedding_progress
from codebot.index.overlay import dirty_paths, open_index
from codebot.index.store import Index, Manifest, ensure_intact, read_index

__all__ = ["IndexStatus", "index_status", "worktree_note", "worktree_state"]

_LISTED = 10  # differing paths named in the text; the rest are counted


@dataclass(frozen=True)
class IndexStatus:
    index_dir: Path
    root: Path
    manifest: Manifest
    in_git: bool
    head: str | None  # HEAD's commit (None outside git, or before the first commit)
    differs: list[str]  # work-tree paths that may differ from the index
    vectors: EmbedProgress  # complete, none, or still to come (with the embedder's progress)
    precise: dict[str, Any] | None = None  # the graph's precise edges (codebot precise), if any

    def to_dict(self) -> dict[str, Any]:
        out = {
            "index_dir": str(self.index_dir),
            "root": str(self.root),
            **self.manifest.to_dict(),
            "worktree": {"differs": self.differs},
            "vectors": self.vectors.to_dict(),
        }
        if self.precise:
            out["precise"] = self.precise
        return out

    def to_text(self) -> str:
        m, c, emb = self.manifest, self.manifest.counts, self.manifest.embedder
        embedder = f"{emb['name']} ({emb['dimension']} dims)" if emb else "none (keywords only)"
        if m.vectors_pending:
            embedder = f"{m.vectors_pending['provider']} (vectors {self.vectors.to_text()})"
        elif m.vectors_behind:  # an update's changed symbols: found by keywords meanwhile
            n = len(m.vectors_behind)
            embedder += f"; {n} changed symbol(s)' vectors {self.vectors.to_text()}"
        lines = [
            f"index     {self.index_dir}  ({m.generation})",
            f"root      {self.root}{'/' + m.root if m.root else ''}",
            f"commit    {m.commit or '(not a git repository)'}",
            f"built     {m.created} by codebot {m.codebot_version}",
            f"embedder  {embedder}",
            f"contents  {c['files']} files, {c['symbols']} symbols ({c['chunks']} chunks), "
            f"{c['vectors']} vectors",
        ]
        if self.in_git:
            behind = ""
            if self.head != m.commit:
                behind = f" (HEAD is at {short_commit(self.head)}: run codebot update)"
            if self.differs:
                shown = ", ".join(printable(p) for p in self.differs[:_LISTED])
                more = len(self.differs) - _LISTED
                shown += f" and {more} more" if more > 0 else ""
                lines.append(
                    f"work tree {len(self.differs)} file(s) differ from the index{behind}: {shown}"
                )
            else:
                lines.append("work tree clean")
        if self.precise:
            p = self.precise
            at = (p.get("commit") or "the work tree")[:12]
            lines.append(
                f"precise   at {at}, {p['stale_files']} files heuristic since "
                f"({p['edges']} precise call edges)"
            )
        lines.append(f"skipped   {c['skipped']} files")
        lines += [f"  {printable(s['path'])}: {s['reason']}" for s in m.skipped]
        return "\n".join(lines) + "\n"


def index_status(ws: Workspace) -> IndexStatus:
    """The status of the committed index of ``ws`` and of the work tree against it. Every file
    of the index is checked against the checksum recorded when it was written: status is where
    a damaged file shows up first (a DamagedIndex naming it and the fix)."""
    committed = read_index(ws)
    ensure_intact(ws.index_dir, committed.manifest)
    repo = ws.repo
    differs = dirty_paths(repo, committed) if repo is not None else []
    head = repo.head_commit() if repo is not None else None
    vectors = embedding_progress(ws.index_dir, committed.manifest)
    precise = None
    if "precise.msgpack" in committed.manifest.checksums:  # codebot precise: its freshness
        precise = committed.graph.meta.get("precise") or None
    return IndexStatus(
        ws.index_dir, ws.root, committed.manifest, repo is not None, head, differs, vectors,
        precise,
    )  # fmt: skip


def worktree_note(ws: Workspace, manifest: Manifest) -> str | None:
    """What a user who just built the index should hear about the work tree: queries see its
    uncommitted files (the overlay), but the index describes the commit."""
    if ws.repo is None:
        return None
    if manifest.commit is None:
        return "nothing is committed yet: queries read the files from the work tree"
    dirty = dirty_paths(ws.repo, Index(ws.index_dir, ws.root, manifest, ws.repo))
    if not dirty:
        return None
    return (
        f"{len(dirty)} uncommitted file(s) differ from {short_commit(manifest.commit)}: "
        "queries read them from the work tree"
    )


def worktree_state(ws: Workspace, config: Config) -> dict[str, Any]:
    """Refresh the overlay of uncommitted edits now (``codebot update --worktree``) and say what
    it holds."""
    view = open_index(ws, config)
    return {
        "overlay": view.manifest.overlay is not None,
        "generation": view.manifest.generation,
        "files": sorted((view.manifest.overlay or {}).get("files", {})),
    }

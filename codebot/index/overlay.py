"""The work tree overlay: queries answer for the files as they are on disk, not only as committed.

An agent that just edited a function must find the new version, and never one it deleted. The
committed index (in the common git dir) describes a commit; the overlay is that index with the
work tree's differences applied, kept in the work tree's own git dir (each linked worktree has its
own). Every query checks, cheaply, whether it is still right:

1. ``git status`` (git's index keeps stat data: an unchanged file costs a stat) plus, when HEAD
   moved past the indexed commit and the hook's update has not caught up yet, the commits between;
2. the stat (mtime, size) of those paths, against the ones the overlay was made from;
3. only when they differ: the dirty files are hashed, and those whose content differs from the
   indexed blob are reparsed into a new overlay generation (the update machinery of ``update``).

A clean work tree costs step 1 and answers from the committed index; it also writes the clean
stamp (``git/cleanstamp.py``: the stat of everything git looks at), and while HEAD is the
index's commit and nothing the stamp recorded changed, later queries answer from the committed
index before step 1, without opening the repository with pygit2.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from codebot.core.config import Config
from codebot.core.errors import StoreError
from codebot.git.cleanstamp import STAMP, stamp_holds, start_clock, write_stamp
from codebot.git.repo import MODE_LINK, Repo
from codebot.git.workspace import Workspace, under
from codebot.index.store import Index, claim, lock_for_writing, read_index, read_manifest
from codebot.parse.files import Selector

__all__ = ["dirty_paths", "open_index", "stamp_if_clean", "worktree_index"]


def open_index(
    where: Workspace | str | Path, config: Config, worktree: bool = True, embedder=None
) -> Index:
    """The index of the repository or directory ``where`` belongs to.

    The committed index is read from the store; with ``worktree`` (in a git repository) the
    overlay of the work tree's uncommitted edits, new and deleted files is composed above it
    (see :func:`worktree_index`). ``embedder``: the one to embed edited symbols with (default:
    the index's own).
    """
    ws = Workspace.of(where, config.index_dir)
    index = read_index(ws)
    if worktree and ws.repo is not None:
        return worktree_index(index, ws, config, embedder)
    return index


def dirty_paths(repo: Repo, index: Index) -> list[str]:
    """Paths where the work tree may differ from what ``index`` holds."""
    paths = set(repo.dirty_paths())
    head = repo.head_commit()
    if head != index.manifest.commit:  # the update after a commit or checkout is still running
        for change in repo.diff(index.manifest.commit, head):
            paths.update(p for p in (change.path, change.old_path) if p)
    return sorted(p for p in paths if under(p, index.manifest.root))


def worktree_index(index: Index, ws: Workspace, config: Config, embedder=None) -> Index:
    """``index`` (committed) as the work tree sees it: itself when the tree is clean, else the
    overlay, brought up to date first if the files moved since it was made."""
    repo = ws.repo
    odir = ws.overlay_dir
    vouch = _vouch(index)
    if odir is not None and stamp_holds(odir / STAMP, repo, vouch):
        return index  # clean, and nothing git looks at changed since it was proved so
    started = start_clock()
    paths = dirty_paths(repo, index)
    if not paths:
        _stamp_clean(ws, index, vouch, started)
        return index
    want = {
        "base": str(index.gen_dir),
        "files": {p: _stamp(index.root / p) for p in paths},
    }
    current = _current(odir, index.root, want, repo)
    if current is not None:
        return current
    with lock_for_writing(odir, wait=120):
        current = _current(odir, index.root, want, repo)  # another query may have just made it
        if current is not None:
            return current
        changes = _changes(index, paths)
        if not changes:  # touched, or changed and changed back: nothing differs
            _stamp_clean(ws, index, vouch, started, paths)
            return index
        from codebot.index.update import apply_changes

        selector = Selector(index.root, repo, config, index.manifest.commit)
        report = apply_changes(
            index, changes, selector, odir, config, embedder, None, index.manifest.commit,
            overlay=want,
        )  # fmt: skip
        return Index(odir, index.root, report.manifest, repo)


def stamp_if_clean(ws: Workspace) -> None:
    """After a build: when the work tree is clean (``git status``, pygit2 being loaded anyway),
    write the clean stamp, so that the first query needs no pygit2 either."""
    if ws.repo is None or ws.overlay_dir is None:
        return
    try:
        index = read_index(ws)
        started = start_clock()
        if not dirty_paths(ws.repo, index):
            _stamp_clean(ws, index, _vouch(index), started)
    except Exception as exc:  # noqa: BLE001 - a shortcut only: the first query takes the full
        from codebot.git.hooks import append_log  # path, and reports the error to its user

        append_log(ws.index_dir, f"clean stamp: not written ({type(exc).__name__}: {exc})")


def _vouch(index: Index) -> dict[str, Any]:
    """What a clean stamp vouches for: this generation of the committed index, at its commit."""
    return {
        "generation": str(index.gen_dir),
        "commit": index.manifest.commit,
        "root": index.manifest.root,
    }


def _stamp_clean(
    ws: Workspace, index: Index, vouch: dict[str, Any], started: int, touched=()
) -> None:
    """The clean stamp, when the committed index is the work tree's and HEAD is its commit
    (``touched``: dirty paths whose content is the indexed one, watched as well)."""
    odir = ws.overlay_dir
    if odir is None or ws.repo.head_commit() != index.manifest.commit:
        return
    try:
        claim(odir)  # codebot writes only in a directory it marked its own
    except StoreError:
        return  # best effort: the next query takes the full path again
    write_stamp(odir / STAMP, ws.repo, index.manifest.root, vouch, started, touched)


def _current(odir: Path, root: Path, want: dict[str, Any], repo: Repo) -> Index | None:
    try:
        manifest = read_manifest(odir)
    except StoreError:
        return None
    return Index(odir, root, manifest, repo) if manifest.overlay == want else None


def _stamp(path: Path) -> list[int] | None:
    try:
        st = os.lstat(path)
    except OSError:
        return None
    return [st.st_mtime_ns, st.st_size]


def _changes(index: Index, paths: list[str]) -> dict[str, tuple[int, None] | None]:
    """What each dirty path is on disk, leaving out those whose content is what was indexed."""
    from codebot.parse.extract import blob_id

    blobs = {f.path: f.blob for f in index.files()}
    known = set(blobs) | {s["path"] for s in index.manifest.skipped}
    changes: dict[str, tuple[int, None] | None] = {}
    for path in paths:
        full = index.root / path
        if not os.path.lexists(full):
            if path in known:
                changes[path] = None
            continue
        if full.is_dir() and not full.is_symlink():
            continue  # a submodule's work tree: not ours to index
        if full.is_symlink():
            changes[path] = (MODE_LINK, None)
            continue
        try:
            if blobs.get(path) == blob_id(full.read_bytes()):
                continue
        except OSError:
            pass  # unreadable: classify() will say so
        changes[path] = (0, None)
    return changes

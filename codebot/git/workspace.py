"""Where things are, found once: the :class:`Workspace` every command and MCP tool passes down.

A path on the command line (``codebot search`` in a subdirectory, ``codebot index src/``)
becomes, in one step at the edge, the work tree or directory it belongs to, the open repository,
the indexed subtree, and where the index, the work tree's overlay, the vector cache and the hook
log live. Library code takes the workspace and never locates anything from a path string again.

    repository (git)                        plain directory
    ─────────────────────────────           ─────────────────────────
    root         the work tree              the directory
    index_dir    <common git dir>/codebot   <root>/.codebot
    overlay_dir  <worktree's git dir>/codebot-overlay   (none)

Linked worktrees share their repository's common git dir, so they share the committed index;
each keeps its own overlay. A user's ``index_dir`` setting moves the index (and the overlay into
``<index_dir>/overlay``).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, replace
from pathlib import Path

from codebot.git.refs import read_head
from codebot.git.repo import Repo, open_repo

__all__ = ["INDEX_MARKER", "LOG", "Workspace", "under"]

OVERLAY_DIR = "codebot-overlay"
LOG = "update.log"
#: The file that marks a directory as codebot's index (written by index.store.claim): codebot
#: writes and deletes only there, and never indexes such a directory as code.
INDEX_MARKER = ".codebot-index"


@dataclass(frozen=True)
class Workspace:
    """What a path given to codebot stands for; build it with :meth:`at`."""

    target: Path  # the path as asked for, resolved (a file, a subdirectory or the root)
    root: Path  # the work tree, or the directory outside git; indexed paths are relative to it
    repo: Repo | None
    subtree: str  # the part of the repository indexed ("" for all of it)
    index_dir: Path
    overlay_dir: Path | None  # this work tree's overlay of uncommitted edits (None outside git)

    @classmethod
    def at(cls, path: str | Path, index_dir: str | Path | None = None) -> Workspace:
        """The workspace of ``path``: the repository is found here, once.

        Inside a git work tree the root is the work tree and the subtree the path under it; a
        directory git tracks nothing in (an ignored one, say) is read as a plain directory,
        except in a repository with no commit yet, where nothing is tracked by definition (its
        files are the overlay's until the first commit). ``index_dir``: the user's override.

        A work tree's root in a plain layout (see :func:`_quick_repo`) is found without pygit2:
        the repository opens on first use, which a query on a clean work tree never makes.
        """
        target = Path(path).resolve()
        quick = _quick_repo(target)
        if quick is not None:  # the work tree's root, read without pygit2 (opened on use)
            return cls(target, target, quick, "", *_dirs(target, quick, index_dir))
        repo = open_repo(target if target.is_dir() else target.parent)
        root, subtree = (target if target.is_dir() else target.parent), ""
        if repo is not None and target.is_relative_to(repo.workdir):
            sub = target.relative_to(repo.workdir).as_posix()
            sub = "" if sub == "." else sub
            if _tracks_any(repo, sub) or repo.head_commit() is None:
                root, subtree = repo.workdir, sub
            else:
                repo = None
        else:
            repo = None
        return cls(target, root, repo, subtree, *_dirs(root, repo, index_dir))

    @classmethod
    def of(cls, where: Workspace | str | Path, index_dir: str | Path | None = None) -> Workspace:
        """``where`` itself when it is a workspace already, else :meth:`at`."""
        return where if isinstance(where, Workspace) else cls.at(where, index_dir)

    def with_index_dir(self, index_dir: str | Path | None) -> Workspace:
        """The same workspace with the user's ``index_dir`` setting applied (None: the default)."""
        if index_dir is None:
            return self
        index, overlay = _dirs(self.root, self.repo, index_dir)
        return replace(self, index_dir=index, overlay_dir=overlay)

    @property
    def cache_dir(self) -> Path:
        """Embedding vectors by text hash, kept across builds."""
        return self.index_dir / "cache"

    @property
    def downloads_dir(self) -> Path:
        """Artifacts being fetched (a broken download resumes from here)."""
        return self.index_dir / "downloads"

    @property
    def log_path(self) -> Path:
        """The git hooks' update log."""
        return self.index_dir / LOG

    @property
    def single_file(self) -> bool:
        """Whether the path asked for is one file outside git (only it is indexed)."""
        return self.repo is None and not self.target.is_dir()


def under(rel: str, sub: str) -> bool:
    """Whether ``rel`` is the subtree ``sub`` or inside it ("" is the whole tree)."""
    return not sub or rel == sub or rel.startswith(sub.rstrip("/") + "/")


def _tracks_any(repo: Repo, sub: str) -> bool:
    return any(under(path, sub) for path, _ in repo.tracked())


def _quick_repo(target: Path) -> Repo | None:
    """The repository whose work tree's root is ``target``, not opened yet, when what
    :meth:`Workspace.at` would find through pygit2 is plain from a few small files: HEAD names a
    commit (``git/refs.py``), git's index has entries (so the root tracks some), the git dir and
    the work tree are the user's (else pygit2's ownership check decides), and the configuration
    moves no work tree and makes no bare repository. None: open it with pygit2."""
    if not target.is_dir():
        return None
    head = read_head(target)
    if head is None or head.workdir != target:
        return None
    try:
        gitdir = head.gitdir.resolve()
        uid = os.geteuid() if hasattr(os, "geteuid") else None
        if uid is None or os.stat(gitdir).st_uid != uid or os.stat(target).st_uid != uid:
            return None
        with open(gitdir / "index", "rb") as f:
            header = f.read(12)
        if header[:4] != b"DIRC" or int.from_bytes(header[8:12], "big") == 0:
            return None
        for config in (head.common / "config", gitdir / "config.worktree"):
            if config.is_file() and not _plain_config(config, gitdir, target):
                return None
    except (OSError, UnicodeDecodeError):
        return None
    return Repo.lazy(target, gitdir)


def _plain_config(config: Path, gitdir: Path, workdir: Path) -> bool:
    """Whether a git config file leaves the repository non-bare, its work tree where it is."""
    for line in config.read_text().splitlines():
        key, eq, value = line.split("#", 1)[0].split(";", 1)[0].partition("=")
        key, value = key.strip().lower(), value.strip().strip('"')
        if key == "bare" and (not eq or value.lower() not in ("false", "no", "off", "0")):
            return False
        if key == "worktree" and (gitdir / value).resolve() != workdir:
            return False
    return True


def _dirs(root: Path, repo: Repo | None, override: str | Path | None) -> tuple[Path, Path | None]:
    """(index dir, overlay dir)."""
    if override:
        index_dir = Path(override).expanduser().resolve()
        return index_dir, (index_dir / "overlay" if repo is not None else None)
    if repo is None:
        return root / ".codebot", None
    common = repo.gitdir
    if (common / "commondir").is_file():
        common = (common / (common / "commondir").read_text().strip()).resolve()
    return common / "codebot", repo.gitdir / OVERLAY_DIR

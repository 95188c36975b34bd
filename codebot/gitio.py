"""Git access through pygit2: find the repository, list its tracked files, name its commit."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from .errors import GitError

__all__ = ["Repo", "open_repo", "MODE_LINK", "MODE_SUBMODULE"]

MODE_LINK = 0o120000
MODE_SUBMODULE = 0o160000


@dataclass
class Repo:
    """An open repository and where it is: its work tree and its git directory."""

    git: object  # pygit2.Repository; typed loosely to keep pygit2 out of import time
    workdir: Path
    gitdir: Path

    def tracked(self) -> Iterator[tuple[str, int]]:
        """(path, mode) of every entry in the index, in path order."""
        for entry in self.git.index:
            yield entry.path, entry.mode

    def head_commit(self) -> str | None:
        """The commit HEAD points to, or None on an unborn branch."""
        if self.git.head_is_unborn:
            return None
        return str(self.git.head.target)


def open_repo(path: str | Path) -> Repo | None:
    """The non-bare repository containing ``path``, or None when ``path`` is not in one."""
    import pygit2

    found = pygit2.discover_repository(str(path))
    if found is None:
        return None
    try:
        repo = pygit2.Repository(found)
    except pygit2.GitError as exc:
        if "not owned by" in str(exc):
            raise GitError(
                f"{found}: git refuses a repository owned by another user. If you trust it, run: "
                f"git config --global --add safe.directory {Path(found).parent}"
            ) from exc
        raise GitError(f"{found}: cannot open the repository: {exc}") from exc
    if repo.is_bare or repo.workdir is None:
        raise GitError(
            f"{found}: a bare repository has no files to index; use a clone with a work tree"
        )
    return Repo(repo, Path(repo.workdir).resolve(), Path(repo.path).resolve())


def repository_root(path: str | Path) -> Path:
    """The work tree root containing ``path`` (found by its ``.git``), else the directory itself.

    Cheap on purpose (no pygit2): the CLI calls it to find the configuration file.
    """
    start = Path(path).resolve()
    if not start.is_dir():
        start = start.parent
    for candidate in (start, *start.parents):
        if (candidate / ".git").exists():
            return candidate
    return start

"""HEAD's commit read from the git directory's files, with the standard library only.

What the quick no-op ``codebot update`` (``index.fresh``) needs before anything heavy is imported:
opening a repository with pygit2 costs an import of about 0.1-0.3 s, more than the whole answer
"nothing changed" may take. Only the plain layouts are read: a ``.git`` directory or a ``.git``
file naming a linked worktree's git dir, loose refs and ``packed-refs``. Anything else (``GIT_DIR``
and friends set, the reftable format, an unborn branch, a ref that cannot be read) is ``None``:
the caller then takes the ordinary path through pygit2, which knows every layout.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import NamedTuple

__all__ = ["GitHead", "read_head"]

_HEX = frozenset("0123456789abcdef")
# Variables that move the repository elsewhere than the work tree's .git: leave those to pygit2.
_MOVED = ("GIT_DIR", "GIT_WORK_TREE", "GIT_COMMON_DIR", "GIT_INDEX_FILE", "GIT_CEILING_DIRECTORIES")


class GitHead(NamedTuple):  # not a dataclass: its import costs more than this whole module
    workdir: Path  # the work tree's root
    gitdir: Path  # this work tree's git dir (a linked worktree's own)
    common: Path  # the repository's common git dir (refs, objects, codebot's index)
    commit: str  # HEAD's commit


def read_head(path: Path) -> GitHead | None:
    """The work tree holding ``path`` and the commit its HEAD names, or None when that is not
    plainly readable here (see the module's text)."""
    if any(os.environ.get(name) for name in _MOVED):
        return None
    try:
        found = _find_gitdir(path)
        if found is None:
            return None
        workdir, gitdir = found
        common = gitdir
        if (gitdir / "commondir").is_file():
            common = (gitdir / (gitdir / "commondir").read_text().strip()).resolve()
        if (common / "reftable").exists():
            return None
        commit = _resolve(gitdir, common, "HEAD")
    except (OSError, UnicodeDecodeError):
        return None
    return None if commit is None else GitHead(workdir, gitdir, common, commit)


def _find_gitdir(path: Path) -> tuple[Path, Path] | None:
    for here in (path, *path.parents):
        dot = here / ".git"
        if dot.is_dir():
            return here, dot
        if dot.is_file():
            text = dot.read_text().strip()
            if not text.startswith("gitdir:"):
                return None
            target = Path(text[len("gitdir:") :].strip())
            return here, (target if target.is_absolute() else (here / target)).resolve()
    return None


def _resolve(gitdir: Path, common: Path, ref: str) -> str | None:
    for _ in range(5):  # symbolic refs pointing at symbolic refs: a few levels, never a loop
        text = _read_ref(gitdir, common, ref)
        if text is None:
            return None
        if text.startswith("ref:"):
            ref = text[4:].strip()
            continue
        return text if len(text) in (40, 64) and set(text) <= _HEX else None
    return None


def _read_ref(gitdir: Path, common: Path, ref: str) -> str | None:
    """A ref's content: HEAD (and other per-worktree refs) in the work tree's git dir, the rest
    in the common dir, loose or packed."""
    if ref == "HEAD" or ref.startswith(("refs/bisect/", "refs/worktree/", "refs/rewritten/")):
        base = gitdir
    else:
        base = common
    if ".." in ref.split("/"):
        return None
    loose = base / ref
    if loose.is_file():
        return loose.read_text().strip()
    packed = common / "packed-refs"
    if ref == "HEAD" or not packed.is_file():
        return None
    for line in packed.read_text().splitlines():
        if line.startswith(("#", "^")):
            continue
        sha, _, name = line.partition(" ")
        if name == ref:
            return sha
    return None

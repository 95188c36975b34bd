"""The clean stamp: "this work tree was clean at this commit", proved once by ``git status`` and
trusted afterwards while nothing git looks at has changed, so that a query on a clean tree needs
no pygit2 at all (its import alone costs about 35 ms of a 180 ms keyword query).

The overlay (``index/overlay.py``) writes it when the full path (``git status`` plus HEAD) found
the tree clean, and reads it before anything else. It records what it vouches for (the index's
generation, commit and subtree, chosen by the caller) and the ``lstat`` of everything whose
change could make ``git status`` answer otherwise:

    every file git's index tracks under the subtree      an edit, a deletion, a type change
    every directory git would scan for untracked files   a new file or directory appears there
    (the work tree under the subtree, less .git and      (its directory's mtime moves); ignored
    what git ignores)                                     directories are not scanned, as git
    .git/index, info/exclude, info/attributes, config    ``git add``, what git ignores or how it
    the user's and the system's git configuration,       reads files
    excludes and attributes files (absent: recorded so)
    the GIT_* variables, HOME and XDG_CONFIG_HOME

A stat is (mtime, ctime, size, inode, mode): ctime, which no tool can set back, catches a write
that restores its mtime. The racy-git rule: nothing is recorded that changed within
:data:`RACY_NS` (2 s) before the status began, or :data:`FINE_RACY_NS` (0.1 s) for a timestamp
with a fraction of a second (a write in the same timestamp tick after it would be invisible);
such a stamp is not written, and the next query tries again. Only the standard
library and msgpack load on the reading side; anything unreadable is "don't know".
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from codebot.git.refs import read_head
from codebot.git.repo import Repo

__all__ = ["FINE_RACY_NS", "RACY_NS", "STAMP", "stamp_holds", "start_clock", "write_stamp"]

STAMP = "clean.msgpack"
VERSION = 1
#: How long before the status a recorded file must have last changed (the racy-git window; the
#: coarsest file timestamps are 2 s), and for a timestamp with a fraction of a second (see
#: ``_racy``). Tests lower them.
RACY_NS = 2_000_000_000
FINE_RACY_NS = 100_000_000
_ENV = ("HOME", "XDG_CONFIG_HOME")


def start_clock() -> int:
    """The time to pass to :func:`write_stamp`: taken before ``git status`` starts."""
    return time.time_ns()


def stamp_holds(stamp: Path, repo: Repo, vouch: dict[str, Any]) -> bool:
    """Whether the stamp at ``stamp`` vouches for ``vouch`` and the work tree of ``repo`` is as it
    recorded, HEAD at ``vouch["commit"]``; False for anything else (including an unreadable
    stamp). Never opens pygit2."""
    head = read_head(repo.workdir)
    if head is None or head.commit != vouch.get("commit"):
        return False
    try:
        import msgpack

        data = msgpack.unpackb(stamp.read_bytes())
        if not isinstance(data, dict) or data.get("version") != VERSION:
            return False
        if data.get("vouch") != vouch or data.get("env") != _env():
            return False
        if data.get("workdir") != str(repo.workdir) or data.get("gitdir") != str(repo.gitdir):
            return False
        stats = data["stats"]
        if not isinstance(stats, dict):
            return False
        return all(_lstat(path) == recorded for path, recorded in stats.items())
    except Exception:  # corrupt, truncated, another shape: don't know
        return False


def write_stamp(
    stamp: Path,
    repo: Repo,
    subtree: str,
    vouch: dict[str, Any],
    started: int,
    also: Iterable[str] = (),
) -> bool:
    """Record that the work tree of ``repo`` under ``subtree`` is clean as ``vouch`` says, a
    status begun at ``started`` (:func:`start_clock`) having proved it; ``also``: more work-tree
    paths to watch. False when it was not written (racy, or not writable: best effort)."""
    root = repo.workdir
    stats: dict[str, Any] = {}
    for path, _mode in repo.tracked():
        if not subtree or path == subtree or path.startswith(subtree.rstrip("/") + "/"):
            stats[str(root / path)] = None
    for path in also:
        stats[str(root / path)] = None
    start = root / subtree if subtree else root
    for directory in _scanned_dirs(repo, start):
        stats[directory] = None
    for path in _git_files(repo):
        stats[path] = None
    for path in stats:
        st = _lstat(path)
        if st is not None and _racy(st, started):
            return False  # changed too close to the status to trust its stat
        stats[path] = st
    data = {
        "version": VERSION,
        "vouch": vouch,
        "workdir": str(root),
        "gitdir": str(repo.gitdir),
        "env": _env(),
        "stats": stats,
    }
    import msgpack

    tmp = stamp.with_name(f".{stamp.name}.{os.getpid()}.tmp")
    try:
        stamp.parent.mkdir(parents=True, exist_ok=True)
        tmp.write_bytes(msgpack.packb(data))
        os.replace(tmp, stamp)
    except OSError:
        tmp.unlink(missing_ok=True)
        return False
    return True


def _racy(st: list[int], started: int) -> bool:
    """Whether a file's last change (mtime or ctime) is too close to the status begun at
    ``started`` for its stat to prove anything. A timestamp in whole seconds may come from a
    file system that keeps no finer ones (FAT: 2 s): :data:`RACY_NS`. One with a fraction of a
    second comes from one that keeps at least tens of milliseconds (exFAT 10 ms; ext4, XFS,
    btrfs, APFS, NTFS finer): :data:`FINE_RACY_NS`, so that a tree fresh from a clone can be
    stamped by ``codebot index``, a moment later."""
    whole = st[0] % 1_000_000_000 == 0 or st[1] % 1_000_000_000 == 0
    return max(st[0], st[1]) >= started - (RACY_NS if whole else FINE_RACY_NS)


def _lstat(path: str) -> list[int] | None:
    try:
        st = os.lstat(path)
    except OSError:
        return None
    return [st.st_mtime_ns, st.st_ctime_ns, st.st_size, st.st_ino, st.st_mode]


def _env() -> list[list[str]]:
    return sorted([k, v] for k, v in os.environ.items() if k.startswith("GIT_") or k in _ENV)


def _scanned_dirs(repo: Repo, start: Path) -> list[str]:
    """``start`` and every directory under it git scans for untracked files: not ``.git``, not
    ignored, not inside another repository (a nested one or a submodule is one entry to git)."""
    root = repo.workdir
    found: list[str] = []
    todo = [start]
    while todo:
        here = todo.pop()
        found.append(str(here))
        if here != root and os.path.lexists(here / ".git"):
            continue
        try:
            entries = list(os.scandir(here))
        except OSError:
            continue
        for entry in entries:
            if entry.name == ".git" or not entry.is_dir(follow_symlinks=False):
                continue
            rel = Path(entry.path).relative_to(root).as_posix()
            if not repo.git.path_is_ignored(rel + "/"):
                todo.append(Path(entry.path))
    return found


def _git_files(repo: Repo) -> list[str]:
    """The files outside the work tree that decide what ``git status`` reports."""
    env = os.environ
    gitdir = repo.gitdir
    common = gitdir
    if (gitdir / "commondir").is_file():
        common = (gitdir / (gitdir / "commondir").read_text().strip()).resolve()
    home = Path(env.get("HOME") or Path.home())
    xdg = Path(env.get("XDG_CONFIG_HOME") or home / ".config") / "git"
    files = [
        gitdir / "index",
        gitdir / "config.worktree",
        common / "config",
        common / "info" / "exclude",
        common / "info" / "attributes",
        home / ".gitconfig",
        xdg / "config",
        xdg / "ignore",
        xdg / "attributes",
        Path("/etc/gitconfig"),
    ]
    for name in ("GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM"):
        if env.get(name):
            files.append(Path(env[name]))
    config = repo.git.config
    for key in ("core.excludesFile", "core.attributesFile"):
        try:
            value = config[key]
        except (KeyError, ValueError):
            continue
        files.append(Path(os.path.expanduser(value)))
    return [str(f) for f in files]

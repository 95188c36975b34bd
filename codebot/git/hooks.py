"""Git hooks that keep the index at HEAD: installing them, and what they run.

``install`` writes a small sh script (``codebot/git/hook.sh``) for each hook in ``GIT_HOOKS`` into the
directory git runs hooks from (``git rev-parse --git-path hooks``, so ``core.hooksPath`` counts).
A hook that is already there is never overwritten: it becomes ``<name>.codebot-legacy``, and the
script runs it first, with git's arguments and stdin, and exits with its status. ``uninstall`` puts
it back. The script then starts ``codebot hook NAME --detached`` with every stream redirected, so
``git commit`` does not wait for it.

In the background ``run_hook`` updates the index, coalescing: thirty commits in a burst make a few
updates, the last one to the final HEAD, not thirty. Nothing here fails git; what goes wrong goes to
``<index dir>/update.log``. hooks/README.md tells the whole story, husky and friends included.

No click, no environment: the CLI reads both and passes plain values.
"""

from __future__ import annotations

import errno
import fcntl
import os
import shlex
import subprocess
import sys
import time
import traceback
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path

from codebot.core.errors import GitError, IndexBusy
from codebot.git.workspace import LOG

__all__ = [
    "GIT_HOOKS",
    "install",
    "uninstall",
    "hooks_status",
    "render_script",
    "wants_update",
    "git_dir_at",
    "pre_commit_args",
    "detached_command",
    "spawn_detached",
    "append_log",
    "run_coalesced",
    "try_lock",
    "run_hook",
    "LOG",
]

GIT_HOOKS = ("post-commit", "post-merge", "post-checkout", "post-rewrite")
#: The line that marks a script as codebot's; change it only together with a list of old ids.
HOOK_ID = "codebot-hook-id: 3f9d2a7c41e8"
LEGACY_SUFFIX = ".codebot-legacy"
PENDING = "update.pending"
RUNNER_LOCK = "update.runner.lock"
LOG_MAX_BYTES = 1_000_000

# --- installing -----------------------------------------------------------------------------------


@dataclass
class HookAction:
    """What install or uninstall did to one hook.

    ``action``: installed, updated, unchanged or refused (install); removed, not installed or
    someone else's (uninstall).
    """

    name: str
    path: str
    action: str
    chained: str | None = None  # the hook codebot's script runs first (or put back, on uninstall)
    reason: str | None = None


@dataclass
class HooksReport:
    hooks_dir: str
    hooks: list[HookAction]
    notes: list[str] = field(default_factory=list)

    @property
    def refused(self) -> bool:
        return any(h.action == "refused" for h in self.hooks)

    def to_dict(self) -> dict:
        return asdict(self)

    def to_text(self) -> str:
        lines = [f"hooks in {self.hooks_dir}"]
        for h in self.hooks:
            chained = f" (chains {os.path.basename(h.chained)})" if h.chained else ""
            if h.action == "removed" and h.chained:
                chained = " (the hook it chained is back)"
            lines.append(f"  {h.name:<14} {h.action}{chained}")
            if h.reason:
                lines.append(f"      {h.reason}")
        return "\n".join(lines) + "\n"


@dataclass
class HookStatus:
    name: str
    path: str
    state: str  # installed | outdated | not installed | someone else's
    owner: str | None  # who wrote the script in place: codebot, husky, pre-commit, lefthook, other
    chained: str | None  # the hook codebot's script runs first
    chained_owner: str | None
    interpreter: str | None  # the Python baked into codebot's script
    interpreter_exists: bool | None


@dataclass
class StatusReport:
    hooks_dir: str
    hooks: list[HookStatus]
    log: str | None = None  # where the hooks' updates are logged

    def to_dict(self) -> dict:
        data = asdict(self)
        if self.log is None:
            del data["log"]
        return data

    def to_text(self) -> str:
        lines = [f"hooks in {self.hooks_dir}"]
        for h in self.hooks:
            owner = f" ({h.owner})" if h.owner not in (None, "codebot") else ""
            chained = f", chains {os.path.basename(h.chained)}" if h.chained else ""
            missing = "" if h.interpreter_exists in (None, True) else f", {h.interpreter} is gone"
            lines.append(f"  {h.name:<14} {h.state}{owner}{chained}{missing}")
        if self.log is not None:
            lines.append(f"log in {self.log}")
        return "\n".join(lines) + "\n"


def install(path: str | Path, python: str = sys.executable) -> HooksReport:
    """Install codebot's script for every hook in ``GIT_HOOKS``, chaining the hooks in place.

    Installing again changes nothing (or rewrites only scripts that differ, e.g. a new interpreter).
    """
    root, directory = _hooks_dir(path)
    _refuse_shared_hooks_path(root)
    directory.mkdir(parents=True, exist_ok=True)
    actions = [_install_one(root, directory, name, python) for name in GIT_HOOKS]
    return HooksReport(str(directory), actions, _notes(root, directory))


def uninstall(path: str | Path) -> HooksReport:
    """Remove codebot's scripts and put back the hooks they chained, byte for byte."""
    _, directory = _hooks_dir(path)
    return HooksReport(str(directory), [_uninstall_one(directory, name) for name in GIT_HOOKS])


def hooks_status(path: str | Path, log: str | Path | None = None) -> StatusReport:
    """Per hook: codebot's, outdated, someone else's or absent; what it chains; its interpreter.
    ``log``: where the updates are logged, to name in the report."""
    _, directory = _hooks_dir(path)
    statuses = [_status_one(directory, name) for name in GIT_HOOKS]
    return StatusReport(str(directory), statuses, None if log is None else str(log))


def render_script(hook: str, python: str, legacy_is_sh: bool = False) -> str:
    """The script for ``hook``: codebot/git/hook.sh with the interpreter and hook name filled in."""
    template = Path(__file__).with_name("hook.sh").read_text()
    return (
        template.replace("@PYTHON@", shlex.quote(python))
        .replace("@HOOK@", hook)
        .replace("@LEGACY_IS_SH@", "1" if legacy_is_sh else "0")
    )


def _install_one(root: Path, directory: Path, name: str, python: str) -> HookAction:
    hook, legacy = directory / name, directory / (name + LEGACY_SUFFIX)
    foreign = os.path.lexists(hook) and not _is_ours(hook)
    if foreign:
        if _tracked(root, hook):
            reason = _TRACKED.format(hook=hook, name=name)
            return HookAction(name, str(hook), "refused", reason=reason)
        if os.path.lexists(legacy) and _read(legacy) != _read(hook):
            reason = f"{legacy} is already there and differs from {hook}: move one of them away"
            return HookAction(name, str(hook), "refused", reason=reason)
    chained = hook if foreign else legacy if os.path.lexists(legacy) else None
    script = render_script(name, python, chained is not None and _is_sh_script(chained))
    if not foreign and os.path.lexists(hook) and _read(hook) == script.encode():
        if os.access(hook, os.X_OK):
            return HookAction(name, str(hook), "unchanged", _chained_name(legacy))
    action = "installed" if foreign or not os.path.lexists(hook) else "updated"
    tmp = directory / f".{name}.codebot-tmp"
    tmp.write_text(script)
    tmp.chmod(0o755)
    if foreign:  # written first, so a failure here leaves the old hook where it was
        os.replace(hook, legacy)
    os.replace(tmp, hook)
    return HookAction(name, str(hook), action, _chained_name(legacy))


_TRACKED = (
    "{hook} is tracked by the repository (hooks shared with everyone who clones it); codebot will "
    'not rename it. Add this line to it instead: codebot hook {name} "$@"'
)


def _uninstall_one(directory: Path, name: str) -> HookAction:
    hook, legacy = directory / name, directory / (name + LEGACY_SUFFIX)
    has_legacy = os.path.lexists(legacy)
    if os.path.lexists(hook) and not _is_ours(hook):
        if has_legacy and _read(legacy) == _read(hook):
            legacy.unlink()  # a stale copy: the tool that owns the hook rewrote it (husky does)
        return HookAction(name, str(hook), "someone else's", reason=_owner(hook))
    if not os.path.lexists(hook) and not has_legacy:
        return HookAction(name, str(hook), "not installed")
    if os.path.lexists(hook):
        hook.unlink()
    if has_legacy:
        os.replace(legacy, hook)
    return HookAction(name, str(hook), "removed", str(hook) if has_legacy else None)


def _status_one(directory: Path, name: str) -> HookStatus:
    hook, legacy = directory / name, directory / (name + LEGACY_SUFFIX)
    chained = str(legacy) if os.path.lexists(legacy) else None
    chained_owner = _owner(legacy) if chained else None
    if not os.path.lexists(hook):
        return HookStatus(
            name, str(hook), "not installed", None, chained, chained_owner, None, None
        )
    if not _is_ours(hook):
        owner = _owner(hook)
        return HookStatus(name, str(hook), "someone else's", owner, None, None, None, None)
    python = _baked_interpreter(hook)
    current = render_script(name, python or "", chained is not None and _is_sh_script(legacy))
    state = "installed" if _read(hook) == current.encode() else "outdated"
    exists = bool(python) and os.access(python, os.X_OK)
    return HookStatus(name, str(hook), state, "codebot", chained, chained_owner, python, exists)


def _hooks_dir(path: str | Path) -> tuple[Path, Path]:
    """(work tree root, the directory git runs hooks from) for the repository holding ``path``."""
    start = Path(path).resolve()
    out = _git(start, "rev-parse", "--show-toplevel", "--git-path", "hooks")
    if out.returncode != 0:
        raise GitError(f"{path}: not in a git work tree (git says: {out.stderr.strip()})")
    root, hooks = out.stdout.splitlines()[:2]
    return Path(root), (start / hooks).resolve()  # --git-path answers relative to ``start``


def _refuse_shared_hooks_path(root: Path) -> None:
    out = _git(root, "config", "--show-scope", "--get", "core.hooksPath")
    scope, _, value = out.stdout.strip().partition("\t")
    if out.returncode == 0 and scope in ("global", "system"):
        raise GitError(
            f"core.hooksPath is set in your {scope} git config ({value}): hooks there run in every "
            "repository, and codebot installs per repository. Give this one its own hooks with "
            "`git config core.hooksPath .git/hooks` (then copy in the shared hooks you want) and "
            "install again."
        )


def _notes(root: Path, directory: Path) -> list[str]:
    notes = []
    if (directory / "h").is_file() and directory.name == "_":
        notes.append(
            "husky manages this directory and rewrites it on `npm install` (its prepare script), "
            "dropping codebot's scripts: run `codebot hooks install` again after it (`codebot "
            'hooks status` tells), or add `codebot hook post-commit "$@"` (and the other three) '
            "to the scripts in .husky/."
        )
    in_work_tree = (
        directory.is_relative_to(root) and ".git" not in directory.relative_to(root).parts
    )
    probe = str(directory / GIT_HOOKS[0])
    if in_work_tree and _git(root, "check-ignore", "-q", probe).returncode:
        notes.append(
            f"{directory} is inside the work tree and not ignored: the scripts show in `git status`"
        )
    return notes


def _git(cwd: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["git", "-C", str(cwd), *args], capture_output=True, text=True)


def _tracked(root: Path, path: Path) -> bool:
    if not path.is_relative_to(root):
        return False
    return _git(root, "ls-files", "--error-unmatch", "--", str(path)).returncode == 0


def _read(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError:  # a dangling link, a directory: nothing codebot can compare
        return b""


def _is_ours(path: Path) -> bool:
    return HOOK_ID.encode() in _read(path)[:512]


def _is_sh_script(path: Path) -> bool:
    """Whether ``path`` is a plain sh script, which codebot's script sources to keep its ``$0``."""
    first = _read(path).split(b"\n", 1)[0].rstrip()
    return first in (b"#!/bin/sh", b"#!/usr/bin/env sh")


def _owner(path: Path) -> str:
    text = _read(path)[:4096]
    if HOOK_ID.encode() in text:
        return "codebot"
    for marker, owner in ((b"pre-commit", "pre-commit"), (b"lefthook", "lefthook")):
        if marker in text:
            return owner
    if b"husky" in text or b'/h"' in text:
        return "husky"
    return "other"


def _chained_name(legacy: Path) -> str | None:
    return str(legacy) if os.path.lexists(legacy) else None


def _baked_interpreter(hook: Path) -> str | None:
    for line in _read(hook).decode(errors="replace").splitlines():
        if line.startswith("PY="):
            words = shlex.split(line[3:])
            return words[0] if words else None
    return None


# --- what a hook runs -----------------------------------------------------------------------------


def wants_update(hook: str, args: Sequence[str], git_dir: Path | None = None) -> bool:
    """Whether ``hook`` should update the index.

    Not for a file checkout (post-checkout flag 0: HEAD did not move), nor for a post-commit while
    a rebase replays commits: the rebase ends with post-rewrite, which updates once.
    """
    if hook == "post-checkout" and len(args) >= 3 and args[2] == "0":
        return False
    if hook == "post-commit" and git_dir is not None:
        return (
            not (git_dir / "rebase-merge").is_dir()
            and not (git_dir / "rebase-apply" / "rebasing").is_file()
        )
    return True


def git_dir_at(work_tree: str | Path, git_dir: str | None = None) -> Path:
    """The git directory of the work tree a hook runs in (``git_dir``: git's GIT_DIR, if set)."""
    work_tree = Path(work_tree)
    path = work_tree / (git_dir or ".git")
    if path.is_file():  # a linked worktree: .git names its git directory
        text = path.read_text().strip()
        return work_tree / text.removeprefix("gitdir:").strip()
    return path


_PRE_COMMIT_VARS = {
    "post-checkout": ("PRE_COMMIT_FROM_REF", "PRE_COMMIT_TO_REF", "PRE_COMMIT_CHECKOUT_TYPE"),
    "post-merge": ("PRE_COMMIT_IS_SQUASH_MERGE",),
    "post-rewrite": ("PRE_COMMIT_REWRITE_COMMAND",),
}


def pre_commit_args(hook: str, env: Mapping[str, str]) -> tuple[str, ...]:
    """git's arguments for ``hook``, rebuilt from the variables pre-commit sets instead of argv."""
    names = _PRE_COMMIT_VARS.get(hook, ())
    return tuple(env[n] for n in names) if all(n in env for n in names) else ()


def detached_command(python: str, hook: str, args: Sequence[str]) -> list[str]:
    # -P (3.11+): import the installed codebot, never a codebot/ in the work tree git runs us in.
    safe = ["-P"] if sys.version_info >= (3, 11) else []
    return [python, *safe, "-m", "codebot", "hook", hook, "--detached", *args]


def spawn_detached(command: Sequence[str]) -> int:
    """Start ``command`` in the background, holding none of our streams (git waits for those);
    its process id."""
    options: dict = {"close_fds": True}
    if os.name == "nt":  # pragma: no cover
        options["creationflags"] = subprocess.DETACHED_PROCESS | subprocess.CREATE_NEW_PROCESS_GROUP
    else:
        options["start_new_session"] = True
    devnull = subprocess.DEVNULL
    return subprocess.Popen(
        list(command), stdin=devnull, stdout=devnull, stderr=devnull, **options
    ).pid


def run_coalesced(
    index_dir: Path,
    job: Callable[[], object],
    busy_wait: float = 600.0,
    poll: float = 1.0,
) -> int:
    """Run ``job`` until no update is pending; return how many times it ran (0: another process
    that is running it will run it again for us).

    Each call leaves ``update.pending``. One process at a time (the holder of ``update.runner.lock``)
    takes the marker, then runs the job, so the job sees every commit made before the marker was
    taken; after letting the lock go it looks for the marker again, so a hook that found the lock
    taken just before it was let go is not lost. ``IndexBusy`` from the job means another writer
    (`codebot index`) that knows nothing of the marker: wait up to ``busy_wait`` seconds for it.
    Any other exception ends the loop: ``run_hook`` gives a job that logs its errors instead.
    """
    index_dir.mkdir(parents=True, exist_ok=True)
    pending = index_dir / PENDING
    pending.touch()
    runs = 0
    deadline = time.monotonic() + busy_wait
    while pending.exists():
        with try_lock(index_dir / RUNNER_LOCK) as locked:
            if not locked:
                return runs
            while pending.exists():
                pending.unlink(missing_ok=True)
                try:
                    job()
                except IndexBusy:
                    pending.touch()
                    if time.monotonic() >= deadline:
                        raise
                    time.sleep(poll)
                    continue
                runs += 1
    return runs


@contextmanager
def try_lock(path: Path, create: bool = True) -> Iterator[bool | None]:
    """The lock at ``path`` taken without waiting: True (held until the block ends), False
    (another process holds it) or None (no such file, and ``create`` is False)."""
    try:
        fd = os.open(path, os.O_RDWR | (os.O_CREAT if create else 0), 0o644)
    except FileNotFoundError:
        yield None
        return
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            if exc.errno not in (errno.EAGAIN, errno.EACCES):
                raise
            yield False
            return
        yield True
    finally:
        os.close(fd)  # closing the last descriptor lets the lock go


def run_hook(hook: str, index_dir: Path, job: Callable[[], object]) -> None:
    """The background half of a git hook: coalesced updates, each outcome a line of the log.

    Never raises: a hook must not fail git, and nobody is left to read an error but the log.
    """

    def logged_job() -> None:
        started = time.monotonic()
        try:
            result = job()
        except IndexBusy:
            raise
        except Exception:
            append_log(index_dir, f"{hook}: update failed\n{traceback.format_exc().rstrip()}")
            return
        summary = f": {result}" if isinstance(result, str) and result else ""
        append_log(index_dir, f"{hook}: updated in {time.monotonic() - started:.2f}s{summary}")

    try:
        if not run_coalesced(index_dir, logged_job):
            append_log(index_dir, f"{hook}: another update is running; it will catch up")
    except Exception:
        append_log(index_dir, f"{hook}: {traceback.format_exc().rstrip()}")


def append_log(index_dir: Path, message: str) -> None:
    """Append to update.log, starting afresh (one old log kept) above LOG_MAX_BYTES."""
    from codebot.core.http import scrub_environment  # the HTTP client's: only when logging

    try:
        index_dir.mkdir(parents=True, exist_ok=True)
        path = index_dir / LOG
        if path.exists() and path.stat().st_size > LOG_MAX_BYTES:
            os.replace(path, index_dir / (LOG + ".1"))
        stamp = time.strftime("%Y-%m-%dT%H:%M:%S")
        with open(path, "a") as f:
            f.write(f"{stamp} [{os.getpid()}] {scrub_environment(message)}\n")
    except OSError:
        pass  # no log is better than a failed commit

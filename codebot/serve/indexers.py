"""Running the SCIP indexers (``scip-python``, ``scip-typescript``): a subprocess concern, kept
out of the graph and index layers (they read ``.scip`` files only) and imported only by the
commands that run them (``codebot precise``, the Action).

An indexer is found on ``PATH``; ``npm exec`` fetches one only when the user allows it (the
``--npm-exec`` flag, or ``CODEBOT_PRECISE_NPM_EXEC=1`` in the environment), never because a
file of the repository says so. What is missing is said in one line each, with how to get it.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import threading
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from codebot.core.errors import PreciseError

__all__ = [
    "INDEXERS",
    "Indexer",
    "find_indexers",
    "languages_of",
    "npm_exec_allowed",
    "run_indexer",
    "run_indexers",
]


@dataclass(frozen=True)
class Indexer:
    name: str  # python, typescript
    command: str  # the executable on PATH
    package: str  # the npm package
    languages: tuple[str, ...]  # codebot languages it covers


INDEXERS = {
    "python": Indexer("python", "scip-python", "@sourcegraph/scip-python", ("python",)),
    "typescript": Indexer(
        "typescript",
        "scip-typescript",
        "@sourcegraph/scip-typescript",
        ("typescript", "tsx", "javascript", "jsx"),
    ),
}


def languages_of(languages: set[str]) -> list[str]:
    """The indexers that cover some of ``languages`` (``--indexer auto``)."""
    return [n for n, ix in INDEXERS.items() if languages & set(ix.languages)]


def find_indexers(
    names: list[str], npm_exec: bool = False
) -> tuple[list[tuple[Indexer, list[str]]], list[str]]:
    """For each indexer named, the command line that runs it, or one line saying what is
    missing and how to get it."""
    found, missing = [], []
    node = shutil.which("node")
    for name in names:
        ix = INDEXERS[name]
        exe = shutil.which(ix.command)
        if exe is not None and node is not None:
            found.append((ix, [exe]))
        elif node is None:
            missing.append(
                f"{ix.command}: needs Node.js (node is not on PATH); install Node.js 18 or "
                f"later, then: npm install -g {ix.package}"
            )
        elif npm_exec and shutil.which("npm") is not None:
            found.append(
                (ix, ["npm", "exec", "--yes", f"--package={ix.package}", "--", ix.command])
            )
        else:
            missing.append(
                f"{ix.command}: not on PATH; install it with: npm install -g {ix.package} "
                "(or let codebot fetch it: codebot precise --npm-exec)"
            )
    return found, missing


def run_indexer(
    ix: Indexer,
    argv: list[str],
    root: Path,
    out: Path,
    timeout: float = 3600.0,
    echo: Callable[[str], None] | None = None,
) -> Path:
    """Run ``argv`` (from :func:`find_indexers`) on ``root``, writing ``out``; each line it
    prints goes to ``echo`` (its progress). A PreciseError when it fails, runs past
    ``timeout`` seconds (it is killed) or writes nothing."""
    args = [*argv, "index", "--output", str(out)]
    if ix.name == "python":
        args += ["--project-name", root.name or "project"]
    elif (root / "tsconfig.json").exists():
        pass  # the repository's own project (its paths map a monorepo's packages)
    elif (root / "pnpm-workspace.yaml").exists() and shutil.which("pnpm"):
        args.append("--pnpm-workspaces")
    else:
        args.append("--infer-tsconfig")
    if ix.name == "typescript":
        args.append("--no-progress-bar")
    env = {
        **os.environ,
        "NODE_OPTIONS": os.environ.get("NODE_OPTIONS", "--max-old-space-size=4096"),
    }
    try:
        proc = subprocess.Popen(
            args, cwd=root, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env,
            text=True, errors="replace",
        )  # fmt: skip
    except OSError as exc:
        raise PreciseError(f"{ix.command} could not start: {exc}") from exc
    killed = threading.Event()

    def kill() -> None:
        killed.set()
        proc.kill()

    timer = threading.Timer(timeout, kill)
    timer.start()
    tail: deque[str] = deque(maxlen=5)
    try:
        assert proc.stdout is not None
        for line in proc.stdout:
            line = line.rstrip()[:500]
            tail.append(line)
            if echo is not None:
                echo(line)
        code = proc.wait()
    finally:
        timer.cancel()
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    if killed.is_set():
        raise PreciseError(f"{ix.command} ran past {timeout:.0f} s on {root}; stopped")
    if code != 0:
        last = " / ".join(t for t in tail if t)
        raise PreciseError(f"{ix.command} failed on {root} (exit {code}): {last}")
    if not out.is_file():
        raise PreciseError(f"{ix.command} wrote no index at {out}")
    return out


def npm_exec_allowed(env: dict[str, str]) -> bool:
    """The user's own permission (their environment), never the repository's configuration."""
    return env.get("CODEBOT_PRECISE_NPM_EXEC", "") in ("1", "true", "yes")


def run_indexers(
    root: Path,
    languages: set[str],
    which: str,
    out_dir: Path,
    say: Callable[[str], None],
    npm_exec: bool = False,
    timeout: float = 3600.0,
    echo: Callable[[str], None] | None = None,
) -> list[Path]:
    """Run the indexers ``which`` names (``auto``: those of ``languages``) on ``root``; the SCIP
    indexes they wrote, in ``out_dir``. What is missing is said through ``say``, a line each."""
    names = languages_of(languages) if which == "auto" else [which]
    if not names:
        raise PreciseError("no language of this index has a SCIP indexer codebot runs")
    found, missing = find_indexers(names, npm_exec)
    for line in missing:
        say(line)
    if not found:
        raise PreciseError("no SCIP indexer to run (see above); everything else works without one")
    out_dir.mkdir(parents=True, exist_ok=True)
    out = []
    for ix, argv in found:
        target = (out_dir / f"{ix.name}.scip").resolve()
        say(f"running {ix.command} on {root} (minutes on a large repository)")
        out.append(run_indexer(ix, argv, root, target, timeout, echo))
    return out

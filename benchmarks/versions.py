"""Benchmarks that compare two versions of codebot: a worker run under either one.

A version is a directory holding ``codebot/``: this checkout, another worktree, or a git revision
unpacked by :func:`unpack`. :func:`run_worker` runs a benchmark script's worker in a fresh process
with that directory first on PYTHONPATH, and checks that the worker imported that version.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import sysconfig
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def unpack(rev: str, into: Path) -> Path:
    """``codebot/`` as it was at ``rev``, in a directory of its own."""
    into.mkdir(parents=True)
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", rev, "codebot"], check=True, capture_output=True
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
    return into


def run_worker(script: str, code: Path, args: list[str], tmp: Path) -> dict:
    """``python script --worker ARGS --out FILE`` under the version in ``code``: the JSON object
    it wrote, whose ``code`` (the directory of the ``codebot`` it imported) must be ``code``'s."""
    out = tmp / "out.json"
    cmd = [sys.executable, script, "--worker", *args, "--out", str(out)]
    subprocess.run(cmd, check=True, env=dict(os.environ, PYTHONPATH=str(code)), cwd=tmp)
    result = json.loads(out.read_text())
    if Path(result["code"]).resolve() != (code / "codebot").resolve():
        raise SystemExit(f"the worker loaded {result['code']}, not {code}/codebot")
    return result


def worker_arguments(ap: argparse.ArgumentParser) -> None:
    """The hidden arguments :func:`run_worker` passes a script's worker."""
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--out", type=Path, help=argparse.SUPPRESS)


def timing_arguments(ap: argparse.ArgumentParser, before: str) -> None:
    """The arguments of a script that times this checkout against revision ``before`` on a tree
    (:func:`tree`), round after round, and its worker's."""
    ap.add_argument("root", nargs="?", type=Path, help="the tree (default: the standard library)")
    ap.add_argument("--old", default=before, help="git revision timed against the working tree")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--json", action="store_true")
    worker_arguments(ap)


def tree(root: Path | None) -> Path:
    """The tree a timing script reads: ``root``, or the standard library."""
    return (root or Path(sysconfig.get_paths()["stdlib"])).resolve()

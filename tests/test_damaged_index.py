"""A damaged index is a clear error: every file of a generation, truncated or deleted in turn,
makes the real CLI exit 1 with a message that names the file and says to rebuild, never exit 3
with a traceback. A command that does not read the damaged file still answers; a rebuild mends it.

The cases run side by side in a module fixture (a subprocess each command, the built-in model so
that a vector file exists), and the tests read their results.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pytest

from .conftest import sandbox, write_files

FILES = {
    "app/shop.py": '''\
def helper(x):
    """Add one to x."""
    return x + 1


def checkout(cart):
    """Total a cart and add the fee."""
    return helper(sum(cart))


class Store:
    def save(self, item):
        return checkout([item])
''',
    "app/jobs.py": '''\
from app.shop import helper


def run_job(name):
    """Run a job by name."""
    return helper(len(name))
''',
}
CHANGED = {"app/jobs.py": FILES["app/jobs.py"] + "\n\ndef later():\n    return run_job('x')\n"}

SEARCH = ("search", "add one to a number")
FIND = ("find", "helper")
CALLERS = ("callers", "app.shop.helper")
SHOW = ("show", "app.shop.helper")
STATUS = ("status",)
UPDATE = ("update", "--to", "HEAD~1")  # the index is at HEAD: this update has work to do
# An update that embeds its changes itself: the default one leaves the vectors file as it is
# (the background embedder patches it, and reports a damaged one in update.log and status).
UPDATE_FOREGROUND = ("update", "--foreground", "--to", "HEAD~1")
EVERY = (SEARCH, FIND, CALLERS, SHOW, STATUS, UPDATE)

# Each file of a generation, the commands that read it (they must fail clearly) and the others
# (they must still answer). `status` checks every file against the manifest's checksums.
READERS: dict[str, tuple[tuple[str, ...], ...]] = {
    "symbols.msgpack": (SEARCH, FIND, CALLERS, SHOW, STATUS, UPDATE),
    "files.msgpack": (SHOW, STATUS, UPDATE),
    "keys.u64": (SEARCH, STATUS),
    "graph.msgpack": (CALLERS, STATUS),
    # Below EXACT_BELOW vectors, search reads the exact file and not usearch's.
    "vectors.usearch": (STATUS, UPDATE_FOREGROUND),
    "vectors.f16": (SEARCH, STATUS),
    "lexical/meta.json": (SEARCH, STATUS, UPDATE),
    "lexical/*.term": (SEARCH, STATUS, UPDATE),  # a segment file (postings)
    "lexical/*.store": (SEARCH, STATUS, UPDATE),  # a segment file (stored fields: the keys)
}
CASES = [(name, how) for name in READERS for how in ("truncated", "deleted")]


@dataclass
class Run:
    args: tuple[str, ...]
    code: int
    err: str


def _codebot(repo: Path, env: dict[str, str], index: Path, *args: str) -> Run:
    out = subprocess.run(
        [sys.executable, "-m", "codebot", *args, "--index-dir", str(index)],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    return Run(args, out.returncode, out.stderr)


def _damage(index: Path, name: str, how: str) -> Path:
    """Damage the file ``name`` (a glob under the generation) of the index copy; its path."""
    gen = index / next(p.name for p in index.glob("gen-*") if p.name[4:].isdigit())
    path = next(iter(sorted(gen.glob(name))))
    if how == "deleted":
        path.unlink()
    else:
        size = path.stat().st_size
        with open(path, "r+b") as f:
            f.truncate(size // 2)
    return path


@pytest.fixture(scope="module")
def matrix(tmp_path_factory: pytest.TempPathFactory):
    """{(file, how): (damaged path, runs of the readers, runs of the others, rebuild, search)}."""
    base = tmp_path_factory.mktemp("damaged")
    with pytest.MonkeyPatch.context() as mp:  # conftest's sandbox, for the subprocesses
        sandbox(mp, base / "home")
        env = dict(os.environ)
    (base / "home").mkdir()
    repo = base / "repo"
    repo.mkdir()
    subprocess.run(["git", "init", "-q", "-b", "main"], cwd=repo, env=env, check=True)
    write_files(repo, FILES)
    subprocess.run(["git", "add", "-A"], cwd=repo, env=env, check=True)
    subprocess.run(["git", "commit", "-qm", "one"], cwd=repo, env=env, check=True)
    write_files(repo, CHANGED)
    subprocess.run(["git", "commit", "-qam", "two"], cwd=repo, env=env, check=True)
    pristine = base / "pristine"
    built = _codebot(repo, env, pristine, "index")
    assert built.code == 0, built.err

    def case(name: str, how: str):
        copy = base / f"case-{CASES.index((name, how))}"
        shutil.copytree(pristine, copy)
        path = _damage(copy, name, how)
        readers = READERS[name]
        # update writes (a new generation it then abandons): it gets a copy of its own
        own = copy.with_name(copy.name + "-update")
        shutil.copytree(copy, own)
        runs = [
            _codebot(repo, env, own if args[0] == "update" else copy, *args) for args in readers
        ]
        if how == "deleted":  # the rest is the same for either damage: once is enough
            return path, runs, [], None, None
        others = [_codebot(repo, env, copy, *args) for args in EVERY if args not in readers]
        # --wait: the default update above left its vectors to a background embedder, whose
        # short commit (or its failure on a damaged vectors file) may hold the write lock now.
        rebuilt = _codebot(repo, env, copy, "index", "--wait", "60")
        after = _codebot(repo, env, copy, *SEARCH)
        return path, runs, others, rebuilt, after

    with ThreadPoolExecutor(max_workers=max(2, os.cpu_count() or 1)) as pool:
        futures = {c: pool.submit(case, *c) for c in CASES}
        return {c: f.result() for c, f in futures.items()}


@pytest.mark.parametrize(("name", "how"), CASES)
def test_a_damaged_file_is_a_clear_error(matrix, name, how):
    path, runs, _, _, _ = matrix[name, how]
    # The message names the file. The update ran on a copy of its own, so compare from the generation down; a Tantivy error
    # about a field's positions may name only the lexical directory.
    gen = path.parents[name.count("/")]
    named = f"{gen.name}/lexical" if name.startswith("lexical/") else f"{gen.name}/{name}"
    for run in runs:
        where = f"codebot {' '.join(run.args)} with {name} {how}"
        assert run.code == 1, f"{where}: exit {run.code}\n{run.err}"
        assert "Traceback" not in run.err and "internal error" not in run.err, where
        assert run.err.startswith("codebot: error: "), f"{where}: {run.err}"
        assert named in run.err, f"{where}: the message does not name {named}: {run.err}"
        assert "the index is damaged" in run.err, f"{where}: {run.err}"
        assert "rebuild it with: codebot index" in run.err, f"{where}: {run.err}"


@pytest.mark.parametrize("name", READERS)
def test_commands_that_do_not_read_the_file_still_answer(matrix, name):
    _, _, others, _, _ = matrix[name, "truncated"]
    how = "truncated"
    for run in others:
        assert run.code == 0, f"codebot {' '.join(run.args)} with {name} {how}: {run.err}"


@pytest.mark.parametrize("name", READERS)
def test_the_fix_the_message_names_mends_the_index(matrix, name):
    _, _, _, rebuilt, after = matrix[name, "truncated"]
    assert rebuilt.code == 0, rebuilt.err
    assert after.code == 0, after.err

"""The clean stamp (git/cleanstamp.py): a query on a clean work tree answers from the committed
index without importing pygit2, and every change ``git status`` would see (an edit, a new file or
directory, a deletion, ``git add``, what git ignores, a commit) takes the full path again, with the
overlay's answer. Real repositories in tmp dirs, the real ``codebot`` process; the racy-git window
is lowered in that process so that the steps need not wait two seconds each."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from codebot.core.config import Config
from codebot.git.cleanstamp import STAMP
from codebot.git.workspace import Workspace
from codebot.index.build import build_index

from .conftest import git
from .test_quick_cli import FILES as QUICK_FILES

FILES = {
    ".gitignore": "build/\n",
    **QUICK_FILES,  # the ledger package
    "pkg/sub/tax.py": "def tax_rate(country):\n    return 0.2\n",
}
# The ``codebot`` entry point in a fresh interpreter, the racy window lowered; then whether
# pygit2 was imported.
PROBE = (
    "import sys\nimport codebot.git.cleanstamp as c\nc.RACY_NS = c.FINE_RACY_NS = 0\n"
    "from codebot.__main__ import run\nsys.argv = ['codebot', *sys.argv[1:]]\n"
    "try:\n    run()\nexcept SystemExit:\n    pass\n"
    "print('pygit2', 'pygit2' in sys.modules)"
)


def query(repo: Path, *args: str) -> tuple[str, bool]:
    """(what the command printed, whether it imported pygit2)."""
    out = subprocess.run(
        [sys.executable, "-c", PROBE, *args], cwd=repo, capture_output=True, text=True
    )
    *lines, last = out.stdout.strip().splitlines()
    assert last in ("pygit2 True", "pygit2 False"), out.stderr
    return "\n".join(lines) + out.stderr, last == "pygit2 True"


def found(repo: Path, name: str) -> tuple[bool, bool]:
    """(whether ``codebot find`` finds ``name``, whether it imported pygit2)."""
    text, opened = query(repo, "find", name)
    missing = f"no symbol named {name!r}" in text
    assert missing or f".{name}" in text, text  # an answer, not some other error
    return not missing, opened


def settle(repo: Path) -> None:
    """Query until the stamp is written, then check that the next query needs no pygit2."""
    text, _ = query(repo, "search", "ledger balance", "--mode", "bm25")
    assert "ledger_balance" in text
    text, opened = query(repo, "search", "ledger balance", "--mode", "bm25")
    assert "ledger_balance" in text and not opened


@pytest.fixture
def repo(make_repo):
    root = make_repo(FILES)
    build_index(root, Config(embedder="none"))
    return root


def test_a_clean_tree_answers_without_pygit2(repo):
    text, opened = query(repo, "search", "ledger balance", "--mode", "bm25")
    assert "ledger_balance" in text and opened  # the first: git status, then the stamp
    assert (repo / ".git" / "codebot-overlay" / STAMP).is_file()
    for args in (
        ["search", "ledger balance", "--mode", "bm25"],
        ["find", "ledger_total"],
        ["callers", "pkg.ledger.ledger_total"],
    ):
        text, opened = query(repo, *args)
        assert "ledger_balance" in text or "ledger_total" in text
        assert not opened, args
    # An ignored file is no change to git, nor to the stamp (a new directory is a change to its
    # parent's: the full path looks, and stamps again).
    (repo / "build").mkdir()
    settle(repo)
    (repo / "build" / "out.py").write_text("def built_fn():\n    return 1\n")
    assert found(repo, "built_fn") == (False, False)


def test_every_change_git_sees_is_seen(repo):
    ledger = repo / "pkg" / "ledger.py"
    steps = []

    def step(name: str, change, symbol: str, visible: bool, restore) -> None:
        settle(repo)
        change()
        seen, opened = found(repo, symbol)
        steps.append((name, seen == visible, opened))
        restore()

    step(
        "edit a tracked file",
        lambda: ledger.write_text(ledger.read_text() + "\n\ndef ledger_fresh():\n    pass\n"),
        "ledger_fresh", True,
        lambda: git(repo, "checkout", "--", "pkg/ledger.py"),
    )  # fmt: skip
    step(
        "a new file in an existing directory",
        lambda: (repo / "pkg" / "sub" / "extra.py").write_text("def extra_fn():\n    pass\n"),
        "extra_fn", True,
        lambda: (repo / "pkg" / "sub" / "extra.py").unlink(),
    )  # fmt: skip

    def new_dir():
        (repo / "pkg" / "sub" / "deeper").mkdir()
        (repo / "pkg" / "sub" / "deeper" / "mod.py").write_text("def deeper_fn():\n    pass\n")

    step(
        "a new directory with a file", new_dir, "deeper_fn", True,
        lambda: shutil.rmtree(repo / "pkg" / "sub" / "deeper"),
    )  # fmt: skip
    step(
        "a deleted file", lambda: ledger.unlink(), "ledger_total", False,
        lambda: git(repo, "checkout", "--", "pkg/ledger.py"),
    )  # fmt: skip

    (repo / "build").mkdir()

    def ignored_then_added():
        (repo / "build" / "gen.py").write_text("def generated_fn():\n    pass\n")
        assert found(repo, "generated_fn") == (False, False)  # ignored: still clean
        git(repo, "add", "-f", "build/gen.py")

    def unstage():
        git(repo, "rm", "-q", "--cached", "build/gen.py")
        (repo / "build" / "gen.py").unlink()

    step("git add of an ignored file", ignored_then_added, "generated_fn", True, unstage)

    exclude = repo / ".git" / "info" / "exclude"
    exclude.parent.mkdir(exist_ok=True)
    exclude.write_text("scratch/\n")
    (repo / "scratch").mkdir()
    (repo / "scratch" / "s.py").write_text("def scratch_fn():\n    pass\n")
    step(
        "info/exclude un-ignores a directory", lambda: exclude.write_text(""), "scratch_fn",
        True, lambda: exclude.write_text("scratch/\n"),
    )  # fmt: skip

    def commit():
        ledger.write_text(ledger.read_text() + "\n\ndef ledger_committed():\n    pass\n")
        git(repo, "commit", "-qam", "a new function")

    step("a commit (HEAD moves)", commit, "ledger_committed", True, lambda: None)
    # Each was seen, by the full path.
    assert steps == [(name, True, True) for name, _, _ in steps]


def test_a_corrupt_stamp_is_dont_know(repo):
    settle(repo)
    stamp = repo / ".git" / "codebot-overlay" / STAMP
    for damaged in (b"", b"\xc1not msgpack", stamp.read_bytes()[:-7], b"\x93\x01\x02\x03"):
        stamp.write_bytes(damaged)
        text, opened = query(repo, "search", "ledger balance", "--mode", "bm25")
        assert "ledger_balance" in text and opened  # the full path, which writes it again
        text, opened = query(repo, "search", "ledger balance", "--mode", "bm25")
        assert "ledger_balance" in text and not opened


def test_the_stamp_is_written_only_out_of_the_racy_window(repo):
    """A file whose last change may share its timestamp's tick with the status leaves the
    stamp unwritten: changed in the future, or in whole seconds (a coarse file system) under 2 s
    before; once every change is older than its window, the query stamps the tree."""
    stamp = repo / ".git" / "codebot-overlay" / STAMP
    ledger = repo / "pkg" / "ledger.py"

    def search_with(mtime_ns: int) -> bool:
        os.utime(ledger, ns=(mtime_ns, mtime_ns))  # its ctime: now, with a fraction of a second
        time.sleep(0.3)  # past the fine window for the ctime
        out = subprocess.run(
            [sys.executable, "-m", "codebot", "search", "ledger balance", "--mode", "bm25"],
            cwd=repo, capture_output=True, text=True,
        )  # fmt: skip
        assert "ledger_balance" in out.stdout, out.stderr
        return stamp.exists()

    now = time.time_ns()
    assert not search_with(now + 10 * 1_000_000_000)
    assert not search_with(now // 1_000_000_000 * 1_000_000_000)
    assert search_with(time.time_ns() // 1_000_000_000 * 1_000_000_000 - 500_000_001)


def test_index_stamps_a_clean_tree_for_the_first_query(make_repo):
    """`codebot index` proves the tree it indexed clean, so the first query needs no pygit2."""
    root = make_repo(FILES)
    time.sleep(0.3)  # a clone's files, out of the fine racy window by the time the index ends
    out = subprocess.run(
        [sys.executable, "-m", "codebot", "index", "--embedder", "none"],
        cwd=root, capture_output=True, text=True,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    text, opened = query(root, "search", "ledger balance", "--mode", "bm25")
    assert "ledger_balance" in text and not opened


def test_workspace_opens_pygit2_only_when_used(make_repo):
    repo = make_repo(FILES)
    ws = Workspace.at(repo)
    assert ws.repo is not None and not ws.repo.opened
    assert (ws.root, ws.subtree, ws.overlay_dir) == (repo, "", repo / ".git" / "codebot-overlay")
    assert ws.repo.head_commit() == git(repo, "rev-parse", "HEAD") and ws.repo.opened
    sub = Workspace.at(repo / "pkg")  # a subdirectory needs git's index: opened as before
    assert sub.repo.opened and (sub.root, sub.subtree) == (repo, "pkg")
    # A configuration that moves the work tree, or nothing tracked: the full path decides.
    git(repo, "rm", "-rq", "--cached", ".")
    plain = Workspace.at(repo)
    assert plain.repo is None and plain.index_dir == repo / ".codebot"
    git(repo, "add", "-A")
    git(repo, "config", "core.bare", "true")
    with pytest.raises(Exception, match="bare repository"):
        Workspace.at(repo)

"""The quick paths of the command line: a no-op ``codebot update`` answered from HEAD, the
manifest and the last full update's stamp (index/fresh.py, git/refs.py) before anything heavy is
imported, and never when something did change; ``codebot search --mode bm25`` without a model
runtime. Real repositories in tmp dirs, the real ``codebot`` process."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pygit2
import pytest

from codebot.core.config import Config, user_config_path
from codebot.git.refs import read_head
from codebot.index.build import build_index
from codebot.index.fresh import STAMP, quick_noop
from codebot.index.update import update_index

from .conftest import git
from .fakes import HashingEmbedder

FILES = {
    "pkg/__init__.py": "",
    "pkg/ledger.py": (
        "def ledger_total(entries):\n"
        '    """Sum the amounts of a ledger\'s entries."""\n'
        "    return sum(e.amount for e in entries)\n\n\n"
        "def ledger_balance(entries, opening=0):\n"
        "    return opening + ledger_total(entries)\n"
    ),
}
HEAVY = ("click", "pygit2", "numpy", "tantivy", "onnxruntime", "usearch", "networkx", "msgpack")
# Runs the ``codebot`` entry point in a fresh interpreter, then names the heavy modules it loaded.
PROBE = (
    "import sys; from codebot.__main__ import run; sys.argv = ['codebot', *sys.argv[1:]];\n"
    "try:\n    run()\nexcept SystemExit:\n    pass\n"
    f"print('loaded', sorted(m for m in {HEAVY!r} if m in sys.modules))"
)


def codebot(repo: Path, *args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", PROBE, *args], cwd=repo, capture_output=True, text=True, env=env
    )


def loaded(out: subprocess.CompletedProcess) -> list[str]:
    assert out.returncode == 0, out.stderr
    line = out.stdout.strip().splitlines()[-1]
    assert line.startswith("loaded ")
    return eval(line[len("loaded ") :])  # a list literal we printed


def commit_edit(repo: Path, text: str) -> str:
    path = repo / "pkg" / "ledger.py"
    path.write_text(path.read_text().replace("return opening +", f"return {text} + opening +"))
    git(repo, "commit", "-qam", "edit")
    return git(repo, "rev-parse", "HEAD").strip()


@pytest.fixture
def repo(make_repo):
    root = make_repo(FILES)
    build_index(root, Config(embedder="none"))
    return root


def test_read_head_agrees_with_pygit2_in_every_plain_layout(make_repo, tmp_path):
    repo = make_repo(FILES)
    head = read_head(repo / "pkg")
    assert head is not None and head.workdir == repo and head.common == repo / ".git"
    assert head.commit == str(pygit2.Repository(str(repo)).head.target)
    git(repo, "pack-refs", "--all")  # the branch only in packed-refs now
    assert not (repo / ".git" / "refs" / "heads" / "main").exists()
    assert read_head(repo).commit == head.commit
    sha = commit_edit(repo, "1")
    git(repo, "checkout", "-q", "--detach", "HEAD~1")  # a detached HEAD
    assert read_head(repo).commit == head.commit
    git(repo, "checkout", "-q", "main")
    assert read_head(repo).commit == sha
    git(repo, "worktree", "add", "-q", str(tmp_path / "wt"), "HEAD~1")  # a linked worktree
    linked = read_head(tmp_path / "wt")
    assert linked.workdir == tmp_path / "wt" and linked.common == (repo / ".git").resolve()
    assert linked.commit == head.commit and linked.gitdir != linked.common
    unborn = make_repo({}, name="unborn", commit=False)
    assert read_head(unborn) is None  # left to pygit2
    assert read_head(tmp_path) is None  # not in a repository


def test_no_op_update_answers_without_heavy_imports(repo):
    out = codebot(repo, "update")  # the first: the full path, which writes the stamp
    assert out.stdout.startswith("up to date at ") and "click" in loaded(out)
    assert (repo / ".git" / "codebot" / STAMP).is_file()
    head = git(repo, "rev-parse", "HEAD").strip()
    for args in (["update"], ["-q", "update"], ["--quiet", "update", "."]):
        out = codebot(repo, *args)
        assert out.stdout.startswith(f"up to date at {head[:10]}")
        assert loaded(out) == []  # neither click nor pygit2 nor any index runtime
    # The quick answer is the full one's, word for word.
    full = subprocess.run(
        [sys.executable, "-m", "codebot", "update", "--to", "HEAD"], cwd=repo, text=True,
        capture_output=True,
    )  # fmt: skip
    assert full.stdout == codebot(repo, "update").stdout.splitlines(keepends=True)[0]


def test_no_op_update_never_hides_a_change(repo, monkeypatch):
    assert codebot(repo, "update").returncode == 0
    # A new commit: updated, by the full path.
    commit_edit(repo, "2")
    out = codebot(repo, "update")
    assert out.stdout.startswith("updated ") and "click" in loaded(out)
    assert quick_noop(repo) == git(repo, "rev-parse", "HEAD").strip()
    # The repository's settings change: the full path sees it and rebuilds.
    (repo / ".codebot.toml").write_text("chunk_max_lines = 30\n")
    assert quick_noop(repo) is None
    out = codebot(repo, "update")
    assert "rebuilt" in out.stdout and "settings changed" in out.stdout
    # A CODEBOT_ variable is a setting too.
    env = {**os.environ, "CODEBOT_CHUNK_MAX_LINES": "40"}
    assert quick_noop(repo, env) is None
    assert "rebuilt" in codebot(repo, "update", env=env).stdout
    assert quick_noop(repo) is None  # and its absence again
    assert "rebuilt" in codebot(repo, "update").stdout
    assert quick_noop(repo) is not None
    # So is the user's configuration file (it could move the index, or change a setting).
    user = user_config_path()
    user.parent.mkdir(parents=True, exist_ok=True)
    user.write_text("max_file_bytes = 500000\n")
    assert quick_noop(repo) is None
    # A settle due, vectors owed, a stamp for another commit: all "don't know".
    assert "rebuilt" in codebot(repo, "update").stdout
    assert quick_noop(repo) is not None
    stamp = repo / ".git" / "codebot" / STAMP
    data = json.loads(stamp.read_text())
    stamp.write_text(json.dumps({**data, "commit": "0" * 40}))
    assert quick_noop(repo) is None
    stamp.write_text(json.dumps(data))
    manifest = repo / ".git" / "codebot" / "manifest.json"
    m = json.loads(manifest.read_text())
    for changed in ({"vectors_behind": [1]}, {"vectors_pending": {"provider": "builtin"}},
                    {"counts": {**m["counts"], "lexical_deleted": m["counts"]["symbols"]}}):  # fmt: skip
        manifest.write_text(json.dumps({**m, **changed}))
        assert quick_noop(repo) is None
    manifest.write_text(json.dumps(m))
    assert quick_noop(repo) is not None


def test_vectors_owed_take_the_full_path(make_repo):
    repo = make_repo(FILES)
    embedder = HashingEmbedder()
    build_index(repo, Config(), embedder=embedder)
    assert codebot(repo, "update").returncode == 0
    assert quick_noop(repo) is not None
    commit_edit(repo, "3")
    report = update_index(repo, Config(), embedder=embedder, vectors_later=True)
    assert report.manifest.vectors_behind
    assert quick_noop(repo) is None  # the full path would start the embedder


def test_bm25_search_loads_no_model_runtime(repo):
    out = codebot(repo, "search", "ledger balance", "--mode", "bm25")
    assert "ledger_balance" in out.stdout
    heavy = loaded(out)
    assert not {"onnxruntime", "usearch", "networkx"} & set(heavy)
    out = codebot(repo, "callers", "pkg.ledger.ledger_total")
    assert "ledger_balance" in out.stdout
    assert not {"onnxruntime", "usearch", "networkx", "tantivy"} & set(loaded(out))


def test_first_index_and_a_small_hybrid_search_load_only_what_they_use(make_repo):
    """`codebot index` that answers at once leaves communities (networkx) to the background
    embedder; a hybrid search of an index under EXACT_BELOW vectors reads them without usearch."""
    import time

    from codebot.index.store import read_manifest

    root = make_repo(FILES)
    env = {**os.environ, "CODEBOT_EMBEDDER": "builtin"}
    out = codebot(root, "index", "--background", env=env)
    assert "networkx" not in loaded(out)
    index_dir = root / ".git" / "codebot"
    deadline = time.monotonic() + 120
    while read_manifest(index_dir).vectors_pending:  # the embedder's pass: vectors, communities
        assert time.monotonic() < deadline, "the background embedder did not finish"
        time.sleep(0.1)
    out = codebot(root, "search", "sum the amounts of a ledger", "--mode", "hybrid", env=env)
    assert "ledger_total" in out.stdout
    heavy = set(loaded(out))
    assert "onnxruntime" in heavy and not {"usearch", "networkx"} & heavy


def test_commands_of_other_modules_load_when_run():
    import importlib

    from codebot.serve.cli import LAZY, main

    for module in set(LAZY.values()):  # every command is named, and named after its module
        names = {c.name for c in importlib.import_module(module).COMMANDS}
        assert names == {name for name, where in LAZY.items() if where == module}
    code = (
        "import sys; from codebot.serve.cli import main\n"
        "main(['status', '--help'], standalone_mode=False)\n"
        "print(sorted(m for m in sys.modules if m.startswith('codebot.serve.cli_')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().splitlines()[-1] == "[]"
    assert set(LAZY) <= set(main.list_commands(None))

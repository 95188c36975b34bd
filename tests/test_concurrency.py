"""Readers never fail because a writer moved on (issue 15): 50 commits through the git hooks,
each starting a background update that writes a generation and prunes old ones, while searches
run in a loop; and the same race in process, where it is quicker to provoke."""

from __future__ import annotations

import os
import subprocess
import sys
import threading

from codebot.core.config import Config
from codebot.git.hooks import install
from codebot.index.build import build_index
from codebot.index.overlay import open_index
from codebot.index.update import update_index
from codebot.query.search import Searcher

from .conftest import git, write_files
from .test_hooks import indexed_commit, wait_for

FAST = {"a.py": "def f():\n    return 1\n", ".codebot.toml": 'embedder = "none"\n'}


def test_searches_never_fail_while_hooks_update(make_repo):
    repo = make_repo(FAST)
    subprocess.run([sys.executable, "-m", "codebot", "index", "."], cwd=repo, check=True)
    install(repo)
    done = threading.Event()
    outcomes: list[tuple[int, str]] = []

    def search_loop() -> None:
        while not done.is_set():
            out = subprocess.run(
                [sys.executable, "-m", "codebot", "search", "function number", "-k", "3"],
                cwd=repo,
                capture_output=True,
                text=True,
                env=os.environ.copy(),
            )
            outcomes.append((out.returncode, out.stderr[-500:]))

    searchers = [threading.Thread(target=search_loop) for _ in range(2)]
    for t in searchers:
        t.start()
    try:
        for i in range(50):
            write_files(repo, {f"m{i % 7}.py": f"def g{i}():\n    return f() + {i}\n"})
            git(repo, "add", "-A")
            git(repo, "commit", "-q", "-m", f"c{i}")
        assert wait_for(lambda: indexed_commit(repo) == git(repo, "rev-parse", "HEAD"), 180)
        settled = len(outcomes)
        assert wait_for(lambda: len(outcomes) >= max(6, settled + 2), 120)  # and after it
    finally:
        done.set()
        for t in searchers:
            t.join()
    failed = [err for code, err in outcomes if code != 0]
    assert failed == [], failed[:3]


def test_a_reader_outlives_the_generations_written_after_it(make_repo):
    """A reader opened before many updates still reads its generation: writers prune only what
    no reader holds."""
    repo = make_repo(FAST)
    config = Config(embedder="none")
    build_index(repo, config)
    early = open_index(repo, config, worktree=False)  # holds its generation
    for i in range(6):
        write_files(repo, {f"m{i}.py": f"def g{i}():\n    return {i}\n"})
        git(repo, "add", "-A")
        git(repo, "commit", "-q", "-m", f"c{i}")
        update_index(repo, config)
    assert [h.id for h in Searcher(early).search("f", 1)] == ["a.f"]
    assert early.graph.n == len(early.symbols)  # every file of it still there
    del early
    update_index(repo, config, to="HEAD~1")
    gens = sorted((repo / ".git" / "codebot").glob("gen-*"))
    assert len(gens) <= 3  # released, then pruned by the next writer

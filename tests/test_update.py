"""Incremental updates: identical to a fresh build after every kind of change git can make, safe
to kill at any moment, and the work tree overlay that answers for uncommitted edits."""

from __future__ import annotations

import os
import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

import codebot
from codebot.core.config import Config
from codebot.core.errors import IndexBusy, NotFound
from codebot.git.workspace import Workspace
from codebot.index.build import build_index, build_locked
from codebot.index.overlay import open_index
from codebot.index.store import lock_for_writing, read_manifest, verify
from codebot.index.update import unsettled, update_index
from codebot.query.differences import index_differences
from codebot.query.search import Searcher

from .conftest import git, write_files
from .fakes import HashingEmbedder
from .languages.test_go import SOURCE as GO_SOURCE

PACKAGE = Path(codebot.__file__).parent
# Real files: some of codebot's own modules (they import each other), and a Go file.
REAL = {
    f"pkg/{name}": (PACKAGE / source).read_text()
    for name, source in {
        "config.py": "core/config.py",
        "errors.py": "core/errors.py",
        "gitio.py": "git/repo.py",
        "tokens.py": "query/tokens.py",
        "render.py": "query/render.py",
    }.items()
}
REAL["svc/server.go"] = GO_SOURCE
SHAPES = """\
class Shape:
    def area(self):
        return 0

    def describe(self):
        return f"{self.area()}"


class Square(Shape):
    def area(self):
        return self.side * self.side

    def grow(self, by):
        self.side += by
        return self.area()
"""
USER = """\
from pkg.errors import ConfigError
from pkg.shapes import Square


def check(value):
    if value is None:
        raise ConfigError("missing")
    return Square().grow(value)
"""
QUERIES = ["area", "grow the square", "ConfigError", "load_config", "render hits", "Square.grow"]


def commit(repo: Path, message: str) -> str:
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", message)
    return git(repo, "rev-parse", "HEAD")


def assert_same_as_build(repo: Path, tmp_path: Path, embedder, commit_id: str | None = None):
    """The updated index equals a fresh build of the same commit, in every respect."""
    keywords_only = read_manifest(repo / ".git" / "codebot").embedder is None
    built_cfg = Config(
        index_dir=str(tmp_path / "built"), embedder="none" if keywords_only else "builtin"
    )
    built_ws = Workspace.at(repo, built_cfg.index_dir)
    with lock_for_writing(built_ws.index_dir):
        build_locked(built_ws, built_cfg, None, embedder, at=commit_id or "HEAD")
    updated = open_index(repo, Config(), worktree=False)
    built = open_index(repo, built_cfg, worktree=False)
    assert updated.manifest.commit == built.manifest.commit
    modes = ["bm25", "hybrid"] if embedder is not None or built.manifest.embedder else ["bm25"]
    assert index_differences(updated, built, QUERIES, modes, embedder) == []
    assert verify(updated.index_dir, updated.manifest) == []
    if unsettled(updated.manifest):  # settled: identical to the build in every respect
        update_index(repo, Config(), to=commit_id, embedder=embedder, settle_now=True)
        updated = open_index(repo, Config(), worktree=False)
        assert not unsettled(updated.manifest)
        assert index_differences(updated, built, QUERIES, modes, embedder) == []
    return updated


def real_history(repo: Path) -> list[str]:
    """Commits of every kind of change git can make, on the repository ``real_repo`` made."""
    steps = []

    # An edited function body.
    config_py = repo / "pkg/config.py"
    config_py.write_text(
        config_py.read_text().replace("unknown setting", "unrecognised setting", 1)
    )
    steps.append(commit(repo, "edit a docstring"))
    # A new file that calls into others.
    write_files(repo, {"app/more.py": "from app.user import check\n\ndef run():\n    check(1)\n"})
    steps.append(commit(repo, "add a caller"))
    # A rename (git sees it as one), and a deletion.
    git(repo, "mv", "pkg/tokens.py", "pkg/tokenizing.py")
    (repo / "pkg/gitio.py").unlink()
    steps.append(commit(repo, "rename and delete"))
    # A method moves from one class to another; a function moves between files.
    shapes = SHAPES.replace(
        "    def grow(self, by):\n        self.side += by\n        return self.area()\n", ""
    )
    shapes = shapes.replace(
        "    def describe(self):",
        "    def grow(self, by):\n        return by\n\n    def describe(self):",
    )
    (repo / "pkg/shapes.py").write_text(shapes)
    user = (repo / "app/user.py").read_text().replace("def check(", "def _unused(")
    (repo / "app/user.py").write_text(user)
    write_files(repo, {"app/checks.py": USER})
    steps.append(commit(repo, "move a method between classes and a function between files"))
    # A.js next to a.ts: module ids clash, so a.js's unchanged symbols change ids.
    write_files(repo, {"web/a.js": "export function f() { return g(); }\nfunction g() {}\n"})
    steps.append(commit(repo, "add a.js"))
    write_files(repo, {"web/a.ts": "export function f(): number { return 1; }\n"})
    steps.append(commit(repo, "add a.ts beside it"))
    # Files that are skipped, and one that stops being skipped.
    write_files(repo, {"data/blob.py": b"\x00\x01binary", "big.py": "x = 1\n" * 300_000})
    steps.append(commit(repo, "binary and oversized files"))
    (repo / "big.py").write_text("def small():\n    return 1\n")
    steps.append(commit(repo, "big file shrinks"))
    # A revert: the old content comes back, so its vectors come from the cache.
    git(repo, "revert", "--no-edit", steps[0])
    steps.append(git(repo, "rev-parse", "HEAD"))
    return steps


def real_repo(make_repo) -> Path:
    return make_repo({**REAL, "pkg/shapes.py": SHAPES, "app/user.py": USER})


def test_history_of_real_changes_stays_identical_to_a_rebuild(make_repo, tmp_path):
    embedder = HashingEmbedder()
    repo = real_repo(make_repo)
    build_index(repo, Config(), embedder=embedder)
    steps = real_history(repo)
    for n, sha in enumerate(steps):
        calls = embedder.calls
        report = update_index(repo, Config(), to=sha, embedder=embedder)
        assert report.action == "updated" and report.commit == sha
        if n == len(steps) - 1:  # the revert embeds nothing: every text is in the cache
            assert report.embedded == 0 and embedder.calls == calls
        assert_same_as_build(repo, tmp_path / str(n), embedder, sha)
    symbols = open_index(repo, Config(), worktree=False).by_id
    assert "pkg.tokenizing.token_counter" in symbols and "pkg.tokens.token_counter" not in symbols
    assert "pkg.shapes.Shape.grow" in symbols and "pkg.shapes.Square.grow" not in symbols
    assert "web.a.js.f" in symbols and "web.a.ts.f" in symbols


def test_vectors_later_answers_by_keywords_then_equals_a_rebuild(make_repo, tmp_path):
    """``vectors_later``: each update commits keywords + graph and leaves the changed symbols'
    vectors to the background embedder (here run in the test's process, every other step, so
    two updates' debts add up); once it has run, the index is a rebuild's, vectors included."""
    from codebot.index.background import embedding_progress, finish_vectors

    embedder = HashingEmbedder()
    repo = real_repo(make_repo)
    build_index(repo, Config(), embedder=embedder)
    index_dir = repo / ".git" / "codebot"
    steps = real_history(repo)
    for n, sha in enumerate(steps):
        calls = embedder.calls
        report = update_index(repo, Config(), to=sha, embedder=embedder, vectors_later=True)
        assert report.action == "updated" and report.embedded == 0 and embedder.calls == calls
        m = report.manifest
        new = report.symbols["added"] + report.symbols["changed"]
        assert report.vectors_later == new and (m.vectors_behind or not new)
        assert m.embedder is not None and not m.vectors_pending  # hybrid search goes on
        state = embedding_progress(index_dir, m).state
        assert state == ("stopped" if m.vectors_behind else "complete")  # none started here
        # The changed symbols answer by keywords at once; none of their stale vectors answers.
        index = open_index(repo, Config(), embedder=embedder, worktree=False)
        searcher = Searcher(index, Config(), embedder=embedder)
        behind = set(m.vectors_behind or ())
        keys = np.fromfile(index.gen_dir / "keys.u64", dtype="<u8").tolist()
        changed = [row for row, key in enumerate(keys) if key in behind]
        query = "shape area" if not changed else index.symbols[changed[0]].name
        if changed:
            found = searcher.search(query, k=20, mode="bm25")
            assert index.symbols[changed[0]].id in {h.id for h in found}
        vector = embedder.embed_queries([query])[0]
        hits = {k for k, _ in searcher._vector_index().search(vector, 10_000)}
        assert not behind & hits  # stale or removed vectors never answer
        assert hits == set(keys) - behind  # and every other symbol's vector does
        if n % 2 or n == len(steps) - 1:
            finish_vectors(Workspace.at(repo), Config(), embedder=embedder)
            assert not read_manifest(index_dir).vectors_behind
            assert_same_as_build(repo, tmp_path / str(n), embedder, sha)


def test_constants_and_variables_follow_edits(make_repo, tmp_path):
    """Module-level names are symbols: an edit that removes one removes the symbol, one that
    adds or renames one adds it, in an update as in the overlay (issue 21)."""
    config = Config(embedder="none")
    settings = (
        "import os\n\nTIMEOUT = 5\nRETRIES = 3\nsession = make_session()\n\n\n"
        "def fetch(url):\n    return session.get(url, timeout=TIMEOUT)\n"
    )
    repo = make_repo({"pkg/__init__.py": "", "pkg/settings.py": settings})
    build_index(repo, config)
    before = open_index(repo, config, worktree=False).by_id
    assert {"pkg.settings.TIMEOUT", "pkg.settings.RETRIES", "pkg.settings.session"} <= set(before)

    edited = settings.replace("RETRIES = 3\n", "").replace("session =", "client =")
    (repo / "pkg/settings.py").write_text(edited.replace("TIMEOUT = 5", "TIMEOUT = 5\nLIMIT = 10"))
    # The uncommitted edit, seen through the overlay.
    overlay = Searcher(open_index(repo, config))
    assert overlay.find("LIMIT")[0].kind == "constant"
    with pytest.raises(NotFound):
        overlay.find("RETRIES")
    sha = commit(repo, "drop RETRIES, add LIMIT, rename session")
    update_index(repo, config, to=sha)
    updated = assert_same_as_build(repo, tmp_path, None, sha)
    searcher = Searcher(updated)
    assert [s.kind for s in searcher.find("LIMIT")] == ["constant"]
    assert [s.kind for s in searcher.find("client")] == ["variable"]
    for gone in ("RETRIES", "session"):
        with pytest.raises(NotFound):
            searcher.find(gone)


def test_jump_to_any_commit_detached_or_on_another_branch(make_repo, tmp_path):
    embedder = HashingEmbedder()
    repo = make_repo({**REAL, "pkg/shapes.py": SHAPES})
    first = git(repo, "rev-parse", "HEAD")
    git(repo, "checkout", "-qb", "feature")
    write_files(repo, {"pkg/feature.py": "def feature():\n    return 1\n"})
    feature = commit(repo, "feature")
    git(repo, "checkout", "-q", "main")
    (repo / "pkg/render.py").unlink()
    main_tip = commit(repo, "drop render")
    build_index(repo, Config(), embedder=embedder)

    # Not an ancestor: main's tip -> the feature branch's tip, without a checkout.
    report = update_index(repo, Config(), to="feature", embedder=embedder)
    assert (report.base_commit, report.commit) == (main_tip, feature)
    assert_same_as_build(repo, tmp_path / "a", embedder, feature)
    # Back in time, on a detached HEAD.
    git(repo, "checkout", "-q", "--detach", first)
    report = update_index(repo, Config(), embedder=embedder)
    assert report.commit == first and report.embedded == 0  # all seen before
    assert_same_as_build(repo, tmp_path / "b", embedder)
    assert update_index(repo, Config(), embedder=embedder).action == "up-to-date"


def test_unborn_branch_then_first_commit(make_repo, tmp_path):
    embedder = HashingEmbedder()
    repo = make_repo({"pkg/shapes.py": SHAPES}, commit=False)
    git(repo, "add", "-A")
    report = build_index(repo, Config(), embedder=embedder)
    assert report.manifest.commit is None and report.counts["symbols"] == 0
    # Nothing committed yet, but a query sees the files: they are the overlay's.
    index = open_index(repo, Config(), embedder=embedder)
    assert "pkg.shapes.Square.grow" in index.by_id
    commit(repo, "first")
    report = update_index(repo, Config(), embedder=embedder)
    assert report.action == "updated" and report.files["added"] == 1
    assert_same_as_build(repo, tmp_path, embedder)


def test_missing_indexed_commit_rebuilds_and_says_why(make_repo):
    repo = make_repo({"pkg/shapes.py": SHAPES})
    build_index(repo, Config(embedder="none"))
    # Rewrite history and prune: the indexed commit is gone, as in a re-cloned shallow repo.
    (repo / "pkg/shapes.py").write_text(SHAPES + "\n\ndef extra():\n    pass\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "--amend", "-m", "rewritten")
    git(repo, "reflog", "expire", "--expire=now", "--all")
    git(repo, "gc", "-q", "--prune=now")
    report = update_index(repo, Config(embedder="none"))
    assert report.action == "rebuilt" and "not in this repository" in report.reason
    assert "pkg.shapes.extra" in open_index(repo, Config(), worktree=False).by_id


def test_shallow_clone_indexes_and_updates(make_repo, tmp_path):
    origin = make_repo({"pkg/shapes.py": SHAPES}, name="origin")
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", "--depth", "1", f"file://{origin}", str(clone))
    build_index(clone, Config(embedder="none"))
    write_files(origin, {"pkg/new.py": "def new():\n    return 2\n"})
    commit(origin, "new")
    git(clone, "fetch", "-q", "--depth", "1", "origin", "main")
    git(clone, "reset", "-q", "--hard", "FETCH_HEAD")
    report = update_index(clone, Config(embedder="none"))
    assert report.action == "updated" and report.files == {
        "added": 1,
        "modified": 0,
        "deleted": 0,
        "renamed": 0,
    }
    assert "pkg.new.new" in open_index(clone, Config(), worktree=False).by_id


def test_submodule_is_skipped_by_build_update_and_overlay(make_repo, tmp_path):
    sub = make_repo({"lib.py": "def lib():\n    pass\n"}, name="sub")
    repo = make_repo({"main.py": "def main():\n    pass\n"})
    git(repo, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(sub), "vendored")
    commit(repo, "add submodule")
    build_index(repo, Config(embedder="none"))
    skipped = {s["path"]: s["reason"] for s in read_manifest(repo / ".git" / "codebot").skipped}
    assert skipped["vendored"].startswith("submodule")
    (repo / "vendored" / "lib.py").write_text("def changed():\n    pass\n")  # dirty submodule
    write_files(repo, {"two.py": "def two():\n    pass\n"})
    commit(repo, "two")
    assert update_index(repo, Config(embedder="none")).action == "updated"
    index = open_index(repo, Config())
    assert "two.two" in index.by_id and not any(p.startswith("vendored") for p in index.by_id)


def test_settings_change_rebuilds(make_repo):
    repo = make_repo({"pkg/shapes.py": SHAPES, "pkg/other.py": "def other():\n    pass\n"})
    build_index(repo, Config(embedder="none"))
    write_files(repo, {".codebotignore": "pkg/other.py\n"})
    commit(repo, "ignore a file")
    report = update_index(repo, Config(embedder="none"))
    assert report.action == "rebuilt" and "settings" in report.reason
    assert "pkg.other.other" not in open_index(repo, Config(), worktree=False).by_id


def test_update_outside_git_compares_files_by_content(tmp_path):
    root = tmp_path / "plain"
    write_files(root, {"a.py": "def a():\n    return b()\n", "b.py": "def b():\n    pass\n"})
    build_index(root, Config(embedder="none"))
    (root / "b.py").unlink()
    write_files(root, {"c.py": "def c():\n    pass\n"})
    report = update_index(root, Config(embedder="none"))
    assert report.files == {"added": 1, "modified": 0, "deleted": 1, "renamed": 0}
    index = open_index(root, Config())
    assert set(index.by_id) == {"a.a", "c.c"} and len(index.graph) == 0


def test_update_waits_for_the_lock_or_says_busy(make_repo):
    repo = make_repo({"pkg/shapes.py": SHAPES})
    build_index(repo, Config(embedder="none"))
    with lock_for_writing(repo / ".git" / "codebot"):
        with pytest.raises(IndexBusy, match="--wait"):
            update_index(repo, Config(embedder="none"))


# --- crash safety ------------------------------------------------------------------------------

_UPDATE = (
    "import sys; from codebot.core.config import Config; from codebot.index.update import update_index; "
    "update_index(sys.argv[1], Config(), to=sys.argv[2])"
)


def test_killed_updates_leave_a_readable_index_that_converges(make_repo, tmp_path):
    """kill -9 at random moments of many updates: the index always opens and searches, its
    checksums hold, and the next update finishes the job (identical to a fresh build)."""
    files = {
        f"mod/m{i}.py": f"def f{i}(x):\n    '''Step {i}.'''\n    return f{i + 1}(x)\n"
        for i in range(60)
    }
    repo = make_repo(files)
    build_index(repo, Config())
    commits = []
    for round_ in range(6):
        for i in range(0, 60, 7):
            path = repo / f"mod/m{(i + round_) % 60}.py"
            path.write_text(path.read_text() + f"\n\ndef extra_{round_}_{i}():\n    return {i}\n")
        commits.append(commit(repo, f"round {round_}"))
    rng = random.Random(7)
    index_dir = repo / ".git" / "codebot"

    def run_update(target: str) -> subprocess.Popen:
        return subprocess.Popen(
            [sys.executable, "-c", _UPDATE, str(repo), target],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )

    # The kills land inside an update whatever this machine's speed: at a random share of
    # the time one whole update (start-up included) takes here, to the commit before the last.
    start = time.monotonic()
    assert run_update(commits[-2]).wait() == 0
    whole = time.monotonic() - start
    kills = 0
    for attempt in range(14):
        target = commits[attempt % len(commits)]
        proc = run_update(target)
        time.sleep(rng.uniform(0.15, 0.95) * whole)
        if proc.poll() is None:
            os.kill(proc.pid, signal.SIGKILL)
            kills += 1
        proc.wait()
        index = open_index(repo, Config(), worktree=False)
        assert verify(index_dir, index.manifest) == []
        assert Searcher(index, Config()).search("step", k=3)  # reads lexical and vectors
        assert index.manifest.commit in [*commits, git(repo, "rev-parse", "HEAD~6")]
    assert kills >= 5  # the test must have interrupted updates, not watched them finish
    report = update_index(repo, Config())
    assert report.commit == commits[-1]
    assert_same_as_build(repo, tmp_path, None)


# --- the work tree overlay ---------------------------------------------------------------------


def test_overlay_reflects_uncommitted_edits_additions_and_deletions(make_repo):
    embedder = HashingEmbedder()
    repo = make_repo({"pkg/shapes.py": SHAPES, "app/user.py": USER})
    build_index(repo, Config(), embedder=embedder)
    committed = read_manifest(repo / ".git" / "codebot").generation

    # Edit a function, add a file, delete one: nothing committed.
    shapes = repo / "pkg/shapes.py"
    shapes.write_text(SHAPES.replace("return self.side * self.side", "return self.side ** 2"))
    write_files(repo, {"pkg/circle.py": "def circle_area(radius):\n    return 3.14 * radius**2\n"})
    (repo / "app/user.py").unlink()

    index = open_index(repo, Config(), embedder=embedder)
    assert index.manifest.overlay is not None
    searcher = Searcher(index, Config(), embedder=embedder)
    area = searcher.find("Square.area")[0]
    assert "self.side ** 2" in index.code(area)
    assert searcher.find("circle_area")[0].path == "pkg/circle.py"
    with pytest.raises(NotFound):
        searcher.find("check")  # deleted: never handed to an agent
    hits = searcher.search("check value square grow", k=20)
    assert all(h.path != "app/user.py" for h in hits)
    # The edge from the deleted caller is gone; the new file is in the graph's rows.
    assert all(index.symbols[r].path != "app/user.py" for r in range(len(index.symbols)))
    # The committed index is untouched.
    assert read_manifest(repo / ".git" / "codebot").generation == committed

    # A second query with nothing changed reuses the overlay; a clean tree drops it.
    again = open_index(repo, Config(), embedder=embedder)
    assert again.gen_dir == index.gen_dir
    git(repo, "checkout", "--", ".")
    (repo / "pkg/circle.py").unlink()
    clean = open_index(repo, Config(), embedder=embedder)
    assert clean.manifest.overlay is None and clean.manifest.generation == committed


def test_overlay_follows_head_before_the_hook_update_lands(make_repo):
    repo = make_repo({"pkg/shapes.py": SHAPES})
    build_index(repo, Config(embedder="none"))
    write_files(repo, {"pkg/new.py": "def brand_new():\n    pass\n"})
    commit(repo, "committed, not yet indexed")
    index = open_index(repo, Config())
    assert "pkg.new.brand_new" in index.by_id and index.manifest.overlay is not None


def test_linked_worktrees_share_the_index_and_keep_their_own_overlay(make_repo, tmp_path):
    repo = make_repo({"pkg/shapes.py": SHAPES})
    build_index(repo, Config(embedder="none"))
    other = tmp_path / "other"
    git(repo, "worktree", "add", "-q", str(other))
    write_files(other, {"pkg/only_there.py": "def only_there():\n    pass\n"})
    there = open_index(other, Config())
    here = open_index(repo, Config())
    assert "pkg.only_there.only_there" in there.by_id
    assert "pkg.only_there.only_there" not in here.by_id
    assert there.gen_dir.is_relative_to(repo / ".git" / "worktrees")


def test_cli_update_reports_and_validates(make_repo, validate):
    from click.testing import CliRunner

    from codebot.serve.cli import main

    repo = make_repo({"pkg/shapes.py": SHAPES})
    runner = CliRunner()
    first = runner.invoke(main, ["update", str(repo), "--json"], env={"CODEBOT_EMBEDDER": "none"})
    assert first.exit_code == 0, first.output
    write_files(repo, {"pkg/new.py": "def new():\n    pass\n"})
    commit(repo, "new")
    result = runner.invoke(
        main, ["update", str(repo), "--worktree", "--json"], env={"CODEBOT_EMBEDDER": "none"}
    )
    assert result.exit_code == 0, result.output
    import json

    data = json.loads(result.output)
    validate(data, "update-report.schema.json")
    assert data["action"] == "updated" and data["files"]["added"] == 1
    assert data["worktree"]["files"] == []
    text = runner.invoke(main, ["update", str(repo)], env={"CODEBOT_EMBEDDER": "none"})
    assert text.exit_code == 0 and text.output.startswith("up to date at ")
    shutil.rmtree(repo / ".git" / "codebot")
    rebuilt = runner.invoke(main, ["update", str(repo)], env={"CODEBOT_EMBEDDER": "none"})
    assert (
        rebuilt.exit_code == 0
        and "rebuilt" in rebuilt.output
        and "no usable index" in rebuilt.output
    )


def test_large_index_defers_lexical_rewrite_and_communities_until_settled(make_repo, tmp_path):
    """An update keeps Tantivy's deleted documents and the old communities (each costs time
    linear in the repository to redo); once changes reach SETTLE_SHARE of the symbols the
    index settles, and is a fresh build's again."""

    def module(i: int, calls: int) -> str:
        return f"from m{calls} import f{calls}\n\n\ndef f{i}():\n    return f{calls}()\n"

    files = {f"m{i}.py": module(i, (i + 1) % 40) for i in range(40)}
    repo = make_repo(files)
    build_index(repo, Config(embedder="none"))
    (repo / "m3.py").write_text(module(3, 9))
    commit(repo, "one change")
    report = update_index(repo, Config(embedder="none"))
    index = open_index(repo, Config(), worktree=False)
    assert "settle" not in report.timings and index.manifest.counts["lexical_deleted"] == 2
    assert index.graph.meta["community_method"] == "carried"
    for i in range(0, 40, 8):  # five more changed files: 12 changed symbols of 80 > a tenth
        (repo / f"m{i}.py").write_text(module(i, (i + 2) % 40))
    commit(repo, "more changes")
    report = update_index(repo, Config(embedder="none"))
    assert "settle" in report.timings
    index = assert_same_as_build(repo, tmp_path, None)
    assert index.graph.meta["community_method"] == "louvain"
    assert index.manifest.counts["lexical_deleted"] == 0


def test_status_names_the_files_that_differ_from_the_index(make_repo):
    import json

    from click.testing import CliRunner

    from codebot.serve.cli import main

    repo = make_repo({"pkg/shapes.py": SHAPES})
    build_index(repo, Config(embedder="none"))
    (repo / "pkg/shapes.py").write_text(SHAPES + "\n# edited\n")
    runner = CliRunner()
    old = os.getcwd()
    try:
        os.chdir(repo)
        data = json.loads(runner.invoke(main, ["status", "--json"]).output)
        text = runner.invoke(main, ["status"]).output
    finally:
        os.chdir(old)
    assert data["worktree"] == {"differs": ["pkg/shapes.py"]}
    assert "work tree 1 file(s) differ from the index" in text


def test_subtree_index_follows_commits_that_touch_other_paths(make_repo):
    repo = make_repo({"pkg/shapes.py": SHAPES, "docs/notes.md": "# notes\n"})
    build_index(repo / "pkg", Config(embedder="none"))
    (repo / "docs/notes.md").write_text("# notes\n\nmore\n")
    head = commit(repo, "docs only")
    report = update_index(repo / "pkg", Config(embedder="none"))
    assert report.action == "up-to-date" and report.commit == head
    assert read_manifest(repo / ".git" / "codebot").commit == head


def test_update_keeps_the_embedder_the_index_was_built_with(make_repo):
    """A keyword-only index stays one, through updates and rebuilds (the CLI's default embedder
    is the model: an update must not switch an index to it behind the user's back)."""
    repo = make_repo({"pkg/shapes.py": SHAPES})
    build_index(repo, Config(embedder="none"))
    write_files(repo, {"pkg/new.py": "def new():\n    pass\n"})
    commit(repo, "new")
    assert update_index(repo, Config()).action == "updated"
    assert read_manifest(repo / ".git" / "codebot").embedder is None
    write_files(repo, {".codebotignore": "pkg/new.py\n"})
    commit(repo, "settings change: a rebuild")
    assert update_index(repo, Config()).action == "rebuilt"
    assert read_manifest(repo / ".git" / "codebot").embedder is None


def test_a_new_repository_with_nothing_committed_keeps_its_index_in_git(make_repo):
    """`git init`, write files, `codebot index`: the index goes to .git/codebot (never into the
    work tree, where `git add .` would pick it up) and queries see the files."""
    repo = make_repo({"pkg/shapes.py": SHAPES}, commit=False)
    build_index(repo, Config(embedder="none"))
    assert (repo / ".git" / "codebot" / "manifest.json").is_file()
    assert not (repo / ".codebot").exists()
    assert "pkg.shapes.Square.grow" in open_index(repo, Config()).by_id

"""The index on disk: atomic generations, the lock, versions, resume after an interruption."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest

from codebot.core.config import Config
from codebot.core.errors import StoreError
from codebot.index.build import build_index
from codebot.index.overlay import open_index
from codebot.index.store import FORMAT_VERSION, MARKER, lock_for_writing, read_manifest, verify
from codebot.query.search import Searcher

from .fakes import HashingEmbedder

FILES = {
    "billing/invoice.py": "def total(items):\n    '''Sum the invoice lines.'''\n    return sum(i.price for i in items)\n",
    "billing/tax.py": "def vat(amount, rate=0.2):\n    return amount * rate\n",
}


def test_manifest_is_the_commit_point_and_validates(make_repo, validate):
    repo = make_repo(FILES)
    report = build_index(repo, Config(embedder="none"))
    index_dir = repo / ".git" / "codebot"
    assert report.index_dir == index_dir
    data = json.loads((index_dir / "manifest.json").read_text())
    validate(data, "manifest.schema.json")
    assert data["generation"] == "gen-1"
    assert (
        data["commit"]
        == subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=repo, capture_output=True, text=True
        ).stdout.strip()
    )
    assert data["counts"]["symbols"] == 2 and data["embedder"] is None
    assert verify(index_dir, read_manifest(index_dir)) == []


def test_rebuild_replaces_the_generation_and_prunes_old_ones(make_repo):
    repo = make_repo(FILES)
    for _ in range(3):
        build_index(repo, Config(embedder="none"))
    index_dir = repo / ".git" / "codebot"
    assert read_manifest(index_dir).generation == "gen-3"
    assert sorted(p.name for p in index_dir.glob("gen-*")) == ["gen-2", "gen-3"]


def test_interrupted_build_leaves_the_previous_index_and_resumes(make_repo):
    repo = make_repo(FILES)
    embedder = HashingEmbedder()
    build_index(repo, Config(), embedder=embedder)
    # A bigger change, then a build interrupted half-way through embedding.
    for i in range(20):
        (repo / f"billing/extra_{i}.py").write_text(f"def extra_{i}(x):\n    return x + {i}\n")
    subprocess.run(["git", "add", "-A"], cwd=repo, check=True)
    subprocess.run(["git", "commit", "-qm", "more"], cwd=repo, check=True)

    def interrupt(done, total, what):
        if what == "embedding" and done == 10:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        build_index(repo, Config(), progress=interrupt, embedder=embedder)
    index = open_index(repo, Config(), worktree=False)  # the committed index, as it was
    assert index.manifest.generation == "gen-1"
    assert index.manifest.counts["symbols"] == 2
    hits = Searcher(index, Config(), embedder=embedder).search("invoice total", k=1)
    assert hits[0].id == "billing.invoice.total"
    # Resume: the ten vectors made before the interruption are not made again.
    report = build_index(repo, Config(), embedder=embedder)
    assert report.embedded == 10
    assert report.counts["symbols"] == 22
    assert not list((repo / ".git" / "codebot").glob("gen-*.tmp"))


def test_killed_process_leaves_a_readable_index(make_repo):
    files = dict(FILES)
    for i in range(1500):
        files[f"gen/mod_{i}.py"] = "".join(
            f"def f{j}(x):\n    return g(x) + {j}\n\n" for j in range(20)
        )
    repo = make_repo(files)
    build_index(repo, Config(embedder="none"))
    index_dir = repo / ".git" / "codebot"
    proc = subprocess.Popen(
        [sys.executable, "-m", "codebot.serve.cli", "index", str(repo), "--embedder", "none"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 60
    while (
        not (index_dir / "gen-2.tmp").exists()
        and proc.poll() is None
        and time.monotonic() < deadline
    ):
        time.sleep(0.002)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    if (index_dir / "gen-2").exists():
        pytest.skip("the build finished before it could be killed")
    index = open_index(repo, Config(), worktree=False)  # the committed index, as it was
    assert index.manifest.generation == "gen-1"
    assert Searcher(index, Config()).find("total")[0].id == "billing.invoice.total"
    assert build_index(repo, Config(embedder="none")).manifest.generation == "gen-2"


def test_a_second_writer_gets_a_clear_message(tmp_path):
    with lock_for_writing(tmp_path):
        with pytest.raises(StoreError, match=r"being written by pid \d+.*--wait"):
            with lock_for_writing(tmp_path):
                pass
    with lock_for_writing(tmp_path):  # released: the next writer gets it
        pass


def test_index_of_another_format_is_refused_with_advice(make_repo):
    repo = make_repo(FILES)
    build_index(repo, Config(embedder="none"))
    path = repo / ".git" / "codebot" / "manifest.json"
    data = json.loads(path.read_text())
    data["format_version"] = FORMAT_VERSION + 1
    path.write_text(json.dumps(data))
    with pytest.raises(StoreError, match="upgrade codebot"):
        open_index(repo, Config())


def test_missing_index_says_how_to_make_one(make_repo):
    repo = make_repo(FILES)
    with pytest.raises(StoreError, match="codebot index"):
        open_index(repo, Config())


def test_index_dir_override_and_plain_directory(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    (src / "a.py").write_text("def alpha():\n    pass\n")
    build_index(src, Config(embedder="none"))
    assert (src / ".codebot" / "manifest.json").is_file()
    other = tmp_path / "elsewhere"
    build_index(src, Config(embedder="none", index_dir=str(other)))
    assert open_index(src, Config(index_dir=str(other))).manifest.counts["symbols"] == 1


def test_an_index_dir_that_holds_something_else_is_refused_and_left_alone(make_repo, tmp_path):
    """codebot deletes gen-* folders and downloads/ in its index directory: pointed at a folder of
    the user's it must refuse, not clean (issue 15)."""
    repo = make_repo({"a.py": "def f():\n    return 1\n"})
    mine = tmp_path / "mine"
    (mine / "gen-1").mkdir(parents=True)
    (mine / "gen-1" / "thesis.tex").write_text("years of work")
    (mine / "downloads").mkdir()
    (mine / "manifest.json").write_text('{"not": "codebot"}')
    before = sorted(p.relative_to(mine).as_posix() for p in mine.rglob("*"))
    out = subprocess.run(
        [sys.executable, "-m", "codebot", "index", str(repo), "--embedder", "none"],
        env={**os.environ, "CODEBOT_INDEX_DIR": str(mine)},
        capture_output=True,
        text=True,
    )
    assert out.returncode == 1 and "is not a codebot index" in out.stderr, out.stderr
    assert "Traceback" not in out.stderr
    assert sorted(p.relative_to(mine).as_posix() for p in mine.rglob("*")) == before
    assert (mine / "gen-1" / "thesis.tex").read_text() == "years of work"


def test_an_empty_or_new_index_dir_is_claimed_and_an_old_index_kept(make_repo, tmp_path):
    repo = make_repo({"a.py": "def f():\n    return 1\n"})
    for where in (tmp_path / "empty", tmp_path / "new" / "deeper"):
        if where.name == "empty":
            where.mkdir()
        build_index(repo, Config(embedder="none", index_dir=str(where)))
        assert (where / MARKER).is_file() and read_manifest(where).counts["symbols"] >= 1
    legacy = tmp_path / "empty"
    (legacy / MARKER).unlink()  # an index from before the marker: still codebot's
    build_index(repo, Config(embedder="none", index_dir=str(legacy)))
    assert (legacy / MARKER).is_file()


def _small_disk() -> None:
    """In the child: files may not grow past 300 KB, as on a disk that is full (EFBIG instead of
    ENOSPC, the same path through codebot)."""
    import resource

    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (300_000, 300_000))


def test_a_full_disk_is_a_clear_error_and_leaves_no_partial_generation(make_repo, tmp_path):
    repo = make_repo({"a.py": "def f():\n    return 1\n"})
    build_index(repo, Config(embedder="none"))
    index_dir = repo / ".git" / "codebot"
    before = read_manifest(index_dir)
    # Enough code that the tables outgrow the limit.
    body = "".join(f"def f{i}(x):\n    return x + {i}  # {'pad ' * 20}\n\n" for i in range(3000))
    (repo / "big.py").write_text(body)
    subprocess.run(["git", "add", "-A"], cwd=repo, check=True)
    subprocess.run(["git", "commit", "-qm", "big"], cwd=repo, check=True)
    for command in (["index", "."], ["update", "."]):
        out = subprocess.run(
            [sys.executable, "-m", "codebot", *command],
            cwd=repo,
            env={**os.environ, "CODEBOT_EMBEDDER": "none"},
            capture_output=True,
            text=True,
            preexec_fn=_small_disk,
        )
        assert out.returncode == 1, (command, out.stderr)
        assert "cannot write the index" in out.stderr and "Traceback" not in out.stderr
        assert not list(index_dir.glob("gen-*.tmp"))
        assert read_manifest(index_dir).generation == before.generation  # the previous one
    assert Searcher(open_index(repo, Config(), worktree=False)).search("f", 1)


def _read_only(index_dir, *commands: str) -> subprocess.CompletedProcess:
    """Run shell ``commands`` with ``index_dir`` mounted read-only (a private mount namespace:
    root in a container may make one; elsewhere the test is skipped)."""
    probe = subprocess.run(["unshare", "-m", "true"], capture_output=True)
    if probe.returncode != 0:
        pytest.skip("no private mount namespace here (unshare -m)")
    d = str(index_dir)
    script = f"mount --bind {d} {d} && mount -o remount,bind,ro {d} {d} && " + " ; ".join(commands)
    return subprocess.run(["unshare", "-m", "sh", "-c", script], capture_output=True, text=True)


def test_a_read_only_index_answers_and_refuses_writes_clearly(make_repo):
    repo = make_repo({"a.py": "def hello():\n    return 1\n"})
    build_index(repo, Config(embedder="none"))
    py = f"cd {repo} && {sys.executable} -m codebot"
    out = _read_only(
        repo / ".git" / "codebot",
        f"{py} search hello; echo search=$?",
        f"echo 'def world(): pass' >> a.py && {py} search world; echo edited=$?",
        f"{py} index .; echo index=$?",
    )
    assert "search=0" in out.stdout and "a.hello" in out.stdout, out.stdout + out.stderr
    assert "edited=0" in out.stdout and "a.world" in out.stdout  # the overlay lives elsewhere
    assert "index=1" in out.stdout and "Read-only file system" in out.stderr
    assert "Traceback" not in out.stderr and "internal error" not in out.stderr


def test_an_index_kept_inside_the_tree_it_indexes_is_not_indexed(tmp_path):
    """A plain directory whose index_dir is a folder inside it: the index never indexes itself."""
    src = tmp_path / "src"
    src.mkdir()
    (src / "a.py").write_text("def f():\n    return 1\n")
    config = Config(embedder="none", index_dir=str(src / "idx"))
    first = build_index(src, config)
    second = build_index(src, config)
    assert first.manifest.counts["files"] == second.manifest.counts["files"] == 1
    assert not any("idx" in s["path"] for s in second.manifest.skipped)


@pytest.mark.parametrize("exact", [False, True], ids=["usearch", "exact-file"])
def test_vector_search_reads_past_keys_left_behind(tmp_path, exact):
    """Keys an update left to the background embedder never come back, and the hits after
    them still fill the limit, however many there are (an update may leave thousands)."""
    import numpy as np

    from codebot.index.vector import VectorIndex, build_vectors

    rng = np.random.default_rng(3)
    vectors = rng.normal(size=(500, 16)).astype(np.float32)
    path = tmp_path / "vectors.usearch"
    build_vectors(path, np.arange(500, dtype=np.uint64), vectors)
    everything = VectorIndex(path, exact=exact).search(vectors[0], 500)
    behind = {key for key, _ in everything[:300]}
    got = VectorIndex(path, exclude=behind, exact=exact).search(vectors[0], 10)
    assert len(got) == 10 and not behind & {key for key, _ in got}
    assert [d for _, d in got] == [d for _, d in everything[300:310]]
    assert VectorIndex(path, exclude=set(range(500)), exact=exact).search(vectors[0], 10) == []


def test_exact_vector_file_ranks_as_usearch_and_follows_its_updates(tmp_path):
    """Below EXACT_BELOW vectors the exact file (searched with numpy, no usearch import) holds
    the vectors usearch holds, after an update's removals and additions too, and ranks them as
    usearch's exact search does (up to float16 rounding); a file whose size is not its header's is a DamagedIndex."""
    import numpy as np

    from codebot.core.errors import DamagedIndex
    from codebot.index.vector import EXACT_FILE, VectorIndex, build_vectors

    rng = np.random.default_rng(7)
    vectors = rng.normal(size=(400, 24)).astype(np.float32)
    base = tmp_path / "base" / "vectors.usearch"
    base.parent.mkdir()
    build_vectors(base, np.arange(400, dtype=np.uint64), vectors)
    path = tmp_path / "vectors.usearch"
    fresh = rng.normal(size=(50, 24)).astype(np.float32)
    build_vectors(path, np.arange(1000, 1050, dtype=np.uint64), fresh, base=base,
                  remove=np.arange(0, 100, dtype=np.uint64))  # fmt: skip
    for query in (vectors[150], fresh[3], rng.normal(size=24).astype(np.float32)):
        by_usearch = VectorIndex(path).search(query, 20)
        by_numpy = VectorIndex(path, exact=True).search(query, 20)
        # The same ranking, but for neighbours within float16 rounding of each other.
        assert by_numpy[0][0] == by_usearch[0][0]
        assert np.allclose([d for _, d in by_numpy], [d for _, d in by_usearch], atol=1e-3)
        similarity = dict(by_numpy) | dict(by_usearch)
        for (a, _), (b, _) in zip(by_numpy, by_usearch):
            assert a == b or abs(similarity[a] - similarity[b]) < 1e-3
    assert len(VectorIndex(path, exact=True)) == 350
    exact = path.with_name(EXACT_FILE)
    exact.write_bytes(exact.read_bytes()[:-2])
    with pytest.raises(DamagedIndex, match="not the 350 vectors its header says"):
        VectorIndex(path, exact=True)

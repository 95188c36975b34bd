"""Parsing across processes: the index is the same with one worker or several, a hostile file is
skipped the same way in a worker, and a worker that dies does not lose the build."""

from __future__ import annotations

import multiprocessing
import os
import shutil
from pathlib import Path

import pytest

from codebot.core.config import Config
from codebot.core.model import FileResult
from codebot.index.build import build_index, lexical_documents
from codebot.index.overlay import open_index
from codebot.parse.files import select_files
from codebot.parse.parallel import PARALLEL_MIN_FILES, parse_selection, worker_count
from codebot.query.differences import index_differences
from tests.conftest import git

PACKAGE = Path(__file__).resolve().parent.parent / "codebot"
QUERIES = ["resolve calls to edges", "pagerank", "parse one file", "Selector", "module_id"]
# Over the nesting bound of parse.guard: skipped with the reason, in a worker as in one process.
HOSTILE = "x = " + "[" * 6000 + "]" * 6000 + "\n"


def real_repo(tmp_path: Path) -> Path:
    """A git repository of real code: codebot's own parse and graph packages, plus a file the
    parser refuses and one that is not text."""
    repo = tmp_path / "repo"
    for part in ("parse", "graph", "languages"):
        shutil.copytree(PACKAGE / part, repo / "src" / part, ignore=shutil.ignore_patterns("*.pyc"))
    (repo / "src" / "deep.py").write_text(HOSTILE)
    (repo / "src" / "blob.py").write_bytes(b"\x00\x01binary\x00" * 50)
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "real code")
    return repo


def test_index_is_the_same_with_one_worker_or_two(tmp_path):
    repo = real_repo(tmp_path)
    indexes = {}
    for jobs in (1, 2):
        config = Config(embedder="none", index_dir=str(tmp_path / f"jobs{jobs}"), jobs=jobs)
        report = build_index(repo, config)
        assert report.parse.notes == []
        indexes[jobs] = open_index(repo, config, worktree=False)
    one, two = indexes[1], indexes[2]
    assert one.manifest.counts["symbols"] > 500  # a real tree, not a toy
    assert {s["path"]: s["reason"] for s in two.manifest.skipped} == {
        s["path"]: s["reason"] for s in one.manifest.skipped
    }
    assert "src/deep.py" in {s["path"] for s in one.manifest.skipped}
    for table in ("symbols.msgpack", "files.msgpack", "keys.u64", "graph.msgpack"):
        assert (one.gen_dir / table).read_bytes() == (two.gen_dir / table).read_bytes(), table
    assert index_differences(two, one, QUERIES, ["bm25"]) == []


def test_explicit_jobs_parse_even_a_small_tree_in_workers_with_the_same_report(tmp_path):
    repo = real_repo(tmp_path)
    config = Config(embedder="none")
    selection = select_files(repo, config, "HEAD")
    assert len(selection.files) < PARALLEL_MIN_FILES
    assert worker_count(0, len(selection.files)) == 1  # automatic: one process for a small tree
    assert worker_count(2, len(selection.files)) == 2
    seen: dict[int, list[str]] = {1: [], 2: []}
    reports = {}
    for jobs in (1, 2):
        reports[jobs] = parse_selection(
            select_files(repo, config, "HEAD"),
            config,
            jobs,
            lexical_documents,
            lambda f, docs, jobs=jobs: seen[jobs].append(f.path),
        )
    assert seen[1] == seen[2] == sorted(seen[1])  # in path order, as parsed in one process
    assert [f.to_dict() for f in reports[2].files] == [f.to_dict() for f in reports[1].files]
    assert reports[2].skipped == reports[1].skipped


def die_in_worker_on_chunks(f: FileResult, data: bytes):
    """``prepare`` that kills the worker process that reaches ``chunks.py`` (a crash, an OOM kill)."""
    if f.path.endswith("parse/chunks.py") and multiprocessing.parent_process() is not None:
        os._exit(3)
    return lexical_documents(f, data)


def test_a_worker_that_dies_is_reported_and_its_files_parsed_here(tmp_path):
    repo = real_repo(tmp_path)
    config = Config(embedder="none")
    expected = parse_selection(select_files(repo, config, "HEAD"), config, 1, lexical_documents)
    got: list[str] = []
    report = parse_selection(
        select_files(repo, config, "HEAD"),
        config,
        2,
        die_in_worker_on_chunks,
        lambda f, docs: got.append(f.path),
    )
    assert len(report.notes) == 1 and "a parsing worker stopped" in report.notes[0]
    assert "note: a parsing worker stopped" in report.summary()
    assert got == [f.path for f in expected.files]
    assert [f.to_dict() for f in report.files] == [f.to_dict() for f in expected.files]


def test_automatic_workers_need_more_than_two_cpus():
    # On two CPUs the main process's share (results in, keyword index fed) takes one core by
    # itself: one process parses faster than two workers beside it.
    assert worker_count(0, 10_000, cpus=2) == 1
    assert worker_count(0, 10_000, cpus=1) == 1
    assert worker_count(0, 10_000, cpus=8) == worker_count(8, 10_000)  # one per CPU (memory)
    assert worker_count(2, 10_000, cpus=2) == 2  # asked for: as asked


@pytest.mark.parametrize("jobs", [0, 1, 3])
def test_worker_count_is_bounded(jobs):
    n = worker_count(jobs, 10_000)
    assert 1 <= n <= max(jobs, len(os.sched_getaffinity(0)))
    assert worker_count(jobs, 1) == 1


def test_a_large_update_parses_in_workers_and_equals_a_fresh_build(tmp_path):
    from codebot.index.update import update_index

    repo = real_repo(tmp_path)
    index_dir = str(tmp_path / "updated")
    build_index(repo, Config(embedder="none", index_dir=index_dir, jobs=1))
    changed = sorted((repo / "src" / "graph").rglob("*.py"))
    for i, path in enumerate(changed):
        path.write_text(path.read_text() + f"\n\ndef added_{i}(x):\n    return resolve(x)\n")
    (repo / "src" / "parse" / "chunks.py").unlink()
    (repo / "src" / "parse" / "new.py").write_text("def fresh():\n    return added_0(1)\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "a large change")
    report = update_index(repo, Config(embedder="none", index_dir=index_dir, jobs=2))
    assert report.action == "updated" and report.files
    built_dir = str(tmp_path / "built")
    build_index(repo, Config(embedder="none", index_dir=built_dir, jobs=1))
    updated = open_index(repo, Config(index_dir=index_dir), worktree=False)
    built = open_index(repo, Config(index_dir=built_dir), worktree=False)
    assert updated.manifest.commit == built.manifest.commit
    assert index_differences(updated, built, QUERIES, ["bm25"]) == []


def test_cli_jobs_flag_builds_the_same_index(tmp_path):
    import json

    from click.testing import CliRunner

    from codebot.serve.cli import main

    repo = real_repo(tmp_path)
    counts = []
    for jobs in ("1", "2"):
        index_dir = str(tmp_path / f"cli{jobs}")
        args = ["index", str(repo), "--embedder", "none", "--jobs", jobs, "--json"]
        result = CliRunner().invoke(main, [*args, "--index-dir", index_dir])
        assert result.exit_code == 0, result.output
        counts.append(json.loads(result.stdout)["manifest"]["counts"])
    assert counts[0] == counts[1] and counts[0]["symbols"] > 500
    bad = CliRunner().invoke(main, ["index", str(repo), "--jobs", "-1"])
    assert bad.exit_code == 2 and "--jobs" in bad.output


def test_symbols_written_in_chunks_are_the_packed_bytes(tmp_path):
    from codebot.index.tables import load_symbols, pack_symbols, write_symbols

    repo = real_repo(tmp_path)
    config = Config(embedder="none")
    report = parse_selection(select_files(repo, config, "HEAD"), config)
    symbols = [s for f in report.files for s in f.symbols]
    assert any(s.calls for s in symbols) and any(s.parameters for s in symbols)
    for chunk in (1, 7, 100_000):
        write_symbols(tmp_path / f"s{chunk}", symbols, chunk=chunk)
        assert (tmp_path / f"s{chunk}").read_bytes() == pack_symbols(symbols)
    write_symbols(tmp_path / "empty", [])
    assert (tmp_path / "empty").read_bytes() == pack_symbols([])
    (tmp_path / "gen").mkdir()
    write_symbols(tmp_path / "gen" / "symbols.msgpack", symbols, chunk=7)
    assert list(load_symbols(tmp_path / "gen")) == symbols

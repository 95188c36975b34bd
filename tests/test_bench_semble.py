"""benchmarks/semble_repos.py (checkouts at pinned revisions) and the index reuse of
benchmarks/semble.py, on real git repositories made in tmp dirs."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

from codebot.core.config import Config
from tests.conftest import git, write_files

BENCH = Path(__file__).resolve().parent.parent / "benchmarks"


def load(name: str):
    spec = importlib.util.spec_from_file_location(f"bench_{name}", BENCH / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


semble_repos = load("semble_repos")
semble = load("semble")

APP = "def route(path):\n    return handlers[path]\n"
APP2 = APP + "\n\ndef dispatch(request):\n    return route(request.path)()\n"


@pytest.fixture
def upstream(make_repo) -> tuple[Path, str, str]:
    """A project with two commits: (path, first commit, second commit)."""
    repo = make_repo({"src/app/core.py": APP, "README.md": "# app\n"}, name="upstream")
    first = git(repo, "rev-parse", "HEAD")
    write_files(repo, {"src/app/core.py": APP2})
    git(repo, "commit", "-qam", "dispatch")
    return repo, first, git(repo, "rev-parse", "HEAD")


def write_semble(tmp_path: Path, url: str, revision: str) -> Path:
    semble_dir = tmp_path / "semble"
    semble_dir.mkdir(exist_ok=True)
    entry = {"name": "app", "language": "python", "url": url, "revision": revision}
    (semble_dir / "repos.json").write_text(json.dumps([{**entry, "benchmark_root": "src/app"}]))
    return semble_dir


def run(tmp_path: Path, semble_dir: Path, *extra: str) -> list[dict]:
    repos_dir = tmp_path / "repos"
    argv = ["--repos-dir", str(repos_dir), "--semble-dir", str(semble_dir), *extra]
    assert semble_repos.main(argv) == 0
    return json.loads((repos_dir / "manifest.json").read_text())


def test_checks_out_the_pinned_revision_from_a_mirror(tmp_path, upstream):
    repo, first, _ = upstream
    mirrors = tmp_path / "mirrors"
    git(tmp_path, "clone", "-q", "--bare", str(repo), str(mirrors / "Owner+app" / "repo"))
    semble_dir = write_semble(tmp_path, "https://github.com/owner/app.git", first)

    (entry,) = run(tmp_path, semble_dir, "--mirror-dir", str(mirrors))

    assert entry["ok"] and entry["revision_used"] == first and entry["note"] == ""
    assert entry["benchmark_root"] == "src/app"
    assert git(Path(entry["path"]), "rev-parse", "HEAD") == first
    assert (Path(entry["path"]) / "src/app/core.py").read_text() == APP


def test_without_a_mirror_clones_the_url(tmp_path, upstream):
    repo, first, _ = upstream
    semble_dir = write_semble(tmp_path, str(repo), first)

    (entry,) = run(tmp_path, semble_dir)

    assert entry["ok"] and git(Path(entry["path"]), "rev-parse", "HEAD") == first


def test_an_absent_revision_falls_back_to_the_default_branch_and_says_so(tmp_path, upstream):
    repo, _, second = upstream
    semble_dir = write_semble(tmp_path, str(repo), "0" * 40)

    (entry,) = run(tmp_path, semble_dir)

    assert entry["ok"] and entry["revision_used"] == second
    assert "missing from the clone; newest commit of the default branch used" in entry["note"]


def test_an_unreachable_repository_is_listed_not_ok(tmp_path, upstream):
    semble_dir = write_semble(tmp_path, str(tmp_path / "nowhere"), "0" * 40)

    (entry,) = run(tmp_path, semble_dir)

    assert not entry["ok"] and entry["note"].startswith("not cloned from")


def test_another_checkout_at_another_revision_is_left_alone(tmp_path, upstream):
    repo, first, second = upstream
    repos_dir = tmp_path / "repos"
    git(tmp_path, "clone", "-q", str(repo), str(repos_dir / "app"))  # someone else's, at second
    semble_dir = write_semble(tmp_path, str(repo), first)

    (entry,) = run(tmp_path, semble_dir)

    assert git(repos_dir / "app", "rev-parse", "HEAD") == second
    assert entry["path"] == str(repos_dir / f"app@{first[:12]}")
    assert git(Path(entry["path"]), "rev-parse", "HEAD") == first
    # Run again: the manifest's checkout is reused as it is.
    assert run(tmp_path, semble_dir) == [entry]


def test_manifest_keeps_other_entries(tmp_path, upstream):
    repo, first, _ = upstream
    repos_dir = tmp_path / "repos"
    repos_dir.mkdir()
    other = {"name": "other", "ok": True, "path": "/elsewhere"}
    (repos_dir / "manifest.json").write_text(json.dumps([other]))
    semble_dir = write_semble(tmp_path, str(repo), first)

    manifest = run(tmp_path, semble_dir, "--repo", "app")

    assert [e["name"] for e in manifest] == ["app", "other"] and manifest[1] == other


def test_an_index_kept_under_index_root_is_reused_while_current(tmp_path, upstream):
    repo, _, _ = upstream
    config = Config(index_dir=str(tmp_path / "idx"), embedder="none")
    target = repo / "src/app"

    how, _, counts = semble.ensure_index(target, config, rebuild=False)
    assert how == "built" and counts["files"] == 1
    assert semble.ensure_index(target, config, rebuild=False)[0] == "up-to-date"

    write_files(repo, {"src/app/more.py": "def extra():\n    return 1\n"})
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "more")
    how, _, counts = semble.ensure_index(target, config, rebuild=False)
    assert how == "updated" and counts["files"] == 2
    assert semble.ensure_index(target, config, rebuild=True)[0] == "rebuilt"


def test_an_index_with_another_embedder_is_rebuilt(tmp_path, upstream):
    repo, _, _ = upstream
    target = repo / "src/app"
    idx = str(tmp_path / "idx")
    semble.ensure_index(target, Config(index_dir=idx, embedder="none"), rebuild=False)

    how, _, counts = semble.ensure_index(target, Config(index_dir=idx, embedder="builtin"), False)

    assert how == "rebuilt" and counts["vectors"] == counts["symbols"] > 0


def test_report_merges_a_full_run_with_a_keyword_run():
    report = load("semble_report")
    full = {
        "modes": ["bm25", "hybrid"],
        "repos": [
            {"name": "a", "modes": {"bm25": {"ndcg10": 0.5}, "hybrid": {"ndcg10": 0.6}}},
            {"name": "b", "error": "IndexBusy"},
        ],
    }
    keywords = {
        "modes": ["bm25"],
        "repos": [
            {"name": "a", "modes": {"bm25": {"ndcg10": 0.1}}},
            {"name": "b", "modes": {"bm25": {"ndcg10": 0.7}}},
        ],
    }

    merged = report.merge([full, keywords])

    assert merged["modes"] == ["bm25", "hybrid"]
    by_name = {r["name"]: r["modes"] for r in merged["repos"]}
    assert by_name["a"] == {"bm25": {"ndcg10": 0.5}, "hybrid": {"ndcg10": 0.6}}
    assert by_name["b"] == {"bm25": {"ndcg10": 0.7}}


def test_diagnosis_classes_results_by_role_then_kind(tmp_path, make_repo):
    from codebot.index.build import build_index
    from codebot.index.overlay import open_index

    diagnose = load("semble_diagnose")
    repo = make_repo(
        {
            "app/core.py": "X = 1\n\n\nclass Router:\n    def route(self):\n        return X\n",
            "tests/test_core.py": "def test_route():\n    assert True\n",
            "README.md": "# app\n\nRoutes requests.\n",
        }
    )
    config = Config(index_dir=str(tmp_path / "idx"), embedder="none")
    build_index(repo, config)
    index = open_index(repo, config)
    classes = {
        (s.path, s.name): diagnose.result_class(s)
        for f in index.files()
        for s in (index.symbols[index.by_id[i]] for i in f.symbols)
    }

    assert classes[("app/core.py", "X")] == "value"
    assert classes[("app/core.py", "Router")] == "type"
    assert classes[("app/core.py", "route")] == "callable"
    assert {c for (p, _), c in classes.items() if p == "tests/test_core.py"} == {"test"}
    assert {c for (p, _), c in classes.items() if p == "README.md"} == {"docs"}

"""Vectors later (index/background.py): `codebot index` answers with keywords and the call graph at
once, one detached embedder commits the vectors as the next generation, resumes after a kill, and
an update landing meanwhile loses nothing. The embedder is a real HTTP model service
(tests/fake_models.py) that the CLI's background process calls, slowed per text so the test sees
the embedding under way."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from codebot.git.workspace import Workspace
from codebot.index.background import embedder_running, start_background
from codebot.index.store import read_manifest

from .conftest import git
from .fake_models import ModelServer

FUNCS = 30  # functions per module: 4 modules, ~125 symbols, two embedder chunks and more


def _module(topic: str) -> str:
    out = [f'"""Helpers about {topic}."""\n']
    for i in range(FUNCS):
        out.append(
            f"\n\ndef {topic}_step_{i}(value, factor={i}):\n"
            f'    """Scale a {topic} value by factor {i} and clamp it."""\n'
            f"    scaled = value * factor\n"
            f"    return max(0, min(scaled, {100 + i}))\n"
        )
    return "".join(out)


FILES = {f"pkg/{t}.py": _module(t) for t in ("invoice", "shipping", "ledger", "catalog")}
FILES["pkg/__init__.py"] = ""


@pytest.fixture
def server():
    with ModelServer(dimension=16, per_text=0.02) as s:
        yield s


@pytest.fixture
def env(monkeypatch):
    # Small requests, one at a time: the embedder's progress moves in steps a test can see.
    monkeypatch.setenv("CODEBOT_EMBED_BATCH_SIZE", "8")
    monkeypatch.setenv("CODEBOT_EMBED_CONCURRENCY", "1")
    return dict(os.environ)


@pytest.fixture
def repo(make_repo):
    root = make_repo(FILES)
    yield root
    _stop_embedder(root / ".git" / "codebot")


def _stop_embedder(index_dir: Path) -> None:
    """Kill the embedder a failed test left running (by the pid it wrote: ours to end)."""
    try:
        pid = json.loads((index_dir / "embed.progress").read_text())["pid"]
    except (OSError, ValueError, KeyError):
        return
    if embedder_running(index_dir):
        os.kill(pid, signal.SIGKILL)


def cli(*args: str, cwd: Path, env: dict) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "codebot", *args], capture_output=True, text=True, cwd=cwd, env=env
    )


def provider(server: ModelServer) -> str:
    return f"openai-compatible:{server.url}/v1#fake-embed"


def wait_for(predicate, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.1)


def embedded_texts(server: ModelServer) -> int:
    return sum(len(r.body["input"]) for r in server.requests if r.path.endswith("/embeddings"))


def test_index_answers_at_once_then_hybrid_once_vectors_are_in(repo, server, env, validate):
    server.open.clear()  # the embedder is still at work while the keyword answers are checked
    out = cli("index", "--background", "--embedder", provider(server), cwd=repo, env=env)
    assert out.returncode == 0, out.stderr
    assert "answering with keywords and the call graph; embedding" in out.stderr
    index_dir = repo / ".git" / "codebot"
    first = read_manifest(index_dir)
    assert first.vectors_pending == {"provider": provider(server)}
    assert first.embedder is None and first.counts["vectors"] == 0

    # Keywords answer now, and say so.
    out = cli("search", "scale a ledger value by factor 7", "--json", cwd=repo, env=env)
    assert out.returncode == 0, out.stderr
    assert "vectors are still being computed" in out.stderr
    assert json.loads(out.stdout)["results"][0]["id"] == "pkg.ledger.ledger_step_7"

    status = cli("status", "--json", cwd=repo, env=env)
    data = json.loads(status.stdout)
    validate(data, "status.schema.json")
    manifest = {k: v for k, v in data.items() if k not in ("index_dir", "worktree", "vectors")}
    validate(manifest, "manifest.schema.json")
    assert data["vectors"]["state"] == "running"
    assert data["vectors"]["provider"] == provider(server)
    assert "vectors being computed" in cli("status", cwd=repo, env=env).stdout

    server.open.set()
    wait_for(lambda: not read_manifest(index_dir).vectors_pending)
    done = read_manifest(index_dir)
    assert done.counts["vectors"] == done.counts["symbols"] == first.counts["symbols"]
    assert done.embedder["provider"] == provider(server)
    assert done.commit == first.commit
    out = cli("search", "scale a ledger value by factor 7", "--json", cwd=repo, env=env)
    assert out.returncode == 0 and "still being computed" not in out.stderr
    out = cli("search", "ledger_step_7 clamp", "--mode", "vector", "--json", cwd=repo, env=env)
    assert out.returncode == 0, out.stderr
    data = json.loads(cli("status", "--json", cwd=repo, env=env).stdout)
    validate(data, "status.schema.json")
    assert data["vectors"]["state"] == "complete"
    assert "vectors:" in (index_dir / "update.log").read_text()  # the workspace log


def test_killed_embedder_resumes_from_the_cache(repo, server, env):
    server.per_text = 0.05
    out = cli("index", "--background", "--embedder", provider(server), cwd=repo, env=env)
    assert out.returncode == 0, out.stderr
    index_dir = repo / ".git" / "codebot"
    total = read_manifest(index_dir).counts["symbols"]

    def progress() -> dict:
        try:
            return json.loads((index_dir / "embed.progress").read_text())
        except (OSError, ValueError):
            return {}

    wait_for(lambda: progress().get("done", 0) >= 64)  # one chunk is in the cache on disk
    os.kill(progress()["pid"], signal.SIGKILL)
    wait_for(lambda: not embedder_running(index_dir))
    status = json.loads(cli("status", "--json", cwd=repo, env=env).stdout)
    assert status["vectors"]["state"] == "stopped"
    assert "resume with codebot embed" in cli("status", cwd=repo, env=env).stdout

    before = embedded_texts(server)
    server.per_text = 0.0
    out = cli("embed", "--json", cwd=repo, env=env)  # in the foreground: it blocks until done
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout)
    assert report["embedded"] == total - 64  # the first chunk came from the cache
    assert embedded_texts(server) - before < total - 32  # (a probe of the model's dimension)
    m = read_manifest(index_dir)
    assert not m.vectors_pending and m.counts["vectors"] == total


def test_one_embedder_and_an_update_during_it_loses_nothing(repo, server, env):
    server.per_text = 0.03
    out = cli("index", "--background", "--embedder", provider(server), cwd=repo, env=env)
    assert out.returncode == 0, out.stderr
    index_dir = repo / ".git" / "codebot"
    wait_for(lambda: embedder_running(index_dir))
    ws = Workspace.at(repo)
    assert start_background(ws) is False  # one embedder per index

    # A commit and an update land while the vectors are computed.
    path = repo / "pkg" / "shipping.py"
    path.write_text(
        path.read_text() + "\n\ndef parcel_tariff_lookup(zone):\n"
        '    """Find the parcel tariff of a delivery zone."""\n'
        "    return {'north': 3, 'south': 5}.get(zone, 9)\n"
    )
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "tariffs")
    out = cli("update", "--json", cwd=repo, env=env)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["action"] == "updated"
    assert read_manifest(index_dir).vectors_pending  # still to come, the mark carried over
    # A second index meanwhile does not start a second embedder either.
    again = cli("index", "--background", "--embedder", provider(server), cwd=repo, env=env)
    assert again.returncode == 0, again.stderr

    wait_for(lambda: not read_manifest(index_dir).vectors_pending)
    m = read_manifest(index_dir)
    assert m.commit == git(repo, "rev-parse", "HEAD").strip()
    assert m.counts["vectors"] == m.counts["symbols"] == 4 * (FUNCS + 1) + 1
    out = cli("search", "parcel tariff delivery zone", "--mode", "vector", "--json", cwd=repo,
              env=env)  # fmt: skip
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["results"][0]["id"] == "pkg.shipping.parcel_tariff_lookup"
    log = (index_dir / "update.log").read_text()
    assert "another embedder is at work" not in log
    assert not embedder_running(index_dir)


def test_foreground_blocks_until_the_vectors_are_in(repo, server, env):
    out = cli("index", "--foreground", "--embedder", provider(server), cwd=repo, env=env)
    assert out.returncode == 0, out.stderr
    m = read_manifest(repo / ".git" / "codebot")
    assert not m.vectors_pending and m.counts["vectors"] == m.counts["symbols"] > 0
    assert "in the background" not in out.stderr


def test_ci_and_no_terminal_wait_and_keywords_only_has_nothing_pending(repo, server, env):
    out = cli("index", "--embedder", provider(server), cwd=repo, env={**env, "CI": "true"})
    assert out.returncode == 0, out.stderr
    assert read_manifest(repo / ".git" / "codebot").counts["vectors"] > 0
    out = cli("index", "--background", "--embedder", "none", cwd=repo, env=env)
    assert out.returncode == 0, out.stderr
    m = read_manifest(repo / ".git" / "codebot")
    assert m.vectors_pending is None and m.embedder is None
    assert "background" not in out.stderr
    assert "still being computed" not in cli("search", "ledger", cwd=repo, env=env).stderr


def test_update_restarts_a_killed_embedder(repo, server, env):
    server.per_text = 0.05
    out = cli("index", "--background", "--embedder", provider(server), cwd=repo, env=env)
    assert out.returncode == 0, out.stderr
    index_dir = repo / ".git" / "codebot"
    wait_for(lambda: embedder_running(index_dir))
    os.kill(json.loads((index_dir / "embed.progress").read_text())["pid"], signal.SIGKILL)
    wait_for(lambda: not embedder_running(index_dir))
    assert read_manifest(index_dir).vectors_pending
    server.per_text = 0.0
    out = cli("update", cwd=repo, env=env)  # nothing to update: it starts the embedder again
    assert out.returncode == 0, out.stderr
    wait_for(lambda: not read_manifest(index_dir).vectors_pending)
    m = read_manifest(index_dir)
    assert m.counts["vectors"] == m.counts["symbols"]


def test_update_loads_the_model_only_for_a_text_it_has_no_vector_for(repo, server, env):
    server.per_text = 0.0
    out = cli("index", "--foreground", "--embedder", provider(server), cwd=repo, env=env)
    assert out.returncode == 0, out.stderr
    path = repo / "pkg" / "ledger.py"
    original = path.read_text()
    path.write_text(original.replace("and clamp it", "and clamp it to the ledger's range"))
    git(repo, "commit", "-qam", "docs")
    seen = len(server.requests)
    out = cli("update", "--foreground", "--json", cwd=repo, env=env)
    assert json.loads(out.stdout)["embedded"] > 0 and len(server.requests) > seen
    git(repo, "revert", "--no-edit", "HEAD")  # back to texts the vector cache holds
    seen = len(server.requests)
    out = cli("update", "--foreground", "--json", cwd=repo, env=env)
    report = json.loads(out.stdout)
    assert report["action"] == "updated" and report["symbols"]["changed"] > 0
    assert report["embedded"] == 0
    assert len(server.requests) == seen  # the model was never loaded (not even probed)
    # A no-op update imports neither the parser's numpy, nor networkx, nor a model runtime.
    code = (
        "import sys; from codebot.serve.cli import main; main(['update'], standalone_mode=False);"
        "print([m for m in ('numpy', 'networkx', 'onnxruntime', 'tantivy', 'usearch') "
        "if m in sys.modules])"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=repo, env=env, capture_output=True,
                         text=True)  # fmt: skip
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().splitlines()[-1] == "[]"


def _vector_ids(repo: Path, env: dict, query: str) -> list[str]:
    out = cli("search", query, "--mode", "vector", "-k", "200", "--json", cwd=repo,
              env=env)  # fmt: skip
    assert out.returncode == 0, out.stderr
    return [r["id"] for r in json.loads(out.stdout)["results"]]


def test_update_commits_keywords_first_and_the_changed_vectors_follow(repo, server, env, validate):
    out = cli("index", "--foreground", "--embedder", provider(server), cwd=repo, env=env)
    assert out.returncode == 0, out.stderr
    index_dir = repo / ".git" / "codebot"
    symbols = read_manifest(index_dir).counts["symbols"]

    server.open.clear()  # the model service holds every answer: the embedding stays under way
    path = repo / "pkg" / "shipping.py"
    path.write_text(
        path.read_text() + "\n\ndef parcel_tariff_lookup(zone):\n"
        '    """Find the parcel tariff of a delivery zone."""\n'
        "    return {'north': 3, 'south': 5}.get(zone, 9)\n"
    )
    ledger = repo / "pkg" / "ledger.py"
    ledger.write_text(ledger.read_text().replace("factor 7 and clamp", "factor 7, then round"))
    git(repo, "commit", "-qam", "tariffs")
    out = cli("update", "--json", cwd=repo, env=env)
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout)
    validate(report, "update-report.schema.json")
    assert report["embedded"] == 0 and report["vectors_later"] == 2
    m = read_manifest(index_dir)
    assert m.commit == git(repo, "rev-parse", "HEAD").strip() and len(m.vectors_behind) == 2
    assert m.embedder is not None and not m.vectors_pending
    wait_for(lambda: embedder_running(index_dir))

    # Keywords + graph are committed: the new function answers by keywords at once (the model
    # service is held, so no query is embedded here: tests/test_update.py checks that a stale
    # vector never answers while its symbol is behind).
    out = cli("search", "parcel tariff delivery zone", "--mode", "bm25", "--json", cwd=repo,
              env=env)  # fmt: skip
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["results"][0]["id"] == "pkg.shipping.parcel_tariff_lookup"
    status = json.loads(cli("status", "--json", cwd=repo, env=env).stdout)
    validate(status, "status.schema.json")
    validate({k: v for k, v in status.items() if k not in ("index_dir", "worktree", "vectors")},
             "manifest.schema.json")  # fmt: skip
    assert status["vectors"]["state"] == "running" and status["vectors_behind"]
    assert "changed symbol(s)' vectors being computed" in cli("status", cwd=repo, env=env).stdout

    # A second commit and update meanwhile: no second embedder; its symbol joins the debt.
    path.write_text(path.read_text().replace("'south': 5", "'south': 6"))
    git(repo, "commit", "-qam", "south")
    out = cli("update", "--json", cwd=repo, env=env)
    assert out.returncode == 0, out.stderr
    assert len(read_manifest(index_dir).vectors_behind) == 2  # the same function again
    assert start_background(Workspace.at(repo)) is False

    server.open.set()
    wait_for(lambda: not read_manifest(index_dir).vectors_behind)
    m = read_manifest(index_dir)
    assert m.commit == git(repo, "rev-parse", "HEAD").strip()
    assert m.counts["vectors"] == m.counts["symbols"] == symbols + 1
    ids = _vector_ids(repo, env, "parcel tariff delivery zone")
    assert ids[0] == "pkg.shipping.parcel_tariff_lookup"
    assert "pkg.ledger.ledger_step_7" in _vector_ids(repo, env, "ledger step 7 round")
    out = cli("search", "parcel tariff delivery zone", "--json", cwd=repo, env=env)  # hybrid
    assert out.returncode == 0 and "still being computed" not in out.stderr
    assert json.loads(out.stdout)["results"][0]["id"] == "pkg.shipping.parcel_tariff_lookup"
    log = (index_dir / "update.log").read_text()
    assert "another embedder is at work" not in log
    wait_for(lambda: not embedder_running(index_dir))


def test_an_interrupted_update_embedding_resumes(repo, server, env):
    out = cli("index", "--foreground", "--embedder", provider(server), cwd=repo, env=env)
    assert out.returncode == 0, out.stderr
    index_dir = repo / ".git" / "codebot"
    server.open.clear()
    ledger = repo / "pkg" / "ledger.py"
    ledger.write_text(ledger.read_text().replace("and clamp it", "and clamp it to the range"))
    git(repo, "commit", "-qam", "docs")
    out = cli("update", cwd=repo, env=env)
    assert out.returncode == 0 and "to embed in the background" in out.stdout, out.stderr

    def progress() -> dict:
        try:
            return json.loads((index_dir / "embed.progress").read_text())
        except (OSError, ValueError):
            return {}

    wait_for(lambda: embedder_running(index_dir) and "generation" in progress())  # at work
    os.kill(json.loads((index_dir / "embed.progress").read_text())["pid"], signal.SIGKILL)
    wait_for(lambda: not embedder_running(index_dir))
    behind = read_manifest(index_dir).vectors_behind
    assert behind and len(behind) == FUNCS  # every ledger function's docstring changed
    status = json.loads(cli("status", "--json", cwd=repo, env=env).stdout)
    assert status["vectors"]["state"] == "stopped"

    server.open.set()
    out = cli("update", cwd=repo, env=env)  # nothing to update: it starts the embedder again
    assert out.returncode == 0 and "up to date" in out.stdout, out.stderr
    wait_for(lambda: not read_manifest(index_dir).vectors_behind)
    assert "pkg.ledger.ledger_step_3" in _vector_ids(repo, env, "ledger step 3 clamp range")


def test_update_foreground_embeds_before_returning(repo, server, env):
    out = cli("index", "--foreground", "--embedder", provider(server), cwd=repo, env=env)
    assert out.returncode == 0, out.stderr
    ledger = repo / "pkg" / "ledger.py"
    ledger.write_text(ledger.read_text().replace("and clamp it", "and clamp it to the range"))
    git(repo, "commit", "-qam", "docs")
    for args, ci in ((["--foreground"], None), ([], "true")):  # the flag, or CI set
        if ci:
            git(repo, "revert", "--no-edit", "HEAD")
        out = cli("update", *args, "--json", cwd=repo, env={**env, **({"CI": ci} if ci else {})})
        assert out.returncode == 0, out.stderr
        report = json.loads(out.stdout)
        assert report["vectors_later"] == 0 and report["symbols"]["changed"] == FUNCS
        m = read_manifest(repo / ".git" / "codebot")
        assert not m.vectors_behind and m.counts["vectors"] == m.counts["symbols"]


def test_communities_come_with_the_vectors_as_a_build_detects_them(make_repo, server, env, tmp_path,
                                                                   validate):  # fmt: skip
    """The build that answers at once leaves community detection to the embedder; an update
    meanwhile keeps them pending; once the vectors are in, the communities are a foreground
    build's, label for label."""
    from codebot.core.config import Config
    from codebot.index.overlay import open_index

    def module(i: int, calls: int) -> str:
        return f"from m{calls} import f{calls}\n\n\ndef f{i}():\n    return f{calls}()\n"

    repo = make_repo({f"m{i}.py": module(i, (i + 1) % 12 + 12 * (i >= 12)) for i in range(24)})
    server.open.clear()  # hold the embedder until the pending graph has been looked at
    out = cli("index", "--background", "--embedder", provider(server), cwd=repo, env=env)
    assert out.returncode == 0, out.stderr
    index_dir = repo / ".git" / "codebot"

    def graph():
        return open_index(repo, Config(), worktree=False).graph

    assert graph().meta["community_method"] == "pending" and (graph().community == -1).all()
    wait_for(lambda: embedder_running(index_dir))  # and it leaves the CPU to queries meanwhile
    pid = json.loads((index_dir / "embed.progress").read_text())["pid"]
    ours = os.getpriority(os.PRIO_PROCESS, 0)
    assert os.getpriority(os.PRIO_PROCESS, pid) == min(19, ours + 10)
    stats = cli("stats", "--json", cwd=repo, env=env)
    assert stats.returncode == 0, stats.stderr
    validate(json.loads(stats.stdout), "stats.schema.json")
    (repo / "m3.py").write_text(module(3, 7))
    git(repo, "commit", "-qam", "one call moved")
    out = cli("update", "--json", cwd=repo, env=env)
    assert out.returncode == 0 and json.loads(out.stdout)["action"] == "updated", out.stderr
    assert graph().meta["community_method"] == "pending"

    server.open.set()
    wait_for(lambda: not read_manifest(index_dir).vectors_pending)
    after = graph()
    assert after.meta["community_method"] == "louvain" and (after.community >= 0).sum() == 24
    other = tmp_path / "foreground"
    out = cli("index", "--foreground", "--index-dir", str(other), "--embedder", provider(server),
              cwd=repo, env=env)  # fmt: skip
    assert out.returncode == 0, out.stderr
    built = open_index(repo, Config(index_dir=str(other)), worktree=False).graph
    assert built.community.tolist() == after.community.tolist()
    assert [c.central for c in built.communities] == [c.central for c in after.communities]

"""`codebot ask`: context packed to a budget, sent to a local OpenAI-compatible chat server,
the answer streamed, its path:line citations checked against what was sent."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from codebot.core.config import Config
from codebot.index.build import build_index
from codebot.index.overlay import open_index
from codebot.query.ask import ask, find_citations
from codebot.query.search import Searcher
from codebot.query.tokens import token_counter
from codebot.serve.cli import main

from .fake_models import Fault, ModelServer

SECRET = "sk-test-ask-SECRET-never-printed"
CODE = {
    "data/users.py": (
        "import csv\n\n\ndef load_users(csv_path):\n"
        '    """Read users from a CSV file."""\n'
        "    with open(csv_path) as f:\n        return list(csv.DictReader(f))\n"
    ),
    "net/retry.py": (
        "def get_with_retry(url, attempts=5):\n"
        '    """Fetch a URL, retrying with backoff."""\n    return url\n'
    ),
}
REPLY = (
    "Users are read by `load_users` in data/users.py:4, which opens the CSV file and returns "
    "one dict per row (data/users.py:6-7). Nothing here writes them (see nowhere.py:3)."
)


@pytest.fixture
def repo(make_repo, monkeypatch):
    repo = make_repo(CODE)
    build_index(repo, Config(embedder="none"))
    monkeypatch.chdir(repo)
    return repo


@pytest.fixture
def server():
    with ModelServer(chat_reply=REPLY, chunk=7) as s:
        yield s


def test_ask_streams_the_answer_and_checks_its_citations(repo, server, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    config = Config(embedder="none", chat_url=f"{server.url}/v1", chat_model="fake-chat")
    searcher = Searcher(open_index(repo, config), config)
    pieces: list[str] = []
    result = ask(
        searcher, "where are users loaded from csv?", config, pieces.append, token_counter()
    )
    assert len(pieces) > 10 and "".join(pieces) == REPLY  # streamed, piece by piece
    request = server.requests[0]
    assert request.path == "/v1/chat/completions"
    assert request.body["model"] == "fake-chat" and request.body["stream"] is True
    assert request.headers["Authorization"] == f"Bearer {SECRET}"
    user = request.body["messages"][1]["content"]
    assert "def load_users(csv_path):" in user and "data/users.py:4-7" in user
    assert user.rstrip().endswith("where are users loaded from csv?")
    cited = {(c.path, c.line): c.symbol for c in result.citations}
    assert cited[("data/users.py", 4)].endswith("load_users")
    assert cited[("data/users.py", 6)].endswith("load_users")
    assert cited[("nowhere.py", 3)] is None  # cited, but not in what was sent


def test_the_command_streams_and_lists_the_sources(repo, server, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    args = ["ask", "where are users loaded?", "--chat-url", f"{server.url}/v1"]
    result = CliRunner().invoke(main, [*args, "--chat-model", "fake-chat"])
    assert result.exit_code == 0, result.output
    assert result.output.startswith(REPLY)
    assert "Sources cited:" in result.output
    assert "data/users.py:4-7  data.users.load_users" in result.output
    assert "nowhere.py:3  (not in the context sent: check it)" in result.output
    assert SECRET not in result.output


def test_json_output(repo, server):
    args = ["ask", "users?", "--chat-url", f"{server.url}/v1", "--chat-model", "m", "--json"]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["answer"] == REPLY and data["model"] == "m"
    assert {"path": "nowhere.py", "line": 3, "symbol": None} in data["citations"]
    assert data["context"]["tokens"] <= data["context"]["budget"] == 6000


def test_without_an_endpoint_it_prints_the_context_and_says_how(repo):
    result = CliRunner().invoke(main, ["ask", "where are users loaded?", "--tokens", "800"])
    assert result.exit_code == 1
    assert "def load_users(csv_path):" in result.stdout  # the context it would have sent
    assert "chat_url" in result.stderr and "chat_model" in result.stderr


def test_dry_run_prints_the_messages_and_sends_nothing(repo):
    result = CliRunner().invoke(main, ["ask", "users?", "--dry-run", "--chat-model", "m"])
    assert result.exit_code == 0, result.output
    sent = json.loads(result.stdout)
    assert sent["model"] == "m" and [m["role"] for m in sent["messages"]] == ["system", "user"]
    assert "path:line" in sent["messages"][0]["content"]


def test_a_server_that_does_not_stream_still_answers(repo, server):
    server.chat_streams = False
    args = ["ask", "users?", "--chat-url", f"{server.url}/v1", "--chat-model", "m"]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    assert result.output.startswith(REPLY)


def test_a_503_is_retried_and_a_401_is_reported_without_the_key(repo, server, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    args = ["ask", "users?", "--chat-url", f"{server.url}/v1", "--chat-model", "m"]
    server.fail(Fault(503, {"Retry-After": "0"}))
    assert CliRunner().invoke(main, args).exit_code == 0
    server.fail(Fault(401, body=json.dumps({"error": {"message": f"bad key {SECRET}"}})))
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 1
    assert "HTTP 401" in result.stderr and "check the API key" in result.stderr
    assert SECRET not in result.output + result.stderr


def test_citations_match_shortened_paths_and_the_innermost_symbol():
    items = [
        {"id": "pkg.mod.Cls", "path": "src/pkg/mod.py", "start_line": 1, "end_line": 40},
        {"id": "pkg.mod.Cls.run", "path": "src/pkg/mod.py", "start_line": 10, "end_line": 20},
    ]
    got = find_citations("See pkg/mod.py:12 and `src/pkg/mod.py:30`, then pkg/mod.py:12.", items)
    assert [(c.path, c.line, c.symbol) for c in got] == [
        ("pkg/mod.py", 12, "pkg.mod.Cls.run"),
        ("src/pkg/mod.py", 30, "pkg.mod.Cls"),
    ]

"""The trust boundary, end to end: a repository's files never make codebot send a secret, nor
send code to a server of their choosing (issue 15: a fork's .codebot.toml got GITHUB_TOKEN)."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

SECRET = "ghp_codebotTestSecret0123456789abcdefABCD"


@pytest.fixture
def listener():
    """An HTTP server on 127.0.0.1 that records every request it gets."""
    seen: list[tuple[str, str, dict[str, str]]] = []

    class Handler(BaseHTTPRequestHandler):
        def _record(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length).decode("utf-8", "replace") if length else ""
            seen.append((self.path, body, dict(self.headers)))
            self.send_response(500)
            self.end_headers()

        do_GET = do_POST = _record

        def log_message(self, *args) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}", seen
    server.shutdown()
    server.server_close()


def run(cwd, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "GITHUB_TOKEN": SECRET, "OPENAI_API_KEY": SECRET}
    return subprocess.run(
        [sys.executable, "-m", "codebot", *args], cwd=cwd, env=env, capture_output=True, text=True
    )


@pytest.mark.parametrize(
    "settings",
    [
        'embedder = "openai-compatible:{url}/v1#m"\nembed_api_key_env = "GITHUB_TOKEN"\n',
        'embedder = "openai-compatible:{url}/v1#m"\n',
        'embedder = "none"\nreranker = "cohere-compatible:{url}/v1/rerank#m"\n',
        'embedder = "none"\nchat_url = "{url}/v1"\nchat_api_key_env = "GITHUB_TOKEN"\n',
    ],
)
def test_a_repository_setting_sends_nothing_anywhere(make_repo, listener, settings):
    url, seen = listener
    repo = make_repo(
        {"a.py": "def f():\n    return 1\n", ".codebot.toml": settings.format(url=url)}
    )
    for args in (["index", "."], ["search", "f"], ["status"]):
        done = run(repo, *args)
        assert done.returncode == 1, (args, done.stdout, done.stderr)
        assert "may not" in done.stderr and ".codebot.toml" in done.stderr
        assert "Traceback" not in done.stderr and SECRET not in done.stderr + done.stdout
    assert seen == []  # not one request reached the repository's server


def test_the_same_settings_from_the_user_are_used(make_repo, listener, tmp_path):
    """The user may point codebot at a server: the request goes there, with the key they named."""
    url, seen = listener
    repo = make_repo({"a.py": "def f():\n    return 1\n"})
    env_settings = {
        "CODEBOT_EMBEDDER": f"openai-compatible:{url}/v1#m",
        "CODEBOT_EMBED_API_KEY_ENV": "MY_KEY",
    }
    done = subprocess.run(
        [sys.executable, "-m", "codebot", "index", "."],
        cwd=repo,
        env={**os.environ, **env_settings, "MY_KEY": "user-chosen-key"},
        capture_output=True,
        text=True,
    )
    assert done.returncode == 1  # the server answers 500: a clear error, not a crash
    assert "Traceback" not in done.stderr
    assert seen and all("user-chosen-key" in h.get("Authorization", "") for _, _, h in seen)


def test_errors_logs_and_crash_reports_never_show_the_environments_secrets(make_repo, tmp_path):
    """A message that carries a secret (here a bad setting whose value is the token itself) is
    printed scrubbed: codebot's errors, the hook log and crash reports go through one scrubber."""
    from codebot.core.http import scrub_environment

    env = {"GITHUB_TOKEN": SECRET, "MY_API_KEY": "k" * 12, "HOME": str(tmp_path)}
    text = f"boom {SECRET} and {'k' * 12} at https://u:{SECRET}@h/x?sig={SECRET}"
    assert SECRET not in scrub_environment(text, env) and "k" * 12 not in scrub_environment(
        text, env
    )
    repo = make_repo({"a.py": "x = 1\n"})
    done = subprocess.run(  # the error would quote the bad value: the token itself
        [sys.executable, "-m", "codebot", "index", "."],
        cwd=repo,
        env={**os.environ, "GITHUB_TOKEN": SECRET, "CODEBOT_ON_DOWNLOAD_FAILURE": SECRET},
        capture_output=True,
        text=True,
    )
    assert done.returncode == 1 and "on_download_failure must be one of" in done.stderr
    assert SECRET not in done.stderr + done.stdout


@pytest.mark.parametrize("path", ["/etc/passwd", "../../../../../../etc/hostname"])
def test_code_is_read_only_from_the_indexed_files_inside_the_repository(make_repo, path):
    """Even an index whose table was altered after it was checked (here, by hand) never makes
    `show` print a file outside the repository."""
    import msgpack

    from codebot.index.store import read_manifest

    repo = make_repo({"a.py": "def f():\n    return 1\n"})
    assert run(repo, "index", ".", "--embedder", "none").returncode == 0
    index_dir = repo / ".git" / "codebot"
    table = index_dir / read_manifest(index_dir).generation / "symbols.msgpack"
    data = msgpack.unpackb(table.read_bytes())
    at = data["fields"].index("path")
    for row in data["rows"]:
        row[at] = path
    table.write_bytes(msgpack.packb(data))
    done = run(repo, "show", "a.f")
    assert "root:" not in done.stdout and "Traceback" not in done.stderr
    assert done.returncode == 1 and "not a file of the index" in done.stderr

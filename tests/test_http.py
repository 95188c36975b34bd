"""codebot.core.http against real HTTP servers on 127.0.0.1: retries, Retry-After, resumed
downloads, and secrets that never reach a message."""

from __future__ import annotations

import email.utils
import json
import subprocess
import sys
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import quote, quote_plus

import pytest

from codebot.core.errors import CodebotError, RemoteError, ServiceError
from codebot.core.http import (
    MAX_RETRY_AFTER,
    HttpClient,
    HttpError,
    HttpSettings,
    redact,
    retry_after,
    scrub,
)
from codebot.core.services import Secret, ServiceClient
from codebot.share.stores import open_remote

# Characters that URL-encoding and JSON-escaping both change.
SECRET = 'sk-Zq9/plus+amp&quote"SECRET-do-not-print'
QUICK = HttpSettings(timeout=3.0, retries=2, backoff=0.01, max_wait=5.0)


@dataclass
class Answer:
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    body: bytes = b""
    cut: int | None = None  # send only this many bytes of the body, then close


@dataclass
class Seen:
    method: str
    path: str
    headers: dict[str, str]
    at: float


class Server:
    """Answers each request with the next scripted :class:`Answer` (then 200 ``ok``); serves
    ``data`` at ``/file`` honouring ``Range: bytes=N-``."""

    def __init__(self, data: bytes = b"") -> None:
        self.answers: deque[Answer] = deque()
        self.seen: list[Seen] = []
        self.data = data
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format, *args):  # noqa: A002 - quiet
                pass

            def do_GET(self):
                self._answer("GET")

            def do_POST(self):
                self._answer("POST")

            def _answer(self, method: str) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                if length:
                    self.rfile.read(length)
                outer.seen.append(
                    Seen(method, self.path, dict(self.headers.items()), time.monotonic())
                )
                answer = outer.answers.popleft() if outer.answers else None
                if answer is None:
                    answer = (
                        outer._file(self.headers.get("Range", ""))
                        if self.path.startswith("/file")
                        else Answer(200, {"Content-Type": "application/json"}, b'{"ok": true}')
                    )
                self.send_response(answer.status)
                for k, v in answer.headers.items():
                    self.send_header(k, v)
                self.send_header("Content-Length", str(len(answer.body)))
                self.end_headers()
                if answer.cut is not None:
                    self.wfile.write(answer.body[: answer.cut])
                    self.wfile.flush()
                    self.close_connection = True
                    return
                self.wfile.write(answer.body)

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    def _file(self, rng: str) -> Answer:
        if rng.startswith("bytes="):
            start = int(rng[6:].rstrip("-"))
            total = len(self.data)
            headers = {"Content-Range": f"bytes {start}-{total - 1}/{total}"}
            return Answer(206, headers, self.data[start:])
        return Answer(200, {}, self.data)

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def __enter__(self) -> Server:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()


@pytest.fixture
def server():
    with Server() as s:
        yield s


def gaps(server: Server) -> list[float]:
    return [b.at - a.at for a, b in zip(server.seen, server.seen[1:])]


# --- Retry-After --------------------------------------------------------------------------------


def test_retry_after_reads_seconds_fractions_and_dates_within_bounds():
    assert retry_after("2") == 2.0 and retry_after("0.5") == 0.5 and retry_after(" 1.25 ") == 1.25
    assert retry_after(None) is None and retry_after("") is None and retry_after("soon") is None
    assert retry_after("-3") is None  # not a number of seconds, not a date
    soon = email.utils.formatdate(time.time() + 30, usegmt=True)
    assert 28 <= retry_after(soon) <= 30
    assert retry_after(email.utils.formatdate(time.time() - 600, usegmt=True)) == 0.0
    assert retry_after("99999999999") == MAX_RETRY_AFTER
    assert retry_after(email.utils.formatdate(time.time() + 10**9, usegmt=True)) == MAX_RETRY_AFTER


@pytest.mark.parametrize("value, least", [("0.5", 0.45), ("2", 1.95)])
def test_retry_after_in_seconds_is_honoured(server, value, least):
    server.answers.append(Answer(503, {"Retry-After": value}))
    client = HttpClient(QUICK)
    assert client.request("GET", f"{server.url}/x", "GET x").status_code == 200
    assert len(server.seen) == 2 and least <= gaps(server)[0] < least + 1.5


def test_retry_after_as_an_http_date_is_honoured(server):
    # Whole seconds, 2 to 3 s away: under load the first request may arrive a second late.
    date = email.utils.formatdate(time.time() + 3, usegmt=True)
    server.answers.append(Answer(429, {"Retry-After": date}))
    assert HttpClient(QUICK).request("GET", f"{server.url}/x", "GET x").status_code == 200
    assert 0.9 <= gaps(server)[0] < 10  # waited for the date; bounded, not by the default backoff


def test_a_retry_after_beyond_max_wait_fails_at_once(server):
    server.answers.append(Answer(503, {"Retry-After": "3600"}))
    started = time.monotonic()
    with pytest.raises(HttpError, match="asks to wait 3600s.*try again later"):
        HttpClient(QUICK).request("GET", f"{server.url}/x", "GET x")
    assert time.monotonic() - started < 1 and len(server.seen) == 1


def test_github_rate_limit_reset_is_waited_for(server):
    reset = str(int(time.time()) + 1)
    headers = {"x-ratelimit-remaining": "0", "x-ratelimit-reset": reset}
    server.answers.append(Answer(403, headers, b'{"message": "API rate limit exceeded"}'))
    assert HttpClient(QUICK).request("GET", f"{server.url}/x", "GET x").status_code == 200
    assert len(server.seen) == 2 and gaps(server)[0] < 10


def test_a_503_is_retried_then_200(server):
    server.answers.append(Answer(503, body=b"busy"))
    slept: list[float] = []
    client = HttpClient(QUICK, sleep=slept.append)
    response = client.request("GET", f"{server.url}/x", "GET x")
    assert response.status_code == 200 and response.json() == {"ok": True}
    assert len(server.seen) == 2 and len(slept) == 1 and 0.005 <= slept[0] <= 0.01


def test_persistent_503_gives_up_naming_the_tries(server):
    server.answers.extend([Answer(503)] * 3)
    with pytest.raises(HttpError, match=r"GET x: HTTP 503 \(gave up after 3 tries\)"):
        HttpClient(QUICK).request("GET", f"{server.url}/x", "GET x")


def test_the_service_client_retries_a_503_then_reads_json(server):
    server.answers.append(Answer(503, {"Retry-After": "0.5"}))
    client = ServiceClient("the test service", None, QUICK)
    assert client.post(f"{server.url}/v1/x", {"a": 1}) == {"ok": True}
    assert len(server.seen) == 2 and gaps(server)[0] >= 0.45


# --- resumed downloads --------------------------------------------------------------------------


def test_a_broken_download_resumes_with_a_range(tmp_path):
    data = bytes(range(256)) * 400
    with Server(data) as s:
        s.answers.append(Answer(200, {}, data, cut=10_000))
        dest = tmp_path / "f"
        assert HttpClient(QUICK).download(f"{s.url}/file", dest, "GET file")
        assert dest.read_bytes() == data
        assert s.seen[1].headers.get("Range") == "bytes=10000-"


# --- secrets ------------------------------------------------------------------------------------


def forms(secret: str) -> list[str]:
    escaped = json.dumps(secret)[1:-1]
    return [secret, quote(secret, safe=""), quote_plus(secret), escaped]


def leaks(text: str, secret: str = SECRET) -> list[str]:
    """Any form of the secret, or any 8 characters of it, in ``text``."""
    pieces = {f[i : i + 8] for f in forms(secret) for i in range(len(f) - 7)}
    return [p for p in pieces if p in text]


def test_scrub_removes_every_form_of_a_secret_and_url_credentials():
    text = " | ".join(forms(SECRET)) + " at https://user:pa55@host:8443/path?sig=abc123#frag"
    clean = scrub(text, [SECRET])
    assert not leaks(clean) and clean.count("***") == 4
    assert "https://host:8443/path" in clean
    assert "pa55" not in clean and "sig=" not in clean and "user" not in clean
    assert redact("https://user:pw@[::1]:80/a?b=c") == "https://[::1]:80/a"
    assert repr(Secret(SECRET)) == "Secret('***')" and SECRET not in str(Secret(SECRET))


def echo_body(secret: str, json_escaped: bool) -> bytes:
    """A long error body repeating the key in every form, one copy straddling char 300."""
    filler = "x" * (300 - len("invalid key ") - len(secret) // 2)
    parts = [f"invalid key {filler}{secret}", secret, quote(secret, safe=""), quote_plus(secret)]
    if json_escaped:  # the server writes its message as JSON: the key comes back escaped
        return json.dumps({"error": " ".join(parts + ["y" * 500])}).encode()
    return " ".join(parts + [json.dumps(secret)[1:-1], "y" * 500]).encode()


@pytest.mark.parametrize("json_escaped", [False, True])
def test_an_echoed_api_key_never_reaches_the_message(server, json_escaped):
    body = echo_body(SECRET, json_escaped)
    server.answers.append(Answer(401, {"Content-Type": "application/json"}, body))
    client = ServiceClient("the test service", Secret(SECRET), QUICK)
    with pytest.raises(ServiceError) as info:
        client.post(f"{server.url}/v1/embeddings", {"input": ["x"]})
    message = str(info.value)
    assert server.seen[0].headers["Authorization"] == f"Bearer {SECRET}"
    assert "HTTP 401" in message and "***" in message and "check the API key" in message
    assert "…" in message  # long: it was cut, after scrubbing
    assert not leaks(message) and not leaks(repr(info.value))


def test_an_echoed_token_never_reaches_a_retried_failure(server):
    body = json.dumps({"message": "bad token " + " ".join(forms(SECRET)) + " z" * 400}).encode()
    server.answers.extend([Answer(502, {}, body)] * 3)
    client = HttpClient(QUICK, {"Authorization": f"Bearer {SECRET}"}, secrets=[SECRET])
    with pytest.raises(HttpError, match=r"HTTP 502: bad token \*\*\*.*gave up after 3") as info:
        client.request("GET", f"{server.url}/x", "GET x")
    assert not leaks(str(info.value))


def test_a_url_with_credentials_and_a_signature_is_shown_scrubbed(server, tmp_path):
    url = server.url.replace("http://", "http://alice:hunter2pw@") + "/store/{name}?sig=SIGNED99"
    store = open_remote(url)
    assert store.describe() == f"URL {server.url}/store/{{name}}"
    echo = f"denied for {url} (password hunter2pw, signature sig=SIGNED99)".encode()
    server.answers.append(Answer(403, {}, echo))
    with pytest.raises(RemoteError) as info:
        store.download(f"codebot-index-v1-{'a' * 40}.tar.gz", tmp_path / "x")
    message = str(info.value)
    assert "HTTP 403" in message and f"{server.url}/store/" in message
    assert "hunter2pw" not in message and "SIGNED99" not in message and "alice" not in message
    assert isinstance(info.value, CodebotError)


def test_an_unreachable_url_is_shown_scrubbed():
    with Server() as s:
        url = s.url
    secret_url = url.replace("http://", "http://bob:pw123456@") + "/x?sig=SIGNED42"
    client = HttpClient(HttpSettings(timeout=1.0, retries=0))
    with pytest.raises(HttpError, match="gave up after 1 try") as info:
        client.request("GET", secret_url, f"GET {secret_url}")
    assert "pw123456" not in str(info.value) and "SIGNED42" not in str(info.value)
    assert f"GET {url}/x" in str(info.value)


def test_importing_the_client_does_not_import_httpx():
    code = "import sys, codebot.core.http; print('httpx' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"

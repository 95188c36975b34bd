"""A real S3-compatible server on 127.0.0.1 for the s3:// store tests: moto's server in a process
of its own, behind a small HTTP proxy (also on 127.0.0.1) that records every request and
injects faults the way a network or a service does: a connection cut part-way through a body, or
an S3 error answer (access denied, credentials refused).

moto's minimum multipart part size is lowered (``S3_UPLOAD_PART_MIN_SIZE``) so that a test can
upload a small artifact in several parts; everything else is moto's S3 as it comes.
"""

from __future__ import annotations

import http.client
import os
import socket
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

MIN_PART = 1024


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class MotoProcess:
    """``python -m moto.server`` on a free port of 127.0.0.1."""

    def __init__(self) -> None:
        self.port = free_port()
        env = {**os.environ, "S3_UPLOAD_PART_MIN_SIZE": str(MIN_PART)}
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(self.port)],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.5):
                    return
            except OSError:
                if self.proc.poll() is not None:
                    raise RuntimeError("moto's server exited at start") from None
                time.sleep(0.1)
        self.close()
        raise RuntimeError("moto's server did not start within 60 s")

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def close(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()


@dataclass
class Cut:
    """The next ``times`` GETs whose path ends with ``suffix`` send their headers and only
    ``after`` bytes of the body, then the connection is closed."""

    suffix: str
    after: int
    times: int = 1


@dataclass
class Answer:
    """Requests whose path contains ``path`` get this S3 error instead of moto's answer."""

    path: str
    status: int
    code: str
    message: str = ""
    times: int = 1_000_000


@dataclass
class Seen:
    method: str
    path: str
    query: str
    headers: dict[str, str]


@dataclass
class Proxy:
    upstream: str
    requests: list[Seen] = field(default_factory=list)
    cuts: list[Cut] = field(default_factory=list)
    answers: list[Answer] = field(default_factory=list)

    def __post_init__(self) -> None:
        proxy = self
        self._lock = threading.Lock()

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args) -> None:  # quiet
                pass

            def _any(self) -> None:
                parts = urlsplit(self.path)
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                seen = Seen(self.command, parts.path, parts.query, dict(self.headers))
                with proxy._lock:
                    proxy.requests.append(seen)
                    answer = proxy._take_answer(parts.path)
                    cut = proxy._take_cut(self.command, parts.path)
                if answer is not None:
                    return self._error(answer)
                up = urlsplit(proxy.upstream)
                conn = http.client.HTTPConnection(up.hostname, up.port, timeout=30)
                headers = {k: v for k, v in self.headers.items() if k.lower() != "expect"}
                conn.request(self.command, self.path, body=body, headers=headers)
                r = conn.getresponse()
                data = r.read()
                conn.close()
                self.send_response(r.status)
                for k, v in r.getheaders():
                    if k.lower() not in ("transfer-encoding", "connection", "content-length"):
                        self.send_header(k, v)
                if self.command == "HEAD":  # moto's length of the object, with no body
                    self.send_header("Content-Length", r.getheader("Content-Length") or "0")
                    self.end_headers()
                    return
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                if cut is not None and len(data) > cut.after:
                    self.wfile.write(data[: cut.after])
                    self.wfile.flush()
                    self.close_connection = True
                    self.connection.shutdown(socket.SHUT_RDWR)
                    return
                self.wfile.write(data)

            def _error(self, a: Answer) -> None:
                body = (
                    '<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>'
                    f"{a.code}</Code><Message>{a.message}</Message></Error>"
                ).encode()
                self.send_response(a.status)
                self.send_header("Content-Type", "application/xml")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                if self.command != "HEAD":
                    self.wfile.write(body)

            do_GET = do_PUT = do_POST = do_DELETE = do_HEAD = _any

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def _take_answer(self, path: str) -> Answer | None:
        for a in self.answers:
            if a.path in path and a.times > 0:
                a.times -= 1
                return a
        return None

    def _take_cut(self, method: str, path: str) -> Cut | None:
        for c in self.cuts:
            if method == "GET" and path.endswith(c.suffix) and c.times > 0:
                c.times -= 1
                return c
        return None

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()

"""Real HTTP servers on 127.0.0.1 that speak the model services' wire formats, for tests.

One :class:`ModelServer` answers, on whatever path prefix a test gives its base URL:

- ``POST .../embeddings``: OpenAI's (``{"model", "input"}`` -> ``data[].embedding``) and Voyage's
  (the same plus ``input_type``) embeddings; vectors are words hashed into buckets, so texts that
  share words are close;
- ``POST .../rerank``: Voyage's (``top_k`` -> ``data[]``) and Cohere/Jina's (``top_n`` ->
  ``results[]``) rerank formats, scoring by shared words;
- ``POST .../chat/completions``: OpenAI's chat, streamed as server-sent events when asked.

Faults are scripted per request (:meth:`ModelServer.fail`): a status with headers (a 429 with
``Retry-After``, a 500), a delay longer than the client's timeout, vectors of another dimension.
Every request is recorded (path, headers, JSON body, arrival time). ``start()``/``stop()``, or a
``with`` block; the benchmark uses it as a stand-in serving engine with a per-request latency.
"""

from __future__ import annotations

import hashlib
import json
import re
import socket
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

_WORD = re.compile(r"[A-Za-z][a-z]+|[A-Z]+(?![a-z])|\d+")


def words(text: str) -> list[str]:
    return [w.lower() for w in _WORD.findall(text)]


def hashed_vector(text: str, dimension: int) -> list[float]:
    v = [0.0] * dimension
    for w in words(text):
        h = int.from_bytes(hashlib.blake2b(w.encode(), digest_size=4).digest(), "little")
        v[h % dimension] += 1.0
    if not any(v):
        v[0] = 1.0
    return v


@dataclass
class Request:
    path: str
    headers: dict[str, str]
    body: Any
    at: float


@dataclass
class Fault:
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    body: str = ""
    delay: float = 0.0  # seconds before answering (past a client's timeout: a hang)
    dimension: int | None = None  # answer with vectors of this size


class ModelServer:
    def __init__(
        self,
        dimension: int = 16,
        latency: float = 0.0,
        per_text: float = 0.0,
        chat_reply: str = "",
        chunk: int = 12,
        chat_streams: bool = True,
        embed_fn: Any = None,
    ) -> None:
        self.dimension = dimension
        self.latency = latency  # seconds added to every request (a real server's overhead)
        self.per_text = per_text  # and per input text (its compute)
        self.chat_reply = chat_reply
        self.chunk = chunk  # characters per streamed chat event
        # False: answer one JSON document even when asked to stream.
        self.chat_streams = chat_streams
        self.embed_fn = embed_fn  # texts -> rows: serve a real model instead of hashed words
        self.requests: list[Request] = []
        self._faults: deque[Fault] = deque()
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        # Cleared: answers wait (up to a minute) until it is set again, so a test can look at
        # what happens while the model is busy without racing it on a loaded machine.
        self.open = threading.Event()
        self.open.set()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self.in_flight = 0
        self.max_in_flight = 0

    # --- control ----------------------------------------------------------------------------

    def fail(self, *faults: Fault) -> None:
        """The next requests get these faults, one each, in order; then normal answers."""
        with self._lock:
            self._faults.extend(faults)

    @property
    def url(self) -> str:
        assert self._server is not None, "start() first"
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def start(self) -> ModelServer:
        server = _Server(("127.0.0.1", 0), _handler(self))
        self._server = server
        self._thread = threading.Thread(target=server.serve_forever, name="fake-model-server")
        self._thread.daemon = True
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
        if self._thread is not None:
            self._thread.join(5)

    def __enter__(self) -> ModelServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # --- answers ----------------------------------------------------------------------------

    def _next_fault(self) -> Fault | None:
        with self._lock:
            return self._faults.popleft() if self._faults else None

    def _sleep(self, seconds: float) -> None:
        self._stopping.wait(seconds)

    def embeddings(self, body: dict, fault: Fault | None) -> dict:
        texts = body["input"] if isinstance(body["input"], list) else [body["input"]]
        dim = fault.dimension if fault and fault.dimension else self.dimension
        if self.embed_fn is not None:
            rows = [[float(x) for x in row] for row in self.embed_fn(texts)]
        else:
            rows = [hashed_vector(t, dim) for t in texts]
        data = [{"object": "embedding", "index": i, "embedding": r} for i, r in enumerate(rows)]
        data.reverse()  # servers may answer out of order: clients must sort by index
        return {
            "object": "list",
            "data": data,
            "model": body.get("model"),
            "usage": {"prompt_tokens": sum(len(words(t)) for t in texts), "total_tokens": 0},
        }

    def rerank(self, body: dict) -> dict:
        q = set(words(body["query"]))
        scored = [
            {"index": i, "relevance_score": len(q & set(words(d))) / (1 + len(set(words(d))))}
            for i, d in enumerate(body["documents"])
        ]
        scored.sort(key=lambda r: -r["relevance_score"])
        if "top_k" in body:  # Voyage
            return {"object": "list", "data": scored[: body["top_k"]], "model": body["model"]}
        return {"id": "fake", "results": scored[: body.get("top_n") or len(scored)]}


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 128  # socketserver's 5 would drop connections under concurrency


def _handler(server: ModelServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:  # quiet
            pass

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length)
            try:
                body = json.loads(raw or b"null")
            except ValueError:
                body = None
            with server._lock:
                server.requests.append(
                    Request(self.path, dict(self.headers.items()), body, time.monotonic())
                )
                server.in_flight += 1
                server.max_in_flight = max(server.max_in_flight, server.in_flight)
            try:
                self._answer(body)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up (a timeout test)
            finally:
                with server._lock:
                    server.in_flight -= 1

        def _answer(self, body: Any) -> None:
            fault = server._next_fault()
            n = (
                len(body.get("input") or body.get("documents") or [])
                if isinstance(body, dict)
                else 0
            )
            server.open.wait(60)
            server._sleep(server.latency + server.per_text * n + (fault.delay if fault else 0))
            if fault and fault.status != 200:
                self._send(
                    fault.status, fault.body or json.dumps({"error": "fault"}), fault.headers
                )
                return
            path = self.path.rstrip("/")
            if path.endswith("/embeddings"):
                self._json(server.embeddings(body, fault))
            elif path.endswith("/rerank"):
                self._json(server.rerank(body))
            elif path.endswith("/chat/completions"):
                self._chat(body)
            else:
                self._send(404, json.dumps({"error": f"no route {self.path}"}))

        def _chat(self, body: dict) -> None:
            reply = server.chat_reply
            if not body.get("stream") or not server.chat_streams:
                self._json(
                    {"choices": [{"index": 0, "message": {"role": "assistant", "content": reply}}]}
                )
                return
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Connection", "close")
            self.end_headers()
            first = {"choices": [{"index": 0, "delta": {"role": "assistant"}}]}
            self.wfile.write(f"data: {json.dumps(first)}\n\n".encode())
            for i in range(0, len(reply), server.chunk):
                event = {
                    "choices": [{"index": 0, "delta": {"content": reply[i : i + server.chunk]}}]
                }
                self.wfile.write(f"data: {json.dumps(event)}\n\n".encode())
                self.wfile.flush()
            self.wfile.write(b": keep-alive comment\n\ndata: [DONE]\n\n")
            self.wfile.flush()
            self.close_connection = True

        def _json(self, data: Any) -> None:
            self._send(200, json.dumps(data))

        def _send(self, status: int, text: str, headers: dict[str, str] | None = None) -> None:
            payload = text.encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            for k, v in (headers or {}).items():
                self.send_header(k, v)
            self.end_headers()
            self.wfile.write(payload)

    return Handler


class Blackhole:
    """A port that accepts connections and never answers: a firewall that drops the replies.

    The listening socket completes TCP handshakes into its backlog (the kernel does that), so a
    client connects, sends, and waits: only its own timeout ends the wait."""

    def __init__(self) -> None:
        self._sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._sock.bind(("127.0.0.1", 0))
        self._sock.listen(64)

    @property
    def url(self) -> str:
        host, port = self._sock.getsockname()[:2]
        return f"http://{host}:{port}"

    def close(self) -> None:
        self._sock.close()

    def __enter__(self) -> Blackhole:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

"""A real HTTP server on 127.0.0.1 for the artifact and action tests: the part of GitHub's
Releases and issue comments APIs that codebot uses, plain GET/PUT of files, and faults to inject (a status with headers, a body cut
short, a stall). Every request is recorded, headers included, for the tests to look at.

Asset downloads answer 302 to ``http://localhost:<port>/storage/<id>``: another host, as GitHub's
storage is, so the client must not carry the token there.
"""

from __future__ import annotations

import itertools
import json
import re
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit


@dataclass
class Fault:
    """Applied to the next ``times`` requests whose method matches and whose path contains
    ``path``: answer ``status`` (with ``headers``), or send only ``truncate`` bytes of the body
    and close, or wait ``stall`` seconds before answering."""

    path: str
    method: str = "GET"
    status: int | None = None
    headers: dict[str, str] = field(default_factory=dict)
    body: bytes = b""
    truncate: int | None = None
    stall: float = 0.0
    times: int = 1


@dataclass
class Request:
    method: str
    path: str
    headers: dict[str, str]


class FakeServer:
    def __init__(self) -> None:
        self.releases: dict[str, dict] = {}  # tag -> release, with "assets": [asset + "data"]
        self.files: dict[str, bytes] = {}  # /files/<name>
        self.requests: list[Request] = []
        self.faults: list[Fault] = []
        self.token: str | None = None  # when set, API calls need it
        self.page_size = 100
        self.ranges = True  # False: ignore Range headers, as some servers do
        self.comments: dict[int, list[dict]] = {}  # pull request number -> its comments
        self.read_only = False  # True: writes are refused, as with a fork's token
        self.link_base: str | None = None  # where "next" links point (default: this server)
        self.upload_base: str | None = None  # where a release's upload_url points
        self.endless = False  # True: every page links a next one
        self._ids = itertools.count(1)
        self._lock = threading.Lock()
        server = self

        class Handler(_Handler):
            fake = server

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.httpd.block_on_close = False
        self.port = self.httpd.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self._thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self._thread.start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    # --- state ---------------------------------------------------------------------------------

    def release(self, tag: str = "codebot-index") -> dict:
        if tag not in self.releases:
            rid = next(self._ids)
            self.releases[tag] = {
                "id": rid,
                "tag_name": tag,
                "upload_url": f"{self.upload_base or self.url}/uploads/repos/o/r/releases/{rid}"
                "/assets{?name,label}",
                "assets": [],
            }
        return self.releases[tag]

    def add_asset(self, name: str, data: bytes, tag: str = "codebot-index") -> dict:
        release = self.release(tag)
        n = next(self._ids)
        asset = {
            "id": n,
            "name": name,
            "size": len(data),
            "state": "uploaded",
            "created_at": f"2026-01-01T00:00:{n:02d}Z",
            "browser_download_url": f"{self.url}/download/{name}",
            "data": data,
        }
        release["assets"].append(asset)
        return asset

    def asset_names(self, tag: str = "codebot-index") -> list[str]:
        return [a["name"] for a in self.releases.get(tag, {}).get("assets", [])]

    def paths(self, method: str | None = None) -> list[str]:
        return [r.path for r in self.requests if method is None or r.method == method]

    def take_fault(self, method: str, path: str) -> Fault | None:
        with self._lock:
            for fault in self.faults:
                if fault.times > 0 and fault.method == method and fault.path in path:
                    fault.times -= 1
                    return fault
        return None


def _public(asset: dict) -> dict:
    return {k: v for k, v in asset.items() if k != "data"}


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    fake: FakeServer

    def log_message(self, format, *args):  # noqa: A002 - silence the default stderr log
        pass

    def do_GET(self):
        self._handle("GET")

    def do_POST(self):
        self._handle("POST")

    def do_PUT(self):
        self._handle("PUT")

    def do_DELETE(self):
        self._handle("DELETE")

    def do_PATCH(self):
        self._handle("PATCH")

    # --- plumbing ------------------------------------------------------------------------------

    def _handle(self, method: str) -> None:
        fake = self.fake
        parts = urlsplit(self.path)
        fake.requests.append(Request(method, self.path, dict(self.headers.items())))
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        fault = fake.take_fault(method, parts.path)
        if fault is not None:
            if fault.stall:
                time.sleep(fault.stall)
            if fault.status is not None:
                return self._send(fault.status, fault.body, fault.headers)
        route = self._route(method, parts.path, parse_qs(parts.query), body)
        status, data, headers = route
        if fault is not None and fault.truncate is not None:
            return self._send(status, data, headers, cut=fault.truncate)
        self._send(status, data, headers)

    def _send(self, status: int, data, headers=None, cut: int | None = None) -> None:
        if isinstance(data, (dict, list)):
            data = json.dumps(data).encode()
            headers = {"Content-Type": "application/json", **(headers or {})}
        self.send_response(status)
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        if cut is not None:
            self.wfile.write(data[:cut])
            self.wfile.flush()
            self.close_connection = True
            return
        self.wfile.write(data)

    def _authorized(self) -> bool:
        token = self.fake.token
        return token is None or self.headers.get("Authorization") == f"Bearer {token}"

    def _serve(self, data: bytes):
        """A file, honouring ``Range: bytes=N-``."""
        m = re.match(r"bytes=(\d+)-$", self.headers.get("Range", ""))
        if m and self.fake.ranges:
            start = int(m.group(1))
            if start >= len(data):
                return 416, b"", {"Content-Range": f"bytes */{len(data)}"}
            rng = f"bytes {start}-{len(data) - 1}/{len(data)}"
            return 206, data[start:], {"Content-Range": rng, "Accept-Ranges": "bytes"}
        return 200, data, {"Accept-Ranges": "bytes", "Content-Type": "application/octet-stream"}

    def _route(self, method: str, path: str, query: dict, body: bytes):
        fake = self.fake
        if path.startswith("/files/"):
            name = path[len("/files/") :]
            if method == "PUT":
                fake.files[name] = body
                return 201, b"", {}
            return self._serve(fake.files[name]) if name in fake.files else (404, b"", {})
        if path.startswith("/storage/"):
            aid = int(path.rsplit("/", 1)[1])
            for release in fake.releases.values():
                for asset in release["assets"]:
                    if asset["id"] == aid:
                        return self._serve(asset["data"])
            return 404, b"", {}
        if not self._authorized():
            return 404, {"message": "Not Found"}, {}
        m = re.match(r"^/repos/[^/]+/[^/]+/issues/(\d+)/comments$", path)
        if m:
            return self._issue_comments(method, int(m.group(1)), path, query, body)
        m = re.match(r"^/repos/[^/]+/[^/]+/issues/comments/(\d+)$", path)
        if m and method == "PATCH":
            return self._edit_comment(int(m.group(1)), body)
        m = re.match(r"^/repos/[^/]+/[^/]+/releases/tags/(.+)$", path)
        if m and method == "GET":
            release = fake.releases.get(m.group(1))
            if release is None:
                return 404, {"message": "Not Found"}, {}
            return 200, {k: v for k, v in release.items() if k != "assets"}, {}
        if re.match(r"^/repos/[^/]+/[^/]+/releases$", path) and method == "POST":
            tag = json.loads(body)["tag_name"]
            if tag in fake.releases:
                return 422, {"message": "Validation Failed"}, {}
            release = fake.release(tag)
            return 201, {k: v for k, v in release.items() if k != "assets"}, {}
        m = re.match(r"^/repos/[^/]+/[^/]+/releases/(\d+)/assets$", path)
        if m and method == "GET":
            return self._list_assets(int(m.group(1)), path, query)
        m = re.match(r"^/repos/[^/]+/[^/]+/releases/assets/(\d+)$", path)
        if m:
            return self._asset(method, int(m.group(1)))
        m = re.match(r"^/uploads/repos/[^/]+/[^/]+/releases/(\d+)/assets$", path)
        if m and method == "POST":
            release = next(r for r in fake.releases.values() if r["id"] == int(m.group(1)))
            name = query["name"][0]
            if name in fake.asset_names(release["tag_name"]):
                return (
                    422,
                    {"message": "Validation Failed", "errors": [{"code": "already_exists"}]},
                    {},
                )
            return 201, _public(fake.add_asset(name, body, release["tag_name"])), {}
        return 404, {"message": "Not Found"}, {}

    def _issue_comments(self, method: str, number: int, path: str, query: dict, body: bytes):
        fake = self.fake
        comments = fake.comments.setdefault(number, [])
        if method == "POST":
            if fake.read_only:
                return 403, {"message": "Resource not accessible by integration"}, {}
            comment = {"id": next(fake._ids), "body": json.loads(body)["body"]}
            comments.append(comment)
            return 201, comment, {}
        size = min(int(query.get("per_page", ["30"])[0]), fake.page_size)
        page = int(query.get("page", ["1"])[0])
        headers = {}
        if page * size < len(comments):
            headers["Link"] = f'<{fake.url}{path}?per_page={size}&page={page + 1}>; rel="next"'
        return 200, comments[(page - 1) * size : page * size], headers

    def _edit_comment(self, cid: int, body: bytes):
        fake = self.fake
        if fake.read_only:
            return 403, {"message": "Resource not accessible by integration"}, {}
        for comments in fake.comments.values():
            for comment in comments:
                if comment["id"] == cid:
                    comment["body"] = json.loads(body)["body"]
                    return 200, comment, {}
        return 404, {"message": "Not Found"}, {}

    def _list_assets(self, rid: int, path: str, query: dict):
        fake = self.fake
        release = next((r for r in fake.releases.values() if r["id"] == rid), None)
        if release is None:
            return 404, {"message": "Not Found"}, {}
        size = min(int(query.get("per_page", ["30"])[0]), fake.page_size)
        page = int(query.get("page", ["1"])[0])
        assets = release["assets"]
        chunk = [_public(a) for a in assets[(page - 1) * size : page * size]]
        headers = {}
        if page * size < len(assets) or fake.endless:
            base = fake.link_base or fake.url
            headers["Link"] = f'<{base}{path}?per_page={size}&page={page + 1}>; rel="next"'
        return 200, chunk, headers

    def _asset(self, method: str, aid: int):
        fake = self.fake
        for release in fake.releases.values():
            for asset in release["assets"]:
                if asset["id"] != aid:
                    continue
                if method == "DELETE":
                    release["assets"].remove(asset)
                    return 204, b"", {}
                if self.headers.get("Accept") == "application/octet-stream":
                    where = f"http://localhost:{fake.port}/storage/{aid}"
                    return 302, b"", {"Location": where}
                return 200, _public(asset), {}
        return 404, {"message": "Not Found"}, {}

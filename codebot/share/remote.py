"""Where index artifacts live: GitHub Releases, any HTTP(S) URL template, or a directory.

Every transport does four things with artifacts named by :func:`asset_name`: say which names it
holds (``names``; None when it cannot list, as a URL template cannot), fetch one into a file
(``download``; False when it is not there), store one (``upload``) and delete the oldest
(``prune``). HTTP goes through :class:`Http`: a timeout on every read and write, retries with
exponential backoff, ``Retry-After`` and GitHub's rate-limit headers honoured, and a download that
breaks off resumed where it stopped (a ``Range`` request).

Secrets: a token goes into an ``Authorization`` header and nowhere else (httpx drops it when a
redirect leaves the host: GitHub sends asset downloads to another host); URLs are shown without
their user info and query string, where basic auth and S3 presigned URLs carry theirs.
"""

from __future__ import annotations

import email.utils
import os
import re
import shutil
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol
from urllib.parse import urlsplit

from codebot.core import __version__
from codebot.core.errors import RemoteError
from codebot.index.store import FORMAT_VERSION

__all__ = [
    "Transfer",
    "Http",
    "Remote",
    "asset_name",
    "commit_of",
    "open_remote",
    "redact",
    "Progress",
    "first_parents",
    "known_formats",
]

Progress = Callable[[int, "int | None"], None]  # (bytes done, total or None)

# Named by index format and commit: a codebot looks only for the format it reads.
ASSET_RE = re.compile(r"^codebot-index-v(\d+)-([0-9a-f]{40,64})\.tar\.gz$")
RETRY_STATUS = {408, 429, 500, 502, 503, 504}
CHUNK = 1 << 16


def asset_name(commit: str, format_version: int = FORMAT_VERSION) -> str:
    return f"codebot-index-v{format_version}-{commit}.tar.gz"


def commit_of(name: str) -> tuple[int, str] | None:
    """(index format, commit) of an artifact's name; None for any other file."""
    m = ASSET_RE.match(name)
    return (int(m.group(1)), m.group(2)) if m else None


def redact(url: str) -> str:
    """A URL fit for a message: no user info, no query string, no fragment."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    if parts.port:
        host = f"{host}:{parts.port}"
    return f"{parts.scheme}://{host}{parts.path}" if parts.scheme else url


@dataclass(frozen=True)
class Transfer:
    """How patient a transfer is. ``timeout``: seconds without a byte (connect, read, write)
    before a try counts as failed; ``retries``: tries after the first; ``backoff``: the first
    wait, doubled each time; ``max_wait``: the longest ``Retry-After`` or rate-limit reset worth
    waiting for (longer: fail now and say when to try again); ``max_bytes``: the largest download."""

    timeout: float = 30.0
    retries: int = 4
    backoff: float = 1.0
    max_wait: float = 300.0
    max_bytes: int = 4 << 30


class _Again(Exception):
    """Try again after ``wait`` seconds (None: the backoff); ``restart``: from the first byte."""

    def __init__(self, reason: str, wait: float | None = None, restart: bool = False) -> None:
        super().__init__(reason)
        self.reason, self.wait, self.restart = reason, wait, restart


class Http:
    """An httpx client with codebot's retry, rate-limit and resume rules."""

    def __init__(
        self,
        transfer: Transfer,
        headers: dict[str, str] | None = None,
        sleep: Callable[[float], None] = time.sleep,
        secrets: Sequence[str] = (),
    ) -> None:
        import httpx

        self.transfer, self.sleep = transfer, sleep
        self.secrets = [x for x in secrets if x]  # scrubbed from every message, just in case
        self.client = httpx.Client(
            timeout=httpx.Timeout(transfer.timeout),
            follow_redirects=True,
            headers={"User-Agent": f"codebot/{__version__}", **(headers or {})},
        )

    def close(self) -> None:
        self.client.close()

    def request(self, method: str, url: str, what: str, body: Callable | None = None, **kw):
        """The response to a request, after retrying what is worth retrying. ``body``: a
        function returning a fresh iterator of the upload's bytes for each try."""
        import httpx

        for attempt in range(1, self.transfer.retries + 2):
            try:
                if body is not None:
                    kw["content"] = body()
                response = self.client.request(method, url, **kw)
                _raise_if_retryable(response)
                return response
            except httpx.TransportError as exc:
                self._again(attempt, what, _transport_reason(exc))
            except _Again as again:
                self._again(attempt, what, again.reason, again.wait)
        raise AssertionError("unreachable")  # pragma: no cover

    def download(
        self,
        url: str,
        dest: Path,
        what: str,
        headers: dict[str, str] | None = None,
        progress: Progress | None = None,
    ) -> bool:
        """Fetch ``url`` into ``dest``; False on 404. A broken connection or a stall resumes from
        the bytes already in ``dest`` (Range), or starts over when the server ignores ranges."""
        import httpx

        for attempt in range(1, self.transfer.retries + 2):
            have = dest.stat().st_size if dest.exists() else 0
            ranged = {"Range": f"bytes={have}-"} if have else {}
            try:
                with self.client.stream(
                    "GET", url, headers={**(headers or {}), **ranged, "Accept-Encoding": "identity"}
                ) as response:
                    if response.status_code in (404, 410):
                        return False
                    if response.status_code == 416 and have:  # past the end: start over
                        raise _Again("the server refused to resume", 0, restart=True)
                    _raise_if_retryable(response)
                    if response.status_code not in (200, 206):
                        raise RemoteError(f"{what}: {_status(response)}")
                    self._receive(response, dest, have, what, progress)
                    return True
            except httpx.TransportError as exc:
                self._again(attempt, what, _transport_reason(exc))
            except _Again as again:
                if again.restart:
                    dest.unlink(missing_ok=True)
                self._again(attempt, what, again.reason, again.wait)
        raise AssertionError("unreachable")  # pragma: no cover

    def _receive(self, response, dest: Path, have: int, what: str, progress) -> None:
        start, total = _content_range(response, have)
        if total is not None and total > self.transfer.max_bytes:
            raise RemoteError(f"{what}: {total} bytes, over the limit of {self.transfer.max_bytes}")
        dest.parent.mkdir(parents=True, exist_ok=True)
        with open(dest, "r+b" if start and dest.exists() else "wb") as f:
            f.seek(start)
            f.truncate()
            done = start
            for chunk in response.iter_bytes():  # as it comes: a chunker would hold bytes back
                f.write(chunk)
                done += len(chunk)
                if done > self.transfer.max_bytes:
                    raise RemoteError(f"{what}: over the limit of {self.transfer.max_bytes} bytes")
                if progress is not None:
                    progress(done, total)
        if total is not None and done < total:
            raise _Again(f"the connection closed after {done} of {total} bytes")

    def _again(self, attempt: int, what: str, reason: str, wait: float | None = None) -> None:
        """Wait before the next try, or give up with the last reason."""
        for secret in self.secrets:  # a transport error may quote a URL
            reason = reason.replace(secret, "***")
        t = self.transfer
        if attempt > t.retries:
            tries = f"{attempt} tries" if attempt > 1 else "1 try"
            raise RemoteError(f"{what}: {reason} (gave up after {tries})")
        if wait is None:
            wait = t.backoff * 2 ** (attempt - 1)
        elif wait > t.max_wait:
            raise RemoteError(
                f"{what}: {reason}; the server asks to wait {wait:.0f}s (more than "
                f"{t.max_wait:.0f}s): try again later"
            )
        self.sleep(wait)


def _raise_if_retryable(response) -> None:
    """Rate limits (GitHub's primary and secondary, any server's 429 and Retry-After) and
    server-side failures are retried; anything else is the caller's to judge."""
    code = response.status_code
    wait = _retry_after(response)
    if code in (403, 429) and (wait is not None or _rate_limited(response)):
        raise _Again(f"rate limited ({code})", wait if wait is not None else 60.0)
    if code in RETRY_STATUS:
        raise _Again(_status(response), wait)


def _rate_limited(response) -> bool:
    if response.headers.get("x-ratelimit-remaining") == "0":
        return True
    try:
        return "rate limit" in response.read().decode(errors="replace").lower()
    except Exception:  # noqa: BLE001 - an unreadable body is not a rate limit
        return False


def _retry_after(response) -> float | None:
    """Seconds the server asks us to wait: Retry-After (seconds or a date), else GitHub's reset
    time when no requests remain; None when it does not say."""
    value = response.headers.get("retry-after")
    if value:
        if value.strip().isdigit():
            return float(value)
        try:
            return max(0.0, email.utils.parsedate_to_datetime(value).timestamp() - time.time())
        except (TypeError, ValueError):
            pass
    reset = response.headers.get("x-ratelimit-reset")
    if response.headers.get("x-ratelimit-remaining") == "0" and reset and reset.isdigit():
        return max(0.0, int(reset) - time.time())
    return None


def _content_range(response, have: int) -> tuple[int, int | None]:
    """(offset the body starts at, total size or None) of a 200 or 206 response."""
    length = response.headers.get("content-length")
    encoded = response.headers.get("content-encoding", "identity") != "identity"
    if response.status_code == 206:
        m = re.match(r"bytes (\d+)-\d+/(\d+|\*)", response.headers.get("content-range", ""))
        if not m or int(m.group(1)) != have:
            raise _Again("the server resumed at the wrong offset", 0, restart=True)
        return have, int(m.group(2)) if m.group(2) != "*" else None
    return 0, int(length) if length and length.isdigit() and not encoded else None


def _status(response) -> str:
    """``HTTP 403: <the server's message>`` (GitHub explains itself in a JSON ``message``)."""
    message = ""
    try:
        data = response.json() if response.read() else {}
        message = data.get("message", "") if isinstance(data, dict) else ""
    except Exception:  # noqa: BLE001 - not JSON, or a streamed body: the status says enough
        pass
    return f"HTTP {response.status_code}" + (f": {message[:200]}" if message else "")


def _transport_reason(exc: Exception) -> str:
    import httpx

    if isinstance(exc, httpx.TimeoutException):
        return f"no answer within the timeout ({type(exc).__name__})"
    if isinstance(exc, httpx.RemoteProtocolError):
        return f"the connection broke off ({exc})"
    return f"{type(exc).__name__}: {exc}"


def _file_chunks(path: Path, progress: Progress | None) -> Callable:
    size = path.stat().st_size

    def body():
        with open(path, "rb") as f:
            done = 0
            while chunk := f.read(CHUNK):
                done += len(chunk)
                if progress is not None:
                    progress(done, size)
                yield chunk

    return body


# --- transports ------------------------------------------------------------------------------


class Remote(Protocol):
    def describe(self) -> str: ...

    def names(self) -> set[str] | None: ...

    def download(self, name: str, dest: Path, progress: Progress | None = None) -> bool: ...

    def upload(self, path: Path, name: str, progress: Progress | None = None) -> str: ...

    def prune(self, keep: int) -> list[str]: ...

    def why_empty(self) -> str: ...

    def close(self) -> None: ...


class DirectoryRemote:
    """A directory: a shared drive, a CI cache, a mounted bucket."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def describe(self) -> str:
        return f"directory {self.path}"

    def names(self) -> set[str] | None:
        try:
            return {p.name for p in self.path.iterdir() if commit_of(p.name)}
        except FileNotFoundError:
            return set()
        except OSError as exc:
            raise RemoteError(f"{self.describe()}: cannot list it: {exc}") from exc

    def download(self, name: str, dest: Path, progress: Progress | None = None) -> bool:
        source = self.path / name
        if not source.is_file():
            return False
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, dest)
        return True

    def upload(self, path: Path, name: str, progress: Progress | None = None) -> str:
        self.path.mkdir(parents=True, exist_ok=True)
        final = self.path / name
        tmp = self.path / f".{name}.{os.getpid()}.tmp"  # readers never see half a file
        shutil.copyfile(path, tmp)
        os.replace(tmp, final)
        return str(final)

    def prune(self, keep: int) -> list[str]:
        ours = [p for p in self.path.iterdir() if commit_of(p.name)]
        ours.sort(key=lambda p: p.stat().st_mtime_ns, reverse=True)
        for p in ours[keep:]:
            p.unlink(missing_ok=True)
        return sorted(p.name for p in ours[keep:])

    def why_empty(self) -> str:
        return "" if self.path.is_dir() else " (the directory does not exist)"

    def close(self) -> None:
        pass


class UrlRemote:
    """Any HTTP(S) server with GET and PUT at a URL per artifact: ``{commit}`` and ``{name}`` in
    the template are replaced (GitLab generic packages, Artifactory, S3 presigned URLs...)."""

    def __init__(self, template: str, http: Http) -> None:
        self.template, self.http = template, http

    def describe(self) -> str:
        return f"URL {redact(self.template)}"

    def _url(self, name: str) -> str:
        _, commit = commit_of(name) or (0, "")
        return self.template.replace("{commit}", commit).replace("{name}", name)

    def names(self) -> set[str] | None:
        return None  # a URL template cannot be listed: pull asks for each commit in turn

    def download(self, name: str, dest: Path, progress: Progress | None = None) -> bool:
        url = self._url(name)
        return self.http.download(url, dest, f"GET {redact(url)}", progress=progress)

    def upload(self, path: Path, name: str, progress: Progress | None = None) -> str:
        url = self._url(name)
        what = f"PUT {redact(url)}"
        headers = {
            "Content-Type": "application/octet-stream",
            "Content-Length": str(path.stat().st_size),
        }
        r = self.http.request("PUT", url, what, _file_chunks(path, progress), headers=headers)
        if r.status_code not in (200, 201, 204):
            raise RemoteError(f"{what}: {_status(r)}")
        return redact(url)

    def prune(self, keep: int) -> list[str]:
        return []  # nothing to list: expire old artifacts with the server's own rules

    def why_empty(self) -> str:
        return ""

    def close(self) -> None:
        self.http.close()


def open_remote(
    spec: str | None,
    *,
    origin: str | None = None,
    token: str | None = None,
    release: str = "codebot-index",
    api_url: str = "https://api.github.com",
    transfer: Transfer | None = None,
) -> Remote:
    """The transport ``spec`` names: ``github`` (``origin``'s repository), ``github:OWNER/REPO``,
    an http(s) URL template, ``file://PATH`` or a directory path. ``token``: GitHub's only."""
    transfer = transfer or Transfer()
    if not spec:
        raise RemoteError(
            'no artifact store is configured: set artifacts = "github" (or a URL template, or '
            "a directory) in .codebot.toml, or pass --from / --to"
        )
    if spec == "github" or spec.startswith("github:"):
        m = re.fullmatch(r"([\w.-]+)/([\w.-]+)", spec[7:])
        found = (m.group(1), m.group(2)) if m else None
        if spec == "github":
            if origin is None:
                raise RemoteError(
                    'artifacts = "github" needs an origin remote: use github:OWNER/REPO'
                )
            from codebot.share.github import github_repo_of

            found = github_repo_of(origin)
        if found is None:
            raise RemoteError(f"{spec!r}: cannot tell the GitHub repository; use github:OWNER/REPO")
        from codebot.share.github import GitHub, GitHubRemote

        return GitHubRemote(GitHub(*found, api_url, token, transfer), release)
    if spec.startswith(("http://", "https://")):
        if "{commit}" not in spec and "{name}" not in spec:
            raise RemoteError(
                f"{redact(spec)}: a URL template needs {{commit}} or {{name}} in it, e.g. "
                "https://host/index/{commit}.tar.gz"
            )
        parts = urlsplit(spec)
        return UrlRemote(spec, Http(transfer, secrets=[parts.password or "", parts.query]))
    path = Path(spec.removeprefix("file://")).expanduser()
    return DirectoryRemote(path)


def first_parents(repo_git, head: str, depth: int) -> list[str]:
    """HEAD and its first parents, newest first, at most ``depth`` commits (a shallow clone's
    history ends where it ends)."""
    chain: list[str] = []
    commit = repo_git.get(head)
    while commit is not None and len(chain) < depth:
        chain.append(str(commit.id))
        try:
            ids = commit.parent_ids
            commit = repo_git.get(ids[0]) if ids else None
        except (KeyError, ValueError):
            commit = None
    return chain


def known_formats(names: Sequence[str], commits: Sequence[str]) -> set[int]:
    """Index formats the store holds for these commits (to say "upgrade codebot")."""
    wanted = set(commits)
    return {f for f, c in filter(None, map(commit_of, names)) if c in wanted}

"""HTTP for all of codebot: artifact stores, GitHub and model services go through one client.

:class:`HttpClient` adds to httpx: a timeout on every read and write; retries with exponential
backoff (and jitter) on 408, 425, 429, 5xx, timeouts and dropped connections; ``Retry-After``
(seconds, fractions of one, or an HTTP date) and GitHub's rate-limit headers honoured, a wait
shared by every thread of the client so the others pause too; downloads that break off resumed
where they stopped (a ``Range`` request); and a bounded pool for :meth:`HttpClient.map`.

Secrets: a token or API key goes into an ``Authorization`` header and nowhere else (httpx drops
it when a redirect leaves the host). Every message the client raises goes through :func:`scrub`,
which removes the client's secrets (also URL-encoded and JSON-escaped), and the user info and
query string of any URL (basic auth, S3 presigned ``?sig=``). A server's message is scrubbed
once decoded and before it is shortened, so a cut can never leave half a secret behind.

httpx is imported when a client is built, so importing this module stays cheap (the git hook).

Errors: :class:`HttpError` (a :class:`~codebot.core.errors.CodebotError`); a client raises the
subclass it is given (``error=``). Model services' client is in :mod:`codebot.core.services`.
"""

from __future__ import annotations

import datetime
import email.utils
import json
import os
import random
import re
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar
from urllib.parse import quote, quote_plus, urlsplit

from codebot.core import __version__
from codebot.core.errors import HttpError

if TYPE_CHECKING:
    import httpx

__all__ = [
    "MAX_RETRY_AFTER",
    "RETRY_STATUS",
    "HttpClient",
    "HttpError",
    "HttpSettings",
    "Progress",
    "RetryLater",
    "file_body",
    "scrub_environment",
    "redact",
    "retry_after",
    "scrub",
]

T = TypeVar("T")
R = TypeVar("R")
Progress = Callable[[int, "int | None"], None]  # (bytes done, total or None)

# 408/425: the server gave up or was not ready; 429: rate limit; 5xx: overloaded or restarting.
RETRY_STATUS = frozenset({408, 425, 429, 500, 502, 503, 504, 529})
#: The longest wait a Retry-After or a rate-limit reset is read as (a day); more is nonsense.
MAX_RETRY_AFTER = 86_400.0
BACKOFF_CAP = 8.0  # seconds: the longest backoff between two tries
MESSAGE_CHARS = 300  # of a server's message, in ours
CHUNK = 1 << 16  # bytes an upload reads at a time


# --- secrets ------------------------------------------------------------------------------------


_URL = re.compile(r"\b[a-zA-Z][a-zA-Z0-9+.-]*://[^\s\"'<>`]+")


def redact(url: str) -> str:
    """A URL fit for a message: no user info, no query string, no fragment."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:  # a port that is not a number: strip what could be secret by hand
        return re.sub(r"//[^/@]*@", "//", url).split("?", 1)[0].split("#", 1)[0]
    if not parts.scheme:
        return url
    host = parts.hostname or ""
    if ":" in host:
        host = f"[{host}]"
    if port:
        host = f"{host}:{port}"
    return f"{parts.scheme}://{host}{parts.path}"


def _forms(secret: str) -> list[str]:
    """The ways a secret may be written back to us: as is, URL-encoded, JSON-escaped."""
    escaped = json.dumps(secret)[1:-1]
    forms = {
        secret,
        quote(secret, safe=""),
        quote(secret),
        quote_plus(secret),
        escaped,
        escaped.replace("/", "\\/"),
        json.dumps(secret, ensure_ascii=False)[1:-1],
    }
    return sorted(forms, key=len, reverse=True)  # a longer form before the secret inside it


def scrub(text: str, secrets: Iterable[str] = ()) -> str:
    """``text`` without ``secrets`` (in any of their :func:`_forms`), and with every URL in it
    :func:`redact`-ed (user info, passwords and query strings gone)."""
    for secret in secrets:
        if secret:
            for form in _forms(secret):
                text = text.replace(form, "***")
    return _URL.sub(lambda m: redact(m.group(0)), text)


# Environment variables whose values are secrets: tokens, keys, passwords (GITHUB_TOKEN,
# OPENAI_API_KEY, AWS_SECRET_ACCESS_KEY...). Short values are left alone (scrubbing "1" would
# mangle every message).
_SECRET_NAME = re.compile(r"TOKEN|KEY|SECRET|PASSWORD|PASSWD|CREDENTIAL|AUTH", re.I)


def scrub_environment(text: str, environ: Mapping[str, str] | None = None) -> str:
    """:func:`scrub` with the values of the environment's secret-looking variables: what leaves
    codebot at its edges (the CLI's errors and crash logs, the hook log, MCP tool errors)."""
    env = os.environ if environ is None else environ
    return scrub(text, [v for k, v in env.items() if _SECRET_NAME.search(k) and len(v) >= 8])


def _clip(text: str, limit: int = MESSAGE_CHARS) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


# --- waits --------------------------------------------------------------------------------------


def retry_after(value: str | None) -> float | None:
    """Seconds a ``Retry-After`` value asks for: a number (``2``, ``0.5``) or an HTTP date;
    None when there is none or it cannot be read. Clamped to [0, MAX_RETRY_AFTER]."""
    if not value or not value.strip():
        return None
    value = value.strip()
    if re.fullmatch(r"\d+(\.\d*)?|\.\d+", value):
        seconds = float(value)
    else:
        try:
            when = email.utils.parsedate_to_datetime(value)
        except (TypeError, ValueError, IndexError):
            return None
        if when.tzinfo is None:  # "-0000": UTC, said without a zone
            when = when.replace(tzinfo=datetime.timezone.utc)
        seconds = when.timestamp() - time.time()
    return min(max(seconds, 0.0), MAX_RETRY_AFTER)


def _wait_of(headers: Mapping[str, str]) -> float | None:
    """Seconds the server asks us to wait: Retry-After, else GitHub's reset time when no
    requests remain; None when it does not say."""
    wait = retry_after(headers.get("retry-after"))
    if wait is not None:
        return wait
    reset = (headers.get("x-ratelimit-reset") or "").strip()
    if headers.get("x-ratelimit-remaining") == "0" and reset.isdigit():
        return min(max(int(reset) - time.time(), 0.0), MAX_RETRY_AFTER)
    return None


# --- the client ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class HttpSettings:
    """How patient a client is. ``timeout``: seconds without a byte (connect, read, write)
    before a try counts as failed; ``retries``: tries after the first; ``backoff``: the first
    wait, doubled each time (up to 8 s, with jitter); ``max_wait``: the longest ``Retry-After``
    or rate-limit reset worth waiting for (longer: fail now and say when to try again);
    ``max_bytes``: the largest download; ``concurrency``: requests in flight in :meth:`map`."""

    timeout: float = 30.0
    retries: int = 4
    backoff: float = 1.0
    max_wait: float = 300.0
    max_bytes: int = 4 << 30
    concurrency: int = 4


class RetryLater(Exception):
    """Try again after ``wait`` seconds (None: the backoff); ``restart``: from the first byte."""

    def __init__(self, reason: str, wait: float | None = None, restart: bool = False) -> None:
        super().__init__(reason)
        self.reason, self.wait, self.restart = reason, wait, restart


def file_body(path: Path, progress: Progress | None = None) -> Callable[[], Iterator[bytes]]:
    """An upload's body for :meth:`HttpClient.request`: a fresh reader of ``path`` per try."""
    size = path.stat().st_size

    def body() -> Iterator[bytes]:
        with open(path, "rb") as f:
            done = 0
            while chunk := f.read(CHUNK):
                done += len(chunk)
                if progress is not None:
                    progress(done, size)
                yield chunk

    return body


class HttpClient:
    """An httpx client with codebot's retry, rate-limit, resume and secret rules; thread-safe.

    ``secrets`` are scrubbed from every message; ``error`` is the class raised (an
    :class:`HttpError`); ``sleep`` and ``transport`` are for tests."""

    def __init__(
        self,
        settings: HttpSettings | None = None,
        headers: Mapping[str, str] | None = None,
        *,
        secrets: Sequence[str] = (),
        error: type[HttpError] = HttpError,
        sleep: Callable[[float], None] = time.sleep,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        import httpx

        self.settings = s = settings or HttpSettings()
        self.secrets = [x for x in secrets if x]
        self.error, self.sleep = error, sleep
        self.client = httpx.Client(
            timeout=httpx.Timeout(s.timeout),
            follow_redirects=True,
            headers={"User-Agent": f"codebot/{__version__}", **(headers or {})},
            limits=httpx.Limits(max_connections=max(s.concurrency, 1) + 2),
            transport=transport,
        )
        self._lock = threading.Lock()
        self._pause_until = 0.0  # a Retry-After pauses every thread, not only the one told
        self._stop = threading.Event()  # one failed call of map() stops the others' retries

    def close(self) -> None:
        self.client.close()

    def scrub(self, text: str) -> str:
        """``text`` fit for a message: see :func:`scrub`."""
        return scrub(text, self.secrets)

    def excerpt(self, text: str, limit: int = MESSAGE_CHARS) -> str:
        """A server's text for a message: scrubbed first, then shortened to ``limit``."""
        return _clip(self.scrub(text), limit)

    def fail(self, message: str) -> HttpError:
        """The error to raise, its message scrubbed."""
        return self.error(self.scrub(message))

    # --- calls ----------------------------------------------------------------------------------

    def request(
        self,
        method: str,
        url: str,
        what: str,
        body: Callable[[], Iterable[bytes]] | None = None,
        deadline: float | None = None,
        **kw: Any,
    ) -> httpx.Response:
        """The response to a request, after retrying what is worth retrying; other statuses are
        the caller's to judge. ``what`` names the call in messages; ``body``: a function giving
        a fresh iterator of the upload's bytes for each try; ``deadline`` (``time.monotonic()``)
        bounds every try and the retries: none starts once it has passed."""
        import httpx

        for attempt, last in self._attempts(what, deadline):
            timeout = self.settings.timeout
            if deadline is not None:
                timeout = max(deadline - time.monotonic(), 0.001)
                kw["timeout"] = timeout
            if body is not None:
                kw["content"] = body()
            try:
                response = self.client.request(method, url, **kw)
                self._raise_if_retryable(response)
                return response
            except httpx.TransportError as exc:
                self._retry(attempt, last, what, self._transport_reason(exc, timeout), exc=exc)
            except RetryLater as again:
                self._retry(attempt, last, what, again.reason, again.wait)
        raise AssertionError("unreachable")  # pragma: no cover

    def download(
        self,
        url: str,
        dest: Path,
        what: str,
        headers: Mapping[str, str] | None = None,
        progress: Progress | None = None,
    ) -> bool:
        """Fetch ``url`` into ``dest``; False on 404 or 410. A broken connection or a stall
        resumes from the bytes already in ``dest`` (Range), or starts over when the server
        ignores ranges."""
        import httpx

        for attempt, last in self._attempts(what, None):
            have = dest.stat().st_size if dest.exists() else 0
            ranged = {"Range": f"bytes={have}-"} if have else {}
            sent = {**(headers or {}), **ranged, "Accept-Encoding": "identity"}
            try:
                with self.client.stream("GET", url, headers=sent) as response:
                    if response.status_code in (404, 410):
                        return False
                    if response.status_code == 416 and have:  # past the end: start over
                        raise RetryLater("the server refused to resume", 0, restart=True)
                    self._raise_if_retryable(response)
                    if response.status_code not in (200, 206):
                        raise self.fail(f"{what}: {self.status_text(response)}")
                    self._receive(response, dest, have, what, progress)
                    return True
            except httpx.TransportError as exc:
                reason = self._transport_reason(exc, self.settings.timeout)
                self._retry(attempt, last, what, reason, exc=exc)
            except RetryLater as again:
                if again.restart:
                    dest.unlink(missing_ok=True)
                self._retry(attempt, last, what, again.reason, again.wait)
        raise AssertionError("unreachable")  # pragma: no cover

    def map(self, fn: Callable[[T], R], items: Sequence[T]) -> list[R]:
        """``[fn(x) for x in items]`` with up to ``concurrency`` calls in flight, in order.

        The first failure is raised, and stops the retries of the calls still running."""
        workers = min(max(self.settings.concurrency, 1), len(items))
        if workers <= 1:
            return [fn(x) for x in items]
        self._stop.clear()
        with ThreadPoolExecutor(workers, thread_name_prefix="codebot-http") as pool:
            futures = [pool.submit(fn, x) for x in items]
            try:
                return [f.result() for f in futures]
            except BaseException:
                self._stop.set()
                for f in futures:
                    f.cancel()
                raise

    # --- what a response says -------------------------------------------------------------------

    def message_of(self, response: httpx.Response) -> str:
        """The server's explanation: a JSON body's ``message`` (GitHub's), else the body's text;
        decoded, scrubbed, then shortened. Empty when there is none or it cannot be read."""
        try:
            text = response.read().decode(response.encoding or "utf-8", errors="replace")
        except Exception:  # noqa: BLE001 - a body already streamed away: the status says enough
            return ""
        try:
            data = json.loads(text)
            if isinstance(data, dict) and isinstance(data.get("message"), str):
                text = data["message"]
        except ValueError:
            pass
        return self.excerpt(text.strip())

    def status_text(self, response: httpx.Response) -> str:
        """``HTTP 403: <the server's message>``."""
        message = self.message_of(response)
        return f"HTTP {response.status_code}" + (f": {message}" if message else "")

    # --- retries --------------------------------------------------------------------------------

    def _attempts(self, what: str, deadline: float | None) -> Iterator[tuple[int, bool]]:
        """(try number from 1, whether it is the last) for each try, after any pause."""
        total = self.settings.retries + 1
        for attempt in range(1, total + 1):
            if attempt > 1 and self._stop.is_set():
                raise self.fail(f"{what}: stopped after another request failed")
            with self._lock:
                pause = self._pause_until - time.monotonic()
            if pause > 0:
                self.sleep(pause)
            left = None if deadline is None else deadline - time.monotonic()
            if attempt > 1 and left is not None and left <= 0:
                raise self.fail(f"{what}: no answer within the time allowed")
            yield attempt, attempt == total or (left is not None and left < self.settings.backoff)

    def _retry(
        self,
        attempt: int,
        last: bool,
        what: str,
        reason: str,
        wait: float | None = None,
        exc: BaseException | None = None,
    ) -> None:
        """Wait before the next try, or give up with the last reason."""
        s = self.settings
        if wait is not None and wait > s.max_wait:
            raise self.fail(self._too_long(what, reason, wait)) from exc
        if last:
            raise self.fail(self._gave_up(what, reason, attempt, exc is not None)) from exc
        if wait is None:
            self.sleep(min(BACKOFF_CAP, s.backoff * 2 ** (attempt - 1)) * random.uniform(0.5, 1))
            return
        with self._lock:  # the next try of every thread waits for it (see _attempts)
            self._pause_until = max(self._pause_until, time.monotonic() + wait)

    def _raise_if_retryable(self, response: httpx.Response) -> None:
        """Rate limits (GitHub's primary and secondary, any server's 429 and Retry-After) and
        server-side failures are retried; anything else is the caller's to judge."""
        code = response.status_code
        wait = _wait_of(response.headers)
        if code in (403, 429) and (wait is not None or self._rate_limited(response)):
            message = self.message_of(response)
            reason = f"rate limited ({code})" + (f": {message}" if message else "")
            raise RetryLater(reason, wait if wait is not None else 60.0)
        if code in RETRY_STATUS:
            raise RetryLater(self.status_text(response), wait)

    def _rate_limited(self, response: httpx.Response) -> bool:
        if response.headers.get("x-ratelimit-remaining") == "0":
            return True
        return "rate limit" in self.message_of(response).lower()

    def _receive(
        self, response: httpx.Response, dest: Path, have: int, what: str, progress
    ) -> None:
        limit = self.settings.max_bytes
        start, total = _content_range(response, have)
        if total is not None and total > limit:
            raise self.fail(f"{what}: {total} bytes, over the limit of {limit}")
        dest.parent.mkdir(parents=True, exist_ok=True)
        with open(dest, "r+b" if start and dest.exists() else "wb") as f:
            f.seek(start)
            f.truncate()
            done = start
            for chunk in response.iter_bytes():  # as it comes: a chunker would hold bytes back
                f.write(chunk)
                done += len(chunk)
                if done > limit:
                    raise self.fail(f"{what}: over the limit of {limit} bytes")
                if progress is not None:
                    progress(done, total)
        if total is not None and done < total:
            raise RetryLater(f"the connection closed after {done} of {total} bytes")

    # --- messages (a ServiceClient words them for a model service) ------------------------------

    def _transport_reason(self, exc: Exception, timeout: float) -> str:
        import httpx

        if isinstance(exc, httpx.TimeoutException):
            return f"no answer within the timeout ({type(exc).__name__})"
        if isinstance(exc, httpx.RemoteProtocolError):
            return f"the connection broke off ({exc})"
        return f"{type(exc).__name__}: {exc}"

    def _gave_up(self, what: str, reason: str, tries: int, transport: bool) -> str:
        return f"{what}: {reason} (gave up after {tries} {'tries' if tries > 1 else 'try'})"

    def _too_long(self, what: str, reason: str, wait: float) -> str:
        return (
            f"{what}: {reason}; the server asks to wait {wait:.0f}s (more than "
            f"{self.settings.max_wait:.0f}s): try again later"
        )


def _content_range(response: httpx.Response, have: int) -> tuple[int, int | None]:
    """(offset the body starts at, total size or None) of a 200 or 206 response."""
    length = response.headers.get("content-length")
    encoded = response.headers.get("content-encoding", "identity") != "identity"
    if response.status_code == 206:
        m = re.match(r"bytes (\d+)-\d+/(\d+|\*)", response.headers.get("content-range", ""))
        if not m or int(m.group(1)) != have:
            raise RetryLater("the server resumed at the wrong offset", 0, restart=True)
        return have, int(m.group(2)) if m.group(2) != "*" else None
    return 0, int(length) if length and length.isdigit() and not encoded else None


# --- model services -----------------------------------------------------------------------------

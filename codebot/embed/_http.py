"""JSON over HTTP for model services (embeddings, reranking, chat): one client for all of them.

What it adds to httpx: retries with exponential backoff on 429, 5xx, timeouts and dropped
connections; ``Retry-After`` honoured (and shared, so the other workers pause too, instead of
hammering a rate-limited server); a bounded pool of concurrent requests; and an API key that lives
only in the ``Authorization`` header. A key is read from the environment variable the
configuration names (the one place codebot reads a secret: it never enters a ``Config``, whose
repr may be logged), and is scrubbed from every message codebot raises, even when a server echoes
it back in an error body.
"""

from __future__ import annotations

import email.utils
import os
import random
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, TypeVar

import httpx

from codebot.core.errors import ServiceError

__all__ = ["ApiClient", "HttpSettings", "Secret", "api_key", "check_url"]

T = TypeVar("T")
R = TypeVar("R")

# 408/425: the server gave up or was not ready; 429: rate limit; 5xx: overloaded or restarting.
_RETRY_STATUS = frozenset({408, 425, 429, 500, 502, 503, 504, 529})
_BACKOFF_CAP = 8.0
_BODY_CHARS = 300  # of an error body, in a message


class Secret:
    """An API key: its repr and str are masked, so it cannot leak through a log or a traceback."""

    __slots__ = ("_value",)

    def __init__(self, value: str) -> None:
        self._value = value

    def reveal(self) -> str:
        return self._value

    def __repr__(self) -> str:
        return "Secret('***')"

    __str__ = __repr__


@dataclass(frozen=True)
class HttpSettings:
    #: Seconds a request may wait for the server (connect: at most 10 of them).
    timeout: float = 60.0
    #: Further attempts after a 429, a 5xx, a timeout or a dropped connection.
    retries: int = 4
    #: Requests in flight at once (see ApiClient.map).
    concurrency: int = 4
    #: The longest Retry-After honoured; a server asking for more fails the call at once.
    max_wait: float = 60.0
    #: The first backoff in seconds, doubled on each retry (with jitter), up to 8 s.
    backoff: float = 0.5


def api_key(
    service: str,
    variable: str | None,
    default_variable: str | None,
    setting: str,
    required: bool,
    environ: Mapping[str, str] | None = None,
) -> Secret | None:
    """The key in the environment variable ``variable`` (else ``default_variable``).

    ``setting`` is the configuration key that names the variable, for the message. A missing
    optional key is None (a local server needs none); a missing required one is an error."""
    name = variable or default_variable
    env = os.environ if environ is None else environ
    value = env.get(name, "").strip() if name else ""
    if value:
        return Secret(value)
    if required or variable:  # a variable the user named must exist
        raise ServiceError(
            f"{service} needs an API key: set the environment variable {name or 'of your choice'}"
            f" (or name another variable with the setting {setting})"
        )
    return None


def check_url(url: str, what: str) -> httpx.URL:
    """An http(s) URL with no credentials in it: it is recorded in the index's manifest."""
    try:
        parsed = httpx.URL(url)
    except (httpx.InvalidURL, TypeError) as exc:
        raise ServiceError(f"{what}: {url!r} is not a URL") from exc
    if parsed.scheme not in ("http", "https") or not parsed.host:
        raise ServiceError(f"{what}: {url!r} must be an http:// or https:// URL")
    if parsed.userinfo or parsed.query:
        raise ServiceError(
            f"{what}: the URL must not carry credentials or a query string (it is written into "
            "the index); put the key in an environment variable and name it in the settings"
        )
    return parsed


class ApiClient:
    """Posts JSON to one service; thread-safe. ``transport`` is for tests that inject one."""

    def __init__(
        self,
        service: str,
        key: Secret | None,
        settings: HttpSettings | None = None,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        from codebot.core import __version__

        self.service = service
        self.settings = settings or HttpSettings()
        s = self.settings
        headers = {"User-Agent": f"codebot/{__version__}", "Accept": "application/json"}
        self._secrets = [key.reveal()] if key is not None else []
        if key is not None:
            headers["Authorization"] = f"Bearer {key.reveal()}"
        self._client = httpx.Client(
            headers=headers,
            timeout=httpx.Timeout(s.timeout, connect=min(s.timeout, 10.0)),
            limits=httpx.Limits(max_connections=max(s.concurrency, 1) + 2),
            transport=transport,
        )
        self._lock = threading.Lock()
        self._pause_until = 0.0  # a Retry-After pauses every worker, not only the one told
        self._stop = threading.Event()  # one failed batch stops the others' retries

    # --- public ---------------------------------------------------------------------------------

    def post(self, url: str, payload: Any, timeout: float | None = None) -> Any:
        """POST ``payload`` as JSON, retrying what is worth retrying; the decoded JSON answer.

        ``timeout`` (seconds) overrides the client's for this call, and bounds the retries too:
        no retry starts once it has run out (a latency budget, for reranking)."""
        deadline = None if timeout is None else time.monotonic() + timeout
        for attempt, last in self._attempts(deadline):
            per_call = self.settings.timeout if deadline is None else deadline - time.monotonic()
            try:
                resp = self._client.post(url, json=payload, timeout=max(per_call, 0.001))
            except httpx.TimeoutException as exc:
                self._transient(url, f"no answer within {per_call:.3g} s", attempt, last, exc)
                continue
            except httpx.TransportError as exc:
                self._transient(url, self._describe(exc), attempt, last, exc)
                continue
            if resp.status_code < 400:
                try:
                    return resp.json()
                except ValueError as exc:
                    raise ServiceError(
                        f"{self.service} at {url} answered with something that is not JSON: "
                        f"{self.scrub(resp.text[:_BODY_CHARS])!r}"
                    ) from exc
            self._failed(url, resp, attempt, last)
        raise AssertionError("unreachable")  # pragma: no cover

    def stream_lines(self, url: str, payload: Any) -> Iterator[str]:
        """POST and yield the answer's lines as they arrive (server-sent events).

        Retried like :meth:`post` until the first line; after that a failure is final, since its
        beginning has been shown."""
        for attempt, last in self._attempts(None):
            started = False
            try:
                with self._client.stream("POST", url, json=payload) as resp:
                    if resp.status_code >= 400:
                        resp.read()
                        self._failed(url, resp, attempt, last)
                        continue
                    for line in resp.iter_lines():
                        started = True
                        yield line
                    return
            except httpx.TimeoutException as exc:
                what = f"no data within {self.settings.timeout:g} s"
                if started:
                    raise ServiceError(
                        f"{self.service} at {url}: the answer stopped ({what})"
                    ) from exc
                self._transient(url, what, attempt, last, exc)
            except httpx.TransportError as exc:
                if started:
                    raise ServiceError(
                        f"{self.service} at {url}: the answer broke off ({self._describe(exc)})"
                    ) from exc
                self._transient(url, self._describe(exc), attempt, last, exc)

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

    def scrub(self, text: str) -> str:
        for secret in self._secrets:
            if secret:
                text = text.replace(secret, "***")
        return text

    def close(self) -> None:
        self._client.close()

    # --- retries --------------------------------------------------------------------------------

    def _attempts(self, deadline: float | None) -> Iterator[tuple[int, bool]]:
        total = self.settings.retries + 1
        for attempt in range(total):
            if attempt and self._stop.is_set():
                raise ServiceError(f"{self.service}: stopped after another request failed")
            with self._lock:
                pause = self._pause_until - time.monotonic()
            if pause > 0:
                time.sleep(pause)
            out_of_time = deadline is not None and time.monotonic() >= deadline
            if attempt and out_of_time:
                raise ServiceError(f"{self.service}: no answer within the time allowed")
            yield (
                attempt,
                attempt + 1 == total
                or (deadline is not None and deadline - time.monotonic() < self.settings.backoff),
            )

    def _transient(
        self, url: str, what: str, attempt: int, last: bool, exc: BaseException | None
    ) -> None:
        if last:
            raise ServiceError(
                f"{self.service} at {url}: {what} ({attempt + 1} attempt"
                f"{'s' if attempt else ''}); check that the server is up and reachable, or raise "
                "the timeout"
            ) from exc
        self._sleep_backoff(attempt)

    def _failed(self, url: str, resp: httpx.Response, attempt: int, last: bool) -> None:
        code = resp.status_code
        body = self.scrub(resp.text[:_BODY_CHARS]).strip()
        what = f"HTTP {code}" + (f": {body}" if body else "")
        if code not in _RETRY_STATUS:
            raise ServiceError(f"{self.service} at {url} answered {what}{_hint(code)}")
        wait = _retry_after(resp.headers.get("retry-after"))
        if wait is not None and wait > self.settings.max_wait:
            raise ServiceError(
                f"{self.service} at {url} answered {what} and asks to wait {wait:.0f} s (more than "
                f"{self.settings.max_wait:.0f}); try again later, or lower the concurrency"
            )
        if last:
            raise ServiceError(
                f"{self.service} at {url} answered {what} ({attempt + 1} attempts); "
                "try again later, or lower the concurrency"
            )
        if wait is None:
            self._sleep_backoff(attempt)
            return
        with self._lock:
            self._pause_until = max(self._pause_until, time.monotonic() + wait)
        # the next attempt sleeps until _pause_until (see _attempts)

    def _sleep_backoff(self, attempt: int) -> None:
        delay = min(_BACKOFF_CAP, self.settings.backoff * 2**attempt)
        time.sleep(delay * random.uniform(0.5, 1.0))

    def _describe(self, exc: BaseException) -> str:
        return self.scrub(f"cannot connect ({type(exc).__name__}: {exc})")


def _retry_after(value: str | None) -> float | None:
    """Seconds from a Retry-After header: a number of seconds, or an HTTP date."""
    if not value:
        return None
    try:
        return max(float(value), 0.0)
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(when.timestamp() - time.time(), 0.0)


def _hint(code: int) -> str:
    return {
        400: " (check the model name and the request limits)",
        401: " (check the API key in the environment variable the settings name)",
        403: " (the API key is not allowed to use this model)",
        404: " (check the base URL, which usually ends in /v1, and the model name)",
        413: " (a batch is too large: lower embed_batch_size)",
    }.get(code, "")

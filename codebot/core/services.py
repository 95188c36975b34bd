"""Model services (embeddings, rerank, chat): :class:`ServiceClient`, the one HTTP client of
:mod:`codebot.core.http` speaking JSON to a service, with messages that name the service, the URL
and what to check; and the API key, read from the environment variable the user named and kept
masked (:class:`Secret`) until it goes into the ``Authorization`` header."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any

from codebot.core.errors import HttpError, ServiceError
from codebot.core.http import HttpClient, HttpSettings, RetryLater, redact

if TYPE_CHECKING:
    import httpx

__all__ = [
    "Secret",
    "ServiceClient",
    "ServiceError",
    "api_key",
    "check_url",
    "service_settings",
]


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
    import httpx

    try:
        parsed = httpx.URL(url)
    except (httpx.InvalidURL, TypeError) as exc:
        raise ServiceError(f"{what}: {redact(str(url))!r} is not a URL") from exc
    if parsed.scheme not in ("http", "https") or not parsed.host:
        raise ServiceError(f"{what}: {redact(url)!r} must be an http:// or https:// URL")
    if parsed.userinfo or parsed.query:
        raise ServiceError(
            f"{what}: the URL must not carry credentials or a query string (it is written into "
            "the index); put the key in an environment variable and name it in the settings"
        )
    return parsed


def service_settings(timeout: float = 60.0, retries: int = 4, concurrency: int = 4) -> HttpSettings:
    """A model service's patience: a minute's Retry-After at most, a short first backoff."""
    return HttpSettings(
        timeout=timeout, retries=retries, concurrency=concurrency, max_wait=60.0, backoff=0.5
    )


class ServiceClient(HttpClient):
    """JSON to one model service (``service`` names it in messages), with its API key."""

    def __init__(
        self,
        service: str,
        key: Secret | None,
        settings: HttpSettings | None = None,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        headers = {"Accept": "application/json"}
        if key is not None:
            headers["Authorization"] = f"Bearer {key.reveal()}"
        secrets = [key.reveal()] if key is not None else []
        settings = settings or service_settings()
        super().__init__(
            settings, headers, secrets=secrets, error=ServiceError, transport=transport
        )
        self.service = service

    def post(self, url: str, payload: Any, timeout: float | None = None) -> Any:
        """POST ``payload`` as JSON, retrying what is worth retrying; the decoded JSON answer.

        ``timeout`` (seconds) overrides the client's for this call, and bounds the retries too:
        no retry starts once it has run out (a latency budget, for reranking)."""
        deadline = None if timeout is None else time.monotonic() + timeout
        what = f"{self.service} at {url}"
        response = self.request("POST", url, what, deadline=deadline, json=payload)
        if response.status_code >= 400:
            raise self._refused(what, response)
        try:
            return response.json()
        except ValueError as exc:
            text = self.excerpt(response.text)
            raise self.fail(f"{what} answered with something that is not JSON: {text!r}") from exc

    def stream_lines(self, url: str, payload: Any) -> Iterator[str]:
        """POST and yield the answer's lines as they arrive (server-sent events).

        Retried like :meth:`post` until the first line; after that a failure is final, since its
        beginning has been shown."""
        import httpx

        what = f"{self.service} at {url}"
        for attempt, last in self._attempts(what, None):
            started = False
            try:
                with self.client.stream("POST", url, json=payload) as response:
                    self._raise_if_retryable(response)
                    if response.status_code >= 400:
                        raise self._refused(what, response)
                    for line in response.iter_lines():
                        started = True
                        yield line
                    return
            except httpx.TransportError as exc:
                reason = self._transport_reason(exc, self.settings.timeout)
                if started:
                    raise self.fail(f"{what}: the answer broke off ({reason})") from exc
                self._retry(attempt, last, what, reason, exc=exc)
            except RetryLater as again:
                self._retry(attempt, last, what, again.reason, again.wait)

    def _refused(self, what: str, response: httpx.Response) -> HttpError:
        code = response.status_code
        return self.fail(f"{what} answered {self.status_text(response)}{_hint(code)}")

    def _transport_reason(self, exc: Exception, timeout: float) -> str:
        import httpx

        if isinstance(exc, httpx.TimeoutException):
            return f"no answer within {timeout:.3g} s"
        return f"cannot connect ({type(exc).__name__}: {exc})"

    def _gave_up(self, what: str, reason: str, tries: int, transport: bool) -> str:
        advice = (
            "check that the server is up and reachable, or raise the timeout"
            if transport
            else "try again later, or lower the concurrency"
        )
        return f"{what}: {reason} ({tries} attempt{'s' if tries > 1 else ''}); {advice}"

    def _too_long(self, what: str, reason: str, wait: float) -> str:
        return (
            f"{what}: {reason}, and asks to wait {wait:.0f} s (more than "
            f"{self.settings.max_wait:.0f}); try again later, or lower the concurrency"
        )


def _hint(code: int) -> str:
    return {
        400: " (check the model name and the request limits)",
        401: " (check the API key in the environment variable the settings name)",
        403: " (the API key is not allowed to use this model)",
        404: " (check the base URL, which usually ends in /v1, and the model name)",
        413: " (a batch is too large: lower embed_batch_size)",
    }.get(code, "")

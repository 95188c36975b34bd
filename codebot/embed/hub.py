"""Finding a model's files: a local directory, else the Hugging Face cache, else (only when
allowed) a download with short timeouts.

Why not let the libraries do it: model2vec and sentence-transformers both try the network first
for a hub id, and behind a firewall that drops packets their retries hang for a minute or more
before anything is said. Here the cache is read without a network call, a download is tried only
when the setting allows it, the hub's reachability is checked with one short request before any
download, and every failure is one message that says what to do.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Sequence
from pathlib import Path

from codebot.core.errors import EmbedderError, ModelUnavailable

__all__ = ["is_hub_id", "resolve_model"]

_HUB_ID = re.compile(r"[A-Za-z0-9][\w.-]*/[\w.-]+(@[\w.-]+)?")


def is_hub_id(ref: str) -> bool:
    """``owner/name`` (optionally ``@revision``), as the hub spells model ids."""
    return bool(_HUB_ID.fullmatch(ref)) and not ref.startswith((".", "/", "~"))


def resolve_model(
    ref: str,
    kind: str,
    patterns: Sequence[str],
    allow_download: bool,
    timeout: float,
) -> tuple[Path, str]:
    """(directory holding the model's files, revision or "local") for a path or a hub id.

    ``kind`` names the provider in messages (``model2vec``); ``patterns`` are the files to fetch
    (globs, as ``snapshot_download`` takes them); ``timeout`` bounds the reachability check and
    each stalled read of a download."""
    path = Path(ref).expanduser()
    if path.is_dir():
        return path.resolve(), "local"
    if not is_hub_id(ref):
        raise EmbedderError(
            f"{kind}: {ref!r} is neither a directory nor a hub model id (owner/name[@revision])"
        )
    repo, _, revision = ref.partition("@")
    try:
        import huggingface_hub
        from huggingface_hub.errors import LocalEntryNotFoundError
    except ImportError as exc:  # pragma: no cover - model2vec and tokenizers both depend on it
        raise EmbedderError(
            f"{kind}: loading {ref!r} by hub id needs huggingface_hub (pip install "
            "huggingface_hub), or give the model's directory instead"
        ) from exc
    try:
        folder = huggingface_hub.snapshot_download(
            repo, revision=revision or None, allow_patterns=list(patterns), local_files_only=True
        )
        return Path(folder), Path(folder).name
    except (LocalEntryNotFoundError, FileNotFoundError, ValueError):
        pass
    cache = huggingface_hub.constants.HF_HUB_CACHE
    if not allow_download:
        raise ModelUnavailable(
            f"{kind} model {ref!r} is not in the local Hugging Face cache ({cache}) and downloads "
            "are off. Either download it once where the hub is reachable (hf download "
            f"{repo}) and copy that cache here, give the model's directory ({kind}:/path/to/model),"
            " or allow downloads (allow_download = true in .codebot.toml, or "
            "CODEBOT_ALLOW_DOWNLOAD=1)"
        )
    _reachable(huggingface_hub, repo, revision or None, kind, timeout)
    try:
        folder = huggingface_hub.snapshot_download(
            repo, revision=revision or None, allow_patterns=list(patterns), etag_timeout=timeout
        )
    except Exception as exc:  # the hub's errors are many; each becomes one clear message
        raise ModelUnavailable(
            f"{kind} model {ref!r}: the download failed ({_short(exc)}); nothing is cached"
        ) from exc
    return Path(folder), Path(folder).name


def _reachable(hub, repo: str, revision: str | None, kind: str, timeout: float) -> None:
    """One metadata request, abandoned after ``timeout`` seconds whatever the library does.

    A thread, because the hub client retries some failures on its own: the deadline here is the
    user's, not the library's."""
    outcome: list[BaseException | None] = []

    def probe() -> None:
        try:
            hub.HfApi().model_info(repo, revision=revision, timeout=timeout)
            outcome.append(None)
        except BaseException as exc:  # noqa: BLE001 - handed to the caller's thread
            outcome.append(exc)

    worker = threading.Thread(target=probe, name="codebot-hub-probe", daemon=True)
    worker.start()
    worker.join(timeout + 0.5)
    if not outcome:
        raise ModelUnavailable(
            f"{kind} model {repo!r}: the Hugging Face hub did not answer within {timeout:g} s "
            "(offline, or a firewall drops the connection); download it where the hub is "
            f"reachable (hf download {repo}) and copy the cache, or give a local directory"
        )
    exc = outcome[0]
    if exc is not None and getattr(exc, "response", None) is not None:
        raise ModelUnavailable(
            f"{kind} model {repo!r}: the Hugging Face hub refused it ({_short(exc)}); check the "
            "id, and HF_TOKEN for a private or gated model"
        ) from exc
    if exc is not None:
        raise ModelUnavailable(
            f"{kind} model {repo!r} cannot be downloaded: the Hugging Face hub is not reachable "
            f"({_short(outcome[0])}); download it where the hub is reachable (hf download {repo}) "
            "and copy the cache, or give a local directory"
        ) from exc


def _short(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    text = text[:200] + ("..." if len(text) > 200 else "")
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__

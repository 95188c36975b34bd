"""Embedders: turn code and questions into unit vectors for semantic search.

An embedder is named by a provider string, in the config (``embedder``) or ``--embedder``, and
loaded with :func:`load_embedder`:

==========================================  ===============================================
``builtin``                                 the shipped MiniLM (int8 ONNX), offline; the default
``none``                                    no vectors: keywords only
``model2vec:<dir or owner/name>``           a static model (potion-code-16M...), fast cold builds
``sentence-transformers:<dir or owner/name>``  any sentence-transformers model (``codebot[st]``)
``openai-compatible:<base_url>#<model>``    OpenAI, Ollama, vLLM, TEI, LM Studio: /embeddings
``voyage:<model>``                          Voyage AI (``voyage:<base_url>#<model>`` for a proxy)
==========================================  ===============================================

The string is recorded in the index's manifest and is all an update needs to load the same model
again, so it never holds a secret: API keys come from environment variables the settings name.
Every embedder states its :class:`EmbedderIdentity`: an index records it, and vectors from two
identities are never mixed in one index (switching embedder re-embeds, from the vector cache
where it has them).

This module imports nothing heavy: numpy, onnxruntime, httpx and the model libraries load only
when an embedder is built, so commands that never embed (and the git hook) do not pay for them.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from codebot.core.errors import CodebotError, ConfigError

if TYPE_CHECKING:
    import numpy as np

    from codebot.core.config import Config
    from codebot.core.http import HttpSettings

__all__ = [
    "PROVIDERS",
    "Embedder",
    "EmbedderError",
    "EmbedderIdentity",
    "ProviderOptions",
    "load_embedder",
    "tell_once",
]

#: Provider kinds, as written before the colon of a provider string.
PROVIDERS = ("builtin", "none", "model2vec", "sentence-transformers", "openai-compatible", "voyage")

log = logging.getLogger("codebot")
_told: set[str] = set()


def tell_once(message: str) -> None:
    """Warn on stderr (through logging), once per process: a fallback or a skipped stage is
    worth one line, not one per query."""
    if message not in _told:
        _told.add(message)
        log.warning(message)


class EmbedderError(CodebotError):
    """A model that cannot be loaded or run: missing, corrupt, or the wrong version."""


class UnknownEmbedder(ConfigError, ValueError):
    """A provider string that names no provider (a ValueError too, as in earlier releases)."""


@dataclass(frozen=True, slots=True)
class EmbedderIdentity:
    """What makes two embedders' vectors comparable.

    ``weights_sha256`` pins the exact weights (a rebuilt model is another model); for a hosted
    model, whose weights nobody outside can hash, it is the sha256 of the provider kind and model
    id (a provider that renames a model version is another model). ``max_tokens`` belongs here
    because truncating a long function at 128 or 256 tokens gives different vectors.
    """

    name: str
    dimension: int
    weights_sha256: str
    max_tokens: int

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@runtime_checkable
class Embedder(Protocol):
    """Both methods return an (n, dimension) float32 array of L2-normalised rows, one per text.

    Documents (code, docstrings) and queries are separate calls because some models embed them
    differently (e5's "query: " and "passage: ", Voyage's input_type); the built-in one treats
    them alike. ``provider`` is the string that loads this embedder again.
    """

    provider: str

    @property
    def identity(self) -> EmbedderIdentity: ...

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray: ...

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray: ...


@dataclass(frozen=True)
class ProviderOptions:
    """How to run a provider, from the settings (none of it changes the vectors)."""

    #: CPU threads for local inference (None: min(4, CPU count)).
    threads: int | None = None
    #: Texts per request or per forward pass (batched by length).
    batch_size: int = 32
    #: Requests in flight at once (hosted providers).
    concurrency: int = 4
    #: Seconds a request may wait for an answer.
    timeout: float = 60.0
    #: Further attempts after a 429, a 5xx, a timeout or a dropped connection.
    retries: int = 4
    #: The environment variable that holds the API key (None: the provider's usual one).
    api_key_env: str | None = None
    #: May a hub id that is not in the local cache be downloaded?
    allow_download: bool = False
    #: Seconds the hub gets to answer before a download is given up.
    download_timeout: float = 10.0
    #: When a hub model cannot be had: "stop" (an error) or "builtin" (say so once, use builtin).
    on_download_failure: str = "stop"
    #: Where API keys are read (None: the process environment); never printed.
    environ: Mapping[str, str] | None = field(default=None, repr=False, compare=False)

    @classmethod
    def from_config(cls, config: Config) -> ProviderOptions:
        if config.on_download_failure not in ("stop", "builtin"):
            raise ConfigError(
                f"on_download_failure must be stop or builtin, not {config.on_download_failure!r}"
            )
        for key in ("embed_batch_size", "embed_concurrency", "embed_timeout", "download_timeout"):
            if getattr(config, key) < 1:
                raise ConfigError(f"{key} must be at least 1, not {getattr(config, key)}")
        if config.embed_threads < 0:
            raise ConfigError(
                f"embed_threads must be 0 (automatic) or more: {config.embed_threads}"
            )
        return cls(
            threads=config.embed_threads or None,
            batch_size=config.embed_batch_size,
            concurrency=config.embed_concurrency,
            timeout=float(config.embed_timeout),
            api_key_env=config.embed_api_key_env or None,
            allow_download=config.allow_download,
            download_timeout=float(config.download_timeout),
            on_download_failure=config.on_download_failure,
        )

    def http(self) -> HttpSettings:
        from codebot.core.services import service_settings

        return service_settings(self.timeout, self.retries, self.concurrency)


def split_provider(name: str) -> tuple[str, str]:
    """("openai-compatible", "http://host/v1#model") from a provider string."""
    kind, sep, spec = name.partition(":")
    if kind == "st":
        kind = "sentence-transformers"
    if kind not in PROVIDERS or (kind in ("builtin", "none")) == bool(sep):
        raise UnknownEmbedder(
            f"unknown embedder {name!r}: valid names are 'builtin', 'none', or a provider with its"
            " model: model2vec:<dir or owner/name>, sentence-transformers:<dir or owner/name>, "
            "openai-compatible:<base_url>#<model>, voyage:<model>"
        )
    if sep and not spec.strip():
        raise UnknownEmbedder(f"embedder {name!r}: say which model after '{kind}:'")
    return kind, spec.strip()


def load_embedder(
    name: str,
    threads: int | None = None,
    *,
    max_tokens: int | None = None,
    options: ProviderOptions | None = None,
) -> Embedder | None:
    """The embedder a provider string names; None for ``"none"`` (semantic search switched off).

    ``threads`` caps the CPU threads local inference uses (default: ``options.threads``, else
    min(4, CPU count)); ``max_tokens`` overrides the built-in model's truncation length. A hub
    model that cannot be had stops with an error, or, with ``on_download_failure = "builtin"``,
    is said once and replaced by the built-in model (whose ``provider`` is then ``"builtin"``).
    """
    options = options or ProviderOptions()
    if threads is None:
        threads = options.threads
    kind, spec = split_provider(name)
    if kind == "none":
        return None
    if kind == "builtin":
        from codebot.embed.builtin import BuiltinEmbedder

        return BuiltinEmbedder(threads=threads, max_tokens=max_tokens)
    from codebot.embed._hub import ModelUnavailable

    try:
        return _load(kind, spec, threads, options)
    except ModelUnavailable as exc:
        if options.on_download_failure != "builtin":
            raise
        tell_once(
            f"codebot: {exc}. Falling back to the built-in embedder (on_download_failure = "
            "builtin): the index records builtin, so later updates use it too"
        )
        from codebot.embed.builtin import BuiltinEmbedder

        return BuiltinEmbedder(threads=threads)


def _load(kind: str, spec: str, threads: int | None, options: ProviderOptions) -> Embedder:
    if kind == "model2vec":
        from codebot.embed.model2vec import Model2VecEmbedder

        return Model2VecEmbedder(spec, options)
    if kind == "sentence-transformers":
        from codebot.embed.sentence_transformers import SentenceTransformersEmbedder

        return SentenceTransformersEmbedder(spec, options, threads=threads)
    if kind == "openai-compatible":
        from codebot.embed.openai_compatible import OpenAICompatibleEmbedder

        return OpenAICompatibleEmbedder(spec, options)
    from codebot.embed.voyage import VoyageEmbedder

    return VoyageEmbedder(spec, options)

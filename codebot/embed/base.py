"""What every embedder shares: its identity, the :class:`Embedder` protocol, the options a
provider runs under, naming a provider, and the helpers providers have in common (length
batching, query/document prefixes, normalising, hashing, naming a local or hub model, and the
methods of a symmetric local model).

Imports nothing heavy (numpy loads inside the helpers that need it), so ``import codebot.embed``
stays cheap.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from codebot.core.errors import ConfigError, UnknownEmbedder

if TYPE_CHECKING:
    import numpy as np

    from codebot.core.config import Config
    from codebot.core.http import HttpSettings

__all__ = [
    "PROVIDERS",
    "Embedder",
    "EmbedderIdentity",
    "ProviderOptions",
    "SymmetricEmbedder",
    "length_batches",
    "model_names",
    "normalized",
    "prefixes_for",
    "sha256_files",
    "sha256_text",
    "split_provider",
    "tell_once",
    "truncate",
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
        from codebot.core.http import HttpSettings

        return HttpSettings(
            timeout=self.timeout, retries=self.retries, concurrency=self.concurrency
        )


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


# Families of models that were trained with a prefix on each side (their model cards say so). A
# model served by name (Ollama, TEI, vLLM) cannot tell us, so the name decides; a local
# sentence-transformers model's own ``prompts`` come first. (query prefix, document prefix)
_PREFIXES: tuple[tuple[str, tuple[str, str]], ...] = (
    ("coderankembed", ("Represent this query for searching relevant code: ", "")),
    ("nomic-embed", ("search_query: ", "search_document: ")),
    ("e5-", ("query: ", "passage: ")),
    ("bge-", ("Represent this sentence for searching relevant passages: ", "")),
    ("mxbai-embed", ("Represent this sentence for searching relevant passages: ", "")),
    ("arctic-embed", ("Represent this sentence for searching relevant passages: ", "")),
)


def prefixes_for(model: str) -> tuple[str, str]:
    """(query prefix, document prefix) for a model name; ("", "") for symmetric models."""
    name = model.lower().rsplit("/", 1)[-1]
    if "instruct" in name:  # e5-mistral-instruct and friends take task instructions, not these
        return "", ""
    for marker, prefixes in _PREFIXES:
        if marker in name:
            return prefixes
    return "", ""


def length_batches(
    texts: Sequence[str], max_items: int, max_chars: int | None = None
) -> Iterator[list[int]]:
    """Indices of ``texts`` in batches of similar length, longest first.

    Texts of one length share a batch, so a padded batch wastes little, and a request stays under a
    server's limits: at most ``max_items`` texts and (but for a single longer text) ``max_chars``.
    Longest first: the slowest batches start while the pool is fresh, and an oversized one fails
    before the cheap ones were paid for.
    """
    order = sorted(range(len(texts)), key=lambda i: (-len(texts[i]), i))
    batch: list[int] = []
    chars = 0
    for i in order:
        n = len(texts[i])
        if batch and (len(batch) >= max_items or (max_chars and chars + n > max_chars)):
            yield batch
            batch, chars = [], 0
        batch.append(i)
        chars += n
    if batch:
        yield batch


def normalized(rows: np.ndarray) -> np.ndarray:
    """float32 rows scaled to unit length (a zero row stays zero)."""
    import numpy as np

    rows = np.asarray(rows, dtype=np.float32)
    norms = np.linalg.norm(rows, axis=1, keepdims=True)
    return rows / np.maximum(norms, 1e-12)


def sha256_files(paths: Sequence[Path]) -> str:
    """One sha256 over the files' bytes, in the order given (the weights an identity pins)."""
    h = hashlib.sha256()
    for path in paths:
        with open(path, "rb") as f:
            for block in iter(lambda: f.read(1 << 20), b""):
                h.update(block)
    return h.hexdigest()


def sha256_text(text: str) -> str:
    """For hosted models, whose weights nobody outside can hash: the model id stands for them."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def truncate(texts: Sequence[str], max_chars: int) -> list[str]:
    return [t if len(t) <= max_chars else t[:max_chars] for t in texts]


def model_names(kind: str, ref: str, folder: Path) -> tuple[str, str]:
    """(provider string, identity label) for a model given as a directory or a hub id.

    A directory is recorded as the folder resolve_model found and labelled by its name; a hub id
    is recorded as written (revision included) and labelled without the revision."""
    local = Path(ref).expanduser().is_dir()
    provider = f"{kind}:{folder if local else ref}"
    label = folder.name if local else ref.split("@")[0]
    return provider, label


class SymmetricEmbedder:
    """A local model that embeds documents and queries alike (no prefix, same pooling), with an
    identity fixed when it is loaded. A subclass sets ``_identity`` and defines ``_embed``."""

    _identity: EmbedderIdentity

    @property
    def identity(self) -> EmbedderIdentity:
        return self._identity

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        return self._embed(texts)

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        return self._embed(texts)

    def _embed(self, texts: Sequence[str]) -> np.ndarray:
        raise NotImplementedError

"""What every provider shares: length batching, query/document prefixes, normalising, hashing,
naming a local or hub model, and the methods of a symmetric local model."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np

    from codebot.embed import EmbedderIdentity

__all__ = [
    "SymmetricEmbedder",
    "length_batches",
    "model_names",
    "normalized",
    "prefixes_for",
    "sha256_files",
    "sha256_text",
    "truncate",
]

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

"""Embedders: turn code and questions into unit vectors for semantic search.

An embedder is named in the config (``"builtin"``, ``"none"``; remote providers come later) and
loaded with :func:`load_embedder`. Every embedder states its :class:`EmbedderIdentity`: an index
records it, and vectors from two identities must never be mixed in one index.

This module imports nothing heavy: numpy and onnxruntime load only when an embedder is built, so
commands that never embed (and the git hook) do not pay for them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from codebot.errors import CodebotError

if TYPE_CHECKING:
    import numpy as np

EMBEDDER_NAMES = ("builtin", "none")


class EmbedderError(CodebotError):
    """A model that cannot be loaded or run: missing, corrupt, or the wrong version."""


@dataclass(frozen=True, slots=True)
class EmbedderIdentity:
    """What makes two embedders' vectors comparable.

    ``weights_sha256`` pins the exact weights (a rebuilt model is another model); ``max_tokens``
    belongs here because truncating a long function at 128 or 256 tokens gives different vectors.
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
    differently (a query prefix, another truncation); the built-in one treats them alike.
    """

    @property
    def identity(self) -> EmbedderIdentity: ...

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray: ...

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray: ...


def load_embedder(
    name: str, threads: int | None = None, *, max_tokens: int | None = None
) -> Embedder | None:
    """The embedder called ``name``; None for ``"none"`` (semantic search switched off).

    ``threads`` caps the CPU threads inference uses (default: min(4, CPU count)); ``max_tokens``
    overrides the model's truncation length for documents.
    """
    if name == "builtin":
        from codebot.embed.builtin import BuiltinEmbedder

        return BuiltinEmbedder(threads=threads, max_tokens=max_tokens)
    if name == "none":
        return None
    valid = ", ".join(repr(n) for n in EMBEDDER_NAMES)
    raise ValueError(f"unknown embedder {name!r}: valid names are {valid}")

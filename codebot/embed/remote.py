"""What the hosted embedders share: batching by length, concurrent requests, checking answers.

A subclass says how one batch is posted and read (:meth:`RemoteEmbedder._post_batch`). The
dimension is learned from the first answer (one short probe when the identity is asked for
before anything was embedded) and every later answer must keep it: a server that switched
models mid-build would otherwise mix two models' vectors in one index.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

import numpy as np

from codebot.core.errors import EmbedderError
from codebot.core.services import ServiceClient
from codebot.embed.base import (
    EmbedderIdentity,
    ProviderOptions,
    length_batches,
    normalized,
    sha256_text,
    truncate,
)

__all__ = [
    "RemoteEmbedder",
]

_CHARS_PER_TOKEN = 3  # code runs ~3 characters a token: truncating by characters stays under


class RemoteEmbedder:
    kind: str = ""  # the provider kind, in the identity's name and its hash
    max_batch_chars: int = 100_000  # per request, under the services' token limits

    def __init__(
        self,
        model: str,
        client: ServiceClient,
        options: ProviderOptions,
        max_tokens: int,
        prefixes: tuple[str, str] = ("", ""),
    ) -> None:
        self.model = model
        self._client = client
        self._batch_size = options.batch_size
        self._max_tokens = max_tokens
        self._query_prefix, self._document_prefix = prefixes
        self._dimension: int | None = None
        self._lock = threading.Lock()

    @property
    def identity(self) -> EmbedderIdentity:
        if self._dimension is None:
            self.embed_documents(["codebot: which dimension?"])
        assert self._dimension is not None
        return EmbedderIdentity(
            name=f"{self.kind}:{self.model}",
            dimension=self._dimension,
            weights_sha256=sha256_text(f"{self.kind}\n{self.model}"),
            max_tokens=self._max_tokens,
        )

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        return self._embed(texts, "document", self._document_prefix)

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        return self._embed(texts, "query", self._query_prefix)

    def close(self) -> None:
        self._client.close()

    def _post_batch(self, texts: list[str], input_type: str) -> list[Any]:
        """The vectors for one batch, in the order of ``texts``."""
        raise NotImplementedError

    def _data_embeddings(self, answer: Any, hint: str = "") -> list[Any]:
        """The ``data[].embedding`` rows of an OpenAI-style answer, put back in ``index`` order."""
        try:
            data = sorted(answer["data"], key=lambda d: d.get("index", 0))
            return [d["embedding"] for d in data]
        except (KeyError, TypeError, AttributeError) as exc:
            raise EmbedderError(
                f"{self._client.service} answered without data[].embedding{hint}"
            ) from exc

    def _embed(self, texts: Sequence[str], input_type: str, prefix: str) -> np.ndarray:
        if isinstance(texts, str):
            raise TypeError("embed a list of strings, not a string")
        if not texts:
            return np.zeros((0, self._dimension or 0), dtype=np.float32)
        # Servers reject empty inputs, and some reject over-long ones instead of truncating.
        limit = self._max_tokens * _CHARS_PER_TOKEN
        prepared = [prefix + (t if t.strip() else "(empty)") for t in truncate(texts, limit)]
        batches = list(length_batches(prepared, self._batch_size, self.max_batch_chars))
        answers = self._client.map(
            lambda batch: self._post_batch([prepared[i] for i in batch], input_type), batches
        )
        rows: list[Any] = [None] * len(prepared)
        for batch, vectors in zip(batches, answers):
            if len(vectors) != len(batch):
                raise EmbedderError(
                    f"{self._client.service} returned {len(vectors)} vectors for {len(batch)} texts"
                )
            for i, vector in zip(batch, vectors):
                rows[i] = vector
        return normalized(self._check(rows))

    def _check(self, rows: list[Any]) -> np.ndarray:
        try:
            out = np.asarray(rows, dtype=np.float32)
        except (ValueError, TypeError) as exc:  # ragged, or not numbers
            sizes = sorted({len(r) for r in rows if hasattr(r, "__len__")})
            raise EmbedderError(
                f"{self._client.service} returned vectors of different lengths {sizes} in one "
                "answer: is the model name right?"
            ) from exc
        if out.ndim != 2 or out.shape[1] == 0 or not np.isfinite(out).all():
            raise EmbedderError(f"{self._client.service} returned no usable vectors")
        with self._lock:
            if self._dimension is None:
                self._dimension = int(out.shape[1])
            elif out.shape[1] != self._dimension:
                raise EmbedderError(
                    f"{self._client.service} returned {out.shape[1]}-dimensional vectors where "
                    f"{self.model} gave {self._dimension} before: the server now runs another "
                    "model (or another dimension setting); vectors of two models are never mixed"
                    ", so rebuild the index with: codebot index"
                )
        return out

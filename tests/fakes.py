"""A deterministic stand-in embedder for fast tests (the built-in model has tests of its own).

It is a real embedder of a crude kind: words hashed into buckets, so texts that share words are
close. Enough to test that vectors flow through the cache, the store and fusion.
"""

from __future__ import annotations

import hashlib

import numpy as np

from codebot.embed import EmbedderIdentity
from codebot.index.text import query_words


class HashingEmbedder:
    def __init__(self, dimension: int = 512) -> None:
        self._identity = EmbedderIdentity("test-hashing", dimension, "0" * 64, 256)
        self.calls = 0

    @property
    def identity(self) -> EmbedderIdentity:
        return self._identity

    def _one(self, text: str) -> np.ndarray:
        v = np.zeros(self._identity.dimension, dtype=np.float32)
        for w in query_words(text):  # stopwords out: they would dominate a tiny vocabulary
            h = int.from_bytes(hashlib.blake2b(w.encode(), digest_size=4).digest(), "little")
            v[h % len(v)] += 1.0
        n = np.linalg.norm(v)
        return v / n if n else v

    def embed_documents(self, texts):
        self.calls += len(texts)
        return (
            np.stack([self._one(t) for t in texts])
            if texts
            else np.zeros((0, self._identity.dimension), np.float32)
        )

    embed_queries = embed_documents

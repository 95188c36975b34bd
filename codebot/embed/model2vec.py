"""``model2vec:<dir or owner/name>``: static embeddings (Model2Vec), e.g. potion-code-16M-v2.

A static model looks each token's vector up in a table and averages them: no neural network runs,
so a cold build embeds thousands of functions a second on one core, and a vector depends on its
text alone (no batch effects). Needs the ``model2vec`` package (``pip install 'codebot[model2vec]'``:
numpy, safetensors, tokenizers; no torch).

On disk (model2vec's format): ``model.safetensors`` (tensor ``embeddings``, optionally ``weights``
and ``mapping``), ``tokenizer.json`` and ``config.json``; the sentence-transformers layouts that
model2vec reads are accepted too.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from codebot.core.errors import EmbedderError
from codebot.embed.base import (
    EmbedderIdentity,
    ProviderOptions,
    SymmetricEmbedder,
    model_names,
    normalized,
    sha256_files,
)
from codebot.embed.hub import resolve_model

__all__ = [
    "Model2VecEmbedder",
]

# What to fetch from the hub, and where the weights are, per layout model2vec reads.
_PATTERNS = (
    "config.json",
    "config_sentence_transformers.json",
    "model.safetensors",
    "tokenizer.json",
    "0_StaticEmbedding/*",
    "modules.json",
)
_NO_LIMIT = 8192  # a model without max_length still gets one: the identity must name it


class Model2VecEmbedder(SymmetricEmbedder):
    """Static models are symmetric: documents and queries are embedded alike."""

    def __init__(self, ref: str, options: ProviderOptions | None = None) -> None:
        options = options or ProviderOptions()
        try:
            from model2vec import StaticModel
        except ImportError as exc:
            raise EmbedderError(
                "the model2vec provider needs the model2vec package: pip install "
                "'codebot[model2vec]' (numpy, safetensors and tokenizers; no torch)"
            ) from exc
        folder, _ = resolve_model(
            ref, "model2vec", _PATTERNS, options.allow_download, options.download_timeout
        )
        weights = _weights_file(folder)
        try:
            # A directory: model2vec reads it and never goes to the network.
            self._model = StaticModel.from_pretrained(folder, normalize=True, force_download=False)
        except Exception as exc:  # safetensors, tokenizers and json each raise their own
            raise EmbedderError(f"model2vec: cannot load the model in {folder}: {exc}") from exc
        self._max_length = self._model.max_length or _NO_LIMIT
        # encode() sets the tokenizer's truncation on every call: two threads at once (an MCP
        # server, an HTTP server) would collide in the Rust tokenizer ("Already borrowed").
        self._lock = threading.Lock()
        self.provider, label = model_names("model2vec", ref, folder)
        tokenizer = weights.parent / "tokenizer.json"
        self._identity = EmbedderIdentity(
            name=f"model2vec:{label}",
            dimension=int(self._model.dim),
            # The tokenizer decides which rows are averaged: it is part of the weights.
            weights_sha256=sha256_files([weights, tokenizer]),
            max_tokens=int(self._max_length),
        )

    def _embed(self, texts: Sequence[str]) -> np.ndarray:
        if isinstance(texts, str):
            raise TypeError("embed a list of strings, not a string")
        if not texts:
            return np.zeros((0, self._identity.dimension), dtype=np.float32)
        # One thread, no joblib pool: a table lookup is memory-bound, and a pool would take every
        # core from the indexer. model2vec groups texts of equal token length itself.
        with self._lock:
            out = self._model.encode(
                list(texts),
                max_length=self._max_length,
                batch_size=1024,
                use_multiprocessing=False,
                show_progress_bar=False,
            )
        return normalized(out)


def _weights_file(folder: Path) -> Path:
    for rel in ("model.safetensors", "0_StaticEmbedding/model.safetensors"):
        if (folder / rel).is_file():
            return folder / rel
    raise EmbedderError(
        f"model2vec: no model.safetensors in {folder} (expected model2vec's layout: "
        "model.safetensors, tokenizer.json, config.json)"
    )

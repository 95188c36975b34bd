"""``sentence-transformers:<dir or owner/name>``: any sentence-transformers model, run by torch.

Behind an extra: ``pip install 'codebot[st]'``. Install torch first if you want to keep it a CPU
build (``pip install torch --index-url https://download.pytorch.org/whl/cpu``): a plain ``torch``
requirement pulls a CUDA build of several GB on Linux. The model runs on a GPU when torch sees
one, else on the CPU with ``embed_threads`` threads.

Query and document prefixes come from the model's own ``prompts`` (config_sentence_transformers
.json) when it has ``query``/``document`` ones, else from the model family (e5, bge, nomic...).
"""

from __future__ import annotations

import os
from collections.abc import Sequence

import numpy as np

from codebot.core.errors import EmbedderError
from codebot.embed.base import (
    EmbedderIdentity,
    ProviderOptions,
    model_names,
    normalized,
    prefixes_for,
    sha256_files,
)
from codebot.embed.hub import resolve_model

__all__ = [
    "SentenceTransformersEmbedder",
    "import_sentence_transformers",
]

_PATTERNS = (
    "*.json",
    "*.safetensors",
    "*.txt",
    "*.model",  # sentencepiece vocabularies
    "1_Pooling/*",
    "2_Dense/*",
    "2_Normalize/*",
    "3_Normalize/*",
)
_WEIGHTS = ("*.safetensors", "pytorch_model.bin", "*/model.safetensors", "*/pytorch_model.bin")


def import_sentence_transformers():
    try:
        import sentence_transformers
    except ImportError as exc:
        raise EmbedderError(
            "this provider needs sentence-transformers: pip install 'codebot[st]' (install a CPU "
            "build of torch first to keep it small: see the README, Model providers)"
        ) from exc
    return sentence_transformers


class SentenceTransformersEmbedder:
    def __init__(
        self, ref: str, options: ProviderOptions | None = None, threads: int | None = None
    ) -> None:
        options = options or ProviderOptions()
        st = import_sentence_transformers()
        import torch

        threads = threads or options.threads or min(4, os.cpu_count() or 1)
        torch.set_num_threads(threads)
        folder, _ = resolve_model(
            ref,
            "sentence-transformers",
            _PATTERNS,
            options.allow_download,
            options.download_timeout,
        )
        try:
            self._model = st.SentenceTransformer(str(folder), local_files_only=True)
        except Exception as exc:  # torch, transformers and json each raise their own
            raise EmbedderError(f"sentence-transformers: cannot load {folder}: {exc}") from exc
        weights = sorted({p for pattern in _WEIGHTS for p in folder.glob(pattern)})
        if not weights:
            raise EmbedderError(f"sentence-transformers: no weights file in {folder}")
        self.provider, label = model_names("sentence-transformers", ref, folder)
        prompts = getattr(self._model, "prompts", None) or {}
        family = prefixes_for(label)
        self._query_prefix = prompts.get("query", family[0])
        self._document_prefix = prompts.get("document", prompts.get("passage", family[1]))
        self._batch_size = options.batch_size
        # Renamed in sentence-transformers 6 (get_embedding_dimension); 3-5 have the old name.
        dimension_of = getattr(self._model, "get_embedding_dimension", None)
        dim = (dimension_of or self._model.get_sentence_embedding_dimension)()
        if not dim:
            raise EmbedderError(f"sentence-transformers: {folder} does not state its dimension")
        self._identity = EmbedderIdentity(
            name=f"sentence-transformers:{label}",
            dimension=int(dim),
            weights_sha256=sha256_files(weights),
            max_tokens=int(self._model.max_seq_length or 512),
        )

    @property
    def identity(self) -> EmbedderIdentity:
        return self._identity

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        return self._embed(texts, self._document_prefix)

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        return self._embed(texts, self._query_prefix)

    def _embed(self, texts: Sequence[str], prefix: str) -> np.ndarray:
        if isinstance(texts, str):
            raise TypeError("embed a list of strings, not a string")
        if not texts:
            return np.zeros((0, self._identity.dimension), dtype=np.float32)
        # encode() sorts by length and batches itself; float32 rows, normalised here too so that
        # a model without a Normalize module still gives unit vectors.
        out = self._model.encode(
            [prefix + t for t in texts],
            batch_size=self._batch_size,
            show_progress_bar=False,
            convert_to_numpy=True,
            normalize_embeddings=True,
        )
        return normalized(out)

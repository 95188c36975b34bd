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

from codebot.core.errors import EmbedderError, ModelUnavailable
from codebot.embed.base import (
    PROVIDERS,
    Embedder,
    EmbedderIdentity,
    ProviderOptions,
    split_provider,
    tell_once,
)

__all__ = [
    "PROVIDERS",
    "Embedder",
    "EmbedderError",
    "EmbedderIdentity",
    "ProviderOptions",
    "load_embedder",
    "tell_once",
]


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

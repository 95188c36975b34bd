"""The embedder an index records: chosen, recorded, loaded and checked here, and nowhere else.

A manifest records the model its vectors come from as ``{"provider": <provider string>,
**identity}`` (name, dimension, weights hash, token limit). Vectors of two models are never mixed:
an update, a search and an installed artifact all load the index's own model, without the
fallback a build may take, and refuse one whose identity differs. The provider string is not part
of the identity: a local model's path differs from one machine to the next while its weights do
not.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from codebot.core.config import Config
from codebot.core.errors import StoreError

__all__ = ["chosen", "comparable", "deferred", "load_recorded", "record"]


def chosen(config: Config, embedder=None):
    """The embedder a build uses: the one given, else the one the config names (None: "none")."""
    if embedder is None and config.embedder != "none":
        from codebot.embed import ProviderOptions, load_embedder

        embedder = load_embedder(config.embedder, options=ProviderOptions.from_config(config))
    return embedder


def record(embedder, config: Config) -> dict[str, Any] | None:
    """What a manifest records of ``embedder`` (its own provider string: a fallback to builtin, or
    a path made absolute)."""
    if embedder is None:
        return None
    return {
        "provider": getattr(embedder, "provider", config.embedder),
        **embedder.identity.to_dict(),
    }


def comparable(recorded: dict[str, Any] | None) -> dict[str, Any] | None:
    """What makes vectors comparable: the identity without the provider string."""
    return None if recorded is None else {k: v for k, v in recorded.items() if k != "provider"}


def load_recorded(recorded: dict[str, Any] | None, config: Config | None, embedder=None):
    """The index's own embedder (None when it has no vectors): ``embedder`` when given, else
    loaded from the recorded provider, with ``config`` saying how to run it (threads, the API
    key's variable) and never another model. Raises StoreError when its identity differs."""
    if recorded is None:
        return None
    if embedder is None:
        from codebot.embed import ProviderOptions, load_embedder

        options = ProviderOptions.from_config(config) if config is not None else None
        if options is not None:
            options = replace(options, on_download_failure="stop")  # no fallback: see above
        embedder = load_embedder(recorded["provider"], options=options)
    if embedder.identity.to_dict() != comparable(recorded):
        raise StoreError(
            f"the index was built with the embedder {comparable(recorded)}, but "
            f"{recorded['provider']!r} is {embedder.identity.to_dict()} here; vectors of two "
            "models are never mixed: rebuild the index with: codebot index"
        )
    return embedder


class _Deferred:
    """The index's own embedder, loaded on the first text the cache does not hold: an update
    whose changed symbols all have cached vectors (a revert, a moved function, a no-op) never
    loads the model (0.3 s and more for the built-in one)."""

    def __init__(self, recorded: dict[str, Any], config: Config | None) -> None:
        from codebot.embed.base import EmbedderIdentity

        self.provider = recorded["provider"]
        self.identity = EmbedderIdentity(**comparable(recorded))
        self._recorded, self._config = recorded, config
        self._loaded = None

    def _model(self):
        if self._loaded is None:
            self._loaded = load_recorded(self._recorded, self._config)
        return self._loaded

    def embed_documents(self, texts):
        return self._model().embed_documents(texts)

    def embed_queries(self, texts):
        return self._model().embed_queries(texts)


def deferred(recorded: dict[str, Any] | None, config: Config | None, embedder=None):
    """:func:`load_recorded`, with the loading put off until a text needs embedding (the
    identity comes from the record, and the loaded model is checked against it then)."""
    if recorded is None or embedder is not None:
        return load_recorded(recorded, config, embedder)
    return _Deferred(recorded, config)

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

__all__ = ["chosen", "comparable", "load_recorded", "record"]


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

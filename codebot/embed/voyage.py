"""``voyage:<model>``: Voyage AI's embeddings (voyage-code-3 for code), over its HTTP API.

``POST https://api.voyageai.com/v1/embeddings`` with ``{"model", "input", "input_type",
"truncation": true}``: Voyage embeds a query and a document differently (``input_type``), so
searches must say which. ``voyage:<base_url>#<model>`` points at another address (a proxy, or
the tests' local server). The key comes from ``$VOYAGE_API_KEY`` or the variable
``embed_api_key_env`` names.
"""

from __future__ import annotations

from typing import Any

from codebot.core.services import ServiceClient, api_key
from codebot.embed.base import ProviderOptions
from codebot.embed.remote import RemoteEmbedder

__all__ = ["VoyageEmbedder", "voyage_endpoint"]

DEFAULT_BASE = "https://api.voyageai.com/v1"
DEFAULT_KEY_ENV = "VOYAGE_API_KEY"
_MAX_TOKENS = 4096  # Voyage truncates on its side; 4096 keeps requests small and long code whole


def voyage_endpoint(spec: str, what: str) -> tuple[str, str]:
    """(base URL, model) from ``model`` or ``base_url#model``."""
    if "#" not in spec:
        return DEFAULT_BASE, spec
    from codebot.embed.openai_compatible import parse_endpoint

    return parse_endpoint(spec, "voyage", what)


class VoyageEmbedder(RemoteEmbedder):
    kind = "voyage"
    max_batch_chars = 200_000  # voyage-code-3 takes 120k tokens a request

    def __init__(self, spec: str, options: ProviderOptions | None = None, transport=None) -> None:
        options = options or ProviderOptions()
        base, model = voyage_endpoint(spec, "embedder")
        self.provider = f"voyage:{model}" if base == DEFAULT_BASE else f"voyage:{base}#{model}"
        self._url = f"{base}/embeddings"
        key = api_key(
            "Voyage AI",
            options.api_key_env,
            DEFAULT_KEY_ENV,
            "embed_api_key_env",
            required=True,
            environ=options.environ,
        )
        client = ServiceClient("Voyage AI", key, options.http(), transport)
        super().__init__(model, client, options, _MAX_TOKENS)

    def _post_batch(self, texts: list[str], input_type: str) -> list[Any]:
        payload = {
            "model": self.model,
            "input": texts,
            "input_type": input_type,
            "truncation": True,
        }
        answer = self._client.post(self._url, payload)
        return self._data_embeddings(answer)

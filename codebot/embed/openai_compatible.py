"""``openai-compatible:<base_url>#<model>``: any server that speaks OpenAI's embeddings API.

OpenAI itself (``https://api.openai.com/v1``), Ollama (``http://localhost:11434/v1``), vLLM and
Text Embeddings Inference (``http://host:8080/v1``), LM Studio (``http://localhost:1234/v1``): the
embedding work goes to a serving engine, on a GPU if it has one, and the index stays a file.

``POST {base_url}/embeddings`` with ``{"model", "input": [...], "encoding_format": "float"}``; the
answer's ``data[i].embedding`` rows are put back in ``index`` order. The API key, when the server
wants one, comes from ``$OPENAI_API_KEY`` or the variable ``embed_api_key_env`` names.
"""

from __future__ import annotations

from typing import Any

from codebot.core.errors import EmbedderError
from codebot.core.services import ServiceClient, api_key, check_url
from codebot.embed.base import ProviderOptions, prefixes_for
from codebot.embed.remote import RemoteEmbedder

__all__ = ["OpenAICompatibleEmbedder", "parse_endpoint"]

DEFAULT_KEY_ENV = "OPENAI_API_KEY"
_MAX_TOKENS = 512  # what TEI and most local servers accept by default; OpenAI takes 8191


def parse_endpoint(spec: str, provider: str, what: str) -> tuple[str, str]:
    """("http://host/v1", "model") from ``http://host/v1#model``."""
    base, sep, model = spec.rpartition("#")
    if not sep or not base or not model:
        raise EmbedderError(
            f"{provider}: write the base URL and the model as {provider}:<base_url>#<model>, e.g. "
            f"{provider}:http://localhost:11434/v1#nomic-embed-text (got {spec!r})"
        )
    check_url(base, what)
    return base.rstrip("/"), model


class OpenAICompatibleEmbedder(RemoteEmbedder):
    kind = "openai-compatible"

    def __init__(self, spec: str, options: ProviderOptions | None = None, transport=None) -> None:
        options = options or ProviderOptions()
        base, model = parse_endpoint(spec, self.kind, "embedder")
        self.provider = f"{self.kind}:{base}#{model}"
        self._url = f"{base}/embeddings"
        # Optional: a local server needs no key; a variable named in the settings must exist.
        key = api_key(
            "the embedding server",
            options.api_key_env,
            DEFAULT_KEY_ENV,
            "embed_api_key_env",
            required=False,
            environ=options.environ,
        )
        client = ServiceClient("the embedding server", key, options.http(), transport)
        super().__init__(model, client, options, _MAX_TOKENS, prefixes_for(model))

    def _post_batch(self, texts: list[str], input_type: str) -> list[Any]:
        payload = {"model": self.model, "input": texts, "encoding_format": "float"}
        answer = self._client.post(self._url, payload)
        return self._data_embeddings(answer, f": is {self._url} an embeddings endpoint?")

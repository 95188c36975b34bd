"""Reranking: a model reads the question beside each of the top N candidates and reorders them.

Fusion ranks by keywords and vectors computed separately for the query and the code; a reranker
(a cross-encoder) sees both together, which sorts the top of the list better, at a cost paid per
query and per candidate. So it is optional, runs after fusion on the top ``rerank_top`` hits only,
and has a latency budget: when the budget runs out the fused order is kept, and that is said once.

==============================================  =========================================
``none``                                        no reranking (the default)
``cross-encoder:<dir or owner/name>``           a local cross-encoder (``codebot[st]``)
``voyage:<model>``                              Voyage AI rerank (rerank-2.5, ...); key $VOYAGE_API_KEY
``cohere-compatible:<url>#<model>``             Cohere's /v2/rerank, Jina's /v1/rerank and servers
                                                speaking that format; key $COHERE_API_KEY if set
==============================================  =========================================

``rerank_api_key_env`` names another variable for the key. A reranker that cannot be loaded is an
error; one that fails at query time (a timeout, a 5xx after retries) is skipped and noted, since
the fused ranking is still a good answer.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from codebot.core.errors import CodebotError, ConfigError
from codebot.embed import tell_once

if TYPE_CHECKING:
    from codebot.core.config import Config
    from codebot.core.model import Symbol
    from codebot.embed import ProviderOptions
    from codebot.index.store import Index

__all__ = ["RERANKERS", "RerankStage", "Reranker", "load_reranker"]

RERANKERS = ("none", "cross-encoder", "voyage", "cohere-compatible")
_DOC_CHARS = 2000  # of a candidate's code: enough for a function's head and its docstring


class Reranker(Protocol):
    name: str

    def score(self, query: str, documents: list[str], timeout: float) -> list[float]:
        """One relevance score per document (higher is better), within ``timeout`` seconds."""
        ...


@dataclass
class RerankStage:
    """Reorders the top ``top`` rows of a ranking with ``reranker``, within ``budget_ms``."""

    reranker: Reranker
    index: Index
    top: int = 20
    budget_ms: int = 2000
    #: What happened to each query, for reports: "reranked", or why it was skipped.
    notes: list[str] = field(default_factory=list)

    @classmethod
    def from_config(cls, index: Index, config: Config) -> RerankStage:
        if config.rerank_top < 2 or config.rerank_budget_ms < 1:
            raise ConfigError("rerank_top must be at least 2 and rerank_budget_ms at least 1")
        from codebot.embed import ProviderOptions

        options = ProviderOptions.from_config(config)
        reranker = load_reranker(config.reranker, config.rerank_api_key_env, options)
        return cls(reranker, index, config.rerank_top, config.rerank_budget_ms)

    def apply(self, query: str, ranked: list[tuple[int, float]]) -> list[tuple[int, float]]:
        if len(ranked) < 2:
            return ranked
        head, tail = ranked[: self.top], ranked[self.top :]
        started = time.perf_counter()
        budget = self.budget_ms / 1000
        symbols = self.index.symbols
        documents = [self._document(symbols[row]) for row, _ in head]
        try:
            scores = self.reranker.score(query, documents, budget - (time.perf_counter() - started))
        except CodebotError as exc:
            return self._skip(ranked, f"reranking with {self.reranker.name} failed ({exc})")
        spent = time.perf_counter() - started
        if spent > budget:
            return self._skip(
                ranked,
                f"reranking with {self.reranker.name} took {spent * 1000:.0f} ms, over its "
                f"budget of {self.budget_ms} ms",
            )
        if len(scores) != len(head):
            return self._skip(ranked, f"{self.reranker.name} returned {len(scores)} scores")
        order = sorted(range(len(head)), key=lambda i: (-scores[i], i))
        # The fused scores, best first, given to the new order: the top stays above the rest.
        values = sorted((score for _, score in head), reverse=True)
        self.notes.append("reranked")
        return [(head[i][0], values[n]) for n, i in enumerate(order)] + tail

    def _skip(self, ranked: list[tuple[int, float]], why: str) -> list[tuple[int, float]]:
        self.notes.append(why)
        tell_once(
            f"codebot: {why}; results keep the fused order (raise rerank_budget_ms or lower "
            "rerank_top)"
        )
        return ranked

    def _document(self, s: Symbol) -> str:
        code = self.index.code(s, outline=True)
        head = f"{s.path}: {s.id}\n"
        return head + code[: _DOC_CHARS - len(head)]


def load_reranker(
    spec: str, api_key_env: str | None = None, options: ProviderOptions | None = None
) -> Reranker:
    """The reranker a setting names (see the module docstring). ``api_key_env`` names the
    variable holding a hosted reranker's key; ``options`` (embed.ProviderOptions) give threads,
    downloads, retries and where keys are read."""
    from codebot.embed import ProviderOptions

    options = options or ProviderOptions()
    kind, _, rest = spec.partition(":")
    rest = rest.strip()
    if kind not in RERANKERS[1:] or not rest:
        raise ConfigError(
            f"unknown reranker {spec!r}: write none, cross-encoder:<dir or owner/name>, "
            "voyage:<model>, or cohere-compatible:<url>#<model>"
        )
    if kind == "cross-encoder":
        return CrossEncoderReranker(rest, options)
    from codebot.core.services import ServiceClient, api_key

    env = options.environ
    if kind == "voyage":
        from codebot.embed.voyage import voyage_endpoint

        base, model = voyage_endpoint(rest, "reranker")
        service = "Voyage AI rerank"
        key = api_key(service, api_key_env, "VOYAGE_API_KEY", "rerank_api_key_env", True, env)
        return VoyageReranker(ServiceClient(service, key, options.http()), f"{base}/rerank", model)
    from codebot.embed.openai_compatible import parse_endpoint

    url, model = parse_endpoint(rest, "cohere-compatible", "reranker")
    service = "the reranker"
    key = api_key(service, api_key_env, "COHERE_API_KEY", "rerank_api_key_env", False, env)
    return CohereCompatibleReranker(ServiceClient(service, key, options.http()), url, model)


class _HostedReranker:
    kind = ""
    results_key = "results"
    count_key = "top_n"

    def __init__(self, client: Any, url: str, model: str) -> None:
        self._client = client
        self._url = url
        self.model = model
        self.name = f"{self.kind}:{model}"

    def score(self, query: str, documents: list[str], timeout: float) -> list[float]:
        payload = {
            "model": self.model,
            "query": query,
            "documents": documents,
            self.count_key: len(documents),
        }
        answer = self._client.post(self._url, payload, timeout=max(timeout, 0.001))
        scores = [float("-inf")] * len(documents)
        try:
            for item in answer[self.results_key]:
                scores[int(item["index"])] = float(item["relevance_score"])
        except (KeyError, TypeError, ValueError, IndexError) as exc:
            raise CodebotError(
                f"{self._client.service} answered without {self.results_key}[].relevance_score"
            ) from exc
        return scores


class VoyageReranker(_HostedReranker):
    kind = "voyage"
    results_key = "data"
    count_key = "top_k"


class CohereCompatibleReranker(_HostedReranker):
    kind = "cohere-compatible"


class CrossEncoderReranker:
    """A local cross-encoder through sentence-transformers (``pip install 'codebot[st]'``)."""

    _BATCH = 8  # pairs a forward pass; the budget is checked between passes

    def __init__(self, ref: str, options: ProviderOptions | None = None) -> None:
        from codebot.embed import ProviderOptions
        from codebot.embed.hub import resolve_model
        from codebot.embed.sentence_transformers import import_sentence_transformers

        options = options or ProviderOptions()
        st = import_sentence_transformers()
        import torch

        torch.set_num_threads(options.threads or min(4, os.cpu_count() or 1))
        patterns = ("*.json", "*.safetensors", "*.txt", "*.model")
        folder, _ = resolve_model(
            ref, "cross-encoder", patterns, options.allow_download, options.download_timeout
        )
        try:
            self._model = st.CrossEncoder(str(folder), local_files_only=True)
        except Exception as exc:  # torch, transformers and json each raise their own
            raise CodebotError(f"cross-encoder: cannot load {folder}: {exc}") from exc
        self.name = f"cross-encoder:{folder.name}"

    def score(self, query: str, documents: list[str], timeout: float) -> list[float]:
        deadline = time.perf_counter() + timeout
        scores: list[float] = []
        for start in range(0, len(documents), self._BATCH):
            if time.perf_counter() > deadline:
                raise CodebotError(f"the cross-encoder ran out of time after {start} documents")
            pairs = [(query, d) for d in documents[start : start + self._BATCH]]
            scores.extend(float(x) for x in self._model.predict(pairs, show_progress_bar=False))
        return scores

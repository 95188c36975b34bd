"""The reranking stage: after fusion, the top N only, within a latency budget; hosted rerankers
against a local server speaking Voyage's and Cohere/Jina's rerank formats."""

from __future__ import annotations

import time

import pytest

from codebot.core.config import Config
from codebot.core.errors import ConfigError
from codebot.index.build import build_index
from codebot.index.overlay import open_index
from codebot.query.rerank import RerankStage, load_reranker
from codebot.query.search import Searcher

from .fake_models import Fault, ModelServer
from .fakes import HashingEmbedder

CODE = {
    "shop/cart.py": "\n".join(
        f"def cart_step_{i}(cart):\n    '''Cart helper {i}.'''\n    return cart\n\n"
        for i in range(8)
    )
    + "\ndef apply_discount_code(cart, code):\n"
    "    '''Apply a discount code to the cart total.'''\n    return cart.total * 0.9\n",
}


class Scripted:
    """A reranker that prefers documents mentioning ``word``, after ``delay`` seconds."""

    def __init__(self, word: str, delay: float = 0.0) -> None:
        self.name = "scripted"
        self.word, self.delay, self.calls = word, delay, 0

    def score(self, query, documents, timeout):
        self.calls += 1
        time.sleep(self.delay)
        return [float(self.word in d) for d in documents]


@pytest.fixture
def index(make_repo, tmp_path):
    repo = make_repo(CODE)
    config = Config(index_dir=str(tmp_path / "ix"))
    build_index(repo, config, embedder=HashingEmbedder())
    return open_index(repo, config)


def fused(index):
    return [(row, 1.0 / (row + 1)) for row in range(len(index.symbols))]


def test_the_top_n_is_reordered_and_stays_above_the_rest(index):
    ranked = fused(index)
    stage = RerankStage(Scripted("discount"), index, top=len(ranked), budget_ms=5000)
    out = stage.apply("discount", ranked)
    assert index.symbols[out[0][0]].name == "apply_discount_code"
    assert sorted(s for _, s in out) == sorted(s for _, s in ranked)  # the same scores, moved
    assert stage.notes == ["reranked"]
    stage = RerankStage(Scripted("discount"), index, top=3, budget_ms=5000)
    out = stage.apply("discount", ranked)
    assert out[3:] == ranked[3:]  # beyond the top N nothing moves


def test_over_budget_keeps_the_fused_order_and_says_so(index, caplog):
    ranked = fused(index)
    stage = RerankStage(Scripted("discount", delay=0.05), index, top=5, budget_ms=10)
    assert stage.apply("discount", ranked) == ranked
    assert "over its budget of 10 ms" in stage.notes[0]
    assert "results keep the fused order" in caplog.text


@pytest.mark.parametrize("flavour", ["voyage", "cohere"])
def test_hosted_rerankers_speak_their_wire_format(flavour, index):
    with ModelServer() as server:
        if flavour == "voyage":
            spec, env = f"voyage:{server.url}/v1#rerank-2.5", {"VOYAGE_API_KEY": "k"}
        else:
            spec, env = f"cohere-compatible:{server.url}/v2/rerank#rerank-v3.5", {}
        from codebot.embed import ProviderOptions

        reranker = load_reranker(spec, options=ProviderOptions(environ=env))
        stage = RerankStage(reranker, index, top=9, budget_ms=5000)
        out = stage.apply("apply a discount code", fused(index))
        body = server.requests[0].body
    assert index.symbols[out[0][0]].name == "apply_discount_code"
    assert body["query"] == "apply a discount code" and len(body["documents"]) == 9
    assert ("top_k" in body) == (flavour == "voyage") and ("top_n" in body) != (flavour == "voyage")
    assert body["documents"][0].startswith("shop/cart.py: ")


def test_a_failing_reranker_is_skipped_not_fatal(index):
    with ModelServer() as server:
        server.fail(*[Fault(500)] * 10)
        reranker = load_reranker(f"cohere-compatible:{server.url}/v1/rerank#m")
        stage = RerankStage(reranker, index, top=5, budget_ms=800)
        started = time.perf_counter()
        assert stage.apply("discount", fused(index)) == fused(index)
        assert time.perf_counter() - started < 1.5  # retries stop at the budget
    assert "failed" in stage.notes[0]


def test_searcher_applies_the_configured_reranker(make_repo, tmp_path):
    repo = make_repo(CODE)
    with ModelServer() as server:
        config = Config(
            index_dir=str(tmp_path / "ix"),
            embedder="none",
            reranker=f"cohere-compatible:{server.url}/v2/rerank#m",
            rerank_top=10,
        )
        build_index(repo, config)
        searcher = Searcher(open_index(repo, config), config)
        hits = searcher.search("cart discount", k=3)
        assert len(server.requests) == 1
        assert len(server.requests[0].body["documents"]) == 9  # every candidate: fewer than 10
    assert hits[0].symbol.name == "apply_discount_code"
    assert searcher.reranking().notes == ["reranked"]


def test_reranker_settings_are_checked():
    with pytest.raises(ConfigError, match="unknown reranker"):
        load_reranker("bge-reranker")
    from codebot.core.errors import ServiceError

    with pytest.raises(ServiceError, match="VOYAGE_API_KEY"):
        from codebot.embed import ProviderOptions

        load_reranker("voyage:rerank-2.5", options=ProviderOptions(environ={}))


def test_cross_encoder(tmp_path, index):
    pytest.importorskip("sentence_transformers", reason="the st extra (torch) is not installed")
    from transformers import BertConfig, BertForSequenceClassification, BertTokenizerFast

    from codebot.embed.builtin import MODEL_DIR

    folder = tmp_path / "ce"
    BertTokenizerFast(tokenizer_file=str(MODEL_DIR / "tokenizer.json")).save_pretrained(folder)
    config = BertConfig(
        vocab_size=30522, hidden_size=32, num_hidden_layers=1, num_attention_heads=2,
        intermediate_size=64, num_labels=1,
    )  # fmt: skip
    BertForSequenceClassification(config).save_pretrained(folder)
    reranker = load_reranker(f"cross-encoder:{folder}")
    scores = reranker.score("discount", ["def apply_discount_code(): ...", "def f(): ..."], 10.0)
    assert len(scores) == 2 and all(isinstance(s, float) for s in scores)
    out = RerankStage(reranker, index, top=4, budget_ms=10_000).apply("q", fused(index))
    assert sorted(out[:4]) != [] and out[4:] == fused(index)[4:]

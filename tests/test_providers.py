"""Model providers: one interface, against real HTTP servers on 127.0.0.1 and models made on disk.

The hosted providers talk to tests/fake_models.py's server (OpenAI and Voyage wire formats) with
scripted faults; model2vec loads a small static model each test writes; the hub is a local
blackhole or an empty cache, so nothing here needs a network, torch or a download.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from codebot.core.config import Config
from codebot.core.errors import (
    ConfigError,
    EmbedderError,
    ModelUnavailable,
    ServiceError,
    StoreError,
)
from codebot.embed import ProviderOptions, load_embedder
from codebot.embed.base import length_batches, prefixes_for
from codebot.index.build import build_index
from codebot.index.overlay import open_index
from codebot.query.search import Searcher

from .fake_models import Blackhole, Fault, ModelServer, hashed_vector

SECRET = "sk-test-Zq9-SECRET-do-not-print"
CODE = {
    "net/retry.py": (
        "import time\n\n\ndef get_with_retry(url, attempts=5):\n"
        '    """Fetch a URL, retrying with backoff when the connection fails."""\n'
        "    for attempt in range(attempts):\n        time.sleep(attempt)\n    return url\n"
    ),
    "data/users.py": (
        "import csv\n\n\ndef load_users(csv_path):\n"
        '    """Read users from a CSV file."""\n'
        "    with open(csv_path) as f:\n        return list(csv.DictReader(f))\n"
    ),
}


@pytest.fixture
def server():
    with ModelServer(dimension=16) as s:
        yield s


def options(**kw) -> ProviderOptions:
    kw.setdefault("environ", {})
    kw.setdefault("timeout", 5.0)
    return ProviderOptions(**kw)


def openai(server: ModelServer, **kw):
    return load_embedder(f"openai-compatible:{server.url}/v1#fake-embed", options=options(**kw))


# --- shared pieces -------------------------------------------------------------------------------


def test_length_batches_group_similar_lengths_within_limits():
    texts = ["x" * n for n in (5, 50, 7, 300, 40, 6, 45)]
    batches = list(length_batches(texts, max_items=3, max_chars=360))
    assert sorted(i for b in batches for i in b) == list(range(len(texts)))
    assert all(len(b) <= 3 for b in batches)
    assert all(sum(len(texts[i]) for i in b) <= 360 or len(b) == 1 for b in batches)
    lengths = [len(texts[i]) for b in batches for i in b]
    assert lengths == sorted(lengths, reverse=True)  # longest first: similar lengths together


def test_prefixes_follow_the_model_family():
    assert prefixes_for("intfloat/e5-base-v2") == ("query: ", "passage: ")
    assert prefixes_for("nomic-embed-text") == ("search_query: ", "search_document: ")
    assert prefixes_for("e5-mistral-7b-instruct") == ("", "")
    assert prefixes_for("voyage-code-3") == ("", "")


def test_unknown_providers_and_bad_settings_are_config_errors():
    with pytest.raises(ConfigError, match="openai-compatible:<base_url>#<model>"):
        load_embedder("openai:text-embedding-3-small")
    with pytest.raises(ConfigError, match="say which model"):
        load_embedder("model2vec:")
    with pytest.raises(ConfigError, match="on_download_failure must be stop or builtin"):
        ProviderOptions.from_config(Config(on_download_failure="maybe"))
    with pytest.raises(ServiceError, match="must not carry credentials"):
        load_embedder("openai-compatible:https://user:pw@example.invalid/v1#m")


def test_settings_reach_the_provider(tmp_path):
    # A hosted model, its key's variable and downloads are the user's to choose (their own
    # configuration file); the repository's file tunes the rest.
    user_file = tmp_path / "home" / ".config" / "codebot" / "config.toml"
    user_file.parent.mkdir(parents=True)
    user_file.write_text(
        "embedder = 'voyage:voyage-code-3'\nembed_api_key_env = 'MY_VOYAGE'\nallow_download = true\n"
    )
    (tmp_path / ".codebot.toml").write_text(
        "embed_concurrency = 2\nembed_timeout = 7\non_download_failure = 'builtin'\n"
    )
    from codebot.core.config import load_config

    opts = ProviderOptions.from_config(
        load_config(tmp_path, environ={"HOME": str(tmp_path / "home")})
    )
    assert (opts.concurrency, opts.timeout, opts.api_key_env) == (2, 7.0, "MY_VOYAGE")
    assert (opts.allow_download, opts.on_download_failure) == (True, "builtin")


# --- openai-compatible ---------------------------------------------------------------------------


def test_openai_compatible_batches_by_length_and_keeps_input_order(server):
    texts = [f"def f{i}(): return {'x ' * (i % 7)}{i}" for i in range(70)]
    emb = openai(server, batch_size=32, concurrency=1)
    got = emb.embed_documents(texts)
    assert got.shape == (70, 16) and got.dtype == np.float32
    want = np.asarray([hashed_vector(t, 16) for t in texts], dtype=np.float32)
    want /= np.linalg.norm(want, axis=1, keepdims=True)
    np.testing.assert_allclose(got, want, rtol=1e-6)  # rows back in input order, unit length
    calls = [r for r in server.requests if r.path == "/v1/embeddings"]
    assert [len(r.body["input"]) for r in calls] == [32, 32, 6]
    assert all(r.body["model"] == "fake-embed" for r in calls)
    first = calls[0].body["input"]
    assert [len(t) for t in first] == sorted((len(t) for t in first), reverse=True)
    assert emb.identity.dimension == 16 and emb.identity.name == "openai-compatible:fake-embed"
    assert emb.provider == f"openai-compatible:{server.url}/v1#fake-embed"
    assert "authorization" not in {k.lower() for k in calls[0].headers}  # no key: none sent


def test_requests_run_concurrently(server):
    server.latency = 0.15
    emb = openai(server, batch_size=4, concurrency=4)
    started = time.perf_counter()
    emb.embed_documents([f"text number {i}" for i in range(32)])  # 8 batches
    elapsed = time.perf_counter() - started
    assert server.max_in_flight == 4
    assert elapsed < 8 * 0.15 * 0.75  # well under one at a time


def test_429_with_retry_after_is_honoured(server):
    server.fail(Fault(429, {"Retry-After": "1"}, '{"error": "rate limited"}'))
    emb = openai(server)
    started = time.perf_counter()
    assert emb.embed_documents(["hello world"]).shape == (1, 16)
    first, second = server.requests[:2]
    assert second.at - first.at >= 0.95  # waited as told, not the short backoff
    assert time.perf_counter() - started < 3


def test_retry_after_takes_seconds_or_a_date():
    import email.utils

    from codebot.core.http import retry_after as _retry_after

    assert _retry_after("2") == 2.0 and _retry_after("0.5") == 0.5 and _retry_after(None) is None
    soon = email.utils.formatdate(time.time() + 30, usegmt=True)
    assert 28 <= _retry_after(soon) <= 30
    assert _retry_after("next tuesday") is None


def test_500_then_success(server):
    server.fail(Fault(500, body="upstream restarting"), Fault(503))
    assert openai(server).embed_documents(["a b c"]).shape == (1, 16)
    assert len(server.requests) == 3


def test_a_retry_after_too_long_fails_at_once(server):
    server.fail(Fault(429, {"Retry-After": "3600"}))
    started = time.perf_counter()
    with pytest.raises(ServiceError, match="asks to wait 3600 s"):
        openai(server).embed_documents(["a"])
    assert time.perf_counter() - started < 1


def test_persistent_errors_give_up_with_a_clear_message(server):
    server.fail(*[Fault(502)] * 3)
    with pytest.raises(ServiceError, match=r"HTTP 502.*\(3 attempts\)"):
        openai(server, retries=2).embed_documents(["a"])
    server.fail(Fault(404, body="model not found"))
    with pytest.raises(ServiceError, match="check the base URL"):
        openai(server).embed_documents(["a"])


def test_a_timeout_fails_fast_and_says_so(server):
    server.fail(Fault(delay=3), Fault(delay=3))
    started = time.perf_counter()
    with pytest.raises(ServiceError, match=r"no answer within 0.3 s \(2 attempts\)"):
        openai(server, timeout=0.3, retries=1).embed_documents(["slow"])
    assert time.perf_counter() - started < 2


def test_a_server_that_is_not_there(tmp_path):
    with Blackhole() as hole:
        url = hole.url
    # closed now: connection refused
    emb = load_embedder(f"openai-compatible:{url}/v1#m", options=options(retries=1))
    with pytest.raises(ServiceError, match="cannot connect"):
        emb.embed_documents(["x"])


def test_wrong_dimension_is_refused(server):
    emb = openai(server)
    assert emb.identity.dimension == 16
    server.fail(Fault(dimension=24))
    with pytest.raises(EmbedderError, match="24-dimensional vectors where fake-embed gave 16"):
        emb.embed_documents(["a changed model"])


def test_the_key_is_sent_but_never_shown(server, capsys, caplog):
    env = {"CODEBOT_TEST_KEY": SECRET}
    server.fail(Fault(401, body=json.dumps({"error": f"Incorrect API key provided: {SECRET}"})))
    opts = options(environ=env, api_key_env="CODEBOT_TEST_KEY")
    emb = load_embedder(f"openai-compatible:{server.url}/v1#m", options=opts)
    with pytest.raises(ServiceError) as info:
        emb.embed_documents(["x"])
    assert server.requests[0].headers["Authorization"] == f"Bearer {SECRET}"
    texts = [str(info.value), repr(info.value), repr(opts), repr(emb.__dict__), capsys.readouterr()]
    texts.append(caplog.text)
    assert "check the API key" in str(info.value) and "***" in str(info.value)
    assert not any(SECRET in str(t) for t in texts)


def test_a_named_key_variable_must_exist():
    with pytest.raises(ServiceError, match="set the environment variable MY_KEY"):
        load_embedder(
            "openai-compatible:http://127.0.0.1:9/v1#m", options=options(api_key_env="MY_KEY")
        )


def test_the_key_never_reaches_the_command_line_output(server, make_repo):
    repo = make_repo(CODE)
    server.fail(*[Fault(401, body=f"bad key {SECRET}")] * 3)
    env = {**os.environ, "OPENAI_API_KEY": SECRET, "CODEBOT_EMBED_TIMEOUT": "5"}
    embedder = f"openai-compatible:{server.url}/v1#m"
    out = subprocess.run(
        [sys.executable, "-m", "codebot", "index", "--embedder", embedder, str(repo)],
        capture_output=True,
        text=True,
        env=env,
    )
    assert out.returncode == 1, out.stderr
    assert "HTTP 401" in out.stderr
    assert SECRET not in out.stdout + out.stderr


def test_index_search_and_update_with_a_hosted_embedder(server, make_repo, tmp_path):
    repo = make_repo(CODE)
    config = Config(
        embedder=f"openai-compatible:{server.url}/v1#fake-embed", index_dir=str(tmp_path / "ix")
    )
    report = build_index(repo, config)
    manifest = report.manifest.to_dict()
    assert manifest["embedder"]["provider"] == config.embedder
    assert manifest["embedder"]["dimension"] == 16
    searcher = Searcher(open_index(repo, config), config)
    hits = searcher.search("read users csv file", k=3, mode="vector")
    assert hits[0].symbol.name == "load_users"
    # The server now runs another model: the index refuses it rather than mix vectors.
    server.dimension = 24
    with pytest.raises(StoreError, match="never mixed"):
        Searcher(open_index(repo, config), config).search("users", mode="vector")


# --- voyage --------------------------------------------------------------------------------------


def test_voyage_sends_input_types_and_needs_a_key(server):
    with pytest.raises(ServiceError, match="VOYAGE_API_KEY"):
        load_embedder("voyage:voyage-code-3", options=options())
    opts = options(environ={"VOYAGE_API_KEY": SECRET})
    emb = load_embedder(f"voyage:{server.url}/v1#voyage-code-3", options=opts)
    emb.embed_documents(["def load_users(): ..."])
    emb.embed_queries(["where are users loaded?"])
    bodies = [r.body for r in server.requests]
    assert [b["input_type"] for b in bodies] == ["document", "query"]
    assert all(b["model"] == "voyage-code-3" and b["truncation"] is True for b in bodies)
    assert emb.provider == f"voyage:{server.url}/v1#voyage-code-3"
    assert emb.identity.name == "voyage:voyage-code-3"
    assert load_embedder("voyage:voyage-code-3", options=opts).provider == "voyage:voyage-code-3"


def test_prefixes_are_applied_per_side(server):
    emb = load_embedder(f"openai-compatible:{server.url}/v1#e5-small-v2", options=options())
    emb.embed_documents(["def f(): pass"])
    emb.embed_queries(["what does f do"])
    inputs = [r.body["input"][0] for r in server.requests]
    assert inputs == ["passage: def f(): pass", "query: what does f do"]


# --- model2vec -----------------------------------------------------------------------------------

VOCAB = (
    "[UNK] def return open file read csv url retry fetch users load get with attempts "
    "connection backoff path time sleep import list dict reader"
).split()


def make_static_model(folder: Path, dimension: int = 8, seed: int = 0) -> np.ndarray:
    """A model2vec model in model2vec's on-disk format: safetensors table, tokenizer, config."""
    from safetensors.numpy import save_file
    from tokenizers import Regex, Tokenizer, models, normalizers, pre_tokenizers

    folder.mkdir(parents=True, exist_ok=True)
    tok = Tokenizer(models.WordLevel({w: i for i, w in enumerate(VOCAB)}, unk_token="[UNK]"))
    tok.normalizer = normalizers.Lowercase()
    tok.pre_tokenizer = pre_tokenizers.Split(Regex(r"[^A-Za-z]+"), behavior="removed")
    tok.save(str(folder / "tokenizer.json"))
    table = np.random.default_rng(seed).standard_normal((len(VOCAB), dimension))
    table = table.astype(np.float32)
    save_file({"embeddings": table}, str(folder / "model.safetensors"))
    config = {"model_type": "model2vec", "normalize": True, "hidden_dim": dimension}
    (folder / "config.json").write_text(json.dumps(config))
    return table


def test_model2vec_loads_a_model_from_disk(tmp_path):
    pytest.importorskip("model2vec")
    table = make_static_model(tmp_path / "tiny-m2v")
    emb = load_embedder(f"model2vec:{tmp_path / 'tiny-m2v'}")
    assert emb.identity.dimension == 8 and emb.identity.name == "model2vec:tiny-m2v"
    assert emb.provider == f"model2vec:{(tmp_path / 'tiny-m2v').resolve()}"
    text = "def load_users(csv_path): return list(csv.DictReader(open(path)))"
    got = emb.embed_documents([text])[0]
    # Lower-cased, split at non-letters; unknown words ("dictreader") are left out.
    words = "def load users csv path return list csv open path".split()
    ids = [VOCAB.index(w) for w in words]
    want = table[ids].mean(axis=0)
    np.testing.assert_allclose(got, want / np.linalg.norm(want), rtol=1e-5)
    among = emb.embed_documents(["fetch url", text, "x" * 5000])[1]
    assert np.array_equal(got, among)  # a vector depends on its text alone
    assert np.array_equal(got, emb.embed_queries([text])[0])


def test_model2vec_index_and_search_end_to_end(tmp_path, make_repo):
    pytest.importorskip("model2vec")
    make_static_model(tmp_path / "m")
    repo = make_repo(CODE)
    config = Config(embedder=f"model2vec:{tmp_path / 'm'}", index_dir=str(tmp_path / "ix"))
    report = build_index(repo, config)
    assert report.manifest.embedder["name"] == "model2vec:m"
    hits = Searcher(open_index(repo, config), config).search("load users csv", mode="vector")
    assert hits[0].symbol.name == "load_users"


def test_switching_embedder_reembeds_from_the_cache(tmp_path, make_repo, server):
    pytest.importorskip("model2vec")
    make_static_model(tmp_path / "m")
    repo = make_repo(CODE)
    static = Config(embedder=f"model2vec:{tmp_path / 'm'}", index_dir=str(tmp_path / "ix"))
    hosted = static.replace(embedder=f"openai-compatible:{server.url}/v1#fake-embed")
    first = build_index(repo, static)
    assert first.embedded == first.counts["symbols"] > 0
    second = build_index(repo, hosted)  # another model: every vector is computed again
    assert second.embedded == second.counts["symbols"]
    assert second.manifest.embedder["dimension"] == 16
    again = build_index(repo, static)  # and back: the cache still holds the first model's
    assert again.embedded == 0
    assert again.manifest.embedder == first.manifest.embedder


def test_a_hub_id_loads_from_the_local_cache_without_network(tmp_path, monkeypatch):
    pytest.importorskip("model2vec")
    import huggingface_hub.constants as hub

    snapshot = tmp_path / "hub" / "models--acme--tiny-m2v" / "snapshots" / "0123abcd"
    make_static_model(snapshot)
    (snapshot.parents[1] / "refs").mkdir()
    (snapshot.parents[1] / "refs" / "main").write_text("0123abcd")
    monkeypatch.setattr(hub, "HF_HUB_CACHE", str(tmp_path / "hub"))
    emb = load_embedder("model2vec:acme/tiny-m2v")  # downloads off: the cache is enough
    assert emb.identity.name == "model2vec:acme/tiny-m2v"
    assert emb.provider == "model2vec:acme/tiny-m2v"


def test_a_hub_id_not_cached_fails_at_once_when_downloads_are_off(tmp_path, monkeypatch):
    import huggingface_hub.constants as hub

    monkeypatch.setattr(hub, "HF_HUB_CACHE", str(tmp_path / "empty"))
    started = time.perf_counter()
    with pytest.raises(ModelUnavailable, match="allow_download") as info:
        load_embedder("model2vec:minishlab/potion-code-16M-v2")
    assert time.perf_counter() - started < 1
    assert "hf download minishlab/potion-code-16M-v2" in str(info.value)


def _index_with_hub(repo: Path, hole: Blackhole, tmp_path: Path, **env: str):
    environ = {
        **os.environ,
        "HF_ENDPOINT": hole.url,  # the hub is a port that never answers: a dropping firewall
        "HF_HUB_CACHE": str(tmp_path / "hub"),
        "HF_HUB_ETAG_TIMEOUT": "60",  # the library's own patience must not matter
        "CODEBOT_ALLOW_DOWNLOAD": "1",
        "CODEBOT_DOWNLOAD_TIMEOUT": "1",
        **env,
    }
    started = time.perf_counter()
    command = ["index", "--embedder", "model2vec:acme/potion", str(repo)]
    out = subprocess.run(
        [sys.executable, "-m", "codebot", *command],
        capture_output=True,
        text=True,
        env=environ,
        timeout=60,
    )
    return out, time.perf_counter() - started


def test_an_unreachable_hub_fails_fast_with_one_clear_message(tmp_path, make_repo):
    repo = make_repo(CODE)
    with Blackhole() as hole:
        out, seconds = _index_with_hub(repo, hole, tmp_path)
    assert out.returncode == 1, out.stderr
    assert "did not answer within 1 s" in out.stderr
    assert out.stderr.count("acme/potion") <= 2  # one message, not a retry log
    # the 1 s download timeout, plus start-up (slow on a loaded machine): never a minute
    assert seconds < 30


def test_an_unreachable_hub_can_fall_back_to_builtin(tmp_path, make_repo):
    repo = make_repo(CODE)
    with Blackhole() as hole:
        out, seconds = _index_with_hub(repo, hole, tmp_path, CODEBOT_ON_DOWNLOAD_FAILURE="builtin")
    assert out.returncode == 0, out.stderr
    assert out.stderr.count("Falling back to the built-in embedder") == 1
    manifest = json.loads((repo / ".git" / "codebot" / "manifest.json").read_text())
    assert manifest["embedder"]["provider"] == "builtin"


# --- sentence-transformers (only where it is installed: CI has no torch) ------------------------


def make_tiny_st_model(folder: Path) -> None:
    """A randomly initialised 2-layer BERT saved as a sentence-transformers model."""
    from sentence_transformers import SentenceTransformer

    try:  # sentence-transformers 6 moved them; 3-5 have them here
        from sentence_transformers.sentence_transformer import modules as models
    except ImportError:
        from sentence_transformers import models
    from transformers import BertConfig, BertModel, BertTokenizerFast

    from codebot.embed.builtin import MODEL_DIR

    raw = folder / "raw"
    raw.mkdir(parents=True)
    BertTokenizerFast(tokenizer_file=str(MODEL_DIR / "tokenizer.json")).save_pretrained(raw)
    config = BertConfig(
        vocab_size=30522, hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
        intermediate_size=64, max_position_embeddings=128,
    )  # fmt: skip
    BertModel(config).save_pretrained(raw)
    word = models.Transformer(str(raw), max_seq_length=64)
    model = SentenceTransformer(modules=[word, models.Pooling(32, "mean"), models.Normalize()])
    model.prompts = {"query": "query: ", "document": ""}
    model.save(str(folder / "st"))


def test_sentence_transformers_provider(tmp_path):
    pytest.importorskip("sentence_transformers", reason="the st extra (torch) is not installed")
    make_tiny_st_model(tmp_path)
    emb = load_embedder(f"sentence-transformers:{tmp_path / 'st'}", threads=1)
    assert emb.identity.dimension == 32 and emb.identity.max_tokens == 64
    docs = emb.embed_documents(["def f(): pass", "def g(x): return x"])
    assert docs.shape == (2, 32)
    np.testing.assert_allclose(np.linalg.norm(docs, axis=1), 1.0, rtol=1e-5)
    query = emb.embed_queries(["def f(): pass"])[0]
    assert not np.allclose(query, docs[0])  # the query side has its prompt

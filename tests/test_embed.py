"""The built-in embedder: quality against the torch model, determinism, and the loader."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from codebot.core.config import Config
from codebot.core.errors import EmbedderError, StoreError
from codebot.embed import Embedder, EmbedderIdentity, load_embedder
from codebot.embed.builtin import MODEL_DIR, BuiltinEmbedder
from codebot.embed.cache import VectorCache
from codebot.index.build import build_index
from codebot.index.overlay import open_index
from codebot.query.search import Searcher

REFERENCE = Path(__file__).parent / "fixtures" / "embedder_reference.json"

# Real functions and the docstring-like question each answers: the question must find its function.
FUNCTIONS = {
    "sha": """def file_digest(path, block_size=1 << 20):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(block_size), b""):
            h.update(block)
    return h.hexdigest()""",
    "retry": """def get_with_retry(url, attempts=5):
    delay = 0.5
    for attempt in range(attempts):
        try:
            return requests.get(url, timeout=10)
        except requests.ConnectionError:
            time.sleep(delay)
            delay *= 2
    raise RuntimeError(f"gave up on {url}")""",
    "csv": """def load_users(csv_path):
    users = []
    with open(csv_path, newline="") as f:
        for row in csv.DictReader(f):
            users.append(User(name=row["name"], email=row["email"]))
    return users""",
    "slug": """def slugify(title):
    title = unicodedata.normalize("NFKD", title).encode("ascii", "ignore").decode()
    title = re.sub(r"[^\\w\\s-]", "", title).strip().lower()
    return re.sub(r"[-\\s]+", "-", title)""",
    "matrix": """def transpose(matrix):
    return [[row[i] for row in matrix] for i in range(len(matrix[0]))]""",
}
QUERIES = {
    "sha": "Compute the SHA-256 checksum of a file, reading it in blocks.",
    "retry": "Fetch a URL, retrying with exponential backoff when the connection fails.",
    "csv": "Read users from a CSV file.",
    "slug": "Turn a title into a URL-friendly slug.",
}


@pytest.fixture(scope="module")
def embedder() -> BuiltinEmbedder:
    emb = load_embedder("builtin", threads=1)
    assert isinstance(emb, BuiltinEmbedder)
    return emb


def test_matches_the_torch_model(embedder: BuiltinEmbedder) -> None:
    # int8 kernels differ between CPUs (with and without VNNI): a loose bound, not equality.
    ref = json.loads(REFERENCE.read_text())
    got = embedder.embed_documents(ref["texts"])
    cos = (got * np.asarray(ref["vectors"], dtype=np.float32)).sum(axis=1)
    assert cos.min() >= 0.97, dict(zip(ref["texts"], cos.round(4).tolist(), strict=True))


def test_a_vector_depends_only_on_its_text(embedder: BuiltinEmbedder) -> None:
    text = FUNCTIONS["csv"]
    alone = embedder.embed_documents([text])[0]
    among = embedder.embed_documents([FUNCTIONS["sha"], text, "x" * 3000, ""])[1]
    assert np.array_equal(alone, among)
    assert np.array_equal(alone, embedder.embed_documents([text])[0])


def test_side_by_side_runs_give_the_same_vectors(embedder: BuiltinEmbedder) -> None:
    # Several texts at once on three workers, duplicates among them, against each text alone on
    # one: the same vectors, bit for bit (an index built either way holds the same vectors).
    texts = [*FUNCTIONS.values(), *QUERIES.values(), FUNCTIONS["csv"], "", "x" * 3000, ""]
    side_by_side = BuiltinEmbedder(threads=3).embed_documents(texts)
    alone = np.stack([embedder.embed_documents([t])[0] for t in texts])
    assert np.array_equal(side_by_side, alone)
    assert np.array_equal(side_by_side[len(FUNCTIONS) + len(QUERIES)], alone[2])


def test_a_question_finds_its_function(embedder: BuiltinEmbedder) -> None:
    names = list(FUNCTIONS)
    docs = embedder.embed_documents([FUNCTIONS[n] for n in names])
    for key, question in QUERIES.items():
        scores = docs @ embedder.embed_queries([question])[0]
        ranked = [names[i] for i in np.argsort(-scores)]
        assert ranked[0] == key, (question, ranked, np.sort(scores)[::-1].round(3))


def test_shapes_dtype_and_norm(embedder: BuiltinEmbedder) -> None:
    assert isinstance(embedder, Embedder)
    vecs = embedder.embed_documents(["def f(): pass", "", "   ", "x " * 2000])
    assert vecs.shape == (4, 384) and vecs.dtype == np.float32
    assert np.allclose(np.linalg.norm(vecs, axis=1), 1.0, atol=1e-5)
    assert embedder.embed_queries([]).shape == (0, 384)
    with pytest.raises(TypeError):
        embedder.embed_queries("a string, not a list")  # type: ignore[arg-type]


def test_identity_matches_model_json(embedder: BuiltinEmbedder) -> None:
    meta = json.loads((MODEL_DIR / "model.json").read_text())
    assert embedder.identity == EmbedderIdentity(
        name=meta["name"],
        dimension=384,
        weights_sha256=meta["files"]["model.onnx"]["sha256"],
        max_tokens=meta["max_tokens"],
    )
    assert embedder.identity.to_dict()["dimension"] == 384
    assert BuiltinEmbedder(threads=1, max_tokens=256).identity.max_tokens == 256


def test_an_index_of_the_256_token_vectors_is_refused(make_repo, tmp_path: Path) -> None:
    # Vectors cut at 256 tokens (the truncation before 128 was measured) are another model's:
    # an index that holds them asks for a rebuild instead of mixing them with new ones, and the
    # vector cache keeps them in another file.
    repo = make_repo({"users.py": FUNCTIONS["csv"] + "\n\n" + FUNCTIONS["slug"] + "\n"})
    config = Config(embedder="builtin", index_dir=str(tmp_path / "ix"))
    before = BuiltinEmbedder(threads=1, max_tokens=256)
    build_index(repo, config, embedder=before)
    with pytest.raises(StoreError, match="never mixed"):
        Searcher(open_index(repo, config), config).search("read users from a csv", mode="vector")
    now = BuiltinEmbedder(threads=1)
    assert now.identity.max_tokens == 128
    assert VectorCache(tmp_path, before.identity).path != VectorCache(tmp_path, now.identity).path


def test_loader_names() -> None:
    assert load_embedder("none") is None
    with pytest.raises(ValueError, match="'builtin', 'none'"):
        load_embedder("openai-large")


@pytest.mark.parametrize("damage", ["missing", "truncated", "flipped"])
def test_a_damaged_model_is_refused(tmp_path: Path, damage: str) -> None:
    model_dir = tmp_path / "m"
    shutil.copytree(MODEL_DIR, model_dir)
    onnx = model_dir / "model.onnx"
    if damage == "missing":
        onnx.unlink()
    elif damage == "truncated":
        onnx.write_bytes(onnx.read_bytes()[:1000])
    else:
        data = bytearray(onnx.read_bytes())
        data[len(data) // 2] ^= 1
        onnx.write_bytes(bytes(data))
    with pytest.raises(EmbedderError, match="model.onnx"):
        BuiltinEmbedder(threads=1, model_dir=model_dir)


def test_import_is_cheap() -> None:
    code = "import sys, codebot.embed; print('onnxruntime' in sys.modules, 'numpy' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False"]


def test_the_optimized_graph_is_kept_per_machine_and_gives_the_same_vectors(tmp_path) -> None:
    """The first load saves onnxruntime's optimized graph under the user's cache directory (the
    sandboxed HOME's); later loads use it, bit for bit the shipped model's vectors; a saved graph
    that changed on disk is made again, never used."""
    texts = [
        "def get_debug_flag() -> bool:\n    return bool(os.environ.get('FLASK_DEBUG'))",
        "register a blueprint on the application",
        "class Session(dict):\n    modified = False",
    ]
    cache = Path(os.environ["XDG_CACHE_HOME"]) / "codebot" / "onnx"
    shutil.rmtree(cache, ignore_errors=True)
    first = BuiltinEmbedder(threads=1)
    saved = list(cache.glob("*.onnx"))
    assert len(saved) == 1 and saved[0].with_suffix(".json").is_file()
    before = first.embed_documents(texts)
    record = json.loads(saved[0].with_suffix(".json").read_text())
    again = BuiltinEmbedder(threads=1)
    assert np.array_equal(again.embed_documents(texts), before)
    assert json.loads(saved[0].with_suffix(".json").read_text()) == record  # used, not remade
    data = bytearray(saved[0].read_bytes())
    data[len(data) // 2] ^= 1  # a damaged saved graph (its stat changes with it)
    saved[0].write_bytes(bytes(data))
    third = BuiltinEmbedder(threads=1)
    assert np.array_equal(third.embed_documents(texts), before)
    assert json.loads(saved[0].with_suffix(".json").read_text())["sha256"] == record["sha256"]
    assert hashlib.sha256(saved[0].read_bytes()).hexdigest() == record["sha256"]  # made again

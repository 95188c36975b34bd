"""Renderings of an answer, the context packer and the repository map, on a small real program."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from codebot.core.config import Config
from codebot.index.build import build_index
from codebot.index.overlay import open_index
from codebot.query.answer import Answer, AnswerNode
from codebot.query.context import context_items, pack_context
from codebot.query.render import answer_doc, render, tree_lines
from codebot.query.repomap import focus_vector, rank_symbols, render_map, repo_map
from codebot.query.search import Searcher
from codebot.query.tokens import fit_text, token_counter

PIPELINE = {
    "train/cli.py": '''
from train.trainer import Trainer


def main():
    """Entry point: train a model."""
    Trainer().fit()
''',
    "train/trainer.py": '''
from train.data import build_dataset, make_loader


class Trainer:
    """Runs training epochs."""

    def fit(self):
        """Fit the model on the preprocessed data."""
        loader = self.get_dataloader()
        for batch in loader:
            self.step(batch)

    def get_dataloader(self):
        """The data loader over the training set."""
        return make_loader(build_dataset("train"))

    def step(self, batch):
        return batch
''',
    "train/data.py": '''
def build_dataset(split):
    """Load and preprocess the images of one split."""
    return [normalize(x) for x in load_images(split)]


def load_images(split):
    """Read image files from disk."""
    return list(range(10))


def normalize(x):
    """Scale pixel values to the unit interval."""
    return x / 255


def make_loader(dataset):
    """Batch a dataset."""
    return [dataset[i : i + 2] for i in range(0, len(dataset), 2)]
''',
    "util/log.py": '''
def log(msg):
    """Print a log message."""
    print(msg)


def warn(msg):
    log("warning: " + msg)
''',
}


@pytest.fixture
def indexed(make_repo, tmp_path):
    repo = make_repo(PIPELINE)
    config = Config(embedder="none", index_dir=str(tmp_path / "idx"))
    build_index(repo, config)
    index = open_index(repo, config)
    return repo, str(tmp_path / "idx"), Searcher(index, config)


def _node(index, sid: str, why: str, children=(), line=None) -> AnswerNode:
    row = index.by_id[sid]
    return AnswerNode(row, index.symbols[row], why, 1.0, line, list(children))


def _tree_answer(searcher) -> Answer:
    """An answer with a tree built by hand, so the renderers are tested apart from the graph stage."""
    ix = searcher.index
    leaf = _node(ix, "train.data.normalize", "neighbour", line=4)
    bridge = _node(ix, "train.data.build_dataset", "bridge", [leaf], line=16)
    root = _node(ix, "train.trainer.Trainer.get_dataloader", "hit", [bridge])
    hits = searcher.search("data loader preprocess images", k=5)
    return Answer("data loader preprocess images", hits, [root])


def test_tree_rendering(indexed):
    _, _, searcher = indexed
    lines = tree_lines(_tree_answer(searcher))
    assert lines[0] == "Trainer.get_dataloader  train/trainer.py:14  [hit]"
    assert lines[1] == "└── build_dataset  train/data.py:2  [bridge]"
    assert lines[2] == "    └── normalize  train/data.py:12  [neighbour]"
    # Without trees the tree format falls back to the flat list.
    flat = Answer("q", searcher.search("normalize", k=3))
    assert tree_lines(flat) == render(flat, "list").splitlines()


def test_list_markdown_and_json_follow_the_schema(indexed, validate):
    _, _, searcher = indexed
    answer = _tree_answer(searcher)
    listed = render(answer, "list").splitlines()
    assert len(listed) == len(answer.hits) and "train/" in listed[0]
    md = render(answer, "markdown")
    assert "```text" in md and "| # | symbol |" in md and "[bridge]" in md
    doc = json.loads(render(answer, "json"))
    validate(doc, "answer.schema.json")
    assert doc["trees"][0]["children"][0]["why"] == "bridge"
    assert doc["trees"][0]["children"][0]["call_line"] == 16
    validate(answer_doc(Answer("q", [])), "answer.schema.json")


def test_answer_with_and_without_the_graph_stage(indexed, validate):
    _, _, searcher = indexed
    answer = searcher.answer("build the dataset", k=5)
    assert answer.hits and answer.query == "build the dataset"
    validate(answer_doc(answer), "answer.schema.json")
    flat = searcher.answer("build the dataset", k=5, graph=False)
    assert [h.id for h in flat.hits]


@pytest.mark.parametrize("counter_name", ["wordpiece", "chars"])
def test_context_respects_every_budget_exactly(indexed, counter_name):
    _, _, searcher = indexed
    counter = token_counter(counter_name)
    answer = _tree_answer(searcher)
    ids = [s.id for s, _ in context_items(answer)]
    assert len(ids) == len(set(ids))
    sizes = []
    for budget in (1, 5, 20, 50, 80, 120, 200, 400, 1000, 5000):
        for fmt in ("markdown", "text"):
            packed = pack_context(searcher.index, answer, budget, counter, fmt)
            assert packed.tokens == counter.count(packed.text) <= budget, (budget, fmt)
            sizes.append((budget, fmt, len(packed.items)))
    by_budget = {b: n for b, f, n in sizes if f == "markdown"}
    assert by_budget[5000] >= by_budget[400] >= by_budget[50]
    big = pack_context(searcher.index, answer, 5000, counter)
    assert all(i["shown"] == "full" for i in big.items)
    assert "train/data.py:12-14" in big.text
    # A tight budget shows signatures, or excerpts of long bodies, for what does not fit in full.
    shown = {
        i["shown"]
        for b in (60, 90, 150)
        for i in pack_context(searcher.index, answer, b, counter).items
    }
    assert shown & {"signature", "excerpt"}


def test_fit_text_never_exceeds():
    counter = token_counter("wordpiece")
    text = "def f(x):\n    return x + 1\n" * 30
    for budget in (0, 1, 3, 17, 100):
        assert counter.count(fit_text(text, budget, counter)) <= budget


def test_map_budget_is_exact_and_the_focus_changes_the_ranking(indexed):
    _, _, searcher = indexed
    index = searcher.index
    counter = token_counter()
    for budget in (1, 10, 30, 60, 100, 200, 10_000):
        m = repo_map(index, budget, counter)
        assert m.tokens == counter.count(m.text) <= budget
        if m.symbols < m.ranked:  # maximal: one more symbol would not fit
            more = render_map(index, rank_symbols(index)[: m.symbols + 1])
            assert counter.count(more) > budget
    full = repo_map(index, 10_000, counter)
    assert full.symbols == full.ranked and "train/data.py:" in full.text
    data = [
        index.symbols[r].path for r in rank_symbols(index, focus_vector(index, "train/data.py"))
    ]
    focused = [
        index.symbols[r].path for r in rank_symbols(index, focus_vector(index, "util/log.py"))
    ]
    assert data[0] == "train/data.py" and focused[0] == "util/log.py"
    by_query = rank_symbols(index, focus_vector(index, "warning message", searcher))
    assert index.symbols[by_query[0]].path == "util/log.py"


def test_personalized_pagerank():
    import numpy as np

    from codebot.graph.analytics import pagerank

    src, dst = np.array([0, 1, 2, 2, 3]), np.array([1, 2, 0, 3, 4])
    # Uniform teleport (no personalization, or all zero): the index-time PageRank exactly.
    plain = pagerank(5, src, dst)
    assert np.array_equal(pagerank(5, src, dst, np.zeros(5)), plain)
    assert np.allclose(pagerank(5, src, dst, np.ones(5)), plain, atol=1e-12)
    # Teleport on 3 and 4 only: 0, 1 and 2 are unreachable from there and get nothing.
    ours = pagerank(5, src, dst, np.array([0.0, 0.0, 0.0, 1.0, 1.0]), tol=1e-9, max_iter=200)
    assert np.allclose(ours[:3], 0) and ours.sum() == pytest.approx(1.0)
    assert ours[4] > ours[3]


def run(*args: str, cwd) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "codebot.serve.cli", *args], capture_output=True, text=True, cwd=cwd
    )


def test_cli_search_context_and_map(indexed, validate):
    repo, index_dir, _ = indexed
    d = ("--index-dir", index_dir)
    out = run("search", "preprocess images", "--format", "json", *d, cwd=repo)
    assert out.returncode == 0, out.stderr
    validate(json.loads(out.stdout), "answer.schema.json")
    out = run("search", "preprocess images", "--json", *d, cwd=repo)
    validate(json.loads(out.stdout), "search-result.schema.json")
    for fmt in ("tree", "list", "markdown"):
        out = run("search", "preprocess images", "--format", fmt, *d, cwd=repo)
        assert out.returncode == 0 and "train/data.py" in out.stdout, out.stderr
    out = run("search", "preprocess images", "--no-graph", *d, cwd=repo)
    assert out.returncode == 0 and out.stdout.split()[1].startswith("train/data.py:")

    for budget in ("40", "300"):
        out = run(
            "context", "preprocess images", "--tokens", budget, "--format", "json", *d, cwd=repo
        )
        assert out.returncode == 0, out.stderr
        doc = json.loads(out.stdout)
        assert doc["tokens"] <= int(budget) and doc["tokenizer"]
        assert token_counter().count(doc["text"]) == doc["tokens"]
    out = run("context", "preprocess images", "--tokens", "300", *d, cwd=repo)
    assert "tokens counted with" in out.stderr and "train/data.py" in out.stdout
    assert token_counter().count(out.stdout.removesuffix("\n") + "\n") <= 301

    out = run("map", "--tokens", "50", "--focus", "util/log.py", "--json", *d, cwd=repo)
    doc = json.loads(out.stdout)
    assert doc["tokens"] <= 50 and doc["results"][0]["path"] == "util/log.py"
    out = run("map", *d, cwd=repo)
    assert out.returncode == 0 and "train/trainer.py:" in out.stdout

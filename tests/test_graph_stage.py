"""The graph stage on a small real program: a workflow question answers with its call chain."""

from __future__ import annotations

import pytest

from codebot.core.config import Config
from codebot.index.build import build_index
from codebot.index.overlay import open_index
from codebot.query.search import AnswerNode, Searcher

from .fakes import HashingEmbedder

# A training workflow: main -> run_training_pipeline -> (load, _relay -> _hop) -> normalize.
# ``_relay`` and ``_hop`` share no word with the question: only the graph can find them.
PROGRAM = {
    "trainer/cli.py": '''
"""Command line entry point for model training."""
import sys

from trainer.pipeline import run_training_pipeline


def main(argv):
    """Train the model: read the training config and run the training data pipeline."""
    config = {"path": argv[1]}
    return run_training_pipeline(config)
''',
    "trainer/pipeline.py": '''
"""The training pipeline."""
from trainer.steps import _relay, load_training_data


def run_training_pipeline(config):
    """Run the training data preprocessing pipeline for the model."""
    data = load_training_data(config)
    batches = _relay(data)
    return batches
''',
    "trainer/steps.py": '''
"""Plumbing between stages."""
from trainer.preprocess import normalize_training_images


def _hop(x):
    return normalize_training_images(x)


def _relay(x):
    return _hop(x)


def load_training_data(config):
    """Load the raw training data images from disk for preprocessing."""
    return open(config["path"]).read()
''',
    "trainer/preprocess.py": '''
"""Preprocessing of training data."""


def normalize_training_images(batch):
    """Data preprocessing step: normalize training images pixel values to zero mean."""
    return [(x - 128) / 255 for x in batch]
''',
    "trainer/report.py": '''
"""Reports about training runs."""


def print_training_summary(history):
    """Print a summary of the training loss history."""
    for epoch, loss in enumerate(history):
        print(epoch, loss)


def plot_training_loss(history):
    """Plot the training loss curve of the model."""
    return list(history)


def export_model_weights(model, path):
    """Write the trained model weights to a file."""
    open(path, "w").write(str(model))
''',
    "trainer/walk.py": '''
"""A recursive walk over a tree of nodes."""


def walk_tree(node):
    """Walk the tree of nodes depth first, visiting each node."""
    for child in node.children:
        visit_node(child)


def visit_node(node):
    """Visit one node of the tree and walk its subtree."""
    if node.children:
        walk_tree(node)
''',
}

QUESTION = "what are the data preprocessing steps in model training"


@pytest.fixture
def searcher(make_repo) -> Searcher:
    repo = make_repo(PROGRAM)
    embedder = HashingEmbedder()
    build_index(repo, Config(), embedder=embedder)
    return Searcher(open_index(repo, Config()), Config(), embedder=embedder)


def walk(node: AnswerNode):
    yield node
    for child in node.children:
        yield from walk(child)


def find(tree: AnswerNode, name: str) -> AnswerNode | None:
    return next((n for n in walk(tree) if n.symbol.name == name), None)


def path_to(tree: AnswerNode, name: str) -> list[str]:
    """Names from the root down to ``name`` (empty when it is not in the tree)."""

    def go(node: AnswerNode, trail: list[str]) -> list[str]:
        trail = trail + [node.symbol.name]
        if node.symbol.name == name:
            return trail
        for child in node.children:
            if found := go(child, trail):
                return found
        return []

    return go(tree, [])


def test_workflow_question_returns_the_chain_with_its_bridges(searcher: Searcher) -> None:
    flat = [h.symbol.name for h in searcher.search(QUESTION, k=5)]
    # Neither retriever ranks the plumbing: it shares no word with the question.
    assert "_relay" not in flat and "_hop" not in flat
    answer = searcher.answer(QUESTION, k=5)
    best = answer.trees[0]
    assert path_to(best, "normalize_training_images") == [
        "main",
        "run_training_pipeline",
        "_relay",
        "_hop",
        "normalize_training_images",
    ]
    assert find(best, "_relay").why == "bridge"
    # _hop's body names the leaf, so BM25 may rank it as a weak hit: either way it is in the chain.
    assert find(best, "_hop").why in ("bridge", "hit")
    assert find(best, "main").why == "hit"
    assert find(best, "normalize_training_images").why == "hit"
    assert best.call_line is None
    assert find(best, "_relay").call_line == 9  # the line of the call in run_training_pipeline
    # The flat list is still the hits, each with its reason.
    assert answer.hits and all(h.why in ("hit", "neighbour", "bridge") for h in answer.hits)
    assert answer.hits[0].why == "hit"


def test_children_follow_the_call_lines(searcher: Searcher) -> None:
    best = searcher.answer(QUESTION, k=5).trees[0]
    pipeline = find(best, "run_training_pipeline")
    names = [c.symbol.name for c in pipeline.children]
    # load_training_data (line 8) before _relay (line 9), though _relay is defined first.
    assert names == ["load_training_data", "_relay"]
    assert [c.call_line for c in pipeline.children] == [8, 9]


def test_a_cycle_is_marked_not_followed(searcher: Searcher) -> None:
    answer = searcher.answer("walk the tree visit each node", k=5)
    tree = next(t for t in answer.trees if find(t, "walk_tree") and find(t, "visit_node"))
    marks = [n.mark for n in walk(tree)]
    assert "cycle" in marks
    assert len(list(walk(tree))) == 3  # walk_tree -> visit_node -> walk_tree (cycle), no further


def test_without_the_graph_the_answer_is_the_search(searcher: Searcher) -> None:
    answer = searcher.answer(QUESTION, k=5, graph=False)
    assert answer.trees == []
    assert [h.id for h in answer.hits] == [h.id for h in searcher.search(QUESTION, k=5)]
    assert all(h.why == "hit" for h in answer.hits)


def test_graph_stage_keeps_the_strong_hits_and_k(searcher: Searcher) -> None:
    plain = searcher.search(QUESTION, k=5)
    answer = searcher.answer(QUESTION, k=5)
    assert len(answer.hits) == 5
    assert answer.hits[0].id == plain[0].id  # mild rerank: the best hit stays first

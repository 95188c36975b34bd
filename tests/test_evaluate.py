"""codebot.query.evaluate: metric values worked out by hand, both query-set formats, clear load errors."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path

import pytest

from codebot.core.errors import EvalError
from codebot.query.evaluate import (
    EvalQuery,
    Target,
    evaluate,
    load_queries,
    parse_target,
)


@dataclass(frozen=True)
class R:
    path: str
    start_line: int = 1
    end_line: int = 100
    id: str = ""


def run(targets, results, secondary=(), indexed=None, category=None):
    """Evaluate one query whose search returns ``results``; the only QueryResult."""
    q = EvalQuery("q", tuple(targets), tuple(secondary), category)
    return evaluate([q], lambda _: results, indexed=indexed).results[0]


def inv(rank: int) -> float:
    return 1 / math.log2(rank + 1)


def test_file_target_at_rank_3():
    r = run([Target("src/a.py")], [R("src/x.py"), R("src/y.py"), R("src/a.py")])
    assert r.ranks == (3,)
    assert r.ndcg10 == pytest.approx(0.5)  # 1/log2(4)
    assert r.rr10 == pytest.approx(1 / 3)
    assert (r.recall(5), r.recall(10), r.hit) == (1.0, 1.0, True)


def test_path_suffix_on_a_slash_boundary():
    assert Target("app.py").covered_by(R("src/flask/app.py"))
    assert Target("flask/app.py").covered_by(R("./src\\flask\\app.py"))
    assert not Target("app.py").covered_by(R("src/myapp.py"))
    assert not Target("src/flask/app.py").covered_by(R("flask/app.py"))


def test_line_range_target_needs_overlap():
    t = Target("a.py", 10, 20)
    results = [R("a.py", 1, 9), R("a.py", 21, 40), R("a.py", 20, 30)]
    r = run([t], results)
    assert r.ranks == (3,)
    assert r.ndcg10 == pytest.approx(0.5)
    assert Target("a.py", 10, 20).covered_by(R("a.py", 5, 10))
    assert Target("a.py", 10, 20).covered_by(R("a.py", 12, 14))


def test_results_from_the_same_file_count_once_with_secondary_targets():
    # relevant a.py first covered at rank 2 (rank 3 is the same file again), secondary b.py at 4.
    results = [R("x.py"), R("a.py"), R("a.py"), R("b.py")]
    r = run([Target("a.py")], results, secondary=[Target("b.py")])
    assert r.ranks == (2, 4)
    assert r.ndcg10 == pytest.approx((inv(2) + inv(4)) / (inv(1) + inv(2)))
    assert r.rr10 == pytest.approx(0.5)
    assert r.recall(5) == 1.0


def test_secondary_weighs_the_same_as_relevant():
    a = run([Target("a.py")], [R("b.py"), R("a.py")], secondary=[Target("b.py")])
    b = run([Target("b.py")], [R("b.py"), R("a.py")], secondary=[Target("a.py")])
    assert a.ndcg10 == b.ndcg10 == pytest.approx(1.0)


def test_one_result_covering_two_targets_fills_one_position():
    # As semble does: both ranks are 1, the DCG counts position 1 once, the ideal has two.
    r = run([Target("a.py", 1, 5), Target("a.py", 6, 9)], [R("a.py", 1, 50)])
    assert r.ranks == (1, 1)
    assert r.ndcg10 == pytest.approx(1 / (1 + inv(2)))
    assert r.recall(10) == 1.0


def test_no_results_is_a_miss():
    q = EvalQuery("where", (Target("a.py"),), (), "semantic")
    report = evaluate([q], lambda _: [])
    r = report.results[0]
    assert (r.ndcg10, r.rr10, r.recall(5), r.hit) == (0.0, 0.0, 0.0, False)
    assert report.misses == [r]
    assert "misses (1" in report.format_text() and "got      nothing" in report.format_text()


def test_found_past_rank_10_scores_nothing():
    results = [R(f"x{i}.py") for i in range(10)] + [R("a.py")]
    r = run([Target("a.py")], results)
    assert r.ranks == (11,)
    assert (r.ndcg10, r.recall(10), r.rr10, r.hit) == (0.0, 0.0, 0.0, False)


def test_more_than_10_targets_ideal_uses_10():
    targets = [Target(f"t{i}.py") for i in range(12)]
    r = run(targets, [R(f"t{i}.py") for i in range(12)])
    assert r.ndcg10 == pytest.approx(1.0)
    assert r.recall(5) == pytest.approx(5 / 12)
    assert r.recall(10) == pytest.approx(10 / 12)


def test_symbol_target_matches_the_id_exactly():
    t = parse_target("pkg.mod.Class.method")
    assert t.symbol == "pkg.mod.Class.method"
    results = [R("pkg/mod.py", id="pkg.mod.Class"), R("pkg/mod.py", id="pkg.mod.Class.method")]
    assert run([t], results).ranks == (2,)


def test_unindexed_targets_leave_the_denominator():
    targets = [Target("a.py"), Target("gone.py")]
    everything = run(targets, [R("a.py")])
    indexed = run(targets, [R("a.py")], indexed=lambda t: t.path != "gone.py")
    assert everything.ndcg10 == pytest.approx(1 / (1 + inv(2)))
    assert indexed.ndcg10 == 1.0 and indexed.counted == (True, False)
    # Found means indexed, whatever the predicate says.
    assert run([Target("a.py")], [R("a.py")], indexed=lambda t: False).ndcg10 == 1.0


def test_report_means_and_categories(validate):
    qs = [
        EvalQuery("one", (Target("a.py"),), (), "symbol"),
        EvalQuery("two", (Target("b.py"),), (), "semantic"),
        EvalQuery("three", (Target("c.py"),), (), "semantic"),
    ]
    answers = {"one": [R("a.py")], "two": [R("x.py"), R("y.py"), R("b.py")], "three": []}
    report = evaluate(qs, lambda q: answers[q])
    assert report.overall.queries == 3
    assert report.overall.ndcg10 == pytest.approx((1 + 0.5 + 0) / 3)
    assert report.overall.mrr10 == pytest.approx((1 + 1 / 3) / 3)
    assert report.overall.misses == 1
    assert report.by_category["semantic"].ndcg10 == pytest.approx(0.25)
    assert report.by_category["symbol"].ndcg10 == 1.0
    assert report.overall.p95_ms >= report.overall.p50_ms >= 0
    data = report.to_dict()
    validate(json.loads(json.dumps(data)), "eval-report.schema.json")
    assert data["misses"][0]["query"] == "three"
    assert data["queries"][1]["targets"][0]["rank"] == 3
    validate(report.to_dict(returned=0), "eval-report.schema.json")
    text = report.format_text()
    assert "semantic" in text and "0.500" in text


# ------------------------------------------------------------------------------------ loading


def test_jsonl_query_set(tmp_path: Path, validate):
    records = [
        {"query": "route registration", "expected": ["src/flask/app.py"], "category": "semantic"},
        {"query": "Flask", "expected": [{"path": "app.py", "start_line": 3, "end_line": 9}]},
        {"query": "run", "expected": ["flask.app.Flask.run", "Core.hs", {"symbol": "setup.py"}]},
    ]
    for rec in records:
        validate(rec, "eval-queries.schema.json")
    path = tmp_path / "q.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in records) + "\n\n")
    qs = load_queries(path)
    assert [q.category for q in qs] == ["semantic", None, None]
    assert qs[0].relevant == (Target("src/flask/app.py"),)
    assert qs[1].relevant == (Target("app.py", 3, 9),)
    assert qs[2].relevant == (
        Target(symbol="flask.app.Flask.run"),
        Target("Core.hs"),
        Target(symbol="setup.py"),
    )


def test_semble_annotation_file(tmp_path: Path):
    records = [
        {
            "query": "how are routes registered",
            "relevant": ["src/flask/sansio/scaffold.py"],
            "secondary": ["src/flask/sansio/app.py"],
            "category": "architecture",
        },
        {
            "query": "Rails::Engine",
            "relevant": [{"path": "lib/engine.rb", "start_line": 348, "end_line": 387}],
            "secondary": [],
            "category": "symbol",
            "seed": {"path": "lib/engine.rb", "line": 73},
            "related": ["lib/x.rb"],
        },
    ]
    path = tmp_path / "flask.json"
    path.write_text(json.dumps(records, indent=2))
    qs = load_queries(path)
    assert qs[0].targets == (
        Target("src/flask/sansio/scaffold.py"),
        Target("src/flask/sansio/app.py"),
    )
    assert qs[1].relevant == (Target("lib/engine.rb", 348, 387),) and qs[1].category == "symbol"


def test_reads_the_real_semble_annotations():
    root = Path("/work/shared/bench/semble/annotations")
    if not root.is_dir():
        pytest.skip("semble annotations not available")
    assert sum(len(load_queries(p)) for p in root.glob("*.json")) == 1251


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"query": "a", "expected": ["a.py"]}\n{"query": "b"\n', "q.jsonl:2: invalid JSON"),
        ('\n{"query": "b"}\n', "q.jsonl:2: missing 'expected'"),
        ('{"query": "b", "expected": []}', "q.jsonl:1: no targets"),
        ('{"query": "b", "expected": ["a.py"], "tags": []}', "q.jsonl:1: unknown key(s): tags"),
        ('{"query": "", "expected": ["a.py"]}', "'query' must be a non-empty string"),
        (
            '{"query": "b", "expected": [{"path": "a.py", "start_line": 9, "end_line": 3}]}',
            "q.jsonl:1: 'expected'[0]: start_line 9 is after end_line 3",
        ),
        (
            '{"query": "b", "expected": [{"path": "a.py", "start_line": 9}]}',
            "give both start_line and end_line",
        ),
        ('{"query": "b", "expected": [3]}', "a target is a string or an object, not int"),
        (
            '[{"query": "ok", "relevant": ["a.py"]}, {"query": "bad"}]',
            "record 1 ('bad'): missing 'relevant'",
        ),
        ('[{"query": "x", "relevant": "a.py"}]', "record 0 ('x'): 'relevant' must be a list"),
        ("[1, 2", "q.jsonl:1: invalid JSON"),
        ("\n\n", "no queries"),
    ],
)
def test_bad_query_sets_name_file_and_line(tmp_path: Path, text: str, message: str):
    path = tmp_path / "q.jsonl"
    path.write_text(text)
    with pytest.raises(EvalError) as exc:
        load_queries(path)
    assert message in str(exc.value)
    assert str(path) in str(exc.value)


def test_missing_file(tmp_path: Path):
    with pytest.raises(EvalError, match="cannot read query set"):
        load_queries(tmp_path / "nope.jsonl")

"""The code graph: persistence, queries, analytics, and the graph commands on a real repository."""

from __future__ import annotations

import json

import numpy as np
import pytest
from click.testing import CliRunner

from codebot.core.config import Config
from codebot.core.errors import StoreError
from codebot.core.model import Edge, Symbol
from codebot.graph.analytics import build_graph, detect_communities, pagerank
from codebot.graph.callgraph import GRAPH_FILE, CodeGraph
from codebot.graph.io import load_graph, pack_graph, save_graph, unpack_graph
from codebot.index.build import build_index
from codebot.index.overlay import open_index
from codebot.serve.cli import main


def sym(sid: str, kind: str = "function", path: str | None = None, line: int = 1) -> Symbol:
    module, _, name = sid.rpartition(".")
    path = path or module.replace(".", "/") + ".py"
    return Symbol(sid, name, kind, "python", path, line, line + 2)


def calls(*pairs: tuple[str, str, int], resolution: str = "exact") -> list[Edge]:
    return [Edge(a, b, "calls", line, resolution) for a, b, line in pairs]


# A small hand-made graph: main -> (log@6, run@7); run -> (step@5, log@6); step -> (again@10,
# helper@11); again -> step@15 (a cycle); Service.start -> (load, log); unused calls nobody.
SYMBOLS = [
    sym("app.main.main"),
    sym("app.pipeline.run"),
    sym("app.pipeline.step"),
    sym("app.pipeline.again"),
    sym("app.pipeline.helper"),
    sym("app.util.log"),
    sym("app.util.unused"),
    sym("app.service.Service", "class"),
    sym("app.service.Service.start", "method", "app/service.py"),
    sym("app.service.Service.load", "method", "app/service.py"),
]
EDGES = [
    *calls(
        ("app.main.main", "app.util.log", 6),
        ("app.main.main", "app.pipeline.run", 7),
        ("app.pipeline.run", "app.pipeline.step", 5),
        ("app.pipeline.run", "app.util.log", 6),
        ("app.pipeline.step", "app.pipeline.again", 10),
        ("app.pipeline.step", "app.pipeline.helper", 11),
        ("app.pipeline.again", "app.pipeline.step", 15),
        ("app.service.Service.start", "app.service.Service.load", 5),
    ),
    *calls(("app.service.Service.start", "app.util.log", 6), resolution="unique_name"),
    Edge("app.service.Service", "app.service.Service.start", "contains", 4),
    Edge("app.service.Service", "app.service.Service.load", "contains", 8),
    Edge("app.main.main", "app.nowhere.gone", "calls", 3),  # an end outside the table: dropped
]
ROW = {s.id: i for i, s in enumerate(SYMBOLS)}


@pytest.fixture(scope="module")
def graph() -> CodeGraph:
    return build_graph(SYMBOLS, EDGES, {"app.util.log": 1}, {"app.main.main": 2})


def ids(rows) -> list[str]:
    return [SYMBOLS[r].id.rsplit(".", 1)[-1] for r in rows]


# --- the graph itself -----------------------------------------------------------------------------


def test_round_trip_is_lossless(graph, tmp_path):
    save_graph(graph, tmp_path / GRAPH_FILE)
    back = load_graph(tmp_path / GRAPH_FILE)
    for name in (
        "src", "dst", "kind", "resolution", "line", "external", "unresolved", "pagerank",
        "community", "entry_points", "leaves", "isolated",
    ):  # fmt: skip
        assert np.array_equal(getattr(back, name), getattr(graph, name)), name
        assert getattr(back, name).dtype == getattr(graph, name).dtype, name
    assert back.n == graph.n and back.communities == graph.communities and back.meta == graph.meta
    assert back.to_edges(SYMBOLS) == graph.to_edges(SYMBOLS)
    assert pack_graph(back) == pack_graph(graph)
    assert {(e.src, e.dst, e.kind, e.line, e.resolution) for e in back.to_edges(SYMBOLS)} == {
        (e.src, e.dst, e.kind, e.line, e.resolution) for e in EDGES if e.dst != "app.nowhere.gone"
    }
    assert graph.meta["dropped_edges"] == 1


def test_counts_and_degrees(graph):
    assert len(graph) == 11
    assert graph.count("calls") == 9 and graph.count("contains") == 2
    assert graph.count("calls", "unique_name") == 1
    assert graph.external[ROW["app.util.log"]] == 1 and graph.unresolved[ROW["app.main.main"]] == 2


def test_a_bad_or_missing_file_is_a_store_error(graph, tmp_path):
    with pytest.raises(StoreError, match="rebuild"):
        load_graph(tmp_path / "nothing.msgpack")
    import msgpack

    data = msgpack.unpackb(pack_graph(graph))
    data["format"] = 99
    with pytest.raises(StoreError, match="upgrade codebot"):
        unpack_graph(msgpack.packb(data))
    with pytest.raises(StoreError, match="unreadable"):
        unpack_graph(b"\xc1garbage")
    data["format"] = 1
    for damage in (
        {"src": data["src"][:-4]},
        {"dst": np.full(len(graph), 99, dtype="<i4").tobytes()},
        {"pagerank": b""},
        {"kinds": ["calls", "teleports"]},
    ):
        with pytest.raises(StoreError, match="unreadable call graph"):
            unpack_graph(msgpack.packb({**data, **damage}))
    del data["leaves"]
    with pytest.raises(StoreError, match="KeyError"):
        unpack_graph(msgpack.packb(data))


def test_callers_and_callees_by_depth(graph):
    log, step = ROW["app.util.log"], ROW["app.pipeline.step"]
    assert ids(n.row for n in graph.callers(log)) == ["main", "run", "start"]
    two = graph.callers(log, depth=2)
    # main also calls run, but it is already at depth 1: every symbol once, at its nearest.
    assert [(SYMBOLS[n.row].name, n.depth, SYMBOLS[n.via].name) for n in two] == [
        ("main", 1, "log"),
        ("run", 1, "log"),
        ("start", 1, "log"),
    ]
    assert next(n for n in two if n.row == ROW["app.service.Service.start"]).resolution == (
        "unique_name"
    )
    assert ids(n.row for n in graph.callees(step)) == ["again", "helper"]
    deep = graph.callees(ROW["app.main.main"], depth=3)
    assert [(SYMBOLS[n.row].name, n.depth) for n in deep] == [
        ("log", 1), ("run", 1), ("step", 2), ("again", 3), ("helper", 3),
    ]  # fmt: skip
    assert deep[2].line == 5 and SYMBOLS[deep[2].via].name == "run"


def test_chain_orders_by_call_line_and_marks_cycles(graph):
    tree = graph.chain(ROW["app.main.main"], depth=5)
    flat = []

    def walk(node, level):
        flat.append((level, SYMBOLS[node.row].name, node.line, node.mark))
        for c in node.children:
            walk(c, level + 1)

    walk(tree, 0)
    assert flat == [
        (0, "main", None, None),
        (1, "log", 6, None),
        (1, "run", 7, None),
        (2, "step", 5, None),
        (3, "again", 10, None),
        (4, "step", 15, "cycle"),
        (3, "helper", 11, None),
        (2, "log", 6, None),  # a leaf: nothing to repeat
    ]
    assert tree.size() == 8


def test_chain_depth_bound_and_repeats(graph):
    tree = graph.chain(ROW["app.main.main"], depth=2)
    step = tree.children[1].children[0]
    assert SYMBOLS[step.row].name == "step" and step.mark == "depth" and step.children == []
    # `run` is expanded under main; a second root that reaches it twice marks the repeat.
    edges = EDGES + calls(
        ("app.util.unused", "app.main.main", 1), ("app.util.unused", "app.pipeline.run", 2)
    )
    g = build_graph(SYMBOLS, edges, analyze=False)
    tree = g.chain(ROW["app.util.unused"], depth=6)
    assert [(SYMBOLS[c.row].name, c.mark) for c in tree.children] == [
        ("main", None),
        ("run", "repeat"),
    ]
    small = g.chain(ROW["app.util.unused"], depth=6, max_nodes=3)
    assert small.size() == 3 and small.mark == "limit" and small.children[0].mark == "limit"


def test_entry_points_leaves_isolated(graph):
    assert ids(graph.entry_points) == ["main", "start"]
    assert ids(graph.leaves) == ["helper", "log", "load"]
    assert ids(graph.isolated) == ["unused"]  # the class is not a function: not counted


def test_pagerank_matches_the_closed_form():
    # PageRank as networkx defines it, solved exactly: x = (1 - a)/n * (I - a P^T)^-1 1, where P is
    # the row-stochastic transition matrix with dangling rows spread uniformly.
    n, alpha = 300, 0.85
    rng = np.random.default_rng(1)
    pairs = np.unique(rng.integers(0, n, 2000) * n + rng.integers(0, n, 2000))
    pairs = pairs[: len(pairs) - 40]  # leave some rows without out-edges (dangling)
    src, dst = pairs // n, pairs % n
    p = np.zeros((n, n))
    p[src, dst] = 1.0
    out = p.sum(axis=1)
    p[out == 0] = 1.0 / n
    p[out > 0] /= out[out > 0, None]
    exact = np.linalg.solve(np.eye(n) - alpha * p.T, np.full(n, (1 - alpha) / n))
    ours = pagerank(n, src, dst, alpha=alpha, tol=1e-12, max_iter=1000)
    assert (out == 0).any() and np.allclose(ours, exact, atol=1e-9)
    assert ours.sum() == pytest.approx(1.0)


def test_pagerank_ranks_the_most_called_highest(graph):
    top = int(np.argmax(graph.pagerank))
    assert SYMBOLS[top].name in ("log", "step")
    assert graph.pagerank[ROW["app.util.log"]] > graph.pagerank[ROW["app.util.unused"]]


def test_communities_split_two_clusters():
    # Two dense clusters joined by one edge; every symbol gets a label, deterministic.
    a = [sym(f"a.m.f{i}", path="a/m.py", line=i * 3 + 1) for i in range(6)]
    b = [sym(f"b.m.g{i}", path="b/m.py", line=i * 3 + 1) for i in range(6)]
    symbols = a + b + [sym("c.lonely")]
    edges = [Edge(x.id, y.id, "calls", 1) for grp in (a, b) for x in grp for y in grp if x != y]
    edges.append(Edge(a[0].id, b[0].id, "calls", 2))
    g = build_graph(symbols, edges)
    assert g.meta["community_method"] == "louvain"
    assert len(g.communities) == 2 and [c.size for c in g.communities] == [6, 6]
    assert len(set(g.community[:6].tolist())) == 1 and len(set(g.community[6:12].tolist())) == 1
    assert g.community[0] != g.community[6] and g.community[12] == -1
    first = g.communities[g.community[0]]
    assert first.paths == (("a/m.py", 6),) and len(first.central) == 5
    assert pack_graph(g) == pack_graph(build_graph(symbols, edges))  # the same graph, same bytes
    # Above the size bound the fallback still finds the two clusters.
    src = np.array([symbols.index(next(s for s in symbols if s.id == e.src)) for e in edges])
    dst = np.array([symbols.index(next(s for s in symbols if s.id == e.dst)) for e in edges])
    labels, method = detect_communities(13, src, dst, max_louvain_edges=1)
    assert method == "label_propagation"
    assert len(set(labels[:6].tolist())) == 1 and labels[0] != labels[6]
    # Above the networkx bound, the numpy label propagation (a monorepo's million symbols).
    labels, method = detect_communities(13, src, dst, max_louvain_edges=1, max_networkx_edges=1)
    assert method == "label_propagation_numpy"
    assert len(set(labels[:6].tolist())) == 1 and len(set(labels[6:12].tolist())) == 1
    assert labels[0] != labels[6] and labels[12] == -1
    again, _ = detect_communities(13, src, dst, max_louvain_edges=1, max_networkx_edges=1)
    assert (again == labels).all()


def test_empty_graph():
    g = build_graph([sym("a.f")], [])
    assert len(g) == 0 and g.callers(0) == [] and g.chain(0).children == []
    assert g.meta["community_method"] == "none" and list(g.isolated) == [0]
    assert unpack_graph(pack_graph(g)).n == 1
    assert build_graph([], []).n == 0


def test_networkx_view_and_neighborhood(graph):
    g = graph.to_networkx()
    assert g.number_of_nodes() == len(SYMBOLS) and g.number_of_edges() == 9
    start, log = ROW["app.service.Service.start"], ROW["app.util.log"]
    assert g[start][log]["resolution"] == "unique_name"
    assert graph.to_networkx() is g  # built once
    assert graph.to_networkx(["contains"]).number_of_edges() == 2
    around = graph.neighborhood([ROW["app.pipeline.helper"]], depth=1)
    assert ids(around) == ["step", "helper"]
    assert len(graph.edges_among(around)) == 1


# --- on a real repository, through the index and the CLI ------------------------------------------

REPO = {
    "app/__init__.py": "",
    "app/main.py": (
        "from app.pipeline import run\n"
        "from app.util import log\n"
        "\n"
        "\n"
        "def main():\n"
        '    log("start")\n'
        "    run(3)\n"
    ),
    "app/pipeline.py": (
        "from app.util import log\n"
        "\n"
        "\n"
        "def run(n):\n"
        "    step(n)\n"
        '    log("done")\n'
        "\n"
        "\n"
        "def step(n):\n"
        "    if n > 0:\n"
        "        again(n - 1)\n"
        "    return helper(n)\n"
        "\n"
        "\n"
        "def again(n):\n"
        "    return step(n)\n"
        "\n"
        "\n"
        "def helper(n):\n"
        "    return n * 2\n"
    ),
    "app/service.py": (
        "from app.util import log\n"
        "\n"
        "\n"
        "class Service:\n"
        "    def start(self):\n"
        "        self.load()\n"
        '        log("started")\n'
        "\n"
        "    def load(self):\n"
        "        return 1\n"
    ),
    "app/util.py": (
        "def log(message):\n"
        "    print(message)\n"
        "\n"
        "\n"
        "def unused():\n"
        "    return 0\n"
        "\n"
        "\n"
        "def helper():\n"
        "    return 1\n"
    ),
    "tests/test_app.py": "from app.main import main\n\n\ndef test_main():\n    main()\n",
}


@pytest.fixture
def indexed(make_repo, monkeypatch):
    repo = make_repo(REPO)
    report = build_index(repo, Config(embedder="none"))
    monkeypatch.chdir(repo)
    return repo, report


def cli(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.output


def test_index_writes_the_graph(indexed, validate):
    repo, report = indexed
    counts = report.manifest.counts
    assert counts["edges"] >= 9 and counts["external_calls"] >= 1
    assert "graph" in report.timings
    index = open_index(repo, Config())
    assert (index.gen_dir / GRAPH_FILE).is_file()
    got = {(e.src, e.dst, e.line) for e in index.graph.to_edges(index.symbols, ["calls"])}
    assert {
        ("app.main.main", "app.util.log", 6),
        ("app.main.main", "app.pipeline.run", 7),
        ("app.pipeline.step", "app.pipeline.again", 11),
        ("app.pipeline.step", "app.pipeline.helper", 12),  # not app.util.helper
        ("app.pipeline.again", "app.pipeline.step", 16),
        ("app.service.Service.start", "app.service.Service.load", 6),
        ("tests.test_app.test_main", "app.main.main", 5),
    } <= got
    validate(json.loads((index.index_dir / "manifest.json").read_text()), "manifest.schema.json")


def test_an_index_without_a_graph_says_rebuild(indexed):
    repo, _ = indexed
    index = open_index(repo, Config())
    (index.gen_dir / GRAPH_FILE).unlink()
    with pytest.raises(StoreError, match="rebuild it with: codebot index"):
        _ = index.graph
    code, out = cli("callers", "log")
    assert code == 1 and "no call graph" in out


def test_callers_and_callees_commands(indexed, validate):
    code, out = cli("callers", "app.util.log")
    assert code == 0, out
    assert "app.main.main  app/main.py:5  call at app/main.py:6" in out
    code, out = cli("callers", "log", "--depth", "2", "--json")
    doc = json.loads(out)
    validate(doc, "graph-neighbors.schema.json")
    found = {(r["id"], r["depth"]) for r in doc["results"]}
    assert ("app.pipeline.run", 1) in found and ("tests.test_app.test_main", 2) in found
    code, out = cli("callees", "step", "--json")
    doc = json.loads(out)
    validate(doc, "graph-neighbors.schema.json")
    assert [r["id"] for r in doc["results"]] == ["app.pipeline.again", "app.pipeline.helper"]
    assert doc["direction"] == "callees" and doc["results"][0]["via"] == "app.pipeline.step"
    code, out = cli("callees", "app.util.unused")
    assert code == 0 and "no resolved calls from app.util.unused" in out


def test_chain_command(indexed, validate):
    code, out = cli("chain", "app.main.main")
    assert code == 0, out
    assert out.splitlines() == [
        "main  app/main.py:5",
        "├── log  app/util.py:1",
        "└── run  app/pipeline.py:4",
        "    ├── step  app/pipeline.py:9",
        "    │   ├── again  app/pipeline.py:15",
        "    │   │   └── step  app/pipeline.py:9  (cycle)",
        "    │   └── helper  app/pipeline.py:19",
        "    └── log  app/util.py:1",
    ]
    code, out = cli("chain", "main", "--depth", "1", "--json")
    doc = json.loads(out)
    validate(doc, "chain.schema.json")
    run = doc["root"]["children"][1]
    assert run["id"] == "app.pipeline.run" and run["line"] == 7 and run["mark"] == "depth"
    code, out = cli("chain", "test_main", "--json")
    validate(json.loads(out), "chain.schema.json")


def test_unknown_and_ambiguous_ids_are_errors(indexed):
    code, out = cli("callers", "lgo")
    assert code == 1 and "no symbol named 'lgo'" in out and "log" in out
    code, out = cli("chain", "helper")
    assert code == 1 and "names 2 symbols" in out
    assert "app.pipeline.helper" in out and "app.util.helper" in out


def test_entrypoints_command(indexed, validate):
    code, out = cli("entrypoints")
    assert code == 0, out
    assert "app.service.Service.start" in out and "test_main" not in out
    code, out = cli("entrypoints", "--all", "--json")
    doc = json.loads(out)
    validate(doc, "entrypoints.schema.json")
    found = {r["id"]: r for r in doc["results"]}
    assert found["tests.test_app.test_main"]["role"] == "test"
    assert "app.main.main" not in found and doc["total"] >= 2
    assert found["app.service.Service.start"]["callees"] == 2


def test_graph_export(indexed, validate):
    code, out = cli("graph", "export", "--around", "step", "--depth", "1")
    assert code == 0, out
    doc = json.loads(out)
    validate(doc, "graph-export.schema.json")
    assert doc["center"] == "app.pipeline.step" and doc["depth"] == 1
    assert {n["id"] for n in doc["nodes"]} == {
        "app.pipeline.step", "app.pipeline.run", "app.pipeline.again", "app.pipeline.helper",
    }  # fmt: skip
    assert all(e["kind"] == "calls" for e in doc["edges"])
    code, whole = cli("graph", "export")
    validate(json.loads(whole), "graph-export.schema.json")
    assert json.loads(whole)["center"] is None
    code, dot = cli("graph", "export", "--format", "dot", "--around", "step", "--depth", "1")
    assert (
        dot.startswith("digraph codebot {")
        and '"app.pipeline.step" -> "app.pipeline.again";' in dot
    )
    code, mermaid = cli("graph", "export", "--format", "mermaid", "--around", "step")
    assert mermaid.startswith("flowchart LR") and "-->" in mermaid
    code, out = cli("graph", "export", "--kind", "contains", "--kind", "calls")
    assert code == 0 and json.loads(out)["kinds"] == ["contains", "calls"]


def test_stats_command(indexed, validate):
    code, out = cli("stats", "--json")
    assert code == 0, out
    doc = json.loads(out)
    validate(doc, "stats.schema.json")
    assert doc["symbols"] > 10 and doc["edges"]["by_kind"]["calls"]["total"] >= 9
    assert doc["calls"]["external"] >= 1  # print
    # Call sites, not edges: main calls log once and run once; start calls load and log.
    assert doc["calls"]["resolved"] >= doc["edges"]["by_kind"]["calls"]["total"]
    assert doc["languages"]["python"]["files"] == 6
    assert doc["graph"]["isolated"] >= 1  # app.util.unused
    code, out = cli("stats")
    assert code == 0 and out.startswith("symbols") and "python" in out

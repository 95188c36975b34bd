"""Latency of the graph stage on top of hybrid search, on a large index (target: p50 <= 30 ms).

    python benchmarks/graph_stage.py [--root /root/.pyenv/versions/3.11.7/lib/python3.11]
        [--index-dir /tmp/lead/stdlib-idx] [--repeat 5]

The index must exist (build it once with ``codebot index``; this script only reads it). Each query
is first searched (hybrid, timed apart), then the graph stage runs on its ranked candidates:
``stage`` is the graph stage alone, ``rewrite`` the extra search when a weak first pass triggers
the community query expansion. The first call builds the call graph's undirected adjacency
(reported as ``first``); the percentiles are over the warm calls.
"""

from __future__ import annotations

import argparse
import sys
import time
from statistics import mean

from codebot.core.config import Config
from codebot.index.overlay import open_index
from codebot.query.evaluate import percentile
from codebot.query.graph_stage import graph_stage
from codebot.query.search import Searcher

QUERIES = (
    "how does json decode a string",
    "http request sending headers",
    "parse command line arguments",
    "how is a zip file extracted",
    "thread pool executor submit a task",
    "rotating log file handler",
    "parse a multipart email message",
    "run the asyncio event loop until a future completes",
    "unittest test discovery from a directory",
    "sqlite3 connection cursor execute",
    "where are tar archive members read",
    "how does pickle serialize an object",
    "ssl context wrap socket",
    "import a module from a file path",
    "format a datetime as iso string",
    "subprocess run command capture output",
    "url parsing split query string",
    "compile a regular expression pattern",
    "decimal rounding context",
    "shutil copy a directory tree",
)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--root", default="/root/.pyenv/versions/3.11.7/lib/python3.11")
    ap.add_argument("--index-dir", default="/tmp/lead/stdlib-idx")
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args(argv)

    config = Config(index_dir=args.index_dir)
    index = open_index(args.root, config)
    searcher = Searcher(index, config)
    t = time.perf_counter()
    graph = index.graph
    load_ms = (time.perf_counter() - t) * 1000
    searcher.ranked(QUERIES[0])  # loads the retrievers and the model
    search_ms, ranked = [], {}
    for q in QUERIES:
        t = time.perf_counter()
        ranked[q] = searcher.ranked(q)
        search_ms.append((time.perf_counter() - t) * 1000)

    rewrites: dict[str, float] = {}

    def research(q: str) -> list[tuple[int, float]]:
        t = time.perf_counter()
        out = searcher.ranked(q)
        rewrites[q] = (time.perf_counter() - t) * 1000
        return out

    t = time.perf_counter()
    graph_stage(index, graph, QUERIES[0], ranked[QUERIES[0]], research=research)
    first_ms = (time.perf_counter() - t) * 1000
    stage_ms, total_ms, sizes, trees = [], [], [], []
    for _ in range(args.repeat):
        for q in QUERIES:
            rewrites.clear()
            t = time.perf_counter()
            out = graph_stage(index, graph, q, ranked[q], research=research)
            total = (time.perf_counter() - t) * 1000
            total_ms.append(total)
            stage_ms.append(total - sum(rewrites.values()))
            sizes.append(len(out.nodes))
            trees.append(len(out.trees))
    expanded = sum(
        1
        for q in QUERIES
        if graph_stage(index, graph, q, ranked[q], research=research).expanded_query
    )
    print(f"index: {index.manifest.counts.get('symbols')} symbols, {len(graph)} edges")
    print(
        f"graph load {load_ms:.1f} ms; first graph stage (builds the adjacency) {first_ms:.1f} ms"
    )
    print(
        f"hybrid search      p50 {percentile(search_ms, 50):6.1f} ms  "
        f"p95 {percentile(search_ms, 95):6.1f} ms"
    )
    print(
        f"graph stage        p50 {percentile(stage_ms, 50):6.1f} ms  "
        f"p95 {percentile(stage_ms, 95):6.1f} ms  (without the rewrite's search)"
    )
    print(
        f"graph stage+rewrite p50 {percentile(total_ms, 50):5.1f} ms  "
        f"p95 {percentile(total_ms, 95):6.1f} ms  ({expanded}/{len(QUERIES)} queries rewritten)"
    )
    print(f"selected nodes per query: mean {mean(sizes):.1f}; trees: mean {mean(trees):.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

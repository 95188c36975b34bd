"""Call-graph build and load time on a large real tree (the Python standard library by default).

    python benchmarks/graph_build.py [ROOT] [--repeat N]

Parses ROOT once (not counted), then times: resolving the calls, building the edge arrays, the
analytics without communities (degrees, entry points, PageRank), the communities (the method
``graph_analytics`` picks for this size, and the other one for comparison), writing
``graph.msgpack``, loading it back (the hot path of every graph command: target <= 50 ms at 200k
edges), the first backwards query (it builds the reverse adjacency), a chain, and the networkx view.
Times are medians of --repeat runs where a step is cheap enough to repeat.
"""

from __future__ import annotations

import argparse
import gc
import statistics
import sysconfig
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from codebot.core.config import Config
from codebot.graph.analytics import LOUVAIN_MAX_EDGES, analyze, build_graph, detect_communities
from codebot.graph.callgraph import GRAPH_FILE, CodeGraph
from codebot.graph.io import load_graph, pack_graph, save_graph, unpack_graph
from codebot.graph.resolve import resolve
from codebot.parse.extract import parse_path


def timed(fn: Callable[[], object], repeat: int = 1) -> tuple[float, object]:
    """Median seconds of ``repeat`` calls, and the last result."""
    times, result = [], None
    for _ in range(repeat):
        gc.collect()
        start = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times), result


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("root", nargs="?", default=sysconfig.get_paths()["stdlib"])
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()

    t0 = time.perf_counter()
    report = parse_path(args.root, Config())
    parse_s = time.perf_counter() - t0
    symbols = [s for f in report.files for s in f.symbols]
    rows: list[tuple[str, str]] = []

    def row(step: str, seconds: float, note: str = "") -> None:
        rows.append((step, f"{seconds * 1000:10.1f} ms", note))

    resolve_s, resolution = timed(lambda: resolve(report.files))
    row("resolve calls", resolve_s, f"{len(resolution.edges)} edges")
    arrays_s, graph = timed(
        lambda: build_graph(symbols, resolution.edges, resolution.external, resolution.unresolved,
                            analyze=False),
        args.repeat,
    )  # fmt: skip
    row("edge arrays", arrays_s, f"{len(graph)} edges after de-duplication")
    plain_s, timings = timed(lambda: analyze(graph, symbols, communities=False), args.repeat)
    row("analytics, no communities", plain_s, f"PageRank {timings['pagerank'] * 1000:.1f} ms")

    e = graph.edge_rows(("calls",))
    src, dst = graph.src[e].astype(np.int64), graph.dst[e].astype(np.int64)
    keep = src != dst
    pairs = np.unique(src[keep] * graph.n + dst[keep])
    psrc, pdst = pairs // graph.n, pairs % graph.n
    nodes = len(np.unique(np.concatenate([psrc, pdst])))
    size = f"{nodes} nodes, {len(pairs)} call pairs (Louvain up to {LOUVAIN_MAX_EDGES})"
    for limit, name in ((10**12, "louvain"), (0, "label propagation")):
        secs, (labels, _) = timed(lambda lim=limit: detect_communities(graph.n, psrc, pdst, lim))
        sizes = np.bincount(labels[labels >= 0])
        row(f"communities: {name}", secs, f"{(sizes >= 2).sum()} communities; {size}")
    full_s, full = timed(
        lambda: build_graph(symbols, resolution.edges, resolution.external, resolution.unresolved)
    )
    row("build with communities", full_s, f"method: {full.meta['community_method']}")
    row("build without communities", arrays_s + plain_s)

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / GRAPH_FILE
        save_s, _ = timed(lambda: save_graph(full, path), args.repeat)
        row("write graph.msgpack", save_s, f"{path.stat().st_size / 1e6:.2f} MB")
        load_s, loaded = timed(lambda: load_graph(path), args.repeat)
        row("load graph.msgpack", load_s, f"{len(loaded)} edges")
        hub = int(np.argmax(loaded.pagerank))
        first_s, found = timed(lambda: load_graph(path).callers(hub), args.repeat)
        row("load + first callers()", first_s, f"{len(found)} callers of the top PageRank symbol")
    # The target is stated at 200k edges: a graph of that size with random ends, decoded in memory.
    rng, m = np.random.default_rng(0), 200_000
    ends = [rng.integers(0, graph.n, m) for _ in range(2)]
    big = CodeGraph(graph.n, *ends, rng.integers(0, 4, m), rng.integers(0, 2, m), ends[0] % 997)
    blob = pack_graph(big)
    big_s, _ = timed(lambda: unpack_graph(blob), args.repeat)
    row("load 200k random edges", big_s, f"{len(blob) / 1e6:.2f} MB decoded from memory")
    entry = int(loaded.entry_points[0]) if len(loaded.entry_points) else hub
    chain_s, tree = timed(lambda: loaded.chain(entry, depth=6), args.repeat)
    row("chain(depth 6)", chain_s, f"{tree.size()} nodes below {symbols[entry].id}")
    nx_s, g = timed(lambda: unpack_graph(pack_graph(full)).to_networkx())
    row("to_networkx (calls)", nx_s, f"{g.number_of_edges()} DiGraph edges")

    print(
        f"{args.root}: {len(report.files)} files, {len(symbols)} symbols, parsed in {parse_s:.1f} s"
    )
    print(f"{'step':<28} {'time':>13}  notes")
    for step, secs, note in rows:
        print(f"{step:<28} {secs:>13}  {note}")


if __name__ == "__main__":
    main()

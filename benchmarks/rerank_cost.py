"""What the ranking signals cost per query on a large index, at hybrid's candidate count.

    python benchmarks/rerank_cost.py --index-dir DIR [ROOT] [--rounds 5]

Opens an index ``benchmarks/index_speed.py`` built (``--embedder none`` is enough: no model
runs), and for each of its queries times ``Searcher._rerank`` (the stage the signals live in) on
a hybrid-sized candidate set: BM25's 100 hits and 100 further rows standing in for the vector
hits (drawn with a fixed seed), with the default signals and with none. The difference is what
the signals add to a hybrid query's latency; the rest of a hybrid query (the query embedding, the
vector search, BM25) is unchanged by them.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import sysconfig
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from index_speed import QUERIES  # noqa: E402

from codebot.core.config import Config  # noqa: E402
from codebot.index.overlay import open_index  # noqa: E402
from codebot.index.text import is_symbol_like, query_words  # noqa: E402
from codebot.query.search import _RRF_K, Searcher  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("root", nargs="?", type=Path, default=Path(sysconfig.get_paths()["stdlib"]))
    ap.add_argument("--index-dir", type=Path, required=True)
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args(argv)
    config = Config(index_dir=str(args.index_dir), embedder="none")
    index = open_index(args.root, config)
    n = len(index.symbols)
    rng = random.Random(17)
    sets = []
    base = Searcher(index, config)
    for q in QUERIES:
        lexical = base._by_row(base._lexical_index().search(query_words(q), 100))
        others = [rng.randrange(n) for _ in range(100)]
        fused: dict[int, float] = {}
        for ranking in ([row for row, _ in lexical], others):
            for rank, row in enumerate(ranking):
                fused[row] = fused.get(row, 0.0) + 1.0 / (_RRF_K + rank + 1)
        sets.append((q, fused, is_symbol_like(q)))
    times: dict[str, list[float]] = {"default": [], "none": []}
    searchers = {
        "default": Searcher(index, config),
        "none": Searcher(index, config, signals=frozenset()),
    }
    for s in searchers.values():  # warm: name tables, path caches
        for q, fused, symbol_like in sets:
            s._rerank(q, fused, symbol_like)
    for _ in range(args.rounds):
        for q, fused, symbol_like in sets:
            for name, s in searchers.items():
                start = time.perf_counter()
                s._rerank(q, fused, symbol_like)
                times[name].append((time.perf_counter() - start) * 1000)
    print(f"{n} symbols, {len(sets)} queries x {args.rounds} rounds, ~200 candidates each")
    for name, t in times.items():
        t.sort()
        p95 = t[min(len(t) - 1, int(0.95 * len(t)))]
        print(f"rerank with {name:<8} signals: p50 {statistics.median(t):.2f} ms, p95 {p95:.2f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Index build and query speed on a large real tree (the Python standard library by default).

    python benchmarks/index_speed.py [ROOT] [--embedder none|builtin] [--index-dir DIR]

Measures, in one run: a bare tree-sitter parse of every file codebot parses with a grammar, then
``build_index`` of the same tree (target: at most 3x the bare parse with --embedder none), then
in-process query latency (p50, p95) over a fixed set of questions and names, and the end-to-end
time of one ``codebot search`` process. With --embedder builtin the first run embeds every symbol
(minutes); the vector cache in --index-dir makes later runs fast. ``--query-only`` times the
queries of an index an earlier run left in --index-dir (no parse, no build): latency can then be
measured again when the machine is quiet.
"""

from __future__ import annotations

import argparse
import gc
import json
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

from codebot.core.config import Config
from codebot.index.build import build_index
from codebot.index.overlay import open_index
from codebot.languages import get_spec
from codebot.parse.files import content_skip_reason, select_files
from codebot.query.search import Searcher

QUERIES = [
    "parse a date string into a datetime",
    "how are HTTP headers parsed",
    "open a zip archive and list its members",
    "compute an md5 checksum of a file",
    "send an email over SMTP with TLS",
    "decode base64 data",
    "where are environment variables expanded in paths",
    "retry a socket connection after timeout",
    "serialize an object to JSON",
    "walk a directory tree recursively",
    "JSONDecoder.decode",
    "urlparse",
    "ThreadPoolExecutor",
    "shutil.copytree",
    "heapq.heappush",
    "how does the logging module format records",
    "read a CSV file with a header row",
    "create a temporary directory that is removed afterwards",
    "escape HTML special characters",
    "split a shell command line into arguments",
]


def bare_parse_seconds(root: Path, config: Config) -> tuple[float, int, float]:
    selection = select_files(root, config)
    items = []
    for f in selection.files:
        spec = get_spec(f.language)
        if spec is None:
            continue
        data = f.abspath.read_bytes()
        if content_skip_reason(data, config) is None:
            items.append((spec.parser(), data))
    gc.disable()
    start = time.perf_counter()
    for parser, data in items:
        parser.parse(data)
    elapsed = time.perf_counter() - start
    gc.enable()
    return elapsed, len(items), sum(len(d) for _, d in items) / 1e6


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("root", nargs="?", type=Path, default=Path(sysconfig.get_paths()["stdlib"]))
    ap.add_argument("--embedder", default="none")
    ap.add_argument("--index-dir", type=Path)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--query-only", action="store_true", help="time queries of an existing index")
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    if args.query_only and args.index_dir is None:
        ap.error("--query-only needs the --index-dir an earlier run built")
    index_dir = args.index_dir or Path(tempfile.mkdtemp(prefix="codebot-bench-"))
    config = Config(embedder=args.embedder, index_dir=str(index_dir))

    result: dict = {"root": str(args.root), "embedder": args.embedder}
    if not args.query_only:
        bare, n_files, mb = bare_parse_seconds(args.root, config)
        build = build_index(args.root, config)
        result.update(
            {
                "grammar_files": n_files,
                "megabytes": round(mb, 1),
                "symbols": build.counts["symbols"],
                "bare_parse_s": round(bare, 2),
                "build_s": round(build.seconds, 2),
                "build_over_parse": round(build.seconds / bare, 2),
                "build_stages_s": {k: round(v, 2) for k, v in build.timings.items()},
            }
        )
    searcher = Searcher(open_index(args.root, config), config)
    # Warm-up: open the retrievers, load the model, and build the name table a name query reads
    # once (a startup cost, like the model's, not a per-query one).
    for q in (QUERIES[0], QUERIES[1], "JSONDecoder.decode"):
        searcher.search(q)
    times = []
    for _ in range(args.rounds):
        for q in QUERIES:
            start = time.perf_counter()
            searcher.search(q, k=10)
            times.append((time.perf_counter() - start) * 1000)
    start = time.perf_counter()
    subprocess.run(
        [
            sys.executable,
            "-m",
            "codebot.serve.cli",
            "search",
            QUERIES[0],
            "--index-dir",
            str(index_dir),
        ],
        cwd=args.root,
        check=True,
        capture_output=True,
    )
    cli_ms = (time.perf_counter() - start) * 1000
    times.sort()
    result.update(
        {
            "query_p50_ms": round(statistics.median(times), 2),
            "query_p95_ms": round(times[int(0.95 * (len(times) - 1))], 2),
            "cli_search_ms": round(cli_ms),
        }
    )
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()

"""Index build at monorepo scale: time, peak memory per stage, the parallel build's speed-up, and
in-process query latency.

    python benchmarks/scale.py ROOT [--jobs 1 2] [--index-dir DIR] [--embedder none] [--json OUT]

For each ``--jobs`` value, one full build of ROOT (a git repository: the HEAD commit) in a fresh
process (so each build's peak memory is its own): wall time, the time of each stage (parse with
the keyword index fed meanwhile, tables, graph: resolve, arrays, degrees, PageRank,
communities), peak resident memory of the building process as each stage ends, and of the
largest parsing worker. Then, on the index of the last build, in-process query latency over
:data:`QUERIES` (three rounds after a warm-up; BM25 for a keyword-only index, hybrid when it has
vectors): p50 and p95, wall and CPU time (the CPU time of the ranking does not grow with other
jobs' load). The load of the machine (``os.getloadavg``) is printed before and after
each build: on a shared machine, read the speed-up next to it.

The generated tree comes from ``benchmarks/gen_monorepo.py``.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

QUERIES = [
    "parse the configuration file",
    "retry a failed request",
    "validate the user session token",
    "how are events published to a topic",
    "compute the price with discount and tax",
    "open a connection from the pool",
    "schedule a job for a worker",
    "serialize a record to json",
    "load the cached account",
    "handle an http request and write the response",
    "register a handler for a route",
    "where are permissions checked for a role",
    "convert a path to a file buffer",
    "decode the message header",
    "sort the results of a query",
    "Manager",
    "getBean",
    "refresh",
    "NewClient",
    "update_pending_invoice",
]


def one_build(root: str, index_dir: str, jobs: int, embedder: str) -> dict:
    from codebot.core.config import Config
    from codebot.index.build import build_index

    config = Config(embedder=embedder, index_dir=index_dir, jobs=jobs)
    load = os.getloadavg()
    started = time.perf_counter()
    report = build_index(root, config)
    wall = time.perf_counter() - started
    me, workers = (
        resource.getrusage(who) for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)
    )
    return {
        "jobs": jobs,
        "workers": report.parse.notes or "ok",
        "files": report.counts["files"],
        "symbols": report.counts["symbols"],
        "edges": report.counts["edges"],
        "wall_s": round(wall, 1),
        "stages_s": {k: round(v, 2) for k, v in report.timings.items()},
        "peak_rss_mb": report.memory,
        # CPU seconds (user + system): this process, Tantivy's thread included, and the workers.
        "cpu_s": {
            "main": round(me.ru_utime + me.ru_stime, 1),
            "workers": round(workers.ru_utime + workers.ru_stime, 1),
        },
        "load_before": [round(x, 1) for x in load],
        "load_after": [round(x, 1) for x in os.getloadavg()],
    }


def query_latency(root: str, index_dir: str) -> dict:
    from codebot.core.config import Config
    from codebot.index.build import peak_rss_mb
    from codebot.index.overlay import open_index
    from codebot.query.search import Searcher

    config = Config(index_dir=index_dir)
    t = time.perf_counter()
    index = open_index(root, config, worktree=False)
    searcher = Searcher(index, config)
    mode = "hybrid" if index.manifest.embedder else "bm25"
    for q in QUERIES[:3]:
        searcher.search(q, 10, mode=mode)  # warm-up: open the retrievers
    opened = time.perf_counter() - t
    flat, full, cpu = [], [], []
    for _ in range(3):
        for q in QUERIES:
            s, c = time.perf_counter(), time.process_time()
            searcher.search(q, 10, mode=mode)
            flat.append((time.perf_counter() - s) * 1000)
            cpu.append((time.process_time() - c) * 1000)  # every thread's: Tantivy's too
            s = time.perf_counter()
            searcher.answer(q, 10, mode=mode)
            full.append((time.perf_counter() - s) * 1000)

    def pct(xs: list[float]) -> dict:
        xs = sorted(xs)
        return {
            "p50_ms": round(statistics.median(xs), 2),
            "p95_ms": round(xs[int(0.95 * (len(xs) - 1))], 2),
        }

    return {
        "mode": mode,
        "open_and_warm_s": round(opened, 2),
        "ranking_only": pct(flat),
        # CPU milliseconds of the ranking: what a query costs on a machine others do not load.
        "ranking_only_cpu": pct(cpu),
        "with_graph_stage": pct(full),
        "peak_rss_mb": peak_rss_mb(),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("root")
    ap.add_argument("--jobs", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--index-dir", type=Path)
    ap.add_argument("--embedder", default="none")
    ap.add_argument("--json", type=Path)
    ap.add_argument("--child", choices=["build", "query"], help=argparse.SUPPRESS)
    args = ap.parse_args()
    index_dir = str(args.index_dir or tempfile.mkdtemp(prefix="codebot-scale-"))
    if args.child == "build":
        print(json.dumps(one_build(args.root, index_dir, args.jobs[0], args.embedder)))
        return
    if args.child == "query":
        print(json.dumps(query_latency(args.root, index_dir)))
        return

    def child(*extra: str) -> dict:
        cmd = [sys.executable, __file__, args.root, "--index-dir", index_dir, *extra]
        out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
        return json.loads(out.strip().splitlines()[-1])

    result: dict = {"root": args.root, "cpus": os.cpu_count(), "builds": []}
    for jobs in args.jobs:
        build = child("--child", "build", "--jobs", str(jobs), "--embedder", args.embedder)
        print(json.dumps(build), file=sys.stderr)
        result["builds"].append(build)
    walls = {b["jobs"]: b["wall_s"] for b in result["builds"]}
    parses = {b["jobs"]: b["stages_s"]["parse"] for b in result["builds"]}
    if 1 in walls:
        result["speedup"] = {
            str(j): {"build": round(walls[1] / w, 2), "parse": round(parses[1] / parses[j], 2)}
            for j, w in walls.items()
            if j != 1
        }
    result["query"] = child("--child", "query")
    text = json.dumps(result, indent=1)
    print(text)
    if args.json:
        args.json.write_text(text + "\n")


if __name__ == "__main__":
    main()

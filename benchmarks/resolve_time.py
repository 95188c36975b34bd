"""Call-resolution time of two code versions on one tree: does resolving stay fast?

    python benchmarks/resolve_time.py [ROOT] [--old REV] [--rounds 2] [--repeat 2] [--json]

ROOT defaults to the Python standard library of the running interpreter. "new" is the working
tree's ``codebot``; "old" is ``codebot`` at git revision ``--old`` (default cdc884a, main before
issue 21), unpacked with ``git archive`` into a temporary directory. Each run is a fresh
subprocess with PYTHONPATH set to its version: it parses ROOT (untimed; each version with its own
parser, so the new one resolves the calls it records), then times ``resolve`` ``--repeat``
times in CPU seconds with gc paused and keeps the fastest. Rounds alternate old and new, so load
from other work on a shared machine falls on both; the ratio is of the medians over rounds.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from versions import ROOT, run_worker, timing_arguments, tree, unpack  # noqa: E402

BEFORE = "cdc884a"  # main before issue 21


def _worker(root: Path, repeat: int, out: Path) -> None:
    """Runs in the subprocess, with the version under test first on sys.path."""
    import gc
    import time

    import codebot
    from codebot.core.config import Config
    from codebot.graph.resolve import resolve
    from codebot.parse.extract import parse_path

    files = parse_path(root, Config()).files
    times, edges = [], 0
    for _ in range(repeat):
        gc.collect()
        gc.disable()
        start = time.process_time()
        edges = len(resolve(files).edges)
        times.append(time.process_time() - start)
        gc.enable()
    out.write_text(
        json.dumps(
            {
                "code": str(Path(codebot.__file__).parent),
                "cpu_s": min(times),
                "symbols": sum(len(f.symbols) for f in files),
                "edges": edges,
            }
        )
    )


def _run(code: Path, root: Path, repeat: int, tmp: Path) -> dict:
    return run_worker(__file__, code, [str(root), "--repeat", str(repeat)], tmp)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    timing_arguments(ap, BEFORE)
    ap.add_argument("--repeat", type=int, default=2, help="resolves per run (the fastest counts)")
    args = ap.parse_args()
    root = tree(args.root)
    if args.worker:
        _worker(root, args.repeat, args.out)
        return
    runs: dict[str, list[dict]] = {"old": [], "new": []}
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        old = unpack(args.old, tmp / "old")
        for _ in range(args.rounds):
            runs["old"].append(_run(old, root, args.repeat, tmp))
            runs["new"].append(_run(ROOT, root, args.repeat, tmp))
    old_s = statistics.median(r["cpu_s"] for r in runs["old"])
    new_s = statistics.median(r["cpu_s"] for r in runs["new"])
    report = {
        "root": str(root),
        "old": args.old,
        "runs": runs,
        "old_cpu_s": old_s,
        "new_cpu_s": new_s,
        "ratio": new_s / old_s,
    }
    if args.json:
        print(json.dumps(report, indent=1))
        return
    for name in ("old", "new"):
        last = runs[name][-1]
        cpu = ", ".join(f"{r['cpu_s']:.2f}" for r in runs[name])
        print(f"{name}: {last['symbols']} symbols, {last['edges']} edges; resolve CPU s {cpu}")
    print(f"ratio new/old (medians): {report['ratio']:.2f}")


if __name__ == "__main__":
    main()

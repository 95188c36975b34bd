"""What one commit's update costs against a full build, stage by stage, in wall and CPU seconds.

    python benchmarks/one_commit_update.py REPO --base COMMIT --to COMMIT --index DIR
        [--jobs 2] [--rounds 3] [--profile 40]

Builds the keyword + graph index (``--embedder none``) of REPO at ``--base`` into DIR unless DIR
already holds it (then the build's figures are the ones saved beside it, ``DIR.build.json``):
wall, stages, CPU seconds of this process and of the parsing workers, peak memory, load.
Then, ``--rounds`` times, a copy of that index is updated to ``--to`` (``update_index``, no
settle), each round in a fresh process: wall and CPU seconds, the update's stages, files
resolved again, peak memory. ``--profile N``: one more round under cProfile counting CPU time
(``time.process_time``: the machine's load does not inflate it), its N costliest functions.

On a shared machine read the CPU seconds: the wall clock moves with the load (printed).
"""

from __future__ import annotations

import argparse
import cProfile
import json
import os
import pstats
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def cpu_seconds(who: int = resource.RUSAGE_SELF) -> float:
    usage = resource.getrusage(who)
    return usage.ru_utime + usage.ru_stime


def build(repo: str, commit: str, index_dir: str, jobs: int) -> dict:
    from codebot.core.config import Config
    from codebot.git.workspace import Workspace
    from codebot.index.build import build_locked
    from codebot.index.store import lock_for_writing

    config = Config(embedder="none", index_dir=index_dir, jobs=jobs)
    ws = Workspace.at(repo, config.index_dir)
    load = os.getloadavg()
    started = time.perf_counter()
    with lock_for_writing(ws.index_dir):
        report = build_locked(ws, config, None, None, at=commit)
    return {
        "commit": commit,
        "jobs": jobs,
        "wall_s": round(time.perf_counter() - started, 1),
        "cpu_s": {
            "main": round(cpu_seconds(), 1),
            "workers": round(cpu_seconds(resource.RUSAGE_CHILDREN), 1),
        },
        "counts": report.counts,
        "stages_s": {k: round(v, 2) for k, v in report.timings.items()},
        "peak_rss_mb": report.memory,
        "load": [round(x, 1) for x in load],
    }


def update(repo: str, base_dir: str, commit: str, work: str, profile: int) -> dict:
    from codebot.core.config import Config
    from codebot.index.update import update_index

    shutil.rmtree(work, ignore_errors=True)
    shutil.copytree(base_dir, work)
    prof = cProfile.Profile(time.process_time) if profile else None
    load = os.getloadavg()
    cpu, started = cpu_seconds(), time.perf_counter()
    if prof is not None:
        prof.enable()
    report = update_index(repo, Config(embedder="none", index_dir=work), to=commit, settle=False)
    if prof is not None:
        prof.disable()
    out = {
        "wall_s": round(time.perf_counter() - started, 2),
        "cpu_s": round(cpu_seconds() - cpu, 2),
        "stages_s": {k: round(v, 2) for k, v in report.timings.items()},
        "files": report.files,
        "symbols": report.symbols,
        "resolved_files": report.resolved_files,
        "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024,
        "load": [round(x, 1) for x in load],
    }
    shutil.rmtree(work, ignore_errors=True)
    if prof is not None:
        pstats.Stats(prof, stream=sys.stderr).sort_stats("cumulative").print_stats(profile)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("repo")
    ap.add_argument("--base", required=True)
    ap.add_argument("--to", required=True)
    ap.add_argument("--index", required=True, type=Path)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--profile", type=int, default=0)
    ap.add_argument("--child", choices=["build", "update"], help=argparse.SUPPRESS)
    args = ap.parse_args()
    index = str(args.index)
    if args.child == "build":
        print(json.dumps(build(args.repo, args.base, index, args.jobs)))
        return
    if args.child == "update":
        work = tempfile.mkdtemp(prefix="codebot-update-")
        print(json.dumps(update(args.repo, index, args.to, work, args.profile)))
        return

    def child(kind: str, profile: int = 0) -> dict:
        cmd = [sys.executable, __file__, args.repo, "--base", args.base, "--to", args.to]
        cmd += ["--index", index, "--jobs", str(args.jobs), "--child", kind]
        cmd += ["--profile", str(profile)]
        run = subprocess.run(cmd, check=True, capture_output=True, text=True)
        if profile:
            print(run.stderr)
        return json.loads(run.stdout.strip().splitlines()[-1])

    saved = Path(index + ".build.json")
    if not (args.index / "manifest.json").exists() or not saved.exists():
        saved.write_text(json.dumps(child("build"), indent=1) + "\n")
    built = json.loads(saved.read_text())
    print(json.dumps({"build": built}, indent=1))
    rounds = [child("update") for _ in range(args.rounds)]
    for r in rounds:
        print(json.dumps(r))
    if args.profile:
        child("update", args.profile)
    wall = statistics.median(r["wall_s"] for r in rounds)
    cpu = statistics.median(r["cpu_s"] for r in rounds)
    build_cpu = built["cpu_s"]["main"] + built["cpu_s"]["workers"]
    print(
        f"update median: wall {wall:.2f} s ({100 * wall / built['wall_s']:.1f}% of the build's "
        f"{built['wall_s']} s), CPU {cpu:.2f} s ({100 * cpu / build_cpu:.1f}% of the build's "
        f"{build_cpu:.1f} CPU s)"
    )


if __name__ == "__main__":
    main()

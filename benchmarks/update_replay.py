"""The incremental-update invariant on real history, and what an update costs.

Replays the last N first-parent commits of a git repository through ``update_index`` one commit
at a time (read from git: the work tree is never touched), and every K commits compares the
updated index with a fresh build of the same commit: same symbols in the same rows, same files
and skips, same edges with their resolution kinds, same PageRank and communities, same top-10
for a set of queries (BM25, and hybrid when vectors are on). An index not yet settled (see
``update.SETTLE_SHARE``) is compared as ``query/differences.py`` says (communities and BM25
statistics wait for the settle), then settled (``codebot update --settle``) and compared again
in every respect. Prints the update and build times of each checked commit, their ratio, and
how many files each update resolved again.

    python benchmarks/update_replay.py /path/to/repo --commits 60 --check-every 10
    python benchmarks/update_replay.py /path/to/repo --commits 20 --embedder builtin
    python benchmarks/update_replay.py /path/to/repo --commits 20 --embedder builtin --vectors-later

``--vectors-later``: each update leaves its changed symbols' vectors to the background embedder,
as ``codebot update`` does (``vectors_behind``); before each check that embedder's pass runs (here,
in this process: ``index.background.finish_vectors``), so the check compares the index once its
vectors are in.

Writes ``benchmarks/results/update_replay-<repo>.json``. Exit status 1 if any check differs.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from codebot.core.config import Config
from codebot.git.workspace import Workspace
from codebot.index.background import finish_vectors
from codebot.index.build import build_locked
from codebot.index.overlay import open_index
from codebot.index.store import lock_for_writing
from codebot.index.update import unsettled, update_index
from codebot.query.differences import index_differences

RESULTS = Path(__file__).resolve().parent / "results"


def first_parent_history(repo: Path, n: int) -> list[str]:
    out = subprocess.run(
        ["git", "rev-list", "--first-parent", f"-n{n}", "HEAD"],
        cwd=repo,
        check=True,
        capture_output=True,
        text=True,
    ).stdout.split()
    return out[::-1]


def sample_queries(index, n: int, seed: int = 0) -> list[str]:
    """Names of symbols (symbol-like queries) and short phrases from docstrings (questions)."""
    rng = random.Random(seed)
    table = index.symbols
    names = sorted({s for s in table.column("name") if len(s) > 3 and not s.startswith("<")})
    docs = [d for d in table.column("docstring") if d and len(d.split()) >= 4]
    queries = rng.sample(names, min(n, len(names)))
    for d in rng.sample(docs, min(n, len(docs))):
        queries.append(" ".join(d.split()[:6]))
    return queries


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("repo", type=Path)
    ap.add_argument("--commits", type=int, default=60)
    ap.add_argument("--check-every", type=int, default=10)
    ap.add_argument("--queries", type=int, default=15, help="of each kind")
    ap.add_argument("--embedder", default="none")
    ap.add_argument("--vectors-later", action="store_true", help="as codebot update: see above")
    args = ap.parse_args()
    repo = args.repo.resolve()
    history = first_parent_history(repo, args.commits + 1)
    with tempfile.TemporaryDirectory() as tmp:
        updated_cfg = Config(embedder=args.embedder, index_dir=f"{tmp}/updated")
        built_cfg = Config(embedder=args.embedder, index_dir=f"{tmp}/built")
        built_ws = Workspace.at(repo, built_cfg.index_dir)
        t = time.perf_counter()
        # No index yet: builds the first commit (with --vectors-later as `codebot index` on a
        # terminal: keywords and graph first, vectors and communities by the embedder's pass).
        update_index(repo, updated_cfg, to=history[0], vectors_later=args.vectors_later)
        first = time.perf_counter() - t
        modes = ["bm25"] + (["hybrid"] if args.embedder != "none" else [])
        checks, update_times, fresh_times, resolved = [], [], [], []
        failures = 0
        for n, commit in enumerate(history[1:], 1):
            t = time.perf_counter()
            report = update_index(repo, updated_cfg, to=commit, vectors_later=args.vectors_later)
            update_times.append(time.perf_counter() - t)
            fresh_times.append(report.timings.get("fresh", update_times[-1]))
            resolved.append(report.resolved_files)
            if n % args.check_every and n != len(history) - 1:
                continue
            if args.vectors_later:  # the background embedder's pass: the vectors are in
                finish_vectors(Workspace.at(repo, updated_cfg.index_dir), updated_cfg)
            t = time.perf_counter()
            with lock_for_writing(built_ws.index_dir):
                build_locked(built_ws, built_cfg, None, None, at=commit)
            build_time = time.perf_counter() - t
            updated = open_index(repo, updated_cfg, worktree=False)
            built = open_index(repo, built_cfg, worktree=False)
            queries = sample_queries(built, args.queries)
            diff = index_differences(updated, built, queries, modes)
            was_unsettled = bool(unsettled(updated.manifest))
            if was_unsettled and not diff:  # and once settled, identical in every respect
                update_index(repo, updated_cfg, to=commit, settle_now=True)
                updated = open_index(repo, updated_cfg, worktree=False)
                diff = [f"settled: {d}" for d in index_differences(updated, built, queries, modes)]
            failures += bool(diff)
            checks.append(
                {
                    "commit": commit,
                    "after": n,
                    "files_changed": sum(report.files.values()),
                    "symbols": built.manifest.counts["symbols"],
                    "update_s": round(update_times[-1], 3),
                    "fresh_s": round(fresh_times[-1], 3),
                    "build_s": round(build_time, 3),
                    "unsettled": was_unsettled,
                    "files_resolved": report.resolved_files,
                    "identical": not diff,
                    "differences": diff,
                }
            )
            print(
                f"{n:>4} {commit[:10]} {sum(report.files.values()):>4} files "
                f"{built.manifest.counts['symbols']:>6} symbols  update {update_times[-1]:.2f}s "
                f"(fresh {fresh_times[-1]:.2f}s) "
                f"build {build_time:.2f}s  resolved {report.resolved_files} files"
                f"{' (unsettled)' if was_unsettled else ''}  "
                f"{'identical' if not diff else '; '.join(diff)}"
            )
    median_update = statistics.median(update_times)
    median_fresh = statistics.median(fresh_times)
    median_build = statistics.median(c["build_s"] for c in checks)
    summary = {
        "repository": repo.name,
        "commits": len(history) - 1,
        "embedder": args.embedder,
        "vectors_later": args.vectors_later,
        "first_build_s": round(first, 3),
        "update_median_s": round(median_update, 3),
        "build_median_s": round(median_build, 3),
        "update_to_build": round(median_update / median_build, 3),
        "fresh_median_s": round(median_fresh, 3),
        "fresh_to_build": round(median_fresh / median_build, 3),
        "files_resolved": resolved,
        "checks": checks,
        "all_identical": failures == 0,
    }
    print(
        f"{len(history) - 1} commits replayed, {len(checks)} checked, "
        f"{len(checks) - failures} identical; update median {median_update:.2f}s, build median "
        f"{median_build:.2f}s: update/build {median_update / median_build:.3f}, fresh (new commit "
        f"answerable, before the lexical rewrite) {median_fresh:.2f}s: "
        f"{median_fresh / median_build:.3f}"
    )
    RESULTS.mkdir(exist_ok=True)
    suffix = "-vectors-later" if args.vectors_later else ""
    (RESULTS / f"update_replay-{repo.name}{suffix}.json").write_text(
        json.dumps(summary, indent=1) + "\n"
    )
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

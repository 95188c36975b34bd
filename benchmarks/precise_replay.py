"""Freshness of precise edges over a real history (issue 19): index a commit, merge a SCIP index
made there (``codebot precise``), then replay the next commits with ``codebot update`` and check
after each one:

- **never stale**: no precise edge served has a caller or callee in a file that changed since
  the precise commit (``violations``, must be 0);
- **still true**: at every ``--check-every``-th commit (and the last), scip-python runs again
  on that commit, and every precise edge served must be one the fresh index gives too
  (``not_in_fresh``: edges whose caller and callee did not change but whose meaning did, through
  a third file: a base class, an import);
- how much stays precise: edges served against the fresh index's precise edges.

    python benchmarks/precise_replay.py --repo /work/bench-repos/click --commits 20 \\
        --scip-python /work/scip-node/node_modules/.bin/scip-python --target-only src/click

The commits are the last ``--commits`` first-parent commits that change ``--target-only``
(commits elsewhere change nothing the index holds). Writes a JSON report (``--out``).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

CODEBOT = [sys.executable, "-m", "codebot"]


def sh(args: list[str], cwd: Path, quiet: bool = True) -> str:
    done = subprocess.run(args, cwd=cwd, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(args)} failed in {cwd}:\n{done.stdout}\n{done.stderr}")
    return done.stdout


def scip_index(scip_python: str, repo: Path, out: Path, target: str | None) -> float:
    t = time.perf_counter()
    args = [scip_python, "index", "--project-name", repo.name, "--output", str(out), "--quiet"]
    if target:
        args += ["--target-only", target]
    sh(args, repo)
    return time.perf_counter() - t


def served_precise(repo: Path) -> tuple[list[tuple[str, str, str, str]], dict]:
    """The precise call edges the index serves: (caller, callee, caller's path, callee's)."""
    from codebot.git.workspace import Workspace
    from codebot.graph.callgraph import KIND_CODE, RESOLUTION_CODE
    from codebot.index.store import read_index

    index = read_index(Workspace.at(repo))
    g, symbols = index.graph, index.symbols
    mask = (g.kind == KIND_CODE["calls"]) & (g.resolution == RESOLUTION_CODE["precise"])
    out = []
    for s, d in zip(g.src[mask].tolist(), g.dst[mask].tolist()):
        out.append((symbols[s].id, symbols[d].id, symbols[s].path, symbols[d].path))
    return out, dict(g.meta.get("precise") or {})


def fresh_precise(repo: Path, scip: Path) -> set[tuple[str, str]]:
    """The precise call edges a SCIP index made at the current commit gives, merged as
    ``codebot precise`` would (read, not written)."""
    from codebot.git.workspace import Workspace
    from codebot.graph.precise import PRECISE, map_scip, merge_precise, rebase_paths
    from codebot.graph.resolve import resolve
    from codebot.graph.scip import read_scip
    from codebot.index.store import read_index
    from codebot.index.tables import file_result

    index = read_index(Workspace.at(repo))
    table, by_id = index.symbols, index.by_id
    files = [file_result(e, [table[by_id[s]] for s in e.symbols]) for e in index.files()]
    index_scip = read_scip(scip)
    rebase_paths(index_scip, {f.path for f in files})
    edges, _ = merge_precise(resolve(files).edges, files, map_scip(index_scip, files))
    return {(e.src, e.dst) for e in edges if e.resolution == PRECISE and e.kind == "calls"}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repo", type=Path, required=True, help="a git repository with history")
    ap.add_argument("--commits", type=int, default=20)
    ap.add_argument("--check-every", type=int, default=5)
    ap.add_argument("--scip-python", default="scip-python")
    ap.add_argument("--target-only", default=None, help="scip-python's --target-only")
    ap.add_argument("--work", type=Path, default=Path("/tmp/precise-replay"))
    ap.add_argument("--out", type=Path, default=None)
    args = ap.parse_args()

    work = args.work
    sh(["rm", "-rf", str(work)], Path("/"))
    work.mkdir(parents=True)
    repo = work / args.repo.name
    sh(["git", "clone", "-q", str(args.repo), str(repo)], work)
    where = ["--", args.target_only] if args.target_only else []
    log = sh(["git", "log", "--first-parent", "--format=%H", f"-{args.commits + 1}", *where], repo)
    commits = log.split()[::-1]
    start = commits[0]
    sh(["git", "checkout", "-q", start], repo)
    sh([*CODEBOT, "index", "--embedder", "none", "."], repo)
    secs = scip_index(args.scip_python, repo, work / "start.scip", args.target_only)
    merged = json.loads(sh([*CODEBOT, "precise", "--scip", str(work / "start.scip"), "--json", "."],
                           repo))  # fmt: skip
    print(f"start {start[:12]}: scip-python {secs:.0f} s, {merged['merged']['edges']} precise "
          f"edges, {merged['mapped_share']:.1%} of references mapped", flush=True)  # fmt: skip
    rows = []
    for k, commit in enumerate(commits[1:], 1):
        sh(["git", "checkout", "-q", commit], repo)
        t = time.perf_counter()
        sh([*CODEBOT, "update", "."], repo)
        update_s = time.perf_counter() - t
        changed = set(sh(["git", "diff", "--name-only", start, commit], repo).split())
        served, meta = served_precise(repo)
        violations = [e for e in served if e[2] in changed or e[3] in changed]
        row = {
            "k": k,
            "commit": commit[:12],
            "changed_files_since_precise": len(changed),
            "heuristic_files": meta.get("stale_files"),
            "precise_served": len(served),
            "violations": len(violations),
            "update_s": round(update_s, 2),
        }
        if k % args.check_every == 0 or k == len(commits) - 1:
            scip = work / f"check-{k}.scip"
            row["scip_s"] = round(scip_index(args.scip_python, repo, scip, args.target_only), 1)
            fresh = fresh_precise(repo, scip)
            wrong = [e for e in served if (e[0], e[1]) not in fresh]
            row["fresh_precise"] = len(fresh)
            row["not_in_fresh"] = len(wrong)
            row["not_in_fresh_examples"] = [f"{a} -> {b}" for a, b, *_ in wrong[:5]]
            row["kept_share"] = round(len(served) / len(fresh), 4) if fresh else 1.0
        rows.append(row)
        print(json.dumps(row), flush=True)
    report = {
        "repo": str(args.repo),
        "start": start,
        "commits": len(rows),
        "precise_at_start": merged["merged"]["edges"],
        "mapped_share": merged["mapped_share"],
        "violations": sum(r["violations"] for r in rows),
        "not_in_fresh": sum(r.get("not_in_fresh", 0) for r in rows),
        "checks": sum(1 for r in rows if "fresh_precise" in r),
        "rows": rows,
    }
    if args.out:
        args.out.write_text(json.dumps(report, indent=1))
    print(json.dumps({k: v for k, v in report.items() if k != "rows"}))


if __name__ == "__main__":
    main()

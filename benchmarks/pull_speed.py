"""From a fresh clone to the first answered query: ``codebot pull`` of an artifact served over HTTP
on 127.0.0.1, against a local full build; and the artifact's size per 1,000 symbols.

Clones the repository (the "CI" clone), builds its index with an empty vector cache and times it
with the first query after it (what a new clone costs without artifacts), then packs the index and
serves it from a local HTTP server as a URL template. Each run clones afresh and times
``codebot pull --from URL`` and the first ``codebot search`` (separate processes, as a user runs
them). A second scenario pulls the artifact of ``--behind`` commits before HEAD, so the pull
includes the incremental update (and the embedding of what changed) to HEAD.

    python benchmarks/pull_speed.py /tmp/fa --embedder builtin --runs 3

Writes ``benchmarks/results/pull_speed.json``.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "results"
QUERY = "how are dependencies with yield cleaned up after the response"


def git(repo: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=repo, check=True, capture_output=True, text=True
    ).stdout.strip()


def codebot(repo: Path, *args: str, env: dict[str, str]) -> tuple[float, str]:
    """Run the CLI in ``repo``; (seconds, stdout)."""
    t = time.perf_counter()
    out = subprocess.run(
        [sys.executable, "-m", "codebot", *args],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
    )
    seconds = time.perf_counter() - t
    if out.returncode != 0:
        raise SystemExit(f"codebot {' '.join(args)} failed:\n{out.stderr}")
    return seconds, out.stdout


def top(stdout: str) -> list[str]:
    return [line.split()[-1] for line in stdout.splitlines() if line.strip()]


def serve(directory: Path) -> tuple[ThreadingHTTPServer, str]:
    handler = functools.partial(_Quiet, directory=str(directory))
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    return httpd, f"http://127.0.0.1:{httpd.server_address[1]}/{{name}}"


class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, format, *args):  # noqa: A002
        pass


def pull_run(source: Path, where: Path, url: str, query: str, env: dict[str, str]) -> dict:
    shutil.rmtree(where, ignore_errors=True)
    git(where.parent, "clone", "-q", str(source), str(where))
    pull_s, out = codebot(where, "pull", "--from", url, "--json", env=env)
    query_s, hits = codebot(where, "search", query, "-k", "10", env=env)
    report = json.loads(out)
    return {
        "pull_s": round(pull_s, 3),
        "first_query_s": round(query_s, 3),
        "total_s": round(pull_s + query_s, 3),
        "inside_pull": report["timings"],
        "update": report["update"]["action"],
        "embedded": report["update"]["embedded"],
        "behind": report["behind"],
        "top10": top(hits),
    }


def summary(runs: list[dict]) -> dict:
    keys = ("pull_s", "first_query_s", "total_s")
    return {k: round(statistics.median(r[k] for r in runs), 3) for k in keys}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("repo", type=Path)
    ap.add_argument("--embedder", default="builtin")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--behind", type=int, default=5, help="Commits behind HEAD, scenario 2.")
    ap.add_argument("--query", default=QUERY)
    ap.add_argument("--out", type=Path, default=RESULTS / "pull_speed.json")
    args = ap.parse_args()
    env = {**os.environ, "CODEBOT_EMBEDDER": args.embedder}
    load_before = os.getloadavg()  # a shared machine: say how busy it was
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        ci = tmp / "ci"
        t = time.perf_counter()
        git(tmp, "clone", "-q", str(args.repo.resolve()), str(ci))
        clone_s = time.perf_counter() - t
        head = git(ci, "rev-parse", "HEAD")
        print(f"building the index of {args.repo} at {head[:10]} ...", file=sys.stderr)
        build_s, _ = codebot(ci, "index", env=env)
        build_query_s, built_hits = codebot(ci, "search", args.query, "-k", "10", env=env)
        manifest = json.loads((ci / ".git" / "codebot" / "manifest.json").read_text())
        gen = ci / ".git" / "codebot" / manifest["generation"]
        index_bytes = sum(p.stat().st_size for p in gen.rglob("*") if p.is_file())
        served = tmp / "served"
        served.mkdir()
        _, out = codebot(ci, "pack", "-o", str(served), "--json", env=env)
        packed = json.loads(out)
        httpd, url = serve(served)
        try:
            runs = [pull_run(ci, tmp / "clone", url, args.query, env) for _ in range(args.runs)]
            # Scenario 2: the nearest artifact is --behind commits back; pull updates to HEAD.
            old = git(ci, "rev-parse", f"HEAD~{args.behind}")
            codebot(ci, "update", "--to", old, env=env)
            shutil.rmtree(served)
            served.mkdir()
            codebot(ci, "pack", "-o", str(served), env=env)
            behind = [pull_run(ci, tmp / "clone", url, args.query, env) for _ in range(args.runs)]
        finally:
            httpd.shutdown()
    build_total = build_s + build_query_s
    result = {
        "date": time.strftime("%Y-%m-%d"),
        "machine": f"{platform.system()} {platform.machine()}, {os.cpu_count()} CPUs",
        "python": platform.python_version(),
        "load_average_1m": {"start": round(load_before[0], 2), "end": round(os.getloadavg()[0], 2)},
        "repo": str(args.repo),
        "commit": head,
        "embedder": args.embedder,
        "symbols": manifest["counts"]["symbols"],
        "vectors": manifest["counts"]["vectors"],
        "query": args.query,
        "clone_s": round(clone_s, 3),
        "local_build": {
            "index_s": round(build_s, 3),
            "first_query_s": round(build_query_s, 3),
            "total_s": round(build_total, 3),
        },
        "artifact": {
            "bytes": packed["bytes"],
            "bytes_per_1k_symbols": packed["bytes_per_1k_symbols"],
            "index_bytes": index_bytes,
            "pack_s": packed["seconds"],
            "compression": "tar + gzip level 6",
        },
        "pull_at_head": {"median": summary(runs), "runs": runs},
        "pull_behind": {"commits": args.behind, "median": summary(behind), "runs": behind},
        "same_top10_as_local_build": all(r["top10"] == top(built_hits) for r in runs),
    }
    result["speedup_at_head"] = round(build_total / result["pull_at_head"]["median"]["total_s"], 1)
    result["speedup_behind"] = round(build_total / result["pull_behind"]["median"]["total_s"], 1)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n")
    p, b = result["pull_at_head"]["median"], result["pull_behind"]["median"]
    print(
        f"{result['symbols']} symbols; artifact {packed['bytes'] / 1e6:.1f} MB "
        f"({packed['bytes_per_1k_symbols'] / 1e3:.0f} KB per 1k symbols)\n"
        f"local build + first query: {build_total:.1f}s\n"
        f"pull + first query: {p['total_s']:.2f}s (pull {p['pull_s']:.2f}s, "
        f"query {p['first_query_s']:.2f}s): {result['speedup_at_head']}x\n"
        f"pull {args.behind} commits behind + first query: {b['total_s']:.2f}s "
        f"(pull {b['pull_s']:.2f}s): {result['speedup_behind']}x\n"
        f"same top 10 as the local build: {result['same_top10_as_local_build']}\n"
        f"-> {args.out}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())

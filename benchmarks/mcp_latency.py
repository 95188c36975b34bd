"""What ``codebot mcp`` costs an agent: starting the server, and each tool call after that.

Clones the repository into a temporary directory (the original is never touched), builds a
keyword-only index there (``codebot index --embedder none``), then drives ``codebot mcp`` with the
MCP SDK's own stdio client, as an agent's host does:

- spawn + initialize, ``--spawns`` times (a fresh process each: what starting a session costs);
- ``search_code``: the first call (loads the symbol table, Tantivy and the graph), then
  ``--calls`` warm calls over a fixed set of queries;
- one warm call of every other tool;
- the next ``search_code`` after an uncommitted edit (the work tree overlay is built), the one
  after it, and the next after a commit (the index is updated to the new HEAD).

    python benchmarks/mcp_latency.py /path/to/repo --calls 40

Writes ``benchmarks/results/mcp_latency.json``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from importlib.metadata import version
from pathlib import Path
from typing import Any

from mcp import ClientSession, StdioServerParameters, stdio_client

RESULTS = Path(__file__).resolve().parent / "results"
QUERIES = [
    "dependency injection",
    "validate the request body",
    "generate the OpenAPI schema",
    "websocket route",
    "run background tasks after the response",
    "oauth2 password bearer token",
    "include a router with a prefix",
    "exception handlers",
    "serialize the response model",
    "path parameters",
]


def git(repo: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=repo, check=True, capture_output=True, text=True
    ).stdout.strip()


def summary(seconds: list[float]) -> dict[str, float]:
    ms = sorted(s * 1000 for s in seconds)
    return {
        "n": len(ms),
        "median_ms": round(statistics.median(ms), 2),
        "p95_ms": round(ms[min(len(ms) - 1, int(0.95 * len(ms)))], 2),
        "min_ms": round(ms[0], 2),
        "max_ms": round(ms[-1], 2),
    }


def params(repo: Path) -> StdioServerParameters:
    env = {k: v for k, v in os.environ.items() if k.startswith(("GIT_", "XDG_", "CODEBOT_"))}
    return StdioServerParameters(
        command=sys.executable, args=["-m", "codebot", "mcp", "--repo", str(repo)], env=env
    )


async def timed_call(s: ClientSession, tool: str, **arguments: Any) -> float:
    t = time.perf_counter()
    result = await s.call_tool(tool, arguments)
    seconds = time.perf_counter() - t
    if result.is_error:
        raise SystemExit(f"{tool}({arguments}) failed: {result.content[0].text}")
    return seconds


async def spawn_once(repo: Path) -> tuple[float, float]:
    """(spawn + initialize, list_tools) seconds of one fresh server process."""
    t = time.perf_counter()
    async with stdio_client(params(repo)) as (read, write):
        async with ClientSession(read, write) as s:
            await s.initialize()
            ready = time.perf_counter() - t
            t = time.perf_counter()
            await s.list_tools()
            return ready, time.perf_counter() - t


def edit(repo: Path) -> str:
    """Append a function to the first tracked Python source file; returns its path."""
    paths = [p for p in git(repo, "ls-files", "*.py").splitlines() if "test" not in p]
    rel = sorted(paths, key=len)[0]
    with open(repo / rel, "a") as f:
        f.write("\n\ndef codebot_bench_probe():\n    return 1\n")
    return rel


async def session(repo: Path, calls: int) -> dict[str, Any]:
    out: dict[str, Any] = {}
    async with stdio_client(params(repo)) as (read, write):
        async with ClientSession(read, write) as s:
            await s.initialize()
            out["search_first_ms"] = round(
                1000 * await timed_call(s, "search_code", query=QUERIES[0]), 2
            )
            warm = [
                await timed_call(s, "search_code", query=QUERIES[i % len(QUERIES)])
                for i in range(calls)
            ]
            out["search_warm"] = summary(warm)
            out["search_packed_4000_tokens"] = summary(
                [await timed_call(s, "search_code", query=q, tokens=4000) for q in QUERIES]
            )
            tools = {
                "find_symbol": {"name": "solve_dependencies"},
                "get_code": {"id": "fastapi.dependencies.utils.solve_dependencies"},
                "callers": {"id": "fastapi.dependencies.utils.solve_dependencies", "depth": 2},
                "callees": {"id": "fastapi.dependencies.utils.solve_dependencies"},
                "call_chain": {"id": "fastapi.dependencies.utils.solve_dependencies"},
                "repo_map": {"tokens": 1024},
                "index_status": {},
            }
            if "fastapi" not in repo.name.lower() and not (repo / "fastapi").is_dir():
                tools = {"repo_map": {"tokens": 1024}, "index_status": {}}
            out["tools"] = {
                name: summary([await timed_call(s, name, **args) for _ in range(5)])
                for name, args in tools.items()
            }
            rel = edit(repo)
            out["after_edit"] = {
                "file": rel,
                "first_ms": round(
                    1000 * await timed_call(s, "search_code", query="codebot_bench_probe"), 2
                ),
                "second_ms": round(
                    1000 * await timed_call(s, "search_code", query="codebot_bench_probe"), 2
                ),
            }
            git(repo, "commit", "-qam", "codebot bench probe")
            first = await timed_call(s, "search_code", query="codebot_bench_probe")
            out["after_commit"] = {
                "first_ms": round(1000 * first, 2),
                "second_ms": round(
                    1000 * await timed_call(s, "search_code", query="codebot_bench_probe"), 2
                ),
            }
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("repo", type=Path)
    ap.add_argument("--calls", type=int, default=40, help="warm search_code calls")
    ap.add_argument("--spawns", type=int, default=5, help="fresh server processes to time")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="codebot-mcp-bench-") as tmp:
        repo = Path(tmp) / args.repo.resolve().name
        subprocess.run(["git", "clone", "-q", str(args.repo.resolve()), str(repo)], check=True)
        git(repo, "config", "user.email", "bench@codebot.invalid")
        git(repo, "config", "user.name", "codebot bench")
        t = time.perf_counter()
        subprocess.run(
            [sys.executable, "-m", "codebot", "index", "--embedder", "none", "--json", str(repo)],
            check=True,
            capture_output=True,
        )
        build = time.perf_counter() - t
        manifest = json.loads((repo / ".git" / "codebot" / "manifest.json").read_text())
        spawns = [asyncio.run(spawn_once(repo)) for _ in range(args.spawns)]
        result = {
            "repo": args.repo.resolve().name,
            "commit": manifest["commit"],
            "symbols": manifest["counts"]["symbols"],
            "files": manifest["counts"]["files"],
            "index_build_s": round(build, 2),
            "spawn_initialize": summary([s for s, _ in spawns]),
            "list_tools": summary([s for _, s in spawns]),
            **asyncio.run(session(repo, args.calls)),
            "machine": {
                "python": platform.python_version(),
                "mcp": version("mcp"),
                "cpus": os.cpu_count(),
                "platform": platform.platform(),
            },
        }
    RESULTS.mkdir(exist_ok=True)
    path = RESULTS / "mcp_latency.json"
    path.write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(result, indent=2))
    print(f"written to {path}", file=sys.stderr)


if __name__ == "__main__":
    main()

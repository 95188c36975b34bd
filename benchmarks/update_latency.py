"""What a one-file commit costs the index: ``codebot update`` against a full build, in one run.

Clones the repository into a temporary directory, builds the index, then makes ``--rounds``
commits that each edit one function of one source file, and times the update of each (until the
new commit is answerable, then with the lexical rewrite that makes BM25 match a build exactly),
as a library call and as the ``codebot update`` command a hook runs. Full builds are timed three
ways: keyword-only, with the vectors cached (a rebuild), and with an empty vector cache (what a
build from nothing costs).

    python benchmarks/update_latency.py /path/to/repo --rounds 5
    python benchmarks/update_latency.py /path/to/repo --embedder none   # keywords + graph only
    python benchmarks/update_latency.py --generate 60000 --embedder none

With ``--embedder none`` the build is timed once (keywords + graph: there are no vectors), and
each update is reported as a share of it, with the number of files whose calls it resolved
again. ``--generate N`` makes a Python repository of about N symbols instead (packages of
modules that import each other, classes that inherit across modules, calls through imports),
the same every time.

Writes ``benchmarks/results/update_latency-<repo>.json``.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from codebot.core.config import Config
from codebot.index.build import build_index
from codebot.index.update import update_index

RESULTS = Path(__file__).resolve().parent / "results"


def git(repo: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=repo, check=True, capture_output=True, text=True
    ).stdout.strip()


def edit_one_function(repo: Path, rng: random.Random) -> str:
    """Append a statement to one function of one tracked Python file; returns the path."""
    paths = [p for p in git(repo, "ls-files", "*.py").split("\n") if p and "test" not in p]
    rng.shuffle(paths)
    for rel in paths:
        text = (repo / rel).read_text(errors="replace")
        m = re.search(r"^(\s*)def \w+\(.*\):\s*\n(\s+)", text, re.M)
        if m:
            at = m.end()
            (repo / rel).write_text(text[:at] + "_codebot_bench = 1\n" + m.group(2) + text[at:])
            return rel
    raise SystemExit("no Python function to edit")


def generate(root: Path, symbols: int) -> Path:
    """A git repository of about ``symbols`` symbols: modules of 12 (a class of 5 methods
    inheriting from another module's class, 5 functions, a chunk) importing 3 others each."""
    rng = random.Random(0)
    modules = max(symbols // 12, 2)
    repo = root / f"generated-{symbols}"
    for i in range(modules):
        pkg = repo / f"pkg{i // 50}"
        pkg.mkdir(parents=True, exist_ok=True)
        (pkg / "__init__.py").touch()
        others = rng.sample(range(modules), 3)
        lines = [f"from pkg{j // 50}.mod{j} import Base{j}, f{j}_0, f{j}_1" for j in others]
        base = f"Base{others[0]}" if i % 3 else "object"
        lines += ["", "", f"class Base{i}({base}):"]
        for m in range(5):
            a, b = rng.sample(others, 2)
            lines += [
                f"    def m{m}(self, x):",
                f"        y = f{a}_{m % 2}(x)",
                f"        return self.m{(m + 1) % 5}(y) + f{b}_{(m + 1) % 2}(x)",
                "",
            ]
        for k in range(5):
            j = rng.choice(others)
            lines += ["", f"def f{i}_{k}(x):", f"    return Base{j}().m{k}(x) + f{j}_{k % 2}(x)"]
        (pkg / f"mod{i}.py").write_text("\n".join(lines) + "\n")
    git(repo, "init", "-q")
    git(repo, "add", "-A")
    git(repo, "-c", "user.email=b@codebot.invalid", "-c", "user.name=b", "commit", "-qm", "gen")
    return repo


def timed(fn) -> float:
    t = time.perf_counter()
    fn()
    return time.perf_counter() - t


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("repo", type=Path, nargs="?")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--embedder", default="builtin")
    ap.add_argument("--generate", type=int, help="a generated repository of about N symbols")
    args = ap.parse_args()
    if (args.repo is None) == (args.generate is None):
        ap.error("a repository, or --generate N")
    rng = random.Random(0)
    with tempfile.TemporaryDirectory() as tmp:
        source = generate(Path(tmp) / "source", args.generate) if args.generate else args.repo
        repo = Path(tmp) / source.name
        git(Path(tmp), "clone", "-q", str(source.resolve()), str(repo))
        git(repo, "config", "user.email", "bench@codebot.invalid")
        git(repo, "config", "user.name", "bench")
        config = Config(embedder=args.embedder)
        cold = timed(lambda: build_index(repo, config))
        index_dir = repo / ".git" / "codebot"
        if args.embedder == "none":  # no vectors: every build is the keyword + graph build
            warm = keywords = cold
        else:
            warm = timed(lambda: build_index(repo, config))
            keywords = timed(
                lambda: build_index(repo, Config(embedder="none", index_dir=f"{tmp}/keywords"))
            )
        symbols = json.loads((index_dir / "manifest.json").read_text())["counts"]["symbols"]
        rounds = []
        for n in range(args.rounds):
            rel = edit_one_function(repo, rng)
            git(repo, "commit", "-qam", f"bench edit {n}")
            if n % 2 == 0:  # library call: fresh and settled times
                report = update_index(repo, config)
                rounds.append(
                    {
                        "file": rel,
                        "how": "library",
                        "fresh_s": report.timings["fresh"],
                        "total_s": report.seconds,
                        "embedded": report.embedded,
                        "files_resolved": getattr(report, "resolved_files", None),  # main: none
                        "settled": "settle" in report.timings,
                    }
                )
            else:  # the command a hook runs, start-up included
                t = time.perf_counter()
                subprocess.run(
                    [sys.executable, "-m", "codebot", "update", str(repo)],
                    check=True,
                    capture_output=True,
                )
                rounds.append({"file": rel, "how": "cli", "total_s": time.perf_counter() - t})
            print(f"round {n}: {rounds[-1]}")
        shutil.rmtree(index_dir, ignore_errors=True)
    fresh = statistics.median(r["fresh_s"] for r in rounds if "fresh_s" in r)
    lib = statistics.median(r["total_s"] for r in rounds if r["how"] == "library")
    cli = [r["total_s"] for r in rounds if r["how"] == "cli"]
    cli_median = statistics.median(cli) if cli else None
    summary = {
        "repository": source.name,
        "symbols": symbols,
        "embedder": args.embedder,
        "build_cold_s": round(cold, 3),
        "build_warm_s": round(warm, 3),
        "build_keywords_s": round(keywords, 3),
        "update_fresh_s": round(fresh, 3),
        "update_settled_s": round(lib, 3),
        "update_cli_s": round(cli_median, 3) if cli_median else None,
        "ratios": {
            "fresh/build_warm": round(fresh / warm, 3),
            "settled/build_warm": round(lib / warm, 3),
            "settled/build_cold": round(lib / cold, 4),
            "cli/build_warm": round(cli_median / warm, 3) if cli_median else None,
            "fresh/build_keywords": round(fresh / keywords, 4),
            "settled/build_keywords": round(lib / keywords, 4),
            "cli/build_keywords": round(cli_median / keywords, 4) if cli_median else None,
        },
        "rounds": rounds,
    }
    print(json.dumps({k: v for k, v in summary.items() if k != "rounds"}, indent=1))
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / f"update_latency-{source.name}.json").write_text(
        json.dumps(summary, indent=1) + "\n"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""How much longer `git commit` takes with codebot's hooks installed.

    python benchmarks/hook_overhead.py [--commits N] [--rebase K] [--embedder none|builtin]

Two copies of a source tree (codebot's own package by default) become two repositories, one with
`codebot hooks install`. Commits alternate between them (each changes one file), so drift in the
machine's load hits both alike; each `git commit` is timed as a process, output piped as an editor
or script runs it. After each commit the benchmark waits until the background update has finished
and logged, so every commit starts on a quiet machine: the difference is what the hook itself
costs git, not the update competing for the CPU. Medians of N commits.

Also timed: `codebot hook post-commit` as pre-commit runs it (no shell script: it starts Python and
detaches itself), and a rebase replaying K commits, with the updates it sets off running during
the rebase (the case where a hook per commit could add up). Writes
benchmarks/results/hook_overhead.json.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import codebot
from codebot.git.hooks import install

RESULTS = Path(__file__).resolve().parent / "results" / "hook_overhead.json"


def git(repo: Path, *args: str, hooks: bool = False) -> None:
    """Run git; with no hooks unless asked (a setup step must not start background updates)."""
    no_hooks = [] if hooks else ["-c", f"core.hooksPath={os.devnull}"]
    subprocess.run(["git", *no_hooks, *args], cwd=repo, check=True, capture_output=True)


def timed_run(command: list[str], cwd: Path) -> float:
    """Milliseconds until ``command`` exits and its piped output is closed."""
    start = time.perf_counter()
    subprocess.run(command, cwd=cwd, check=True, capture_output=True)
    return (time.perf_counter() - start) * 1000


def make_repo(path: Path, source: Path, embedder: str) -> Path:
    shutil.copytree(
        source, path / source.name, ignore=shutil.ignore_patterns("__pycache__", "models")
    )
    (path / ".codebot.toml").write_text(f'embedder = "{embedder}"\n')
    git(path, "init", "-q", "-b", "main")
    git(path, "add", "-A")
    git(path, "commit", "-q", "-m", "initial")
    return path


def settle(repo: Path, hooks_run: int, timeout: float = 60.0) -> None:
    """Wait until ``hooks_run`` background hooks have logged and nothing is pending."""
    index_dir = repo / ".git" / "codebot"
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        log = index_dir / "update.log"
        text = log.read_text() if log.exists() else ""
        pids = {line.split("[", 1)[1].split("]")[0] for line in text.splitlines() if "] " in line}
        if len(pids) >= hooks_run and not (index_dir / "update.pending").exists():
            return
        time.sleep(0.05)
    raise SystemExit(
        f"{repo}: the background updates did not finish in {timeout:.0f} s; the log says:\n{text}"
    )


def commit(repo: Path, n: int) -> float:
    target = next(repo.rglob("*.py"))
    with open(target, "a") as f:
        f.write(f"\n# edit {n}\n")
    return timed_run(["git", "commit", "-q", "-a", "-m", f"edit {n}"], repo)


def rebase(repo: Path, k: int) -> float:
    """Replay ``k`` commits of a topic branch onto a new commit of main; milliseconds."""
    git(repo, "checkout", "-q", "-b", f"topic-{k}")
    for i in range(k):
        (repo / f"topic_{i}.py").write_text(f"def topic_{i}():\n    return {i}\n")
        git(repo, "add", "-A")
        git(repo, "commit", "-q", "-m", f"topic {i}")
    git(repo, "checkout", "-q", "main")
    (repo / "main_change.py").write_text("x = 1\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "main moves on")
    git(repo, "checkout", "-q", f"topic-{k}")
    return timed_run(["git", "rebase", "-q", "main"], repo)


def summary(samples: list[float]) -> dict:
    ordered = sorted(samples)
    return {
        "median_ms": round(statistics.median(samples), 2),
        "p90_ms": round(ordered[int(0.9 * (len(ordered) - 1))], 2),
        "samples_ms": [round(s, 2) for s in samples],
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--commits", type=int, default=30)
    ap.add_argument("--rebase", type=int, default=20, help="commits replayed (0: skip)")
    ap.add_argument("--embedder", default="none", choices=["none", "builtin"])
    ap.add_argument("--source", type=Path, default=Path(codebot.__file__).parent)
    ap.add_argument("--out", type=Path, default=RESULTS)
    args = ap.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        tmp_path = Path(tmp)
        # No user or system git config: a global core.hooksPath would hook the baseline too.
        (tmp_path / "gitconfig").write_text("")
        os.environ.update(
            GIT_CONFIG_NOSYSTEM="1",
            GIT_CONFIG_GLOBAL=str(tmp_path / "gitconfig"),
            GIT_AUTHOR_NAME="bench",
            GIT_AUTHOR_EMAIL="bench@codebot.invalid",
            GIT_COMMITTER_NAME="bench",
            GIT_COMMITTER_EMAIL="bench@codebot.invalid",
        )
        plain = make_repo(tmp_path / "plain", args.source, args.embedder)
        hooked = make_repo(tmp_path / "hooked", args.source, args.embedder)
        install(hooked)
        subprocess.run(
            [sys.executable, "-m", "codebot", "index", "."],
            cwd=hooked,
            check=True,
            capture_output=True,
        )

        without, with_hooks = [], []
        for n in range(args.commits):
            without.append(commit(plain, n))
            with_hooks.append(commit(hooked, n))
            settle(hooked, n + 1)
        detach = []
        for n in range(args.commits):
            command = [sys.executable, "-m", "codebot", "hook", "post-commit"]
            detach.append(timed_run(command, hooked))
            settle(hooked, args.commits + n + 1)

        rebases = {}
        if args.rebase:
            rebases = {"without_ms": round(rebase(plain, args.rebase), 1)}
            log = hooked / ".git" / "codebot" / "update.log"
            log.write_text("")
            rebases["with_ms"] = round(rebase(hooked, args.rebase), 1)
            settle(hooked, 2)  # post-checkout (its start) and post-rewrite (its end)
            rebases["updates"] = log.read_text().count(": updated in")

    result = {
        "date": time.strftime("%Y-%m-%d"),
        "machine": f"{platform.system()} {platform.machine()}, {os.cpu_count()} CPUs",
        "python": platform.python_version(),
        "git": subprocess.run(["git", "--version"], capture_output=True, text=True).stdout.strip(),
        "source": args.source.name,
        "embedder": args.embedder,
        "commits": args.commits,
        "without_hooks": summary(without),
        "with_hooks": summary(with_hooks),
        "codebot_hook_self_detaching": summary(detach),
        "rebase": {"commits": args.rebase, **rebases},
    }
    added = result["with_hooks"]["median_ms"] - result["without_hooks"]["median_ms"]
    result["added_ms"] = round(added, 2)
    result["ratio"] = round(
        result["with_hooks"]["median_ms"] / result["without_hooks"]["median_ms"], 3
    )

    print(f"{'case':<50} {'median ms':>10} {'p90 ms':>8}")
    for label, key in (
        ("git commit, no hooks", "without_hooks"),
        ("git commit, codebot hooks", "with_hooks"),
        ("codebot hook post-commit (as pre-commit runs it)", "codebot_hook_self_detaching"),
    ):
        print(f"{label:<50} {result[key]['median_ms']:>10.1f} {result[key]['p90_ms']:>8.1f}")
    print(f"{'added to git commit by the hooks':<50} {added:>10.1f}  (x{result['ratio']:.2f})")
    if rebases:
        print(
            f"git rebase of {args.rebase} commits: {rebases['without_ms']:.0f} ms without hooks, "
            f"{rebases['with_ms']:.0f} ms with ({rebases['updates']} background updates)"
        )
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n")
    print(f"-> {args.out}")


if __name__ == "__main__":
    main()

"""How soon a newcomer gets answers, and what an edit costs: codebot beside its peers, in one run.

On one checkout (a fresh local clone of it per tool, so no tool sees another's files), times:

- codebot: ``codebot index --background`` until it returns and then the first query (the first
  answer), until the vectors are committed, a one-function commit then ``codebot update``, a
  no-op ``codebot update``, and CLI search with ``--mode bm25`` and ``--mode hybrid``;
- code-review-graph (when installed): ``build``, the same commit then ``update``, a no-op
  ``update``, and its keyword search;
- semble (when installed): the first ``search`` (it indexes on the way) and a warm one, with
  ``SEMBLE_MODEL_NAME`` when set, else a stand-in of its model's size (:func:`semble_model`:
  its model is on the Hugging Face hub, which an offline machine cannot reach).

Each command runs as a user runs it (a new process). The peers are looked up in ``--peers-env``
(a separate virtual environment: ``pip install semble code-review-graph`` there), never in
codebot's. The vector cache starts empty (a new clone), as on a newcomer's machine.

    python benchmarks/first_answer.py [/work/bench-repos/flask] [--peers-env /work/peers-env]
    python benchmarks/first_answer.py --embedder none   # keywords + graph: no vectors to wait for

With ``--embedder none`` codebot indexes keywords and the call graph only (``CODEBOT_EMBEDDER``),
so an update never loads a model, and there is no hybrid search to time.

codebot's package is byte-compiled first (``compileall``), as ``pip install`` of a wheel leaves
it and as the peers' own installs are: an editable checkout under ``PYTHONDONTWRITEBYTECODE``
would otherwise compile every module it imports in every process. codebot runs from a bare
virtual environment that sees the checkout and this environment's packages through a ``.pth``
file (:func:`installed_python`), as a wheel install would, without the editable finder. The update's vectors, which
``codebot update`` leaves to the background embedder, are waited for (``vectors_after_update``)
before the no-op updates are timed, so these time an index with nothing owed.

Prints a table with the ratios of this one run (a shared machine is noisy: compare the ratios)
and writes ``benchmarks/results/first_answer-<repo>.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "results"
QUERIES = ["register a blueprint on the application", "how are session cookies signed"]
EDIT_PATH = "src/flask/helpers.py"
EDIT_FUNCTION = "def get_debug_flag() -> bool:\n"


def git(repo: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=repo, check=True, capture_output=True, text=True
    ).stdout.strip()


class Failed(Exception):
    pass


def run(cmd: list[str], cwd: Path, env: dict | None = None) -> float:
    """Seconds ``cmd`` takes; raises Failed (with its stderr's end) when it fails."""
    t = time.perf_counter()
    out = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, env=env)
    seconds = time.perf_counter() - t
    if out.returncode != 0:
        raise Failed(f"{' '.join(cmd[:3])} exit {out.returncode}: {out.stderr.strip()[-300:]}")
    return seconds


def peer(steps, *args) -> dict | str | None:
    """A peer's timings, None when it is not installed, or why it could not run."""
    try:
        return steps(*args)
    except Failed as exc:
        return f"could not run: {exc}"


def best(cmd: list[str], cwd: Path, n: int = 3, env: dict | None = None) -> float:
    """The median of ``n`` runs of a command that changes nothing (a query, a no-op update)."""
    return statistics.median(run(cmd, cwd, env) for _ in range(n))


def clone(source: Path, into: Path) -> Path:
    subprocess.run(["git", "clone", "-q", str(source), str(into)], check=True)
    for var, value in (("user.name", "bench"), ("user.email", "bench@codebot.invalid")):
        git(into, "config", var, value)
    return into


def commit_one_function_edit(repo: Path) -> None:
    """Add a statement to one function and commit it: the edit every tool then updates for."""
    path = repo / EDIT_PATH
    text = path.read_text()
    at = text.index(EDIT_FUNCTION) + len(EDIT_FUNCTION)
    path.write_text(text[:at] + "    _first_answer_bench = 1\n" + text[at:])
    git(repo, "commit", "-qam", "bench: edit one function")


# --- codebot ---------------------------------------------------------------------------------------


def owes_vectors(manifest: Path) -> bool:
    data = json.loads(manifest.read_text())
    return bool(data.get("vectors_pending") or data.get("vectors_behind"))


def compile_codebot() -> str:
    """Byte-compile the codebot package this interpreter imports; where it is."""
    where = subprocess.run(
        [sys.executable, "-c", "import codebot, os; print(os.path.dirname(codebot.__file__))"],
        check=True, capture_output=True, text=True,
    ).stdout.strip()  # fmt: skip
    subprocess.run([sys.executable, "-m", "compileall", "-q", where], check=True,
                   capture_output=True)  # fmt: skip
    return where


def installed_python(package_dir: str, work: Path) -> str:
    """An interpreter that imports codebot as a wheel install would: a bare virtual environment
    whose ``.pth`` names this one's site-packages and the checkout. A development install's
    editable finder (imported by every process of its environment: about 10 ms a start here)
    is not what users run."""
    import sysconfig

    venv = work / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    site = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True, capture_output=True, text=True,
    ).stdout.strip()  # fmt: skip
    deps = sysconfig.get_paths()["purelib"]
    (Path(site) / "codebot-bench.pth").write_text(f"{Path(package_dir).parent}\n{deps}\n")
    return str(python)


def codebot_steps(
    source: Path, work: Path, embedder: str = "builtin", python: str = sys.executable
) -> dict[str, float]:
    repo = clone(source, work / "codebot")
    cb = [python, "-m", "codebot", "--quiet"]
    env = {k: v for k, v in os.environ.items() if k != "CI"}
    env["CODEBOT_EMBEDDER"] = embedder
    manifest = repo / ".git" / "codebot" / "manifest.json"
    out: dict[str, float] = {}

    started = time.perf_counter()
    out["index_returns"] = run([*cb, "index", "--background"], repo, env)
    out["first_query"] = run([*cb, "search", QUERIES[0], "--mode", "bm25"], repo, env)
    out["first_answer"] = out["index_returns"] + out["first_query"]
    while owes_vectors(manifest):
        time.sleep(0.2)
    out["vectors_complete"] = time.perf_counter() - started

    for mode in ("bm25", "hybrid") if embedder != "none" else ("bm25",):
        out[f"search_{mode}"] = statistics.median(
            run([*cb, "search", q, "--mode", mode], repo, env) for q in QUERIES for _ in range(2)
        )
    commit_one_function_edit(repo)
    out["commit_update"] = run([*cb, "update"], repo, env)
    started = time.perf_counter()
    while owes_vectors(manifest):  # an update that left its vectors to the background
        time.sleep(0.1)
    out["vectors_after_update"] = time.perf_counter() - started
    out["noop_update"] = best([*cb, "update"], repo, env=env)
    return out


# --- peers ----------------------------------------------------------------------------------------


def crg_steps(bin_dir: Path, source: Path, work: Path) -> dict[str, float] | None:
    tool = bin_dir / "code-review-graph"
    if not tool.exists():
        return None
    repo = clone(source, work / "crg")
    out = {"build": run([str(tool), "build"], repo)}
    out["search"] = statistics.median(
        run([str(tool), "search", q], repo) for q in QUERIES for _ in range(2)
    )
    commit_one_function_edit(repo)
    out["commit_update"] = run([str(tool), "update"], repo)
    out["noop_update"] = best([str(tool), "update"], repo)
    return out


# A static model of potion-code-16M-v2's size (16M parameters: 30,522 tokens x 512 dimensions,
# float32) from the tokenizer codebot ships, for machines that cannot reach the Hugging Face hub.
# semble's timings depend on the model's size (loading it, looking tokens up), not its values.
STANDIN = """
import sys, numpy as np
from tokenizers import Tokenizer
from model2vec import StaticModel
tok = Tokenizer.from_file(sys.argv[1])
vectors = np.random.default_rng(0).standard_normal((tok.get_vocab_size(), 512), dtype=np.float32)
StaticModel(vectors, tok, normalize=True).save_pretrained(sys.argv[2])
"""


def semble_model(bin_dir: Path, work: Path) -> str:
    """The model semble is to load: SEMBLE_MODEL_NAME when set, else a stand-in built here."""
    if os.environ.get("SEMBLE_MODEL_NAME"):
        return os.environ["SEMBLE_MODEL_NAME"]
    from codebot.embed.builtin import MODEL_DIR

    tokenizer = MODEL_DIR / "tokenizer.json"
    into = work / "semble-model"
    subprocess.run([str(bin_dir / "python"), "-c", STANDIN, str(tokenizer), str(into)],
                   check=True, capture_output=True)  # fmt: skip
    return str(into)


def semble_steps(bin_dir: Path, source: Path, work: Path) -> dict[str, float] | None:
    tool = bin_dir / "semble"
    if not tool.exists():
        return None
    repo = clone(source, work / "semble")
    env = {**os.environ, "XDG_CACHE_HOME": str(work / "semble-cache")}  # no index from before
    env["SEMBLE_MODEL_NAME"] = semble_model(bin_dir, work)
    out = {"first_search": run([str(tool), "search", QUERIES[0], str(repo)], repo, env)}
    out["warm_search"] = statistics.median(
        run([str(tool), "search", q, str(repo)], repo, env) for q in QUERIES for _ in range(2)
    )
    return out


# --- report ---------------------------------------------------------------------------------------


def ratios(cb: dict, crg: dict | None, semble: dict | None) -> list[tuple[str, float, str]]:
    rows = []
    semble = semble if isinstance(semble, dict) else None
    crg = crg if isinstance(crg, dict) else None
    if semble:
        rows.append(
            (
                "first answer / semble first index+query",
                cb["first_answer"] / semble["first_search"],
                "<= 0.5",
            )
        )
    if semble and "search_hybrid" in cb:
        rows.append(
            (
                "hybrid search / semble warm search",
                cb["search_hybrid"] / semble["warm_search"],
                "<= 0.5",
            )
        )
    if crg:
        rows.append(
            (
                "commit+update / crg commit+update",
                cb["commit_update"] / crg["commit_update"],
                "<= 0.5",
            )
        )
        rows.append(
            ("no-op update / crg no-op update", cb["noop_update"] / crg["noop_update"], "<= 0.33")
        )
        rows.append(("bm25 search / crg search", cb["search_bm25"] / crg["search"], "<= 1"))
    return rows  # fmt: skip


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("repo", nargs="?", type=Path, default=Path("/work/bench-repos/flask"))
    ap.add_argument("--peers-env", type=Path, default=Path("/work/peers-env"))
    ap.add_argument("--embedder", default="builtin", help="codebot's (none: keywords + graph)")
    args = ap.parse_args()
    bin_dir = args.peers_env / "bin"
    work = Path(tempfile.mkdtemp(prefix="codebot-first-answer-"))
    package_dir = compile_codebot()
    print(f"codebot from {package_dir}", file=sys.stderr)
    try:
        python = installed_python(package_dir, work)
        cb = codebot_steps(args.repo, work, args.embedder, python)
        crg = peer(crg_steps, bin_dir, args.repo, work)
        semble = peer(semble_steps, bin_dir, args.repo, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    result = {
        "repo": args.repo.name,
        "embedder": args.embedder,
        "when": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "cpus": os.cpu_count(),
        "load": os.getloadavg()[0],
        "codebot": cb,
        "code-review-graph": crg,
        "semble": semble,
        "ratios": {name: round(r, 3) for name, r, _ in ratios(cb, crg, semble)},
    }
    for tool, steps in (("codebot", cb), ("code-review-graph", crg), ("semble", semble)):
        if not isinstance(steps, dict):
            print(f"{tool:18} {steps or f'not installed in {bin_dir}'}")
            continue
        for step, seconds in steps.items():
            print(f"{tool:18} {step:18} {seconds:7.2f} s")
    for name, r, goal in ratios(cb, crg, semble):
        print(f"ratio  {name:45} {r:6.2f}  (goal {goal})")
    RESULTS.mkdir(exist_ok=True)
    suffix = "" if args.embedder == "builtin" else f"-{args.embedder}"
    path = RESULTS / f"first_answer-{args.repo.name}{suffix}.json"
    path.write_text(json.dumps(result, indent=1) + "\n")
    print(f"-> {path}")


if __name__ == "__main__":
    main()

"""Localisation from real history: a commit message as the query, the functions its diff changed.

    python benchmarks/localise.py mine --repo click=/work/.mirror/pallets+click/repo [--max 40]
    python benchmarks/localise.py run [--repo click] [--modes bm25,vector,hybrid,graph]
        [--work /tmp/localise] [--out benchmarks/results/localise-<date>.json]

``mine`` walks a repository's history (a full clone or the bare git directory ``fetch`` gives) for
commits that change one to three functions of the package: every changed line of a package
source file (tests, examples and docs are not the package) falls in a function or a method, or is
blank, a comment or an import; the other files the commit touches (tests, changelog, docs) are
allowed. The answer is those functions as they were at the PARENT commit (path and lines, the
outermost function holding the change: a method, not its class; a closure's enclosing function),
found by codebot's own parser on the parent's file. The query is the commit message (subject and
body, trailers and pull-request numbers removed). Cases are written to
``benchmarks/localise_cases/<repo>.json``, spread evenly over the history found.

``run`` clones each repository into ``--work``, indexes the oldest parent once with the built-in
embedder and brings that index to each later parent with ``codebot update`` (vectors of unchanged
code come from the index's vector cache), so every query is asked of the code as it was before
the change. Each parent's index is kept under ``--work/snapshots`` (a few MB each); ``run --reuse``
queries those instead of updating, for a ranking change. One index serves every mode: ``bm25`` reads only its keyword index, as an index built
with ``--embedder none`` would. Scores, per mode: function level (a hit inside a changed function)
and file level (a hit in a changed file), hit@1/@5/@10 and MRR over the top 10, split by query
type:

- ``names``: the message names a changed function (its name appears as a word);
- ``code``: the message names other code (an identifier with ``_``, ``.``, ``()``, CamelCase or
  backticks) but not a changed function;
- ``prose``: neither.

It also counts how many first results are tests, documentation or changelog entries.
"""

from __future__ import annotations

import argparse
import datetime
import json
import re
import subprocess
import time
from collections import Counter, defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
CASES = HERE / "localise_cases"
K = 10

# Per repository: the language, the package's source folders (tried in order; a layout moved
# over its history), and what else under them is not the package.
REPOS: dict[str, dict] = {
    "click": {"language": "python", "roots": ["src/click/", "click/"], "url": "pallets/click"},
    "flask": {"language": "python", "roots": ["src/flask/", "flask/"], "url": "pallets/flask"},
    "requests": {
        "language": "python",
        "roots": ["src/requests/", "requests/"],
        "url": "psf/requests",
        "exclude": ["requests/packages/"],  # vendored urllib3/chardet of old releases
    },
    "chi": {
        "language": "go",
        "roots": [""],
        "url": "go-chi/chi",
        "exclude": ["_examples/"],
    },  # fmt: skip
    "gin": {"language": "go", "roots": [""], "url": "gin-gonic/gin", "exclude": ["examples/"]},
}
_EXT = {"python": (".py",), "go": (".go",)}
_TEST_FILE = re.compile(r"(^|/)(test_[^/]*\.py|[^/]*_test\.(py|go)|conftest\.py)$")
_SKIP_SUBJECT = re.compile(
    r"typo|spelling|\bformat|black|isort|flake8|\blint|pre-commit|pyupgrade|ruff|mypy|\bbump|"
    r"release|version \d|changelog|changes\.rst|docstring|whitespace|^revert|^merge|"
    r"copyright|license|deprecat|\bdocs?\b|documentation|\brst\b|comment|readme|\bnotes?\b|"
    r"\btests?\b|example",
    re.I,
)
_TRAILER = re.compile(
    r"^(signed-off-by|co-authored-by|reviewed-by|cc|see|refs?|closes|fixes)\b.*$", re.I | re.M
)
_PR = re.compile(
    r"\s*\((?:#|gh-)\d+\)|\s*\b(?:this\s+)?(?:fix(?:es|ed)?|close[sd]?|resolve[sd]?|see|refs?)"
    r"\s+(?:[\w-]+/[\w-]+)?#\d+|\s*#\d+\b",
    re.I,
)
_IMPORT = re.compile(
    r'^\s*(import\b|from\s+\S+\s+import\b|"[\w./-]+"\s*$|\)\s*$|[\w.]+\s+"[\w./-]+"\s*$)'
)
_CODE_WORD = re.compile(
    r"`[^`]+`|\b\w+\(\)|\b[a-z]+_[a-z_]+\b|\b[A-Za-z]+\.[A-Za-z_]\w*|\b[a-z]+[A-Z]\w*|\b[A-Z][a-z]+[A-Z]\w*"
)


def git(repo: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(repo), *args], check=True, capture_output=True, text=True,
        errors="replace",
    ).stdout  # fmt: skip


# --- mining ---------------------------------------------------------------------------------------


def package_file(path: str, spec: dict) -> bool:
    """A source file of the package: its language, under a root, not a test or excluded."""
    if not path.endswith(_EXT[spec["language"]]) or _TEST_FILE.search(path):
        return False
    if any(path.startswith(x) or f"/{x}" in path for x in spec.get("exclude", [])):
        return False
    if spec["language"] == "go":
        return "testdata/" not in path
    return any(path.startswith(r) for r in spec["roots"] if r)


def message_query(message: str) -> str:
    """The commit message as a query: trailers and pull-request numbers out, whitespace folded."""
    text = _TRAILER.sub("", message)
    text = _PR.sub("", text)
    lines = [ln.strip() for ln in text.splitlines() if ln.strip() and not ln.startswith("* [")]
    words = " ".join(lines).split()
    return " ".join(words[:80])


def hunks(repo: Path, parent: str, commit: str, paths: list[str]) -> dict[str, list[tuple]]:
    """Per path: (old_start, old_count, removed lines' text, added lines' text) of each hunk."""
    out: dict[str, list[tuple]] = defaultdict(list)
    diff = git(repo, "diff", "-U0", "--no-renames", "--no-color", parent, commit, "--", *paths)
    path, cur = None, None
    for line in diff.splitlines():
        if line.startswith("--- "):
            continue
        if line.startswith("+++ "):
            path = line[6:] if line.startswith("+++ b/") else None
        elif line.startswith("@@"):
            m = re.match(r"@@ -(\d+)(?:,(\d+))? \+\d+(?:,\d+)? @@", line)
            cur = [int(m.group(1)), int(m.group(2) or 1), [], []]
            if path is not None:
                out[path].append(cur)
        elif cur is not None and line[:1] == "-":
            cur[2].append(line[1:])
        elif cur is not None and line[:1] == "+":
            cur[3].append(line[1:])
    return out


def trivial(text: str) -> bool:
    s = text.strip()
    return not s or s.startswith(("#", "//")) or bool(_IMPORT.match(text))


def changed_functions(repo: Path, parent: str, commit: str, path: str, file_hunks, language):
    """The outermost functions of ``path`` at ``parent`` holding the change, or None when a
    changed line of substance falls outside every function (a new function, a class attribute,
    module code)."""
    from codebot.core.model import FUNCTION_KINDS
    from codebot.parse.extract import parse_source

    try:
        data = git(repo, "show", f"{parent}:{path}").encode()
    except subprocess.CalledProcessError:
        return None  # a new file
    symbols = parse_source(path, data, language).symbols
    funcs = [s for s in symbols if s.kind in FUNCTION_KINDS]
    # Outermost: not inside another function (a method is inside a class, which is no function).
    outer = [
        f for f in funcs
        if not any(g is not f and g.start_line <= f.start_line and f.end_line <= g.end_line
                   and (g.start_line, g.end_line) != (f.start_line, f.end_line) for g in funcs)
    ]  # fmt: skip

    def holder(line: int):
        for f in outer:
            if f.start_line <= line <= f.end_line:
                return f
        return None

    found = {}
    for start, count, removed, added in file_hunks:
        if count == 0:  # a pure insertion after line `start`: inside a function when the
            f = holder(start)  # lines either side are (one appended after a Python function's
            if f is not None and start + 1 <= f.end_line:  # last line is not counted in it)
                found[f.id] = f
            elif not all(trivial(t) for t in added):
                return None
            continue
        for i, text in enumerate(removed):
            f = holder(start + i)
            if f is not None:
                found[f.id] = f
            elif not trivial(text):
                return None
    return list(found.values())


def query_type(query: str, answers: list[dict]) -> str:
    words = set(re.findall(r"\w+", query))
    if any(a["name"] in words for a in answers):
        return "names"
    return "code" if _CODE_WORD.search(query) else "prose"


def mine(name: str, repo: Path, spec: dict, limit: int) -> list[dict]:
    log = git(
        repo, "log", "--no-merges", "--first-parent", "--name-only",
        "--format=%x1e%H%x00%P%x00%cI%x00%B%x00",
    )  # fmt: skip
    found = []
    seen_subjects = set()
    for record in log.split("\x1e")[1:]:
        commit, parents, when, message, files = record.split("\x00")
        parents = parents.split()
        if len(parents) != 1:
            continue
        subject = message.strip().splitlines()[0] if message.strip() else ""
        if len(subject.split()) < 3 or _SKIP_SUBJECT.search(subject) or subject in seen_subjects:
            continue
        paths = [p for p in files.split("\n") if p.strip()]
        source = [p for p in paths if package_file(p, spec)]
        if not source or len(source) > 3:
            continue
        per_file = hunks(repo, parents[0], commit, source)
        answers, ok = [], True
        for path in source:
            funcs = changed_functions(repo, parents[0], commit, path, per_file.get(path, []),
                                      spec["language"])  # fmt: skip
            if funcs is None:
                ok = False
                break
            answers += [
                {"path": path, "name": f.name, "id": f.id, "start_line": f.start_line,
                 "end_line": f.end_line} for f in funcs
            ]  # fmt: skip
        if not ok or not 1 <= len(answers) <= 3:
            continue
        query = message_query(message)
        if len(query.split()) < 3:
            continue
        seen_subjects.add(subject)
        found.append({
            "repo": name, "commit": commit, "parent": parents[0], "date": when,
            "query": query, "type": query_type(query, answers), "answers": answers,
            "files": sorted({a["path"] for a in answers}),
        })  # fmt: skip
    found.reverse()  # oldest first
    if len(found) > limit:  # spread evenly over the history
        step = len(found) / limit
        found = [found[int(i * step)] for i in range(limit)]
    return found


# --- running --------------------------------------------------------------------------------------


def _covers(hit, answer: dict) -> bool:
    return (
        hit.path == answer["path"]
        and answer["start_line"] <= hit.start_line
        and hit.end_line <= answer["end_line"]
    )


def _noise(hit) -> bool:
    """A test, documentation or changelog result."""
    low = hit.path.lower()
    return hit.symbol.role in ("test", "docs", "example") or any(
        w in low for w in ("changes", "changelog", "history", "readme")
    )


def score_case(case: dict, hits: list) -> dict:
    func = next(
        (i for i, h in enumerate(hits) if any(_covers(h, a) for a in case["answers"])), None
    )
    file = next((i for i, h in enumerate(hits) if h.path in case["files"]), None)
    return {
        "function_rank": None if func is None else func + 1,
        "file_rank": None if file is None else file + 1,
        "first": None if not hits else {"id": hits[0].id, "role": hits[0].symbol.role},
        "first_noise": bool(hits) and _noise(hits[0]),
    }


def summary(rows: list[dict], level: str) -> dict:
    ranks = [r[f"{level}_rank"] for r in rows]
    n = max(len(ranks), 1)
    return {
        "hit@1": round(sum(1 for x in ranks if x and x <= 1) / n, 3),
        "hit@5": round(sum(1 for x in ranks if x and x <= 5) / n, 3),
        "hit@10": round(sum(1 for x in ranks if x and x <= 10) / n, 3),
        "mrr": round(sum(1 / x for x in ranks if x) / n, 3),
    }


def _snapshot(index_dir: Path, to: Path) -> None:
    """Keep the index as it is now (its manifest and generation, not the vector cache) under
    ``to``: a later ``run --reuse`` re-queries it without updating (a ranking change only)."""
    import shutil

    manifest = json.loads((index_dir / "manifest.json").read_text())
    if to.exists():
        shutil.rmtree(to)
    to.mkdir(parents=True)
    shutil.copytree(index_dir / manifest["generation"], to / manifest["generation"])
    shutil.copy2(index_dir / "manifest.json", to / "manifest.json")


def run_repo(
    name: str, cases: list[dict], work: Path, modes: list[str], mirror: Path, reuse: bool = False
) -> dict:
    from codebot.core.config import Config
    from codebot.git.workspace import Workspace
    from codebot.index.store import read_index
    from codebot.index.update import update_index
    from codebot.query.search import Searcher

    checkout = work / "repos" / name
    if not checkout.exists():
        checkout.parent.mkdir(parents=True, exist_ok=True)
        subprocess.run(["git", "clone", "-q", "--shared", str(mirror), str(checkout)], check=True)
    config = Config(index_dir=str(work / "indexes" / name), embedder="builtin")
    per_mode: dict[str, list[dict]] = {m: [] for m in modes}
    seconds = {"update": 0.0, "search": 0.0}
    snapshots = work / "snapshots" / name
    for case in sorted(cases, key=lambda c: c["date"]):
        t = time.perf_counter()
        kept = snapshots / case["parent"]
        if not (reuse and (kept / "manifest.json").exists()):
            update_index(Workspace.of(checkout, config.index_dir), config, to=case["parent"])
            _snapshot(Path(config.index_dir), kept)
        seconds["update"] += time.perf_counter() - t
        t = time.perf_counter()
        index = read_index(Workspace.of(checkout, str(kept)))
        searcher = Searcher(index, config)
        for mode in modes:
            if mode == "graph":
                hits = searcher.answer(case["query"], k=K, mode="hybrid", graph=True).hits
            else:
                hits = searcher.search(case["query"], k=K, mode=mode)
            per_mode[mode].append({"commit": case["commit"], "type": case["type"],
                                   **score_case(case, hits)})  # fmt: skip
        seconds["search"] += time.perf_counter() - t
    return {"cases": per_mode, "seconds": {k: round(v, 1) for k, v in seconds.items()}}


def report(per_mode: dict[str, list[dict]]) -> dict:
    out = {}
    for mode, rows in per_mode.items():
        types = defaultdict(list)
        for r in rows:
            types[r["type"]].append(r)
        out[mode] = {
            "n": len(rows),
            "function": summary(rows, "function"),
            "file": summary(rows, "file"),
            "first_noise": sum(r["first_noise"] for r in rows),
            "by_type": {
                t: {"n": len(rs), "function": summary(rs, "function"), "file": summary(rs, "file")}
                for t, rs in sorted(types.items())
            },
        }
    return out


def _print(title: str, rep: dict) -> None:
    print(f"\n{title}")
    print(f"{'mode':<8} {'n':>4}  {'fn@1':>5} {'fn@5':>5} {'fn@10':>5} {'fnMRR':>5}  "
          f"{'file@1':>6} {'file@5':>6} {'file@10':>7} {'fMRR':>5}  first=test/doc")  # fmt: skip
    for mode, r in rep.items():
        f, g = r["function"], r["file"]
        print(f"{mode:<8} {r['n']:>4}  {f['hit@1']:>5.3f} {f['hit@5']:>5.3f} {f['hit@10']:>5.3f} "
              f"{f['mrr']:>5.3f}  {g['hit@1']:>6.3f} {g['hit@5']:>6.3f} {g['hit@10']:>7.3f} "
              f"{g['mrr']:>5.3f}  {r['first_noise']}")  # fmt: skip
        for t, s in r["by_type"].items():
            f, g = s["function"], s["file"]
            print(f"  {t:<6} {s['n']:>4}  {f['hit@1']:>5.3f} {f['hit@5']:>5.3f} {f['hit@10']:>5.3f} "
                  f"{f['mrr']:>5.3f}  {g['hit@1']:>6.3f} {g['hit@5']:>6.3f} {g['hit@10']:>7.3f} "
                  f"{g['mrr']:>5.3f}")  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="command", required=True)
    m = sub.add_parser("mine", help="find the cases in a repository's history")
    m.add_argument("--repo", action="append", required=True, help="NAME=GIT_DIR")
    m.add_argument("--max", type=int, default=40, help="cases per repository")
    r = sub.add_parser("run", help="index each parent and score the rankings")
    r.add_argument("--repo", action="append", default=[])
    r.add_argument("--mirror", action="append", default=[], help="NAME=GIT_DIR to clone from")
    r.add_argument("--modes", default="bm25,vector,hybrid,graph")
    r.add_argument("--work", type=Path, default=Path("/tmp/localise"))
    r.add_argument("--out", type=Path)
    r.add_argument(
        "--reuse",
        action="store_true",
        help="query the index kept for each parent by an earlier run (under --work/snapshots) "
        "instead of updating to it: for a ranking change, minutes instead of hours",
    )
    p = sub.add_parser("report", help="pool the results of several runs")
    p.add_argument("results", nargs="+", type=Path)
    p.add_argument("--out", type=Path)
    args = ap.parse_args(argv)

    if args.command == "mine":
        CASES.mkdir(exist_ok=True)
        for item in args.repo:
            name, git_dir = item.split("=", 1)
            found = mine(name, Path(git_dir), REPOS[name], args.max)
            types = Counter(c["type"] for c in found)
            (CASES / f"{name}.json").write_text(json.dumps(found, indent=1) + "\n")
            print(f"{name}: {len(found)} cases {dict(types)}")
        return 0

    if args.command == "report":
        repos = {}
        for f in args.results:
            repos.update(json.loads(f.read_text())["repos"])
        return _write(repos, list(next(iter(repos.values()))["cases"]), args.out, 0.0)

    mirrors = dict(item.split("=", 1) for item in args.mirror)
    names = args.repo or sorted(p.stem for p in CASES.glob("*.json"))
    modes = args.modes.split(",")
    started = time.perf_counter()
    repos = {}
    for name in names:
        cases = json.loads((CASES / f"{name}.json").read_text())
        mirror = Path(
            mirrors.get(name, f"/work/.mirror/{REPOS[name]['url'].replace('/', '+')}/repo")
        )
        result = run_repo(name, cases, args.work, modes, mirror, args.reuse)
        rep = report(result["cases"])
        _print(f"{name} ({len(cases)} cases, {result['seconds']})", rep)
        repos[name] = {"report": rep, "cases": result["cases"], "seconds": result["seconds"]}
        if name != names[-1]:  # a long run keeps what it has measured, repository by repository
            _write(repos, modes, args.out, time.perf_counter() - started, quiet=True)
    return _write(repos, modes, args.out, time.perf_counter() - started)


def _write(
    repos: dict, modes: list[str], out: Path | None, seconds: float, quiet: bool = False
) -> int:
    pooled: dict[str, list[dict]] = {m: [] for m in modes}
    for r in repos.values():
        for mode in modes:
            pooled[mode] += r["cases"][mode]
    total = report(pooled)
    if not quiet:
        _print(f"all ({len(pooled[modes[0]])} cases: {', '.join(repos)})", total)
    result = {
        "benchmark": "localise",
        "date": datetime.date.today().isoformat(),
        "k": K,
        "modes": modes,
        "all": total,
        "repos": repos,
        "seconds": round(seconds, 1),
    }
    out = out or HERE / "results" / f"localise-{result['date']}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=1) + "\n")
    if not quiet:
        print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

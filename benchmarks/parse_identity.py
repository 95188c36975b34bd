"""Parse time of two code versions on one tree, and whether the new one's output is unchanged.

    python benchmarks/parse_identity.py [ROOT] [--old REV] [--new REV] [--same-as REV]
        [--rounds 2] [--language python] [--json]

ROOT defaults to the Python standard library of the running interpreter (site-packages left out,
as in parse_throughput.py). "new" is the working tree's ``codebot`` (or that of revision
``--new``); "old" is ``codebot`` at git
revision ``--old`` (default 338f3db, before issue 21 made the Python parser annotate calls),
unpacked with ``git archive`` into a temporary directory. Each run is a fresh subprocess with
PYTHONPATH set to its version, which reads every file into memory, parses 50 files untimed
(grammars, queries), then times parsing all of them (CPU and wall-clock seconds, gc paused).
Rounds alternate old and new, so that load from other work on a shared machine falls on both.

Identity: every file's symbols (each with its calls, as written), imports and issues are hashed;
the new version's hashes must equal those of revision ``--same-as`` (default ``main``): the files
that differ are listed. The old version's output differs by design (no call annotation).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from versions import ROOT, run_worker, timing_arguments, tree, unpack  # noqa: E402

BEFORE = "338f3db"  # main before issue 21


def _worker(root: Path, languages: list[str], out: Path) -> None:
    """Runs in the subprocess, with the version under test first on sys.path."""
    import gc
    import time

    import codebot
    from codebot.languages import get_spec, language_for_path
    from codebot.parse.extract import parse_source

    files = []
    for path in sorted(root.rglob("*")):
        if not path.is_file() or "site-packages" in path.parts or path.is_symlink():
            continue
        language = language_for_path(path.name)
        if (languages and language not in languages) or get_spec(language) is None:
            continue
        data = path.read_bytes()
        if len(data) <= 1_000_000:
            files.append((str(path.relative_to(root)), data, language))
    for rel, data, language in files[:50]:
        parse_source(rel, data, language)
    results = []
    gc.collect()
    gc.disable()
    cpu, wall = time.process_time(), time.perf_counter()
    for rel, data, language in files:
        try:
            results.append((rel, parse_source(rel, data, language)))
        except Exception as exc:  # ParseRefused and the like: part of the output too
            results.append((rel, f"{type(exc).__name__}: {exc}"))
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    gc.enable()
    digests = {}
    for rel, r in results:
        text = r if isinstance(r, str) else repr((r.symbols, r.imports, r.issues))
        digests[rel] = hashlib.sha256(text.encode()).hexdigest()
    calls = sum(len(s.calls) for _, r in results if not isinstance(r, str) for s in r.symbols)
    out.write_text(
        json.dumps(
            {
                "code": str(Path(codebot.__file__).parent),
                "files": len(files),
                "calls": calls,
                "cpu_s": cpu,
                "wall_s": wall,
                "digests": digests,
            }
        )
    )


def _run(code: Path, root: Path, languages: list[str], tmp: Path) -> dict:
    return run_worker(
        __file__, code, [str(root), *(f"--language={lang}" for lang in languages)], tmp
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    timing_arguments(ap, BEFORE)
    ap.add_argument("--new", help="git revision to time instead of the working tree")
    ap.add_argument("--same-as", default="main", help="git revision whose output must match")
    ap.add_argument("--language", action="append", default=[], help="only these (repeatable)")
    args = ap.parse_args()
    root = tree(args.root)
    if args.worker:
        _worker(root, args.language, args.out)
        return
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        old = unpack(args.old, tmp / "old")
        ref = unpack(args.same_as, tmp / "ref")
        new_code = unpack(args.new, tmp / "new") if args.new else ROOT
        runs: dict[str, list[dict]] = {"old": [], "new": []}
        for _ in range(args.rounds):
            runs["old"].append(_run(old, root, args.language, tmp))
            runs["new"].append(_run(new_code, root, args.language, tmp))
        reference = _run(ref, root, args.language, tmp)
    new = runs["new"][-1]
    differ = sorted(
        p
        for p in set(new["digests"]) | set(reference["digests"])
        if new["digests"].get(p) != reference["digests"].get(p)
    )
    summary = {
        "root": str(root),
        "files": new["files"],
        "calls": new["calls"],
        "old": args.old,
        "new": args.new or "working tree",
        "same_as": args.same_as,
        "old_cpu_s": [round(r["cpu_s"], 2) for r in runs["old"]],
        "new_cpu_s": [round(r["cpu_s"], 2) for r in runs["new"]],
        "old_wall_s": [round(r["wall_s"], 2) for r in runs["old"]],
        "new_wall_s": [round(r["wall_s"], 2) for r in runs["new"]],
        "ratio_cpu_median": round(
            statistics.median(r["cpu_s"] for r in runs["new"])
            / statistics.median(r["cpu_s"] for r in runs["old"]),
            2,
        ),
        "ratio_cpu_best": round(
            min(r["cpu_s"] for r in runs["new"]) / min(r["cpu_s"] for r in runs["old"]), 2
        ),
        "identical": not differ,
        "differing_files": differ[:20],
        "differing_count": len(differ),
    }
    if args.json:
        print(json.dumps(summary, indent=2))
        return
    for k, v in summary.items():
        print(f"{k}: {v}")
    if differ:
        sys.exit(1)


if __name__ == "__main__":
    main()

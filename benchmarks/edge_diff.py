"""Whether two versions of codebot make the same call edges on a repository.

    python benchmarks/edge_diff.py --repo R --language L --other DIR [--root /work/bench-repos]
                                   [--show 10]

A hand-checked edge sample (``edge_sample.py``) judges the code that drew it. When that code
was a branch since merged with others, this says whether the merged code still makes exactly
the edges the sample was drawn from: it resolves ``<root>/R`` with this checkout's ``codebot``
and with the one in ``DIR`` (a worktree or a ``git archive`` of the branch), each in a fresh
process with PYTHONPATH set to its version, and prints the ``calls`` edges (caller, callee,
resolution) of language ``L`` that only one of them makes. Exit status 1 when they differ.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from versions import ROOT, run_worker, worker_arguments  # noqa: E402


def _worker(repo: Path, language: str, out: Path) -> None:
    """Runs in the subprocess, with the version under test first on sys.path."""
    import codebot
    from codebot.core.config import Config
    from codebot.graph.resolve import resolve
    from codebot.parse.extract import parse_path

    files = parse_path(repo, Config()).files
    lang = {s.id: s.language for f in files for s in f.symbols}
    edges = sorted(
        {
            (e.src, e.dst, e.resolution)
            for e in resolve(files).edges
            if e.kind == "calls" and lang[e.src] == language
        }
    )
    out.write_text(json.dumps({"code": str(Path(codebot.__file__).parent), "edges": edges}))


def _edges(code: Path, repo: Path, language: str, tmp: Path) -> set[tuple[str, str, str]]:
    result = run_worker(__file__, code, ["--repo", str(repo), "--language", language], tmp)
    return {tuple(e) for e in result["edges"]}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repo", required=True)
    ap.add_argument("--language", required=True)
    ap.add_argument("--other", type=Path, help="the other version's checkout (holds codebot/)")
    ap.add_argument("--root", type=Path, default=Path("/work/bench-repos"))
    ap.add_argument("--show", type=int, default=10, help="edges listed per side")
    worker_arguments(ap)
    args = ap.parse_args()
    repo = Path(args.repo) if args.worker else args.root / args.repo
    if args.worker:
        _worker(repo, args.language, args.out)
        return 0
    if args.other is None:
        ap.error("--other is required")
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        here = _edges(ROOT, repo, args.language, tmp)
        there = _edges(args.other.resolve(), repo, args.language, tmp)
    print(
        f"{args.repo} {args.language}: {len(here)} edges here, {len(there)} in {args.other}; "
        f"only here {len(here - there)}, only there {len(there - here)}"
    )
    for sign, edges in (("+here ", here - there), ("+there", there - here)):
        for e in sorted(edges)[: args.show]:
            print(f"  {sign} {e[0]} -> {e[1]} ({e[2]})")
    return 1 if here != there else 0


if __name__ == "__main__":
    sys.exit(main())

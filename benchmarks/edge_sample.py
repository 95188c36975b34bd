"""A seeded random sample of call edges of one repository, to be checked by hand.

    python benchmarks/edge_sample.py --repo gson [--root /work/bench-repos] [--n 30] [--seed 21]
                                     [--language java] [--out benchmarks/results/precision-gson.json]
                                     [--save-edges FILE] [--new-since FILE]

Parses and resolves the repository as ``codebot index`` does, draws ``--n`` ``calls`` edges (of
every resolution: exact, overload, unique_name) whose caller is in ``--language``, and prints each
with the line of the call, the call text the parser recorded, and the callee's definition. The
JSON written to ``--out`` holds the sample; a ``verdict`` (``right``/``wrong``) and a ``why`` are
filled by the person who read the code. Run again with the same arguments, it keeps the verdicts
already written for the same edges and prints the precision over the judged ones.

To judge what a change adds: ``--save-edges FILE`` at the commit before it writes every call edge
of the language (caller, callee) to FILE; ``--new-since FILE`` at the commit after draws only
among the edges FILE does not hold.
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
from pathlib import Path

from codebot.core.config import Config
from codebot.graph.resolve import resolve
from codebot.parse.extract import parse_path


def _line(root: Path, path: str, line: int) -> str:
    try:
        lines = (root / path).read_text(errors="replace").splitlines()
    except OSError:
        return ""
    return " ".join(lines[line - 1].split())[:160] if 0 < line <= len(lines) else ""


def draw(
    root: Path,
    language: str,
    n: int,
    seed: int,
    save: Path | None = None,
    since: Path | None = None,
) -> list[dict]:
    report = parse_path(root, Config())
    res = resolve(report.files)
    by_id = {s.id: s for f in report.files for s in f.symbols}
    edges = sorted(
        (e for e in res.edges if e.kind == "calls" and by_id[e.src].language == language),
        key=lambda e: (e.src, e.dst),
    )
    if save is not None:
        save.write_text(json.dumps([[e.src, e.dst] for e in edges]) + "\n")
    if since is not None:
        old = {tuple(pair) for pair in json.loads(since.read_text())}
        edges = [e for e in edges if (e.src, e.dst) not in old]
    picked = random.Random(seed).sample(edges, min(n, len(edges)))
    out = []
    for e in picked:
        src, dst = by_id[e.src], by_id[e.dst]
        texts = [c.name for c in src.calls if c.line == e.line]
        out.append(
            {
                "site": f"{src.path}:{e.line}",
                "code": _line(root, src.path, e.line),
                "calls_on_line": texts,
                "caller": e.src,
                "callee": e.dst,
                "callee_at": f"{dst.path}:{dst.start_line}",
                "callee_signature": dst.signature,
                "resolution": e.resolution,
                "verdict": None,
                "why": "",
            }
        )
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repo", required=True)
    ap.add_argument("--root", default="/work/bench-repos")
    ap.add_argument("--language", default="java")
    ap.add_argument("--n", type=int, default=30)
    ap.add_argument("--seed", type=int, default=21)
    ap.add_argument("--out", default=None)
    ap.add_argument("--save-edges", type=Path, default=None, help="write every call edge here")
    ap.add_argument("--new-since", type=Path, default=None, help="draw among edges not in this")
    args = ap.parse_args()
    out = Path(args.out or f"benchmarks/results/precision-{args.repo}.json")
    sample = draw(
        Path(args.root) / args.repo,
        args.language,
        args.n,
        args.seed,
        args.save_edges,
        args.new_since,
    )
    if out.exists():
        old = {(d["caller"], d["callee"]): d for d in json.loads(out.read_text())["sample"]}
        for d in sample:
            prev = old.get((d["caller"], d["callee"]))
            if prev is not None:
                d["verdict"], d["why"] = prev["verdict"], prev["why"]
    command = (
        f"python benchmarks/edge_sample.py --repo {args.repo} --language {args.language}"
        f" --n {args.n} --seed {args.seed}"
        + (f" --new-since {args.new_since}" if args.new_since else "")
    )
    judged = [d for d in sample if d["verdict"] in ("right", "wrong")]
    right = sum(d["verdict"] == "right" for d in judged)
    head = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=False
    ).stdout.strip()
    doc = {
        "command": command,
        "drawn_at": head,  # the commit whose resolver drew the sample
        "repo": args.repo,
        "language": args.language,
        "judged": len(judged),
        "right": right,
        "precision": round(right / len(judged), 3) if judged else None,
        "sample": sample,
    }
    out.write_text(json.dumps(doc, indent=1) + "\n")
    for i, d in enumerate(sample):
        print(f"{i:2} [{d['resolution']}] {d['site']}  {d['code']}")
        print(f"     calls {d['calls_on_line']}")
        print(f"     -> {d['callee']}  ({d['callee_at']}: {d['callee_signature'][:90]})")
        if d["verdict"]:
            print(f"     verdict: {d['verdict']} ({d['why']})")
    print(f"judged {len(judged)}, right {right}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())

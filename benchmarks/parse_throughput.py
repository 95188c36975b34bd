"""Parse throughput: codebot's extraction against a bare tree-sitter parse of the same files.

    python benchmarks/parse_throughput.py [ROOT ...] [--rounds 3] [--json]

ROOT defaults to the Python standard library of the running interpreter (site-packages left out).
Files are read into memory first, so both sides measure CPU work only. Rounds alternate bare and
codebot so that a noisy neighbour hurts both alike; the best round of each is reported, with
their ratio. The target (issue 2): codebot reaches at least half the bare parse's speed.
"""

from __future__ import annotations

import argparse
import gc
import json
import sys
import sysconfig
import time
from pathlib import Path

from codebot.languages import get_spec, language_for_path
from codebot.parse.extract import parse_source


def load(roots: list[Path], only: set[str]) -> list[tuple[str, bytes, str]]:
    files = []
    for root in roots:
        for path in sorted(root.rglob("*")):
            if not path.is_file() or "site-packages" in path.parts or path.is_symlink():
                continue
            language = language_for_path(path.name)
            if (only and language not in only) or get_spec(language) is None:
                continue
            data = path.read_bytes()
            if len(data) <= 1_000_000:
                files.append((str(path.relative_to(root)), data, language))
    return files


def bare(files) -> float:
    parsers = {}
    start = time.perf_counter()
    for _, data, language in files:
        parser = parsers.get(language)
        if parser is None:
            parser = parsers[language] = get_spec(language).parser()
        parser.parse(data)
    return time.perf_counter() - start


def codebot(files) -> tuple[float, int]:
    start = time.perf_counter()
    symbols = 0
    for path, data, language in files:
        symbols += len(parse_source(path, data, language).symbols)
    return time.perf_counter() - start, symbols


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("roots", nargs="*", type=Path)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--language", action="append", default=[], help="only these (repeatable)")
    args = ap.parse_args()
    roots = args.roots or [Path(sysconfig.get_paths()["stdlib"])]
    files = load(roots, set(args.language))
    mb = sum(len(d) for _, d, _ in files) / 1e6
    codebot(files[:50])  # warm up: load grammars and compile queries outside the timing
    bare_times, codebot_times = [], []
    symbols = 0
    gc.disable()
    for _ in range(args.rounds):
        bare_times.append(bare(files))
        elapsed, symbols = codebot(files)
        codebot_times.append(elapsed)
        gc.collect()
    gc.enable()
    b, c = min(bare_times), min(codebot_times)
    result = {
        "roots": [str(r) for r in roots],
        "files": len(files),
        "megabytes": round(mb, 1),
        "symbols": symbols,
        "bare_parse_s": round(b, 2),
        "codebot_s": round(c, 2),
        "bare_mb_per_s": round(mb / b, 1),
        "codebot_mb_per_s": round(mb / c, 1),
        "speed_ratio": round(b / c, 2),
        "python": sys.version.split()[0],
    }
    if args.json:
        print(json.dumps(result, indent=2))
        return
    print(f"{len(files)} files, {mb:.1f} MB, {symbols} symbols ({', '.join(map(str, roots))})")
    print(f"bare tree-sitter parse : {b:6.2f} s  {mb / b:5.1f} MB/s")
    print(f"codebot extraction     : {c:6.2f} s  {mb / c:5.1f} MB/s")
    print(f"codebot / bare speed   : {b / c:.2f}  (target >= 0.50)")


if __name__ == "__main__":
    main()

"""How fast the built-in embedder embeds real functions: batch 1, by truncation and thread count.

    /work/venv/bin/python benchmarks/embedder_speed.py [--stdlib DIR] [--n 300]

Functions come from the Python standard library (real code, with docstrings and long bodies), a
fixed random sample so that runs compare. Each (max_tokens, threads) cell is timed after a warm-up,
``--repeat`` times; the best run is reported, since on a shared machine other work only slows a run
down. "per CPU-s" divides by the process's CPU time instead of the wall clock: at one thread it shows
the speed an idle machine would give, whatever else is running.
"""

from __future__ import annotations

import argparse
import ast
import random
import sysconfig
import time
from pathlib import Path

from codebot.embed.builtin import BuiltinEmbedder


def stdlib_functions(root: Path, n: int) -> list[str]:
    funcs: list[str] = []
    for path in sorted(root.glob("*.py")):
        src = path.read_text(encoding="utf-8", errors="replace")
        try:
            tree = ast.parse(src)
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                funcs.append(ast.get_source_segment(src, node) or "")
    return random.Random(0).sample(funcs, min(n, len(funcs)))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--stdlib", type=Path, default=Path(sysconfig.get_paths()["stdlib"]))
    ap.add_argument("--n", type=int, default=300, help="functions per cell")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    texts = stdlib_functions(args.stdlib, args.n)

    print(f"{len(texts)} functions from {args.stdlib}, batch 1, best of {args.repeat}")
    header = ("max_tokens", "threads", "mean tokens", "functions/s", "per CPU-s", "load ms")
    print(" ".join(f"{h:>11}" for h in header))
    for max_tokens in (128, 256):
        for threads in (1, 2):
            t0 = time.perf_counter()
            emb = BuiltinEmbedder(threads=threads, max_tokens=max_tokens)
            load_ms = (time.perf_counter() - t0) * 1000
            tokens = [len(emb._tokenizer.encode(t).ids) for t in texts]
            emb.embed_documents(texts[:20])  # warm-up: first runs allocate arenas
            wall, cpu = [], []
            for _ in range(args.repeat):
                t0, c0 = time.perf_counter(), time.process_time()
                emb.embed_documents(texts)
                wall.append(time.perf_counter() - t0)
                cpu.append(time.process_time() - c0)
            row = (max_tokens, threads, sum(tokens) / len(tokens))
            row += (len(texts) / min(wall), len(texts) / min(cpu), load_ms)
            print(" ".join(f"{x:>11.0f}" for x in row))


if __name__ == "__main__":
    main()

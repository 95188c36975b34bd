"""How fast the built-in embedder embeds real functions: batch 1, by truncation and thread count.

    /work/venv/bin/python benchmarks/embedder_speed.py [--stdlib DIR] [--n 300]

Functions come from the Python standard library (real code, with docstrings and long bodies), a
fixed random sample so that runs compare. Each (max_tokens, threads) cell is timed after a warm-up.
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
    args = ap.parse_args()
    texts = stdlib_functions(args.stdlib, args.n)

    print(f"{len(texts)} functions from {args.stdlib}, batch 1")
    print(
        f"{'max_tokens':>10} {'threads':>7} {'mean tokens':>11} {'functions/s':>11} {'load ms':>8}"
    )
    for max_tokens in (128, 256):
        for threads in (1, 2):
            t0 = time.perf_counter()
            emb = BuiltinEmbedder(threads=threads, max_tokens=max_tokens)
            load_ms = (time.perf_counter() - t0) * 1000
            tokens = [len(emb._tokenizer.encode(t).ids) for t in texts]
            emb.embed_documents(texts[:20])  # warm-up: first runs allocate arenas
            t0 = time.perf_counter()
            emb.embed_documents(texts)
            rate = len(texts) / (time.perf_counter() - t0)
            mean_tokens = sum(tokens) / len(tokens)
            print(
                f"{max_tokens:>10} {threads:>7} {mean_tokens:>11.0f} {rate:>11.0f} {load_ms:>8.0f}"
            )


if __name__ == "__main__":
    main()

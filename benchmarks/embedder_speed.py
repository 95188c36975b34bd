"""The built-in embedder's speed, old code against new, side by side in one run.

    python benchmarks/embedder_speed.py [--repo DIR | --stdlib DIR] [--old REV] [--rounds 5]
        [--threads N] [--max-tokens 256]

Texts: with ``--repo``, exactly the texts ``codebot index`` embeds for that checkout (its symbols,
as build_index makes them: a recording embedder stands in for the model and keeps them); else
functions from the Python standard library, a fixed random sample.

"old" is ``codebot/embed/builtin.py`` as it was at git revision ``--old`` (default: 338f3db, the
code when issue 18 was filed), loaded from git into this process; "new" is the working tree's.
Both load the same model.onnx and run with the same ``threads``. Rounds alternate old and new, so
load from other work on a shared machine falls on both alike; each reports its best and median
wall-clock time and its CPU time. The vectors of the two are compared too (max |difference|).
"""

from __future__ import annotations

import argparse
import ast
import importlib.util
import json
import random
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

import numpy as np

from codebot.embed.base import EmbedderIdentity
from codebot.embed.builtin import MODEL_DIR, BuiltinEmbedder

ROOT = Path(__file__).resolve().parent.parent
FILED_AT = "338f3db"  # main when issue 18 was filed


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


class _Recorder:
    """Stands in for the model in one build: keeps the texts, answers zero vectors."""

    provider = "builtin"

    def __init__(self) -> None:
        self.texts: list[str] = []
        self.identity = EmbedderIdentity("recorder", 384, "0" * 64, 256)

    def embed_documents(self, texts: list[str]) -> np.ndarray:
        self.texts.extend(texts)
        return np.zeros((len(texts), 384), dtype=np.float32)

    embed_queries = embed_documents


def repo_texts(repo: Path) -> list[str]:
    from codebot.core.config import Config
    from codebot.index.build import build_index

    recorder = _Recorder()
    with tempfile.TemporaryDirectory() as tmp:
        config = Config(index_dir=str(Path(tmp) / "index"), embedder="builtin")
        build_index(repo, config, embedder=recorder)
    return recorder.texts


def git_show(rev: str, path: str) -> str:
    return subprocess.run(
        ["git", "-C", str(ROOT), "show", f"{rev}:{path}"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout


def old_embedder_class(rev: str) -> type:
    source = git_show(rev, "codebot/embed/builtin.py")
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "builtin_old.py"
        path.write_text(source, encoding="utf-8")
        spec = importlib.util.spec_from_file_location("builtin_old", path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules["builtin_old"] = module
        spec.loader.exec_module(module)
    return module.BuiltinEmbedder


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repo", type=Path, help="embed this checkout's symbols")
    ap.add_argument("--stdlib", type=Path, default=Path(sysconfig.get_paths()["stdlib"]))
    ap.add_argument("--n", type=int, default=300, help="stdlib functions (without --repo)")
    ap.add_argument("--old", default=FILED_AT, help="git revision of the old builtin.py")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--threads", type=int, default=None, help="default: each one's own default")
    ap.add_argument("--max-tokens", type=int, default=None)
    args = ap.parse_args()

    texts = repo_texts(args.repo) if args.repo else stdlib_functions(args.stdlib, args.n)
    source = str(args.repo) if args.repo else f"{len(texts)} functions from {args.stdlib}"
    old_cls = old_embedder_class(args.old)
    # Each at its own default truncation unless --max-tokens sets both: the old one's from
    # model.json as it was at that revision.
    old_meta = json.loads(git_show(args.old, "codebot/embed/models/minilm-l6-v2/model.json"))
    old_max = args.max_tokens or old_meta["max_tokens"]
    # The same model file for both: the old module would look beside its own (temporary) path.
    embedders = {
        "old": old_cls(threads=args.threads, max_tokens=old_max, model_dir=MODEL_DIR),
        "new": BuiltinEmbedder(threads=args.threads, max_tokens=args.max_tokens),
    }
    tokens = [len(embedders["new"]._tokenizer.encode(t).ids) for t in texts]
    limits = {name: emb.identity.max_tokens for name, emb in embedders.items()}
    print(
        f"{len(texts)} texts ({source}), {len(set(texts))} distinct, mean {np.mean(tokens):.0f}"
        f" tokens at most {limits['new']}; old = builtin.py at {args.old} (at most"
        f" {limits['old']} tokens); threads {args.threads or 'default'};"
        f" {args.rounds} rounds, old and new in turn"
    )
    vectors = {}
    for name, emb in embedders.items():
        vectors[name] = emb.embed_documents(texts[:20])  # warm-up: first runs allocate arenas
    wall: dict[str, list[float]] = {"old": [], "new": []}
    cpu: dict[str, list[float]] = {"old": [], "new": []}
    for _ in range(args.rounds):
        for name, emb in embedders.items():
            t0, c0 = time.perf_counter(), time.process_time()
            vectors[name] = emb.embed_documents(texts)
            wall[name].append(time.perf_counter() - t0)
            cpu[name].append(time.process_time() - c0)
    header = ("code", "best s", "median s", "texts/s", "CPU s (best)", "texts/CPU-s")
    print(" ".join(f"{h:>12}" for h in header))
    for name in embedders:
        best, med, c = min(wall[name]), statistics.median(wall[name]), min(cpu[name])
        row = (f"{best:.2f}", f"{med:.2f}", f"{len(texts) / best:.1f}", f"{c:.2f}")
        print(f"{name:>12} " + " ".join(f"{x:>12}" for x in (*row, f"{len(texts) / c:.1f}")))
    ratio = min(wall["new"]) / min(wall["old"])
    med_ratio = statistics.median(wall["new"]) / statistics.median(wall["old"])
    print(f"new time / old time: {ratio:.2f} (best), {med_ratio:.2f} (median)")
    diff = float(np.abs(vectors["new"] - vectors["old"]).max())
    cos = (vectors["new"] * vectors["old"]).sum(axis=1)
    print(f"max |new - old| over all vectors: {diff:.3g}; cosine min {cos.min():.4f}")


if __name__ == "__main__":
    main()

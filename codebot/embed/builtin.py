"""The built-in embedder: all-MiniLM-L6-v2 as an int8 ONNX model, shipped in the wheel.

Runs on onnxruntime + tokenizers + numpy (no torch). The model comes from
``scripts/build_builtin_embedder.py``; ``models/minilm-l6-v2/model.json`` records its checksums.

Speed (benchmarks/embedder_speed.py, benchmarks/RESULTS.md): every text runs alone (batch 1), and
``threads`` texts run at once, one core each, through one session. The alternatives measured on
this model lose on a 2-core AVX-512 VNNI machine: float activations (the int8 weights dequantized,
which makes batching safe) cost twice the CPU of the int8 kernels; batches of a graph quantized per
token (also batch-safe) cost 35-60% more CPU per text than single runs, padded or not, as a
batch's activations outgrow the cache; and one run spread over two intra-op threads spends much of
the second core spinning on small matrices. Running whole texts side by side changes nothing in a
vector: each is still computed alone by the same kernels, bit for bit as before, so the model's
identity (and every index's vectors) stay valid.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

from codebot.core.errors import EmbedderError
from codebot.embed.base import EmbedderIdentity, SymmetricEmbedder

__all__ = [
    "BuiltinEmbedder",
    "MODEL_DIR",
]

MODEL_DIR = Path(__file__).resolve().parent / "models" / "minilm-l6-v2"


def _verified_bytes(path: Path, sha256: str, size: int | None = None) -> bytes:
    """The file's bytes, checked against model.json.

    Why every load: the weights' sha256 is the identity an index records, so a truncated or swapped
    file would silently give vectors that do not match the index. The check costs one sha256 over
    bytes we must read anyway (~13 ms for the 23 MB model, against ~70 ms to build the session),
    and hashing the very bytes handed to onnxruntime leaves no gap between check and use.
    """
    try:
        data = path.read_bytes()
    except OSError as e:
        raise EmbedderError(
            f"the built-in embedder's {path.name} cannot be read ({e}); reinstall codebot"
        ) from e
    if (size is not None and len(data) != size) or hashlib.sha256(data).hexdigest() != sha256:
        raise EmbedderError(
            f"the built-in embedder's {path} is corrupt (size or sha256 differs from model.json);"
            " reinstall codebot, or rebuild it with scripts/build_builtin_embedder.py"
        )
    return data


class BuiltinEmbedder(SymmetricEmbedder):
    """MiniLM was trained symmetric: documents and queries get no prefix and the same pooling."""

    provider = "builtin"

    def __init__(
        self,
        threads: int | None = None,
        max_tokens: int | None = None,
        model_dir: Path = MODEL_DIR,
    ) -> None:
        import onnxruntime as ort
        from tokenizers import Tokenizer

        try:
            meta = json.loads((model_dir / "model.json").read_text(encoding="utf-8"))
        except (OSError, ValueError) as e:
            raise EmbedderError(f"the built-in embedder's model.json is unreadable: {e}") from e
        files = meta["files"]
        tok_json = _verified_bytes(model_dir / "tokenizer.json", files["tokenizer.json"]["sha256"])

        max_tokens = meta["max_tokens"] if max_tokens is None else max_tokens
        if not 2 <= max_tokens <= meta["max_positions"]:  # [CLS] and [SEP] take two
            raise ValueError(f"max_tokens must be 2..{meta['max_positions']}, not {max_tokens}")
        if threads is None:
            threads = min(4, os.cpu_count() or 1)
        if threads < 1:
            raise ValueError(f"threads must be at least 1, not {threads}")
        self._workers = threads

        # The shipped tokenizer.json pads everything to 128: a batch of one needs no padding, and
        # padded positions would only cost time.
        self._tokenizer = Tokenizer.from_str(tok_json.decode("utf-8"))
        self._tokenizer.no_padding()
        self._tokenizer.enable_truncation(max_length=max_tokens)

        self._session = _session(ort, model_dir / "model.onnx", files["model.onnx"], self._probe)
        self._identity = EmbedderIdentity(
            name=meta["name"],
            dimension=meta["dimension"],
            weights_sha256=files["model.onnx"]["sha256"],
            max_tokens=max_tokens,
        )

    def _embed(self, texts: Sequence[str]) -> np.ndarray:
        if isinstance(texts, str):  # a bare string would be embedded one character at a time
            raise TypeError("embed a list of strings, not a string")
        out = np.empty((len(texts), self._identity.dimension), dtype=np.float32)
        # A text that occurs twice is embedded once (an overload's stubs, generated twins).
        first: dict[str, int] = {}
        for i, text in enumerate(texts):
            first.setdefault(text, i)
        # Longest first, handed out one at a time: the workers finish together.
        order = sorted(first.values(), key=lambda i: -len(texts[i]))

        def embed_one(i: int) -> None:
            out[i] = self._vector(texts[i])

        workers = min(self._workers, len(order))
        if workers <= 1:
            for i in order:
                embed_one(i)
        else:
            # onnxruntime lets go of the GIL inside a run, and a session may run on several
            # threads at once: ``workers`` texts are computed side by side, one core each.
            with ThreadPoolExecutor(max_workers=workers) as pool:
                for _ in pool.map(embed_one, order):
                    pass
        for i, text in enumerate(texts):
            if first[text] != i:
                out[i] = out[first[text]]
        return out

    def _feed(self, text: str) -> dict[str, np.ndarray]:
        ids = np.asarray([self._tokenizer.encode(text).ids], dtype=np.int64)
        return {"input_ids": ids, "attention_mask": np.ones_like(ids),
                "token_type_ids": np.zeros_like(ids)}  # fmt: skip

    def _probe(self, session) -> np.ndarray:
        """The raw output of ``session`` for a fixed code text (comparing two sessions)."""
        return session.run(None, self._feed(_PROBE))[0]

    def _vector(self, text: str) -> np.ndarray:
        # One text per run, on purpose: dynamic int8 quantization picks one activation scale per
        # run, so a text batched with others gets another vector (cosine down to 0.974). At batch 1
        # a vector depends on its text alone, so incremental and full indexing agree.
        (hidden,) = self._session.run(None, self._feed(text))
        # Mean over the attention mask; with no padding that is every token (an empty string
        # still has [CLS] and [SEP]).
        vec = hidden[0].mean(axis=0)
        return vec / max(float(np.linalg.norm(vec)), 1e-12)


# --- the optimized graph, kept per machine --------------------------------------------------------

_PROBE = (
    'def get_debug_flag() -> bool:\n    """Whether debug mode is on."""\n    return bool(val)\n'
)


def _options(ort, optimize: bool):
    opts = ort.SessionOptions()
    # One thread per run: ``threads`` runs go side by side instead (see _embed). Explicit, or
    # onnxruntime takes every core, fighting the indexer's other work.
    opts.intra_op_num_threads = 1
    opts.inter_op_num_threads = 1
    if not optimize:  # the graph was optimized when it was saved
        opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    return opts


def _optimized_path(ort, model_sha256: str) -> Path:
    """Where this machine keeps the model's optimized graph: under the user's cache directory,
    named by the model, onnxruntime's version and the CPU (the optimizer fuses and lays out
    operators for the CPU it runs on, so the file is valid on this kind of machine only)."""
    import platform

    try:  # the CPU's model and flags (platform.processor() runs `uname -p`: 4 ms a query)
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as f:
            seen = {}
            for line in f:
                name = line.split(":", 1)[0].strip()
                if name in ("model name", "flags") and name not in seen:
                    seen[name] = line
                if len(seen) == 2:
                    break
        processor = f"{seen.get('model name', '')}|{seen.get('flags', '')}"
    except OSError:  # not Linux: the processor's name and the architecture stand for it
        processor = platform.processor()
    cpu = f"{ort.__version__}|{platform.machine()}|{processor}"
    key = hashlib.sha256(cpu.encode()).hexdigest()[:16]
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "codebot" / "onnx" / f"{model_sha256[:16]}-{key}.onnx"


def _stat(path: Path) -> list[int]:
    st = path.stat()
    return [st.st_size, st.st_mtime_ns, st.st_ino, st.st_dev]


def _session(ort, model_path: Path, expected: dict, probe):
    """An inference session of the shipped model, whose bytes are checked against model.json.

    onnxruntime optimizes the graph every time a session is made from the shipped file: most of
    the time a one-query CLI process spends building its session (0.43 s against 0.16 s under
    load). The first process on a machine saves the optimized graph under the user's cache
    directory, and keeps it only when a session made from it gives the shipped model's output bit
    for bit (``probe``). Its record names the sha256 of both files and their size, modification
    time and inode then: while neither file has changed since (the shipped one's bytes were
    checked against model.json when the record was written), later processes load the saved graph
    without hashing 23 MB twice or optimizing again. Anything else (a changed or damaged file, a
    record of another model): the shipped model is read and checked, and optimized, as before.
    """
    providers = ["CPUExecutionProvider"]
    sha256 = expected["sha256"]
    path = _optimized_path(ort, sha256)
    record = path.with_suffix(".json")
    try:
        meta = json.loads(record.read_text(encoding="utf-8"))
        if (
            meta.get("model_sha256") == sha256
            and meta.get("model_stat") == _stat(model_path)
            and meta.get("stat") == _stat(path)
        ):
            return ort.InferenceSession(str(path), _options(ort, False), providers=providers)
    except Exception:  # noqa: BLE001 - absent, damaged, or refused by onnxruntime (whose
        pass  # errors derive from Exception alone): made again below
    model = _verified_bytes(model_path, sha256, expected.get("size"))
    model_stat = _stat(model_path)
    opts = _options(ort, True)
    opts.log_severity_level = 3  # not the warning that the saved graph suits this CPU only
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        opts.optimized_model_filepath = str(tmp)
    except OSError:
        return ort.InferenceSession(model, opts, providers=providers)  # nowhere to keep it
    session = ort.InferenceSession(model, opts, providers=providers)
    try:
        saved = tmp.read_bytes()
        again = ort.InferenceSession(saved, _options(ort, False), providers=providers)
        if np.array_equal(probe(session), probe(again)):
            os.replace(tmp, path)
            record_tmp = record.with_name(f".{record.name}.{os.getpid()}.tmp")
            record_tmp.write_text(json.dumps({
                "model_sha256": sha256, "model_stat": model_stat,
                "sha256": hashlib.sha256(saved).hexdigest(), "stat": _stat(path),
                "onnxruntime": ort.__version__,
            }))  # fmt: skip
            os.replace(record_tmp, record)
    except Exception:  # noqa: BLE001 - onnxruntime's errors derive from Exception alone
        pass  # the next process tries again; this one has its session
    finally:
        tmp.unlink(missing_ok=True)
    return session

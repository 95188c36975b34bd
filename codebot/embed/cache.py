"""Vectors cached by the hash of the text that was embedded: nothing is embedded twice.

One append-only file per embedder identity (vectors of two models never meet). Each record is a
16-byte text hash followed by the float16 vector. Records are appended and flushed as they are
made, so an interrupted build keeps everything it embedded and the next run resumes from there;
a torn last record is ignored on load.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np

from codebot.embed.base import EmbedderIdentity

__all__ = ["VectorCache", "text_key"]

_KEY = 16


def text_key(text: str) -> bytes:
    return hashlib.blake2b(text.encode("utf-8", "replace"), digest_size=_KEY).digest()


class VectorCache:
    def __init__(self, directory: Path, identity: EmbedderIdentity) -> None:
        digest = hashlib.sha256(json.dumps(identity.to_dict(), sort_keys=True).encode()).hexdigest()
        self.path = directory / f"vectors-{identity.name}-{digest[:16]}.bin"
        self.dim = identity.dimension
        self.record = _KEY + 2 * self.dim
        self._rows: dict[bytes, np.ndarray] = {}  # key -> a float16 row (a view into the file)
        self._pending: list[tuple[bytes, np.ndarray]] = []
        self._load()

    def _load(self) -> None:
        try:
            data = self.path.read_bytes()
        except FileNotFoundError:
            return
        count = len(data) // self.record
        if count == 0:
            return
        raw = np.frombuffer(data[: count * self.record], dtype=np.uint8).reshape(count, self.record)
        vectors = raw[:, _KEY:].copy().view(np.float16)
        keys = raw[:, :_KEY].tobytes()
        for i in range(count):
            self._rows[keys[i * _KEY : (i + 1) * _KEY]] = vectors[i]  # a later record wins

    def __len__(self) -> int:
        return len(self._rows)

    def get(self, key: bytes) -> np.ndarray | None:
        row = self._rows.get(key)
        return None if row is None else row.astype(np.float32)

    def put(self, key: bytes, vector: np.ndarray) -> None:
        self._pending.append((key, vector.astype(np.float16)))
        if len(self._pending) >= 32:
            self.flush()

    def flush(self) -> None:
        if not self._pending:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with open(self.path, "ab") as f:
            f.write(b"".join(k + v.tobytes() for k, v in self._pending))
        self._rows.update(self._pending)
        self._pending.clear()

    def compact(self, live: set[bytes]) -> None:
        """Rewrite the file with only ``live`` keys once dead ones outnumber them."""
        self.flush()
        if len(self._rows) <= 2 * max(len(live), 1000):
            return
        keep = {k: v for k, v in self._rows.items() if k in live}
        tmp = self.path.with_suffix(".tmp")
        with open(tmp, "wb") as f:
            f.write(b"".join(k + v.tobytes() for k, v in keep.items()))
        tmp.replace(self.path)
        self._rows = keep

"""Nearest neighbours over symbol vectors with usearch.

Keys are symbol keys (``store.symbol_key``: a hash of the symbol id, stable while rows move).
Large indexes are searched through usearch's HNSW graph, its file opened as a memory-mapped
view: a short-lived CLI process pays milliseconds, not a full load. Below :data:`EXACT_BELOW`
vectors the search is exact (perfect recall, fast enough), and the same vectors are also kept
in :data:`EXACT_FILE`, which numpy searches without importing usearch (its import is a tenth
of a hybrid CLI query on flask)::

    vectors.f16   <u8 n, <u8 dimension, n <u8 keys (ascending), n x dimension <f2 vectors

A missing, truncated or corrupt file is a DamagedIndex naming it (usearch checks the header and
the size; the exact file's size must be what its header says).
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import numpy as np

from codebot.core.errors import DamagedIndex

__all__ = [
    "EXACT_BELOW",
    "EXACT_FILE",
    "VectorIndex",
    "build_vectors",
]

EXACT_BELOW = 20_000
EXACT_FILE = "vectors.f16"


def _usearch_index():
    """usearch's Index class, imported after onnxruntime: a process that imports usearch 2.26
    (its numkong kernels) first crashes with a segmentation fault when it later imports
    onnxruntime 1.2x, which an update does when the built-in embedder loads after vectors were
    written (measured: ``import usearch.index, onnxruntime`` segfaults; the reverse order runs)."""
    try:
        import onnxruntime  # noqa: F401
    except ImportError:  # keyword-only installs may lack it; then nothing can crash either
        pass
    from usearch.index import Index

    return Index


def _restore(path: Path, view: bool):
    """The usearch index in ``path``; a DamagedIndex when it is missing or unreadable."""
    Index = _usearch_index()
    if not path.is_file():
        raise DamagedIndex(path, "the vector index is missing")
    try:
        index = Index.restore(str(path), view=view)
    except (ValueError, RuntimeError, OSError) as exc:
        raise DamagedIndex(path, f"unreadable vector index: {exc}") from exc
    if index is None:  # usearch's answer to a file whose header it cannot read
        raise DamagedIndex(path, "not a usearch vector index")
    return index


def build_vectors(
    path: Path,
    keys: np.ndarray,
    vectors: np.ndarray,
    base: Path | None = None,
    remove: np.ndarray | None = None,
) -> None:
    """Write the vectors of ``keys`` to ``path``: a new index, or ``base`` less the ``remove``
    keys plus these (an update: one load and one save, the HNSW graph patched, not rebuilt)."""
    Index = _usearch_index()

    if base is None:
        index = Index(ndim=vectors.shape[1], metric="cos", dtype="f16")
    else:
        index = _restore(base, view=False)
        if remove is not None and len(remove):
            index.remove(remove.astype(np.uint64))
    if len(keys):
        index.add(keys.astype(np.uint64), vectors.astype(np.float32))
    tmp = path.with_name(path.name + ".tmp")  # never save over a file that may be open as a view
    index.save(str(tmp))
    tmp.replace(path)
    exact = path.with_name(EXACT_FILE)
    if len(index) < EXACT_BELOW:  # the vectors usearch holds (f16), read back in key order
        held = np.sort(np.fromiter(index.keys, dtype=np.uint64, count=len(index)))
        matrix = np.vstack(index.get(held, dtype=np.float16)) if len(held) else None
        _write_exact(exact, held, matrix, index.ndim)
    elif exact.exists():
        exact.unlink()


def _write_exact(path: Path, keys: np.ndarray, matrix: np.ndarray | None, ndim: int) -> None:
    tmp = path.with_name(path.name + ".tmp")  # written anew: the base's may be linked here
    with open(tmp, "wb") as f:
        f.write(np.array([len(keys), ndim], dtype="<u8").tobytes())
        f.write(keys.astype("<u8").tobytes())
        if matrix is not None:
            f.write(matrix.astype("<f2").tobytes())
    tmp.replace(path)


def _read_exact(path: Path) -> tuple[np.ndarray, np.ndarray]:
    """(keys, vectors as float32 rows of unit length) of an exact file; DamagedIndex when its
    size is not what its header says."""
    if not path.is_file():
        raise DamagedIndex(path, "the vector file is missing")
    try:
        data = np.fromfile(path, dtype=np.uint8)
    except OSError as exc:
        raise DamagedIndex(path, f"unreadable vector file: {exc}") from exc
    if len(data) < 16:
        raise DamagedIndex(path, "the vector file is truncated")
    n, ndim = (int(v) for v in data[:16].view("<u8"))
    if n > len(data) or ndim > len(data) or len(data) != 16 + n * (8 + 2 * ndim):
        raise DamagedIndex(path, f"{len(data)} bytes, not the {n} vectors its header says")
    keys = data[16 : 16 + 8 * n].view("<u8")
    vectors = data[16 + 8 * n :].view("<f2").reshape(n, ndim).astype(np.float32)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return keys, vectors / np.where(norms > 0, norms, 1.0)


class VectorIndex:
    """The vectors of a generation, searched. ``exclude``: keys whose vectors are missing or
    out of date (the manifest's ``vectors_behind``: an update left them to the background
    embedder); they never come back as hits."""

    def __init__(
        self, path: Path, exclude: Iterable[int] | None = None, exact: bool = False
    ) -> None:
        """``exact``: the generation has an :data:`EXACT_FILE` beside ``path`` (its manifest
        lists one): searched instead of usearch's file."""
        self._exact = _read_exact(path.with_name(EXACT_FILE)) if exact else None
        self._index = _restore(path, view=True) if self._exact is None else None
        self._exclude = frozenset(exclude or ())

    def __len__(self) -> int:
        return len(self._exact[0]) if self._exact is not None else len(self._index)

    def search(self, vector: np.ndarray, limit: int) -> list[tuple[int, float]]:
        """(key, cosine similarity) of the nearest ``limit`` vectors, nearest first."""
        if not len(self):
            return []
        if self._exact is not None:
            return self._search_exact(vector, limit)
        exact = len(self) < EXACT_BELOW
        vector = vector.astype(np.float32)
        # Excluded keys are read past, not asked for up front: a large update may leave
        # thousands behind, and asking for that many more neighbours would slow every query.
        want = limit
        while True:
            found = self._index.search(vector, want, exact=exact)
            hits = [(int(k), 1.0 - float(d)) for k, d in zip(found.keys, found.distances)]
            if not self._exclude:
                return hits
            kept = [hit for hit in hits if hit[0] not in self._exclude]
            if len(kept) >= limit or len(hits) < want or want >= len(self):
                return kept[:limit]
            want *= 4

    def _search_exact(self, vector: np.ndarray, limit: int) -> list[tuple[int, float]]:
        keys, vectors = self._exact
        if vector.shape != (vectors.shape[1],):
            raise ValueError(
                f"a query vector of {vector.shape}, the index's are {vectors.shape[1]}"
            )
        norm = float(np.linalg.norm(vector)) or 1.0
        sims = vectors @ (vector.astype(np.float32) / norm)
        if self._exclude:
            sims[np.isin(keys, np.fromiter(self._exclude, np.uint64))] = -np.inf
        limit = min(limit, len(sims))
        top = np.argpartition(-sims, limit - 1)[:limit]
        top = top[np.lexsort((keys[top], -sims[top]))]  # nearest first, ties by key
        return [(int(keys[i]), float(sims[i])) for i in top if sims[i] != -np.inf]

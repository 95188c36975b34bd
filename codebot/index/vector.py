"""Nearest neighbours over symbol vectors with usearch.

Keys are symbol keys (``store.symbol_key``: a hash of the symbol id, stable while rows move). Small indexes are searched exactly (perfect recall and
fast enough below ~20k vectors); larger ones through the HNSW graph. The file is opened as a
memory-mapped view: a short-lived CLI process pays milliseconds, not a full load. A missing,
truncated or corrupt file is a DamagedIndex naming it (usearch checks the header and the size).
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import numpy as np

from codebot.core.errors import DamagedIndex

__all__ = [
    "VectorIndex",
    "build_vectors",
]

_EXACT_BELOW = 20_000


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


class VectorIndex:
    """The vectors of a generation, searched. ``exclude``: keys whose vectors are missing or
    out of date (the manifest's ``vectors_behind``: an update left them to the background
    embedder); they never come back as hits."""

    def __init__(self, path: Path, exclude: Iterable[int] | None = None) -> None:
        self._index = _restore(path, view=True)
        self._exclude = frozenset(exclude or ())

    def __len__(self) -> int:
        return len(self._index)

    def search(self, vector: np.ndarray, limit: int) -> list[tuple[int, float]]:
        """(key, cosine similarity) of the nearest ``limit`` vectors, nearest first."""
        if not len(self):
            return []
        exact = len(self) < _EXACT_BELOW
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

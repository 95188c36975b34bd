"""Nearest neighbours over symbol vectors with usearch.

Keys are symbol keys (``store.symbol_key``: a hash of the symbol id, stable while rows move). Small indexes are searched exactly (perfect recall and
fast enough below ~20k vectors); larger ones through the HNSW graph. The file is opened as a
memory-mapped view: a short-lived CLI process pays milliseconds, not a full load.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

_EXACT_BELOW = 20_000


def build_vectors(
    path: Path,
    keys: np.ndarray,
    vectors: np.ndarray,
    base: Path | None = None,
    remove: np.ndarray | None = None,
) -> None:
    """Write the vectors of ``keys`` to ``path``: a new index, or ``base`` less the ``remove``
    keys plus these (an update: one load and one save, the HNSW graph patched, not rebuilt)."""
    from usearch.index import Index

    if base is None:
        index = Index(ndim=vectors.shape[1], metric="cos", dtype="f16")
    else:
        index = Index.restore(str(base))
        if remove is not None and len(remove):
            index.remove(remove.astype(np.uint64))
    if len(keys):
        index.add(keys.astype(np.uint64), vectors.astype(np.float32))
    tmp = path.with_name(path.name + ".tmp")  # never save over a file that may be open as a view
    index.save(str(tmp))
    tmp.replace(path)


class VectorIndex:
    def __init__(self, path: Path) -> None:
        from usearch.index import Index

        self._index = Index.restore(str(path), view=True)

    def __len__(self) -> int:
        return 0 if self._index is None else len(self._index)

    def search(self, vector: np.ndarray, limit: int) -> list[tuple[int, float]]:
        """(key, cosine similarity) of the nearest ``limit`` vectors, nearest first."""
        if not len(self):
            return []
        found = self._index.search(vector.astype(np.float32), limit, exact=len(self) < _EXACT_BELOW)
        return [(int(k), 1.0 - float(d)) for k, d in zip(found.keys, found.distances)]

"""Nearest neighbours over symbol vectors with usearch.

Keys are row numbers of the symbol table. Small indexes are searched exactly (perfect recall and
fast enough below ~20k vectors); larger ones through the HNSW graph. The file is opened as a
memory-mapped view: a short-lived CLI process pays milliseconds, not a full load.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

_EXACT_BELOW = 20_000


def build_vectors(path: Path, rows: np.ndarray, vectors: np.ndarray) -> None:
    from usearch.index import Index

    index = Index(ndim=vectors.shape[1], metric="cos", dtype="f16")
    if len(rows):
        index.add(rows.astype(np.uint64), vectors.astype(np.float32))
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
        """(row, cosine similarity) of the nearest ``limit`` vectors, nearest first."""
        if not len(self):
            return []
        found = self._index.search(vector.astype(np.float32), limit, exact=len(self) < _EXACT_BELOW)
        return [(int(k), 1.0 - float(d)) for k, d in zip(found.keys, found.distances)]

"""``graph.msgpack``: the call graph of a generation as packed integer arrays in a msgpack map.

Every array is raw little-endian bytes of a fixed width (``<i4`` rows and lines, ``u1`` codes,
``<f8`` PageRank), so loading is a few ``np.frombuffer`` calls (STACK.md: < 1 ms for 200k
edges, against 35 ms for string edge lists). The map::

    format        GRAPH_FORMAT; a reader refuses another version and says what to do
    symbols       n, the number of rows of the symbol table the rows refer to
    kinds         the edge kind names, in code order; resolutions likewise
    src dst line  per edge (sorted by source, kind, line, destination); kind resolution per edge
    external unresolved community pagerank     per symbol
    entry_points leaves isolated               rows
    communities   [id, size, [central rows], [[path, count], ...]] per community
    meta          small facts about the build (community method, dropped edges)
    file_sites    optional: the call-site counters of each file, for updates that resolve only
                  the files a change can affect (graph/incremental.py): {"keys": counter names,
                  "languages": names, "paths": [path per row], "rows": <i4 (language code,
                  counters...) per row}

No pickle: a file from elsewhere (a shared index artifact) can damage nothing but itself. A
missing, truncated or inconsistent file is a :class:`~codebot.core.errors.DamagedIndex` naming it
(rebuild); a file of another format version a :class:`~codebot.core.errors.StoreError`.
"""

from __future__ import annotations

import gc
from pathlib import Path
from typing import Any

import numpy as np

from codebot.core.errors import DamagedIndex, StoreError
from codebot.core.model import EDGE_KINDS, RESOLUTIONS
from codebot.graph.callgraph import (
    F64,
    GRAPH_FILE,
    GRAPH_FORMAT,
    I32,
    KIND_CODE,
    RESOLUTION_CODE,
    U8,
    CodeGraph,
    Community,
)

__all__ = ["load_graph", "pack_graph", "save_graph", "unpack_graph"]


def save_graph(graph: CodeGraph, path: Path) -> None:
    path.write_bytes(pack_graph(graph))


def load_graph(path: Path) -> CodeGraph:
    """The graph in ``path``; a DamagedIndex when the file is missing or unreadable."""
    try:
        blob = path.read_bytes()
    except FileNotFoundError:
        raise DamagedIndex(
            path, "no call graph: the file is missing (an index by an older codebot had none)"
        ) from None
    except OSError as exc:
        raise DamagedIndex(path, f"cannot read the call graph: {exc}") from exc
    return unpack_graph(blob, str(path))


def pack_graph(g: CodeGraph) -> bytes:
    import msgpack

    def raw(a: np.ndarray, dtype: np.dtype) -> bytes:
        return np.ascontiguousarray(a, dtype=dtype).tobytes()

    data = {
        "format": GRAPH_FORMAT,
        "symbols": g.n,
        "kinds": list(EDGE_KINDS),  # the code tables travel with the codes
        "resolutions": list(RESOLUTIONS),
        "src": raw(g.src, I32),
        "dst": raw(g.dst, I32),
        "kind": raw(g.kind, U8),
        "resolution": raw(g.resolution, U8),
        "line": raw(g.line, I32),
        "external": raw(g.external, I32),
        "unresolved": raw(g.unresolved, I32),
        "pagerank": raw(g.pagerank, F64),
        "community": raw(g.community, I32),
        "communities": [
            [c.id, c.size, list(c.central), [list(p) for p in c.paths]] for c in g.communities
        ],
        "entry_points": raw(g.entry_points, I32),
        "leaves": raw(g.leaves, I32),
        "isolated": raw(g.isolated, I32),
        "meta": g.meta,
    }
    if g.file_sites is not None:
        data["file_sites"] = g.file_sites
    return msgpack.packb(data, use_bin_type=True)


def unpack_graph(blob: bytes, where: str = GRAPH_FILE) -> CodeGraph:
    import msgpack

    def broken(why: object) -> DamagedIndex:
        return DamagedIndex(where, f"unreadable call graph: {why}")

    gc.disable()  # bulk load: the collector would only get in the way (STACK.md)
    try:
        data = msgpack.unpackb(blob, raw=False)
    except (ValueError, TypeError, msgpack.UnpackException) as exc:
        raise broken(exc) from exc
    finally:
        gc.enable()
    if not isinstance(data, dict) or "format" not in data:
        raise broken("not a codebot call graph")
    version = data["format"]
    if version != GRAPH_FORMAT:
        newer = isinstance(version, int) and version > GRAPH_FORMAT
        hint = "upgrade codebot" if newer else "rebuild it with: codebot index"
        raise StoreError(
            f"{where}: call graph format {version}, this codebot reads {GRAPH_FORMAT}; {hint}"
        )
    try:
        return _from_dict(data)
    except (KeyError, ValueError, TypeError, IndexError, AttributeError) as exc:
        raise broken(f"{exc.__class__.__name__}: {exc}") from exc


def _from_dict(data: dict[str, Any]) -> CodeGraph:
    def arr(name: str, dtype: np.dtype) -> np.ndarray:
        return np.frombuffer(data[name], dtype=dtype)

    n = int(data["symbols"])
    kind, resolution = arr("kind", U8), arr("resolution", U8)
    # The code tables travel with the codes: recode if they ever change order.
    kinds = [KIND_CODE[k] for k in data["kinds"]]
    resolutions = [RESOLUTION_CODE[r] for r in data["resolutions"]]
    if kinds != list(range(len(kinds))):
        kind = np.asarray(kinds, dtype=U8)[kind]
    if resolutions != list(range(len(resolutions))):
        resolution = np.asarray(resolutions, dtype=U8)[resolution]
    src, dst, line = arr("src", I32), arr("dst", I32), arr("line", I32)
    per_symbol = [arr(k, I32) for k in ("external", "unresolved", "community")]
    pagerank = arr("pagerank", F64)
    # Cheap checks (well under a millisecond at 200k edges) so that a damaged file is an
    # error that says rebuild, not an IndexError deep in a query.
    if not len(src) == len(dst) == len(kind) == len(resolution) == len(line):
        raise ValueError("edge arrays of different lengths")
    if any(len(a) != n for a in (*per_symbol, pagerank)):
        raise ValueError("per-symbol arrays do not match the symbol count")
    if len(src) and (min(src.min(), dst.min()) < 0 or max(src.max(), dst.max()) >= n):
        raise ValueError("an edge points outside the symbol table")
    g = CodeGraph(n, src, dst, kind, resolution, line, *per_symbol[:2], presorted=True)
    g.pagerank, g.community = pagerank, per_symbol[2]
    g.communities = [
        Community(i, size, tuple(central), tuple((p, c) for p, c in paths))
        for i, size, central, paths in data["communities"]
    ]
    g.entry_points, g.leaves = arr("entry_points", I32), arr("leaves", I32)
    g.isolated = arr("isolated", I32)
    g.meta = dict(data["meta"])
    g.file_sites = data.get("file_sites")  # decoded only by an update that needs it
    return g

"""The one way a generation is written: build, update, settle, overlay and artifact install all
go through :class:`GenerationWriter`.

    writer = GenerationWriter(index_dir, base)        gen-<n>.tmp/  (empty; stale temps cleared)
    writer.lexical() ... .close()                     lexical/      (fresh, or the base's + edits)
    writer.tables(files)                              symbols.msgpack, files.msgpack, keys.u64
    writer.graph(files, symbols)                      graph.msgpack (calls resolved, analytics;
                                                      precise edges merged: precise.msgpack;
                                                      an update: graph_update, the files a
                                                      change can affect resolved again)
    writer.vectors(keys, vectors)                     vectors.usearch (fresh, or the base's patched)
    writer.commit(manifest)                           checksums, rename to gen-<n>, manifest.json,
                                                      older generations pruned

The manifest is written last, by a rename: that is the commit point. A writer left by an
exception (or a ``with`` block that raises) removes its temporary directory, so a failed build or
a full disk leaves the previous index and no half-written generation behind. The caller holds the
index's write lock (``store.lock_for_writing``).
"""

from __future__ import annotations

import errno
import fcntl
import json
import os
import re
import shutil
import time
from pathlib import Path
from typing import TYPE_CHECKING

from codebot.core import __version__
from codebot.core.errors import StoreError
from codebot.core.model import FileResult, Symbol
from codebot.index.store import (
    FORMAT_VERSION,
    MANIFEST,
    Index,
    Manifest,
    link_or_copy,
    sha256_file,
    write_atomic,
)
from codebot.index.tables import KEYS_FILE, FileEntry, pack_files, symbol_keys, write_symbols

if TYPE_CHECKING:
    import numpy as np

    from codebot.graph.callgraph import CodeGraph
    from codebot.graph.incremental import Previous
    from codebot.graph.precise import PreciseEdges
    from codebot.graph.resolve import Resolution
    from codebot.index.lexical import LexicalWriter

__all__ = ["GenerationWriter", "LEXICAL_DIR", "VECTORS_FILE", "retarget", "storage_failure"]

LEXICAL_DIR = "lexical"
VECTORS_FILE = "vectors.usearch"


class GenerationWriter:
    """Writes the next generation of ``index_dir``; ``base``: the generation it starts from (an
    update links the base's unchanged files and patches its keyword and vector indexes)."""

    def __init__(self, index_dir: Path, base: Index | None = None) -> None:
        self.index_dir = index_dir
        self.base = base
        self.precise: PreciseEdges | None = None  # precise edges to merge, instead of the base's
        self.last_graph_meta: dict = {}  # what the last graph() wrote in the graph's meta
        self.dir = _new_generation_dir(index_dir)
        self.graph_timings: dict[str, float] = {}  # seconds per part of the last graph()

    def __enter__(self) -> GenerationWriter:
        return self

    def __exit__(self, kind, exc, tb) -> None:
        if kind is not None:
            self.abort()
            reason = storage_failure(exc)
            if reason is not None:
                raise StoreError(
                    f"{self.index_dir}: cannot write the index ({reason}); nothing was changed: "
                    "the previous index is intact and the partial one was removed. Free some "
                    "space or fix the permissions, then run the command again"
                ) from exc

    def abort(self) -> None:
        """Remove the temporary generation (the current one stays as it was)."""
        shutil.rmtree(self.dir, ignore_errors=True)

    # --- the parts -------------------------------------------------------------------------------

    def lexical(self, incremental: bool = False, threads: int = 1) -> LexicalWriter:
        """The keyword index's writer: fresh, or (``incremental``) the base's, to add and delete."""
        from codebot.index.lexical import LexicalWriter

        base = self.base.gen_dir / LEXICAL_DIR if incremental and self.base else None
        return LexicalWriter(self.dir / LEXICAL_DIR, base=base, threads=threads)

    def tables(self, files: list[FileResult], keys=None, packed: list | None = None):
        """Write the symbol table, the file list and the symbol keys (``keys``: already hashed,
        by row; ``packed``: rows already packed, as ``SymbolTable.raw`` gives them, or None
        where a symbol is to be packed); returns the symbols and their keys, by row."""
        import numpy as np

        symbols = [s for f in files for s in f.symbols]
        write_symbols(self.dir / "symbols.msgpack", symbols, packed)
        (self.dir / "files.msgpack").write_bytes(pack_files([FileEntry.of(f) for f in files]))
        key_array = (
            symbol_keys(s.id for s in symbols) if keys is None else np.array(keys, dtype="<u8")
        )
        (self.dir / KEYS_FILE).write_bytes(key_array.tobytes())
        return symbols, key_array

    def graph(
        self, files: list[FileResult], symbols: list[Symbol], carry=None, communities=True
    ) -> dict[str, int]:
        """Resolve the calls, build the graph and its analytics, write it; returns the counts the
        manifest records. ``carry``: community labels to keep; ``communities``: detect them,
        or leave them pending (see graph.analytics)."""
        from codebot.graph.resolve import resolve

        t = time.perf_counter()
        resolution = resolve(files)
        return self.write_graph(
            files, symbols, resolution, carry, time.perf_counter() - t, communities
        )

    def graph_update(
        self,
        files: list[FileResult],
        symbols: list[Symbol],
        carry,
        previous: Previous | None,
        changed: set[str],
        communities=True,
    ) -> tuple[dict[str, int], int]:
        """:meth:`graph` for an update: only the files the change of the paths ``changed`` can
        affect are resolved again (graph/incremental.py), the others keep ``previous``'s
        results (None: no usable previous graph). Returns the counts, and how many files were
        resolved."""
        from codebot.graph.analytics import analyze
        from codebot.graph.incremental import merged_graph, resolve_changed

        # The previous graph holds the base's precise merge, not the heuristic edges the
        # freshness rule must fall back to: with precise edges, every file is resolved again.
        if self.precise_edges() is not None:
            previous = None
        found = None if previous is None else resolve_changed(files, previous, changed)
        if found is None:  # a base that kept too little to build on: resolve everything once
            return self.graph(files, symbols, carry, communities), len(files)
        assert previous is not None
        resolution, affected = found
        graph = merged_graph(symbols, resolution, previous, affected)
        graph.timings = analyze(graph, symbols, communities, carry)
        return self._save_resolved(graph, resolution), len(affected)

    def write_graph(
        self,
        files: list[FileResult],
        symbols: list[Symbol],
        resolution: Resolution,
        carry=None,
        resolved: float = 0.0,
        communities=True,
    ) -> dict[str, int]:
        """Build the graph of a resolution, the precise edges merged in, with its analytics and
        write it; the manifest's counts of it. ``resolved``: seconds the resolution took."""
        from codebot.graph.analytics import build_graph

        t = time.perf_counter()

        edges, precise = resolution.edges, self.precise_edges()
        if precise is not None:  # carried from the base: the merge sorts fresh from stale
            from codebot.graph.precise import merge_precise

            edges, precise_meta = merge_precise(edges, files, precise)
            self.save_precise(precise)
        graph = build_graph(
            symbols, edges, resolution.external, resolution.unresolved,
            communities=communities, carry=carry,
        )  # fmt: skip
        if precise is not None:
            graph.meta["precise"] = precise_meta
        # Where the graph stage's time goes: resolution, then the arrays and each analytic.
        analytics = getattr(graph, "timings", None) or {}
        built = max(0.0, time.perf_counter() - t - sum(analytics.values()))
        self.graph_timings = {"resolve": resolved, "arrays": built, **analytics}
        return self._save_resolved(graph, resolution)

    def _save_resolved(self, graph: CodeGraph, resolution: Resolution) -> dict[str, int]:
        from codebot.graph.incremental import pack_file_sites

        self.last_graph_meta = graph.meta
        # Call-site counts (an edge merges every call from one symbol to another), in all and
        # per language, by outcome and reason: for `stats`.
        graph.meta["call_sites"] = {k: int(v) for k, v in resolution.stats.items()}
        graph.meta["call_sites_by_language"] = resolution.by_language
        graph.file_sites = pack_file_sites(resolution.by_file)
        self.save_graph(graph)
        return {
            "edges": len(graph),
            "external_calls": int(graph.external.sum()),
            "unresolved_calls": int(graph.unresolved.sum()),
        }

    def precise_edges(self) -> PreciseEdges | None:
        """The precise edges this generation merges: set by ``codebot precise``
        (``self.precise``), or the base's, carried (None when neither has any)."""
        if self.precise is None and self.base is not None:
            from codebot.graph.precise import PRECISE_FILE, read_precise

            path = self.base.gen_dir / PRECISE_FILE
            if path.exists():  # read once: an update asks before it resolves and again to merge
                self.precise = read_precise(path)
        return self.precise

    def save_precise(self, precise: PreciseEdges) -> None:
        from codebot.graph.precise import PRECISE_FILE, pack_precise

        path = self.dir / PRECISE_FILE
        if path.exists():
            path.unlink()  # a link to the base's file: write a new one, never into it
        path.write_bytes(pack_precise(precise))

    def save_graph(self, graph: CodeGraph) -> None:
        from codebot.graph.callgraph import GRAPH_FILE
        from codebot.graph.io import save_graph

        path = self.dir / GRAPH_FILE
        if path.exists():
            path.unlink()  # a link to the base's file: write a new one, never into it
        save_graph(graph, path)

    def vectors(
        self, keys: np.ndarray, vectors: np.ndarray, remove: np.ndarray | None = None
    ) -> None:
        """Write the vectors of ``keys``: a new index, or (``remove`` given, with a base) the
        base's less ``remove`` plus these."""
        from codebot.index.vector import build_vectors

        base = self.base.gen_dir / VECTORS_FILE if remove is not None and self.base else None
        build_vectors(self.dir / VECTORS_FILE, keys, vectors, base=base, remove=remove)

    def link_vectors(self) -> None:
        """Hard-link the base's vectors unchanged (an update that leaves the vectors to the
        background embedder keeps the base's), the exact file too where there is one."""
        from codebot.index.vector import EXACT_FILE

        assert self.base is not None
        link_or_copy(self.base.gen_dir / VECTORS_FILE, self.dir / VECTORS_FILE)
        if (self.base.gen_dir / EXACT_FILE).exists():  # an index of 20k vectors and more has none
            link_or_copy(self.base.gen_dir / EXACT_FILE, self.dir / EXACT_FILE)

    def link_from_base(self, but: str) -> None:
        """Hard-link every file of the base except those under ``but`` (a settle rewrites one
        part and keeps the rest: linking copies nothing and leaves the base intact)."""
        assert self.base is not None
        for rel in self.base.manifest.checksums:
            if not rel.startswith(but):
                (self.dir / rel).parent.mkdir(parents=True, exist_ok=True)
                link_or_copy(self.base.gen_dir / rel, self.dir / rel)

    # --- the commit point ------------------------------------------------------------------------

    def commit(self, manifest: Manifest, known: dict[str, str] | None = None) -> Manifest:
        """Make this generation current: checksum it, move it into place, write the manifest,
        prune generations older than the previous one. ``known``: checksums of files that need
        no reading (default: those linked unchanged from the base)."""
        try:
            known = self._linked_checksums() if known is None else known
            checksums = {}
            for p in sorted(self.dir.rglob("*")):
                if p.is_file():
                    rel = p.relative_to(self.dir).as_posix()
                    checksums[rel] = known.get(rel) or sha256_file(p)
            final = self.index_dir / self.dir.name.removesuffix(".tmp")
            os.replace(self.dir, final)
        except BaseException:
            self.abort()
            raise
        manifest.checksums = checksums
        manifest.generation = final.name
        manifest.format_version = FORMAT_VERSION
        manifest.codebot_version = __version__
        manifest.created = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        try:
            write_atomic(
                self.index_dir / MANIFEST, json.dumps(manifest.to_dict(), indent=1).encode()
            )
        except BaseException:
            shutil.rmtree(final, ignore_errors=True)  # never named by a manifest: not an index
            raise
        _prune(self.index_dir, keep=final.name)
        return manifest

    def _linked_checksums(self) -> dict[str, str]:
        """Checksums of the base's files that this generation links unchanged (not re-read)."""
        if self.base is None:
            return {}
        known = {}
        for rel, digest in self.base.manifest.checksums.items():
            try:
                if os.path.samefile(self.dir / rel, self.base.gen_dir / rel):
                    known[rel] = digest
            except OSError:
                continue
        return known


# errno values, and the "(os error N)" Tantivy and usearch put in their messages, of a full or
# read-only disk: a condition to explain, not a bug.
_STORAGE_ERRNO = {
    errno.ENOSPC: "no space left on the device",
    errno.EDQUOT: "disk quota exceeded",
    errno.EFBIG: "file too large for the file system or the process's limit",
    errno.EROFS: "read-only file system",
    errno.EACCES: "permission denied",
    errno.EPERM: "operation not permitted",
}
_OS_ERROR = re.compile(r"os error (\d+)")


def storage_failure(exc: BaseException | None) -> str | None:
    """What a failed write says about the disk (full, read-only, no permission), or None when
    the failure is something else."""
    if isinstance(exc, OSError) and exc.errno in _STORAGE_ERRNO:
        return _STORAGE_ERRNO[exc.errno]
    if isinstance(exc, (ValueError, RuntimeError)):
        found = _OS_ERROR.search(str(exc))
        if found and int(found.group(1)) in _STORAGE_ERRNO:
            return _STORAGE_ERRNO[int(found.group(1))]
    return None


def retarget(index_dir: Path, manifest: Manifest, commit: str | None) -> Manifest:
    """Record that the current generation also describes ``commit`` (nothing it holds changed
    between the two: the commits differ only outside the indexed subtree)."""
    manifest.commit = commit
    write_atomic(index_dir / MANIFEST, json.dumps(manifest.to_dict(), indent=1).encode())
    return manifest


def _new_generation_dir(index_dir: Path) -> Path:
    """A fresh, empty directory for the next generation (left-over temp dirs are cleared)."""
    index_dir.mkdir(parents=True, exist_ok=True)
    for stale in index_dir.glob("gen-*.tmp"):
        shutil.rmtree(stale, ignore_errors=True)
    numbers = [int(p.name[4:]) for p in index_dir.glob("gen-*") if p.name[4:].isdigit()]
    tmp = index_dir / f"gen-{max(numbers, default=0) + 1}.tmp"
    tmp.mkdir(parents=True)
    return tmp


def _prune(index_dir: Path, keep: str) -> None:
    """Remove generations older than the one before ``keep`` that no reader holds (see
    ``store.hold_generation``); one still being read stays until a later writer's prune."""
    gens = sorted(
        (p for p in index_dir.glob("gen-*") if p.name[4:].isdigit()), key=lambda p: int(p.name[4:])
    )
    names = [p.name for p in gens]
    cut = names.index(keep) - 1 if keep in names else len(gens)
    for p in gens[: max(cut, 0)]:
        try:
            fd = os.open(p, os.O_RDONLY | os.O_DIRECTORY)
        except OSError:
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            continue  # a reader holds it
        else:
            shutil.rmtree(p, ignore_errors=True)
        finally:
            os.close(fd)

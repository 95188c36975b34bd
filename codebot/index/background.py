"""Vectors later: the index answers with keywords and the call graph at once, and the vectors
follow as the next generation, computed by one background process.

    codebot index            gen-N   keywords + graph, manifest "vectors_pending": {provider}
      └─ start_background    python -m codebot embed --detached   (survives the CLI's exit)
           finish_vectors    holds embed.lock (one embedder per index)
             1. texts of gen-N's symbols -> embedded through the cache  (no write lock: slow)
             2. write lock; the newest manifest (an update may have committed gen-N+1)
                -> its texts: all but an update's few come from the cache
                -> gen-N+2 = that generation's files linked + vectors.usearch, pending dropped
           then looks again (a build that landed meanwhile is pending anew)

    codebot update           gen-M   keywords + graph, the base's vectors.usearch kept, the
      └─ start_background            changed symbols' keys in "vectors_behind" (left out of
           finish_vectors            vector hits: found by keywords meanwhile)
             the same two steps for those symbols only (their files' texts, through the cache)
             -> gen-M+1 = gen-M's files linked + vectors.usearch less those keys plus their
                vectors, vectors_behind dropped

The rule that keeps an update and the embedder from losing each other's work: a generation
with vectors pending is written by anyone (build, update, settle, overlay) as keywords + graph,
the mark carried over; vectors are committed only by the embedder, only under the write lock,
only for the generation current at that moment. Progress goes to ``embed.progress`` (what
``codebot status`` and MCP ``index_status`` report); the vector cache keeps every vector as it
is made, so a killed embedder resumes where it stopped.
"""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from codebot.core.config import Config
from codebot.git.hooks import try_lock
from codebot.git.workspace import Workspace
from codebot.index.build import embed_texts, indexed_code
from codebot.index.embedding import chosen, deferred, record
from codebot.index.store import Index, Manifest, lock_for_writing, read_manifest, write_atomic
from codebot.index.tables import KEYS_FILE, file_result
from codebot.index.writer import VECTORS_FILE, GenerationWriter

__all__ = [
    "EMBED_LOCK",
    "EmbedProgress",
    "VectorsReport",
    "embedder_running",
    "embedding_progress",
    "finish_vectors",
    "in_background",
    "run_detached",
    "start_background",
    "vectors_owed",
]

EMBED_LOCK = "embed.lock"
PROGRESS_FILE = "embed.progress"
_WRITE_WAIT = 600.0  # seconds the embedder waits for another writer before its commit
_CHUNK = 64  # texts embedded between two writes of the cache: what a killed embedder loses
_PROGRESS_EVERY = 0.5  # seconds between writes of the progress file
_STARTING = 60.0  # seconds a spawned embedder may take to reach its lock
_NICE = 10  # the embedder's lower CPU priority (os.nice): queries meanwhile keep their speed

Progress = Callable[[int, int, str], None]


@dataclass(frozen=True)
class EmbedProgress:
    """Where the vectors of an index stand: ``state`` is complete, none (keywords only),
    running (an embedder is at work), or stopped (pending, and no embedder: interrupted or
    failed; ``codebot update`` or ``codebot embed`` resumes)."""

    state: str
    provider: str | None = None
    done: int = 0
    total: int = 0
    rate: float | None = None  # texts a second
    eta_s: float | None = None
    error: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "state": self.state,
            "provider": self.provider,
            "done": self.done,
            "total": self.total,
            "rate": None if self.rate is None else round(self.rate, 2),
            "eta_s": None if self.eta_s is None else round(self.eta_s, 1),
            "error": self.error,
        }

    def to_text(self) -> str:
        if self.state == "running":
            if not self.total:
                return f"being computed ({self.provider}): loading the model"
            eta = f", ETA {self.eta_s:.0f} s" if self.eta_s is not None else ""
            rate = f" at {self.rate:.0f}/s" if self.rate else ""
            return f"being computed ({self.provider}): {self.done:,}/{self.total:,}{rate}{eta}"
        why = f" ({self.error})" if self.error else ""
        return (
            f"pending ({self.provider}), no embedder running{why}: resume with codebot embed "
            "(searches use keywords and the call graph until then)"
        )


@dataclass
class VectorsReport:
    index_dir: Path
    manifest: Manifest | None  # None: nothing was pending
    embedded: int = 0  # vectors computed (the rest came from the cache)
    seconds: float = 0.0
    busy: bool = False  # another embedder holds the lock: it finishes the job

    def to_dict(self) -> dict[str, Any]:
        return {
            "index_dir": str(self.index_dir),
            "generation": self.manifest.generation if self.manifest else None,
            "vectors": self.manifest.counts["vectors"] if self.manifest else 0,
            "embedded": self.embedded,
            "busy": self.busy,
            "seconds": round(self.seconds, 3),
        }

    def to_text(self) -> str:
        if self.busy:
            return "another embedder is computing this index's vectors: codebot status shows it\n"
        if self.manifest is None:
            return "no vectors pending\n"
        return (
            f"vectors complete: {self.manifest.counts['vectors']:,} ({self.embedded:,} newly "
            f"embedded) in {self.seconds:.1f}s -> {self.manifest.generation}\n"
        )


def embedder_running(index_dir: Path) -> bool:
    """Whether a process holds the index's embed lock."""
    with try_lock(index_dir / EMBED_LOCK, create=False) as locked:
        return locked is False


def start_background(ws: Workspace, python: str = sys.executable) -> bool:
    """Start ``codebot embed --detached`` for ``ws`` unless an embedder already runs; True when
    one was started. The process outlives the caller (its own session, none of our streams)."""
    from codebot.git.hooks import spawn_detached

    if embedder_running(ws.index_dir):
        return False
    safe = ["-P"] if sys.version_info >= (3, 11) else []  # the installed codebot, never ./codebot
    target = str(ws.target if ws.target.is_dir() else ws.root)
    pid = spawn_detached(
        [python, *safe, "-m", "codebot", "embed", "--detached", "--index-dir", str(ws.index_dir),
         target]
    )  # fmt: skip
    # Until it holds the lock (a moment), the progress file names it: status says "running".
    _write_progress(ws.index_dir, {"pid": pid, "spawned": time.time()})
    return True


def vectors_owed(manifest: Manifest) -> bool:
    """Whether ``manifest``'s generation waits for vectors from the background embedder: all of
    them (a build's ``vectors_pending``) or an update's few (``vectors_behind``)."""
    return bool(manifest.vectors_pending or manifest.vectors_behind)


def in_background(ws: Workspace, manifest: Manifest) -> str | None:
    """Start the embedder when ``manifest`` waits for vectors and none runs; what the user
    should hear about it (None: nothing pending)."""
    if manifest.vectors_pending is None:
        if manifest.vectors_behind:
            start_background(ws)
        return None
    start_background(ws)
    n = manifest.counts.get("symbols", 0)
    eta = ""
    try:  # the rate of the last run, where there was one: the model and the machine are the same
        rate = _rate(json.loads((ws.index_dir / PROGRESS_FILE).read_text()))
        eta = f", ETA {n / rate:.0f} s" if rate else ""
    except (OSError, ValueError, AttributeError):
        pass
    return (
        f"answering with keywords and the call graph; embedding {n:,} symbols in the background"
        f"{eta} (codebot status shows progress; cached vectors are reused)"
    )


def embedding_progress(index_dir: Path, manifest: Manifest) -> EmbedProgress:
    """The state of ``manifest``'s vectors, from the embedder's progress file and lock."""
    if not vectors_owed(manifest):
        return EmbedProgress("none" if manifest.embedder is None else "complete")
    pending = manifest.vectors_pending or manifest.embedder or {}
    provider = pending.get("provider")
    try:
        data = json.loads((index_dir / PROGRESS_FILE).read_text())
    except (OSError, ValueError):
        data = {}
    data = data if isinstance(data, dict) else {}
    running = embedder_running(index_dir) or _starting(data)
    done, total = int(data.get("done", 0)), int(data.get("total", 0))
    rate = _rate(data) if running else None
    eta = (total - done) / rate if rate else None
    if running:
        return EmbedProgress("running", provider, done, total, rate, eta)
    return EmbedProgress("stopped", provider, done, total, error=data.get("error"))


def _starting(data: dict[str, Any]) -> bool:
    """Whether the progress file names an embedder just spawned and still alive (it has not
    taken the lock yet)."""
    try:
        pid, spawned = int(data["pid"]), float(data["spawned"])
    except (KeyError, TypeError, ValueError):
        return False
    if time.time() - spawned > _STARTING:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _rate(data: dict[str, Any]) -> float | None:
    """Texts a second in a progress record (from its first vector on), if it has one."""
    try:
        done = float(data["done"]) - float(data.get("base", 0))
        elapsed = float(data["updated"]) - float(data["started"])
    except (KeyError, TypeError, ValueError):
        return None
    return done / elapsed if done > 0 and elapsed > 0 else None


def finish_vectors(
    ws: Workspace,
    config: Config,
    progress: Progress | None = None,
    embedder=None,
) -> VectorsReport:
    """Compute and commit the vectors the index of ``ws`` waits for (see the module's text);
    ``busy`` in the report when another embedder holds the lock. An exception leaves the index
    as it was, pending, with what was embedded in the cache."""
    started = time.perf_counter()
    report = VectorsReport(ws.index_dir, None)
    while vectors_owed(read_manifest(ws.index_dir)):
        with try_lock(ws.index_dir / EMBED_LOCK) as locked:
            if not locked:
                report.busy = report.manifest is None
                break
            while vectors_owed(manifest := read_manifest(ws.index_dir)):
                one_pass = _one_pass if manifest.vectors_pending else _catch_up
                try:
                    committed, embedded = one_pass(ws, config, manifest, progress, embedder)
                except BaseException as exc:
                    _write_progress(ws.index_dir, {"error": f"{type(exc).__name__}: {exc}"})
                    raise
                report.embedded += embedded
                report.manifest = committed or report.manifest
        # The lock is let go: a build that committed before another embedder found it taken
        # is seen by the next look at the manifest.
    report.seconds = time.perf_counter() - started
    return report


def run_detached(ws: Workspace, config: Config) -> None:
    """The background embedder (``codebot embed --detached``): :func:`finish_vectors`, each
    outcome a line of the workspace's log (update.log, beside the git hooks' lines). Never
    raises: nobody is left to read an error but the log."""
    import traceback

    from codebot.git.hooks import append_log

    try:  # yield the CPU to what the user runs meanwhile: the first queries come right away
        os.nice(_NICE)
    except (AttributeError, OSError):  # not POSIX
        pass
    try:
        r = finish_vectors(ws, config)
    except Exception:
        append_log(ws.index_dir, f"vectors: failed\n{traceback.format_exc().rstrip()}")
        return
    if r.busy:
        append_log(ws.index_dir, "vectors: another embedder is at work")
    elif r.manifest is not None:
        append_log(
            ws.index_dir,
            f"vectors: {r.manifest.counts['vectors']} ({r.embedded} embedded) in "
            f"{r.seconds:.1f}s -> {r.manifest.generation}",
        )


def _reporter(ws: Workspace, manifest: Manifest, progress: Progress | None) -> Progress:
    """What an embedding pass calls per text: the progress file (``codebot status``), at most
    every _PROGRESS_EVERY seconds, and ``progress``."""
    shown = [0.0]
    first: list[float] = []  # when the first vector came, and its count: the rate leaves out
    # the model's loading

    def report(done: int, total: int, item: str) -> None:
        now = time.monotonic()
        if not first:
            first.extend((time.time(), done))
        if done == total or done == _CHUNK or now - shown[0] >= _PROGRESS_EVERY:
            shown[0] = now
            _write_progress(
                ws.index_dir,
                {"generation": manifest.generation, "done": done, "total": total,
                 "started": first[0], "base": first[1], "updated": time.time()},
            )  # fmt: skip
        if progress is not None:
            progress(done, total, item)

    _write_progress(ws.index_dir, {"generation": manifest.generation})
    return report


def _one_pass(
    ws: Workspace, config: Config, manifest: Manifest, progress: Progress | None, embedder
) -> tuple[Manifest | None, int]:
    pending = manifest.vectors_pending
    assert pending is not None
    cfg = replace(config, embedder=pending["provider"])
    embedder = chosen(cfg, embedder)
    report = _reporter(ws, manifest, progress)
    cache_dir = ws.index_dir / "cache"
    texts = _texts(ws, cfg, manifest)
    _, embedded = embed_texts(embedder, texts, cache_dir, report, False, _CHUNK)
    with lock_for_writing(ws.index_dir, wait=_WRITE_WAIT):
        current = read_manifest(ws.index_dir)  # an update may have landed meanwhile
        if not current.vectors_pending:
            return None, embedded
        if current.vectors_pending != pending:
            return None, embedded  # another model asked for since: the next pass embeds it
        base = Index(ws.index_dir, ws.root, current, ws.repo)
        vectors, more = embed_texts(embedder, _texts(ws, cfg, current), cache_dir, None)
        with GenerationWriter(ws.index_dir, base) as writer:
            writer.link_from_base(but=VECTORS_FILE)
            _detect_pending_communities(base, writer)
            import numpy as np

            keys = np.fromfile(base.gen_dir / KEYS_FILE, dtype="<u8")
            writer.vectors(keys, vectors)
            counts = {**current.counts, "vectors": int(len(keys))}
            done = Manifest(
                **{**vars(current), "counts": counts, "embedder": record(embedder, cfg),
                   "vectors_pending": None, "vectors_behind": None}
            )  # fmt: skip
            return writer.commit(done), embedded + more


def _detect_pending_communities(base: Index, writer: GenerationWriter) -> None:
    """The communities a build that answered at once left for later (``analytics.PENDING``):
    detected on its call graph, as the build would have, and written with the vectors."""
    from codebot.graph.analytics import PENDING, analyze

    graph = base.graph
    if graph.meta.get("community_method") == PENDING:
        analyze(graph, base.symbols)
        writer.save_graph(graph)


def _catch_up(
    ws: Workspace, config: Config, manifest: Manifest, progress: Progress | None, embedder
) -> tuple[Manifest | None, int]:
    """The vectors an update left behind (``vectors_behind``): the texts of those symbols only,
    embedded by the index's own model (loaded only for a text the cache lacks), then, under the
    write lock, the current generation with those keys' vectors replaced."""
    import numpy as np

    recorded = manifest.embedder
    model = deferred(recorded, config, embedder)
    cache_dir = ws.index_dir / "cache"
    keys, texts = _behind_texts(ws, config, manifest)
    _, embedded = embed_texts(
        model, texts, cache_dir, _reporter(ws, manifest, progress), False, _CHUNK
    )
    with lock_for_writing(ws.index_dir, wait=_WRITE_WAIT):
        current = read_manifest(ws.index_dir)  # an update may have landed meanwhile
        if current.vectors_pending or not current.vectors_behind:
            return None, embedded
        if current.embedder != recorded:
            return None, embedded  # rebuilt with another model since: the next pass looks again
        base = Index(ws.index_dir, ws.root, current, ws.repo)
        keys, texts = _behind_texts(ws, config, current)  # the few new ones: embedded now
        vectors, more = embed_texts(model, texts, cache_dir, None, False)
        with GenerationWriter(ws.index_dir, base) as writer:
            writer.link_from_base(but=VECTORS_FILE)
            stale = np.array(current.vectors_behind, dtype=np.uint64)
            writer.vectors(keys, vectors, remove=stale)
            done = Manifest(**{**vars(current), "vectors_behind": None})
            return writer.commit(done), embedded + more


def _behind_texts(ws: Workspace, config: Config, manifest: Manifest):
    """(keys, texts) of the symbols of ``manifest``'s generation whose vectors are behind,
    read from their files only (a removed symbol's key has no row: it is only removed)."""
    import numpy as np

    from codebot.index.text import embedding_text
    from codebot.parse.files import Selector, SourceFile

    base = Index(ws.index_dir, ws.root, manifest, ws.repo)
    selector = Selector(ws.root, ws.repo, config, manifest.commit if ws.repo else None)
    table, by_id = base.symbols, base.by_id
    all_keys = np.fromfile(base.gen_dir / KEYS_FILE, dtype="<u8")
    rows = set(np.flatnonzero(np.isin(all_keys, np.array(manifest.vectors_behind, "<u8"))).tolist())
    paths = {table[r].path for r in rows}
    keys: list[int] = []
    texts: list[str] = []
    in_git = ws.repo is not None and manifest.commit is not None
    for e in base.files():
        if e.path not in paths:
            continue
        source = SourceFile(
            e.path, ws.root / e.path, e.language, e.role, e.blob if in_git else None
        )
        at = [by_id[sid] for sid in e.symbols]
        f = file_result(e, [table[r] for r in at])
        for row, s, text in zip(at, f.symbols, indexed_code(f, selector.read(source))):
            if row in rows:
                keys.append(int(all_keys[row]))
                texts.append(embedding_text(s, text))
    return np.array(keys, dtype=np.uint64), texts


def _texts(ws: Workspace, config: Config, manifest: Manifest) -> list[str]:
    """What each symbol of ``manifest``'s generation is embedded by, by row (read as a build
    reads it: from git at the indexed commit, or from disk outside git)."""
    from codebot.index.text import embedding_text
    from codebot.parse.files import Selector, SourceFile

    base = Index(ws.index_dir, ws.root, manifest, ws.repo)
    selector = Selector(ws.root, ws.repo, config, manifest.commit if ws.repo else None)
    table, by_id = base.symbols, base.by_id
    texts: list[str] = [""] * len(table)
    in_git = ws.repo is not None and manifest.commit is not None
    for e in base.files():
        source = SourceFile(
            e.path, ws.root / e.path, e.language, e.role, e.blob if in_git else None
        )
        rows = [by_id[sid] for sid in e.symbols]
        f = file_result(e, [table[r] for r in rows])
        for row, s, text in zip(rows, f.symbols, indexed_code(f, selector.read(source))):
            texts[row] = embedding_text(s, text)
    return texts


def _write_progress(index_dir: Path, data: dict[str, Any]) -> None:
    try:
        data = {"pid": os.getpid(), **data}
        write_atomic(index_dir / PROGRESS_FILE, json.dumps(data).encode())
    except OSError:
        pass  # progress is a courtesy: never the reason vectors are not computed

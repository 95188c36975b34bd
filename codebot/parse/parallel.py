"""Parsing across processes: worker processes read and parse files, the caller gets the results
in file order.

    parse_sources(selector, sources, config, modules, jobs=N, prepare=f)
        -> (source, FileResult | Skipped, prepare(result, data) or data), in the order of sources

Files go to the workers in batches, a bounded number of batches in flight (so results waiting
for an earlier, slower batch cannot pile up: memory stays bounded whatever the tree's size), and
come back in the order they were sent, so whatever the caller builds from them (the tables, the
keyword index, the graph) is the same with one worker or many. ``prepare`` runs in the worker
beside the parse (the build turns a file into its keyword documents there), so the caller's own
work per file is small; it must be a module-level function (it is sent to the workers by name).

A hostile file is skipped with its reason inside the worker, as in one process
(:func:`~codebot.parse.extract.parse_file`). A worker that dies (killed, out of memory, a crash
in a parser) breaks the pool: the batches it had not returned are parsed again in this process,
and the fact is reported in ``notes``, never lost silently.

Workers are started with ``spawn`` (a fresh interpreter: nothing of the caller's threads, open
repository or writers is inherited), which costs each a fraction of a second to import the
parser: below :data:`PARALLEL_MIN_FILES` files one process is faster and is what runs. As with
any ``spawn``, a script that builds an index must keep its top-level code under
``if __name__ == "__main__":``; one that does not has its workers fail at start-up, and the
files are parsed in the calling process (with the note).
"""

from __future__ import annotations

import os
from collections import deque
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from codebot.core.config import Config
from codebot.core.model import FileResult
from codebot.parse.chunks import ChunkLimits
from codebot.parse.extract import ParseReport, module_ids, parse_file
from codebot.parse.files import Selection, Selector, Skipped, SourceFile

__all__ = [
    "PARALLEL_MIN_FILES",
    "WORKER_MEMORY",
    "Prepare",
    "parse_selection",
    "parse_sources",
    "worker_count",
]

Prepare = Callable[[FileResult, bytes], Any]
Progress = Callable[[int, int, str], None]

PARALLEL_MIN_FILES = 200  # below this many files, starting workers costs more than it saves
WORKER_MEMORY = 512 * 1024 * 1024  # what one worker may take: the parser, a batch, its results
_BATCH_FILES = 16  # files per message to a worker
_IN_FLIGHT = 4  # batches per worker sent ahead of the one being consumed


def worker_count(jobs: int, files: int, cpus: int | None = None) -> int:
    """The number of processes that parse: ``jobs`` (0: one per CPU this process may use, and
    one process on two CPUs or fewer), no more than the free memory holds at
    :data:`WORKER_MEMORY` each, and 1 for a small tree."""
    if files < PARALLEL_MIN_FILES and jobs <= 0:
        return 1
    if jobs <= 0:
        if cpus is None:
            try:
                cpus = len(os.sched_getaffinity(0))
            except AttributeError:  # not Linux
                cpus = os.cpu_count() or 1
        # With workers, receiving their results and feeding the keyword index take a core of
        # the main process by themselves: on 2 CPUs two workers built the 412k-symbol kernel
        # tree in 0.93x the time of one process (benchmarks/RESULTS.md), so one process it is.
        jobs = cpus if cpus > 2 else 1
    free = _available_memory()
    if free is not None:
        jobs = min(jobs, max(1, free // WORKER_MEMORY))
    return max(1, min(jobs, max(files, 1)))


def _available_memory() -> int | None:
    """Bytes of memory available to new processes (Linux's MemAvailable, which counts the page
    cache that can be dropped; else the free pages), or None when the system does not say."""
    try:
        with open("/proc/meminfo", "rb") as f:
            for line in f:
                if line.startswith(b"MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return None


def parse_selection(
    selection: Selection,
    config: Config,
    jobs: int = 1,
    prepare: Prepare | None = None,
    on_file: Callable[[FileResult, Any], None] | None = None,
    progress: Progress | None = None,
) -> ParseReport:
    """:func:`~codebot.parse.extract.parse_path` over a selection, with ``jobs`` processes:
    ``on_file`` sees each parsed file, in path order, with ``prepare(file, its bytes)`` (or
    its bytes). The report is the same whatever ``jobs`` is, but for its ``notes``."""
    limits = ChunkLimits(config.chunk_max_chars, config.chunk_max_lines)
    modules = module_ids([f.path for f in selection.files])
    results: list[FileResult] = []
    skipped = list(selection.skipped)
    notes: list[str] = []
    parsed = parse_sources(
        selection.selector, selection.files, config, modules, limits, jobs, prepare, progress, notes
    )
    for _, result, payload in parsed:
        if isinstance(result, Skipped):
            skipped.append(result)
            continue
        results.append(result)
        if on_file is not None:
            on_file(result, payload)
    skipped.sort(key=lambda s: s.path)
    report = ParseReport(
        str(selection.root), results, skipped, selection.repo, selection.commit, selection.selector
    )
    report.notes = notes
    return report


def parse_sources(
    selector: Selector,
    sources: list[SourceFile],
    config: Config,
    modules: dict[str, str],
    limits: ChunkLimits,
    jobs: int = 1,
    prepare: Prepare | None = None,
    progress: Progress | None = None,
    notes: list[str] | None = None,
) -> Iterator[tuple[SourceFile, FileResult | Skipped, Any]]:
    """Parse ``sources`` with ``jobs`` processes (1: this one), yielding, in their order, each
    source, its result (or why it was skipped) and ``prepare(result, data)`` (without
    ``prepare``: the file's bytes; for a skipped file: None). ``notes``: where a worker's
    crash is reported (the build goes on in this process)."""
    if jobs <= 1 or len(sources) <= 1:
        yield from _in_process(selector, sources, config, modules, limits, prepare, progress, 0)
        return
    yield from _in_workers(
        selector, sources, config, modules, limits, jobs, prepare, progress, notes
    )


def _in_process(selector, sources, config, modules, limits, prepare, progress, done: int):
    total = done + len(sources)
    for n, source in enumerate(sources, done + 1):
        if progress is not None:
            progress(n, total, source.path)
        result, data = parse_file(selector, source, config, modules[source.path], limits)
        yield source, result, _prepared(result, data, prepare)


def _prepared(result, data: bytes, prepare: Prepare | None):
    if isinstance(result, Skipped):
        return None
    return data if prepare is None else prepare(result, data)


def _in_workers(selector, sources, config, modules, limits, jobs, prepare, progress, notes):
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool

    batches = [sources[i : i + _BATCH_FILES] for i in range(0, len(sources), _BATCH_FILES)]
    where = (
        str(selector.root),
        str(selector.repo.workdir) if selector.repo is not None else None,
        selector.commit,
    )
    total, done = len(sources), 0
    pool = ProcessPoolExecutor(
        jobs,
        mp_context=multiprocessing.get_context("spawn"),
        initializer=_start_worker,
        initargs=(where, config, limits, prepare),
    )
    try:
        pending: deque = deque()
        sent = 0
        while sent < len(batches) and len(pending) < jobs * _IN_FLIGHT:
            batch = batches[sent]
            pending.append(pool.submit(_parse_batch, batch, [modules[s.path] for s in batch]))
            sent += 1
        index = 0
        while pending:
            future = pending.popleft()
            try:
                results = future.result()
            except BrokenProcessPool as exc:
                rest = [s for b in batches[index:] for s in b]
                if notes is not None:
                    notes.append(
                        f"a parsing worker stopped ({exc or 'killed'}); the last {len(rest)} "
                        "files were parsed in the main process"
                    )
                pending.clear()
                yield from _in_process(
                    selector, rest, config, modules, limits, prepare, progress, done
                )
                return
            if sent < len(batches):
                batch = batches[sent]
                pending.append(pool.submit(_parse_batch, batch, [modules[s.path] for s in batch]))
                sent += 1
            for source, (result, payload) in zip(batches[index], results):
                done += 1
                if progress is not None:
                    progress(done, total, source.path)
                yield source, result, payload
            index += 1
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


# --- in the worker ----------------------------------------------------------------------------------

_WORKER: dict[str, Any] = {}


def _start_worker(where, config: Config, limits: ChunkLimits, prepare: Prepare | None) -> None:
    import gc

    from codebot.git.repo import open_repo

    gc.disable()  # as in the main process: long-lived results, no cycles worth chasing
    root, workdir, commit = where
    repo = open_repo(workdir) if workdir is not None else None
    _WORKER.update(
        selector=Selector(Path(root), repo, config, commit),
        config=config,
        limits=limits,
        prepare=prepare,
    )


def _parse_batch(batch: list[SourceFile], modules: list[str]) -> list[tuple[Any, Any]]:
    w = _WORKER
    out = []
    for source, module in zip(batch, modules):
        result, data = parse_file(w["selector"], source, w["config"], module, w["limits"])
        out.append((result, _prepared(result, data, w["prepare"])))
    return out

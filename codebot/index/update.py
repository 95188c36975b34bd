"""Bring an index up to date without rebuilding it: to another commit, or to the work tree.

    indexed commit ──git diff (renames found)──► changed paths ──► reparse those files only
        │                                                            │
        └── every other file: its symbols, imports and raw calls, as stored ◄──┘
                                   │
        symbols whose (id, content hash) changed ──► Tantivy: deletes + adds, one commit
                                                 └─► usearch: removes + adds (vectors from the
                                                     cache by text: a revert embeds nothing)
        the calls of the files the change can affect re-resolved (graph/incremental.py), the
        others' edges kept ──► graph + PageRank; communities carried over
        then, when due, "settle": the keyword index rewritten (BM25 statistics without deleted
        documents) and communities detected again (see SETTLE_SHARE)

Symbols, files, edges, call counts and PageRank are a build's after every update; once settled,
the whole index is identical to a build of the target from scratch (same search results too):
``tests/test_update.py`` replays histories to hold us to it, ``tests/test_incremental.py``
compares the incremental resolution with the full one, and ``benchmarks/update_replay.py``
does both on real repositories (ARCHITECTURE.md, "The update invariant").

A new generation is written next to the current one and the manifest names it last, as for a
build: an update killed at any moment leaves the previous index, and the next one starts over.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from codebot.core.config import Config
from codebot.core.errors import StoreError
from codebot.core.model import FileResult, paused_gc
from codebot.git.repo import Repo, short_commit
from codebot.git.workspace import Workspace, under
from codebot.index.build import embed_texts, indexed_code, make_manifest, settings_of
from codebot.index.embedding import deferred
from codebot.index.fresh import CARRIED, SETTLE_SHARE, settle_due, unsettled_symbols
from codebot.index.store import Index, Manifest, lock_for_writing, read_manifest
from codebot.index.tables import KEYS_FILE, file_result, symbol_key, symbol_keys
from codebot.index.writer import LEXICAL_DIR, GenerationWriter, retarget
from codebot.parse.files import Selector, Skipped, SourceFile

__all__ = [
    "UpdateReport",
    "update_index",
    "apply_changes",
    "Changes",
    "commit_changes",
    "needs_settling",
    "settle_lexical",
    "unsettled",
    "SETTLE_SHARE",
]

Progress = Callable[[int, int, str], None]
# What a path becomes: (mode, blob) in the target commit, (mode, None) to read it from disk, or
# None when it is gone.
Changes = dict[str, "tuple[int, str | None] | None"]


@dataclass
class UpdateReport:
    index_dir: Path
    manifest: Manifest
    base_commit: str | None
    commit: str | None
    action: str  # updated, up-to-date or rebuilt
    reason: str = ""  # why it rebuilt
    files: dict[str, int] = field(default_factory=dict)  # changed files by kind of change
    symbols: dict[str, int] = field(default_factory=dict)  # added, changed, removed, kept
    embedded: int = 0
    vectors_later: int = 0  # changed symbols whose vectors the background embedder computes
    resolved_files: int | None = None  # files whose calls were resolved again
    seconds: float = 0.0
    timings: dict[str, float] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "action": self.action,
            "reason": self.reason,
            "index_dir": str(self.index_dir),
            "generation": self.manifest.generation,
            "base_commit": self.base_commit,
            "commit": self.commit,
            "files": self.files,
            "symbols": self.symbols,
            "embedded": self.embedded,
            "vectors_later": self.vectors_later,
            **({} if self.resolved_files is None else {"resolved_files": self.resolved_files}),
            "counts": self.manifest.counts,
            "seconds": round(self.seconds, 3),
            "timings": {k: round(v, 3) for k, v in self.timings.items()},
        }

    def to_text(self) -> str:
        if self.action == "up-to-date":
            return f"up to date at {short_commit(self.commit)}\n"
        if self.action == "rebuilt":
            return (
                f"rebuilt at {short_commit(self.commit)} ({self.reason}) in {self.seconds:.1f}s\n"
            )
        f, s = self.files, self.symbols
        vectors = (
            f"{self.vectors_later} to embed in the background"
            if self.vectors_later
            else f"{self.embedded} embedded"
        )
        return (
            f"updated {short_commit(self.base_commit)} -> {short_commit(self.commit)}: "
            f"{f['added']} added, {f['modified']} modified, {f['renamed']} renamed, "
            f"{f['deleted']} deleted files; symbols {s['added']} added, {s['changed']} changed, "
            f"{s['removed']} removed ({vectors}) in {self.seconds:.2f}s\n"
        )


def update_index(
    where: Workspace | str | Path,
    config: Config,
    to: str | None = None,
    wait: float = 0.0,
    progress: Progress | None = None,
    embedder=None,
    settle: bool = True,
    settle_now: bool = False,
    vectors_later: bool = False,
) -> UpdateReport:
    """Bring the committed index of ``where`` to commit ``to`` (default: HEAD), incrementally.

    ``vectors_later``: commit keywords + graph without embedding the changed symbols; their
    keys go to the manifest's ``vectors_behind`` (left out of vector hits, found by keywords)
    and the background embedder (``index.background``, started by the caller) commits their
    vectors as the next generation. A rebuild then leaves every vector to it.

    ``settle``: once the new state is in place, settle the index when it is due (see
    :func:`needs_settling`: the keyword index rewritten, communities detected again);
    ``settle_now``: settle it if anything changed since the last settle, due or not. The index
    answers for the new commit before that either way.

    Any commit works (an ancestor or not, a detached HEAD). It builds from scratch, and says why,
    when there is no index yet, when it was built under other settings or by another format,
    or when the indexed commit is not in the repository (a shallow clone). Outside git the
    files on disk are compared with the index by content. Raises ``IndexBusy`` when another
    process is writing the index and ``wait`` runs out.
    """
    from codebot.index.build import build_locked

    started = time.perf_counter()
    ws = Workspace.of(where, config.index_dir)
    root, repo, subtree, index_dir = ws.root, ws.repo, ws.subtree, ws.index_dir
    with lock_for_writing(index_dir, wait=wait):
        target = None
        if repo is not None:
            target = repo.resolve_commit(to) if to else repo.head_commit()
        elif to:
            raise StoreError(f"{root} is not in a git repository: --to needs one")
        selector = Selector(root, repo, config, target if repo is not None else None)
        manifest, reason = _usable_base(index_dir, repo, subtree, config, selector)
        if manifest is None:
            config, later = _keep_embedder(index_dir, config)
            later = later or (vectors_later and config.embedder != "none")
            built = build_locked(
                ws, config, progress, embedder, at=target or "HEAD", vectors_later=later
            )
            return UpdateReport(
                index_dir,
                built.manifest,
                None,
                built.manifest.commit,
                "rebuilt",
                reason,
                embedded=built.embedded,
                seconds=time.perf_counter() - started,
                timings=built.timings,
            )
        base = Index(index_dir, root, manifest, repo)
        if repo is not None:
            changes, kinds = {}, {}
            if manifest.commit != target:
                changes, kinds = commit_changes(repo, manifest.commit, target, subtree)
        else:
            changes, kinds = _disk_changes(base, selector, subtree)
        if changes:
            report = apply_changes(
                base, changes, selector, index_dir, config, embedder, progress, target,
                vectors_later=vectors_later,
            )  # fmt: skip
            report.files = kinds
        else:
            if manifest.commit != target:  # changes outside the indexed subtree only
                manifest = retarget(index_dir, manifest, target)
            report = UpdateReport(index_dir, manifest, target, target, "up-to-date")
        report.timings["fresh"] = time.perf_counter() - started
        # Also when up to date: an update killed while settling left that part to this one.
        if settle and needs_settling(report.manifest, force=settle_now):
            t = time.perf_counter()
            report.manifest = settle_lexical(
                Index(index_dir, root, report.manifest, repo), selector
            )
            report.timings["settle"] = time.perf_counter() - t
        report.seconds = time.perf_counter() - started
        return report


# The settle schedule (ARCHITECTURE.md, "The update invariant"). An update patches the keyword
# index (Tantivy marks a changed or removed symbol's document deleted) and carries the call
# graph's communities over (a new symbol gets none), because redoing either costs time linear in
# the repository (a rewrite about 2 s per 10k symbols, Louvain 2.7 s on the stdlib's 57k call
# pairs) for a change of a few symbols. Both are redone, by a settle, once the symbols changed,
# removed or added since the last settle (or build) exceed SETTLE_SHARE of the index (in
# index.fresh, which answers a no-op update without importing this module): a one-file change
# never rewrites a large keyword index. Everything else an update writes (symbols, files, edges,
# call counts, PageRank) is a build's exactly, settled or not.


def unsettled(manifest: Manifest) -> int:
    """How many symbols changed since the index was last built or settled (0: settled)."""
    return unsettled_symbols(manifest.counts)


def needs_settling(manifest: Manifest, force: bool = False) -> bool:
    """Whether the index is due a settle: the changes since the last one exceed SETTLE_SHARE of
    the symbols (``force``: any change at all).

    Tantivy deletes a document by marking it; until its segment is merged away the document
    still counts in the BM25 statistics (document frequencies, average lengths), so scores
    drift from a fresh build's by at most the share of deleted documents, and near-ties can
    swap; communities carried over miss the symbols added since.
    """
    return settle_due(manifest.counts, force)


def settle_lexical(base: Index, selector: Selector) -> Manifest:
    """A new generation whose lexical index is written afresh (texts from git, or from disk
    outside git) and whose communities are detected again if an update carried them over;
    every other file is linked from ``base``. The caller holds the lock."""
    import numpy as np

    from codebot.index.text import lexical_fields

    manifest, root = base.manifest, base.root
    with GenerationWriter(base.index_dir, base) as writer:
        writer.link_from_base(but=LEXICAL_DIR + "/")
        lexical = writer.lexical(threads=2)
        table, by_id = base.symbols, base.by_id
        keys = np.fromfile(base.gen_dir / KEYS_FILE, dtype="<u8").tolist()  # by row, hashed once
        in_git = selector.repo is not None
        for e in base.files():
            source = SourceFile(
                e.path, root / e.path, e.language, e.role, e.blob if in_git else None
            )
            rows = [by_id[sid] for sid in e.symbols]
            f = file_result(e, [table[r] for r in rows])
            for row, s, text in zip(rows, f.symbols, indexed_code(f, selector.read(source))):
                lexical.add(keys[row], s.id, lexical_fields(s, text))
        lexical.close()
        graph = base.graph
        if graph.meta.get("community_method") == "carried":  # detect them afresh, as a build does
            from codebot.graph.analytics import analyze

            analyze(graph, table)
            writer.save_graph(graph)
        counts = {**manifest.counts, "lexical_deleted": 0}
        counts.pop(CARRIED, None)
        return writer.commit(Manifest(**{**vars(manifest), "counts": counts}))


def _keep_embedder(index_dir: Path, config: Config) -> tuple[Config, bool]:
    """A rebuild keeps the embedder of the index it replaces (a keyword-only index stays one),
    and leaves the vectors to the background embedder when they were still to come (the second
    value: build with ``vectors_later``)."""
    try:
        manifest = read_manifest(index_dir)
    except StoreError:
        return config, False  # no index, or one of another format: the configured embedder
    if manifest.vectors_pending:
        return replace(config, embedder=manifest.vectors_pending["provider"]), True
    previous = manifest.embedder
    return replace(config, embedder=previous["provider"] if previous else "none"), False


def _usable_base(
    index_dir: Path, repo: Repo | None, subtree: str, config: Config, selector: Selector
) -> tuple[Manifest | None, str]:
    """The current manifest if an update can start from it, else (None, why it cannot)."""
    try:
        manifest = read_manifest(index_dir)
    except StoreError as exc:
        return None, f"no usable index ({exc})"
    if manifest.root != subtree:
        return None, f"the index covers {manifest.root or 'the whole repository'!r}"
    if manifest.settings != settings_of(config, selector):
        return None, "the settings changed since the index was built"
    if repo is not None:
        if manifest.commit is None and manifest.counts.get("files", 0) and not manifest.skipped:
            return None, "the index was built outside git"
        if manifest.commit is not None and not repo.has_commit(manifest.commit):
            return None, (
                f"the indexed commit {manifest.commit[:12]} is not in this repository "
                "(a shallow clone, or history rewritten and pruned)"
            )
    return manifest, ""


def commit_changes(
    repo: Repo, old: str | None, new: str | None, subtree: str
) -> tuple[Changes, dict[str, int]]:
    """The paths a diff of two commits touches, with what each becomes in ``new``."""
    kinds = {"added": 0, "modified": 0, "deleted": 0, "renamed": 0}
    names = {"A": "added", "M": "modified", "T": "modified", "D": "deleted", "R": "renamed"}
    touched: dict[str, None] = {}  # in diff order, once each
    for change in repo.diff(old, new):
        kinds[names.get(change.status, "modified")] += 1
        for path in (change.old_path, change.path):
            if path is not None and under(path, subtree):
                touched[path] = None
    changes: Changes = repo.entries_at(new, touched)
    return changes, kinds


def _disk_changes(base: Index, selector: Selector, subtree: str) -> tuple[Changes, dict[str, int]]:
    """Outside git: the files on disk against the index, by content (every file is read, none
    is parsed unless it changed)."""
    from codebot.parse.extract import blob_id
    from codebot.parse.files import select_files

    old = {f.path: f.blob for f in base.files()}
    old_skipped = {s["path"] for s in base.manifest.skipped}
    on_disk = select_files(base.root / subtree if subtree else base.root, selector.config)
    changes: Changes = {}
    kinds = {"added": 0, "modified": 0, "deleted": 0, "renamed": 0}
    seen = set()
    for source in on_disk.files:
        seen.add(source.path)
        try:
            same = blob_id(source.abspath.read_bytes()) == old.get(source.path)
        except OSError:
            same = False
        if not same:
            kinds["modified" if source.path in old else "added"] += 1
            changes[source.path] = (0, None)
    for skip in on_disk.skipped:
        seen.add(skip.path)
        if skip.path in old or skip.path not in old_skipped:
            changes[skip.path] = (0, None)
    for path in set(old) | old_skipped:
        if path not in seen:
            kinds["deleted"] += 1
            changes[path] = None
    return changes, kinds


@paused_gc()  # as in a build: many long-lived objects, no cycles
def apply_changes(
    base: Index,
    changes: Changes,
    selector: Selector,
    index_dir: Path,
    config: Config,
    embedder,
    progress: Progress | None,
    commit: str | None,
    overlay: dict[str, Any] | None = None,
    with_vectors: bool = True,
    vectors_later: bool = False,
) -> UpdateReport:
    """Write, in ``index_dir``, a new generation: ``base`` with ``changes`` applied. The caller
    holds ``index_dir``'s write lock.

    ``overlay``: what a work tree overlay was made from, recorded in its manifest.
    ``with_vectors=False``: leave the vectors out (``impact`` reads the graph only).
    ``vectors_later``: keep the base's vectors file as it is and add the changed and removed
    symbols' keys to ``vectors_behind``, for the background embedder (no model, no usearch).
    Communities are carried over from ``base`` (see SETTLE_SHARE).
    """
    import numpy as np

    from codebot.index.text import embedding_text, lexical_fields
    from codebot.parse.chunks import ChunkLimits
    from codebot.parse.extract import module_ids
    from codebot.parse.parallel import parse_sources, worker_count

    started = time.perf_counter()
    timings: dict[str, float] = {}
    t = time.perf_counter()
    entries = {f.path: f for f in base.files()}
    skipped = {
        s["path"]: Skipped(s["path"], s["reason"], s.get("content", False))
        for s in base.manifest.skipped
        if s["path"] not in changes
    }
    kept = {p: e for p, e in entries.items() if p not in changes}
    to_read: dict[str, SourceFile] = {}
    for path, entry in changes.items():
        if entry is None:
            continue
        picked = selector.classify(path, *entry)
        if isinstance(picked, SourceFile):
            to_read[path] = picked
        elif picked is not None:
            skipped[path] = picked
    # Module ids hang on every selected path (``a.js`` next to a new ``a.ts`` changes its ids):
    # an unchanged file whose module id moved is parsed again.
    selected = set(kept) | set(to_read) | {p for p, s in skipped.items() if s.content}
    modules = module_ids(sorted(selected))
    in_git = selector.repo is not None
    for path, e in list(kept.items()):
        if modules[path] != e.module:
            abspath = base.root / path
            to_read[path] = SourceFile(
                path, abspath, e.language, e.role, e.blob if in_git else None
            )
            del kept[path]

    limits = ChunkLimits(config.chunk_max_chars, config.chunk_max_lines)
    parsed: dict[str, FileResult] = {}
    code: dict[str, str] = {}  # indexed text of each new symbol, by id
    # A large change parses in worker processes, as a build does (parse.parallel).
    sources = [to_read[path] for path in sorted(to_read)]
    jobs = worker_count(config.jobs, len(sources))
    for source, result, data in parse_sources(
        selector, sources, config, modules, limits, jobs, progress=progress
    ):
        if isinstance(result, Skipped):
            skipped[source.path] = result
            continue
        parsed[source.path] = result
        code.update(zip((s.id for s in result.symbols), indexed_code(result, data)))
    timings["parse"] = time.perf_counter() - t

    # The new file list, in path order (as a build lists it): unchanged files from the table.
    t = time.perf_counter()
    table, by_id = base.symbols, base.by_id
    files: list[FileResult] = []
    # Kept symbols' keys and packed rows come from the base's tables, not computed again (the
    # keys computed when the base's key file is not one key per row: an update never needed it).
    try:
        base_keys = np.fromfile(base.gen_dir / KEYS_FILE, dtype="<u8")
    except OSError:
        base_keys = np.zeros(0, dtype="<u8")
    if len(base_keys) != len(table):
        base_keys = symbol_keys(table.column("id"))
    keys: list[np.ndarray] = []
    rows: list = []
    old_rows: list[int] = []  # the base row of each new row (-1: a new id)
    for path in sorted(set(kept) | set(parsed)):
        if path in parsed:
            files.append(parsed[path])
            keys.append(symbol_keys(s.id for s in parsed[path].symbols))
            rows.extend([None] * len(parsed[path].symbols))
            old_rows.extend(by_id.get(s.id, -1) for s in parsed[path].symbols)
        else:
            e = kept[path]
            at = [by_id[sid] for sid in e.symbols]
            files.append(file_result(e, table.many(at)))
            keys.append(base_keys[at])
            rows.extend(table.raw(at))
            old_rows.extend(at)
    base_row = np.array(old_rows, dtype=np.int64)
    old_hash = {
        sid: table[by_id[sid]].content_hash
        for path, e in entries.items()
        if path not in kept
        for sid in e.symbols
    }
    new_symbols = [s for f in parsed.values() for s in f.symbols]
    added = [s for s in new_symbols if old_hash.get(s.id) != s.content_hash]
    still = {s.id for s in new_symbols} - {s.id for s in added}
    removed = [sid for sid in old_hash if sid not in still]
    with GenerationWriter(index_dir, base) as writer:
        key_array = np.concatenate(keys) if keys else np.zeros(0, dtype="<u8")
        symbols, _ = writer.tables(files, key_array, rows)
        timings["tables"] = time.perf_counter() - t

        t = time.perf_counter()
        lexical = writer.lexical(incremental=True)
        for sid in removed:
            lexical.delete(sid)
        for s in added:
            lexical.add(symbol_key(s.id), s.id, lexical_fields(s, code[s.id]))
        lexical.close()
        timings["lexical"] = time.perf_counter() - t

        t = time.perf_counter()
        carry, communities = _carried_communities(base, base_row)
        changed = set(changes) | set(to_read)
        previous = _previous(base, {p: entries.get(p) for p in changed}, base_row)
        graph_counts, resolved = writer.graph_update(
            files, symbols, carry, previous, changed, communities
        )
        timings["graph"] = time.perf_counter() - t

        embedder = deferred(base.manifest.embedder, config, embedder) if with_vectors else None
        embedded = 0
        behind = set(base.manifest.vectors_behind or ())
        if embedder is not None:
            t = time.perf_counter()
            added_keys, removed_keys = symbol_keys(s.id for s in added), symbol_keys(removed)
            changed_keys = set(added_keys.tolist()) | set(removed_keys.tolist())
            if vectors_later:
                writer.link_vectors()
                behind |= changed_keys
            else:
                texts = [embedding_text(s, code[s.id]) for s in added]
                vectors, embedded = embed_texts(
                    embedder, texts, base.index_dir / "cache", progress, compact=False
                )
                writer.vectors(added_keys, vectors, remove=removed_keys)
                behind -= changed_keys
            timings["embed"] = time.perf_counter() - t

        added_ids = {s.id for s in added}
        manifest = make_manifest(
            commit,
            base.manifest.root,
            config,
            embedder,
            files,
            list(skipped.values()),
            graph_counts,
            base.manifest.settings,
        )
        deleted = base.manifest.counts.get("lexical_deleted", 0) + len(removed)
        manifest.counts["lexical_deleted"] = deleted
        carried = base.manifest.counts.get(CARRIED, 0) + len(added)
        if carry is not None and carried:  # communities carried: detected at the next settle
            manifest.counts[CARRIED] = carried
        manifest.overlay = overlay
        # Vectors still to come stay to come: the background embedder reads the newest
        # generation under the write lock before it commits (ARCHITECTURE.md, "Vectors later").
        manifest.vectors_pending = base.manifest.vectors_pending
        # Vectors an update left to the background embedder (this one's and earlier ones').
        manifest.vectors_behind = sorted(behind) if embedder is not None and behind else None
        manifest = writer.commit(manifest)
    return UpdateReport(
        index_dir,
        manifest,
        base.manifest.commit,
        commit,
        "updated",
        symbols={
            "added": len(added_ids - old_hash.keys()),
            "changed": len(added_ids & old_hash.keys()),
            "removed": len(set(removed) - added_ids),
            "kept": len(symbols) - len(added),
        },
        embedded=embedded,
        vectors_later=len(added) if vectors_later and embedder is not None else 0,
        resolved_files=resolved,
        seconds=time.perf_counter() - started,
        timings=timings,
    )


def _previous(base: Index, entries: dict[str, Any], base_row):
    """What the base resolved (graph/incremental.py), with its version of each changed path;
    ``base_row``: the base row of each new symbol row (-1: a new id)."""
    from codebot.graph.incremental import Previous

    try:
        graph = base.graph
    except StoreError:  # damaged or missing: the update resolves every call, as a build does
        return None
    table, by_id = base.symbols, base.by_id
    old_files = {
        path: None if e is None else file_result(e, [table[by_id[sid]] for sid in e.symbols])
        for path, e in entries.items()
    }
    ids, paths = table.column("id"), table.column("path")
    return Previous(graph, ids, paths, old_files, old_rows=base_row, row_of=by_id)


def _carried_communities(base: Index, base_row):
    """Community labels to keep, by new row (a symbol keeps its id's label, a new id gets -1),
    until the next settle detects them again (see SETTLE_SHARE), or None; and what to do
    without labels: detect them, or leave them pending while the base's are (they come with the
    vectors, see index.background). ``base_row``: the base row of each new row (-1: a new id)."""
    import numpy as np

    from codebot.graph.analytics import PENDING

    try:
        old = base.graph
    except StoreError:
        return None, True
    method = old.meta.get("community_method")
    if method == PENDING:
        return None, PENDING if base.manifest.vectors_pending else True
    if method in (None, "none"):
        return None, True
    labels = old.community.astype(np.int64)
    return np.where(base_row >= 0, labels[np.maximum(base_row, 0)], -1), True

"""Bring an index up to date without rebuilding it: to another commit, or to the work tree.

    indexed commit ──git diff (renames found)──► changed paths ──► reparse those files only
        │                                                            │
        └── every other file: its symbols, imports and raw calls, as stored ◄──┘
                                   │
        symbols whose (id, content hash) changed ──► Tantivy: deletes + adds, one commit
                                                 └─► usearch: removes + adds (vectors from the
                                                     cache by text: a revert embeds nothing)
        all calls re-resolved from the stored raw calls ──► graph + PageRank + communities
        then "settle": the keyword index rewritten, so BM25 statistics hold no deleted documents

Once settled, the result is identical to a build of the target from scratch (same symbols in
the same rows, same edges, same search results): ``tests/test_update.py`` replays histories to
hold us to it, and ``benchmarks/update_replay.py`` does it on real repositories.

Calls are re-resolved for the whole repository rather than for the callers a change may reach:
it costs 0.1 s for 13k symbols (FastAPI) and 0.6 s for 21k (the stdlib), a fraction of an
update, and it cannot miss an edge whose resolution moved through an import, a base class or a
name that appeared elsewhere, which a dependency guess can.

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
        return (
            f"updated {short_commit(self.base_commit)} -> {short_commit(self.commit)}: "
            f"{f['added']} added, {f['modified']} modified, {f['renamed']} renamed, "
            f"{f['deleted']} deleted files; symbols {s['added']} added, {s['changed']} changed, "
            f"{s['removed']} removed ({self.embedded} embedded) in {self.seconds:.2f}s\n"
        )


def update_index(
    where: Workspace | str | Path,
    config: Config,
    to: str | None = None,
    wait: float = 0.0,
    progress: Progress | None = None,
    embedder=None,
    settle: bool = True,
) -> UpdateReport:
    """Bring the committed index of ``where`` to commit ``to`` (default: HEAD), incrementally.

    ``settle``: once the new state is in place, rewrite the lexical index if its deleted
    documents skew BM25 (see :func:`needs_settling`); the index answers for the new commit
    before that either way.

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
                base, changes, selector, index_dir, config, embedder, progress, target
            )
            report.files = kinds
        else:
            if manifest.commit != target:  # changes outside the indexed subtree only
                manifest = retarget(index_dir, manifest, target)
            report = UpdateReport(index_dir, manifest, target, target, "up-to-date")
        report.timings["fresh"] = time.perf_counter() - started
        # Also when up to date: an update killed while settling left that part to this one.
        if settle and needs_settling(report.manifest):
            t = time.perf_counter()
            report.manifest = settle_lexical(
                Index(index_dir, root, report.manifest, repo), selector
            )
            report.timings["settle"] = time.perf_counter() - t
        report.seconds = time.perf_counter() - started
        return report


# Below this many symbols every update rewrites the lexical index once it is fresh, so BM25
# statistics match a build exactly (a rewrite costs about 2 s per 10k symbols: measured on
# FastAPI, 13k symbols, 1.9-2.9 s), and detects communities again; above it, communities are
# carried over and both wait until changes reach a tenth of the symbols. The same line splits
# exact from HNSW vector search (index/vector.py).
SETTLE_BELOW = 20_000
SETTLE_SHARE = 0.1


def needs_settling(manifest: Manifest) -> bool:
    """Whether the lexical index carries deleted documents worth a rewrite (see SETTLE_BELOW).

    Tantivy deletes a document by marking it; until its segment is merged away the document
    still counts in the BM25 statistics (document frequencies, average lengths), so scores
    drift from a fresh build's by a fraction of a percent and near-ties can swap.
    """
    deleted = manifest.counts.get("lexical_deleted", 0)
    symbols = manifest.counts.get("symbols", 0)
    return deleted > 0 and (symbols < SETTLE_BELOW or deleted > SETTLE_SHARE * symbols)


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
    transient: bool = False,
) -> UpdateReport:
    """Write, in ``index_dir``, a new generation: ``base`` with ``changes`` applied. The caller
    holds ``index_dir``'s write lock.

    ``overlay``: what a work tree overlay was made from, recorded in its manifest.
    ``with_vectors=False``: leave the vectors out (``impact`` reads the graph only).
    ``transient``: a generation that lives until the next edit (an overlay, an impact view)
    keeps the base's communities rather than detect them again.
    """
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
    for path in sorted(set(kept) | set(parsed)):
        if path in parsed:
            files.append(parsed[path])
        else:
            e = kept[path]
            files.append(file_result(e, [table[by_id[sid]] for sid in e.symbols]))
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
        symbols, _ = writer.tables(files)
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
        carry = _carried_communities(base, symbols, always=transient)
        graph_counts = writer.graph(files, symbols, carry)
        timings["graph"] = time.perf_counter() - t

        embedder = deferred(base.manifest.embedder, config, embedder) if with_vectors else None
        embedded = 0
        if embedder is not None:
            t = time.perf_counter()

            texts = [embedding_text(s, code[s.id]) for s in added]
            vectors, embedded = embed_texts(
                embedder, texts, base.index_dir / "cache", progress, compact=False
            )
            writer.vectors(symbol_keys(s.id for s in added), vectors, remove=symbol_keys(removed))
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
        manifest.overlay = overlay
        # Vectors still to come stay to come: the background embedder reads the newest
        # generation under the write lock before it commits (ARCHITECTURE.md, "Vectors later").
        manifest.vectors_pending = base.manifest.vectors_pending
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
        seconds=time.perf_counter() - started,
        timings=timings,
    )


def _carried_communities(base: Index, symbols: list, always: bool = False):
    """Community labels to keep, by symbol id, when detecting them again would cost seconds
    (Louvain takes 2.7 s on the stdlib's 57k call pairs): above SETTLE_BELOW symbols (or
    ``always``) they are carried over (new symbols get none) until the index settles. Below,
    None: detect afresh."""
    if len(symbols) < SETTLE_BELOW and not always:
        return None
    import numpy as np

    try:
        old = base.graph
    except StoreError:
        return None
    label = dict(zip(base.symbols.column("id"), old.community.tolist()))
    return np.fromiter((label.get(s.id, -1) for s in symbols), dtype=np.int64, count=len(symbols))

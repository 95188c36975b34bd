"""Build an index: files -> parse -> embed (through the cache) -> store.

Everything is written into a new generation directory and made current in one step (see
``store``); an interrupted build leaves the previous index untouched, and what it embedded stays in
the vector cache, so running it again resumes instead of starting over.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from codebot.core.config import Config
from codebot.core.model import TYPE_KINDS, VALUE_KINDS, FileResult, paused_gc
from codebot.git.repo import short_commit
from codebot.git.workspace import Workspace
from codebot.index.embedding import chosen, record
from codebot.index.store import Manifest, lock_for_writing
from codebot.index.tables import outline_lines, outline_signature, symbol_key
from codebot.index.writer import GenerationWriter
from codebot.parse.files import Selector, Skipped

if TYPE_CHECKING:  # tree-sitter and numpy load with the parser, when a build parses
    from codebot.parse.extract import ParseReport

__all__ = [
    "BuildReport",
    "build_index",
    "build_locked",
    "embed_texts",
    "indexed_code",
    "lexical_documents",
    "make_manifest",
    "peak_rss_mb",
    "settings_of",
]

Progress = Callable[[int, int, str], None]
# A constant or variable is indexed by its first lines, up to this many characters: a literal
# table of a thousand lines is one symbol, not a thousand lines of words that outrank the code.
VALUE_TEXT_CHARS = 1500
_EMBED_CHUNK = 256  # texts handed to an embedder at once (an interrupted build loses one chunk)


@dataclass
class BuildReport:
    index_dir: Path
    manifest: Manifest
    parse: ParseReport
    seconds: float
    timings: dict[str, float] = field(default_factory=dict)
    embedded: int = 0  # vectors computed in this run (the rest came from the cache)
    # Peak resident memory in MB, as each stage ends: this process (a high-water mark, so it
    # grows stage by stage) and "workers", the largest parsing worker.
    memory: dict[str, int] = field(default_factory=dict)

    @property
    def counts(self) -> dict[str, int]:
        return self.manifest.counts

    def to_dict(self) -> dict[str, Any]:
        return {
            "index_dir": str(self.index_dir),
            "manifest": self.manifest.to_dict(),
            "seconds": round(self.seconds, 3),
            "embedded": self.embedded,
        }

    def to_text(self) -> str:
        c, commit = self.counts, self.manifest.commit
        at = f" at {short_commit(commit)}" if commit else ""
        if self.manifest.vectors_pending:
            return (
                f"indexed {c['files']} files{at}, {c['symbols']} symbols (keywords and call "
                f"graph; vectors to come) in {self.seconds:.1f}s -> {self.index_dir}\n"
            )
        return (
            f"indexed {c['files']} files{at}, {c['symbols']} symbols ({c['vectors']} vectors, "
            f"{self.embedded} newly embedded) in {self.seconds:.1f}s -> {self.index_dir}\n"
        )


def indexed_code(f: FileResult, data: bytes) -> list[str]:
    """The text each symbol of a file is indexed by, in symbol order.

    A type is indexed by its own code: its header, docstring and fields, with each member cut
    down to its first line. The members are symbols of their own, and a class that repeated all
    their bodies would outrank the one method a question is about. A constant or variable is
    indexed by its first :data:`VALUE_TEXT_CHARS` characters, cut at a line's end.
    """
    lines = data.splitlines(keepends=True)
    members: dict[str, list[tuple[int, int, str | None]]] = {}
    for s in f.symbols:
        if s.parent is not None:
            members.setdefault(s.parent, []).append(
                (s.start_line, s.end_line, outline_signature(s.language, s.signature))
            )
    out = []
    for s in f.symbols:
        kept = lines[s.start_line - 1 : s.end_line]
        if s.kind in TYPE_KINDS and s.id in members:
            kept = outline_lines(kept, s.start_line, members[s.id])
        elif s.kind in VALUE_KINDS:
            kept = _first_chars(kept, VALUE_TEXT_CHARS)
        out.append(b"".join(kept).decode("utf-8", "replace"))
    return out


def lexical_documents(f: FileResult, data: bytes) -> list[tuple[int, str, dict[str, str]]]:
    """What the keyword index gets of each symbol of a file, in symbol order: its key, its
    indexed text (:func:`indexed_code`) and its fields. Computed beside the parse, in the
    parsing worker (see ``parse.parallel``)."""
    from codebot.index.text import lexical_fields

    return [
        (symbol_key(s.id), text, lexical_fields(s, text))
        for s, text in zip(f.symbols, indexed_code(f, data))
    ]


def _first_chars(lines: list[bytes], limit: int) -> list[bytes]:
    """The first lines up to ``limit`` bytes in all (at least one line, itself cut to it)."""
    size = 0
    for i, line in enumerate(lines):
        size += len(line)
        if size > limit:
            return lines[:i] if i else [line[:limit]]
    return lines


def build_index(
    where: Workspace | str | Path,
    config: Config,
    progress: Progress | None = None,
    embedder=None,
    wait: float = 0.0,
    vectors_later: bool = False,
) -> BuildReport:
    """Index ``where`` (a repository, a subdirectory of one, or a plain directory) from scratch.

    In a git repository the index describes the commit HEAD points to, read from git whatever
    the work tree holds (the work tree's edits are the overlay's business, see ``overlay``);
    an unborn branch has an empty committed index. ``embedder`` overrides the one the config
    names (tests inject one to share a loaded model).

    ``vectors_later``: commit the keywords and the call graph without vectors, marked
    ``vectors_pending`` (the model is not even loaded): the index answers at once, and
    ``index.background`` commits the vectors as the next generation.
    """
    ws = Workspace.of(where, config.index_dir)
    with lock_for_writing(ws.index_dir, wait=wait):
        return build_locked(ws, config, progress, embedder, vectors_later=vectors_later)


@paused_gc()  # a build makes millions of long-lived objects and no garbage cycles worth chasing
def build_locked(
    ws: Workspace,
    config: Config,
    progress: Progress | None,
    embedder,
    at: str = "HEAD",
    vectors_later: bool = False,
) -> BuildReport:
    """:func:`build_index` for a caller that already holds the write lock (an update that
    finds it must start over); ``at``: the commit to index."""
    later = vectors_later and embedder is None and config.embedder != "none"
    started = time.perf_counter()
    timings: dict[str, float] = {}
    # The indexed texts are kept for the embedder only: a keyword-only build does not hold
    # every symbol's code a second time (Tantivy has it, and the tables have the symbols).
    keep_code = not later and (embedder is not None or config.embedder != "none")
    with GenerationWriter(ws.index_dir) as writer:
        lexical = writer.lexical()
        code: list[str] = []  # indexed text of each symbol, by row (when an embedder needs it)
        keys: list[int] = []  # its key (store.symbol_key), hashed once for all three stores

        def index_file(f: FileResult, documents: list[tuple[int, str, dict[str, str]]]) -> None:
            # Runs as each file comes back from the parser, in path order: Tantivy indexes it
            # in its own thread meanwhile.
            for s, (key, text, fields) in zip(f.symbols, documents):
                keys.append(key)
                lexical.add(key, s.id, fields)
                if keep_code:
                    code.append(text)

        from codebot.graph.analytics import PENDING
        from codebot.index.text import embedding_text
        from codebot.parse.files import select_files
        from codebot.parse.parallel import parse_selection, worker_count

        t = time.perf_counter()
        selection = select_files(ws, config, at)
        workers = worker_count(config.jobs, len(selection.files))
        report = parse_selection(
            selection, config, workers, lexical_documents, index_file, progress
        )
        timings["parse"] = time.perf_counter() - t
        memory = {"parse": peak_rss_mb(), "workers": peak_rss_mb(children=True)}

        t = time.perf_counter()
        lexical.close()
        symbols, key_array = writer.tables(report.files, keys)
        timings["lexical"] = time.perf_counter() - t
        memory["lexical"] = peak_rss_mb()

        t = time.perf_counter()
        # Answering at once: communities come with the vectors (index.background), which also
        # spares this process networkx's import.
        graph_counts = writer.graph(report.files, symbols, communities=PENDING if later else True)
        timings["graph"] = time.perf_counter() - t
        timings.update({f"graph.{k}": v for k, v in writer.graph_timings.items()})
        memory["graph"] = peak_rss_mb()

        embedder = None if later else chosen(config, embedder)
        embedded = 0
        if embedder is not None:
            t = time.perf_counter()
            texts = [embedding_text(s, text) for s, text in zip(symbols, code)]
            vectors, embedded = embed_texts(embedder, texts, ws.cache_dir, progress)
            writer.vectors(key_array, vectors)
            timings["embed"] = time.perf_counter() - t
            memory["embed"] = peak_rss_mb()

        manifest = make_manifest(
            report.commit,
            ws.subtree,
            config,
            embedder,
            report.files,
            report.skipped,
            graph_counts,
            settings_of(config, report.selector),
        )
        if later:
            manifest.vectors_pending = {"provider": config.embedder}
        manifest = writer.commit(manifest)
    memory["commit"] = peak_rss_mb()
    return BuildReport(
        ws.index_dir, manifest, report, time.perf_counter() - started, timings, embedded, memory
    )


def peak_rss_mb(children: bool = False) -> int:
    """The peak resident memory, in MB, of this process (or of its largest finished child)."""
    import resource
    import sys

    peak = resource.getrusage(resource.RUSAGE_CHILDREN if children else resource.RUSAGE_SELF)
    return peak.ru_maxrss // (1024 * 1024 if sys.platform == "darwin" else 1024)


def settings_of(config: Config, selector: Selector) -> dict[str, Any]:
    """The settings an index depends on: an update under other settings must rebuild.

    Not the embedder: an update keeps the one the index was built with (its manifest names
    it), so a keyword-only index stays one; another model takes ``codebot index --embedder``."""
    return {
        "max_file_bytes": config.max_file_bytes,
        "ignore": hashlib.sha256("\n".join(selector.ignore_lines).encode()).hexdigest()[:16],
        "include_vendor": config.include_vendor,
        "include_generated": config.include_generated,
        "chunk_max_chars": config.chunk_max_chars,
        "chunk_max_lines": config.chunk_max_lines,
    }


def make_manifest(
    commit: str | None,
    subtree: str,
    config: Config,
    embedder,
    files: list[FileResult],
    skipped: list[Skipped],
    graph_counts: dict[str, int],
    settings: dict[str, Any],
) -> Manifest:
    symbols = sum(len(f.symbols) for f in files)
    return Manifest(
        format_version=0,
        codebot_version="",
        generation="",
        commit=commit,
        root=subtree,
        embedder=record(embedder, config),
        counts={
            "files": len(files),
            "symbols": symbols,
            "chunks": sum(1 for f in files for s in f.symbols if s.kind == "chunk"),
            "vectors": symbols if embedder is not None else 0,
            "skipped": len(skipped),
            "issues": sum(len(f.issues) for f in files),
            "lexical_deleted": 0,  # documents deleted but still in Tantivy's statistics
            **graph_counts,
        },
        checksums={},
        skipped=[
            {"path": s.path, "reason": s.reason, **({"content": True} if s.content else {})}
            for s in sorted(skipped, key=lambda s: s.path)
        ],
        settings=settings,
    )


def embed_texts(
    embedder,
    texts: list[str],
    cache_dir: Path,
    progress: Progress | None,
    compact: bool = True,
    chunk_size: int = _EMBED_CHUNK,
):
    """Vectors for ``texts``: from the cache where it has them, computed (and cached) otherwise.

    ``compact``: ``texts`` are all the index holds, so the cache may drop the other vectors
    once they outnumber these (an update embeds a few texts and must not). ``chunk_size``:
    texts per call of the embedder; each chunk is in the cache on disk before the next starts
    (what a killed run loses at most)."""
    import numpy as np

    from codebot.embed.cache import VectorCache, text_key

    cache = VectorCache(cache_dir, embedder.identity)
    keys = [text_key(t) for t in texts]
    out = np.zeros((len(texts), embedder.identity.dimension), dtype=np.float32)
    missing = []
    for i, key in enumerate(keys):
        cached = cache.get(key)
        if cached is None:
            missing.append(i)
        else:
            out[i] = cached
    try:
        # In chunks: a hosted provider batches and sends a chunk's requests concurrently; the
        # built-in model still embeds one text per run inside it (see embed.builtin).
        for start in range(0, len(missing), chunk_size):
            chunk = missing[start : start + chunk_size]
            vectors = embedder.embed_documents([texts[i] for i in chunk])
            for n, (i, vector) in enumerate(zip(chunk, vectors), start + 1):
                cache.put(keys[i], vector)  # on disk by 32s (VectorCache), and at the end
                out[i] = vector
                if progress is not None:
                    progress(n, len(missing), "embedding")
            cache.flush()
    finally:
        cache.flush()  # an interrupted build keeps what it embedded: the next run resumes
    if compact:
        cache.compact(set(keys))
    return out, len(missing)

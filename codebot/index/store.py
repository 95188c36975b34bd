"""The on-disk index: where it lives, how it is written atomically, how it is read.

Layout of an index directory (``.git/codebot/`` in a repository, ``.codebot/`` elsewhere)::

    manifest.json      the commit point: names the current generation (schemas/manifest.schema.json)
    write.lock         held by the one writer
    gen-<n>/           one complete index: symbols.msgpack, files.msgpack, keys.u64, graph.msgpack,
                       lexical/, vectors.usearch
    cache/             embedding vectors by text hash, kept across builds (resume, no re-embedding)

Writing is ``writer.GenerationWriter``'s: it builds a new generation in ``gen-<n>.tmp``, renames
it into place, then replaces ``manifest.json`` (temp file + rename). A reader follows the
manifest, so it sees the old index or the new one, never half of one; a build killed half-way
leaves the previous index as it was. This module holds the formats, the lock and the reading.

A file of a generation that is missing, truncated or corrupt (a disk error, a hand edit, a copy cut
short) is a :class:`~codebot.core.errors.DamagedIndex` naming the file and the fix (rebuild), never
a msgpack or numpy error from deep inside a query.
"""

from __future__ import annotations

import errno
import fcntl
import hashlib
import json
import os
import re
import shutil
import time
import weakref
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from codebot.core.errors import DamagedIndex, GenerationGone, IndexBusy, StoreError
from codebot.core.model import (
    TYPE_KINDS,
    Symbol,
)
from codebot.git.workspace import INDEX_MARKER
from codebot.index.tables import (
    KEYS_FILE,
    FileEntry,
    SymbolTable,
    load_files,
    load_symbols,
    outline_lines,
    outline_signature,
    read_table,
)

if TYPE_CHECKING:
    from codebot.git.repo import Repo
    from codebot.git.workspace import Workspace
    from codebot.graph.callgraph import CodeGraph

__all__ = [
    "FORMAT_VERSION",
    "read_index",
    "sha256_file",
    "write_atomic",
    "link_or_copy",
    "Manifest",
    "Index",
    "lock_for_writing",
    "read_manifest",
    "ensure_intact",
    "hold_generation",
    "MANIFEST",
    "MARKER",
    "claim",
]

FORMAT_VERSION = 2  # 2: symbols keyed by a hash of their id; files keep imports (for updates)
MANIFEST = "manifest.json"
_OPEN_TRIES = 20  # manifest reads before giving up on an index that keeps changing
MARKER = INDEX_MARKER  # in every directory codebot writes an index in (see claim)
# What codebot itself may have put there before the marker: the git hooks' files (see
# git.hooks), the write lock, the marker of another process claiming it at the same moment, the
# overlay's clean stamp (git.cleanstamp).
_OURS = re.compile(
    r"update\.(log|log\.1|pending|runner\.lock)|embed\.(lock|progress)|write\.lock|\.codebot-index"
    r"|clean\.msgpack"
)
MARKER_TEXT = b"codebot's index directory: codebot writes and deletes files here.\n"


@dataclass
class Manifest:
    format_version: int
    codebot_version: str
    generation: str
    commit: str | None
    root: str  # the indexed subtree, relative to the repository root ("" for all of it)
    embedder: dict[str, Any] | None
    counts: dict[str, int]
    checksums: dict[str, str]  # sha256 of every file of the generation, by relative path
    created: str = ""
    skipped: list[dict[str, Any]] = field(default_factory=list)
    settings: dict[str, Any] = field(default_factory=dict)  # what an update must build under
    overlay: dict[str, Any] | None = None  # a work tree overlay: what it was made from
    # Vectors still to come ({"provider": ...}): a keyword + graph generation committed first,
    # the background embedder's next generation adds them (see index.background).
    vectors_pending: dict[str, Any] | None = None
    # Keys of symbols whose vectors are missing or out of date in vectors.usearch (an update
    # that left their embedding to the background embedder): searches leave them out of the
    # vector hits, and find them by keywords, until the embedder's next generation has them.
    vectors_behind: list[int] | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "format_version": self.format_version,
            "codebot_version": self.codebot_version,
            "created": self.created,
            "generation": self.generation,
            "commit": self.commit,
            "root": self.root,
            "embedder": self.embedder,
            "counts": self.counts,
            "checksums": self.checksums,
            "skipped": self.skipped,
            "settings": self.settings,
            **({"overlay": self.overlay} if self.overlay is not None else {}),
            **({"vectors_pending": self.vectors_pending} if self.vectors_pending else {}),
            **({"vectors_behind": self.vectors_behind} if self.vectors_behind else {}),
        }


# --- writing --------------------------------------------------------------------------------------


def claim(index_dir: Path) -> None:
    """Make sure ``index_dir`` is codebot's to write in, marking it so when it is new or empty.

    codebot deletes generations, downloads and temporary files in its index directory, so it
    never writes into a directory that holds anything else: an ``index_dir`` pointed at a
    folder of the user's is refused, not cleaned. An index written before the marker existed
    (it has codebot's manifest) is claimed as it is.
    """
    marker = index_dir / MARKER
    if marker.is_file():
        return
    try:
        index_dir.mkdir(parents=True, exist_ok=True)
        entries = [p.name for p in index_dir.iterdir()]
    except OSError as exc:
        raise StoreError(f"{index_dir}: cannot use it as the index directory: {exc}") from exc
    theirs = [name for name in entries if not _OURS.fullmatch(name)]
    if theirs and not _holds_manifest(index_dir):
        shown = ", ".join(sorted(theirs)[:3]) + (", ..." if len(theirs) > 3 else "")
        raise StoreError(
            f"{index_dir} is not empty ({shown}) and is not a codebot index: codebot writes and "
            "deletes files in its index directory, so it only uses one that is empty or its own. "
            "Point index_dir at a new or empty directory"
        )
    try:  # in place, not by rename: another process claiming it at once sees no stray file
        fd = os.open(marker, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    except FileExistsError:
        return  # claimed by another process a moment ago
    except OSError as exc:
        raise StoreError(
            f"{index_dir}: cannot write the index there: {exc.strerror or exc}"
        ) from exc
    with os.fdopen(fd, "wb") as f:
        f.write(MARKER_TEXT)


def _holds_manifest(index_dir: Path) -> bool:
    try:
        data = json.loads((index_dir / MANIFEST).read_text())
    except (OSError, ValueError):
        return False
    return isinstance(data, dict) and "format_version" in data and "generation" in data


@contextmanager
def lock_for_writing(index_dir: Path, wait: float = 0.0) -> Iterator[None]:
    """Hold the index's write lock; wait up to ``wait`` seconds for another writer, then fail.

    The directory is claimed first (see :func:`claim`)."""
    claim(index_dir)
    path = index_dir / "write.lock"
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError as exc:
        raise StoreError(
            f"{index_dir}: cannot write the index there: {exc.strerror or exc}"
        ) from exc
    try:
        deadline = time.monotonic() + wait
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except OSError as exc:
                if exc.errno not in (errno.EAGAIN, errno.EACCES):
                    raise
                if time.monotonic() >= deadline:
                    holder = (
                        os.pread(fd, 64, 0).decode(errors="replace").strip() or "another process"
                    )
                    raise IndexBusy(
                        f"{index_dir}: the index is being written by {holder}; "
                        "wait for it to finish, or run again with --wait SECONDS"
                    ) from None
                time.sleep(0.1)
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"pid {os.getpid()}".encode(), 0)
        yield
    finally:
        os.close(fd)  # closing releases the lock


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def link_or_copy(source: Path, target: Path) -> None:
    """A hard link (a new generation shares its base's unchanged files: nothing is copied and
    the base stays intact, since neither is ever written again), or a copy where the two are on
    different file systems or links are refused."""
    try:
        os.link(source, target)
    except OSError as exc:
        if exc.errno not in (errno.EXDEV, errno.EPERM, errno.EMLINK, errno.ENOTSUP):
            raise
        shutil.copy2(source, target)


def write_atomic(path: Path, data: bytes) -> None:
    """Write a file so that a reader sees the old content or the new, never a mix."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    with open(tmp, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)
    _fsync_dir(path.parent)


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def verify(index_dir: Path, manifest: Manifest) -> list[str]:
    """Files of the current generation whose checksum does not match the manifest."""
    gen = index_dir / manifest.generation
    bad = []
    for rel, digest in manifest.checksums.items():
        path = gen / rel
        if not path.is_file() or sha256_file(path) != digest:
            bad.append(rel)
    return bad


# --- reading --------------------------------------------------------------------------------------


def ensure_intact(index_dir: Path, manifest: Manifest) -> None:
    """Raise DamagedIndex when a file of the current generation is missing or differs from the
    checksum the manifest recorded (reads every file: for ``status``, not for every query)."""
    gen = index_dir / manifest.generation
    if not gen.is_dir():
        raise DamagedIndex(gen, "the generation the manifest names is missing")
    bad = verify(index_dir, manifest)
    if bad:
        where = gen / bad[0] if len(bad) == 1 else gen
        listed = ", ".join(bad[:5]) + (f" and {len(bad) - 5} more" if len(bad) > 5 else "")
        raise DamagedIndex(where, f"missing or changed since it was written: {listed}")


def read_manifest(index_dir: Path) -> Manifest:
    path = index_dir / MANIFEST
    try:
        data = json.loads(path.read_text())
    except FileNotFoundError:
        raise StoreError(f"no index at {index_dir}; build one with: codebot index") from None
    except (OSError, ValueError) as exc:
        raise DamagedIndex(path, f"unreadable manifest: {exc}") from exc
    if not isinstance(data, dict):
        raise DamagedIndex(path, "the manifest is not a JSON object")
    version = data.get("format_version")
    if version != FORMAT_VERSION:
        newer = isinstance(version, int) and version > FORMAT_VERSION
        hint = "upgrade codebot" if newer else "rebuild it with: codebot index"
        raise StoreError(
            f"{index_dir}: index format {version} (codebot {data.get('codebot_version')}), "
            f"this codebot reads format {FORMAT_VERSION}; {hint}"
        )
    fields = Manifest.__dataclass_fields__
    return Manifest(**{k: v for k, v in data.items() if k in fields})


class Index:
    """A read-only view of the current generation. Symbols and lookups load on first use."""

    def __init__(
        self, index_dir: Path, root: Path, manifest: Manifest, repo: Repo | None = None
    ) -> None:
        self.index_dir = index_dir
        self.root = root  # the repository (or directory) the paths are relative to
        self.manifest = manifest
        self.repo = repo  # to read code the work tree no longer has (opened on demand if None)
        self.gen_dir = index_dir / manifest.generation
        hold = hold_generation(self.gen_dir)
        weakref.finalize(self, os.close, hold)  # released with this view
        self._symbols: SymbolTable | None = None
        self._by_id: dict[str, int] | None = None
        self._by_name: dict[str, list[int]] | None = None
        self._blobs: dict[str, str] | None = None

    @property
    def symbols(self) -> SymbolTable:
        if self._symbols is None:
            table = load_symbols(self.gen_dir)
            self._check_count(self.gen_dir / "symbols.msgpack", len(table), "symbols")
            self._symbols = table
        return self._symbols

    def _check_count(self, path: Path, found: int, what: str) -> None:
        expected = self.manifest.counts.get("symbols")
        if expected is not None and found != expected:
            raise DamagedIndex(path, f"{found} {what} where the manifest counts {expected} symbols")

    @property
    def by_id(self) -> dict[str, int]:
        if self._by_id is None:
            self._by_id = {sid: row for row, sid in enumerate(self.symbols.column("id"))}
        return self._by_id

    @property
    def by_name(self) -> dict[str, list[int]]:
        if self._by_name is None:
            names: dict[str, list[int]] = {}
            for row, name in enumerate(self.symbols.column("name")):
                names.setdefault(name, []).append(row)
            self._by_name = names
        return self._by_name

    @property
    def graph(self) -> CodeGraph:
        """The call graph of this generation (``graph.msgpack``), loaded on first use.

        An index written before the graph existed has none: a StoreError says to rebuild.
        """
        graph = self.__dict__.get("_graph")  # set here, not in __init__: only graph users pay
        if graph is None:
            from codebot.graph.callgraph import GRAPH_FILE
            from codebot.graph.io import load_graph

            graph = load_graph(self.gen_dir / GRAPH_FILE)
            expected = self.manifest.counts.get("symbols")
            if graph.n != expected:  # rows must mean the same symbols in both files
                raise StoreError(
                    f"{self.gen_dir}: the call graph describes {graph.n} symbols, the index "
                    f"{expected}; rebuild with: codebot index"
                )
            self.__dict__["_graph"] = graph
        return graph

    def files(self) -> list[FileEntry]:
        """The file entries, loaded once (an overlay and the update under it both read them)."""
        files = self.__dict__.get("_files")
        if files is None:
            files = self.__dict__["_files"] = load_files(self.gen_dir)
        return files

    def rows_of_keys(self, keys: Sequence[int]) -> list[int | None]:
        """Rows of the symbols with these lexical/vector keys (None for a key not in the table)."""
        lookup = self.__dict__.get("_rows_of_key")
        if lookup is None:
            import numpy as np

            path = self.gen_dir / KEYS_FILE
            data = read_table(path)
            if len(data) % 8:
                raise DamagedIndex(path, f"{len(data)} bytes, not a whole number of keys")
            table = np.frombuffer(data, dtype="<u8")
            self._check_count(path, len(table), "keys")
            lookup = dict(zip(table.tolist(), range(len(table))))
            self.__dict__["_rows_of_key"] = lookup
        return [lookup.get(int(k)) for k in keys]

    def code(self, symbol: Symbol, outline: bool = False) -> str:
        """The symbol's code as indexed: from the work tree if unchanged, else from git.

        ``outline``: a type's own code only (header, docstring, fields), each member cut to its
        first line, as the index sees it; the members are symbols of their own. For an agent on a
        token budget a class costs its outline, not its whole body.
        """
        data = self._file_bytes(symbol.path)
        lines = data.splitlines(keepends=True)
        kept = lines[symbol.start_line - 1 : symbol.end_line]
        if outline and symbol.kind in TYPE_KINDS:
            kept = outline_lines(kept, symbol.start_line, self._members().get(symbol.id, ()))
        return b"".join(kept).decode("utf-8", "replace")

    def _members(self) -> dict[str, list[tuple[int, int, str | None]]]:
        """Line spans of each symbol's direct members, by parent id, each with the signature its
        outline line is found by where the language needs it (built once, from columns)."""
        members = self.__dict__.get("_member_spans")
        if members is None:
            table = self.symbols
            members = {}
            for parent, start, end, language, signature in zip(
                table.column("parent"),
                table.column("start_line"),
                table.column("end_line"),
                table.column("language"),
                table.column("signature"),
            ):
                if parent is not None:
                    members.setdefault(parent, []).append(
                        (start, end, outline_signature(language, signature))
                    )
            self.__dict__["_member_spans"] = members
        return members

    def _file_bytes(self, path: str) -> bytes:
        from codebot.parse.extract import blob_id

        if self._blobs is None:
            self._blobs = {f.path: f.blob for f in self.files()}
        if path not in self._blobs:  # code is read only from the files the index lists
            raise StoreError(f"{path!r} is not a file of the index; rebuild with: codebot index")
        blob = self._blobs[path]
        data = None
        full = os.path.realpath(self.root / path)  # a link out of the repository is not read
        if full.startswith(os.path.realpath(self.root) + os.sep):
            try:
                data = Path(full).read_bytes()
                if blob_id(data) == blob:
                    return data
            except OSError:
                data = None
        if self.repo is None:
            from codebot.git.repo import open_repo

            self.repo = open_repo(self.root)
        repo = self.repo
        if repo is not None and blob is not None:
            try:
                return repo.blob(blob)
            except (KeyError, ValueError):
                pass
        if data is not None:
            return data  # changed since indexing and not in git: the best there is
        raise StoreError(f"{path}: no longer on disk nor in git; update the index: codebot index")


def read_index(ws: Workspace) -> Index:
    """The committed index of a workspace, as the manifest names it: a read, nothing more (the
    work tree's overlay is composed above, by ``overlay.open_index``).

    A writer may replace the generation between reading the manifest and opening it; then the
    manifest is read again (a reader never fails because a writer moved on)."""
    named = None
    for _ in range(_OPEN_TRIES):
        manifest = read_manifest(ws.index_dir)
        try:
            return Index(ws.index_dir, ws.root, manifest, ws.repo)
        except GenerationGone as gone:
            if manifest.generation == named:  # still named, still missing: not a race
                raise DamagedIndex(
                    gone.path, "the generation the manifest names is missing"
                ) from None
            named = manifest.generation
    raise StoreError(f"{ws.index_dir}: the index kept changing while it was opened; try again")


def hold_generation(gen_dir: Path) -> int:
    """A file descriptor holding a shared lock on ``gen_dir``, so that no writer removes the
    generation while it is read (writers prune only what they can lock exclusively, see
    ``writer``). Raises GenerationGone when it was removed before or as it was locked."""
    try:
        fd = os.open(gen_dir, os.O_RDONLY | os.O_DIRECTORY)
    except (FileNotFoundError, NotADirectoryError):
        raise GenerationGone(gen_dir, "removed by a newer generation") from None
    fcntl.flock(fd, fcntl.LOCK_SH)
    if os.fstat(fd).st_nlink == 0:  # removed while we waited for the lock
        os.close(fd)
        raise GenerationGone(gen_dir, "removed by a newer generation")
    return fd

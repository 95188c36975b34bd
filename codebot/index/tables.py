"""The tables of a generation, and the index's keys: how symbols and files are packed into
msgpack, and read back.

    symbols.msgpack   {"fields": [...], "rows": [[...], ...]}: one row per symbol, in path order
    files.msgpack     one row per file: path, blob, language, role, symbol ids, module, imports,
                      parse issues (what an update needs to re-resolve calls without parsing)
    keys.u64          the key of each row's symbol (:func:`symbol_key`), for Tantivy and usearch

A file that is missing, truncated or not what this codebot writes is a
:class:`~codebot.core.errors.DamagedIndex` naming it.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from operator import attrgetter
from pathlib import Path
from typing import Any

from codebot.core.errors import DamagedIndex
from codebot.core.model import Call, FileResult, Import, Parameter, ParseIssue, Symbol, paused_gc

__all__ = [
    "KEYS_FILE",
    "FileEntry",
    "SymbolTable",
    "file_result",
    "load_files",
    "load_symbols",
    "outline_lines",
    "outline_signature",
    "pack_files",
    "pack_symbols",
    "read_table",
    "signature_line",
    "symbol_key",
    "symbol_keys",
    "unpack_table",
    "write_symbols",
]

KEYS_FILE = "keys.u64"


@dataclass(frozen=True, slots=True)
class FileEntry:
    """An indexed file: ``blob`` is its git blob id (the same for the worktree file and a commit).

    It keeps what an update needs to re-resolve the file's calls without parsing it again: its
    module id, imports and parse problems (the symbols, with their raw calls, are in the table).
    """

    path: str
    blob: str
    language: str
    role: str
    symbols: tuple[str, ...] = ()
    module: str = ""
    imports: tuple[Import, ...] = ()
    issues: tuple[tuple[str, int | None], ...] = ()  # (reason, line)

    @classmethod
    def of(cls, f: FileResult) -> FileEntry:
        return cls(
            f.path,
            f.content_hash,
            f.language,
            f.role,
            tuple(s.id for s in f.symbols),
            f.module,
            tuple(f.imports),
            tuple((i.reason, i.line) for i in f.issues),
        )


def symbol_key(symbol_id: str) -> int:
    """The key of a symbol in the lexical and vector indexes: a hash of its id, so it stays the
    same while rows move, and an update and a build agree. 63 bits: usearch reserves 2^64-1."""
    return int.from_bytes(hashlib.blake2b(symbol_id.encode(), digest_size=8).digest()) >> 1


def read_table(path: Path) -> bytes:
    """The bytes of a file of a generation; a DamagedIndex when it is gone or unreadable."""
    try:
        return path.read_bytes()
    except FileNotFoundError:
        raise DamagedIndex(path, "the file is missing") from None
    except OSError as exc:
        raise DamagedIndex(path, f"cannot read it: {exc}") from exc


def unpack_table(path: Path, what: str, **options: Any) -> Any:
    """msgpack-decode a file of a generation; a DamagedIndex when it is truncated or corrupt."""
    import msgpack

    blob = read_table(path)
    try:
        return msgpack.unpackb(blob, **options)
    except (ValueError, TypeError, msgpack.UnpackException) as exc:
        raise DamagedIndex(path, f"unreadable {what}: {exc}") from exc


_SYMBOL_FIELDS = tuple(Symbol.__dataclass_fields__)


def pack_symbols(symbols: list[Symbol], packed: list | None = None) -> bytes:
    """Symbols as rows of values in a fixed field order: a third of the size of dicts.
    ``packed``: by symbol, its row as a table already holds it (``SymbolTable.raw``), or None."""
    import msgpack

    rows = list(_symbol_rows(symbols, packed))
    return msgpack.packb({"fields": _SYMBOL_FIELDS, "rows": rows}, use_bin_type=True)


def write_symbols(
    path: Path, symbols: Sequence[Symbol], packed: list | None = None, chunk: int = 4096
) -> None:
    """:func:`pack_symbols` into ``path``, the same bytes, written a few thousand rows at a
    time: a million symbols never exist a second time as rows, nor as one 400 MB string."""
    import msgpack

    packer = msgpack.Packer(use_bin_type=True, autoreset=False)
    packer.pack_map_header(2)
    packer.pack("fields")
    packer.pack(_SYMBOL_FIELDS)
    packer.pack("rows")
    packer.pack_array_header(len(symbols))
    with open(path, "wb") as out:
        for n, row in enumerate(_symbol_rows(symbols, packed), 1):
            packer.pack(row)
            if n % chunk == 0:
                out.write(packer.bytes())
                packer.reset()
        out.write(packer.bytes())


def _symbol_rows(symbols: Iterable[Symbol], packed: list | None = None) -> Iterable[list]:
    row_of = attrgetter(*_SYMBOL_FIELDS)  # one C call per symbol for every field
    pi, ci = _SYMBOL_FIELDS.index("parameters"), _SYMBOL_FIELDS.index("calls")
    for n, s in enumerate(symbols):
        if packed is not None and packed[n] is not None:
            yield packed[n]
            continue
        row = list(row_of(s))
        if row[pi]:
            row[pi] = [(p.name, p.type, p.default) for p in row[pi]]
        if row[ci]:
            row[ci] = [(c.name, c.line) for c in row[ci]]
        yield row


class SymbolTable(Sequence):
    """The symbol rows of a generation, made into :class:`Symbol` objects only when asked for.

    A query touches a few hundred symbols of tens of thousands: building them all would cost a
    CLI search most of a second (measured: 1.07 s for 82k symbols, against 0.2 s to unpack).
    """

    def __init__(self, data: dict) -> None:
        self.fields: tuple[str, ...] = tuple(data["fields"])
        self.rows: tuple = data["rows"]
        self._made: dict[int, Symbol] = {}
        self._pi, self._ci = self.fields.index("parameters"), self.fields.index("calls")

    def __len__(self) -> int:
        return len(self.rows)

    def __getitem__(self, row):  # type: ignore[override]
        if isinstance(row, slice):
            return [self[i] for i in range(*row.indices(len(self.rows)))]
        made = self._made.get(row)
        if made is None:
            made = self._made[row] = self._make(row)
        return made

    def _make(self, row: int) -> Symbol:
        values = self.rows[row]
        pi, ci = self._pi, self._ci
        if self.fields == _SYMBOL_FIELDS:  # by position: half the cost of by name
            values = list(values)
            values[pi] = tuple(map(Parameter._make, values[pi])) if values[pi] else ()
            values[ci] = tuple(map(Call._make, values[ci])) if values[ci] else ()
            return Symbol(*values)
        fields = dict(zip(self.fields, values))  # a table of another field order
        fields["parameters"] = tuple(Parameter(*p) for p in values[pi])
        fields["calls"] = tuple(Call(*c) for c in values[ci])
        return Symbol(**fields)

    def many(self, rows: Iterable[int]) -> list[Symbol]:
        """The symbols of these rows, made in bulk (an update makes every kept file's)."""
        made, make = self._made, self._make
        out = []
        for row in rows:
            s = made.get(row)
            if s is None:
                s = made[row] = make(row)
            out.append(s)
        return out

    def raw(self, rows: list[int]) -> list:
        """These rows as stored, for writing them again unchanged (``pack_symbols``); None for
        each when the table has another field order (the symbols are packed again)."""
        if self.fields != _SYMBOL_FIELDS:
            return [None] * len(rows)
        table = self.rows
        return [table[row] for row in rows]

    def column(self, name: str) -> list:
        """One field of every row, without making any Symbol."""
        i = self.fields.index(name)
        return [r[i] for r in self.rows]


def load_symbols(gen_dir: Path) -> SymbolTable:
    import gc

    path = gen_dir / "symbols.msgpack"
    # Millions of small immutable objects: unpack with the cyclic collector paused, then freeze
    # them out of its reach, or its next full pass scans them all (0.2 s of every CLI search).
    # Freezing keeps nothing alive: they hold no cycles, and reference counting frees them.
    with paused_gc():
        data = unpack_table(path, "symbol table", use_list=False)
        try:
            table = SymbolTable(data)
        except (KeyError, ValueError, TypeError) as exc:
            raise DamagedIndex(path, f"not a symbol table: {exc!r}") from exc
        gc.freeze()
    return table


def pack_files(files: list[FileEntry]) -> bytes:
    import msgpack

    rows = [
        (
            f.path,
            f.blob,
            f.language,
            f.role,
            f.symbols,
            f.module,
            [(i.module, i.name, i.alias, i.level, i.line) for i in f.imports],
            f.issues,
        )
        for f in files
    ]
    return msgpack.packb(rows, use_bin_type=True)


def load_files(gen_dir: Path) -> list[FileEntry]:
    path = gen_dir / "files.msgpack"
    rows = unpack_table(path, "file table", use_list=False)
    try:
        return [
            FileEntry(p, b, lang, role, s, mod, tuple(Import(*i) for i in imports), issues)
            for p, b, lang, role, s, mod, imports, issues in rows
        ]
    except (ValueError, TypeError) as exc:
        raise DamagedIndex(path, f"not a file table: {exc}") from exc


def file_result(entry: FileEntry, symbols: list[Symbol]) -> FileResult:
    """A file as the parser gave it, from what the index keeps (for re-resolving its calls)."""
    return FileResult(
        entry.path,
        entry.language,
        entry.role,
        entry.module,
        symbols,
        list(entry.imports),
        [ParseIssue(entry.path, reason, line) for reason, line in entry.issues],
        entry.blob,
    )


def symbol_keys(symbol_ids: Iterable[str]):
    """The keys of these symbols, as a uint64 array (see symbol_key)."""
    import numpy as np

    return np.fromiter((symbol_key(i) for i in symbol_ids), dtype="<u8")


def outline_lines(
    lines: list[bytes], first: int, members: Iterable[tuple[int, int, str | None]]
) -> list[bytes]:
    """A type's lines (the first one numbered ``first``) with each member cut to one line.

    ``members``: (start line, end line, signature or None) of each. The line kept is the
    member's first, or, where its signature is given (see :func:`outline_signature`), the line
    its signature starts on: an Elixir function's lines start at its ``@doc``, and the type's
    outline shows ``def add(cart, item)``, not the documentation above it.
    """
    drop: set[int] = set()
    for start, end, signature in members:
        keep = start if signature is None else signature_line(lines, first, start, end, signature)
        drop.update(n for n in range(start, end + 1) if n != keep)
    return [line for n, line in enumerate(lines, first) if n not in drop]


def outline_signature(language: str, signature: str) -> str | None:
    """The signature a member's outline line is found by, for a language whose definitions
    start at their leading documentation (``LanguageSpec.lead``); None elsewhere (the first
    line is kept)."""
    lead = _LEADS.get(language)
    if lead is None:
        from codebot.languages import get_spec

        spec = get_spec(language)
        lead = _LEADS[language] = spec is not None and spec.lead is not None
    return signature if lead else None


_LEADS: dict[str, bool] = {}


def signature_line(lines: list[bytes], first: int, start: int, end: int, signature: str) -> int:
    """The line of ``start``..``end`` (numbered from ``first`` in ``lines``) that the signature
    starts on, after qualifier words at most (Zig's ``pub fn``; whitespace squashed on both
    sides); ``start`` if none does."""
    want = " ".join(signature.split())[:24]
    if not want:
        return start
    for n in range(max(start, first), min(end, first + len(lines) - 1) + 1):
        got = " ".join(lines[n - first].decode("utf-8", "replace").split())
        at = got.find(want)
        if at < 0 and len(got) >= min(len(want), 6) and want.startswith(got):
            at = 0  # a signature spread over lines
        if at == 0 or (at > 0 and got[:at].replace(" ", "").isalnum()):
            return n
    return start

"""Checks that a generation's tables are what codebot itself would write: for a generation that
came from elsewhere (a shared artifact), before it is made current.

The readers (``store``) trust a generation this codebot wrote; a file from elsewhere is checked
here first, every row of it, so that a hostile or damaged table is refused with a message naming
the table, the row and the problem, and never reaches a query as an IndexError or a wrong answer.

    symbols.msgpack   {"fields": this codebot's field order, "rows": [...]}: each row of the right
                      arity, each field of the right type, ids unique, 1 <= start_line <= end_line,
                      parents that exist, paths that are plain relative POSIX paths
    files.msgpack     rows of the right arity and types, paths unique and plain, every symbol id
                      listed by exactly one file, the file of its path
    keys.u64          one key per symbol, each ``store.symbol_key`` of its row's id
    graph.msgpack     loads; as many nodes as symbols; every row, code and edge index in range;
                      its precise facts (``meta["precise"]``), when present, of the right types
    precise.msgpack   (optional: ``codebot precise``) loads; every caller and callee a symbol id of
                      the table, every covered path plain and a file of the table, hashes hex
    git               (``tree`` given) every file's path and blob are those of the commit's tree,
                      and each symbol's end_line lies within its file's lines

Each check raises :class:`InvalidTable` (a ``StoreError``).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from codebot.core.errors import InvalidTable
from codebot.core.model import EDGE_KINDS, RESOLUTIONS, Symbol
from codebot.index.store import Manifest
from codebot.index.tables import KEYS_FILE, symbol_keys
from codebot.index.vector import EXACT_FILE
from codebot.index.writer import LEXICAL_DIR, VECTORS_FILE

__all__ = [
    "check_generation",
    "check_manifest",
    "check_path",
    "check_sizes",
    "line_count",
    "SYMBOL_TYPES",
]

_HEX_BLOB = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")
_MODES = (0o100644, 0o100755)  # regular files: what a build indexes (links, submodules are not)


# --- types, as msgpack gives them back (use_list=False: tuples) ---------------------------------


def _is_str(v: Any) -> bool:
    return type(v) is str


def _is_int(v: Any) -> bool:
    return type(v) is int  # not bool


def _opt_str(v: Any) -> bool:
    return v is None or type(v) is str


def _tuple_of(item: Callable[[Any], bool]) -> Callable[[Any], bool]:
    def check(v: Any) -> bool:
        return type(v) is tuple and (not v or all(item(x) for x in v))

    return check


def _row_of(*items: Callable[[Any], bool]) -> Callable[[Any], bool]:
    def check(v: Any) -> bool:
        return type(v) is tuple and len(v) == len(items) and all(f(x) for f, x in zip(items, v))

    return check


def _nonneg(v: Any) -> bool:
    return type(v) is int and v >= 0


# The type of every field of a symbol row, in Symbol's field order (a test holds the two equal).
SYMBOL_TYPES: dict[str, Callable[[Any], bool]] = {
    "id": _is_str,
    "name": _is_str,
    "kind": _is_str,
    "language": _is_str,
    "path": _is_str,
    "start_line": _is_int,
    "end_line": _is_int,
    "role": _is_str,
    "class_name": _opt_str,
    "parent": _opt_str,
    "signature": _is_str,
    "parameters": _tuple_of(_row_of(_is_str, _opt_str, _opt_str)),
    "decorators": _tuple_of(_is_str),
    "return_type": _opt_str,
    "docstring": _opt_str,
    "bases": _tuple_of(_is_str),
    "calls": _tuple_of(_row_of(_is_str, _nonneg)),
    "content_hash": _is_str,
}
_FIELDS = tuple(Symbol.__dataclass_fields__)
# files.msgpack: path, blob, language, role, symbol ids, module, imports, issues (store.pack_files)
_FILE_TYPES = (
    ("path", _is_str),
    ("blob", _is_str),
    ("language", _is_str),
    ("role", _is_str),
    ("symbols", _tuple_of(_is_str)),
    ("module", _is_str),
    ("imports", _tuple_of(_row_of(_is_str, _opt_str, _opt_str, _nonneg, _nonneg))),
    ("issues", _tuple_of(_row_of(_is_str, lambda v: v is None or _is_int(v)))),
)


def check_path(path: Any) -> str | None:
    """Why ``path`` is not a plain relative POSIX path inside a work tree, or None when it is:
    no leading ``/``, no empty, ``.`` or ``..`` part, no NUL, CR or newline, nothing under
    ``.git``."""
    if type(path) is not str or not path:
        return "is not a non-empty string"
    if path.startswith("/"):
        return "is absolute"
    if any(c in path for c in "\x00\n\r"):
        return "holds a NUL or line break"
    parts = path.split("/")
    if any(p in ("", ".", "..") for p in parts):
        return "has an empty, '.' or '..' part"
    if any(p.lower() == ".git" for p in parts):
        return "lies under .git"
    return None


def line_count(data: bytes) -> int:
    """Lines of a file as the parser numbers them (a last line without a newline counts)."""
    return data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)


def check_manifest(manifest: Any, where: str = "manifest") -> None:
    """The fields of a manifest (as a dict) that codebot reads later, with their types."""

    def bad(why: str) -> InvalidTable:
        return InvalidTable(f"{where}: {why}")

    if not isinstance(manifest, dict):
        raise bad(f"is a {type(manifest).__name__}, not an object")
    required = {
        "format_version": _is_int,
        "codebot_version": _is_str,
        "generation": _is_str,
        "commit": _opt_str,
        "root": _is_str,
        "embedder": lambda v: v is None or isinstance(v, dict),
        "counts": lambda v: isinstance(v, dict),
        "checksums": lambda v: isinstance(v, dict),
    }
    optional = {
        "created": _is_str,
        "skipped": lambda v: isinstance(v, list),
        "settings": lambda v: isinstance(v, dict),
        "overlay": lambda v: v is None,
    }
    for key, ok in required.items():
        if key not in manifest:
            raise bad(f"lacks {key!r}")
        if not ok(manifest[key]):
            raise bad(f"{key!r} has the wrong type ({type(manifest[key]).__name__})")
    for key, ok in optional.items():
        if key in manifest and not ok(manifest[key]):
            raise bad(f"{key!r} has the wrong type or value ({manifest[key]!r:.60})")
    if not re.fullmatch(r"gen-[0-9]{1,9}", manifest["generation"]):
        raise bad(f"'generation' is not a generation name ({manifest['generation']!r:.60})")
    if manifest["root"] and check_path(manifest["root"]):
        raise bad(f"'root' {manifest['root']!r:.60} {check_path(manifest['root'])}")
    for key, value in manifest["counts"].items():
        if not _is_str(key) or not _nonneg(value):
            raise bad(f"counts[{key!r:.40}] is not a count ({value!r:.40})")
    for key in ("files", "symbols"):
        if key not in manifest["counts"]:
            raise bad(f"counts lacks {key!r}")
    embedder = manifest["embedder"]
    if embedder is not None:
        dim = embedder.get("dimension")
        if not _is_str(embedder.get("provider")) or not (_is_int(dim) and 0 < dim <= 65536):
            raise bad("'embedder' lacks a provider string and a dimension (1 to 65536)")
    for n, skip in enumerate(manifest.get("skipped", ())):
        if not (
            isinstance(skip, dict)
            and check_path(skip.get("path")) is None
            and _is_str(skip.get("reason"))
            and type(skip.get("content", False)) is bool
        ):
            raise bad(f"skipped[{n}] is not a path and a reason ({skip!r:.60})")


# --- sizes: what a generation may hold, before any of it is read --------------------------------

KIB, MIB = 1 << 10, 1 << 20
# Bytes a table may take: (fixed, per symbol, per file). Generous: about ten times the most
# measured on real repositories (flask, fastapi: symbols.msgpack 350 B a symbol, files.msgpack
# 600 B a file, graph.msgpack 45 B a symbol, the keyword index 850 B a symbol).
SIZE_RULES: dict[str, tuple[int, int, int]] = {
    "symbols.msgpack": (1 * MIB, 4 * KIB, 0),
    "files.msgpack": (1 * MIB, 1 * KIB, 64 * KIB),  # a file row repeats its symbols' ids
    "graph.msgpack": (1 * MIB, 4 * KIB, 0),
    "precise.msgpack": (1 * MIB, 4 * KIB, 256),  # flask: 180 B a symbol, 80 B a file
    LEXICAL_DIR + "/": (16 * MIB, 16 * KIB, 0),  # all its files together
}
_LEXICAL_NAME = re.compile(r"[A-Za-z0-9._-]{1,100}")


def check_sizes(manifest: Manifest, sizes: dict[str, int]) -> None:
    """Refuse a generation of files ``sizes`` ({relative path: bytes}) that codebot would not
    have written, judged by the manifest's counts alone: only its own files (the four tables,
    ``lexical/<name>``, ``vectors.usearch`` with an embedder), ``keys.u64`` of exactly 8 bytes a
    symbol, each table within ``SIZE_RULES`` (fixed + per symbol x symbols + per file x files),
    the vectors within 1 MiB + symbols x (8 x dimension + 256). The counts are checked against
    the tables once they are read."""
    symbols, files = manifest.counts["symbols"], manifest.counts["files"]

    def cap(rule: tuple[int, int, int]) -> int:
        return rule[0] + rule[1] * symbols + rule[2] * files

    required = {"symbols.msgpack", "files.msgpack", "graph.msgpack", KEYS_FILE}
    missing = sorted(required - set(sizes))
    if missing:
        raise InvalidTable(f"the generation lacks {missing[0]}")
    lexical = 0
    for rel, size in sizes.items():
        if rel == KEYS_FILE:
            if size != 8 * symbols:
                raise InvalidTable(f"{rel}: {size} bytes, want 8 per symbol ({8 * symbols})")
        elif rel in SIZE_RULES:
            if size > cap(SIZE_RULES[rel]):
                raise InvalidTable(
                    f"{rel}: {size} bytes, over the {cap(SIZE_RULES[rel])} that {symbols} symbols "
                    f"and {files} files allow"
                )
        elif rel.startswith(LEXICAL_DIR + "/") and _LEXICAL_NAME.fullmatch(
            rel[len(LEXICAL_DIR) + 1 :]
        ):
            lexical += size
        elif rel == VECTORS_FILE and manifest.embedder is not None:
            top = MIB + symbols * (8 * manifest.embedder["dimension"] + 256)
            if size > top:
                raise InvalidTable(
                    f"{rel}: {size} bytes, over the {top} that {symbols} vectors allow"
                )
        elif rel == EXACT_FILE and manifest.embedder is not None:
            top = 16 + symbols * (8 + 2 * manifest.embedder["dimension"])
            if size > top:
                raise InvalidTable(
                    f"{rel}: {size} bytes, over the {top} that {symbols} vectors allow"
                )
        else:
            raise InvalidTable(f"{rel!r:.80} is no file of a generation")
    top = cap(SIZE_RULES[LEXICAL_DIR + "/"])
    if lexical > top:
        raise InvalidTable(
            f"{LEXICAL_DIR}/: {lexical} bytes, over the {top} that {symbols} symbols allow"
        )


# --- the tables ----------------------------------------------------------------------------------


def _unpack(gen: Path, name: str):
    import msgpack

    try:
        data = (gen / name).read_bytes()
        # Limits: no size beyond the data, no ext types, no pickle (msgpack never unpickles).
        return msgpack.unpackb(data, use_list=False, raw=False, strict_map_key=True, max_ext_len=0)
    except Exception as exc:  # noqa: BLE001 - any failure means a table we cannot read
        raise InvalidTable(f"{name}: missing or unreadable ({type(exc).__name__}: {exc})") from exc


def check_generation(
    gen: Path,
    manifest: Manifest,
    tree: dict[str, tuple[int, str]] | None = None,
    read_blob: Callable[[str], bytes] | None = None,
) -> None:
    """Check every table of the generation in ``gen`` against ``manifest`` (its counts) and, with
    ``tree`` ({path: (mode, blob)} of the manifest's commit) and ``read_blob``, against git."""
    ids, paths, ends = _check_symbols(gen, manifest)
    by_path = _check_files(gen, manifest, ids, paths, tree)
    _check_keys(gen, ids)
    _check_graph(gen, manifest, len(ids))
    if (gen / "precise.msgpack").exists():
        _check_precise(gen, ids, by_path)
    if read_blob is not None:
        _check_lines(paths, ends, by_path, read_blob)


def _check_symbols(gen: Path, manifest: Manifest) -> tuple[list[str], list[str], list[int]]:
    name = "symbols.msgpack"
    table = _unpack(gen, name)
    if not isinstance(table, dict) or set(table) != {"fields", "rows"}:
        raise InvalidTable(f"{name}: not a map of fields and rows")
    if table["fields"] != _FIELDS:
        raise InvalidTable(f"{name}: fields {table['fields']!r:.200} are not {_FIELDS}")
    rows = table["rows"]
    if type(rows) is not tuple or len(rows) != manifest.counts.get("symbols"):
        got = len(rows) if type(rows) is tuple else type(rows).__name__
        raise InvalidTable(
            f"{name}: {got} rows, the manifest counts {manifest.counts.get('symbols')}"
        )
    checks = tuple(SYMBOL_TYPES[f] for f in _FIELDS)
    width = len(_FIELDS)
    i_id, i_path = _FIELDS.index("id"), _FIELDS.index("path")
    i_start, i_end = _FIELDS.index("start_line"), _FIELDS.index("end_line")
    i_parent = _FIELDS.index("parent")
    ids: list[str] = []
    paths: list[str] = []
    ends: list[int] = []
    good_paths: set[str] = set()
    for n, row in enumerate(rows):
        if type(row) is not tuple or len(row) != width:
            raise InvalidTable(f"{name}: row {n} is not a row of {width} fields")
        for field, ok, value in zip(_FIELDS, checks, row):
            if not ok(value):
                raise InvalidTable(f"{name}: row {n}: {field} has the wrong type ({value!r:.80})")
        start, end = row[i_start], row[i_end]
        if not 1 <= start <= end:
            raise InvalidTable(f"{name}: row {n}: lines {start}-{end} (want 1 <= start <= end)")
        if row[i_path] not in good_paths:  # symbols share paths: check each once
            why = check_path(row[i_path])
            if why:
                raise InvalidTable(f"{name}: row {n}: path {row[i_path]!r:.80} {why}")
            good_paths.add(row[i_path])
        ids.append(row[i_id])
        paths.append(row[i_path])
        ends.append(end)
    known = set(ids)
    if len(known) != len(ids):
        seen: set[str] = set()
        n, dup = next((n, i) for n, i in enumerate(ids) if i in seen or seen.add(i))
        raise InvalidTable(f"{name}: row {n}: id {dup!r:.80} appears twice")
    for n, row in enumerate(rows):
        if row[i_parent] is not None and row[i_parent] not in known:
            raise InvalidTable(f"{name}: row {n}: parent {row[i_parent]!r:.80} is no symbol")
    return ids, paths, ends


def _check_files(
    gen: Path,
    manifest: Manifest,
    ids: list[str],
    paths: list[str],
    tree: dict[str, tuple[int, str]] | None,
) -> dict[str, str]:
    """The file rows; returns {path: blob}."""
    name = "files.msgpack"
    rows = _unpack(gen, name)
    if type(rows) is not tuple or len(rows) != manifest.counts.get("files"):
        got = len(rows) if type(rows) is tuple else type(rows).__name__
        raise InvalidTable(
            f"{name}: {got} rows, the manifest counts {manifest.counts.get('files')}"
        )
    path_of = dict(zip(ids, paths))
    owner: dict[str, int] = {}
    blobs: dict[str, str] = {}
    root = manifest.root
    for n, row in enumerate(rows):
        if type(row) is not tuple or len(row) != len(_FILE_TYPES):
            raise InvalidTable(f"{name}: row {n} is not a row of {len(_FILE_TYPES)} fields")
        for (field, ok), value in zip(_FILE_TYPES, row):
            if not ok(value):
                raise InvalidTable(f"{name}: row {n}: {field} has the wrong type ({value!r:.80})")
        path, blob, symbols = row[0], row[1], row[4]
        why = check_path(path)
        if why:
            raise InvalidTable(f"{name}: row {n}: path {path!r:.80} {why}")
        if root and not (path == root or path.startswith(root + "/")):
            raise InvalidTable(f"{name}: row {n}: {path!r:.80} lies outside the index's {root!r}")
        if path in blobs:
            raise InvalidTable(f"{name}: row {n}: {path!r:.80} appears twice")
        if not _HEX_BLOB.fullmatch(blob):
            raise InvalidTable(f"{name}: row {n}: blob {blob!r:.80} is not a git object id")
        if tree is not None:
            mode, actual = tree.get(path, (0, None))
            if actual is None or mode not in _MODES:
                raise InvalidTable(
                    f"{name}: row {n}: {path!r:.80} is no file of the artifact's commit"
                )
            if actual != blob:
                raise InvalidTable(
                    f"{name}: row {n}: {path!r:.80} is blob {blob[:12]} here, {actual[:12]} in "
                    "the artifact's commit"
                )
        blobs[path] = blob
        for sid in symbols:
            if sid not in path_of:
                raise InvalidTable(f"{name}: row {n}: symbol {sid!r:.80} is not in the table")
            if path_of[sid] != path:
                raise InvalidTable(
                    f"{name}: row {n}: symbol {sid!r:.80} lies in {path_of[sid]!r:.80}, not here"
                )
            if sid in owner:
                raise InvalidTable(f"{name}: row {n}: symbol {sid!r:.80} is listed twice")
            owner[sid] = n
    if len(owner) != len(ids):
        n, sid = next((n, i) for n, i in enumerate(ids) if i not in owner)
        raise InvalidTable(f"symbols.msgpack: row {n}: {sid!r:.80} is listed by no file")
    return blobs


def _check_keys(gen: Path, ids: list[str]) -> None:
    import numpy as np

    path = gen / KEYS_FILE
    if not path.is_file() or path.stat().st_size != 8 * len(ids):
        size = path.stat().st_size if path.is_file() else "no"
        raise InvalidTable(f"{KEYS_FILE}: {size} bytes, want 8 per symbol ({8 * len(ids)})")
    keys = np.fromfile(path, dtype="<u8")
    wrong = np.flatnonzero(keys != symbol_keys(ids))
    if len(wrong):
        raise InvalidTable(f"{KEYS_FILE}: row {int(wrong[0])}: not the key of its symbol's id")


def _check_graph(gen: Path, manifest: Manifest, n: int) -> None:
    import numpy as np

    from codebot.graph.callgraph import GRAPH_FILE
    from codebot.graph.io import unpack_graph

    try:
        g = unpack_graph((gen / GRAPH_FILE).read_bytes(), GRAPH_FILE)
    except Exception as exc:  # noqa: BLE001 - a hostile file may fail in any way
        raise InvalidTable(f"{GRAPH_FILE}: does not load ({type(exc).__name__}: {exc})") from exc
    if g.n != n:
        raise InvalidTable(f"{GRAPH_FILE}: {g.n} nodes, the symbol table {n} rows")

    def in_range(a, top: int) -> bool:
        return len(a) == 0 or (int(np.min(a)) >= 0 and int(np.max(a)) < top)

    if not in_range(g.kind, len(EDGE_KINDS)) or not in_range(g.resolution, len(RESOLUTIONS)):
        raise InvalidTable(f"{GRAPH_FILE}: an edge kind or resolution code out of range")
    for label, rows in (
        ("entry_points", g.entry_points),
        ("leaves", g.leaves),
        ("isolated", g.isolated),
        *((f"community {c.id}", np.asarray(c.central, dtype=np.int64)) for c in g.communities),
    ):
        if not in_range(rows, n):
            raise InvalidTable(f"{GRAPH_FILE}: {label}: a row outside the symbol table")
    precise = g.meta.get("precise")
    if precise is not None and not (
        isinstance(precise, dict)
        and all(_is_int(precise.get(k)) and precise[k] >= 0 for k in _PRECISE_COUNTS)
        and _opt_str(precise.get("commit"))
        and _is_str(precise.get("tool"))
    ):
        raise InvalidTable(f"{GRAPH_FILE}: meta.precise is not what codebot writes")
    edges = manifest.counts.get("edges")
    if edges is not None and edges != len(g):
        raise InvalidTable(f"{GRAPH_FILE}: {len(g)} edges, the manifest counts {edges}")


_PRECISE_COUNTS = ("files", "fresh_files", "stale_files", "edges", "confirmed", "new", "dropped",
                   "stale_sites")  # fmt: skip


def _check_precise(gen: Path, ids: list[str], by_path: dict[str, str]) -> None:
    from codebot.graph.precise import PRECISE_FILE, unpack_precise

    try:
        p = unpack_precise((gen / PRECISE_FILE).read_bytes(), PRECISE_FILE)
    except Exception as exc:  # noqa: BLE001 - a hostile file may fail in any way
        raise InvalidTable(f"{PRECISE_FILE}: does not load ({type(exc).__name__}: {exc})") from exc
    known = set(ids)
    for path, digest in p.files.items():
        if check_path(path) is not None or path not in by_path:
            raise InvalidTable(f"{PRECISE_FILE}: {path!r:.120} is no file of the index")
        if not _HEX_BLOB.fullmatch(digest):
            raise InvalidTable(f"{PRECISE_FILE}: {path!r:.120}: {digest!r:.80} is no blob id")
    for src, sites in p.sites.items():
        if src not in known:
            raise InvalidTable(f"{PRECISE_FILE}: caller {src!r:.120} is no symbol of the index")
        for line, _name, dst in sites:
            if line < 1 or (dst and dst not in known):
                raise InvalidTable(f"{PRECISE_FILE}: a site of {src!r:.120} out of the index")


def _check_lines(
    paths: list[str], ends: list[int], blobs: dict[str, str], read_blob: Callable[[str], bytes]
) -> None:
    """Each symbol's end_line within its file (the blob read from git, once per file)."""
    last: dict[str, int] = {}
    for path, end in zip(paths, ends):
        if end > last.get(path, 0):
            last[path] = end
    for path, end in last.items():
        try:
            lines = line_count(read_blob(blobs[path]))
        except (KeyError, ValueError) as exc:
            raise InvalidTable(
                f"{path}: blob {blobs[path][:12]} is not in this clone's git (a partial clone?)"
            ) from exc
        if end > lines:
            n = next(n for n, (p, e) in enumerate(zip(paths, ends)) if p == path and e == end)
            raise InvalidTable(
                f"symbols.msgpack: row {n}: ends on line {end} of {path!r:.80}, which has {lines}"
            )

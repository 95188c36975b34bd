"""Reading a SCIP index (``index.scip``, sourcegraph/scip's ``scip.proto``), the fields we use.

A hand-written reader of the protobuf wire format rather than the ``protobuf`` package and a
generated module: we read five messages and a dozen fields, the reader is a hundred lines with
no dependency, and every bound is ours. The file is untrusted input (an artifact, a CI build):

- every length is checked against the bytes left in its message, so a truncated or hostile
  file is a :class:`~codebot.core.errors.PreciseError`, never a read past the end;
- every loop consumes at least one byte, so no input hangs it;
- what is kept is a subset of what is read, so memory is bounded by the file's size (and the
  file by ``MAX_SCIP_BYTES``);
- nesting is fixed by the schema (Index > Document > Occurrence): no recursion on input.

The messages (field numbers from ``scip.proto``)::

    Index           1 metadata (2 tool_info: 1 name, 2 version; 3 project_root), 2 documents
    Document        1 relative_path, 2 occurrences, 3 symbols, 4 language
    Occurrence      1 range (packed int32: 3 or 4), 2 symbol, 3 symbol_roles, 7 enclosing_range
    SymbolInformation  1 symbol, 5 kind, 6 display_name

Ranges are 0-based, ``[start_line, start_char, end_line, end_char]`` (three values: one line).
Other fields, and fields of a later version of the schema, are skipped by their wire type.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from codebot.core.errors import PreciseError

__all__ = [
    "DEFINITION",
    "IMPORT",
    "MAX_SCIP_BYTES",
    "Occurrence",
    "ScipDocument",
    "ScipIndex",
    "descriptor_name",
    "descriptors",
    "is_local",
    "read_scip",
    "parse_scip",
]

DEFINITION = 0x1  # SymbolRole.Definition
IMPORT = 0x2
MAX_SCIP_BYTES = 1 << 31  # 2 GiB: well above any repository we index (flask: 2.9 MB)

_VARINT, _I64, _LEN, _I32 = 0, 1, 2, 5


@dataclass(frozen=True, slots=True)
class Occurrence:
    """A symbol at a place: 0-based lines and characters, ``roles`` a SymbolRole bit set."""

    symbol: str
    start_line: int
    start_char: int
    end_line: int
    end_char: int
    roles: int = 0
    enclosing: tuple[int, int] | None = None  # 0-based first and last line, when given

    @property
    def is_definition(self) -> bool:
        return bool(self.roles & DEFINITION)


@dataclass(slots=True)
class ScipDocument:
    path: str
    language: str = ""
    occurrences: list[Occurrence] = field(default_factory=list)
    kinds: dict[str, int] = field(default_factory=dict)  # symbol -> SymbolInformation.Kind
    display: dict[str, str] = field(default_factory=dict)  # symbol -> display_name


@dataclass(slots=True)
class ScipIndex:
    tool: str = ""
    version: str = ""
    project_root: str = ""
    documents: list[ScipDocument] = field(default_factory=list)


def read_scip(path: Path, max_bytes: int = MAX_SCIP_BYTES) -> ScipIndex:
    """The SCIP index in ``path``; a PreciseError when it cannot be read or is not one."""
    try:
        size = path.stat().st_size
        if size > max_bytes:
            raise PreciseError(f"{path}: {size} bytes, over the {max_bytes} a SCIP index may have")
        blob = path.read_bytes()
    except OSError as exc:
        raise PreciseError(f"{path}: cannot read the SCIP index: {exc}") from exc
    return parse_scip(blob, str(path))


def parse_scip(blob: bytes, where: str = "index.scip") -> ScipIndex:
    try:
        return _index(memoryview(blob))
    except _Bad as exc:
        raise PreciseError(f"{where}: not a readable SCIP index ({exc})") from None


class _Bad(Exception):
    pass


def _varint(buf: memoryview, pos: int, end: int) -> tuple[int, int]:
    result = shift = 0
    while True:
        if pos >= end:
            raise _Bad("truncated varint")
        b = buf[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        if not b & 0x80:
            return result, pos
        shift += 7
        if shift >= 70:
            raise _Bad("varint longer than 10 bytes")


def _fields(buf: memoryview, pos: int, end: int):
    """(field number, wire type, value) of a message's fields; a LEN value is (start, stop)."""
    while pos < end:
        key, pos = _varint(buf, pos, end)
        number, wire = key >> 3, key & 7
        if number == 0:
            raise _Bad("field number 0")
        if wire == _VARINT:
            value, pos = _varint(buf, pos, end)
        elif wire == _LEN:
            size, pos = _varint(buf, pos, end)
            if size > end - pos:
                raise _Bad(f"a field of {size} bytes with {end - pos} left")
            value, pos = (pos, pos + size), pos + size
        elif wire == _I64:
            if pos + 8 > end:
                raise _Bad("truncated fixed64")
            value, pos = None, pos + 8
        elif wire == _I32:
            if pos + 4 > end:
                raise _Bad("truncated fixed32")
            value, pos = None, pos + 4
        else:  # groups (3, 4) are not in the schema; 6, 7 do not exist
            raise _Bad(f"wire type {wire}")
        yield number, wire, value


def _text(buf: memoryview, span: object) -> str:
    if not isinstance(span, tuple):
        raise _Bad("a string field that is not length-delimited")
    try:
        return bytes(buf[span[0] : span[1]]).decode("utf-8")
    except UnicodeDecodeError as exc:
        raise _Bad(f"a string that is not UTF-8: {exc.reason}") from None


def _ints(buf: memoryview, wire: int, value: object) -> list[int]:
    """A repeated int32: packed (one LEN) or one varint; negative values come as 10 bytes."""
    if wire == _VARINT:
        raw = [value]
    elif wire == _LEN:
        start, stop = value  # type: ignore[misc]
        raw = []
        while start < stop:
            v, start = _varint(buf, start, stop)
            raw.append(v)
    else:
        raise _Bad("a range that is not int32")
    return [v - (1 << 64) if v >= 1 << 63 else v for v in raw]  # type: ignore[operator]


def _index(buf: memoryview) -> ScipIndex:
    out = ScipIndex()
    for number, wire, value in _fields(buf, 0, len(buf)):
        if number == 1 and wire == _LEN:
            _metadata(buf, value, out)
        elif number == 2 and wire == _LEN:
            out.documents.append(_document(buf, *value))
    return out


def _metadata(buf: memoryview, span: tuple[int, int], out: ScipIndex) -> None:
    for number, wire, value in _fields(buf, *span):
        if number == 2 and wire == _LEN:
            for n2, w2, v2 in _fields(buf, *value):
                if n2 == 1 and w2 == _LEN:
                    out.tool = _text(buf, v2)
                elif n2 == 2 and w2 == _LEN:
                    out.version = _text(buf, v2)
        elif number == 3 and wire == _LEN:
            out.project_root = _text(buf, value)


def _document(buf: memoryview, start: int, stop: int) -> ScipDocument:
    doc = ScipDocument("")
    for number, wire, value in _fields(buf, start, stop):
        if number == 1:
            doc.path = _text(buf, value)
        elif number == 4:
            doc.language = _text(buf, value)
        elif number == 2 and wire == _LEN:
            occ = _occurrence(buf, *value)
            if occ is not None:
                doc.occurrences.append(occ)
        elif number == 3 and wire == _LEN:
            symbol, kind, display = "", 0, ""
            for n2, w2, v2 in _fields(buf, *value):
                if n2 == 1:
                    symbol = _text(buf, v2)
                elif n2 == 5 and w2 == _VARINT:
                    kind = int(v2)  # type: ignore[arg-type]
                elif n2 == 6:
                    display = _text(buf, v2)
            if symbol:
                if kind:
                    doc.kinds[symbol] = kind
                if display:
                    doc.display[symbol] = display
    if not doc.path or doc.path.startswith("/") or ".." in doc.path.split("/"):
        raise _Bad(f"a document path that is not relative: {doc.path!r}")
    return doc


def _occurrence(buf: memoryview, start: int, stop: int) -> Occurrence | None:
    """One occurrence; None for one without a symbol (highlighting only)."""
    rng: list[int] = []
    enclosing: list[int] = []
    symbol, roles = "", 0
    for number, wire, value in _fields(buf, start, stop):
        if number == 1:
            rng += _ints(buf, wire, value)
        elif number == 2:
            symbol = _text(buf, value)
        elif number == 3 and wire == _VARINT:
            roles = int(value) & 0xFFFFFFFF  # type: ignore[arg-type]
        elif number == 7:
            enclosing += _ints(buf, wire, value)
    if not symbol:
        return None
    if len(rng) == 3:
        rng = [rng[0], rng[1], rng[0], rng[2]]
    if len(rng) != 4 or min(rng) < 0:
        raise _Bad(f"an occurrence range of {len(rng)} values: {rng[:6]}")
    span = None
    if len(enclosing) in (3, 4) and min(enclosing) >= 0:
        span = (enclosing[0], enclosing[2] if len(enclosing) == 4 else enclosing[0])
    return Occurrence(symbol, rng[0], rng[1], rng[2], rng[3], roles, span)


def is_local(symbol: str) -> bool:
    """A symbol local to its document (``local 12``): never a definition another file reaches."""
    return symbol.startswith("local ")


def descriptors(symbol: str) -> tuple[str, str]:
    """A global symbol split into its package (``scheme manager name version``) and its
    descriptors; ("", "") for a local or malformed one."""
    if is_local(symbol):
        return "", ""
    i = 0
    for _ in range(4):  # four space-separated fields (a doubled space is an escaped one)
        while True:
            i = symbol.find(" ", i)
            if i < 0:
                return "", ""
            if symbol[i + 1 : i + 2] == " ":
                i += 2
                continue
            break
        i += 1
    return symbol[: i - 1], symbol[i:]


def descriptor_name(symbol: str) -> tuple[str, str]:
    """The last descriptor of a global symbol: (name, suffix), the suffix one of ``/`` namespace,
    ``#`` type, ``.`` term, ``().`` method, ``()`` parameter, ``[]`` type parameter, ``:`` meta,
    ``!`` macro; ("", "") when the symbol has none (a local one, or malformed)."""
    rest = descriptors(symbol)[1]
    if not rest:
        return "", ""
    if rest.endswith(")."):  # method: name(disambiguator).
        head = rest[: rest.rfind("(")]
        return _last_name(head), "()."
    if rest.endswith(")"):  # parameter: (name)
        return rest[rest.rfind("(") + 1 : -1].strip("`"), "()"
    if rest.endswith("]"):
        return rest[rest.rfind("[") + 1 : -1].strip("`"), "[]"
    suffix = rest[-1]
    return _last_name(rest[:-1]), suffix


def _last_name(text: str) -> str:
    """The last name of a descriptor chain without its suffix: ``a/B#c`` -> ``c``; a name in
    backticks (escaped) may hold any character."""
    if text.endswith("`"):
        j = len(text) - 2
        while j >= 0:
            if text[j] == "`" and (j == 0 or text[j - 1] != "`"):
                return text[j + 1 : -1].replace("``", "`")
            j -= 1
        return text.strip("`")
    for j in range(len(text) - 1, -1, -1):
        if text[j] in "/#.:!)]":
            return text[j + 1 :]
    return text

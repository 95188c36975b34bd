"""The data that flows through the pipeline, mirroring the JSON Schemas in ``schemas/``.

Frozen, slotted dataclasses: stages pass them along and never mutate them. ``to_dict`` gives the
JSON form that ``schemas/symbol.schema.json`` describes.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from typing import NamedTuple

__all__ = [
    "Call",
    "EDGE_KINDS",
    "Edge",
    "FUNCTION_KINDS",
    "FileResult",
    "Import",
    "Parameter",
    "ParseIssue",
    "RESOLUTIONS",
    "Symbol",
    "TYPE_KINDS",
    "VALUE_KINDS",
    "paused_gc",
    "is_overload_stub",
    "printable",
]

# Kinds of symbol. Classes and their relatives keep their own name so ranking and rendering can tell
# a trait from an enum; ``chunk`` is code outside any definition (module-level code, or a whole file
# in a language without a grammar). A name bound at module level (or a type's static constant) is
# a ``constant`` (declared immutable, or named in ALL_CAPS) or a ``variable``: found by name and
# searched, never the target of a call.
FUNCTION_KINDS = ("function", "method")
TYPE_KINDS = ("class", "struct", "interface", "trait", "enum", "module")
VALUE_KINDS = ("constant", "variable")
KINDS = FUNCTION_KINDS + TYPE_KINDS + ("chunk",) + VALUE_KINDS

ROLES = ("source", "test", "example", "vendor", "generated", "docs", "config")


class Parameter(NamedTuple):
    name: str
    type: str | None = None
    default: str | None = None


class Call(NamedTuple):
    """A call expression as written (``self.load``, ``os.path.join``), and the line it is on.

    A named tuple, not a dataclass: a large repository has hundreds of thousands, and a tuple is
    made several times faster."""

    name: str
    line: int


@dataclass(frozen=True, slots=True)
class Import:
    """One name an import binds: ``from module import name as alias``, or ``import module as alias``.

    ``name`` is None when the module itself is imported, ``"*"`` for a wildcard. ``level`` counts
    the leading dots of a relative import (Python) or ``..`` segments (JavaScript paths stay in
    ``module`` as written).
    """

    module: str
    name: str | None = None
    alias: str | None = None
    level: int = 0
    line: int = 0


@dataclass(frozen=True, slots=True)
class Symbol:
    id: str
    name: str
    kind: str
    language: str
    path: str
    start_line: int  # 1-based, inclusive
    end_line: int
    role: str = "source"
    class_name: str | None = None
    parent: str | None = None  # id of the enclosing symbol, if any
    signature: str = ""
    parameters: tuple[Parameter, ...] = ()
    decorators: tuple[str, ...] = ()
    return_type: str | None = None
    docstring: str | None = None
    bases: tuple[str, ...] = ()
    calls: tuple[Call, ...] = ()
    content_hash: str = ""

    def ref(self) -> dict:
        """The fields that locate a symbol: what every listing of symbols prints."""
        return {
            "id": self.id,
            "name": self.name,
            "kind": self.kind,
            "language": self.language,
            "path": self.path,
            "start_line": self.start_line,
            "end_line": self.end_line,
        }

    def to_dict(self) -> dict:
        out = asdict(self)
        out["parameters"] = [p._asdict() for p in self.parameters]
        out["calls"] = [c._asdict() for c in self.calls]
        return out


@dataclass(frozen=True, slots=True)
class ParseIssue:
    """Something a user should hear about: a syntax error range, a skipped file, a fallback."""

    path: str
    reason: str
    line: int | None = None


# New kinds and resolutions go at the end: a stored graph carries its own code tables, so an
# older index reads on (graph/io.py recodes it).
EDGE_KINDS = ("calls", "contains", "inherits", "imports", "decorates")
RESOLUTIONS = ("exact", "unique_name", "overload", "override", "precise")


def is_overload_stub(sym: Symbol) -> bool:
    """A Python ``@overload`` (``@typing.overload``) signature: a member of an overload set that
    never runs; the set's implementation is the definition of the same name without it."""
    return sym.language == "python" and any(
        d.split("(", 1)[0].strip().rsplit(".", 1)[-1] == "overload" for d in sym.decorators
    )


@dataclass(frozen=True, slots=True)
class Edge:
    """A resolved relation between two symbols. ``resolution`` says how sure it is: ``exact``
    (through an import, self/cls, the MRO...), ``unique_name`` (the only symbol of that name) or
    ``overload`` (one of the ``@overload`` signatures of a set with no implementation, such as a
    ``.pyi`` stub: which one applies is not known) or ``override`` (a method overriding the one a
    call names on a value of a declared type, ``self.m()`` -> a subclass's ``m``: a possible
    runtime target; the declared method is the ``exact`` edge) or ``precise`` (a compiler-grade
    indexer's, from a SCIP index: see graph.precise). ``decorates``: the enclosing scope (a class,
    a module's chunk) applies a decorator to a definition; ``line`` is the definition's."""

    src: str
    dst: str
    kind: str
    line: int = 0
    resolution: str = "exact"


@dataclass(slots=True)
class FileResult:
    path: str
    language: str
    role: str
    module: str = ""  # the id prefix of the file's symbols (see parse.module_id)
    symbols: list[Symbol] = field(default_factory=list)
    imports: list[Import] = field(default_factory=list)
    issues: list[ParseIssue] = field(default_factory=list)
    content_hash: str = ""

    def to_dict(self) -> dict:
        return {
            "path": self.path,
            "language": self.language,
            "role": self.role,
            "module": self.module,
            "content_hash": self.content_hash,
            "imports": [asdict(i) for i in self.imports],
            "symbols": [s.to_dict() for s in self.symbols],
            "issues": [asdict(i) for i in self.issues],
        }


@contextmanager
def paused_gc() -> Iterator[None]:
    """The cyclic garbage collector paused, for work that makes many long-lived objects and no
    cycles (parsing, building, updating, loading a table): the collector would rescan them again
    and again for nothing (a quarter of the run time on a large tree). Also a decorator."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if collecting:
            gc.enable()


def printable(text: str) -> str:
    """``text`` fit for one line of a report: control characters (a newline in a file name) and
    lone surrogates (a name that is not UTF-8) escaped, so one problem is one line."""
    if text.isprintable():
        return text
    return "".join(
        c if c.isprintable() else c.encode("unicode_escape", "backslashreplace").decode("ascii")
        for c in text
    )

"""Symbols by name: ``find`` (every match), and the one symbol an id names for ``show``, the
graph walks (callers, callees, chain) and their MCP tools, as reports with ``to_text`` and
``to_dict``.

A name that matches nothing raises ``NotFound`` (with the nearest names as suggestions, never a
substitute); one that matches several where one is needed raises :class:`~codebot.core.errors.Ambiguous`, listing them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from codebot.core.errors import Ambiguous
from codebot.core.model import VALUE_KINDS, Symbol, is_overload_stub
from codebot.graph.callgraph import CALLERS
from codebot.graph.resolvers.names import strip_duplicate

if TYPE_CHECKING:
    from codebot.graph.callgraph import ChainNode, Neighbor
    from codebot.index.store import Index
    from codebot.query.search import Searcher

__all__ = [
    "Chain",
    "EntryPoints",
    "Found",
    "Neighbors",
    "SymbolCode",
    "call_chain",
    "code_of",
    "entry_points",
    "export_graph",
    "find",
    "neighbors",
    "one_symbol",
    "overload_choice",
]


def _where(s: Symbol) -> str:
    return f"{s.path}:{s.start_line}-{s.end_line}"


def one_symbol(searcher: Searcher, name: str) -> int:
    """The row of the one symbol ``name`` names, looked up like :func:`find`. An overload set
    (Python ``@overload`` signatures and their implementation) is one symbol: its implementation,
    or its first signature when it has none."""
    row = searcher.index.by_id.get(name.strip())
    if row is not None and searcher.index.symbols[row].language != "python":
        return row  # an id names its member of a Java/Kotlin/C# overload set, not the set
    matches = searcher.find(name)  # a miss raises NotFound, with suggestions
    if len(matches) > 1:
        chosen = overload_choice(matches) or _definition_over_rebinding(matches)
        if chosen is None:
            raise Ambiguous(name, matches)
        return searcher.index.by_id[chosen.id]
    return searcher.index.by_id[matches[0].id]


def _definition_over_rebinding(matches: list[Symbol]) -> Symbol | None:
    """``def f`` and ``f = wrap(f)`` below it (``f#2``) are one name: the definition stands for
    it. None when the matches are anything else (two functions, values in two files)."""
    if len({strip_duplicate(s.id) for s in matches}) != 1:
        return None
    definitions = [s for s in matches if s.kind not in VALUE_KINDS]
    return definitions[0] if len(definitions) == 1 else None


def overload_choice(matches: list[Symbol]) -> Symbol | None:
    """The member that stands for an overload set (the implementation: the last definition
    without ``@overload``; else the first signature); None when ``matches`` are no one set."""
    if len({strip_duplicate(s.id) for s in matches}) != 1:
        return None
    stubs = [s for s in matches if is_overload_stub(s)]
    if not stubs:
        return None
    impls = [s for s in matches if not is_overload_stub(s)]
    return impls[-1] if impls else min(stubs, key=lambda s: s.start_line)


@dataclass(frozen=True)
class Found:
    """Every symbol a name matches (``codebot find``, ``find_symbol``)."""

    symbols: list[Symbol]

    def to_dict(self) -> list[dict[str, Any]]:
        return [s.to_dict() for s in self.symbols]

    def to_text(self) -> str:
        return "".join(
            f"{_where(s)}  {s.kind:<9} {s.id}" + (f"  {s.signature}" if s.signature else "") + "\n"
            for s in self.symbols
        )


def find(searcher: Searcher, name: str) -> Found:
    return Found(searcher.find(name))


@dataclass(frozen=True)
class SymbolCode:
    """One symbol's code as it is now (``codebot show``, ``get_code``)."""

    symbol: Symbol
    code: str
    # The other members of the overload set the name named (the shown symbol stands for it).
    overloads: tuple[Symbol, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        out = {**self.symbol.to_dict(), "code": self.code}
        if self.overloads:
            out["overloads"] = [s.ref() for s in self.overloads]
        return out

    def to_text(self, kind: bool = False) -> str:
        """``kind``: name the kind in the header (what an agent reads)."""
        s = self.symbol
        header = f"# {_where(s)}  {s.kind + ' ' if kind else ''}{s.id}\n"
        if self.overloads:
            what = "its first signature" if is_overload_stub(s) else "its implementation"
            others = ", ".join(f"{o.id} (line {o.start_line})" for o in self.overloads)
            header += (
                f"# an overload set of {len(self.overloads) + 1}: shown {what}; also {others}\n"
            )
        return header + self.code + ("" if self.code.endswith("\n") else "\n")


def code_of(searcher: Searcher, name: str) -> SymbolCode:
    index = searcher.index
    symbol = index.symbols[one_symbol(searcher, name)]
    others: tuple[Symbol, ...] = ()
    if symbol.language == "python":
        matches = searcher.find(name)
        if len(matches) > 1 and overload_choice(matches) == symbol:
            others = tuple(s for s in matches if s.id != symbol.id)
    return SymbolCode(symbol, index.code(symbol), others)


def _capped(lines: list[str], most: int | None, hint: str) -> str:
    if most is not None and len(lines) > most:
        lines = [*lines[:most], f"... {len(lines) - most} more lines ({hint})"]
    return "\n".join(lines) + "\n"


@dataclass(frozen=True)
class Neighbors:
    """Who calls a symbol, or what it calls, to a depth (schemas/graph-neighbors)."""

    index: Index
    row: int
    direction: str  # callers or callees
    depth: int
    found: list[Neighbor]

    def to_dict(self) -> dict[str, Any]:
        from codebot.query.graph_output import neighbors_doc

        return neighbors_doc(self.index.symbols, self.row, self.direction, self.depth, self.found)

    def to_text(self, most: int | None = None) -> str:
        """One line per symbol; ``most``: lines at most, the rest counted."""
        from codebot.query.graph_output import neighbors_text

        lines = neighbors_text(self.index.symbols, self.row, self.direction, self.found)
        return _capped(lines, most, "lower depth to see fewer")


def neighbors(searcher: Searcher, name: str, depth: int, direction: str) -> Neighbors:
    index = searcher.index
    row = one_symbol(searcher, name)
    graph = index.graph
    if direction == "callers":  # who uses it: decorator applications too, marked
        return Neighbors(index, row, direction, depth, graph.callers(row, depth, CALLERS))
    return Neighbors(index, row, direction, depth, graph.callees(row, depth))


@dataclass(frozen=True)
class Chain:
    """The execution tree below a symbol (schemas/chain)."""

    index: Index
    root: ChainNode
    depth: int

    def to_dict(self) -> dict[str, Any]:
        from codebot.query.graph_output import chain_doc

        return chain_doc(self.index.symbols, self.root, self.depth)

    def to_text(self, most: int | None = None) -> str:
        from codebot.query.graph_output import chain_text

        return _capped(chain_text(self.index.symbols, self.root), most, "lower depth")


def call_chain(searcher: Searcher, name: str, depth: int) -> Chain:
    index = searcher.index
    return Chain(index, index.graph.chain(one_symbol(searcher, name), depth), depth)


@dataclass(frozen=True)
class EntryPoints:
    """Functions called by nobody that call others (schemas/entrypoints)."""

    doc: dict[str, Any]

    def to_dict(self) -> dict[str, Any]:
        return self.doc

    def to_text(self) -> str:
        return "".join(
            f"{e['path']}:{e['start_line']}  {e['kind']:<9} {e['id']}  (calls {e['callees']})\n"
            for e in self.doc["results"]
        )


def entry_points(index: Index, all_roles: bool = False, limit: int | None = None) -> EntryPoints:
    """Source code's entry points (``all_roles``: tests, examples and docs too), ``limit`` at most."""
    from codebot.query.graph_output import entrypoints_doc

    symbols = index.symbols
    rows = [
        r for r in index.graph.entry_points.tolist() if all_roles or symbols[r].role == "source"
    ]
    return EntryPoints(entrypoints_doc(index, rows[:limit] if limit else rows))


def export_graph(
    searcher: Searcher, kinds: tuple[str, ...] = (), around: str | None = None, depth: int = 2
) -> dict[str, Any]:
    """The graph (schemas/graph-export), or the part within ``depth`` calls of ``around``;
    ``kinds``: the edge kinds (default: calls)."""
    from codebot.query.graph_output import export_doc

    kinds = kinds or ("calls",)
    index = searcher.index
    g = index.graph
    if around is not None:
        center: int | None = one_symbol(searcher, around)
        rows: Any = g.neighborhood([center], depth, kinds)
    else:
        center, rows = None, range(g.n)
    edges = g.edges_among(rows, kinds)
    if center is None:  # the whole graph: only the symbols that take part in an edge
        rows = sorted({int(r) for e in edges for r in (g.src[e], g.dst[e])})
    return export_doc(index, list(rows), edges, kinds, center, depth if around else None)

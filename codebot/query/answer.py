"""What a search answers with when the graph stage runs: the flat ranked list, and call trees.

A tree is the workflow behind a question: an entry point, the calls below it in line order, and
for each node why it is there (``hit``: ranked by search; ``neighbour``: a caller or callee of a
hit; ``bridge``: a function on the call path between hits that no retriever ranked).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from codebot.core.model import Symbol

__all__ = ["Answer", "AnswerNode", "WHY"]

WHY = ("hit", "neighbour", "bridge")


@dataclass
class AnswerNode:
    row: int  # the symbol's row in the index's symbol table
    symbol: Symbol
    why: str  # one of WHY
    score: float
    call_line: int | None = None  # where the parent calls this node (None for a root)
    children: list[AnswerNode] = field(default_factory=list)
    mark: str | None = None  # "cycle", "repeat", "depth"... when the tree stops here


@dataclass
class Answer:
    query: str
    hits: list  # list[codebot.query.search.Hit], best first, each with its ``why``
    trees: list[AnswerNode] = field(default_factory=list)  # best first

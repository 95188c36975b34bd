"""``codebot context``: the code an answer points at, packed into a token budget for a prompt.

What goes in, in order: the ranked hits, then the best tree's nodes in pre-order (the workflow from
its entry point down), each once; code first, and tests, documentation and examples after all of
it, with what budget remains (unless the question asks for them: "how is X tested", "the docs for
Y", or ``include``). A question about behaviour wants the implementation; a documentation chunk
or a test ranked among the hits must not take the budget the function its own tree lists needed.
Each is shown in full if its body fits what is left of the budget, else as its signature and the
first paragraph of its docstring; every shown symbol carries its path and line range, so an agent
can open the rest. The whole rendered text is counted again
at the end and trimmed until it fits: the budget is never exceeded, by the counter's own measure.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from codebot.query.answer import Answer
from codebot.query.render import hit_why, tree_lines, walk
from codebot.query.tokens import TokenCounter, fit_text

if TYPE_CHECKING:
    from codebot.core.model import Symbol
    from codebot.index.store import Index

__all__ = ["ASIDE_ROLES", "Packed", "asked_roles", "context_items", "pack_context"]

_DOC_CHARS = 300  # a docstring's first paragraph, cut here: the signature view is a pointer

# Roles packed after the code, and the words of a question that ask for them.
ASIDE_ROLES = {
    "test": ("test", "tests", "tested", "testing", "pytest", "fixture", "fixtures"),
    "docs": ("doc", "docs", "documentation", "documented", "readme", "changelog", "tutorial"),
    "example": ("example", "examples", "demo"),
}
_PLURAL = {"tests": "test", "examples": "example", "doc": "docs"}


def asked_roles(query: str, include: Iterable[str] = ()) -> set[str]:
    """The aside roles a question asks for by its words, and those ``include`` names
    (``tests``, ``docs``, ``examples``, or the role names themselves)."""
    words = set(re.findall(r"[a-z]+", query.lower()))
    asked = {role for role, names in ASIDE_ROLES.items() if words.intersection(names)}
    return asked | {_PLURAL.get(name, name) for name in include}


def context_items(answer: Answer, include: Iterable[str] = ()) -> list[tuple[Symbol, str]]:
    """(symbol, why) in packing order: the hits, then the best tree's nodes, each once; tests,
    documentation and examples after all the code unless asked for (:func:`asked_roles`)."""
    out: list[tuple[Symbol, str]] = []
    seen: set[str] = set()
    nodes = [(n.symbol, n.why) for n in walk(answer.trees[0])] if answer.trees else []
    for symbol, why in [(h.symbol, hit_why(h)) for h in answer.hits] + nodes:
        if symbol.id not in seen:
            seen.add(symbol.id)
            out.append((symbol, why))
    wanted = asked_roles(answer.query, include)
    first = [(s, w) for s, w in out if s.role not in ASIDE_ROLES or s.role in wanted]
    return first + [(s, w) for s, w in out if s.role in ASIDE_ROLES and s.role not in wanted]


@dataclass
class Packed:
    query: str
    budget: int
    counter: str
    tokens: int
    text: str
    items: list[dict[str, Any]] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "query": self.query,
            "budget": self.budget,
            "tokenizer": self.counter,
            "tokens": self.tokens,
            "items": self.items,
            "text": self.text,
        }


def _docline(s: Symbol) -> str:
    doc = (s.docstring or "").strip().split("\n\n")[0].strip()
    return doc if len(doc) <= _DOC_CHARS else doc[: _DOC_CHARS - 3].rstrip() + "..."


def _section(s: Symbol, why: str, body: str | None, fmt: str) -> str:
    """One symbol: a header with path and lines, then its code (``body``) or its signature."""
    where = f"{s.path}:{s.start_line}-{s.end_line}"
    shown = "" if body is not None else "  (signature)"
    if body is None:
        sig = s.signature or s.name
        doc = _docline(s)
        body = sig + (f"\n    {doc!r}" if doc else "") + "\n"
    if not body.endswith("\n"):
        body += "\n"
    if fmt == "markdown":
        return f"### `{s.id}`  {where}  [{why}]{shown}\n```{s.language}\n{body}```\n"
    return f"# {where}  {s.id}  [{why}]{shown}\n{body}"


def _header(answer: Answer, fmt: str) -> str:
    title = f"## Context for: {answer.query}\n" if fmt == "markdown" else f"# {answer.query}\n"
    if not answer.trees:
        return title
    tree = "\n".join(tree_lines(Answer(answer.query, [], answer.trees[:1])))
    return title + (f"```text\n{tree}\n```\n" if fmt == "markdown" else tree + "\n")


def pack_context(
    index: Index,
    answer: Answer,
    budget: int,
    counter: TokenCounter,
    fmt: str = "markdown",
    include: Iterable[str] = (),
) -> Packed:
    """The answer's code in at most ``budget`` tokens (``fmt``: markdown or text); ``include``:
    aside roles (tests, docs, examples) to pack in rank order with the code."""
    sep = "\n"
    parts: list[tuple[str, dict[str, Any] | None]] = []  # (text, the item it shows, if any)
    used = 0

    def add(text: str, item: dict[str, Any] | None = None) -> bool:
        nonlocal used
        cost = counter.count(text + sep)
        if used + cost > budget:
            return False
        parts.append((text, item))
        used += cost
        return True

    header = _header(answer, fmt)
    # The tree outline is worth a quarter of the budget at most: code matters more.
    if counter.count(header) > budget // 4 or not add(header):
        add(_header(Answer(answer.query, []), fmt))
    for symbol, why in context_items(answer, include):
        ref = {**symbol.ref(), "why": why}
        if not add(
            _section(symbol, why, index.code(symbol, outline=True), fmt), {**ref, "shown": "full"}
        ):
            add(_section(symbol, why, None, fmt), {**ref, "shown": "signature"})
        # else: skip it; a smaller one further down may still fit

    def joined() -> str:
        return sep.join(text for text, _ in parts)

    text = joined()
    # Counting parts one by one can differ from counting the whole by a token at a seam; drop
    # from the end until the whole fits, then cut characters as a last resort (a tiny budget).
    while parts and counter.count(text) > budget:
        parts.pop()
        text = joined()
    text = fit_text(text, budget, counter)
    items = [item for _, item in parts if item is not None]
    return Packed(answer.query, budget, counter.name, counter.count(text), text, items)

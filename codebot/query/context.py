"""``codebot context``: the code an answer points at, packed into a token budget for a prompt.

What goes in, in order: the ranked hits, then the best tree's nodes in pre-order (the workflow from
its entry point down), each once; code first, and tests, documentation and examples after all of
it, with what budget remains (unless the question asks for them: "how is X tested", "the docs for
Y", or ``include``). A question about behaviour wants the implementation; a documentation chunk
or a test ranked among the hits must not take the budget the function its own tree lists needed.
Each is shown in full if its body fits what is left of the budget and a quarter of the budget
(:data:`EXCERPT_SHARE`); a longer body is shown as an excerpt (its signature and the lines that
share a word with the question, :func:`excerpt`), made whole again at the end if budget remains;
what does not fit even so is shown as its signature and the first paragraph of its docstring.
Every shown symbol carries its path and line range, so an agent can open the rest. The whole rendered text is counted again
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

__all__ = [
    "ASIDE_ROLES",
    "EXCERPT_SHARE",
    "Packed",
    "asked_roles",
    "context_items",
    "excerpt",
    "pack_context",
]

_DOC_CHARS = 300  # a docstring's first paragraph, cut here: the signature view is a pointer
# A body longer than this share of the budget is shown as an excerpt at first (its signature and
# the lines that share words with the question), and in full only if budget remains once every
# item has its place: one long function early in the ranking must not take a small budget.
EXCERPT_SHARE = 0.25
_STOP = frozenset(
    """the and for with how are is of to in on a an by from what where when which does do
    that this into its it be as or not can get set use used using""".split()
)
_WORD = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")

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


def _words(text: str) -> set[str]:
    """Lower-cased words of a text, identifiers split (``parseArgs``, ``parse_args``: parse,
    args), cut to their first five letters (``registered`` and ``registry`` meet)."""
    return {w.lower()[:5] for w in _WORD.findall(text) if len(w) > 2} - _STOP


def excerpt(
    s: Symbol, body: str, query: str, limit: int, counter: TokenCounter
) -> tuple[str, list[list[int]]] | None:
    """A long body cut to its signature and the lines that share a word with ``query`` (each
    gap a ``...`` line), in at most ``limit`` tokens; with no such line, its first lines. Also
    the line ranges shown. None when the signature alone does not fit."""
    from codebot.index.tables import signature_line

    lines = body.splitlines()
    first = s.start_line
    last = first + len(lines) - 1
    encoded = [line.encode() for line in lines]
    head = [signature_line(encoded, first, first, last, s.signature) - first]
    end = " ".join(s.signature.split())[-12:]  # a signature spread over lines: up to its end
    while (
        end
        and end not in " ".join(" ".join(lines[i].split()) for i in head)
        and head[-1] + 1 < len(lines)
        and len(head) < 6
    ):
        head.append(head[-1] + 1)
    asked = _words(query)
    after = range(head[-1] + 1, len(lines))
    score = {i: len(asked & _words(lines[i])) for i in after}
    # The lines naming most of the question's words first, then in order; none: the first lines.
    rest = sorted((i for i in after if score[i]), key=lambda i: (-score[i], i)) or list(after)
    used = sum(counter.count(lines[i] + "\n") for i in head) + 4  # the closing `...`
    if used > limit:
        return None
    picked = set(head)
    for i in rest:
        cost = counter.count(lines[i] + "\n") + 3  # and a gap's `...`, at most
        if used + cost > limit:
            break
        picked.add(i)
        used += cost
    kept = sorted(picked)
    out: list[str] = []
    ranges: list[list[int]] = []
    for i in kept:
        if ranges and first + i == ranges[-1][1] + 1:
            ranges[-1][1] = first + i
        else:
            if ranges:
                out.append(lines[i][: len(lines[i]) - len(lines[i].lstrip())] + "...")
            ranges.append([first + i, first + i])
        out.append(lines[i])
    if kept[-1] != len(lines) - 1:
        out.append("...")
    return "\n".join(out) + "\n", ranges


def _section(s: Symbol, why: str, body: str | None, fmt: str, cut: bool = False) -> str:
    """One symbol: a header with path and lines, then its code (``body``, an excerpt of it
    with ``cut``) or its signature."""
    where = f"{s.path}:{s.start_line}-{s.end_line}"
    shown = "  (excerpt)" if cut else "" if body is not None else "  (signature)"
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
    cap = max(int(budget * EXCERPT_SHARE), 100)
    cut: list[tuple[int, str]] = []  # (part index, the full section) of each excerpt
    for symbol, why in context_items(answer, include):
        ref = {**symbol.ref(), "why": why}
        body = index.code(symbol, outline=True)
        full = _section(symbol, why, body, fmt)
        if counter.count(full + sep) <= cap and add(full, {**ref, "shown": "full"}):
            continue
        room = min(cap, budget - used) - counter.count(_section(symbol, why, "", fmt, True))
        short = excerpt(symbol, body, answer.query, room, counter) if room > 0 else None
        if short is not None and add(
            _section(symbol, why, short[0], fmt, True),
            {**ref, "shown": "excerpt", "lines": short[1]},
        ):
            cut.append((len(parts) - 1, full))
        elif not add(full, {**ref, "shown": "full"}):
            add(_section(symbol, why, None, fmt), {**ref, "shown": "signature"})
        # else: skip it; a smaller one further down may still fit
    # With budget left once every item has its place, excerpts become whole bodies, best first.
    for i, full in cut:
        text, item = parts[i]
        extra = counter.count(full + sep) - counter.count(text + sep)
        if used + extra <= budget:
            item = {k: v for k, v in item.items() if k != "lines"}
            parts[i] = (full, {**item, "shown": "full"})
            used += extra

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

"""The shape of a language, and the default hooks most grammars satisfy by their field names.

A hook takes the definition node (the one captured as ``@definition.<kind>``) and returns one piece
of metadata. The defaults read tree-sitter's conventional fields (``parameters``, ``return_type``,
``body``) and the comments just above a definition; a language overrides only what differs.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from tree_sitter import Node, Parser, Query

from codebot.core.model import Import, Parameter
from codebot.languages.receivers import Receivers

__all__ = [
    "LanguageSpec",
    "clean_comment",
    "default_signature_end",
    "field_text",
    "leading_comment",
    "parameter_from_node",
    "query_file",
    "squash",
    "text",
]

Hook = Callable[[Node], object]


def text(node: Node | None) -> str:
    if node is None:
        return ""
    return node.text.decode("utf-8", "replace")


def squash(s: str, limit: int = 400) -> str:
    """Collapse whitespace to single spaces and cut to ``limit`` characters."""
    if len(s) <= limit and "\n" not in s and "  " not in s and "\t" not in s:
        return s.strip()  # the common case: nothing to collapse
    s = " ".join(s.split())
    return s if len(s) <= limit else s[: limit - 1] + "…"


def field_text(node: Node, *names: str) -> str | None:
    for name in names:
        child = node.child_by_field_name(name)
        if child is not None:
            return squash(text(child), 200)
    return None


# --- default hooks --------------------------------------------------------------------------------

_PARAM_NAME_FIELDS = ("name", "pattern", "declarator")
_PARAM_TYPE_FIELDS = ("type",)
_PARAM_DEFAULT_FIELDS = ("value", "default_value", "default")


def _first_identifier(node: Node) -> Node | None:
    stack = [node]
    while stack:
        n = stack.pop(0)
        if "identifier" in n.type or n.type in ("name", "variable_name", "simple_identifier"):
            return n
        stack.extend(n.named_children)
    return None


def parameter_from_node(node: Node) -> Parameter:
    """One parameter from a parameter node, by the usual field names."""
    name_node = None
    for f in _PARAM_NAME_FIELDS:
        name_node = node.child_by_field_name(f)
        if name_node is not None:
            break
    if name_node is not None and "identifier" not in name_node.type:
        name_node = _first_identifier(name_node) or name_node
    if name_node is None:
        name_node = _first_identifier(node)
    name = text(name_node) if name_node is not None else squash(text(node), 80)
    return Parameter(
        name=name,
        type=field_text(node, *_PARAM_TYPE_FIELDS),
        default=field_text(node, *_PARAM_DEFAULT_FIELDS),
    )


def default_parameters(node: Node) -> tuple[Parameter, ...]:
    params = node.child_by_field_name("parameters")
    if params is None:
        return ()
    return tuple(parameter_from_node(p) for p in params.named_children if "comment" not in p.type)


def default_return_type(node: Node) -> str | None:
    return field_text(node, "return_type", "result")


_COMMENT_MARKS = re.compile(r"^\s*(?:/\*\*?|\*/|\*(?!/)|///?|//!|#+|--|;+)\s?")


def clean_comment(raw: str) -> str:
    lines = []
    for line in raw.splitlines():
        line = line.rstrip()
        if line.endswith("*/"):
            line = line[:-2].rstrip()
        lines.append(_COMMENT_MARKS.sub("", line, count=1))
    while lines and not lines[0].strip():
        lines.pop(0)
    while lines and not lines[-1].strip():
        lines.pop()
    return "\n".join(lines).strip() or ""


def leading_comment(node: Node) -> str | None:
    """The comment block right above ``node`` (no blank line between), cleaned of its markers."""
    parts: list[str] = []
    expected_row = node.start_point[0]
    sib = node.prev_sibling
    while sib is not None and "comment" in sib.type and sib.end_point[0] >= expected_row - 1:
        # A trailing comment on the line of the previous statement belongs to that statement.
        prev = sib.prev_sibling
        if (
            prev is not None
            and prev.end_point[0] == sib.start_point[0]
            and "comment" not in prev.type
        ):
            break
        parts.append(text(sib))
        expected_row = sib.start_point[0]
        sib = sib.prev_sibling
    if not parts:
        return None
    doc = clean_comment("\n".join(reversed(parts)))
    return doc or None


def no_items(node: Node) -> tuple:
    return ()


def no_owner(node: Node, name: str) -> tuple[tuple[str, ...], str]:
    return (), name


def same_node(node: Node) -> Node:
    return node


def default_signature_end(node: Node) -> int:
    """Where the signature stops: the start of the body, or the end of the first line."""
    body = node.child_by_field_name("body")
    if body is not None and body.start_byte > node.start_byte:
        return body.start_byte
    nl = node.text.find(b"\n")
    return node.end_byte if nl < 0 else node.start_byte + nl


# --- the spec -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class LanguageSpec:
    """How to read one language. Only ``name``, ``grammar`` and the query file are required."""

    name: str
    grammar: str  # the tree-sitter-language-pack name
    query_path: Path
    # Query files shared with other grammars (JavaScript's with TypeScript's), appended in order.
    query_parts: tuple[Path, ...] = ()
    # (definition node, name as captured) -> (owner names, short name). Go receivers, C++ `A::f`.
    owner: Callable[[Node, str], tuple[tuple[str, ...], str]] = no_owner
    # The node whose range is the symbol's: e.g. Python's decorated_definition around a def.
    outer: Callable[[Node], Node] = same_node
    # A function's leading documentation and attributes when they are siblings before it, not
    # part of its node (Elixir's `@doc`, `@spec`): the first of them, or None. The symbol's
    # lines start there (its code carries its documentation), and a type's outline keeps the
    # member's signature line, not its first (`index.tables.outline_lines`).
    lead: Callable[[Node], Node | None] | None = None
    # Items the grammar reads as a macro's tokens (tokio's `cfg_rt! { pub fn spawn() {} }`):
    # given the tree and the bytes parsed, the bytes with the wrappers blanked (same length,
    # same lines) for a parse that sees the items in place; None when there is none.
    unwrap: Callable[[Node, bytes], bytes | None] | None = None
    # The same kind of rewrite made before any parse, from the text alone (C++: macros the
    # grammar cannot read blanked). Both keep every newline where it was, so every byte offset,
    # line and column of the file holds; signatures and hashes read the file's own bytes.
    preprocess: Callable[[bytes], bytes] | None = None
    parameters: Callable[[Node], tuple[Parameter, ...]] = default_parameters
    return_type: Callable[[Node], str | None] = default_return_type
    docstring: Callable[[Node], str | None] = leading_comment
    decorators: Callable[[Node], tuple[str, ...]] = no_items
    bases: Callable[[Node], tuple[str, ...]] = no_items
    # The bases a function's scope declares for the type it adds to (Swift's `extension T: P`,
    # recorded on the extension's functions, as the extension is no symbol).
    scope_bases: Callable[[Node], tuple[str, ...]] = no_items
    imports: Callable[[Node], Iterable[Import]] = no_items
    signature_end: Callable[[Node], int] = default_signature_end
    # Local type inference for call receivers (``languages.receivers``); None: calls as written.
    receivers: Receivers | None = None
    # Node types that hold a type's members: a function directly inside one is a method.
    extra: dict = field(default_factory=dict)

    @cached_property
    def language(self):
        from tree_sitter_language_pack import get_language

        return get_language(self.grammar)

    @cached_property
    def query(self) -> Query:
        parts = (self.query_path, *self.query_parts)
        return Query(self.language, "\n".join(p.read_text() for p in parts))

    @cached_property
    def capture_rank(self) -> dict[str, int]:
        """Capture names by first appearance in the query: the earlier wins a tie on one node."""
        q = self.query
        return {q.capture_name(i): i for i in range(q.capture_count)}

    @cached_property
    def _parser(self) -> Parser:
        return Parser(self.language)

    def parser(self) -> Parser:
        """A parser for this language, made once per process (not thread-safe: one per thread)."""
        return self._parser


def query_file(module_file: str, name: str) -> Path:
    return Path(module_file).with_name(f"{name}.scm")

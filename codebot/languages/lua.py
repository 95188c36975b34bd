"""Lua: functions, the methods of module tables, module-level values, ``require`` imports.

- ``function M.find()`` / ``function M:find()`` / ``M.find = function()`` are methods of ``M``
  (owner ``M``); ``a.b.c = function()`` is ``c`` under ``a.b``.
- ``local util = require("telescope.utils")`` is ``Import("telescope.utils", alias="util")``;
  a bare ``require("x")`` statement imports ``x`` under no name.
- docstrings: the ``--`` / ``---`` comment block above (LuaLS annotations ``---@param`` kept, as
  the reader sees them), or a ``--[[ ]]`` block.
"""

from __future__ import annotations

import re

from tree_sitter import Node

from codebot.core.model import Import, Parameter
from codebot.languages.base import LanguageSpec, query_file, text

_DASHES = re.compile(r"^\s*-{2,}(?:\[=*\[)?\s?")


def _owner(node: Node, name: str) -> tuple[tuple[str, ...], str]:
    parts = re.split(r"[.:]", name)
    if len(parts) == 1:
        return (), name
    return tuple(p.strip() for p in parts[:-1]), parts[-1].strip()


def _outer(node: Node) -> Node:
    """``local f = function() end``: the whole declaration, ``local`` included."""
    parent = node.parent
    if node.type == "assignment_statement" and parent is not None:
        if parent.type == "variable_declaration":
            return parent
    return node


def _function(node: Node) -> Node | None:
    """The node holding ``parameters`` and ``body``: the declaration, or the assigned function."""
    if node.type == "function_declaration":
        return node
    for child in node.named_children:
        if child.type == "expression_list" and child.named_child_count:
            value = child.named_children[0]
            if value.type == "function_definition":
                return value
    return None


def _parameters(node: Node) -> tuple[Parameter, ...]:
    fn = _function(node)
    params = fn.child_by_field_name("parameters") if fn is not None else None
    if params is None:
        return ()
    out = [Parameter(text(p)) for p in params.named_children if p.type != "comment"]
    name = node.child_by_field_name("name")
    if name is not None and name.type == "method_index_expression":
        out.insert(0, Parameter("self"))  # `function M:f(x)` takes `self` first
    return tuple(out)


def _clean(raw: str) -> str:
    lines = [
        _DASHES.sub("", line.rstrip()).removesuffix("]]").rstrip() for line in raw.splitlines()
    ]
    while lines and not lines[0].strip():
        lines.pop(0)
    while lines and not lines[-1].strip():
        lines.pop()
    return "\n".join(lines).strip()


def _docstring(node: Node) -> str | None:
    node = _outer(node)
    parts: list[str] = []
    expected = node.start_point[0]
    sib = node.prev_sibling
    while sib is not None and sib.type == "comment" and sib.end_point[0] >= expected - 1:
        prev = sib.prev_sibling
        if prev is not None and prev.type != "comment" and prev.end_point[0] == sib.start_point[0]:
            break  # a trailing comment of the statement before
        parts.append(text(sib))
        expected = sib.start_point[0]
        sib = sib.prev_sibling
    doc = _clean("\n".join(reversed(parts))) if parts else ""
    return doc or None


def _signature_end(node: Node) -> int:
    fn = _function(node)
    if fn is not None:
        params = fn.child_by_field_name("parameters")
        if params is not None:
            return params.end_byte
    nl = node.text.find(b"\n")
    return node.end_byte if nl < 0 else node.start_byte + nl


def _string(node: Node) -> str | None:
    content = node.child_by_field_name("content")
    return text(content) if content is not None else None


def _imports(node: Node) -> list[Import]:
    line = node.start_point[0] + 1
    if node.type == "function_call":
        arg = node.child_by_field_name("arguments").named_children[0]
        path = _string(arg)
        return [Import(path, line=line)] if path else []
    assign = node  # `local util = require("x")`: the assignment inside the declaration
    names = assign.named_children[0]
    value = assign.named_children[-1].named_children[0]
    path = _string(value.child_by_field_name("arguments").named_children[0])
    alias = text(names.named_children[0]) if names.named_children else None
    return [Import(path, alias=alias, line=line)] if path else []


SPEC = LanguageSpec(
    name="lua",
    grammar="lua",
    query_path=query_file(__file__, "lua"),
    owner=_owner,
    outer=_outer,
    parameters=_parameters,
    return_type=lambda node: None,
    docstring=_docstring,
    imports=_imports,
    signature_end=_signature_end,
)

"""Ruby: classes and modules with their mixins, ``def self.x``, ``private def``, requires.

- ``module`` is kind ``module``; ``class A::B`` is ``B`` under owner ``A``.
- bases: the superclass first, then the arguments of ``include`` / ``extend`` / ``prepend`` calls
  directly in the body, in order, as written (``Comparable``, ``ActiveSupport::Concern``).
- ``private def x`` / ``memoize def x``: the call is the symbol's range and its name a decorator.
- parameters carry their sigil as written in Ruby docs: ``*rest``, ``**opts``, ``&blk``, ``name:``.
- ``require_relative "x"`` is an import with ``level=1`` (relative to the file's directory).
"""

from __future__ import annotations

from tree_sitter import Node

from ..model import Import, Parameter
from .base import LanguageSpec, field_text, leading_comment, query_file, squash, text

_MIXINS = ("include", "extend", "prepend")
_SIGILS = {
    "splat_parameter": "*",
    "hash_splat_parameter": "**",
    "block_parameter": "&",
}


def _split(name: str) -> list[str]:
    return [p for p in name.split("::") if p]


def _owner(node: Node, name: str) -> tuple[tuple[str, ...], str]:
    if node.type == "singleton_method":
        # `def Util.version` outside Util: a method of Util (`def self.x` needs no owner).
        obj = node.child_by_field_name("object")
        if obj is None or obj.type not in ("constant", "scope_resolution"):
            return (), name
        body = node.parent
        around = body.parent if body is not None and body.type == "body_statement" else None
        if around is not None and text(around.child_by_field_name("name")) == text(obj):
            return (), name
        return tuple(_split(text(obj))), name
    if "::" not in name:
        return (), name
    parts = _split(name)
    return tuple(parts[:-1]), parts[-1]


def _wrapping_call(node: Node) -> Node | None:
    """The call of ``private def x``: the def is the only argument of a receiver-less call."""
    args = node.parent
    if args is None or args.type != "argument_list" or args.named_child_count != 1:
        return None
    call = args.parent
    if call is None or call.type != "call" or call.child_by_field_name("receiver") is not None:
        return None
    return call


def _outer(node: Node) -> Node:
    while (call := _wrapping_call(node)) is not None:
        node = call
    return node


def _decorators(node: Node) -> tuple[str, ...]:
    out = []
    while (call := _wrapping_call(node)) is not None:
        out.append(text(call.child_by_field_name("method")))
        node = call
    return tuple(reversed(out))


def _docstring(node: Node) -> str | None:
    node = _outer(node)
    doc = leading_comment(node)
    parent = node.parent
    # A comment above the first statement of a body is a child of the class/def, before the body.
    if doc is None and node.prev_sibling is None and parent is not None and parent.type == "body_statement":
        doc = leading_comment(parent)
    if doc is not None and doc.startswith("=begin"):
        doc = doc.removeprefix("=begin").removesuffix("=end").strip() or None
    return doc


def _signature_end(node: Node) -> int:
    """The end of ``def name(params)`` or ``class Name < Base``, before any comment or body."""
    for field in ("parameters", "superclass", "name"):
        child = node.child_by_field_name(field)
        if child is not None:
            return child.end_byte
    return node.end_byte


def _parameters(node: Node) -> tuple[Parameter, ...]:
    params = node.child_by_field_name("parameters")
    out: list[Parameter] = []
    for p in params.named_children if params is not None else ():
        t = p.type
        if t == "identifier":
            out.append(Parameter(text(p)))
        elif t == "optional_parameter":
            out.append(Parameter(text(p.child_by_field_name("name")), None, field_text(p, "value")))
        elif t == "keyword_parameter":
            name = text(p.child_by_field_name("name")) + ":"
            out.append(Parameter(name, None, field_text(p, "value")))
        elif t in _SIGILS:
            out.append(Parameter(_SIGILS[t] + text(p.child_by_field_name("name"))))
        elif t != "comment":  # `(a, b)`, `...`, `**nil`
            out.append(Parameter(squash(text(p), 80)))
    return tuple(out)


def _bases(node: Node) -> tuple[str, ...]:
    out: list[str] = []
    sup = node.child_by_field_name("superclass")
    if sup is not None and sup.named_child_count:
        out.append(squash(text(sup.named_children[0]), 200))
    body = node.child_by_field_name("body")
    for stmt in body.named_children if body is not None else ():
        if (
            stmt.type == "call"
            and stmt.child_by_field_name("receiver") is None
            and text(stmt.child_by_field_name("method")) in _MIXINS
        ):
            args = stmt.child_by_field_name("arguments")
            for arg in args.named_children if args is not None else ():
                if arg.type in ("constant", "scope_resolution"):
                    out.append(text(arg))
    return tuple(out)


def _imports(node: Node) -> list[Import]:
    method = text(node.child_by_field_name("method"))
    arg = node.child_by_field_name("arguments").named_children[0]
    if any(c.type == "interpolation" for c in arg.named_children):
        return []
    path = "".join(text(c) for c in arg.named_children if c.type == "string_content")
    level = 1 if method == "require_relative" else 0
    return [Import(path, level=level, line=node.start_point[0] + 1)]


SPEC = LanguageSpec(
    name="ruby",
    grammar="ruby",
    query_path=query_file(__file__, "ruby"),
    owner=_owner,
    outer=_outer,
    parameters=_parameters,
    return_type=lambda node: None,
    docstring=_docstring,
    decorators=_decorators,
    bases=_bases,
    imports=_imports,
    signature_end=_signature_end,
)

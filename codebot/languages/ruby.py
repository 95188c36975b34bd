"""Ruby: modules (kind ``module``), classes with their mixins, ``def self.x``, ``private def``.

- ``class A::B`` is ``B`` under owner ``A``; ``def Util.x`` outside ``Util`` is a method of it.
- bases: the superclass, then what ``include`` / ``extend`` / ``prepend`` directly in the body
  bring in, in order, as written (``Comparable``, ``ActiveSupport::Concern``).
- ``private def x`` / ``memoize def x``: the call is the symbol's range, its name a decorator.
- parameters keep their sigil, as Ruby docs write them: ``*rest``, ``**opts``, ``&blk``, ``name:``.
- ``require_relative "x"`` is ``Import("x", level=1)``: relative to the file's directory.
"""

from __future__ import annotations

import re

from tree_sitter import Node

from codebot.core.model import Import, Parameter
from codebot.languages.base import (
    LanguageSpec,
    field_text,
    leading_comment,
    query_file,
    squash,
    text,
)
from codebot.languages.receivers import Bindings, Receivers, valued

_MIXINS = ("include", "extend", "prepend")
_MAGIC = re.compile(
    r"(frozen_string_literal|(en)?coding|warn_indent|shareable_constant_value|typed):"
)
_SIGILS = {"splat_parameter": "*", "hash_splat_parameter": "**", "block_parameter": "&"}


def _split(name: str) -> tuple[str, ...]:
    return tuple(p for p in name.split("::") if p)


def _owner(node: Node, name: str) -> tuple[tuple[str, ...], str]:
    if node.type == "singleton_method":  # `def self.x` needs no owner; `def Util.x` may
        obj = node.child_by_field_name("object")
        if obj is None or obj.type not in ("constant", "scope_resolution"):
            return (), name
        around = node.parent.parent if node.parent.type == "body_statement" else None
        if around is not None and text(around.child_by_field_name("name")) == text(obj):
            return (), name  # `def Util.x` inside `module Util`
        return _split(text(obj)), name
    if "::" not in name:
        return (), name
    parts = _split(name)
    return parts[:-1], parts[-1]


def _wrapping_call(node: Node) -> Node | None:
    """The call of ``private def x``: the def is the only argument of a receiver-less call."""
    args = node.parent
    if args is None or args.type != "argument_list" or args.named_child_count != 1:
        return None
    call = args.parent
    if call.type != "call" or call.child_by_field_name("receiver") is not None:
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
    # A comment above the first statement of a body sits before that body_statement node.
    if doc is None and node.prev_sibling is None and node.parent.type == "body_statement":
        doc = leading_comment(node.parent)
    if doc is not None and doc.startswith("=begin"):
        doc = doc.removeprefix("=begin").removesuffix("=end").strip() or None
    if doc is not None and _MAGIC.match(doc):  # `# frozen_string_literal: true` right above
        doc = "\n".join(line for line in doc.splitlines() if not _MAGIC.match(line)).strip() or None
    return doc


def _signature_end(node: Node) -> int:
    """The end of ``def name(params)`` or ``class Name < Base``, before any comment or body."""
    for field in ("parameters", "superclass", "name"):
        if (child := node.child_by_field_name(field)) is not None:
            return child.end_byte
    return node.end_byte


def _parameters(node: Node) -> tuple[Parameter, ...]:
    params = node.child_by_field_name("parameters")
    out: list[Parameter] = []
    for p in params.named_children if params is not None else ():
        name = text(p.child_by_field_name("name"))
        if p.type == "identifier":
            out.append(Parameter(text(p)))
        elif p.type in ("optional_parameter", "keyword_parameter"):
            colon = ":" if p.type == "keyword_parameter" else ""
            out.append(Parameter(name + colon, None, field_text(p, "value")))
        elif p.type in _SIGILS:
            out.append(Parameter(_SIGILS[p.type] + name))
        elif p.type != "comment":  # `(a, b)`, `...`, `**nil`
            out.append(Parameter(squash(text(p), 80)))
    return tuple(out)


def _bases(node: Node) -> tuple[str, ...]:
    sup = node.child_by_field_name("superclass")
    out = [squash(text(sup.named_children[0]), 200)] if sup and sup.named_child_count else []
    body = node.child_by_field_name("body")
    for stmt in body.named_children if body is not None else ():
        if stmt.type == "call" and stmt.child_by_field_name("receiver") is None:
            args = stmt.child_by_field_name("arguments")
            if args is not None and text(stmt.child_by_field_name("method")) in _MIXINS:
                out.extend(
                    text(a)
                    for a in args.named_children
                    if a.type in ("constant", "scope_resolution")
                )
    return tuple(out)


def _imports(node: Node) -> list[Import]:
    arg = node.child_by_field_name("arguments").named_children[0]
    if any(c.type == "interpolation" for c in arg.named_children):
        return []
    path = "".join(text(c) for c in arg.named_children if c.type == "string_content")
    level = 1 if text(node.child_by_field_name("method")) == "require_relative" else 0
    return [Import(path, level=level, line=node.start_point[0] + 1)]


# Calls whose block runs with another ``self``: a class or module body, an object's instance.
_SELF_CHANGING = frozenset(
    """new instance_eval instance_exec class_eval class_exec module_eval module_exec
    define_method""".split()
)
_BLOCKS = ("block", "do_block")
# A literal receiver, as the resolver reads one (a method of the language's): `"#{a}".strip`
_LITERALS = {
    **dict.fromkeys(
        (
            "string",
            "simple_symbol",
            "delimited_symbol",
            "regex",
            "heredoc_beginning",
            "chained_string",
            "subshell",
            "character",
        ),
        '""',
    ),
    **dict.fromkeys(("array", "string_array", "symbol_array"), "[]"),
    "hash": "{}",
    **dict.fromkeys(("integer", "float", "rational", "complex"), "0"),
}
_SCOPES = ("method", "singleton_method", "class", "module", "singleton_class", "program")


def _block_calls(node: Node) -> list[str]:
    """The calls whose blocks around ``node`` may run with another ``self``, outermost first:
    receiver-less calls (``mock_app { ... }``, ``it "x" do``) and ``Class.new``,
    ``instance_eval``... (as ``new``, ``instance_eval``); the blocks of ``list.each`` keep it."""
    out: list[str] = []
    cur = node.parent
    while cur is not None and cur.type not in _SCOPES:
        if cur.type in _BLOCKS and cur.parent is not None and cur.parent.type == "call":
            call = cur.parent
            method = text(call.child_by_field_name("method"))
            if call.child_by_field_name("receiver") is None or method in _SELF_CHANGING:
                out.append(method)
        cur = cur.parent
    return out[::-1]


_NESTED = ("method", "singleton_method", "class", "module", "singleton_class")  # method first
_CONSTANT = re.compile(r"(?:::)?[A-Z]\w*(?:::[A-Z]\w*)*")
_IVAR_CALL = re.compile(r"(@[A-Za-z_]\w*)\.([A-Za-z_]\w*[?!]?)")


def _made(value: Node | None) -> str | None:
    """``= Foo::Bar.new()`` for a value made by ``Foo::Bar.new(...)``, else None."""
    if value is None or value.type != "call" or text(value.child_by_field_name("method")) != "new":
        return None
    recv = value.child_by_field_name("receiver")
    if recv is None or not _CONSTANT.fullmatch(text(recv)):
        return None
    return valued(f"{text(recv)}.new")


def _assigned(scope: Node, kind: str) -> Bindings:
    """Names of ``kind`` (``identifier``, ``instance_variable``) assigned in ``scope``, outside
    the definitions nested in it, with the value when every assignment makes one of one class
    (``x = Foo.new``, ``@x ||= Foo.new``); None: assigned something else, or differently."""
    out: Bindings = {}
    stack = list(scope.named_children)
    while stack:
        node = stack.pop()
        if node.type in (_NESTED if kind == "identifier" else _NESTED[1:]):
            continue  # an instance variable is the object's in each instance method
        if node.type in ("assignment", "operator_assignment"):
            left = node.child_by_field_name("left")
            if left is not None and left.type == kind:
                name, value = text(left), _made(node.child_by_field_name("right"))
                out[name] = value if out.get(name, value) == value else None
        stack.extend(node.named_children)
    return out


def _locals(scope: Node) -> Bindings:
    found = _assigned(scope, "identifier")
    if scope.type in _BLOCKS:
        params = scope.child_by_field_name("parameters")
        for p in params.named_children if params is not None else ():
            found[text(p.child_by_field_name("name") or p)] = None
    return found


class RubyReceivers(Receivers):
    """Ruby's call texts tell a reader's three cases apart: a receiver-less call on ``self``
    (``save(x)``: the name alone; on a literal, ``"".strip``, ``[].each``), one inside blocks given to calls that may choose its
    ``self``, named outermost first (``it "x" do mock_app { get "/" } end`` records
    ``(self? it mock_app).get``; the resolver decides), and a method called on an expression the text does not show
    (``a.b(1).c`` -> ``(?).c``)."""

    def annotate(self, node: Node, text: str, cache: dict) -> str:
        if "." in text and text[0] == "@":
            return self._instance_variable(node, text, cache)
        if "." in text:
            return self._typed(node, text, cache)  # `req.params` after `req = Request.new`
        parent = node.parent
        if node.type == "super" or parent is None or parent.type != "call":
            return text
        if parent.child_by_field_name("method") != node or "." in text or "::" in text:
            return text
        recv = parent.child_by_field_name("receiver")
        if recv is not None:
            return f"{_LITERALS.get(recv.type, '(?)')}.{text}"
        blocks = _block_calls(parent)
        if blocks:
            return f"(self? {' '.join(blocks)}).{text}"
        return text

    def _instance_variable(self, node: Node, call: str, cache: dict) -> str:
        """``@app.call`` where the class assigns ``@app`` only ``Foo.new(...)`` values (in
        ``initialize`` or anywhere): ``(@app = Foo.new()).call``."""
        m = _IVAR_CALL.fullmatch(call)
        cls = node.parent
        while cls is not None and cls.type not in ("class", "module", "program"):
            cls = cls.parent
        if m is None or cls is None or cls.type == "program":
            return call
        key = (cls.start_byte, cls.end_byte, "@")
        found = cache.get(key)
        if found is None:
            found = cache[key] = _assigned(cls, "instance_variable")
        what = found.get(m[1])
        return f"({m[1]} {what}).{m[2]}" if what else call


SPEC = LanguageSpec(
    name="ruby",
    grammar="ruby",
    query_path=query_file(__file__, "ruby"),
    owner=_owner,
    outer=_outer,
    parameters=_parameters,
    docstring=_docstring,
    decorators=_decorators,
    bases=_bases,
    imports=_imports,
    signature_end=_signature_end,
    receivers=RubyReceivers(
        {k: _locals for k in ("method", "singleton_method", "block", "do_block", "program")},
        frozenset({"self"}),
    ),
)

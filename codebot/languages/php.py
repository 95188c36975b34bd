"""PHP: namespaces as scopes, classes/interfaces/traits/enums, PHPDoc, attributes, ``use`` imports.

- ``namespace A\\B;`` (no body) scopes everything after it to the end of the file.
- parameters are named as written, with their sigils: ``$id``, ``&$request``, ``...$ids``; a
  promoted constructor property is a parameter like any other (its visibility is in the signature).
- bases: ``extends``, then ``implements``, then the traits a ``use`` in the body pulls in.
- decorators: the attributes, as written without ``#[ ]``: ``Route('/users')``.
- imports: ``use A\\B\\C as D`` is ``Import("A\\B", "C", "D")`` (namespaces keep PHP's backslashes,
  without the leading one); ``require 'x.php'`` is ``Import("x.php")``, or the expression as written.
"""

from __future__ import annotations

import re

from tree_sitter import Node

from codebot.core.model import Import, Parameter
from codebot.languages.base import LanguageSpec, field_text, query_file, squash, text
from codebot.languages.receivers import Bindings, Receivers, valued

_TYPE_NAMES = ("name", "qualified_name")


def _owner(node: Node, name: str) -> tuple[tuple[str, ...], str]:
    if "\\" not in name:
        return (), name
    parts = [p for p in name.split("\\") if p]
    return tuple(parts[:-1]), parts[-1]


def _outer(node: Node) -> Node:
    # `namespace A;` holds no body: its scope is the rest of the file (the program node; a second
    # such statement in the same file nests in the first, a known limitation).
    if node.type == "namespace_definition" and node.child_by_field_name("body") is None:
        return node.parent or node
    return node


def _parameters(node: Node) -> tuple[Parameter, ...]:
    params = node.child_by_field_name("parameters")
    out: list[Parameter] = []
    for p in params.named_children if params is not None else ():
        if not p.type.endswith("parameter"):
            continue
        name = text(p.child_by_field_name("name"))
        if p.child_by_field_name("reference_modifier") is not None:
            name = "&" + name
        if p.type == "variadic_parameter":
            name = "..." + name
        out.append(Parameter(name, field_text(p, "type"), field_text(p, "default_value")))
    return tuple(out)


def _decorators(node: Node) -> tuple[str, ...]:
    attrs = node.child_by_field_name("attributes")
    if attrs is None:
        return ()
    return tuple(
        squash(text(a), 200)
        for group in attrs.named_children
        for a in group.named_children
        if a.type == "attribute"
    )


def _bases(node: Node) -> tuple[str, ...]:
    out: list[str] = []
    for child in node.named_children:
        if child.type in ("base_clause", "class_interface_clause"):
            out.extend(text(c) for c in child.named_children if c.type in _TYPE_NAMES)
    body = node.child_by_field_name("body")
    for member in body.named_children if body is not None else ():
        if member.type == "use_declaration":  # `use Loggable, Cacheable;` (traits)
            out.extend(text(c) for c in member.named_children if c.type in _TYPE_NAMES)
    return tuple(out)


def _signature_end(node: Node) -> int:
    body = node.child_by_field_name("body")
    if body is not None:
        return body.start_byte
    last = node.child_by_field_name("return_type") or node.child_by_field_name("parameters")
    return last.end_byte if last is not None else node.end_byte


def _use_imports(node: Node, line: int) -> list[Import]:
    prefix = ""
    clauses: list[Node] = []
    for child in node.named_children:
        if child.type == "namespace_name":  # the common prefix of `use A\{B, C}`
            prefix = text(child)
        elif child.type == "namespace_use_clause":
            clauses.append(child)
        elif child.type == "namespace_use_group":
            clauses.extend(c for c in child.named_children if c.type == "namespace_use_clause")
    out: list[Import] = []
    for clause in clauses:
        alias_node = clause.child_by_field_name("alias")
        target = next(
            (c for c in clause.named_children if c.type in _TYPE_NAMES and c != alias_node), None
        )
        if target is None:
            continue
        full = f"{prefix}\\{text(target)}" if prefix else text(target)
        module, _, name = full.lstrip("\\").rpartition("\\")
        out.append(Import(module, name, text(alias_node) if alias_node else None, line=line))
    return out


def _imports(node: Node) -> list[Import]:
    line = node.start_point[0] + 1
    if node.type == "namespace_use_declaration":
        return _use_imports(node, line)
    arg = node.named_children[0] if node.named_child_count else None
    while arg is not None and arg.type == "parenthesized_expression":  # `require_once('x.php')`
        arg = arg.named_children[0] if arg.named_child_count else None
    if arg is None:
        return []
    parts = arg.named_children
    if arg.type in ("string", "encapsed_string") and all(c.type == "string_content" for c in parts):
        return [Import("".join(text(c) for c in parts), line=line)]
    return [Import(squash(text(arg), 200), line=line)]


_FUNCTIONS = ("method_declaration", "function_definition", "anonymous_function", "arrow_function")
_VAR_CALL = re.compile(r"(\$[A-Za-z_]\w*)->([A-Za-z_]\w*)")


def _locals(scope: Node) -> Bindings:
    """``$x = new Foo(...)`` in a function, outside the functions nested in it: ``$x`` is a
    Foo when every assignment to it in the function makes one of the same class; a parameter or
    any other assignment leaves it untyped (None)."""
    out: Bindings = {}
    params = scope.child_by_field_name("parameters")
    for p in params.named_children if params is not None else ():
        name = p.child_by_field_name("name")
        if name is not None:
            out[text(name)] = None
    stack = [c for c in scope.named_children if c.type != "formal_parameters"]
    while stack:
        node = stack.pop()
        if node.type in _FUNCTIONS:
            continue
        if node.type == "assignment_expression":
            left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
            if left is not None and left.type == "variable_name":
                value = None
                if right is not None and right.type == "object_creation_expression":
                    cls = right.named_children[0] if right.named_child_count else None
                    if cls is not None and cls.type in ("name", "qualified_name"):
                        value = valued(text(cls), construct=True)
                name = text(left)
                out[name] = value if out.get(name, value) == value else None
        stack.extend(node.named_children)
    return out


class PhpReceivers(Receivers):
    """``$handler->handle`` after ``$handler = new BufferHandler(...)`` in the same function:
    ``($handler = new BufferHandler()).handle``."""

    def annotate(self, node: Node, call: str, cache: dict) -> str:
        m = _VAR_CALL.fullmatch(call)
        if m is None or m[1] == "$this":
            return call
        what = self.bound(node, m[1], cache)
        return f"({m[1]} {what}).{m[2]}" if what else call


SPEC = LanguageSpec(
    name="php",
    grammar="php",
    query_path=query_file(__file__, "php"),
    owner=_owner,
    outer=_outer,
    parameters=_parameters,
    decorators=_decorators,
    bases=_bases,
    imports=_imports,
    signature_end=_signature_end,
    receivers=PhpReceivers(dict.fromkeys(_FUNCTIONS, _locals), frozenset({"$this"})),
)

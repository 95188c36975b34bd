"""Hooks shared by JavaScript, TypeScript and TSX, whose grammars share most node types.

A definition node is either the function/class itself, or the binding that names it: a
``variable_declarator`` (``const f = () => {}``), an ``assignment_expression``
(``Foo.prototype.bar = function () {}``), a class field or an object ``pair``. :func:`value` finds
the function or class behind a binding; :func:`outer` climbs to the statement that holds it
(``export``, ``declare``, ``const``), whose range and leading comment are the symbol's.
"""

from __future__ import annotations

from tree_sitter import Node

from codebot.core.model import Import, Parameter
from codebot.languages.base import leading_comment, squash, text
from codebot.languages.receivers import Bindings, Receivers, declared, valued

__all__ = [
    "HOOKS",
]

# Bindings whose function or class is in a field rather than being the node itself.
_VALUE_FIELD = {
    "variable_declarator": "value",
    "assignment_expression": "right",
    "pair": "value",
    "field_definition": "value",
    "public_field_definition": "value",
    "export_statement": "value",  # export default () => {}
}
# Statements that wrap a definition without changing what it is.
_WRAPPERS = ("export_statement", "ambient_declaration")
# Objects whose members are a module's exports or globals, not a type's members.
_NOT_OWNERS = {"exports", "module.exports", "window", "globalThis", "global", "self"}
# Declarations without a body: the whole node is the signature.
_SIGNATURES = ("function_signature", "method_signature", "abstract_method_signature")


def value(node: Node) -> Node:
    """The function or class a definition node stands for."""
    name = _VALUE_FIELD.get(node.type)
    if name is None:
        return node
    return node.child_by_field_name(name) or node


def outer(node: Node) -> Node:
    parent = node.parent
    if node.type == "variable_declarator":
        # `const f = () => {}` is the declaration; `const a = ..., b = ...` keeps each declarator.
        if parent is None or sum(c.type == "variable_declarator" for c in parent.children) > 1:
            return node
        node, parent = parent, parent.parent
    elif node.type in ("assignment_expression", "internal_module"):
        if parent is not None and parent.type == "expression_statement":
            node, parent = parent, parent.parent
    while parent is not None and parent.type in _WRAPPERS:
        node, parent = parent, parent.parent
    return node


def _decorator_nodes(node: Node) -> list[Node]:
    """Decorators in source order: on the node, on its ``export``, or (TS) just before a member."""
    found: list[Node] = []
    in_class_body = node.parent is not None and node.parent.type == "class_body"
    sib = node.prev_sibling if in_class_body else None
    while sib is not None and sib.type in ("decorator", "comment"):
        if sib.type == "decorator":
            found.append(sib)
        sib = sib.prev_sibling
    found.reverse()
    wrapper = outer(node)
    if wrapper is not node:
        found.extend(c for c in wrapper.children if c.type == "decorator")
    found.extend(c for c in node.children if c.type == "decorator")
    return found


def decorators(node: Node) -> tuple[str, ...]:
    return tuple(squash(text(d)[1:].strip(), 200) for d in _decorator_nodes(node))


def docstring(node: Node) -> str | None:
    """The comment block (``/** */`` JSDoc or ``//`` lines) above the symbol and its decorators."""
    start = outer(node)
    if start is node:
        # TS member decorators are siblings before the member: the comment is above them.
        sib = node.prev_sibling
        while sib is not None and sib.type == "decorator":
            start, sib = sib, sib.prev_sibling
    return leading_comment(start)


def owner(node: Node, name: str) -> tuple[tuple[str, ...], str]:
    """``Foo.prototype.bar = ...`` and ``Foo.bar = ...`` are members of Foo; exports are not."""
    if node.type != "assignment_expression":
        return (), name
    left = node.child_by_field_name("left")
    obj = left.child_by_field_name("object") if left is not None else None
    if obj is None:
        return (), name
    path = "".join(text(obj).split())
    if path.endswith(".prototype"):
        path = path[: -len(".prototype")]
    if path in _NOT_OWNERS or path.startswith(("module.exports.", "this.")):
        return (), name
    return tuple(path.split(".")), name


def _type_text(node: Node | None) -> str | None:
    """A type annotation without its leading colon: ``: Promise<void>`` -> ``Promise<void>``."""
    if node is None:
        return None
    return squash(text(node).lstrip().removeprefix(":").strip(), 200) or None


def _parameter(p: Node) -> Parameter:
    t = p.type
    if t in ("required_parameter", "optional_parameter"):
        pattern = p.child_by_field_name("pattern")
        name = squash(text(pattern), 80)
        if t == "optional_parameter":
            name += "?"
        default = p.child_by_field_name("value")
        return Parameter(name, _type_text(p.child_by_field_name("type")), _opt(default))
    if t == "assignment_pattern":
        left = p.child_by_field_name("left")
        return Parameter(squash(text(left), 80), None, _opt(p.child_by_field_name("right")))
    # identifier, rest_pattern (`...args`), object_pattern / array_pattern as written
    return Parameter(squash(text(p), 80))


def _opt(node: Node | None) -> str | None:
    return squash(text(node), 200) if node is not None else None


def parameters(node: Node) -> tuple[Parameter, ...]:
    fn = value(node)
    single = fn.child_by_field_name("parameter")  # `x => x * 2`
    if single is not None:
        return (Parameter(text(single)),)
    params = fn.child_by_field_name("parameters")
    if params is None:
        return ()
    return tuple(_parameter(p) for p in params.named_children if p.type != "comment")


def return_type(node: Node) -> str | None:
    return _type_text(value(node).child_by_field_name("return_type"))


def bases(node: Node) -> tuple[str, ...]:
    """``extends`` then ``implements``, as written (``Base<T>``, ``mixin(A, B)``)."""
    cls = value(node)
    out: list[str] = []
    for child in cls.children:
        if child.type == "class_heritage":
            for clause in child.named_children:
                if clause.type == "extends_clause":  # TS: `extends Base<T>`
                    out.append(squash(text(clause).removeprefix("extends").strip(), 200))
                elif clause.type == "implements_clause":
                    out.extend(squash(text(t), 200) for t in clause.named_children)
                elif clause.type != "comment":  # JS: the expression itself
                    out.append(squash(text(clause), 200))
        elif child.type == "extends_type_clause":  # interface A extends B, C
            out.extend(squash(text(t), 200) for t in child.children_by_field_name("type"))
    return tuple(t for t in out if t and t != ",")


def signature_end(node: Node) -> int:
    fn = value(node)
    body = fn.child_by_field_name("body")
    if body is not None and body.start_byte > fn.start_byte:
        return body.start_byte
    if fn.type in _SIGNATURES:
        return fn.end_byte
    nl = node.text.find(b"\n")
    return node.end_byte if nl < 0 else node.start_byte + nl


# --- imports --------------------------------------------------------------------------------------


def _string(node: Node | None) -> str:
    """A string literal's content, without its quotes."""
    if node is None:
        return ""
    raw = text(node)
    return raw[1:-1] if len(raw) >= 2 and raw[0] == raw[-1] and raw[0] in "'\"`" else raw


def _level(module: str) -> int:
    """Python-style relative level: ``./a`` is 1, ``../a`` 2, ``../../a`` 3; a package is 0."""
    if module in (".", "..") or module.startswith(("./", "../")):
        return 1 + module.split("/").count("..")
    return 0


def _first_string(call: Node) -> Node | None:
    args = call.child_by_field_name("arguments")
    if args is None or args.named_child_count == 0 or args.named_children[0].type != "string":
        return None
    return args.named_children[0]


def imports(node: Node) -> list[Import]:
    line = node.start_point[0] + 1
    out: list[tuple[str | None, str | None]] = []  # (name, alias)
    if node.type == "variable_declarator":  # const x = require('m'), const {a, b: c} = require('m')
        init = node.child_by_field_name("value")
        member = None
        if init.type == "member_expression":  # require('m').member
            member = text(init.child_by_field_name("property"))
            init = init.child_by_field_name("object")
        elif init.type == "await_expression":  # const m = await import('m')
            init = init.named_children[0]
        elif init.child_by_field_name("function").type == "call_expression":  # require('m')(x)
            init = init.child_by_field_name("function")
        module = _string(_first_string(init))
        target = node.child_by_field_name("name")
        if target.type == "object_pattern" and member is None:
            for p in target.named_children:
                if p.type == "shorthand_property_identifier_pattern":
                    out.append((text(p), None))
                elif p.type == "pair_pattern":
                    key, val = p.child_by_field_name("key"), p.child_by_field_name("value")
                    out.append((_string(key), text(val)))
        else:
            out.append((member, squash(text(target), 80)))
    elif node.type == "call_expression":  # require('m'); import('m')
        module = _string(_first_string(node))
        out.append((None, None))
    else:  # import_statement, or export_statement with a source (a re-export)
        module = _string(node.child_by_field_name("source"))
        for child in node.named_children:
            t = child.type
            if t == "import_clause":
                for c in child.named_children:
                    if c.type == "identifier":  # import React from 'react'
                        out.append(("default", text(c)))
                    elif c.type == "namespace_import":  # import * as ns from 'm'
                        out.append((None, text(c.named_children[-1])))
                    elif c.type == "named_imports":
                        out.extend(_specifiers(c, "import_specifier"))
            elif t == "import_require_clause":  # TS: import fs = require('fs')
                module = _string(child.child_by_field_name("source"))
                out.append((None, text(child.named_children[0])))
            elif t == "export_clause":
                out.extend(_specifiers(child, "export_specifier"))
            elif t == "namespace_export":  # export * as ns from 'm'
                out.append((None, text(child.named_children[-1])))
        if not out and not module:
            return []  # `export {}`
        if not out:
            is_star = node.type == "export_statement" and any(c.type == "*" for c in node.children)
            out.append(("*" if is_star else None, None))
    level = _level(module)
    return [Import(module, name, alias, level, line) for name, alias in out]


def _specifiers(node: Node, kind: str) -> list[tuple[str, str | None]]:
    out = []
    for spec in node.named_children:
        if spec.type == kind:
            alias = spec.child_by_field_name("alias")
            out.append((_string(spec.child_by_field_name("name")), _opt_text(alias)))
    return out


def _opt_text(node: Node | None) -> str | None:
    return _string(node) if node is not None else None


# --- receivers: local types ------------------------------------------------------------------


def _value_type(node: Node | None) -> str | None:
    """`new T()`, `make()` (what it returns), `x as T`."""
    if node is None:
        return None
    if node.type == "new_expression":
        return valued(text(node.child_by_field_name("constructor")), construct=True)
    if node.type == "call_expression":
        fn = text(node.child_by_field_name("function"))
        return valued(fn) if fn not in ("require", "import") else None  # a module: an import
    if node.type == "as_expression" and node.named_child_count == 2:
        return declared(text(node.named_children[1]))
    return None


def _declarations(node: Node) -> Bindings:
    out: Bindings = {}
    for c in node.named_children:
        if c.type == "export_statement":
            c = c.child_by_field_name("declaration") or c
        if c.type not in ("lexical_declaration", "variable_declaration"):
            continue
        for d in c.named_children:
            name = d.child_by_field_name("name") if d.type == "variable_declarator" else None
            if name is None or name.type != "identifier" or text(name) in out:
                continue
            type_ = d.child_by_field_name("type")
            what = declared(_type_text(type_)) if type_ is not None else None
            out[text(name)] = what or _value_type(d.child_by_field_name("value"))
    return out


def _params(node: Node) -> Bindings:
    single = node.child_by_field_name("parameter")
    if single is not None:
        return {text(single): None}
    params = node.child_by_field_name("parameters")
    out: Bindings = {}
    for p in params.named_children if params is not None else ():
        param = _parameter(p)
        out.setdefault(param.name.lstrip(".").rstrip("?"), declared(param.type))
    return out


def _fields(node: Node) -> Bindings:
    """A class's fields: declared (`private mgr: M`, `conn = new C()`) and the constructor's
    parameter properties (`constructor(private readonly repo: Repo)`)."""
    out: Bindings = {}
    for c in node.named_children:
        if c.type == "public_field_definition":
            name = c.child_by_field_name("name")
            type_ = c.child_by_field_name("type")
            what = declared(_type_text(type_)) if type_ is not None else None
            out.setdefault(text(name), what or _value_type(c.child_by_field_name("value")))
        elif c.type == "method_definition" and text(c.child_by_field_name("name")) == "constructor":
            params = c.child_by_field_name("parameters")
            for p in params.named_children if params is not None else ():
                if any(
                    k.type == "accessibility_modifier" or k.type == "readonly" for k in p.children
                ):
                    param = _parameter(p)
                    out.setdefault(param.name.rstrip("?"), declared(param.type))
    return out


def _loop(node: Node) -> Bindings:
    left = node.child_by_field_name("left")
    return {text(left): None} if left is not None and left.type == "identifier" else {}


_FUNCTIONS = (
    "function_declaration",
    "function_expression",
    "function",
    "arrow_function",
    "method_definition",
    "generator_function_declaration",
    "generator_function",
)
RECEIVERS = Receivers(
    scopes={
        "statement_block": _declarations,
        "program": _declarations,
        "class_body": _fields,
        "for_in_statement": _loop,
        **{f: _params for f in _FUNCTIONS},
    },
    member_scopes=frozenset({"class_body"}),
)

HOOKS = dict(
    owner=owner,
    outer=outer,
    parameters=parameters,
    return_type=return_type,
    docstring=docstring,
    decorators=decorators,
    bases=bases,
    imports=imports,
    signature_end=signature_end,
    receivers=RECEIVERS,
)

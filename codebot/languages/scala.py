"""Scala 2 and 3: ScalaDoc, annotations, ``extends A with B`` bases, every parameter clause, imports.

Objects are modules (scalac's own word). Calls on a local name record what a reader sees of its
type (``(d: Decoder[A]).decodeJson``, ``(b = List.newBuilder()).result``); a call on an
expression's value (``self(key).map``, ``_.find``) is ``(?).map``; a path broken over lines
(``xs\n  .find``) is read as one (``xs.find``). An auxiliary constructor is named ``this``. Methods of an
``extension (s: String)`` belong to ``String``. Imports: ``import a.{B => C, _}`` gives
``Import("a", "B", "C")`` and ``Import("a", "*")``; ``import a.B as C`` the same as ``{B => C}``;
a hidden name ``{B => _}`` binds nothing and is left out.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from tree_sitter import Node

from codebot.core.model import Import, Parameter
from codebot.languages.base import LanguageSpec, parameter_from_node, query_file, squash, text
from codebot.languages.decl_text import (
    annotation_texts,
    dotted,
    import_of,
    signature_end,
    simple_type_name,
)
from codebot.languages.receivers import Bindings, Receivers, declared, valued


def _owner(node: Node, name: str) -> tuple[tuple[str, ...], str]:
    return (), simple_type_name(name) if node.type == "extension_definition" else name


def _parameters(node: Node) -> tuple[Parameter, ...]:
    # `def f[T](a: A, b: B = 1)(implicit c: C)`: all clauses, in order; type parameters are not.
    return tuple(
        parameter_from_node(p)
        for clause in node.children_by_field_name("parameters")
        if clause.type == "parameters"
        for p in clause.named_children
        if p.type == "parameter"
    )


def _decorators(node: Node) -> tuple[str, ...]:
    return annotation_texts(node.children, ("annotation",))


def _bases(node: Node) -> tuple[str, ...]:
    if node.type == "given_definition":  # `given intOrd: Ordering[Int] with ...`
        types = node.children_by_field_name("return_type")
    else:
        extends = node.child_by_field_name("extend")
        types = extends.children_by_field_name("type") if extends is not None else []
    return tuple(squash(text(t), 200) for t in types if t.is_named)


def _signature_end(node: Node) -> int:
    body = node.child_by_field_name("body")
    if body is not None and body.prev_sibling is not None and body.prev_sibling.type == "=":
        body = body.prev_sibling  # `def f(x: Int): Int = ...` stops before the `=`
    return signature_end(node, body)


def _imports(node: Node) -> list[Import]:
    # One declaration may hold several comma-separated imports: `import a.b.*, c.d as e`.
    line = node.start_point[0] + 1
    out: list[Import] = []
    path: list[str] = []
    for c in node.children:
        if c.type == "identifier":
            path.append(text(c))
            continue
        if c.type == "namespace_selectors":  # `a.{B, C => D, _}`
            out.extend(i for sel in c.named_children for i in _selector(".".join(path), sel, line))
        elif c.type in _SELECTORS:  # `a.*`, `a.B as C`
            out.extend(_selector(".".join(path), c, line))
        elif c.type != "," or not path:
            continue  # `import`, `.`
        else:  # `import a.b.C`: the last name is the one bound
            out.append(import_of(".".join(path), line))
        path = []
    if path:
        out.append(import_of(".".join(path), line))
    return out


_SELECTORS = ("namespace_wildcard", "as_renamed_identifier", "arrow_renamed_identifier")


def _selector(module: str, sel: Node, line: int) -> list[Import]:
    if sel.type == "identifier":
        return [Import(module, text(sel), line=line)]
    if sel.type == "namespace_wildcard":  # `_`, `*`; `given` imports the given instances
        word = text(sel)
        return [Import(module, "given" if word == "given" else "*", line=line)]
    if sel.type in ("as_renamed_identifier", "arrow_renamed_identifier"):
        alias = text(sel.child_by_field_name("alias"))
        if alias == "_":
            return []
        return [Import(module, dotted(sel.child_by_field_name("name")), alias, line=line)]
    return []


# --- receivers ------------------------------------------------------------------------------------

_PATH = re.compile(r"[A-Za-z0-9_$.\[\]`, ]+")  # the call query's path of names (`a.b[T].c`)
_CALLEE_TYPES = frozenset({"identifier", "field_expression", "generic_function"})


def _value(node: Node | None) -> str | None:
    """What a `val`'s initializer is, as a binding: ``= T()`` for ``new T(..)``/``new T[A] { }``,
    ``= a.b()`` for a call of a path of names (``List.newBuilder[A]`` too: Scala calls a method
    without parentheses), ``@x`` for another name; None otherwise."""
    if node is None:
        return None
    if node.type == "instance_expression":
        t = next((c for c in node.named_children if c.type != "arguments"), None)
        if t is not None and t.type == "generic_type":
            t = t.child_by_field_name("type") or t.named_children[0]
        if t is not None and t.type in ("type_identifier", "stable_type_identifier"):
            return valued(text(t), construct=True)
        return None
    if node.type == "call_expression":
        node = node.child_by_field_name("function")
        while node is not None and node.type == "call_expression":  # `f(a)(b)`: curried
            node = node.child_by_field_name("function")
    if node is None:
        return None
    if node.type == "generic_function":
        node = node.child_by_field_name("function")
    if node is None:
        return None
    if node.type == "identifier":
        name = text(node)
        return valued(name) if name[:1].isupper() else f"@{name}"
    if node.type == "field_expression":
        return valued(squash(text(node), 200).replace(" ", ""))
    return None


def _define(node: Node, out: Bindings) -> None:
    """A `val`/`var` (or a parameter): its declared type, else what its initializer is."""
    name = node.child_by_field_name("pattern") or node.child_by_field_name("name")
    if name is None or name.type != "identifier":
        return
    t = node.child_by_field_name("type")
    out.setdefault(
        text(name),
        declared(text(t)) if t is not None else _value(node.child_by_field_name("value")),
    )


def _block(node: Node) -> Bindings:
    out: Bindings = {}
    for c in node.named_children:
        if c.type in ("val_definition", "var_definition"):
            _define(c, out)
    return out


def _parameter_scope(field: str, kind: str) -> Callable[[Node], Bindings]:
    """The scope of a definition's parameters: ``kind`` nodes in its ``field`` clauses."""

    def scope(node: Node) -> Bindings:
        out: Bindings = {}
        for clause in node.children_by_field_name(field):
            for p in clause.named_children:
                if p.type == kind:
                    _define(p, out)
        return out

    return scope


def _lambda(node: Node) -> Bindings:
    """A lambda's parameters: typed (``(a: Int) =>``) or not (``x =>``: shadows)."""
    out: Bindings = {}
    params = node.child_by_field_name("parameters")
    if params is None:
        return out
    if params.type == "identifier":
        out[text(params)] = None
        return out
    for b in params.named_children:
        if b.type == "binding":
            _define(b, out)
        elif b.type == "identifier":
            out[text(b)] = None
    return out


def _pattern_names(node: Node, out: Bindings) -> None:
    """Names a pattern binds (``case (k, v)``, ``a <- xs``): of unknown type, they shadow."""
    if node.type == "identifier":
        out.setdefault(text(node), None)
        return
    for c in node.named_children:
        if c.type not in ("type_identifier", "generic_type", "stable_type_identifier"):
            _pattern_names(c, out)


def _case(node: Node) -> Bindings:
    out: Bindings = {}
    pattern = node.child_by_field_name("pattern")
    if pattern is not None:
        if pattern.type == "typed_pattern":  # `case d: Decoder[A] =>`
            name = pattern.named_children[0] if pattern.named_children else None
            t = pattern.child_by_field_name("type")
            if name is not None and name.type == "identifier" and t is not None:
                out[text(name)] = declared(text(t))
                return out
        _pattern_names(pattern, out)
    return out


def _for(node: Node) -> Bindings:
    out: Bindings = {}
    for e in node.children_by_field_name("enumerators"):
        for en in e.named_children if e.type == "enumerators" else ():
            if en.type == "enumerator" and en.named_children:
                _pattern_names(en.named_children[0], out)
    return out


def _chain(node: Node, bound) -> str | None:
    """The member name captured of a call on something other than a one-line path of names:
    a path broken over lines (``replacements\n  .find``) is the path; an expression's value
    (``self(key).map``, ``_.find``, ``f(x).y``) is ``(?).map``: not the caller's own method."""
    if node.type == "field_expression":
        value = node.child_by_field_name("value")
        field = node.child_by_field_name("field")
        if value is not None and value.type == "wildcard" and field is not None:
            return f"(?).{text(field)}"  # `_.find(p)`: a lambda's argument, of unknown type
        return None
    parent = node.parent
    if node.type != "identifier" or parent is None or parent.type != "field_expression":
        return None
    value = parent.child_by_field_name("value")
    whole = squash(text(parent), 400).replace(" ", "")
    if value is not None and value.type in _CALLEE_TYPES and _PATH.fullmatch(whole):
        return whole
    return f"(?).{text(node)}"


_RECEIVERS = Receivers(
    scopes={
        "block": _block,
        "template_body": _block,
        "function_definition": _parameter_scope("parameters", "parameter"),
        "class_definition": _parameter_scope("class_parameters", "class_parameter"),
        "lambda_expression": _lambda,
        "case_clause": _case,
        "for_expression": _for,
    },
    chain=_chain,
)

SPEC = LanguageSpec(
    name="scala",
    grammar="scala",
    query_path=query_file(__file__, "scala"),
    owner=_owner,
    parameters=_parameters,
    decorators=_decorators,
    bases=_bases,
    imports=_imports,
    signature_end=_signature_end,
    receivers=_RECEIVERS,
)

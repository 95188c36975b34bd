"""Hooks shared by C and C++: names buried in declarators, `template`/`typedef` wrappers, includes.

In both grammars a function's name sits at the bottom of a declarator chain
(`const char **parse(...)` is pointer > pointer > function_declarator > identifier), and in C++ it
may be qualified (`ns::Widget<T>::make`). The query captures the whole declarator as ``@name``;
:func:`owner` finds the real name and turns its qualifiers into owner parts.
"""

from __future__ import annotations

import re

from tree_sitter import Node

from codebot.core.model import Import, Parameter
from codebot.languages.base import leading_comment, squash, text

# Declarators that wrap another declarator: `*x`, `&x`, `x[3]`, `(x)`, `...x`, `x [[attr]]`.
_WRAPPERS = (
    "pointer_declarator",
    "reference_declarator",
    "array_declarator",
    "parenthesized_declarator",
    "attributed_declarator",
    "variadic_declarator",
    "function_declarator",
    "init_declarator",
)
_PARAMETERS = (
    "parameter_declaration",
    "optional_parameter_declaration",
    "variadic_parameter_declaration",
)
_OPERATOR_SPACE = re.compile(r"operator\s+(?=\W)")


def _inner(node: Node) -> Node | None:
    inner = node.child_by_field_name("declarator")
    if inner is None and node.named_child_count:
        inner = node.named_children[-1]  # reference and parenthesized declarators have no field
    return inner


def declarator_name(node: Node | None) -> Node | None:
    """The identifier a (parameter or variable) declarator declares, if it names one."""
    for _ in range(16):
        if node is None or node.type not in _WRAPPERS:
            return node
        node = _inner(node)
    return None


def function_declarator(node: Node) -> Node | None:
    """The `function_declarator` of a function definition: `f` in `void (*f(int))(char)`."""
    found = None
    decl = node.child_by_field_name("declarator")
    for _ in range(16):
        if decl is None or decl.type not in _WRAPPERS:
            break
        if decl.type == "function_declarator":
            found = decl
        decl = _inner(decl)
    return found


def _cast_parameters(node: Node | None) -> Node | None:
    """The `()` of a conversion operator: `operator PyObject*() const`."""
    if node is None or node.type != "operator_cast":
        return None
    for _ in range(16):
        node = node.child_by_field_name("declarator")
        if node is None or node.type == "abstract_function_declarator":
            break
    return node.child_by_field_name("parameters") if node is not None else None


def _bare(node: Node) -> str:
    """A name without template arguments: `Widget<T>` -> `Widget`, `operator ==` -> `operator==`."""
    if node.type in ("template_type", "template_function", "template_method"):
        node = node.child_by_field_name("name") or node
    elif node.type == "destructor_name":
        return "~" + text(node.named_children[-1]) if node.named_child_count else text(node)
    return _OPERATOR_SPACE.sub("operator", squash(text(node), 200))


def qualified_parts(node: Node | None) -> list[str]:
    """`ns::Widget<T>::make` -> [ns, Widget, make]; a nested namespace `a::b` -> [a, b]."""
    parts: list[str] = []
    while node is not None and node.type == "qualified_identifier":
        scope = node.child_by_field_name("scope")
        if scope is not None:
            parts.extend(qualified_parts(scope))
        node = node.child_by_field_name("name")
    if node is not None and node.type == "nested_namespace_specifier":
        parts.extend(text(c) for c in node.named_children)
    elif node is not None:
        parts.append(_bare(node))
    return parts


def owner(node: Node, name: str) -> tuple[tuple[str, ...], str]:
    """Functions: the name in the declarator, qualifiers as owners (`void Foo::bar()` is Foo's).
    Types and namespaces: a qualified or templated name (`namespace a::b`, `struct hash<Key>`)."""
    if node.type == "function_definition":
        decl = function_declarator(node)
        if decl is not None:
            target = decl.child_by_field_name("declarator")
        else:  # `operator bool() {}`, the only other shape the queries capture
            target = node.child_by_field_name("declarator")
            params = _cast_parameters(target)
            if target is not None and params is not None:  # the text up to its `(`
                head = target.text[: params.start_byte - target.start_byte]
                return (), squash(head.decode("utf-8", "replace"), 200)
        parts = qualified_parts(target) if target is not None else []
    elif node.type == "type_definition":  # `typedef struct {...} name;`: the typedef's name
        return (), text(node.child_by_field_name("declarator")) or name
    elif node.type == "preproc_function_def":
        return (), name
    else:
        parts = qualified_parts(node.child_by_field_name("name"))
    if not parts:
        return (), name
    return tuple(parts[:-1]), parts[-1]


def outer(node: Node) -> Node:
    """The `template <...>` around a definition; the `typedef` or declaration around a struct."""
    parent = node.parent
    if parent is not None and parent.type in ("type_definition", "declaration"):
        if parent.child_by_field_name("type") == node:
            return parent
    while parent is not None and parent.type == "template_declaration":
        node, parent = parent, parent.parent
    return node


def docstring(node: Node) -> str | None:
    return leading_comment(outer(node))


def parameter(node: Node) -> Parameter:
    """`const char *name` -> (name, `const char *`); `int n = 3` -> (n, int, 3)."""
    decl = node.child_by_field_name("declarator")
    default = node.child_by_field_name("default_value")
    name = declarator_name(decl)
    raw, start, end = node.text, node.start_byte, node.end_byte
    if default is not None:  # the type ends before `= value`
        end = decl.end_byte if decl is not None else default.start_byte
    if name is not None and name.type in ("identifier", "field_identifier"):
        type_ = raw[: name.start_byte - start] + raw[name.end_byte - start : end - start]
        label = text(name)
    else:
        type_, label = raw[: end - start], ""
    type_s = squash(type_.decode("utf-8", "replace").rstrip(" ="), 200) or None
    return Parameter(label, type_s, squash(text(default), 200) if default is not None else None)


def parameters(node: Node) -> tuple[Parameter, ...]:
    if node.type == "preproc_function_def":
        params = node.child_by_field_name("parameters")
        return tuple(Parameter(text(p)) for p in params.named_children) if params else ()
    decl = function_declarator(node)
    if decl is not None:
        params = decl.child_by_field_name("parameters")
    else:
        params = _cast_parameters(node.child_by_field_name("declarator"))
    out: list[Parameter] = []
    for p in params.children if params is not None else ():
        if p.type in _PARAMETERS:
            out.append(parameter(p))
        elif p.type in ("...", "variadic_parameter"):
            out.append(Parameter("..."))
    if len(out) == 1 and out[0] == Parameter("", "void"):
        return ()  # `f(void)` takes nothing
    return tuple(out)


def return_type(node: Node) -> str | None:
    """Qualifiers and type before the declarator, plus its `*`/`&` (a trailing `-> T` wins)."""
    if node.type == "preproc_function_def":
        return None
    decl = function_declarator(node)
    if decl is not None:
        for child in decl.named_children:
            if child.type == "trailing_return_type":
                return squash(text(child)[2:], 200)
    type_node = node.child_by_field_name("type")
    if type_node is None:
        return None  # a constructor, destructor or conversion
    parts = [text(c) for c in node.named_children if c.type == "type_qualifier" or c == type_node]
    marks = ""
    d = node.child_by_field_name("declarator")
    while d is not None and d.type in ("pointer_declarator", "reference_declarator"):
        marks += text(d.children[0]) if d.children else ""
        d = _inner(d)
    return squash(" ".join(parts) + (" " + marks if marks else ""), 200)


def include(node: Node) -> list[Import]:
    """`#include <stdio.h>` and `#include "util/buf.h"` both give the path as written inside."""
    path = node.child_by_field_name("path")
    if path is None:
        return []
    raw = text(path)
    if path.type in ("string_literal", "system_lib_string"):
        raw = raw[1:-1]
    return [Import(raw, line=node.start_point[0] + 1)]


# The hooks C and C++ share; C++ adds decorators, bases and its own imports.
HOOKS = {
    "owner": owner,
    "outer": outer,
    "parameters": parameters,
    "return_type": return_type,
    "docstring": docstring,
}

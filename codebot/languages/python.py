"""Python: docstrings from the body, decorators from ``decorated_definition``, full imports."""

from __future__ import annotations

import inspect

from tree_sitter import Node

from codebot.core.model import Import, Parameter
from codebot.languages.base import LanguageSpec, field_text, query_file, squash, text


def _outer(node: Node) -> Node:
    parent = node.parent
    return parent if parent is not None and parent.type == "decorated_definition" else node


def _decorators(node: Node) -> tuple[str, ...]:
    parent = node.parent
    if parent is None or parent.type != "decorated_definition":
        return ()
    return tuple(squash(text(c)[1:].strip(), 200) for c in parent.children if c.type == "decorator")


def _docstring(node: Node) -> str | None:
    body = node.child_by_field_name("body")
    first = body.named_child(0) if body is not None and body.named_child_count else None
    if first is None:
        return None
    if first.type == "expression_statement" and first.named_child_count == 1:
        first = first.named_child(0)
    if first.type != "string":
        return None
    raw = text(first)
    # Strip the prefix (r, b, f, u...) and the quotes, then dedent as Python's help() does.
    i = 0
    while i < len(raw) and raw[i] not in "\"'":
        i += 1
    raw = raw[i:]
    quote = raw[:3] if raw[:3] in ('"""', "'''") else raw[:1]
    if raw.endswith(quote) and len(raw) >= 2 * len(quote):
        raw = raw[len(quote) : -len(quote)]
    return inspect.cleandoc(raw) or None


def _parameters(node: Node) -> tuple[Parameter, ...]:
    params = node.child_by_field_name("parameters")
    out: list[Parameter] = []
    for p in params.named_children if params is not None else ():
        t = p.type
        if t == "identifier":
            out.append(Parameter(text(p)))
        elif t in ("typed_parameter", "default_parameter", "typed_default_parameter"):
            name = p.child_by_field_name("name") or p.named_children[0]
            out.append(Parameter(text(name), field_text(p, "type"), field_text(p, "value")))
        elif t in (
            "list_splat_pattern",
            "dictionary_splat_pattern",
            "keyword_separator",
            "positional_separator",
        ):
            out.append(Parameter(text(p)))
    return tuple(out)


def _bases(node: Node) -> tuple[str, ...]:
    supers = node.child_by_field_name("superclasses")
    if supers is None:
        return ()
    return tuple(
        squash(text(c), 200)
        for c in supers.named_children
        if c.type not in ("keyword_argument", "comment", "dictionary_splat", "list_splat")
    )


def _dotted(node: Node | None) -> str:
    return "".join(text(node).split()) if node is not None else ""


def _imports(node: Node) -> list[Import]:
    line = node.start_point[0] + 1
    out: list[Import] = []
    if node.type == "import_statement":
        for name in node.children_by_field_name("name"):
            if name.type == "aliased_import":
                module = _dotted(name.child_by_field_name("name"))
                out.append(Import(module, alias=text(name.child_by_field_name("alias")), line=line))
            else:
                out.append(Import(_dotted(name), line=line))
        return out
    if node.type == "future_import_statement":
        module, level = "__future__", 0
    else:
        mod = node.child_by_field_name("module_name")
        level = 0
        module = ""
        if mod is not None and mod.type == "relative_import":
            for c in mod.children:
                if c.type == "import_prefix":
                    level = text(c).count(".")
                elif c.type == "dotted_name":
                    module = _dotted(c)
        else:
            module = _dotted(mod)
    names = node.children_by_field_name("name")
    if not names and any(c.type == "wildcard_import" for c in node.children):
        return [Import(module, "*", level=level, line=line)]
    for name in names:
        if name.type == "aliased_import":
            out.append(
                Import(
                    module,
                    _dotted(name.child_by_field_name("name")),
                    text(name.child_by_field_name("alias")),
                    level,
                    line,
                )
            )
        else:
            out.append(Import(module, _dotted(name), None, level, line))
    return out


SPEC = LanguageSpec(
    name="python",
    grammar="python",
    query_path=query_file(__file__, "python"),
    outer=_outer,
    parameters=_parameters,
    docstring=_docstring,
    decorators=_decorators,
    bases=_bases,
    imports=_imports,
)

"""Scala 2 and 3: ScalaDoc, annotations, ``extends A with B`` bases, every parameter clause, imports.

Objects are modules (scalac's own word). An auxiliary constructor is named ``this``. Methods of an
``extension (s: String)`` belong to ``String``. Imports: ``import a.{B => C, _}`` gives
``Import("a", "B", "C")`` and ``Import("a", "*")``; ``import a.B as C`` the same as ``{B => C}``;
a hidden name ``{B => _}`` binds nothing and is left out.
"""

from __future__ import annotations

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
)

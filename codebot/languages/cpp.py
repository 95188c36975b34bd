"""C++: namespaces, classes, out-of-line `Foo::bar` methods, templates (the shared parts: _cfamily)."""

from __future__ import annotations

from tree_sitter import Node

from codebot.core.model import Import
from codebot.languages import _cfamily
from codebot.languages.base import LanguageSpec, query_file, squash, text


def _bases(node: Node) -> tuple[str, ...]:
    """Base classes without their access specifiers: `: public Base, private ns::Mixin<T>`."""
    clause = next((c for c in node.named_children if c.type == "base_class_clause"), None)
    if clause is None:
        return ()
    return tuple(
        squash(text(c), 200)
        for c in clause.named_children
        if c.type not in ("access_specifier", "virtual", "comment")
    )


def _decorators(node: Node) -> tuple[str, ...]:
    """C++11 attributes before a function: `[[nodiscard]]`."""
    return tuple(
        squash(text(c)[2:-2].strip(), 200)
        for c in node.named_children
        if c.type == "attribute_declaration"
    )


def _imports(node: Node) -> list[Import]:
    line = node.start_point[0] + 1
    if node.type == "preproc_include":
        return _cfamily.include(node)
    if node.type == "namespace_alias_definition":
        target = next((c for c in node.named_children if c.type != "namespace_identifier"), None)
        alias = node.child_by_field_name("name")
        return [Import("::".join(_cfamily.qualified_parts(target)), alias=text(alias), line=line)]
    parent = node.parent
    if parent is not None and parent.type == "field_declaration_list":
        return []  # `using Base::Base;` in a class brings members, not a module
    target = node.named_children[-1] if node.named_child_count else None
    parts = _cfamily.qualified_parts(target) if target is not None else []
    if not parts:
        return []
    if any(c.type == "namespace" for c in node.children):
        return [Import("::".join(parts), "*", line=line)]  # `using namespace std;`
    return [Import("::".join(parts[:-1]), parts[-1], line=line)]


SPEC = LanguageSpec(
    name="cpp",
    grammar="cpp",
    query_path=query_file(__file__, "cpp"),
    decorators=_decorators,
    bases=_bases,
    imports=_imports,
    **_cfamily.HOOKS,
)

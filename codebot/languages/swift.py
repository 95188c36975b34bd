"""Swift: classes, structs, enums, actors (classes), protocols (interfaces), extensions as scopes.

- A function in ``extension Foo`` is a method of ``Foo``; the extension's conformances are not
  recorded (an extension is a scope, not a symbol).
- ``init``, ``deinit`` and ``subscript`` are methods under those names; operators keep theirs.
- parameters are named as declared: ``with id`` for an argument label and an internal name,
  ``_ value`` for an unlabeled one, ``id`` when they are one; the type is written with its
  modifiers (``inout T``, ``@escaping () -> Void``, ``Int...``).
- decorators: the attributes, without ``@`` (``MainActor``, ``objc(loadWithID:)``).
- ``import struct Swift.Array`` is ``Import("Swift", "Array")``; ``import Foundation`` is
  ``Import("Foundation")``.
"""

from __future__ import annotations

import re

from tree_sitter import Node

from ..model import Import, Parameter
from .base import LanguageSpec, query_file, squash, text

_GENERICS = re.compile(r"<[^<>]*>")


def _owner(node: Node, name: str) -> tuple[tuple[str, ...], str]:
    name = name.replace("`", "")
    if "." not in name and "<" not in name or not (name[0].isalpha() or name[0] == "_"):
        return (), name  # a plain name, or an operator (`<+>`, `..<`)
    while "<" in name:  # `Array<Int>`, `Dictionary<K, Array<V>>`
        stripped = _GENERICS.sub("", name)
        if stripped == name:
            break
        name = stripped
    parts = [p.strip() for p in name.split(".") if p.strip()]
    return tuple(parts[:-1]), parts[-1] if parts else name


def _parameters(node: Node) -> tuple[Parameter, ...]:
    out: list[Parameter] = []
    expect_default = False
    for child in node.children:
        if child.type == "parameter":
            out.append(_parameter(child))
        elif child.type == "=":
            expect_default = True
        elif expect_default and child.type not in ("comment", "multiline_comment"):
            # The grammar hangs `= value` on the function, right after its parameter.
            if out:
                out[-1] = Parameter(out[-1].name, out[-1].type, squash(text(child), 200))
            expect_default = False
        elif child.type == ")":
            break
    return tuple(out)


def _parameter(node: Node) -> Parameter:
    external = node.child_by_field_name("external_name")
    internal = node.child_by_field_name("name")
    name = text(internal)
    if external is not None:
        name = f"{text(external)} {name}"
    ptype = None
    for child in node.children:
        if child.type == ":":  # the type, with `inout`/`@escaping` and a variadic `...`
            ptype = squash(node.text[child.end_byte - node.start_byte :].decode("utf-8", "replace"), 200)
            break
    return Parameter(name, ptype or None)


def _return_type(node: Node) -> str | None:
    arrow = False
    for child in node.children:
        if child.type == "->":
            arrow = True
        elif arrow and child.is_named:
            return squash(text(child), 200)
        elif child.type in ("function_body", "computed_property"):
            break
    return None


def _signature_end(node: Node) -> int:
    for child in node.children:
        if child.type in ("function_body", "class_body", "enum_class_body", "protocol_body", "computed_property"):
            return child.start_byte
    nl = node.text.find(b"\n")
    return node.end_byte if nl < 0 else node.start_byte + nl


def _decorators(node: Node) -> tuple[str, ...]:
    for child in node.children:
        if child.type == "modifiers":
            return tuple(squash(text(a)[1:], 200) for a in child.named_children if a.type == "attribute")
        if child.is_named and child.type not in ("comment", "multiline_comment"):
            break
    return ()


def _bases(node: Node) -> tuple[str, ...]:
    return tuple(
        squash(text(c.child_by_field_name("inherits_from") or c), 200)
        for c in node.named_children
        if c.type == "inheritance_specifier"
    )


def _imports(node: Node) -> list[Import]:
    line = node.start_point[0] + 1
    path = next((c for c in node.named_children if c.type == "identifier"), None)
    if path is None:
        return []
    module = "".join(text(path).split())
    # `import struct Swift.Array`, `import func Darwin.sqrt`: one declaration of a module.
    kind = any(not c.is_named and c.type not in ("import", "identifier") for c in node.children)
    if kind and "." in module:
        module, _, name = module.rpartition(".")
        return [Import(module, name, line=line)]
    return [Import(module, line=line)]


SPEC = LanguageSpec(
    name="swift",
    grammar="swift",
    query_path=query_file(__file__, "swift"),
    owner=_owner,
    parameters=_parameters,
    return_type=_return_type,
    decorators=_decorators,
    bases=_bases,
    imports=_imports,
    signature_end=_signature_end,
)

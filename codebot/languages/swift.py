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

from tree_sitter import Node

from codebot.core.model import Import, Parameter
from codebot.languages.base import LanguageSpec, default_signature_end, query_file, squash, text


def _owner(node: Node, name: str) -> tuple[tuple[str, ...], str]:
    target = node.child_by_field_name("name") if node.type == "class_declaration" else None
    if target is not None and target.type == "user_type":  # `extension Foo.Bar<T>`
        parts = [text(c) for c in target.named_children if c.type == "type_identifier"]
        if parts:
            return tuple(parts[:-1]), parts[-1]
    return (), name.replace("`", "")


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
    name = text(node.child_by_field_name("name"))  # the first `name`; the type is the second
    if external is not None:
        name = f"{text(external)} {name}"
    colon = next((c for c in node.children if c.type == ":"), None)
    if colon is None:
        return Parameter(name)
    # The type as written after the colon, with `inout`/`@escaping` and a variadic `...`.
    written = node.text[colon.end_byte - node.start_byte :].decode("utf-8", "replace")
    return Parameter(name, squash(written, 200) or None)


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
    if node.type == "subscript_declaration":  # its body is a computed_property, not a field
        body = next((c for c in node.children if c.type == "computed_property"), None)
        if body is not None:
            return body.start_byte
    return default_signature_end(node)


def _decorators(node: Node) -> tuple[str, ...]:
    mods = next((c for c in node.children if c.type == "modifiers"), None)
    attrs = mods.named_children if mods is not None else ()
    return tuple(squash(text(a)[1:], 200) for a in attrs if a.type == "attribute")


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

"""Text of declaration parts shared by the Java, C#, Kotlin and Scala specs.

Qualified names (``a.b.C`` -> module ``a.b``, name ``C``), the simple name of a written type
(``com.acme.Map<K, V>?`` -> ``Map``) and annotations read as decorators (``@Foo(x)`` -> ``Foo(x)``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from tree_sitter import Node

from codebot.core.model import Import
from codebot.languages.base import default_signature_end, squash, text

__all__ = [
    "annotation_texts",
    "child_of_type",
    "dotted",
    "import_of",
    "signature_end",
    "simple_type_name",
]

_TYPE_ARGS = re.compile(r"[<\[].*$", re.S)


def dotted(node: Node | None) -> str:
    """A qualified name as written, without the whitespace or comments a grammar lets in."""
    return "".join(text(node).split()) if node is not None else ""


def split_dotted(name: str) -> tuple[str, str | None]:
    """``a.b.C`` -> ``("a.b", "C")``; a name without a dot is a module of its own."""
    module, dot, last = name.rpartition(".")
    return (module, last) if dot else (name, None)


def import_of(
    qualified: str, line: int, alias: str | None = None, wildcard: bool = False
) -> Import:
    """The Import of ``import a.b.C [as D]``, or of ``import a.b.*`` when ``wildcard``."""
    if wildcard:
        return Import(qualified, "*", line=line)
    module, name = split_dotted(qualified)
    if name is None:
        return Import(module, alias=alias, line=line)
    return Import(module, name, alias, line=line)


def simple_type_name(written: str) -> str:
    """The bare name of a type as written: no package, type arguments, nullability or spaces."""
    bare = _TYPE_ARGS.sub("", "".join(written.split())).rstrip("?*&")
    return bare.rpartition(".")[2] or bare


def annotation_texts(nodes: Iterable[Node], types: tuple[str, ...]) -> tuple[str, ...]:
    """The annotations among ``nodes`` as decorators: their text without the leading ``@``."""
    return tuple(squash(text(n).lstrip("@").strip(), 200) for n in nodes if n.type in types)


def child_of_type(node: Node | None, *types: str) -> Node | None:
    """The first direct child of one of ``types`` (grammars without field names need this)."""
    if node is not None:
        for child in node.children:
            if child.type in types:
                return child
    return None


def signature_end(node: Node, body: Node | None) -> int:
    """Where a signature stops: at its body, before the ``;`` ending a declaration without one,
    or at the end of its first line."""
    if body is not None and body.start_byte > node.start_byte:
        return body.start_byte
    last = node.child(node.child_count - 1) if node.child_count else None
    if last is not None and last.type == ";":
        return last.start_byte
    return default_signature_end(node)

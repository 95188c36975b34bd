"""Haskell: top-level functions, ``data``/``newtype`` (structs), type classes (interfaces, their
signatures methods), ``-- |`` Haddock comments, applications as calls, ``import``.

- a function's return type is its whole type signature (``X a -> IO a``), the signature line
  above its first equation; a class method's is its own.
- docstring: the ``-- |`` / ``{- | -}`` comment above the signature, or above the equation.
- ``import qualified Data.Map as M`` is ``Import("Data.Map", alias="M")`` (``import qualified
  X``: ``Import("X", alias="X")``; a qualified import brings no plain name);
  ``import Data.Maybe (fromMaybe)`` is ``Import("Data.Maybe", "fromMaybe")``; a plain
  ``import X`` is ``Import("X", "*")`` (``import X as Y``: ``Import("X", "*", "Y")``);
  ``import X hiding (a)`` is ``Import("X", "*")`` and ``Import("X", "a", "hiding")`` (an alias
  is capitalized: ``hiding`` is no alias).
- the module's export list, ``module Shop.Cart (Cart, total, Item(..), module Shop.Price)``,
  is one import without a module per entry, as JavaScript writes ``export { x }``:
  ``Import("", "Cart")``, ``Import("", "total")``, ``Import("", "Item(..)")``,
  ``Import("", "module Shop.Price")``; a class's listed methods (``C(m)``) are entries too. No
  such entry: the module has no export list and exports its own top-level definitions.
"""

from __future__ import annotations

import re

from tree_sitter import Node

from codebot.core.model import Import, Parameter
from codebot.languages.base import LanguageSpec, query_file, squash, text

_MARKS = re.compile(r"^\s*(?:--+\s?\|?|\{-\s?\|?|-\})\s?")


def _signature_of(node: Node) -> Node | None:
    """The type signature of a function's equation: the ``signature`` of its name above it."""
    if node.type == "signature":
        return node
    name = text(node.child_by_field_name("name"))
    sib = node.prev_named_sibling
    while sib is not None and sib.type in ("function", "bind", "haddock", "comment", "pragma"):
        if sib.type in ("function", "bind") and text(sib.child_by_field_name("name")) != name:
            return None
        sib = sib.prev_named_sibling
    if (
        sib is not None
        and sib.type == "signature"
        and text(sib.child_by_field_name("name")) == name
    ):
        return sib
    return None


def _return_type(node: Node) -> str | None:
    sig = _signature_of(node)
    t = sig.child_by_field_name("type") if sig is not None else None
    return squash(text(t), 200) if t is not None else None


def _parameters(node: Node) -> tuple[Parameter, ...]:
    pats = node.child_by_field_name("patterns")
    if pats is None:
        return ()
    return tuple(Parameter(squash(text(p), 80)) for p in pats.named_children)


def _comment_above(node: Node) -> str | None:
    parts: list[str] = []
    sib = node.prev_sibling
    if sib is None and node.parent is not None and node.parent.type == "declarations":
        # The first declaration's comment is parsed at the end of the imports.
        before = node.parent.prev_named_sibling
        sib = before.children[-1] if before is not None and before.child_count else None
    expected = node.start_point[0]
    while (
        sib is not None and sib.type in ("haddock", "comment") and sib.end_point[0] >= expected - 1
    ):
        parts.append(text(sib))
        expected = sib.start_point[0]
        sib = sib.prev_sibling
    if not parts or not any(p.lstrip("-{ ").startswith("|") for p in parts):
        return None  # only Haddock's `-- |` documents a declaration
    lines = [_MARKS.sub("", line).rstrip() for p in reversed(parts) for line in p.splitlines()]
    return "\n".join(line for line in lines).strip() or None


def _docstring(node: Node) -> str | None:
    if node.type in ("function", "bind"):
        sig = _signature_of(node)
        if sig is not None:
            return _comment_above(sig)
    return _comment_above(node)


def _signature_end(node: Node) -> int:
    for child in node.children:
        if child.type == "where":  # `class Monad m => MonadX m where`
            return child.end_byte
    for field in ("match", "constructors", "constructor", "declarations", "type"):
        child = node.child_by_field_name(field)
        if child is not None and child.start_byte > node.start_byte:
            return child.start_byte if field != "type" else child.end_byte
    nl = node.text.find(b"\n")
    return node.end_byte if nl < 0 else node.start_byte + nl


def _imports(node: Node) -> list[Import]:
    if node.type == "header":
        return _exports(node)
    module = text(node.child_by_field_name("module"))
    alias_node = node.child_by_field_name("alias")
    alias = text(alias_node) if alias_node is not None else None
    line = node.start_point[0] + 1
    if any(c.type == "qualified" for c in node.children):
        return [Import(module, alias=alias or module, line=line)]
    names = node.child_by_field_name("names")
    if names is None:
        return [Import(module, "*", alias, line=line)]
    listed = [x for n in names.named_children if n.type == "import_name" for x in _listed(n)]
    if any(c.type == "hiding" for c in node.children):
        return [Import(module, "*", alias, line=line)] + [
            Import(module, n, "hiding", line=line) for n in listed
        ]
    return [Import(module, n, alias, line=line) for n in listed] or [
        Import(module, alias=alias or module, line=line)  # `import X ()`: instances only
    ]


def _exports(node: Node) -> list[Import]:
    """``module X (a, T(..), C(m), module Y) where``: one entry per name, see above."""
    exports = node.child_by_field_name("exports")
    if exports is None:
        return []
    line = node.start_point[0] + 1
    out: list[Import] = []
    for e in exports.named_children:
        if e.type == "module_export":
            mod = e.child_by_field_name("module")
            if mod is not None:
                out.append(Import("", f"module {text(mod)}", line=line))
            continue
        if e.type == "export":
            out.extend(Import("", x, line=line) for x in _listed(e))
    return out


def _listed(node: Node) -> list[str]:
    """The names one entry of an import or export list names: ``f``, ``(<+>)``, ``T``;
    ``T(..)`` for a type or class with all its constructors or methods, and ``C(m1, m2)`` as
    ``C``, ``m1``, ``m2``."""
    name = (
        node.child_by_field_name("variable")
        or node.child_by_field_name("operator")
        or node.child_by_field_name("type")
    )
    if name is None:
        return []
    kids = node.child_by_field_name("children")
    if kids is not None and any(c.type == "all_names" for c in kids.named_children):
        return [f"{text(name)}(..)"]
    out = [text(name)]
    for c in kids.named_children if kids is not None else ():
        if c.type in ("variable", "prefix_id", "constructor", "name"):
            out.append(text(c))
    return out


SPEC = LanguageSpec(
    name="haskell",
    grammar="haskell",
    query_path=query_file(__file__, "haskell"),
    parameters=_parameters,
    return_type=_return_type,
    docstring=_docstring,
    imports=_imports,
    signature_end=_signature_end,
)

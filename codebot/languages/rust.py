"""Rust: `impl` blocks own their methods, `///` docs and `#[attributes]` sit above items as siblings."""

from __future__ import annotations

import re

from tree_sitter import Node

from codebot.core.model import Import, Parameter
from codebot.languages.base import LanguageSpec, clean_comment, field_text, query_file, squash, text
from codebot.languages.receivers import Bindings, Receivers, declared, valued

_TYPE_ITEMS = ("struct_item", "enum_item", "union_item")
_DECORATION = ("attribute_item", "line_comment", "block_comment")


def _type_name(node: Node | None) -> str:
    """`&'a mut crate::Item<T>` -> `Item`."""
    while node is not None:
        if node.type in ("type_identifier", "primitive_type"):
            return text(node)
        if node.type in ("generic_type", "reference_type", "pointer_type"):
            node = node.child_by_field_name("type")
        elif node.type == "scoped_type_identifier":
            node = node.child_by_field_name("name")
        else:
            return squash(text(node), 80)
    return ""


def _owner(node: Node, name: str) -> tuple[tuple[str, ...], str]:
    if node.type == "impl_item":
        return (), _type_name(node.child_by_field_name("type")) or name
    return (), name


_last_above: tuple = (None, [])  # the docstring and decorators hooks ask in turn about one item


def _above(node: Node) -> list[Node]:
    """The attributes and comments right above an item, nearest first (its outer decoration)."""
    global _last_above
    if _last_above[0] == node:
        return _last_above[1]
    out = []
    row = node.start_point[0]
    sib = node.prev_sibling
    while sib is not None and sib.type in _DECORATION:
        if sib.end_point[0] < row - 1 or sib.child_by_field_name("inner") is not None:
            break  # a blank line, or a `//!` doc of the enclosing module
        prev = sib.prev_sibling
        if (
            prev is not None
            and prev.end_point[0] == sib.start_point[0]
            and prev.type not in _DECORATION
        ):
            break  # a trailing comment on the line of the previous item
        out.append(sib)
        row = sib.start_point[0]
        sib = prev
    _last_above = (node, out)
    return out


def _docstring(node: Node) -> str | None:
    """`///` and `/** */` doc comments above the item; plain comments only when there are none."""
    comments = [n for n in reversed(_above(node)) if n.type != "attribute_item"]
    docs = [c for c in comments if c.child_by_field_name("outer") is not None]
    doc = clean_comment("\n".join(text(c).rstrip("\n") for c in (docs or comments)))
    return doc or None


def _decorators(node: Node) -> tuple[str, ...]:
    return tuple(
        squash(text(a.named_children[0]), 200)
        for a in reversed(_above(node))
        if a.type == "attribute_item" and a.named_child_count
    )


def _parameters(node: Node) -> tuple[Parameter, ...]:
    params = node.child_by_field_name("parameters")
    out: list[Parameter] = []
    for p in params.named_children if params is not None else ():
        if p.type == "self_parameter":
            # `&mut self` is a `self` of type `&mut Self`.
            type_ = squash(text(p)).removeprefix("mut ").replace("self", "Self")
            out.append(Parameter("self", type_))
        elif p.type == "parameter":
            pattern = squash(text(p.child_by_field_name("pattern")), 80)
            out.append(Parameter(pattern, field_text(p, "type")))
        elif p.type == "variadic_parameter":
            out.append(Parameter("..."))
    return tuple(out)


# The traits implemented in the last container (file or inline mod) asked about, by type name: the
# sweep asks for every type of a container in a row. Holding the Node keeps its tree alive, so an
# equal Node is the same container; the entry is replaced whole, so threads at worst recompute it.
_last_impls: tuple = (None, {})


def _bases(node: Node) -> tuple[str, ...]:
    """Supertraits of a trait; for a struct or enum, the traits its `impl Trait for T` blocks in the
    same file and module implement (derives are in the decorators)."""
    global _last_impls
    if node.type == "trait_item":
        bounds = node.child_by_field_name("bounds")
        return tuple(squash(text(b), 200) for b in bounds.named_children) if bounds else ()
    parent = node.parent
    if node.type not in _TYPE_ITEMS or parent is None:
        return ()
    container, impls = _last_impls
    if container != parent:
        impls = {}
        for item in parent.named_children:
            trait = item.child_by_field_name("trait") if item.type == "impl_item" else None
            if trait is not None:
                name = _type_name(item.child_by_field_name("type"))
                impls.setdefault(name, []).append(squash(text(trait), 200))
        _last_impls = (parent, impls)
    return tuple(impls.get(text(node.child_by_field_name("name")), ()))


def _segments(node: Node | None) -> list[str]:
    return [s for s in "".join(text(node).split()).split("::") if s] if node is not None else []


def _bind(path: list[str], alias: str | None, line: int) -> Import:
    """`a::b::c` binds `c` from module `a::b`; a single segment is a crate or module itself."""
    if path and path[-1] == "self":  # `use a::b::{self}` binds `b`, as `use a::b` does
        path = path[:-1]
    if len(path) == 1:
        return Import(path[0], alias=alias, line=line)
    return Import("::".join(path[:-1]), path[-1] if path else None, alias, line=line)


def _use_tree(node: Node, prefix: list[str], line: int, out: list[Import]) -> None:
    t = node.type
    if t == "use_list":
        for child in node.named_children:
            _use_tree(child, prefix, line, out)
    elif t == "scoped_use_list":
        inner = prefix + _segments(node.child_by_field_name("path"))
        _use_tree(node.child_by_field_name("list"), inner, line, out)
    elif t == "use_as_clause":
        path = prefix + _segments(node.child_by_field_name("path"))
        out.append(_bind(path, text(node.child_by_field_name("alias")), line))
    elif t == "use_wildcard":
        path = prefix + (_segments(node.named_children[0]) if node.named_child_count else [])
        out.append(Import("::".join(path), "*", line=line))
    elif "comment" not in t:
        out.append(_bind(prefix + _segments(node), None, line))


def _imports(node: Node) -> list[Import]:
    line = node.start_point[0] + 1
    if node.type == "extern_crate_declaration":
        alias = text(node.child_by_field_name("alias")) or None
        return [Import(text(node.child_by_field_name("name")), alias=alias, line=line)]
    out: list[Import] = []
    arg = node.child_by_field_name("argument")
    if arg is not None:
        _use_tree(arg, [], line, out)
    return out


# --- receivers: local types ------------------------------------------------------------------


def _name(pattern: Node | None) -> str | None:
    if pattern is not None and pattern.type == "mut_pattern":
        pattern = next((c for c in pattern.named_children if c.type == "identifier"), None)
    return text(pattern) if pattern is not None and pattern.type == "identifier" else None


def _value(node: Node | None) -> str | None:
    """`T::new()` / `make()` (what the call returns), `T { .. }` (a T)."""
    if node is None:
        return None
    if node.type == "struct_expression":
        return declared(text(node.child_by_field_name("name")))
    if node.type == "call_expression":
        return valued(text(node.child_by_field_name("function")))
    return None


def _block(node: Node) -> Bindings:
    out: Bindings = {}
    for c in node.named_children:
        if c.type != "let_declaration":
            continue
        name = _name(c.child_by_field_name("pattern"))
        if name is None or name in out:
            continue
        type_ = c.child_by_field_name("type")
        what = declared(text(type_)) if type_ is not None else None
        out[name] = what or _value(c.child_by_field_name("value"))
    return out


def _params(node: Node) -> Bindings:
    out: Bindings = {}
    params = node.child_by_field_name("parameters")
    for p in params.named_children if params is not None else ():
        if p.type == "parameter":
            name = _name(p.child_by_field_name("pattern"))
            type_ = p.child_by_field_name("type")
            if name is not None:
                out.setdefault(name, declared(text(type_)) if type_ is not None else None)
        elif p.type in ("identifier", "mut_pattern"):  # a closure's `|x|`
            name = _name(p)
            if name is not None:
                out.setdefault(name, None)
    return out


def _loop(node: Node) -> Bindings:
    name = _name(node.child_by_field_name("pattern"))
    return {name: None} if name else {}


def _impl_fields(node: Node) -> Bindings:
    """`self.router` in an `impl Server`: the fields of `struct Server` in the same file."""
    type_ = node.child_by_field_name("type")
    if type_ is None or node.parent is None:
        return {}
    name = text(type_).split("<", 1)[0].strip()
    out: Bindings = {}
    for item in node.parent.named_children:
        if item.type == "struct_item" and text(item.child_by_field_name("name")) == name:
            body = item.child_by_field_name("body")
            for f in body.named_children if body is not None else ():
                if f.type == "field_declaration":
                    field_name = text(f.child_by_field_name("name"))
                    out.setdefault(field_name, declared(text(f.child_by_field_name("type"))))
    return out


_RECEIVERS = Receivers(
    scopes={
        "block": _block,
        "function_item": _params,
        "closure_expression": _params,
        "for_expression": _loop,
        "impl_item": _impl_fields,
    },
    self_names=frozenset({"self"}),
    member_scopes=frozenset({"impl_item"}),
)

_TRANSPARENT = re.compile(rb"cfg_\w+")
_ITEM_LEVEL = frozenset(("source_file", "declaration_list"))


def _unwrap(root: Node, data: bytes) -> bytes | None:
    """``cfg_rt! { pub fn spawn() {} }`` (tokio wraps 300 blocks of items in such macros, whose
    braces the grammar reads as plain tokens): ``data`` with each item-level ``cfg_*!`` wrapper
    (``cfg_rt! {`` and its ``}``) blanked, so that a second parse sees the items in place;
    None when there is none."""
    blank: list[tuple[int, int]] = []
    stack = [root]
    while stack:
        node = stack.pop()
        for child in node.named_children:
            if child.type in _ITEM_LEVEL:
                stack.append(child)
            elif child.type in ("mod_item", "impl_item", "trait_item"):
                stack.append(child)
            elif child.type == "macro_invocation" and node.type in _ITEM_LEVEL:
                name = child.child_by_field_name("macro")
                body = child.named_children[-1] if child.named_child_count else None
                if (
                    name is not None
                    and _TRANSPARENT.fullmatch(name.text or b"")
                    and body is not None
                    and body.type == "token_tree"
                    and data[body.start_byte : body.start_byte + 1] == b"{"
                    and data[body.end_byte - 1 : body.end_byte] == b"}"
                ):
                    blank.append((child.start_byte, body.start_byte + 1))
                    blank.append((body.end_byte - 1, child.end_byte))
    if not blank:
        return None
    out = bytearray(data)
    for start, end in blank:
        out[start:end] = bytes(b if b == 10 else 32 for b in data[start:end])
    return bytes(out)


SPEC = LanguageSpec(
    name="rust",
    grammar="rust",
    query_path=query_file(__file__, "rust"),
    owner=_owner,
    parameters=_parameters,
    docstring=_docstring,
    decorators=_decorators,
    bases=_bases,
    imports=_imports,
    receivers=_RECEIVERS,
    unwrap=_unwrap,
)

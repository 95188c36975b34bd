"""Zig: functions (methods inside a container), ``const X = struct/enum/union/opaque``,
``///`` doc comments, calls by name, ``@import``.

- the pinned grammar (tree-sitter-language-pack 0.13) gives every declaration as a ``Decl``
  whose ``pub`` and ``///`` comments are siblings before it: a symbol's lines start at ``fn`` /
  ``const`` (``pub`` is on that line), its docstring is the ``///`` block above.
- ``const clap = @import("clap")`` is ``Import("clap", alias="clap")``; a file path
  (``@import("clap/args.zig")``) stays as written.
- a function's signature is its prototype (``fn parse(comptime T: type, ...) !T``), its
  parameters as written (``comptime T`` with type ``type``), its return type after them.
"""

from __future__ import annotations

from tree_sitter import Node

from codebot.core.model import Import, Parameter
from codebot.languages.base import LanguageSpec, clean_comment, query_file, squash, text

_QUALIFIERS = frozenset(("pub", "export", "extern", "inline", "noinline", "threadlocal"))


def _proto(node: Node) -> Node | None:
    return next((c for c in node.named_children if c.type == "FnProto"), None)


def _docstring(node: Node) -> str | None:
    """The ``///`` block above the declaration, past ``pub``/``export``/``inline``."""
    parts: list[str] = []
    sib = node.prev_sibling
    while sib is not None and sib.type in _QUALIFIERS:
        sib = sib.prev_sibling
    while sib is not None and sib.type == "doc_comment":
        parts.append(text(sib))
        sib = sib.prev_sibling
    if not parts:
        return None
    doc = clean_comment("\n".join(line for p in reversed(parts) for line in p.splitlines()))
    return doc or None


def _lead(node: Node) -> Node | None:
    """The first of the ``pub``/``export``... words and ``///`` lines before the declaration
    (its lines start there), or None."""
    first = None
    sib = node.prev_sibling
    while sib is not None and (sib.type in _QUALIFIERS or sib.type == "doc_comment"):
        first = sib
        sib = sib.prev_sibling
    return first


def _parameters(node: Node) -> tuple[Parameter, ...]:
    proto = _proto(node)
    params = (
        next((c for c in proto.named_children if c.type == "ParamDeclList"), None)
        if proto
        else None
    )
    out: list[Parameter] = []
    for p in params.named_children if params is not None else ():
        if p.type != "ParamDecl":
            continue
        name = p.child_by_field_name("parameter")
        kind = next((c for c in p.named_children if c.type == "ParamType"), None)
        if name is None:  # `...` or a type alone (`fn (u8) void`)
            out.append(Parameter(squash(text(p), 80)))
            continue
        comptime = "comptime " if p.children and p.children[0].type == "comptime" else ""
        out.append(Parameter(comptime + text(name), squash(text(kind), 200) if kind else None))
    return tuple(out)


def _return_type(node: Node) -> str | None:
    """What follows the parameter list in the prototype (``!T``, ``?[]const u8``), as written."""
    proto = _proto(node)
    params = (
        next((c for c in proto.named_children if c.type == "ParamDeclList"), None)
        if proto is not None
        else None
    )
    if params is None:
        return None
    rest = proto.text[params.end_byte - proto.start_byte :].decode("utf-8", "replace")
    return squash(rest.strip(), 200) or None


def _signature_end(node: Node) -> int:
    proto = _proto(node)
    if proto is not None:
        return proto.end_byte
    nl = node.text.find(b"\n")
    return node.end_byte if nl < 0 else node.start_byte + nl


def _imports(node: Node) -> list[Import]:
    decl = next((c for c in node.named_children if c.type == "VarDecl"), None)
    name = decl.child_by_field_name("variable_type_function") if decl is not None else None
    call = node.named_children[0] if node.named_children else None
    path = None
    for n in _walk(call):
        if n.type in ("STRINGLITERALSINGLE", "STRINGLITERAL"):
            path = text(n).strip('"')
            break
    if not path:
        return []
    return [
        Import(path, None, text(name) if name is not None else None, line=node.start_point[0] + 1)
    ]


def _walk(node: Node | None):
    stack = [node] if node is not None else []
    while stack:
        n = stack.pop()
        yield n
        stack.extend(reversed(n.named_children))


SPEC = LanguageSpec(
    name="zig",
    grammar="zig",
    query_path=query_file(__file__, "zig"),
    parameters=_parameters,
    return_type=_return_type,
    docstring=_docstring,
    imports=_imports,
    signature_end=_signature_end,
    lead=_lead,
)

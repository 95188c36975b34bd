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
from codebot.languages.receivers import Bindings, Receivers, declared, valued

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
    """What a container-level ``const`` binds when it names something else: ``@import("x.zig")``
    (a file), ``@import("std")`` (a package), a path through them (``@import("x.zig").Foo`` is
    ``Import("x.zig", "Foo")``; ``std.mem.Allocator`` is ``Import("std", "mem.Allocator")``: the
    head is a name of the scope), ``@This()`` (the container around). A value, a type
    defined in place, a call: no import."""
    decl = next((c for c in node.named_children if c.type == "VarDecl"), None)
    alias = decl.child_by_field_name("variable_type_function") if decl is not None else None
    value = decl.named_children[-1] if decl is not None and decl.named_children else None
    if alias is None or value is None or value.type != "ErrorUnionExpr":
        return []
    suffix = value.named_children[0] if value.named_child_count == 1 else None
    kids = suffix.named_children if suffix is not None and suffix.type == "SuffixExpr" else []
    if not kids:
        return []
    head, rest = kids[0], kids[1:]
    if head.type == "BUILTINIDENTIFIER":
        builtin = text(head)
        if not rest or rest[0].type != "FnCallArguments" or builtin not in ("@import", "@This"):
            return []
        strings = [n for n in _walk(rest[0]) if n.type in ("STRINGLITERALSINGLE", "STRINGLITERAL")]
        module = "@This()" if builtin == "@This" else text(strings[0]).strip('"') if strings else ""
        rest = rest[1:]
    elif head.type == "IDENTIFIER":
        module = text(head)
    else:
        return []
    names = []
    for part in rest:
        field = part.child_by_field_name("field_access") if part.type == "FieldOrFnCall" else None
        if field is None:
            return []  # a call, an index: a value
        names.append(text(field))
    if not module or (head.type == "IDENTIFIER" and not names):
        return []
    name = ".".join(names) or None
    return [Import(module, name, text(alias), line=node.start_point[0] + 1)]


def _call_path(node: Node, bound) -> str | None:
    """``self.alloc.free`` for the ``free`` of ``self.alloc.free(x)``: the names and calls the
    receiver is made of (arguments dropped, ``.*``/``.?`` read through); ``(?).free`` when it
    starts with something else (a literal, a builtin, an index). A decl literal (``.init(a)``)
    is ``(_: T).init`` where the variable's or the function's declared type says ``T``, else
    ``.init``. None: a call by plain name."""
    link = node.parent
    if link is not None and link.type == "SuffixExpr" and link.named_children[0] == node:
        prev = node.prev_sibling
        if prev is not None and prev.type == ".":  # `.init(a)`: a member of the type expected
            expected = _expected_type(link)
            return f"(_: {expected}).{text(node)}" if expected else f".{text(node)}"
    if link is None or link.type != "FieldOrFnCall":
        return None
    suffix = link.parent
    parts: list[str] = []
    for child in suffix.named_children if suffix is not None else ():
        if child.start_byte >= link.start_byte:
            break
        kind = child.type
        if not parts:
            if kind != "IDENTIFIER":
                return f"(?).{text(node)}"
            parts.append(text(child))
        elif kind == "FnCallArguments":
            parts[-1] += "()"
        elif kind == "FieldOrFnCall":
            name = child.child_by_field_name("field_access") or child.child_by_field_name(
                "function_call"
            )
            if name is None:
                return f"(?).{text(node)}"
            parts.append(text(name) + ("()" if child.named_child_count > 1 else ""))
        elif kind == "SuffixOp" and text(child) in (".*", ".?"):
            continue  # a pointer or an optional, read through: the same value
        else:
            return f"(?).{text(node)}"
    if not parts:
        return None
    return ".".join([*parts, text(node)])


def _expected_type(expr: Node) -> str | None:
    """The type a decl literal (``.init(a)``) is a member of: the declared type of the variable
    it initialises, or the return type of the function it is returned from (``!T``: ``T``)."""
    up = expr.parent
    while up is not None and up.type in ("ErrorUnionExpr", "UnaryExpr"):
        up = up.parent
    if up is None:
        return None
    if up.type == "VarDecl":
        name = up.child_by_field_name("variable_type_function")
        kids = up.named_children
        at = kids.index(name) + 1 if name is not None else len(kids)
        typed = kids[at] if at < len(kids) - 1 else None
        return squash(text(typed), 120) if typed is not None else None
    if up.type == "AssignExpr" and up.children and up.children[0].type == "return":
        fn = up.parent
        while fn is not None and fn.type != "Decl":
            fn = fn.parent
        returned = _return_type(fn) if fn is not None else None
        return returned.rsplit("!", 1)[-1].strip() if returned else None
    return None


def _value_of(expr: Node | None) -> str | None:
    """What a ``const x = ...`` holds, as the resolver reads it: ``= Parser.init()`` (a call of a
    path of names, ``try`` read through), else None."""
    while expr is not None and expr.type in ("ErrorUnionExpr", "UnaryExpr"):
        expr = expr.child_by_field_name("left") if expr.type == "UnaryExpr" else expr
        if expr is not None and expr.type == "ErrorUnionExpr":
            inner = expr.named_children
            expr = inner[0] if len(inner) == 1 else None
    if expr is None or expr.type != "SuffixExpr":
        return None
    kids = expr.named_children
    if len(kids) < 2 or kids[0].type != "IDENTIFIER":
        return None
    names = [text(kids[0])]
    for part in kids[1:-1]:
        field = part.child_by_field_name("field_access") if part.type == "FieldOrFnCall" else None
        if field is None:
            return None
        names.append(text(field))
    last = kids[-1]
    if last.type == "FnCallArguments" and len(kids) == 2:
        return valued(names[0])
    called = last.child_by_field_name("function_call") if last.type == "FieldOrFnCall" else None
    return valued(".".join([*names, text(called)])) if called is not None else None


def _var(decl: Node, out: Bindings) -> None:
    name = decl.child_by_field_name("variable_type_function")
    if name is None:
        return
    kids = decl.named_children
    typed = kids[kids.index(name) + 1] if kids.index(name) + 1 < len(kids) - 1 else None
    out.setdefault(
        text(name),
        declared(text(typed)) if typed is not None else _value_of(kids[-1] if kids else None),
    )


def _block(node: Node) -> Bindings:
    """The locals a block declares (``var p: Parser = ...``, ``const x = Parser.init(a)``)."""
    out: Bindings = {}
    for stmt in node.named_children:
        decl = stmt.named_children[0] if stmt.type == "Statement" and stmt.named_children else None
        if decl is not None and decl.type == "VarDecl":
            _var(decl, out)
    return out


def _function(node: Node) -> Bindings:
    """A function's parameters with their types (``self: *Parser``)."""
    proto = _proto(node)
    out: Bindings = {}
    params = (
        next((c for c in proto.named_children if c.type == "ParamDeclList"), None)
        if proto is not None
        else None
    )
    for p in params.named_children if params is not None else ():
        name = p.child_by_field_name("parameter") if p.type == "ParamDecl" else None
        kind = next((c for c in p.named_children if c.type == "ParamType"), None)
        if name is not None:
            out[text(name)] = declared(text(kind)) if kind is not None else None
    return out


def _payloads(node: Node) -> Bindings:
    """``|item|``, ``|*x, i|``: names bound without a type (they shadow those outside)."""
    out: Bindings = {}
    for child in node.named_children:
        if child.type in ("PtrPayload", "Payload", "PtrIndexPayload", "PtrListPayload"):
            for n in _walk(child):
                if n.type == "IDENTIFIER":
                    out[text(n)] = None
    return out


def _fields(node: Node) -> Bindings:
    """A container's fields with their types: what ``self.alloc`` holds."""
    out: Bindings = {}
    for field_node in node.named_children:
        if field_node.type != "ContainerField":
            continue
        name = field_node.child_by_field_name("field_member")
        kinds = [c for c in field_node.named_children if c.type == "ErrorUnionExpr"]
        if name is not None:
            out[text(name)] = declared(text(kinds[0])) if kinds else None
    return out


_RECEIVERS = Receivers(
    scopes={
        "Block": _block,
        "Decl": _function,
        "IfStatement": _payloads,
        "IfExpr": _payloads,
        "ForStatement": _payloads,
        "ForExpr": _payloads,
        "WhileStatement": _payloads,
        "WhileExpr": _payloads,
        "ContainerDecl": _fields,  # what `self.x` holds (member_scopes)
        "source_file": _fields,  # a file is a struct: its fields
    },
    self_names=frozenset({"self"}),
    member_scopes=frozenset({"ContainerDecl", "source_file"}),
    chain=_call_path,
)


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
    receivers=_RECEIVERS,
)

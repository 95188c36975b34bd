"""Go: methods belong to their receiver type, `a, b int` gives two parameters, imports keep aliases."""

from __future__ import annotations

from tree_sitter import Node

from codebot.core.model import Import, Parameter
from codebot.languages.base import (
    LanguageSpec,
    field_text,
    leading_comment,
    query_file,
    squash,
    text,
)
from codebot.languages.receivers import Bindings, Receivers, declared, valued


def _type_name(node: Node | None) -> str:
    """`*List[T]` -> `List`: the named type under pointers, parentheses and type arguments."""
    while node is not None:
        if node.type in ("type_identifier", "identifier"):
            return text(node)
        if node.type == "generic_type":
            node = node.child_by_field_name("type")
        elif node.type in ("pointer_type", "parenthesized_type"):
            node = node.named_children[0] if node.named_child_count else None
        else:
            return squash(text(node), 80)
    return ""


def _owner(node: Node, name: str) -> tuple[tuple[str, ...], str]:
    receiver = node.child_by_field_name("receiver") if node.type == "method_declaration" else None
    if receiver is not None:
        for param in receiver.named_children:
            if param.type == "parameter_declaration":
                owner = _type_name(param.child_by_field_name("type"))
                return ((owner,) if owner else ()), name
    return (), name


_DECLARATION = {
    "type_spec": "type_declaration",
    "const_spec": "const_declaration",
    "var_spec": "var_declaration",
}


def _outer(node: Node) -> Node:
    # `type X struct{}` and `const Max = 10` span their keyword; a grouped `type ( ... )` or
    # `const ( ... )` keeps each spec alone.
    parent = node.parent
    if parent is not None and parent.type == _DECLARATION.get(node.type):
        if sum(c.type == node.type for c in parent.named_children) == 1:
            return parent
    return node


def _docstring(node: Node) -> str | None:
    return leading_comment(_outer(node))


def _parameters(node: Node) -> tuple[Parameter, ...]:
    params = node.child_by_field_name("parameters")
    out: list[Parameter] = []
    for p in params.named_children if params is not None else ():
        if p.type not in ("parameter_declaration", "variadic_parameter_declaration"):
            continue
        type_ = field_text(p, "type")
        if p.type == "variadic_parameter_declaration" and type_ is not None:
            type_ = "..." + type_
        names = p.children_by_field_name("name") or [None]  # `func(int, string)`: no names
        out.extend(Parameter(text(n), type_) for n in names)
    return tuple(out)


def _bases(node: Node) -> tuple[str, ...]:
    """Embedded types: `struct { *Base; http.Handler }`, `interface { io.Closer }`."""
    body = node.child_by_field_name("type")
    out: list[str] = []
    if body is not None and body.type == "struct_type":
        fields = next((c for c in body.named_children if c.type == "field_declaration_list"), None)
        for f in fields.named_children if fields is not None else ():
            if f.type == "field_declaration" and f.child_by_field_name("name") is None:
                out.append(field_text(f, "type") or "")
    elif body is not None and body.type == "interface_type":
        for elem in body.named_children:
            if elem.type == "type_elem" and elem.named_child_count == 1:
                t = elem.named_children[0]
                if t.type in ("type_identifier", "qualified_type", "generic_type"):
                    out.append(squash(text(t), 200))
    return tuple(b for b in out if b)


def _imports(node: Node) -> list[Import]:
    specs = [c for c in node.named_children if c.type == "import_spec"]
    for group in node.named_children:
        if group.type == "import_spec_list":
            specs.extend(c for c in group.named_children if c.type == "import_spec")
    out = []
    for spec in specs:
        path = text(spec.child_by_field_name("path")).strip('"`')
        alias = text(spec.child_by_field_name("name")) or None
        out.append(Import(path, alias=alias, line=spec.start_point[0] + 1))
    return out


# --- receivers: local types ------------------------------------------------------------------


def _value(node: Node | None) -> str | None:
    """What a value's type reads as: `&T{}`, `T{}`, `x.(T)`, `new(T)` name a type;
    `pkg.NewT()` is the value a call returns."""
    if node is None:
        return None
    if node.type == "unary_expression" and text(node.child_by_field_name("operator")) == "&":
        node = node.child_by_field_name("operand")
        if node is None or node.type != "composite_literal":
            return None
    if node.type in ("composite_literal", "type_assertion_expression"):
        return declared(text(node.child_by_field_name("type")))
    if node.type == "call_expression":
        fn = node.child_by_field_name("function")
        if fn is not None and text(fn) == "new":
            args = node.child_by_field_name("arguments")
            return declared(text(args.named_children[0])) if args and args.named_children else None
        return valued(text(fn)) if fn is not None else None
    return None


def _assign(names: list[Node], values: list[Node], out: Bindings) -> None:
    for i, n in enumerate(names):
        if n.type != "identifier" or text(n) in out:
            continue
        v = values[i] if len(values) == len(names) else values[0] if i == 0 and values else None
        out[text(n)] = _value(v)


def _statements(node: Node, out: Bindings) -> None:
    for c in node.named_children:
        if c.type == "short_var_declaration":
            left, right = c.child_by_field_name("left"), c.child_by_field_name("right")
            if left is not None and right is not None:
                _assign(left.named_children, right.named_children, out)
        elif c.type == "var_declaration":
            specs = [s for s in c.named_children if s.type == "var_spec"]
            for group in c.named_children:
                if group.type == "var_spec_list":
                    specs += [s for s in group.named_children if s.type == "var_spec"]
            for spec in specs:
                names = spec.children_by_field_name("name")
                type_ = spec.child_by_field_name("type")
                if type_ is not None:
                    for n in names:
                        out.setdefault(text(n), declared(text(type_)))
                else:
                    values = spec.child_by_field_name("value")
                    _assign(names, values.named_children if values else [], out)
        elif c.type == "statement_list":
            _statements(c, out)


def _block(node: Node) -> Bindings:
    out: Bindings = {}
    _statements(node, out)
    return out


def _function(node: Node) -> Bindings:
    out: Bindings = {}
    for field_name in ("receiver", "parameters", "result"):
        params = node.child_by_field_name(field_name)
        for p in params.named_children if params is not None else ():
            type_ = p.child_by_field_name("type")
            what = declared(text(type_)) if p.type == "parameter_declaration" else None
            for n in p.children_by_field_name("name"):
                out.setdefault(text(n), what)
    return out


def _header(node: Node) -> Bindings:
    """`if x := f(); ...`, `for _, x := range xs`, `switch v := x.(type)`: the header's names."""
    out: Bindings = {}
    for c in node.named_children:
        if c.type == "short_var_declaration":
            _statements(node, out)
        elif c.type == "range_clause":
            left = c.child_by_field_name("left")
            for n in left.named_children if left is not None else ():
                out.setdefault(text(n), None)
        elif c.type == "for_clause":
            _statements(c, out)
    alias = node.child_by_field_name("alias")
    for n in alias.named_children if alias is not None and alias.type == "expression_list" else ():
        out.setdefault(text(n), None)
    return out


_RECEIVERS = Receivers(
    scopes={
        "block": _block,
        "function_declaration": _function,
        "method_declaration": _function,
        "func_literal": _function,
        "if_statement": _header,
        "for_statement": _header,
        "expression_switch_statement": _header,
        "type_switch_statement": _header,
        "source_file": _block,
    },
)

SPEC = LanguageSpec(
    name="go",
    grammar="go",
    query_path=query_file(__file__, "go"),
    owner=_owner,
    outer=_outer,
    parameters=_parameters,
    docstring=_docstring,
    bases=_bases,
    imports=_imports,
    receivers=_RECEIVERS,
)

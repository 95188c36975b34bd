"""Java: annotations as decorators, Javadoc above, ``extends``/``implements`` as bases, imports.

Constructors are named after their class (overloads get ``#2``); records are classes and annotation
types (``@interface``) interfaces. A call on a plain name or on a call is recorded as written
(``this.repo.save``, ``new GsonBuilder().create``), on any other expression by its method name
only; every call ends with its arguments' types (``save/(Order, ?)``), for choosing overloads.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace

from tree_sitter import Node

from codebot.core.model import Import, Parameter
from codebot.languages.base import (
    LanguageSpec,
    field_text,
    parameter_from_node,
    query_file,
    squash,
    text,
)
from codebot.languages.decl_text import (
    annotation_texts,
    child_of_type,
    dotted,
    import_of,
    signature_end,
)
from codebot.languages.receivers import Bindings, Receivers, declared, valued

_ANNOTATIONS = ("marker_annotation", "annotation")


def _parameters(node: Node) -> tuple[Parameter, ...]:
    params = node.child_by_field_name("parameters")
    out: list[Parameter] = []
    for p in params.named_children if params is not None else ():
        if p.type == "formal_parameter":
            out.append(parameter_from_node(p))
        elif p.type == "spread_parameter":  # `String... names`: no fields but the declarator's
            decl = child_of_type(p, "variable_declarator")
            kind = next((c for c in p.named_children if c.type != "modifiers"), None)
            name = decl.child_by_field_name("name") if decl is not None else None
            out.append(Parameter(text(name or decl), f"{squash(text(kind), 200)}..."))
    return tuple(out)


def _return_type(node: Node) -> str | None:
    if node.type in ("method_declaration", "annotation_type_element_declaration"):
        return field_text(node, "type")
    return None  # constructors


def _decorators(node: Node) -> tuple[str, ...]:
    modifiers = child_of_type(node, "modifiers")
    return annotation_texts(modifiers.children, _ANNOTATIONS) if modifiers is not None else ()


def _bases(node: Node) -> tuple[str, ...]:
    out: list[str] = []
    superclass = node.child_by_field_name("superclass")  # `extends Base<T>`
    if superclass is not None:
        out.extend(squash(text(c), 200) for c in superclass.named_children)
    # `implements A, B` (classes, enums, records); `extends A, B` (interfaces).
    for clause in (
        node.child_by_field_name("interfaces"),
        child_of_type(node, "extends_interfaces"),
    ):
        types = child_of_type(clause, "type_list")
        if types is not None:
            out.extend(squash(text(c), 200) for c in types.named_children)
    return tuple(out)


def _signature_end(node: Node) -> int:
    return signature_end(node, node.child_by_field_name("body"))


def _imports(node: Node) -> list[Import]:
    # `import a.b.C;`, `import a.b.*;`, `import static a.b.C.m;`, `import static a.b.C.*;`
    name = next(
        (c for c in node.named_children if c.type in ("scoped_identifier", "identifier")), None
    )
    if name is None:
        return []
    wildcard = child_of_type(node, "asterisk") is not None
    return [import_of(dotted(name), node.start_point[0] + 1, wildcard=wildcard)]


SPEC = LanguageSpec(
    name="java",
    grammar="java",
    query_path=query_file(__file__, "java"),
    parameters=_parameters,
    return_type=_return_type,
    decorators=_decorators,
    bases=_bases,
    imports=_imports,
    signature_end=_signature_end,
)


# --- receivers: local types ------------------------------------------------------------------


def _declarators(node: Node, out: Bindings) -> None:
    """`T a = ..., b;` (a local or a field): each name, with the declared type, or for `var` the
    class a `new` makes."""
    type_node = node.child_by_field_name("type")
    for d in node.children_by_field_name("declarator"):
        name = d.child_by_field_name("name")
        if name is None or text(name) in out:
            continue
        what = declared(text(type_node)) if type_node is not None else None
        value = d.child_by_field_name("value")
        if value is not None and value.type == "object_creation_expression":
            made = value.child_by_field_name("type")
            if made is not None and made.type == "generic_type":
                made = made.named_children[0] if made.named_children else None
            same = what is not None and _simple_type(what[2:]) == _simple_type(text(made))
            if made is not None and (what is None or same):
                # `var r = new T()`, `T r = new T()`: exactly a T (no override of a subclass)
                what = valued(text(made), construct=True)
        out[text(name)] = what


def _block(node: Node) -> Bindings:
    out: Bindings = {}
    for c in node.named_children:
        if c.type == "local_variable_declaration":
            _declarators(c, out)
    return out


def _fields(node: Node) -> Bindings:
    out: Bindings = {}
    for c in node.named_children:
        if c.type == "field_declaration":
            _declarators(c, out)
    return out


def _params(node: Node) -> Bindings:
    return {p.name: declared(p.type) for p in _parameters(node)}


def _lambda(node: Node) -> Bindings:
    params = node.child_by_field_name("parameters")
    if params is None:
        return {}
    if params.type == "identifier":
        return {text(params): None}
    if params.type == "formal_parameters":
        return {p.name: declared(p.type) for p in _parameters(node)}
    return {text(c): None for c in params.named_children if c.type == "identifier"}


def _catch(node: Node) -> Bindings:
    """`catch (IOException e)`: `e` of that type; a multi-catch's, of none we can name."""
    param = child_of_type(node, "catch_formal_parameter")
    if param is None:
        return {}
    name = param.child_by_field_name("name")
    types = child_of_type(param, "catch_type")
    kinds = types.named_children if types is not None else []
    what = declared(text(kinds[0])) if len(kinds) == 1 else None
    return {text(name): what} if name is not None else {}


def _for_each(node: Node) -> Bindings:
    name, type_node = node.child_by_field_name("name"), node.child_by_field_name("type")
    return {text(name): declared(text(type_node))} if name is not None else {}


# --- arguments: the types a reader sees, for choosing among overloads -------------------------

_LITERALS = {
    "string_literal": "String",
    "text_block": "String",
    "character_literal": "char",
    "true": "boolean",
    "false": "boolean",
    "null_literal": "null",
    "class_literal": "Class",
}
_INTEGERS = ("decimal_integer_literal", "hex_integer_literal", "octal_integer_literal")
_COMPARISONS = frozenset("== != < > <= >= && || instanceof".split())
# Methods of Object whose result type no override changes.
_OBJECT_METHODS = {
    "toString": "String",
    "getClass": "Class",
    "hashCode": "int",
    "equals": "boolean",
}
_CLASSES = ("class_declaration", "enum_declaration", "record_declaration", "interface_declaration")


def _simple_type(type_text: str | None) -> str:
    """``java.util.List<String>`` -> ``List``; ``final byte[]`` -> ``byte[]``; ``?`` when
    there is nothing to read."""
    if not type_text:
        return "?"
    t = re.sub(r"<.*>", "", " ".join(type_text.split()))
    t = re.sub(r"^(?:(?:final|@[\w.]+)\s+)+", "", t).replace(" ", "")
    dots = t.endswith("...")
    t = t.removesuffix("...").rsplit(".", 1)[-1] + ("..." if dots else "")
    return t if re.fullmatch(r"[\w$]+(?:\[\])*(?:\.\.\.)?", t) else "?"


_PRIMITIVE_NAMES = frozenset("int long short byte char boolean float double".split())
# `JsonToken.NULL`, `CloseReason.Codes.NORMAL`: capitalized names, then an ALL_CAPS one
_CONSTANT_PATH = re.compile(r"(?:[A-Z]\w*\.)+[A-Z][A-Z0-9_]*")


def _argument_type(node: Node, bound: Callable[[Node, str], str | None]) -> str:
    kind = node.type
    if kind in _LITERALS:
        return _LITERALS[kind]
    if kind in _INTEGERS or kind == "binary_integer_literal":
        return "long" if text(node)[-1:] in "lL" else "int"
    if kind == "decimal_floating_point_literal":
        return "float" if text(node)[-1:] in "fF" else "double"
    if kind == "identifier":
        what = bound(node, text(node))
        if what is not None and what.startswith(": "):
            return _simple_type(what[2:])
        if what is not None and what.startswith("= new "):
            return _simple_type(what[len("= new ") : -2])
        return "?"
    if kind in ("object_creation_expression", "cast_expression"):
        return _simple_type(field_text(node, "type"))
    if kind == "parenthesized_expression" and node.named_child_count == 1:
        return _argument_type(node.named_children[0], bound)
    if kind in ("lambda_expression", "method_reference"):
        return "lambda"  # a functional interface's instance
    if kind == "method_invocation":
        return _OBJECT_METHODS.get(text(node.child_by_field_name("name")), "?")
    if kind == "unary_expression":
        operand = node.child_by_field_name("operand")
        op = text(node.child_by_field_name("operator"))
        if op == "!":
            return "boolean"
        return _argument_type(operand, bound) if operand is not None and op in "+-" else "?"
    if kind == "this":
        up = node.parent
        while up is not None and up.type not in _CLASSES and up.type != "class_body":
            up = up.parent
        if up is not None and up.type == "class_body":
            up = up.parent  # the body of a class declaration, or of an anonymous class
        if up is None or up.type not in _CLASSES:
            return "?"
        return text(up.child_by_field_name("name")) or "?"
    if kind == "array_creation_expression":
        dims = sum(text(c).count("[") for c in node.children if c.type == "dimensions")
        dims += sum(1 for c in node.children if c.type == "dimensions_expr")
        return f"{_simple_type(field_text(node, 'type'))}{'[]' * max(dims, 1)}"
    if kind == "ternary_expression":
        sides = {
            _argument_type(c, bound)
            for c in (
                node.child_by_field_name("consequence"),
                node.child_by_field_name("alternative"),
            )
            if c is not None
        }
        if len(sides) == 2 and "null" in sides:
            # `x == null ? null : x.toString()`: a reference of the other side's type
            sides.discard("null")
            if next(iter(sides)) in _PRIMITIVE_NAMES:
                return "?"  # boxed
        return sides.pop() if len(sides) == 1 else "?"
    if kind == "field_access" and _CONSTANT_PATH.fullmatch(text(node)):
        # `JsonToken.NULL`, `Long.MIN_VALUE`: an enum's constant, a boxed type's (the resolver
        # checks the enum; a platform type's constant is of that type)
        return "enum:" + text(node)
    if kind == "binary_expression":
        op = node.child_by_field_name("operator")
        if op is not None and text(op) in _COMPARISONS:
            return "boolean"
        if op is not None and text(op) == "+":
            sides = [_argument_type(c, bound) for c in node.named_children]
            if "String" in sides:
                return "String"
    return "?"


def _arguments(node: Node, bound: Callable[[Node, str], str | None]) -> str | None:
    """``(String, ?)``: the arguments of the call whose name (or constructed type) is ``node``,
    each by the type a reader sees (a literal's, a local's declared type, a `new`, a cast) or
    ``?``."""
    call = node.parent
    if call is not None and call.type == "generic_type":
        call = call.parent
    if call is None or call.type not in (
        "method_invocation",
        "object_creation_expression",
        "explicit_constructor_invocation",
    ):
        return None
    args = call.child_by_field_name("arguments")
    if args is None:
        return None
    types = [_argument_type(a, bound) for a in args.named_children if "comment" not in a.type]
    return f"({', '.join(types)})"


_RECEIVERS = Receivers(
    scopes={
        "block": _block,
        "constructor_body": _block,
        "switch_block_statement_group": _block,
        "method_declaration": _params,
        "constructor_declaration": _params,
        "lambda_expression": _lambda,
        "enhanced_for_statement": _for_each,
        "catch_clause": _catch,
        "class_body": _fields,
        "enum_body_declarations": _fields,
    },
    member_scopes=frozenset({"class_body", "enum_body_declarations"}),
    arguments=_arguments,
)
SPEC = replace(SPEC, receivers=_RECEIVERS)

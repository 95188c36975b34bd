"""C#: namespaces as scopes, attributes as decorators, XML doc comments, ``using`` directives.

Constructors are named after their class, destructors ``~T``, operators ``operator +``, indexers
``this[]``. Properties with code are methods whose return type is the property's type. A plain
``using N;`` brings a namespace's names in scope: it is ``Import("N", "*")``, like ``using static``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

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
from codebot.languages.decl_text import annotation_texts, dotted, import_of, signature_end
from codebot.languages.receivers import Bindings, Receivers, declared, valued

_RENAMED = {
    "destructor_declaration": "~{}",
    "operator_declaration": "operator {}",
    "conversion_operator_declaration": "operator {}",
    "indexer_declaration": "this[]",
}


def _owner(node: Node, name: str) -> tuple[tuple[str, ...], str]:
    pattern = _RENAMED.get(node.type)
    return (), pattern.format(name) if pattern else name


def _parameters(node: Node) -> tuple[Parameter, ...]:
    params = node.child_by_field_name("parameters")
    if params is None:
        return ()
    out: list[Parameter] = []
    for p in params.named_children:
        if p.type != "parameter":
            continue
        mods = [text(c) for c in p.children if c.type == "modifier"]  # ref, out, in, this
        kind = field_text(p, "type")
        eq = next((c for c in p.children if c.type == "="), None)  # `int n = 1`: no field
        default = eq.next_named_sibling if eq is not None else None
        written = " ".join([*mods, kind]) if kind else None
        name = text(p.child_by_field_name("name"))
        out.append(Parameter(name, written, squash(text(default), 200) if default else None))
    if any(c.type == "params" for c in params.children):  # `params T[] xs`: fields of the list
        kind = field_text(params, "type")
        name = text(params.child_by_field_name("name"))
        out.append(Parameter(name, f"params {kind}" if kind else None))
    return tuple(out)


def _return_type(node: Node) -> str | None:
    return field_text(node, "returns", "type")  # constructors and destructors have neither


def _decorators(node: Node) -> tuple[str, ...]:
    out: list[str] = []
    for attrs in node.children:
        if attrs.type == "attribute_list":  # `[A, B(x)]`; a `return:` target is dropped
            out.extend(annotation_texts(attrs.named_children, ("attribute",)))
    return tuple(out)


def _bases(node: Node) -> tuple[str, ...]:
    bases = next((c for c in node.children if c.type == "base_list"), None)
    out: list[str] = []
    for b in bases.named_children if bases is not None else ():
        if b.type == "primary_constructor_base_type":  # `record R(int A) : Base(A)`
            b = b.child_by_field_name("type") or b
        if "comment" not in b.type:
            out.append(squash(text(b), 200))
    return tuple(out)


# XML documentation: keep the words. `<see cref="X"/>` -> X, `<param name="x">` -> `x: `,
# `<returns>` -> `Returns: `, other tags go, and so does a line that held nothing but tags.
_XML_TAG = re.compile(
    r"<(/?)(summary|remarks|returns|value|para|param|typeparam|exception|example|code|c|list|item|"
    r'description|term|inheritdoc|see|seealso|paramref|typeparamref)\b(?:\s+\w+="([^"]*)")?[^>]*?(/?)>'
)
_XML_REFS = ("see", "seealso", "paramref", "typeparamref")


def _xml_tag(m: re.Match) -> str:
    closing, tag, value, empty = m.groups()
    if closing or (value is None and tag != "returns"):
        return ""
    if tag in ("param", "typeparam"):
        return f"{value}: "
    if tag in ("returns", "exception"):
        return "Returns: " if tag == "returns" else f"Throws {value}: "
    return value if tag in _XML_REFS and empty else ""


def _docstring(node: Node) -> str | None:
    doc = leading_comment(node)
    if doc is None or "<" not in doc:
        return doc
    lines = [(line, _XML_TAG.sub(_xml_tag, line).strip()) for line in doc.splitlines()]
    return "\n".join(new for line, new in lines if new or not line.strip()).strip() or None


def _signature_end(node: Node) -> int:
    body = node.child_by_field_name("body") or node.child_by_field_name("accessors")
    value = node.child_by_field_name("value")  # `=> expr` of a property, indexer or method
    if body is None and value is not None and value.type == "arrow_expression_clause":
        body = value
    return signature_end(node, body)


def _imports(node: Node) -> list[Import]:
    # `using A.B;`, `global using A.B;`, `using static A.B.C;`, `using X = A.B.C;`
    alias = node.child_by_field_name("name")
    target = next(
        (c for c in reversed(node.named_children) if c != alias and "comment" not in c.type), None
    )
    if target is None:
        return []
    line = node.start_point[0] + 1
    if alias is not None:
        return [import_of(dotted(target), line, alias=text(alias))]
    return [import_of(dotted(target), line, wildcard=True)]


# --- receivers: local types ------------------------------------------------------------------


def _declarators(decl: Node | None, out: Bindings) -> None:
    """`T a = ..., b;`, `var x = new T(...)`, `var x = Make()`: each name and what it holds."""
    if decl is None:
        return
    type_ = decl.child_by_field_name("type")
    typed = declared(text(type_)) if type_ is not None and type_.type != "implicit_type" else None
    for d in decl.named_children:
        if d.type != "variable_declarator":
            continue
        name = d.child_by_field_name("name")
        if name is None or text(name) in out:
            continue
        what = typed
        value = d.named_children[-1] if d.named_child_count > 1 else None
        while (
            value is not None and value.type == "postfix_unary_expression" and value.named_children
        ):
            value = value.named_children[0]  # `Factory.CreateConnection()!`: the call's value
        if what is None and value is not None:
            if value.type == "object_creation_expression":
                type_text = text(value.child_by_field_name("type"))
                # `new List<int>()`: of that type, as if declared so
                what = valued(type_text, construct=True) or declared(type_text)
            elif value.type == "invocation_expression":
                what = valued(text(value.child_by_field_name("function")))
        out[text(name)] = what


def _block(node: Node) -> Bindings:
    out: Bindings = {}
    for c in node.named_children:
        if c.type == "local_declaration_statement":
            _declarators(
                next((d for d in c.named_children if d.type == "variable_declaration"), None), out
            )
    return out


def _using(node: Node) -> Bindings:
    """``using (var reader = cmd.ExecuteReader()) { .. }``: the names it declares."""
    out: Bindings = {}
    _declarators(
        next((d for d in node.named_children if d.type == "variable_declaration"), None), out
    )
    return out


def _members(node: Node) -> Bindings:
    out: Bindings = {}
    for c in node.named_children:
        if c.type == "field_declaration":
            _declarators(
                next((d for d in c.named_children if d.type == "variable_declaration"), None), out
            )
        elif c.type == "property_declaration":
            name = c.child_by_field_name("name")
            if name is not None:
                out.setdefault(text(name), declared(text(c.child_by_field_name("type"))))
    return out


def _params(node: Node) -> Bindings:
    out: Bindings = {}
    params = node.child_by_field_name("parameters")
    for p in params.named_children if params is not None else ():
        if p.type == "parameter":
            name = p.child_by_field_name("name")
            type_ = p.child_by_field_name("type")
            if name is not None:
                out.setdefault(text(name), declared(text(type_)) if type_ is not None else None)
        elif p.type == "identifier":  # a lambda's `x => ...`
            out.setdefault(text(p), None)
    if params is not None and params.type in ("identifier", "implicit_parameter"):
        out.setdefault(text(params), None)
    return out


def _foreach(node: Node) -> Bindings:
    left, type_ = node.child_by_field_name("left"), node.child_by_field_name("type")
    if left is None or left.type != "identifier":
        return {}
    typed = type_ is not None and type_.type != "implicit_type"
    return {text(left): declared(text(type_)) if typed else None}


# --- arguments: the types a reader sees, for choosing among overloads -------------------------

_LITERALS = {
    "string_literal": "string",
    "verbatim_string_literal": "string",
    "raw_string_literal": "string",
    "interpolated_string_expression": "string",
    "boolean_literal": "bool",
    "character_literal": "char",
    "null_literal": "null",
    "typeof_expression": "Type",
    "lambda_expression": "lambda",
    "anonymous_method_expression": "lambda",
}


def _argument_type(node: Node, bound) -> str:
    kind = node.type
    if kind == "lambda_expression":  # `(item, i) => ..`: of two parameters, `lambda`2`
        params = node.child_by_field_name("parameters")
        if params is not None and params.type == "implicit_parameter":
            return "lambda`1"
        if params is not None and params.type == "parameter_list":
            return f"lambda`{sum(1 for c in params.named_children if c.type == 'parameter')}"
        return "lambda"
    if kind in _LITERALS:
        return _LITERALS[kind]
    if kind == "integer_literal":
        t = text(node).lower()
        return "long" if t.endswith("l") else "?" if t.endswith("u") else "int"
    if kind == "real_literal":
        t = text(node)[-1:].lower()
        return {"f": "float", "m": "decimal"}.get(t, "double")
    if kind == "identifier":
        what = bound(node, text(node))
        if what is not None and what.startswith(": "):
            return _written_type(what[2:])
        if what is not None and what.startswith("= new ") and what.endswith("()"):
            return _written_type(what[6:-2])  # `var x = new T(..)`
        if what is not None and what.startswith("= ") and what[2:-2].isidentifier():
            # `var prop = _selector(..)`, `_selector` a `Func<.., PropertyInfo>`: what it returns
            func = bound(node, what[2:-2])
            if func is not None and func.startswith(": Func<") and func.endswith(">"):
                return _written_type(_type_arguments(func[7:-1])[-1])
        return "?"
    if kind in ("object_creation_expression", "cast_expression", "default_expression"):
        return _written_type(field_text(node, "type") or "")
    if kind == "array_creation_expression":
        t = _written_type((field_text(node, "type") or "").split("[", 1)[0])
        return f"{t}[]" if t != "?" else "?"
    if kind == "implicit_array_creation_expression":  # `new[] { tableType }`: its first item's
        init = next((c for c in node.named_children if c.type == "initializer_expression"), None)
        items = init.named_children if init is not None else []
        t = _argument_type(items[0], bound) if items else "?"
        return f"{t}[]" if t not in ("?", "null") and not t.startswith("lambda") else "?"
    if kind == "parenthesized_expression" and node.named_child_count == 1:
        return _argument_type(node.named_children[0], bound)
    if kind == "binary_expression" and field_text(node, "operator") == "+":
        # `"select cast(1 as " + dbType + ")"`: a string and anything make a string
        sides = (node.child_by_field_name("left"), node.child_by_field_name("right"))
        if any(n is not None and _argument_type(n, bound) == "string" for n in sides):
            return "string"
    if kind == "prefix_unary_expression" and node.named_child_count == 1 and text(node)[:1] in "-+":
        inner = _argument_type(node.named_children[0], bound)  # `-1`, `-1.5m`
        return inner if inner in ("int", "long", "float", "double", "decimal") else "?"
    if kind == "member_access_expression":  # `long.MaxValue`, `double.NaN`: of that type
        head, name = node.child_by_field_name("expression"), node.child_by_field_name("name")
        if head is not None and head.type == "predefined_type" and text(name) in _SAME_TYPE:
            return text(head)
        if head is not None and head.type == "identifier" and text(head)[:1].isupper():
            # `Formatting.Indented`: a type's static member, of that type if it is an enum
            # (the resolver knows): `~Formatting`
            return f"~{text(head)}" if text(name)[:1].isupper() else "?"
    return "?"


# Constants of a predefined type that have its type (`int.MaxValue`, `double.NaN`)
_SAME_TYPE = frozenset(
    "MaxValue MinValue Epsilon NaN PositiveInfinity NegativeInfinity Empty".split()
)


def _type_arguments(inner: str) -> list[str]:
    """``Type, Dictionary<string, int>, bool`` -> its three types."""
    out, depth, start = [], 0, 0
    for i, ch in enumerate(inner):
        if ch in "<([":
            depth += 1
        elif ch in ">)]":
            depth -= 1
        elif ch == "," and depth == 0:
            out.append(inner[start:i].strip())
            start = i + 1
    out.append(inner[start:].strip())
    return out


def _written_type(type_text: str) -> str:
    """``List<int>`` -> ``List``, ``Acme.Order`` -> ``Order``, ``int?`` -> ``int?`` (a nullable
    value is another type for overloads), anything else ``?``."""
    t = type_text.split("<", 1)[0].strip()
    if t in ("Func", "Action") and type_text.rstrip().endswith(">"):
        # a delegate's arity tells overloads apart (`Func<A, B, R>` is not `Func<A, R>`)
        return f"{t}`{len(_type_arguments(type_text.split('<', 1)[1].rstrip()[:-1]))}"
    if t.endswith("[]"):  # `(byte[])null`
        inner = _written_type(t[:-2])
        return f"{inner}[]" if inner != "?" else "?"
    nullable = t.endswith("?")
    t = t.rstrip("?").rsplit(".", 1)[-1]
    if not t.isidentifier():
        return "?"
    return f"{t}?" if nullable else t


def _arguments(node: Node, bound) -> str | None:
    """``(string, ?)``: the arguments of the call whose name is ``node``; a named argument
    (``name: value``) as ``named:name``; None for ``out``/``ref``/``in`` ones."""
    call = node.parent
    if call is not None and call.type == "constructor_initializer":
        # `: base(info, context)`, `: this(null, default)`: the constructor these arguments fit
        args = next((c for c in call.named_children if c.type == "argument_list"), None)
        return _argument_list(args, bound) if args is not None else None
    for _ in range(3):  # the callee, `a.Name`, `a?.Name`
        if call is None or call.type in ("invocation_expression", "object_creation_expression"):
            break
        call = call.parent
    if call is None or call.type not in ("invocation_expression", "object_creation_expression"):
        return None
    callee = call.child_by_field_name("function") or call.child_by_field_name("type")
    if callee is None or not (callee.start_byte <= node.start_byte < callee.end_byte):
        return None
    args = call.child_by_field_name("arguments")
    return _argument_list(args, bound) if args is not None else None


def _argument_list(args: Node, bound) -> str | None:
    types: list[str] = []
    for a in args.named_children:
        if a.type != "argument":
            continue
        if any(c.type in ("ref", "out", "in") for c in a.children):
            return None
        if any(c.type == ":" for c in a.children):
            name = a.child_by_field_name("name")
            types.append(f"named:{text(name)}" if name is not None else "named")
            continue
        value = a.named_children[-1] if a.named_children else None
        types.append(_argument_type(value, bound) if value is not None else "?")
    return f"({', '.join(types)})"


# --- chains: a call on a call's value --------------------------------------------------------

_CHAIN_MAX = 120


def _chain(node: Node | None) -> str | None:
    """``conn.Query<int>(sql, p).Single`` -> ``conn.Query<int>().Single``: a receiver made of
    names, calls and ``new T(..)`` as the resolver follows it (arguments dropped), or None."""
    if node is None:
        return None
    kind = node.type
    if kind == "generic_name":
        return _generic_name(node)
    if kind in ("identifier", "predefined_type", "this", "base"):
        return squash(text(node), _CHAIN_MAX)
    if kind == "member_access_expression":
        head = _chain(node.child_by_field_name("expression"))
        name = _chain(node.child_by_field_name("name"))
        return f"{head}.{name}" if head and name else None
    if kind == "invocation_expression":
        callee = _chain(node.child_by_field_name("function"))
        return f"{callee}()" if callee else None
    if kind == "object_creation_expression":
        type_ = node.child_by_field_name("type")
        if type_ is None or type_.type not in ("identifier", "generic_name", "qualified_name"):
            return None
        return f"new {squash(text(type_), _CHAIN_MAX)}()"
    return None


def _generic_name(node: Node) -> str:
    """``Query<int>`` as written; a long one (a 15-tuple type argument) as ``Query<_>``: its
    type arguments counted, for choosing among generic overloads."""
    written = text(node)
    if len(written) <= 60:
        return written
    args = next((c for c in node.named_children if c.type == "type_argument_list"), None)
    n = len(args.named_children) if args is not None else 0
    name = node.named_children[0] if node.named_children else node
    return f"{text(name)}<{', '.join('_' for _ in range(n))}>"


@dataclass(frozen=True)
class _Receivers(Receivers):
    """C#'s receivers, and chains: a method called on a call's value is recorded with the
    calls before it (``conn.Query<int>().Single``), arguments dropped, for the resolver to follow
    the declared return types; on any other expression (``(a as B).M``, ``a?.B()?.M``) as
    ``(?).M``: not a method of ``this``."""

    def annotate(self, node: Node, text: str, cache: dict) -> str:
        parent = node.parent
        if parent is not None and parent.type == "member_binding_expression":
            text = f"(?).{text}"
        elif parent is not None and parent.type == "member_access_expression":
            name = parent.child_by_field_name("name")
            if name is not None and name.start_byte == node.start_byte:
                chain = _chain(parent)
                if chain is None or len(chain) > _CHAIN_MAX:
                    chain = f"(?).{_generic_name(node) if node.type == 'generic_name' else text}"
                text = chain
        return super().annotate(node, text, cache)


_RECEIVERS = _Receivers(
    scopes={
        "block": _block,
        "method_declaration": _params,
        "constructor_declaration": _params,
        "local_function_statement": _params,
        "lambda_expression": _params,
        "foreach_statement": _foreach,
        "using_statement": _using,
        "declaration_list": _members,
    },
    member_scopes=frozenset({"declaration_list"}),
    arguments=_arguments,
)

_CONDITIONAL = re.compile(rb"^[ \t]*#[ \t]*(?:if|elif|else|endif)\b[^\r\n]*", re.MULTILINE)


def _blank_conditionals(data: bytes) -> bytes:
    """The file with its `#if`/`#elif`/`#else`/`#endif` lines blanked (spaces of their length:
    every offset and line stays the file's), the code of every branch kept. tree-sitter-c-sharp
    cannot parse a directive inside an enum's members or a type's modifiers (newtonsoft-json's
    JsonTextReader.cs: `#if HAVE_DATE_TIME_OFFSET` among ReadType's members), and the rest of
    the file was misread: JsonTextReader's methods became functions outside the class."""
    if b"#" not in data:
        return data
    return _CONDITIONAL.sub(lambda m: b" " * len(m[0]), data)


SPEC = LanguageSpec(
    name="csharp",
    grammar="csharp",
    query_path=query_file(__file__, "csharp"),
    owner=_owner,
    parameters=_parameters,
    return_type=_return_type,
    docstring=_docstring,
    decorators=_decorators,
    bases=_bases,
    imports=_imports,
    signature_end=_signature_end,
    receivers=_RECEIVERS,
    preprocess=_blank_conditionals,
)

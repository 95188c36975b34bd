"""Kotlin: KDoc, annotations, supertypes, ``import a.B as C``, and extension functions.

An extension function ``fun String.shout()`` is a method of its receiver type: its id is
``<scope>.String.shout`` and its class_name ``String`` (type arguments, nullability and package
dropped: ``fun <T> List<T>?.second()`` belongs to ``List``), so it sits next to the type's own
methods for search and call resolution. Objects and companion objects are classes (an unnamed
companion is ``Companion``, as in Kotlin); secondary constructors are named ``constructor``.
"""

from __future__ import annotations

import re

from tree_sitter import Node

from codebot.core.model import Import, Parameter
from codebot.languages.base import (
    LanguageSpec,
    clean_comment,
    leading_comment,
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
    simple_type_name,
)
from codebot.languages.receivers import Bindings, Receivers, declared, valued


def _owner(node: Node, name: str) -> tuple[tuple[str, ...], str]:
    if node.type == "companion_object":
        own = child_of_type(node, "type_identifier")
        return (), text(own) if own is not None else "Companion"
    receiver = node.child_by_field_name("receiver")
    if receiver is not None:
        return (simple_type_name(text(receiver)),), name
    return (), name


def _parameters(node: Node) -> tuple[Parameter, ...]:
    # Defaults and `vararg` are siblings of the parameter: `(vararg xs: T, n: Int = 1)`.
    params = child_of_type(node, "function_value_parameters")
    out: list[Parameter] = []
    vararg = default_next = False
    for c in params.children if params is not None else ():
        if c.type == "parameter_modifiers":
            vararg = "vararg" in text(c).split()
        elif c.type == "parameter":
            written = squash(text(c.named_children[-1]), 200) if c.named_child_count > 1 else None
            if vararg and written:
                written = f"vararg {written}"
            out.append(Parameter(text(child_of_type(c, "simple_identifier")), written))
            vararg = False
        elif c.type == "=":
            default_next = True
        elif default_next and c.is_named and out:
            out[-1] = Parameter(out[-1].name, out[-1].type, squash(text(c), 200))
            default_next = False
    return tuple(out)


def _return_type(node: Node) -> str | None:
    # `fun f(...): T`. A constructor's `constructor(...) : this(...)` is a delegation.
    params = child_of_type(node, "function_value_parameters")
    colon = params.next_sibling if params is not None else None
    if node.type != "function_declaration" or colon is None or colon.type != ":":
        return None
    return squash(text(colon.next_named_sibling), 200) or None


def _docstring(node: Node) -> str | None:
    doc = leading_comment(node)
    prev = node.prev_sibling
    if doc is not None or prev is None or prev.child_count == 0:
        return doc
    # The grammar lets a comment after the imports end the last import rather than precede this.
    last = prev.children[-1]
    while "comment" not in last.type and last.child_count and last.type.startswith("import"):
        last = last.children[-1]
    if "comment" in last.type and last.end_point[0] >= node.start_point[0] - 1:
        before = leading_comment(last)
        return clean_comment(f"{before}\n{text(last)}" if before else text(last)) or None
    return None


def _decorators(node: Node) -> tuple[str, ...]:
    modifiers = child_of_type(node, "modifiers")
    return annotation_texts(modifiers.children, ("annotation",)) if modifiers is not None else ()


def _bases(node: Node) -> tuple[str, ...]:
    out: list[str] = []
    for spec in node.children:
        if spec.type == "delegation_specifier" and spec.named_child_count:
            base = spec.named_children[0]  # user_type, constructor_invocation, explicit_delegation
            if base.type in ("constructor_invocation", "explicit_delegation"):
                base = base.named_children[0]
            out.append(squash(text(base), 200))
    return tuple(out)


def _signature_end(node: Node) -> int:
    body = child_of_type(node, "function_body", "class_body", "enum_class_body", "block")
    if body is None and node.type in ("secondary_constructor", "class_declaration"):
        # `constructor(...) : this(...)`, `class Ctx(\n val call: Call\n)`: all signature
        return node.end_byte
    first = node.child(0) if node.child_count else None
    if body is None and first is not None and first.type == "modifiers":
        # `@Deprecated(...)\npublic typealias BytePacketBuilder = Sink`: the declaration's
        # line, not only the annotations' above it
        nl = node.text.find(b"\n", first.end_byte - node.start_byte)
        return node.end_byte if nl < 0 else node.start_byte + nl
    return signature_end(node, body)


def _imports(node: Node) -> list[Import]:
    # `import a.b.C`, `import a.b.C as D`, `import a.b.*`
    name = child_of_type(node, "identifier")
    if name is None:
        return []
    alias = child_of_type(
        child_of_type(node, "import_alias"), "type_identifier", "simple_identifier"
    )
    wildcard = child_of_type(node, "wildcard_import") is not None
    return [import_of(dotted(name), node.start_point[0] + 1, text(alias) or None, wildcard)]


# --- receivers: local types ------------------------------------------------------------------

_TYPES = ("user_type", "nullable_type")


def _variable(decl: Node | None, value: Node | None, out: Bindings) -> None:
    """`val x: T = ...` (the declared type), `val x = T()` / `= a.b.make()` (what the call
    makes); a destructuring `val (a, b) = ...` binds its names to nothing known."""
    if decl is None:
        return
    if decl.type == "multi_variable_declaration":
        for d in decl.named_children:
            _variable(d, None, out)
        return
    name = child_of_type(decl, "simple_identifier")
    if name is None or text(name) in out:
        return
    type_ = child_of_type(decl, *_TYPES)
    what = declared(text(type_)) if type_ is not None else None
    if what is None and value is not None and value.type in _LITERALS:
        literal = _LITERALS[value.type]
        what = f": {literal}" if literal not in ("?", "lambda", "null") else None
    if what is None and value is not None and value.type == "call_expression":
        callee = value.named_children[0] if value.named_children else None
        if callee is not None and callee.type in ("simple_identifier", "navigation_expression"):
            what = valued(text(callee))
    out[text(name)] = what


def _property(node: Node, out: Bindings) -> None:
    decl = child_of_type(node, "variable_declaration", "multi_variable_declaration")
    value = node.named_children[-1] if node.named_children else None
    _variable(decl, value if value is not decl else None, out)


def _statements(node: Node) -> Bindings:
    out: Bindings = {}
    for c in node.named_children:
        if c.type == "property_declaration":
            _property(c, out)
    return out


def _class(node: Node) -> Bindings:
    """A primary constructor's `val`/`var` parameters: the class's fields."""
    out: Bindings = {}
    ctor = child_of_type(node, "primary_constructor")
    for p in ctor.named_children if ctor is not None else ():
        if p.type == "class_parameter" and child_of_type(p, "binding_pattern_kind") is not None:
            _variable(p, None, out)
    return out


def _function(node: Node) -> Bindings:
    out: Bindings = {}
    params = child_of_type(node, "function_value_parameters")
    for p in params.named_children if params is not None else ():
        if p.type == "parameter":
            _variable(p, None, out)
    return out


def _lambda(node: Node) -> Bindings:
    """A lambda's parameters: declared types; an untyped one (``{ client -> }``, ``it``) is
    ``#i``, the i-th parameter of the function type the callee takes (``test { client -> }``
    with ``test(block: suspend (client: HttpClient) -> Unit)``)."""
    out: Bindings = {}
    params = child_of_type(node, "lambda_parameters")
    for i, p in enumerate(params.named_children if params is not None else ()):
        _variable(p, None, out)
        name = child_of_type(p, "simple_identifier") if p.type == "variable_declaration" else None
        if name is not None and out.get(text(name)) is None:
            out[text(name)] = f"#{i}"
    if params is None:
        out["it"] = _it(node) or "#0"
    return out


def _lambda_owner(lam: Node) -> tuple[Node, str] | None:
    """The callee of the call a lambda is the last argument of, as the call is recorded."""
    call = _owner_call(lam)
    callee = call.named_children[0] if call is not None and call.named_children else None
    return _recorded_callee(callee) if callee is not None else None


def _it(lam: Node) -> str | None:
    """`x.let { it.f() }`, `T().also { it.f() }`: `it` is the receiver (``@x``: what `x` is
    bound to around the call; ``= T()``: what the call makes)."""
    call = _owner_call(lam)
    callee = call.named_children[0] if call is not None else None
    if callee is None or callee.type != "navigation_expression":
        return None
    name = child_of_type(callee.named_children[-1], "simple_identifier")
    if name is None or text(name) not in _IT_SCOPE:
        return None
    recv = callee.named_children[0]
    if recv.type == "simple_identifier":
        return f"@{text(recv)}"
    return _made(recv)


def _made(node: Node) -> str | None:
    """``= T()``: the value a call of a path of names makes (`Foo(1)`, `a.b.make()`)."""
    if node.type != "call_expression" or not node.named_children:
        return None
    callee = node.named_children[0]
    if callee.type not in ("simple_identifier", "navigation_expression"):
        return None
    return valued(text(callee))


def _loop(node: Node) -> Bindings:
    out: Bindings = {}
    _variable(child_of_type(node, "variable_declaration", "multi_variable_declaration"), None, out)
    return out


# --- implicit receivers: lambdas with receivers -----------------------------------------------

# Standard functions whose lambda keeps the `this` around it (`x.let { }`, `xs.forEach { }`).
_TRANSPARENT = frozenset(
    """let also takeIf takeUnless forEach forEachIndexed map mapNotNull mapIndexed filter
    filterNot flatMap any all none first firstOrNull last lastOrNull count sumOf sortedBy
    sortedByDescending groupBy associate associateBy associateWith onEach fold repeat
    synchronized lazy use getOrElse getOrPut ifEmpty require check requireNotNull
    checkNotNull assertFailsWith assertFails""".split()
)
_THIS_SCOPE = frozenset({"apply", "run"})  # `x.apply { }`: `this` is `x`; so is `with(x) { }`
_IT_SCOPE = frozenset({"let", "also", "takeIf", "takeUnless"})  # `x.let { }`: `it` is `x`
# Where a lambda's receiver no longer reaches: a function's or a class's own body.
_BOUNDARIES = frozenset(
    {
        "function_declaration",
        "secondary_constructor",
        "anonymous_function",
        "class_body",
        "object_literal",
        "getter",
        "setter",
        "anonymous_initializer",
        "source_file",
    }
)
_PATH = re.compile(r"[A-Za-z_][\w]*(?:(?:\.|\?\.)[A-Za-z_][\w]*)*")
UNKNOWN_RECEIVER = "{?}"


def _owner_call(lam: Node) -> Node | None:
    """The call a lambda is the last argument of: trailing, or last within the parentheses."""
    p = lam.parent
    if p is None:
        return None
    if p.type == "annotated_lambda":
        suffix = p.parent
    elif p.type == "value_argument" and not any(c.type == "=" for c in p.children):
        args = p.parent
        if args is None or args.type != "value_arguments" or args.named_children[-1] != p:
            return None
        suffix = args.parent
        if suffix is None or child_of_type(suffix, "annotated_lambda") is not None:
            return None
    else:
        return None
    call = suffix.parent if suffix is not None and suffix.type == "call_suffix" else None
    return call if call is not None and call.type == "call_expression" else None


def _implicit(node: Node, annotate, bound, cache: dict) -> str | None:
    """``{receiver}``, written before a call without a receiver inside a lambda with one:
    ``{routing/(trailing)}`` (the receiver of the lambda the call `routing { }` takes, which
    the resolver reads off the callee's last parameter, ``Routing.() -> Unit``), ``{: T}`` /
    ``{= T()}`` (`x.apply { }`, `with(x) { }`: what `x` is), ``{?}`` (a receiver the parser
    cannot name). A receiver's own text carries the one around it. None: no lambda around."""
    scope = node.parent
    while scope is not None and scope.type not in _BOUNDARIES:
        if scope.type == "lambda_literal":
            key = (scope.start_byte, scope.end_byte, "implicit")
            if key not in cache:
                cache[key] = None  # an odd tree must not loop
                found = _lambda_receiver(scope, annotate, bound, cache)
                cache[key] = found if found != "" else _implicit(scope, annotate, bound, cache)
            return cache[key]
        scope = scope.parent
    return None


def _lambda_receiver(lam: Node, annotate, bound, cache: dict) -> str | None:
    """A lambda's receiver; "" where the lambda keeps the one around it."""
    call = _owner_call(lam)
    if call is None:
        return ""
    callee = call.named_children[0]
    if callee.type == "simple_identifier":
        name = text(callee)
        if name == "with":
            args = child_of_type(child_of_type(call, "call_suffix"), "value_arguments")
            first = args.named_children[0] if args is not None and args.named_children else None
            value = first.named_children[-1] if first is not None and first.named_children else None
            return _this_of(call, value, annotate, bound, cache)
        if name in _TRANSPARENT or name in _THIS_SCOPE:
            return ""  # `run { }`, `apply { }` on the `this` around
        return "{" + annotate(callee, name) + "}"
    if callee.type != "navigation_expression" or callee.named_child_count < 2:
        return UNKNOWN_RECEIVER
    name = child_of_type(callee.named_children[-1], "simple_identifier")
    if name is None:
        return UNKNOWN_RECEIVER
    if text(name) in _TRANSPARENT:
        return ""
    if text(name) in _THIS_SCOPE:
        return _this_of(call, callee.named_children[0], annotate, bound, cache)
    whole = text(callee)
    return "{" + annotate(callee, whole) + "}" if _PATH.fullmatch(whole) else UNKNOWN_RECEIVER


def _this_of(call: Node, value: Node | None, annotate, bound, cache: dict) -> str:
    """`x.apply { }`, `with(x) { }`: the lambda's `this` is `x` (its declared type or what it
    was assigned, after the receivers around the call); `this.apply { }` keeps the one around."""
    if value is None:
        return UNKNOWN_RECEIVER
    if value.type == "this_expression":
        return ""
    what = bound(value, text(value)) if value.type == "simple_identifier" else _made(value)
    if what is None:
        return UNKNOWN_RECEIVER
    outer = _implicit(call, annotate, bound, cache) or ""
    return "{" + outer + what + "}"


# --- arguments: the types a reader sees, for choosing among overloads -------------------------

_LITERALS = {
    "string_literal": "String",
    "line_string_literal": "String",
    "multi_line_string_literal": "String",
    "character_literal": "Char",
    "boolean_literal": "Boolean",
    "null_literal": "null",
    "long_literal": "Long",
    "integer_literal": "Int",
    "hex_literal": "Int",
    "bin_literal": "Int",
    "unsigned_literal": "?",
    "lambda_literal": "lambda",
    "anonymous_function": "lambda",
    "callable_reference": "lambda",
}
# Calls whose result type no definition changes.
_CONVERSIONS = {
    "toString": "String",
    "toByteArray": "ByteArray",
    "toInt": "Int",
    "toLong": "Long",
    "toDouble": "Double",
    "toShort": "Short",
    "toFloat": "Float",
    # the standard library's text and bytes (`"a".repeat(10)`, `lines.joinToString()`)
    "joinToString": "String",
    "trimIndent": "String",
    "trimMargin": "String",
    "repeat": "String",
    "lowercase": "String",
    "uppercase": "String",
    "encodeToString": "String",
    "encodeToByteArray": "ByteArray",
    "readByteArray": "ByteArray",
    "byteArrayOf": "ByteArray",
    # the standard library's collection builders
    "arrayOf": "Array",
    "listOf": "List",
    "mutableListOf": "MutableList",
    "setOf": "Set",
    "mutableSetOf": "MutableSet",
    "mapOf": "Map",
    "mutableMapOf": "MutableMap",
}


_BUILDERS = frozenset(
    {"arrayOf", "listOf", "mutableListOf", "setOf", "mutableSetOf", "mapOf", "mutableMapOf"}
    | {"byteArrayOf"}
)


# A name no scope binds, written as a type's name (not a constant's ALL_CAPS): an object.
_OBJECT = re.compile(r"[A-Z][A-Z0-9]?[a-z]\w*")
_CONSTANT = re.compile(r"[A-Z][A-Z0-9_]*")
# `CloseReason.Codes.NORMAL`, `HttpStatusCode.OK`, `ContentType.Application.Json`: a member of a
# type (an enum's entry, an object's or a companion's property)
_CONSTANT_PATH = re.compile(r"(?:[A-Z]\w*\.)+[A-Z]\w*")


def _type_of(what: str | None) -> str:
    """A binding (`: T`, `= T()`) as an argument's type: the simple name, `?` when unknown."""
    if what is None:
        return "?"
    if what.startswith(": "):
        t = what[2:].split("<", 1)[0].strip().rstrip("?").rsplit(".", 1)[-1]
    else:  # `= T()`: a constructor call when the callee's name is capitalized
        t = what[2:].removesuffix("()").rsplit(".", 1)[-1]
        if not t[:1].isupper():
            return "?"
    return t if t.isidentifier() else "?"


def _argument_type(node: Node, bound) -> str:
    kind = node.type
    if kind == "callable_reference" and text(node).endswith("::class"):
        return "KClass"  # `Foo::class`: no function reference
    if kind == "navigation_expression" and text(node).endswith("::class.java"):
        return "Class"  # `Foo::class.java`
    if kind == "as_expression" and node.named_child_count == 2:
        cast = node.named_children[1]  # `x as Foo`: a Foo
        name = text(cast).split("<", 1)[0].rstrip("?").rsplit(".", 1)[-1]
        return name if name.isidentifier() and name[:1].isupper() else "?"
    if kind == "postfix_expression" and text(node).endswith("!!") and node.named_children:
        return _argument_type(node.named_children[0], bound)  # `x!!`: what `x` is
    if kind in ("elvis_expression", "if_expression"):
        # `x ?: "a"`, `if (c) "a" else "b"`: the sides' type when both are known and agree
        sides = [
            c
            for c in node.named_children
            if c.type != "simple_identifier" or kind == "elvis_expression"
        ]
        if kind == "if_expression":
            sides = [
                c.named_children[-1]
                for c in node.named_children
                if c.type == "control_structure_body" and c.named_children
            ]
        types = {_argument_type(c, bound) for c in sides}
        types.discard("null")
        one = types.pop() if len(types) == 1 else "?"
        return one if len(sides) == 2 and one[:1].isupper() and ":" not in one else "?"
    if kind in _LITERALS:
        return _LITERALS[kind]
    if kind == "real_literal":
        return "Float" if text(node)[-1:] in "fF" else "Double"
    if kind == "simple_identifier":
        name = text(node)
        what = bound(node, name)
        if what is None and _OBJECT.fullmatch(name):
            # `install(HttpTimeout)`: an object (a plugin), by its name (the resolver looks it
            # up: a repository object is an instance of its type)
            return f"object:{name}"
        if what is None and _CONSTANT.fullmatch(name):
            return f"value:{name}"  # `install(SSE)`: a top-level value the resolver may know
        binds = getattr(bound, "binds", None)
        if what is None and name[:1].islower() and binds is not None and not binds(node, name):
            return f"value:{name}"  # no scope binds it: a property (the class's, top-level)
        return _type_of(what)
    if kind == "call_expression" and node.named_children:
        callee = node.named_children[0]
        if callee.type == "simple_identifier" and text(callee) in _BUILDERS:
            return _CONVERSIONS[text(callee)]
        if callee.type == "simple_identifier" and text(callee)[:1].isupper():
            return text(callee)  # `ChannelProvider { }`, `ByteArray(n)`: a constructor call
        if callee.type == "navigation_expression" and callee.named_children:
            suffix = callee.named_children[-1]
            name = child_of_type(suffix, "simple_identifier")
            if name is not None and text(name) in _CONVERSIONS:
                return _CONVERSIONS[text(name)]
            if name is not None and _OBJECT.fullmatch(text(name)) and _PATH.fullmatch(text(callee)):
                return text(callee)  # `Path.Child(...)`: a nested class's constructor
    if kind == "additive_expression" and any(
        c.type in ("string_literal", "line_string_literal", "multi_line_string_literal")
        for c in node.named_children
    ):
        return "String"  # `"/login?" + params`: a string concatenation
    if kind == "navigation_expression" and _CONSTANT_PATH.fullmatch(text(node)):
        # `CloseReason.Codes.NORMAL`, `Long.MAX_VALUE`: an enum's entry, a number type's
        # constant (the resolver checks the enum)
        return "enum:" + text(node)
    if kind == "prefix_expression" and node.named_children:
        return _argument_type(node.named_children[-1], bound)
    if kind == "parenthesized_expression" and node.named_child_count == 1:
        return _argument_type(node.named_children[0], bound)
    return "?"


def _arguments(node: Node, bound) -> str | None:
    """``(String, lambda)``: the arguments of the call whose callee is ``node``, a trailing
    lambda last (``trailing``), a named one as ``named:<its name>``, after the type arguments
    written (``<User>/(trailing)``); None when one is spread (the resolver
    then does not choose)."""
    call = node.parent
    for _ in range(3):  # the callee, or the name inside `a.b().name`
        if call is None or call.type == "call_expression":
            break
        call = call.parent
    if call is None or call.type != "call_expression":
        return None
    suffix = child_of_type(call, "call_suffix")
    if suffix is None or call.named_children[0].end_byte > node.end_byte:
        return None
    types: list[str] = []
    args = child_of_type(suffix, "value_arguments")
    for a in args.named_children if args is not None else ():
        if a.type != "value_argument":
            continue
        if any(c.type == "*" for c in a.children):
            return None  # `f(*xs)`: any number
        if any(c.type == "=" for c in a.children):
            # `f(name = x)`: counted, matched by its name, not by position
            label = child_of_type(a, "simple_identifier")
            value = a.named_children[-1] if a.named_child_count > 1 else None
            known = _argument_type(value, bound) if value is not None else "?"
            typed = f"={known}" if known not in ("?", "trailing") else ""  # `status = OK`
            types.append(f"named:{text(label)}{typed}" if label is not None else "named")
            continue
        value = a.named_children[-1] if a.named_children else None
        types.append(_argument_type(value, bound) if value is not None else "?")
    if child_of_type(suffix, "annotated_lambda") is not None:
        types.append("trailing")
    generic = child_of_type(suffix, "type_arguments")
    written = f"{squash(text(generic), 80)}/" if generic is not None else ""
    return f"{written}({', '.join(types)})"


_CALLEE = re.compile(r"[A-Za-z0-9_.?!@`<> ]+")  # a callee the query records as written


def _receiver_call(name: Node) -> tuple[Node, str] | None:
    """``client.get(url).body()``: for the name ``body``, the callee ``client.get`` of the call
    whose value it is called on (or, for ``a.b().c().d()``, the name ``c`` of that call)."""
    suffix = name.parent
    nav = suffix.parent if suffix is not None else None
    if nav is None or nav.type != "navigation_expression" or not nav.named_children:
        return None
    recv = nav.named_children[0]
    if recv.type != "call_expression" or not recv.named_children:
        return None
    return _recorded_callee(recv.named_children[0])


def _recorded_callee(callee: Node) -> tuple[Node, str] | None:
    """A call's callee as the call is recorded: the name written (``get``, ``client.get``), or
    the last name of a longer navigation; None for any other callee."""
    if callee.type in ("simple_identifier", "navigation_expression"):
        written = text(callee)
        if _CALLEE.fullmatch(written):
            return callee, written
    if callee.type == "navigation_expression" and callee.named_children:
        last = callee.named_children[-1]
        inner = (
            child_of_type(last, "simple_identifier") if last.type == "navigation_suffix" else None
        )
        if inner is not None:
            return inner, text(inner)
    return None


_RECEIVERS = Receivers(
    scopes={
        "statements": _statements,
        "class_body": _statements,
        "source_file": _statements,
        "class_declaration": _class,
        "function_declaration": _function,
        "secondary_constructor": _function,
        "anonymous_function": _function,
        "lambda_literal": _lambda,
        "for_statement": _loop,
    },
    member_scopes=frozenset({"class_body", "class_declaration"}),
    arguments=_arguments,
    on_expression=frozenset({"navigation_suffix"}),
    receiver_call=_receiver_call,
    lambda_owner=_lambda_owner,
    implicit=_implicit,
)

SPEC = LanguageSpec(
    name="kotlin",
    grammar="kotlin",
    query_path=query_file(__file__, "kotlin"),
    owner=_owner,
    parameters=_parameters,
    return_type=_return_type,
    docstring=_docstring,
    decorators=_decorators,
    bases=_bases,
    imports=_imports,
    signature_end=_signature_end,
    receivers=_RECEIVERS,
)

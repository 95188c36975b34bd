"""Swift: classes, structs, enums, actors (classes), protocols (interfaces), extensions as scopes.

- A function in ``extension Foo: P`` is a method of ``Foo``; an extension is a scope, not a
  symbol, so its conformances (``P``) are the ``bases`` of each of its functions, and the
  resolver adds them to ``Foo``'s (an extension without functions records none).
- an enum's cases are constants of the enum (``case redirect(count: Int)``: the first name of a
  ``case`` line).
- ``init``, ``deinit`` and ``subscript`` are methods under those names; operators keep theirs.
- parameters are named as declared: ``with id`` for an argument label and an internal name,
  ``_ value`` for an unlabeled one, ``id`` when they are one; the type is written with its
  modifiers (``inout T``, ``@escaping () -> Void``, ``Int...``).
- decorators: the attributes, without ``@`` (``MainActor``, ``objc(loadWithID:)``).
- ``import struct Swift.Array`` is ``Import("Swift", "Array")``; ``import Foundation`` is
  ``Import("Foundation")``.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from tree_sitter import Node

from codebot.core.model import Import, Parameter
from codebot.languages.base import LanguageSpec, default_signature_end, query_file, squash, text
from codebot.languages.receivers import Bindings, Receivers, declared, valued

__all__ = ["SPEC", "plain_type"]


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
        elif child.type == "ERROR" and text(child).startswith("=") and out:
            # `= #_sourceLocation`: a macro default the grammar does not know, in an ERROR node
            out[-1] = Parameter(out[-1].name, out[-1].type, squash(text(child)[1:], 200) or "?")
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


def _scope_bases(node: Node) -> tuple[str, ...]:
    """The conformances of the extension a function is declared in (``extension Application:
    RoutesBuilder { func add(..) }`` -> ``("RoutesBuilder",)``): the extension is a scope, not a
    symbol, so its functions carry them for the resolver to add to the extended type."""
    body = node.parent
    ext = body.parent if body is not None and body.type == "class_body" else None
    if ext is None or ext.type != "class_declaration":
        return ()
    kind = ext.child_by_field_name("declaration_kind")
    return _bases(ext) if kind is not None and kind.type == "extension" else ()


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


# --- receivers: local types ------------------------------------------------------------------


def plain_type(written: str) -> str:
    """The type a value declared so has, as a name: ``(any EventMonitor)?`` -> ``EventMonitor``,
    ``some Publisher`` -> ``Publisher``, ``inout Foo!`` -> ``Foo``; anything else as written."""
    t = " ".join(written.split())
    for _ in range(3):
        t = t.rstrip("?!").strip()
        if t[:1] == "(" and t[-1:] == ")" and "," not in t and "->" not in t:
            t = t[1:-1].strip()
        for word in ("inout ", "any ", "some ", "borrowing ", "consuming "):
            if t.startswith(word):
                t = t[len(word) :].strip()
    return t


def _binding(node: Node) -> tuple[str | None, str | None]:
    """``let x: T = ...`` -> (x, ": T"); ``var x = T(...)``/``= make()`` -> (x, "= T()");
    another pattern or value -> (name or None, None)."""
    pattern = node.child_by_field_name("name")
    ids = [c for c in pattern.named_children] if pattern is not None else []
    if len(ids) != 1 or ids[0].type != "simple_identifier":
        return None, None  # `let (a, b) = ...`
    name = text(ids[0])
    annotation = next((c for c in node.named_children if c.type == "type_annotation"), None)
    if annotation is not None:
        type_ = annotation.child_by_field_name("name")
        return name, declared(plain_type(text(type_))) if type_ is not None else None
    value = node.child_by_field_name("value")
    literal = _LITERALS.get(value.type) if value is not None else None
    if literal is not None:
        return name, f": {literal}"  # `let url = "https://.."`: a String
    if value is not None and value.type == "call_expression" and value.named_children:
        callee = value.named_children[0]
        if callee.type in ("simple_identifier", "navigation_expression"):
            return name, valued(text(callee))
    return name, None


def _statements(node: Node) -> Bindings:
    out: Bindings = {}
    for c in node.named_children:
        if c.type == "property_declaration":
            name, what = _binding(c)
            if name is not None:
                out.setdefault(name, what)
    return out


def _function(node: Node) -> Bindings:
    out: Bindings = {}
    for p in node.named_children:
        if p.type == "parameter":
            names: list[str] = []
            type_ = None
            for c in p.named_children:
                if c.type == "simple_identifier" and type_ is None:
                    names.append(text(c))  # the argument label, then the parameter's name
                elif names:
                    type_ = type_ or c
            if names:
                what = declared(plain_type(text(type_))) if type_ is not None else None
                if what is not None and text(p).rstrip().endswith("..."):
                    what = f": [{what[2:]}]"  # `_ middleware: any Middleware...`: an array inside
                out.setdefault(names[-1], what)
    return out


def _closure(node: Node) -> Bindings:
    """A closure's parameters: an untyped one (``{ req in }``, ``$0``) is ``#i``, the i-th
    parameter of the function type the callee gives the trailing closure (``app.get("x") { req
    in }`` with ``use closure: @escaping (Request) async throws -> Response``)."""
    out: Bindings = {}
    kind = next((c for c in node.named_children if c.type == "lambda_function_type"), None)
    params = kind.named_children[0] if kind is not None and kind.named_children else None
    i = 0
    for p in params.named_children if params is not None else ():
        if p.type == "lambda_parameter":
            name = p.child_by_field_name("name")
            type_ = p.child_by_field_name("type")
            if name is not None:
                what = declared(plain_type(text(type_))) if type_ is not None else f"#{i}"
                out.setdefault(text(name), what)
            i += 1
    if params is None and kind is None:
        for n in range(3):  # `{ $0.x }`: the anonymous parameters
            out[f"${n}"] = f"#{n}"
    return out


_CALLEE_PATH = re.compile(r"[.A-Za-z0-9_$?!<>, ]+")


def _lambda_owner(lam: Node) -> tuple[Node, str] | None:
    """The callee of the call a closure is the trailing closure of, as the call is recorded
    (the path written, or the member name of a call on an expression's value); None for a
    closure passed another way."""
    suffix = lam.parent
    if suffix is None or suffix.type != "call_suffix" or suffix.named_children[-1] != lam:
        return None
    call = suffix.parent
    if call is None or call.type != "call_expression" or not call.named_children:
        return None
    callee = call.named_children[0]
    if _CALLEE_PATH.fullmatch(text(callee)) and not text(callee).startswith("!"):
        return callee, text(callee)
    if callee.type == "navigation_expression":
        nav = callee.child_by_field_name("suffix")
        name = nav.child_by_field_name("suffix") if nav is not None else None
        if name is not None and name.type == "simple_identifier":
            return name, text(name)
    return None


def _loop(node: Node) -> Bindings:
    item = node.child_by_field_name("item")
    return {text(item): None} if item is not None and item.type == "simple_identifier" else {}


_LITERALS = {
    "line_string_literal": "String",
    "multi_line_string_literal": "String",
    "integer_literal": "Int",
    "real_literal": "Double",
    "boolean_literal": "Bool",
}


def _argument_type(value: Node | None, bound: Callable[[Node, str], str | None]) -> str:
    """``:String`` for a string literal or a name declared (or assigned) one, ``:T`` for a
    name of declared simple type ``T``; "" where a reader cannot tell at a glance."""
    if value is None:
        return ""
    literal = _LITERALS.get(value.type)
    if literal is not None:
        return f":{literal}"
    if value.type == "simple_identifier":
        what = bound(value, text(value)) or ""
        t = what[2:].strip() if what.startswith(": ") else ""
        if t[:1] == "[" and t[-1:] == "]" and t[1:-1].isidentifier():
            return f":{t}"  # `[Middleware]`: an array of a declared element type
        return f":{t}" if t.isidentifier() else ""
    if value.type == "call_expression" and value.named_children:
        callee = value.named_children[0]  # `Double(x)`, `ByteBuffer(bytes:)`: the type called
        name = text(callee) if callee.type == "simple_identifier" else ""
        return f":{name}" if name[:1].isupper() and name.isidentifier() else ""
    return ""


def _awaits(closure: Node) -> bool:
    """Whether a closure is async: declared so (``{ res async in``) or awaiting in its body
    (not in a closure inside it)."""
    kind = next((c for c in closure.named_children if c.type == "lambda_function_type"), None)
    if kind is not None and any(c.type == "async" for c in kind.children):
        return True
    stack = [c for c in closure.named_children if c.type != "lambda_function_type"]
    while stack:
        at = stack.pop()
        if at.type == "await_expression":
            return True
        stack.extend(c for c in at.named_children if c.type != "lambda_literal")
    return False


def _awaited(node: Node) -> bool:
    """Whether a call is in a statement with an ``await`` (``try await app.test(..)``; the
    grammar hangs ``await`` on the innermost receiver, ``await app.testable()``, though it
    covers the whole expression), not across a closure."""
    root = node
    while root.parent is not None and root.parent.type not in _EXPRESSION_ENDS:
        root = root.parent
    stack = [root]
    while stack:
        at = stack.pop()
        if at.type == "await_expression":
            return True
        stack.extend(c for c in at.named_children if c.type != "lambda_literal")
    return False


_EXPRESSION_ENDS = frozenset(
    {
        "statements",
        "lambda_literal",
        "function_body",
        "class_body",
        "source_file",
        "computed_property",
    }
)


def _implicit_member(value: Node | None) -> str:
    """``.default``, ``.status(401)`` as an argument: ``.default``/``.status``, the member of
    the parameter's type it names (what tells ``request(_: Endpoint)`` from ``request(_: any
    URLConvertible)``); "" for any other value."""
    if value is not None and value.type == "call_expression" and value.named_children:
        value = value.named_children[0]
    if value is None or value.type != "prefix_expression":
        return ""
    target = value.child_by_field_name("target")
    operation = value.child_by_field_name("operation")
    if operation is None or text(operation) != "." or target is None:
        return ""
    return f".{text(target)}" if target.type == "simple_identifier" else ""


def _arguments(node: Node, bound: Callable[[Node, str], str | None]) -> str | None:
    """``(rootQueue, _.default, {})``: the argument labels of the call whose callee is ``node``
    (``_`` an unlabeled argument, ``{}`` a trailing closure; ``.name`` after a label: the
    argument is the implicit member ``.name``; ``:T``: a value of type ``T``, a literal's or a
    name's declared type), for the resolver to choose among
    overloads (``init(session:)`` or ``init(configuration: = .default, rootQueue:)``)."""
    call = node.parent
    for _ in range(4):  # the callee, an operator's operand, a navigation's suffix
        if call is None or call.type == "call_expression":
            break
        call = call.parent
    if call is None or call.type != "call_expression":
        return None
    suffix = call.named_children[-1] if call.named_children else None
    if suffix is None or suffix.type != "call_suffix":
        return None
    labels: list[str] = []
    for part in suffix.named_children:
        if part.type == "value_arguments":
            for a in part.named_children:
                if a.type == "value_argument":
                    label = a.child_by_field_name("name")
                    written = text(label).strip() if label is not None else "_"
                    value = a.child_by_field_name("value")
                    written += _implicit_member(value) or _argument_type(value, bound)
                    labels.append(written)
        elif part.type == "lambda_literal":
            labels.append("{await}" if _awaits(part) else "{}")
    if _awaited(call):
        # async members first, unless the value is a receiver (`await next.respond(to:).get()`:
        # what follows decides); without `await`, async ones cannot be called
        receiver = call.parent is not None and call.parent.type == "navigation_expression"
        labels.append("~await-" if receiver else "~await")
    return f"({', '.join(labels)})"


def _chain(node: Node, bound: Callable[[Node, str], str | None]) -> str | None:
    """``validate`` in ``AF.request(url).validate()`` -> ``AF.request().validate``: a member
    called on an expression's value, with the names and calls of the expression (arguments
    dropped); ``.init`` in ``let x: T = .init()`` -> ``T.init``: an implicit member of the
    type the context gives; None for anything else (a subscript, a literal, a closure on the
    way, a context that does not say)."""
    if node.type == "prefix_expression":
        return _implicit(node, bound)
    suffix = node.parent
    if node.type != "simple_identifier" or suffix is None or suffix.type != "navigation_suffix":
        return None
    nav = suffix.parent
    target = nav.child_by_field_name("target") if nav is not None else None
    head = _chained(target, 0) if target is not None else None
    return f"{head}.{text(node)}" if head else None


def _implicit(node: Node, bound: Callable[[Node, str], str | None]) -> str | None:
    """``.init(..)``/``.shared()`` where the context names the type: a declaration's annotation
    (``let x: T = .init()``), a stored property or local assigned (``self.x = .init()``), the
    function's declared return type (``return .init(..)``, a body of that one expression)."""
    target = node.child_by_field_name("target")
    operation = node.child_by_field_name("operation")
    call = node.parent
    if target is None or operation is None or text(operation) != "." or call is None:
        return None
    if call.type != "call_expression" or target.type != "simple_identifier":
        return None
    where = call.parent
    if where is not None and where.type == "attribute":
        # `@Suite("x", .disabled())`: a member of the type the attribute's parameter names
        kind = next((c for c in where.named_children if c.type == "user_type"), None)
        name = text(kind) if kind is not None else ""
        return f"(@{name}).{text(target)}" if name.isidentifier() else None
    written: str | None = None
    if where is None:
        return None
    if where.type == "property_declaration":
        annotation = next((c for c in where.named_children if c.type == "type_annotation"), None)
        type_ = annotation.child_by_field_name("name") if annotation is not None else None
        written = text(type_) if type_ is not None else None
    elif where.type == "assignment" and where.child_by_field_name("result") == call:
        assigned = where.child_by_field_name("target")
        name = text(assigned).strip() if assigned is not None else ""
        name = name[5:] if name.startswith("self.") else name
        what = bound(call, name) if name.isidentifier() else None
        written = what[2:] if what is not None and what.startswith(": ") else None
    elif where.type == "control_transfer_statement" or (
        where.type == "statements"
        and len(where.named_children) == 1
        and where.parent is not None
        and where.parent.type == "function_body"
    ):
        if where.type == "control_transfer_statement" and not text(where).startswith("return"):
            return None
        scope = where.parent
        while scope is not None and scope.type not in ("function_declaration", "lambda_literal"):
            scope = scope.parent
        if scope is not None and scope.type == "function_declaration":
            written = _return_type(scope)
    if not written:
        return None
    t = plain_type(written).split("<", 1)[0].strip()
    if not all(p.isidentifier() for p in t.split(".")):
        return None
    return f"{t}.{text(target)}"


def _chained(node: Node, depth: int) -> str | None:
    if depth > 6:
        return None
    kind = node.type
    if kind == "simple_identifier":
        return text(node)
    if kind == "self_expression":
        return "self"
    if kind in ("await_expression", "try_expression"):
        inner = node.child_by_field_name("expr")
        return _chained(inner, depth + 1) if inner is not None else None
    if kind == "navigation_expression":
        target = node.child_by_field_name("target")
        suffix = node.child_by_field_name("suffix")
        name = suffix.child_by_field_name("suffix") if suffix is not None else None
        if target is None or name is None or name.type != "simple_identifier":
            return None
        head = _chained(target, depth + 1)
        return f"{head}.{text(name)}" if head else None
    if kind == "call_expression":
        kids = node.named_children
        if len(kids) != 2 or kids[1].type != "call_suffix":
            return None
        args = kids[1].named_children
        if args and args[0].type == "value_arguments" and text(args[0])[:1] == "[":
            return None  # `items[0]`: a subscript
        head = _chained(kids[0], depth + 1)
        return f"{head}()" if head else None
    return None


_RECEIVERS = Receivers(
    scopes={
        "statements": _statements,
        "function_declaration": _function,
        "init_declaration": _function,
        "lambda_literal": _closure,
        "for_statement": _loop,
        "class_body": _statements,  # the type's stored properties (`session.x`, `self.session.x`)
    },
    self_names=frozenset({"self"}),
    member_scopes=frozenset({"class_body"}),
    arguments=_arguments,
    chain=_chain,
    lambda_owner=_lambda_owner,
)

SPEC = LanguageSpec(
    name="swift",
    grammar="swift",
    query_path=query_file(__file__, "swift"),
    owner=_owner,
    parameters=_parameters,
    return_type=_return_type,
    decorators=_decorators,
    bases=_bases,
    scope_bases=_scope_bases,
    imports=_imports,
    signature_end=_signature_end,
    receivers=_RECEIVERS,
)

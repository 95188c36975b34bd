"""The type of a call's receiver, as a reader sees it at a glance: local type inference.

A call on a plain name (``reader.hasNext``) or on a field of ``this``/``self``
(``this.gson.toJson``) is looked up in the scopes around the call: the block's local
declarations, the function's parameters, the class's fields. Where the name is declared with a
type, or assigned a value whose type the resolver can work out (``new T()``, ``T::new()``,
``chi.NewRouter()``), the call text records it around the receiver:

    (reader: JsonTreeReader).hasNext      a declared type
    (r = chi.NewRouter()).Get             the value assigned (arguments dropped)

The resolver (``codebot.graph.resolvers.base``) resolves the method through that type, or counts
the call external when the type is a library's. A name bound without a type (an untyped parameter)
stops the search: it shadows whatever is declared further out.

Each language gives, per node type that opens a scope, a function listing the names bound
directly in it: ``{name: ": T" | "= value()" | "@other" | None}`` (``@other``: what ``other`` is
bound to around that scope, Kotlin's `it` in `x.let { }`). A scope's bindings are read once per file.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from tree_sitter import Node

__all__ = ["Bindings", "Receivers", "declared", "squash_type", "valued"]

Bindings = dict[str, str | None]

_HEAD = re.compile(r"([A-Za-z_$][\w$]*)(?:\.|\?\.|!!\.)([A-Za-z_$][\w$]*)(.*)", re.S)
_TYPE = re.compile(r"[\w$.:<>\[\]*&?|, ]+")
_VALUE = re.compile(r"(?:new |&)?[A-Za-z_$][\w$]*(?:(?:\.|::)[A-Za-z_$][\w$]*){0,3}(?:::<[^()]*>)?")


def squash_type(text: str | None) -> str | None:
    """A declared type as the resolver reads it, or None for one it could not use (a function
    type, an inline object type, `var`/`auto`)."""
    if not text:
        return None
    t = " ".join(text.split()).lstrip(":").strip()
    if not t or len(t) > 120 or not _TYPE.fullmatch(t) or t in ("var", "val", "auto", "_"):
        return None
    return t


def declared(type_text: str | None) -> str | None:
    t = squash_type(type_text)
    return f": {t}" if t else None


def valued(callee: str | None, construct: bool = False) -> str | None:
    """``= callee()``: a value made by calling ``callee`` (``new T``, ``pkg.NewT``, ``T::new``)."""
    if not callee:
        return None
    c = " ".join(callee.split())
    if not _VALUE.fullmatch(c):
        return None
    return f"= {'new ' if construct and not c.startswith('new ') else ''}{c}()"


@dataclass(frozen=True)
class Receivers:
    """How one language binds names: scopes (node type -> the bindings directly in it), the
    names of the receiver itself (``this``), and the node types holding a class's fields."""

    scopes: dict[str, Callable[[Node], Bindings]]
    self_names: frozenset[str] = frozenset({"this"})
    member_scopes: frozenset[str] = field(default_factory=frozenset)

    # `(node, cache) -> "(String, ?)"`: the argument types of the call at ``node``, for the
    # resolver to choose among overloads (Java); None where the language does not say.
    arguments: Callable[[Node, Callable[[Node, str], str | None]], str | None] | None = None

    # Node types of a call name's parent that mean the call is on an expression's value the
    # text does not show (Kotlin's `a.b().name` records `name`): the text becomes `(?).name`.
    on_expression: frozenset[str] = field(default_factory=frozenset)

    # `(name node) -> (node, text)`: for a call on an expression's value, the callee of the call
    # that gives the value (Kotlin's `client.get(url).body()`: `client.get`), to be annotated
    # as that call is; None where the value is no call of a name or a path of names.
    receiver_call: Callable[[Node], tuple[Node, str] | None] | None = None

    # `(lambda node) -> (node, text)`: the callee of the call a lambda is passed to, whose
    # parameter types the lambda's untyped parameters take (bound as ``#0``, ``#1``...).
    lambda_owner: Callable[[Node], tuple[Node, str] | None] | None = None

    # `(node, annotate, bound, cache) -> "{...}"`: the implicit receiver of a call written without one,
    # where a lambda with receiver gives it (Kotlin's `routing { get("/") {} }`), written before
    # the call's text; None where the call has none the parser can name. ``annotate`` writes
    # another call's text (the call the lambda is passed to), ``bound`` looks a name up.
    implicit: (
        Callable[
            [Node, Callable[[Node, str], str], Callable[[Node, str], str | None], dict],
            str | None,
        ]
        | None
    ) = None

    # `(node, bound) -> "AF.request().validate"`: a call on an expression's value written as the
    # chain of names and calls it is (arguments dropped), for the resolver to follow what each
    # call returns; an implicit member (`.init()`) with the type the context gives it
    # (`let x: T = .init()` -> `T.init`) (Swift); None: the call text is kept.
    # ``bound`` looks a name up, as for ``arguments``.
    chain: Callable[[Node, Callable[[Node, str], str | None]], str | None] | None = None

    def annotate(self, node: Node, text: str, cache: dict) -> str:
        if self.chain is not None:
            try:
                text = self.chain(node, lambda at, name: self.bound(at, name, cache)) or text
            except Exception:  # noqa: BLE001 - an odd tree (error recovery): as written
                pass
        out = self._typed(node, text, cache) if "." in text else text
        parent = node.parent
        on_expression = parent is not None and parent.type in self.on_expression
        if (
            self.implicit is not None
            and not on_expression
            and self._implicit_head(node, text, out, cache)
        ):
            try:
                pre = self.implicit(
                    node,
                    lambda at, t: self.annotate(at, t, cache),
                    lambda at, name: self.bound(at, name, cache),
                    cache,
                )
            except Exception:  # noqa: BLE001 - an odd tree (error recovery): no receiver
                pre = None
            if pre:
                out = pre + out
        if on_expression:
            inner = self.receiver_call(node) if self.receiver_call is not None else None
            value = self.annotate(inner[0], inner[1], cache) if inner is not None else ""
            # `client.get(url).body()`: the call whose value the method is called on, when it is
            # one the text can name (`(=> client.get/(Url)).body`); else `(?)`
            out = f"(=> {value}).{out}" if value and len(value) <= 400 else f"(?).{out}"
        if self.arguments is not None:
            try:
                args = self.arguments(node, _Lookup(self, cache))
            except Exception:  # noqa: BLE001 - an odd tree (error recovery): no arguments
                args = None
            if args is not None and args[:1] == "<":  # `get<T>/(trailing)`: type arguments
                types, _, args = args.partition(">/")
                out = f"{out}{types}>"
            if args is not None:
                out = f"{out}/{args}"
        return out

    def _implicit_head(self, node: Node, text: str, out: str, cache: dict) -> bool:
        """Whether a call may be on an implicit receiver: a bare name (``get("/")``), or a path
        whose head no scope binds (``call.respond()``, ``client.get()``: a property of the
        receiver of a lambda around), lowercase, not ``this``."""
        if text.isidentifier():
            return True
        if out != text:
            return False  # typed from a binding around
        m = _HEAD.fullmatch(text)
        if m is None or not m[1][:1].islower() or m[1] in self.self_names:
            return False
        return not self._binds(node, m[1], cache)

    def _names(self, scope: Node, cache: dict) -> dict:
        """The names ``scope`` binds, read once per scope and call of ``cache``'s owner."""
        key = (scope.start_byte, scope.end_byte, scope.type)
        found = cache.get(key)
        if found is None:
            try:
                found = cache[key] = self.scopes[scope.type](scope)
            except Exception:  # noqa: BLE001 - an odd tree (error recovery): no types
                found = cache[key] = {}
        return found

    def _binds(self, node: Node, name: str, cache: dict) -> bool:
        """Whether a scope around ``node`` binds ``name`` (typed or not)."""
        scope = node.parent
        while scope is not None:
            kind = scope.type
            if kind in self.scopes:
                found = self._names(scope, cache)
                if name in found:
                    return True
            scope = scope.parent
        return False

    def bound(self, node: Node, name: str, cache: dict) -> str | None:
        """What the scopes around ``node`` bind ``name`` to (``": T"``, ``"= new T()"``), or
        None (bound without a type, or not bound)."""
        return self._find(node, name, self.scopes.keys(), cache)

    def _find(self, node: Node, name: str, kinds, cache: dict) -> str | None:
        scope = node.parent
        while scope is not None:
            kind = scope.type
            if kind in kinds:
                found = self._names(scope, cache)
                if name in found:
                    what = found[name]
                    if what is not None and what[0] == "@":  # `it` of `x.let { }`: what `x` is
                        return self._find(scope, what[1:], kinds, cache)
                    if what is not None and what[0] == "#":  # a lambda's parameter, untyped
                        return self._lambda_parameter(scope, what, cache)
                    return what
            scope = scope.parent
        return None

    def _lambda_parameter(self, lam: Node, what: str, cache: dict) -> str | None:
        """``= {test/(trailing)}#0``: the first parameter of the lambda the call ``test { }``
        takes (the resolver reads its type off the callee's last parameter)."""
        owner = self.lambda_owner(lam) if self.lambda_owner is not None else None
        if owner is None:
            return None
        key = (lam.start_byte, lam.end_byte, "owner")
        if key not in cache:
            cache[key] = None  # a lambda inside its own owner's arguments must not loop
            cache[key] = self.annotate(owner[0], owner[1], cache)
        call = cache[key]
        return f"= {{{call}}}{what}" if call and len(call) <= 400 else None

    def _typed(self, node: Node, text: str, cache: dict) -> str:
        m = _HEAD.fullmatch(text)
        if m is None:
            return text
        name, second, tail = m.groups()
        if name in self.self_names:
            if tail[:1] not in (".", "?", "!") or not self.member_scopes:
                return text  # `this.run()`: the resolver knows `this`
            expr, name, kinds = f"{name}.{second}", second, self.member_scopes
            rest = tail.lstrip("?!.")
        else:
            expr, rest, kinds = name, second + tail, self.scopes.keys()
        if not rest or rest[0] == "(":
            return text
        what = self._find(node, name, kinds, cache)
        return f"({expr}{' ' if what[0] == '=' else ''}{what}).{rest}" if what else text


class _Lookup:
    """``bound`` for an ``arguments`` hook: what the scopes around bind a name to (None: bound
    without a type, or not bound); ``binds`` tells the two apart."""

    def __init__(self, owner: Receivers, cache: dict) -> None:
        self.owner, self.cache = owner, cache

    def __call__(self, at: Node, name: str) -> str | None:
        return self.owner.bound(at, name, self.cache)

    def binds(self, at: Node, name: str) -> bool:
        return self.owner._binds(at, name, self.cache)

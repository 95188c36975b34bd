"""Elixir: modules (``defmodule``, kind ``module``; ``defprotocol``, ``interface``), their
functions and macros (``def``/``defp``/``defmacro``/``defguard``/``defdelegate``, methods of the
module), ``@doc``/``@moduledoc``, calls and ``alias``/``import``/``require``/``use``.

- ``defmodule Shop.Cart`` is ``Cart`` under owner ``Shop``; a ``defmodule`` inside another nests.
- a function's head (``add(cart, qty \\\\ 1)`` in ``def add(...)``) is no call: its text is
  marked ``(def) add`` and the resolver ignores it.
- parameters as written, ``qty \\\\ 1`` as ``qty`` with default ``1``; a pattern
  (``%Item{} = item``) is kept whole.
- imports: ``alias Shop.{Item, Price}`` is ``Import("Shop", "Item")`` and
  ``Import("Shop", "Price")``; ``alias Shop.Cart, as: C`` is ``Import("Shop", "Cart", "C")``;
  ``alias __MODULE__.Line`` names the module it is written in (``Import("Shop.Cart", "Line")``);
  ``import Shop.Util`` is ``Import("Shop.Util", "*")``, ``import Shop.Util, only: [round: 1]``
  ``Import("Shop.Util", "round/1")``, ``except: [round: 1]`` adds
  ``Import("Shop.Util", "round/1", "except")`` (an alias is capitalized: ``except`` is none);
  ``require``/``use`` import the module.
"""

from __future__ import annotations

from tree_sitter import Node

from codebot.core.model import Import, Parameter
from codebot.languages.base import LanguageSpec, leading_comment, query_file, squash, text
from codebot.languages.receivers import Receivers

_DEFS = frozenset(
    """def defp defmacro defmacrop defguard defguardp defdelegate defn defnp""".split()
)
# Attributes between a `@doc` and its function: `@spec`, `@impl true`, `@deprecated`...
_BETWEEN = frozenset("spec impl deprecated since dialyzer compile".split())


def _owner(node: Node, name: str) -> tuple[tuple[str, ...], str]:
    parts = name.split(".")
    return tuple(parts[:-1]), parts[-1]


def _head(node: Node) -> Node | None:
    """``add(cart, qty)`` of ``def add(cart, qty) when ... do``; None for ``def name do``."""
    args = node.child_by_field_name("arguments") or _arguments(node)
    first = args.named_children[0] if args is not None and args.named_child_count else None
    if first is not None and first.type == "binary_operator":
        first = first.child_by_field_name("left")
    return first if first is not None and first.type == "call" else None


def _arguments(node: Node) -> Node | None:
    for child in node.named_children:
        if child.type == "arguments":
            return child
    return None


def _parameters(node: Node) -> tuple[Parameter, ...]:
    head = _head(node)
    args = _arguments(head) if head is not None else None
    out: list[Parameter] = []
    for p in args.named_children if args is not None else ():
        if p.type == "identifier":
            out.append(Parameter(text(p)))
        elif p.type == "binary_operator" and text(p.child_by_field_name("operator")) == "\\\\":
            out.append(
                Parameter(
                    squash(text(p.child_by_field_name("left")), 80),
                    None,
                    squash(text(p.child_by_field_name("right")), 200),
                )
            )
        elif p.type != "comment":
            out.append(Parameter(squash(text(p), 80)))
    return tuple(out)


def _attribute(node: Node) -> tuple[str, Node | None] | None:
    """``@doc "x"`` -> ("doc", the string node); None when ``node`` is no attribute."""
    if node.type != "unary_operator" or text(node.child_by_field_name("operator")) != "@":
        return None
    call = node.child_by_field_name("operand")
    if call is None or call.type != "call":
        return None
    name = text(call.child_by_field_name("target"))
    args = _arguments(call)
    return name, (args.named_children[0] if args is not None and args.named_child_count else None)


def _string(node: Node | None) -> str | None:
    """The text of a string literal (``"x"``, ``\"\"\"...\"\"\"``, ``~S\"\"\"...\"\"\"``)."""
    if node is None or node.type not in ("string", "sigil"):
        return None  # `@doc false`
    parts = [text(c) for c in node.named_children if c.type == "quoted_content"]
    doc = "\n".join(line.strip() for line in "".join(parts).strip().splitlines())
    return doc or None


def _docstring(node: Node) -> str | None:
    kw = text(node.child_by_field_name("target"))
    if kw in ("defmodule", "defprotocol"):
        block = next((c for c in node.named_children if c.type == "do_block"), None)
        for stmt in block.named_children if block is not None else ():
            attr = _attribute(stmt)
            if attr is not None and attr[0] == "moduledoc":
                return _string(attr[1])
        return leading_comment(node)
    sib = node.prev_named_sibling
    while sib is not None:
        attr = _attribute(sib)
        if attr is None:
            break
        if attr[0] == "doc":
            return _string(attr[1])
        if attr[0] not in _BETWEEN:
            break
        sib = sib.prev_named_sibling
    return leading_comment(node)


def _lead(node: Node) -> Node | None:
    """The first of a function's ``@doc``/``@spec``/``@impl``... attributes right above it (the
    function's lines start there), or None."""
    first = None
    sib = node.prev_named_sibling
    while sib is not None:
        attr = _attribute(sib)
        if attr is None or (attr[0] != "doc" and attr[0] not in _BETWEEN):
            break
        first = sib
        if attr[0] == "doc":
            break
        sib = sib.prev_named_sibling
    return first


def _signature_end(node: Node) -> int:
    args = _arguments(node)
    if args is not None:
        first = args.named_children[0] if args.named_child_count else None
        if first is not None:
            return first.end_byte
    nl = node.text.find(b"\n")
    return node.end_byte if nl < 0 else node.start_byte + nl


def _imports(node: Node) -> list[Import]:
    kw = text(node.child_by_field_name("target"))
    args = _arguments(node)
    target = args.named_children[0]
    line = node.start_point[0] + 1
    options: dict[str, Node] = {}
    for kws in args.named_children[1:]:
        for pair in kws.named_children if kws.type == "keywords" else ():
            key = text(pair.child_by_field_name("key")).strip().rstrip(":").strip()
            options[key] = pair.child_by_field_name("value")
    if target.type == "dot":  # `alias Shop.{Item, Price}`, `alias __MODULE__.Item`
        left, right = target.child_by_field_name("left"), target.child_by_field_name("right")
        if left is None or right is None:
            return []
        base = text(left)
        if base == "__MODULE__" or base.startswith("__MODULE__."):
            around = _module_around(node)
            if around is None:
                return []
            base = around + base[len("__MODULE__") :]
        if right.type == "alias":
            module = f"{base}.{text(right)}"
        elif right.type == "tuple" and kw == "alias":
            out = []
            for a in right.named_children:
                if a.type == "alias":
                    head, _, last = f"{base}.{text(a)}".rpartition(".")
                    out.append(Import(head, last, line=line))
            return out
        else:
            return []
    else:
        module = text(target)
    if kw == "alias":
        value = options.get("as")
        alias = text(value) if value is not None else None
        head, _, last = module.rpartition(".")
        return [Import(head, last, alias, line=line)]
    if kw == "import":
        only, hidden = options.get("only"), options.get("except")
        if only is not None and only.type == "list":  # `only: [from: 2]`
            return [Import(module, n, line=line) for n in _arities(only)]
        out = [Import(module, "*", line=line)]
        if hidden is not None and hidden.type == "list":  # `except: [apply: 2]`
            out += [Import(module, n, "except", line=line) for n in _arities(hidden)]
        return out
    return [Import(module, line=line)]


def _arities(node: Node) -> list[str]:
    """``[from: 2, where: 3]`` -> ``["from/2", "where/3"]``."""
    out = []
    for kws in node.named_children:
        for pair in kws.named_children if kws.type == "keywords" else ():
            key = text(pair.child_by_field_name("key")).strip().rstrip(":").strip()
            out.append(f"{key}/{text(pair.child_by_field_name('value')).strip()}")
    return out


def _module_around(node: Node) -> str | None:
    """The name of the module an ``alias __MODULE__.X`` is written in (nested ``defmodule``s
    joined), or None outside any."""
    names: list[str] = []
    p = node.parent
    while p is not None:
        if p.type == "call" and text(p.child_by_field_name("target")) == "defmodule":
            args = _arguments(p)
            first = args.named_children[0] if args is not None and args.named_child_count else None
            if first is None or first.type != "alias":
                return None
            names.append(text(first))
        p = p.parent
    return ".".join(reversed(names)) or None


_TYPESPECS = frozenset("spec type typep opaque callback macrocallback".split())


def _in_typespec(node: Node) -> bool:
    """Whether ``node`` is inside a ``@spec``/``@type``/``@callback``... attribute."""
    p = node.parent
    while p is not None:
        if p.type == "unary_operator":
            attr = _attribute(p)
            if attr is not None:
                return attr[0] in _TYPESPECS
        elif p.type in ("do_block", "source"):
            return False
        p = p.parent
    return False


def _arity(node: Node) -> int | None:
    """How many arguments the call whose target is ``node`` passes: its arguments (a trailing
    keyword list is one), one more for a ``do`` block (``test "x" do``: a keyword list) and one
    more for the value piped into it (``conn |> put_status(404)`` is ``put_status/2``)."""
    call = node.parent
    if call is None or call.type != "call" or call.child_by_field_name("target") != node:
        return None
    n = 0
    for child in call.named_children:
        if child.type == "arguments":
            n += sum(1 for a in child.named_children if a.type != "comment")
        elif child.type == "do_block":
            n += 1
    up = call.parent
    if (
        up is not None
        and up.type == "binary_operator"
        and up.child_by_field_name("right") == call
        and text(up.child_by_field_name("operator")) == "|>"
    ):
        n += 1
    return n


class ElixirReceivers(Receivers):
    """Marks a definition's head: ``add`` in ``def add(cart)`` is written ``(def) add``; drops
    the types a typespec names; writes how many arguments a call passes, as C++ does
    (``list/(?, ?)``): an Elixir function is its name and its arity."""

    def annotate(self, node: Node, text_: str, cache: dict) -> str:
        if _in_typespec(node):
            return ""  # `@spec add(t(), Item.t()) :: t()` names types, calls nothing
        call = node.parent
        up = call.parent if call is not None else None
        if up is not None and _attribute(up) is not None:
            return ""  # `@primary_key false` sets a module attribute, calls nothing
        args = call.parent if call is not None else None
        if args is not None and args.type == "binary_operator":  # `def f(x) when g(x)`
            if args.child_by_field_name("left") == call:
                args = args.parent
        if args is not None and args.type == "arguments":
            definition = args.parent
            if definition is not None and definition.type == "call":
                kw = definition.child_by_field_name("target")
                if kw is not None and kw.type == "identifier" and text(kw) in _DEFS:
                    if args.named_children and args.named_children[0] in (call, call.parent):
                        return f"(def) {text_}"
        n = _arity(node)
        return text_ if n is None else f"{text_}/({', '.join('?' * n)})"


SPEC = LanguageSpec(
    name="elixir",
    grammar="elixir",
    query_path=query_file(__file__, "elixir"),
    owner=_owner,
    parameters=_parameters,
    return_type=lambda node: None,
    docstring=_docstring,
    imports=_imports,
    signature_end=_signature_end,
    lead=_lead,
    receivers=ElixirReceivers({}, frozenset({"__MODULE__"})),
)

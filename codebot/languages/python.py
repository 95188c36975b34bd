"""Python: docstrings from the body, decorators from ``decorated_definition``, full imports."""

from __future__ import annotations

import builtins
import inspect
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache

from tree_sitter import Node, Query, QueryCursor

from codebot.core.model import Import, Parameter
from codebot.languages.base import LanguageSpec, field_text, query_file, squash, text
from codebot.languages.receivers import Receivers


def _outer(node: Node) -> Node:
    parent = node.parent
    return parent if parent is not None and parent.type == "decorated_definition" else node


def _decorators(node: Node) -> tuple[str, ...]:
    parent = node.parent
    if parent is None or parent.type != "decorated_definition":
        return ()
    return tuple(squash(text(c)[1:].strip(), 200) for c in parent.children if c.type == "decorator")


def _docstring(node: Node) -> str | None:
    body = node.child_by_field_name("body")
    first = body.named_child(0) if body is not None and body.named_child_count else None
    if first is None:
        return None
    if first.type == "expression_statement" and first.named_child_count == 1:
        first = first.named_child(0)
    if first.type != "string":
        return None
    raw = text(first)
    # Strip the prefix (r, b, f, u...) and the quotes, then dedent as Python's help() does.
    i = 0
    while i < len(raw) and raw[i] not in "\"'":
        i += 1
    raw = raw[i:]
    quote = raw[:3] if raw[:3] in ('"""', "'''") else raw[:1]
    if raw.endswith(quote) and len(raw) >= 2 * len(quote):
        raw = raw[len(quote) : -len(quote)]
    return inspect.cleandoc(raw) or None


def _parameters(node: Node) -> tuple[Parameter, ...]:
    params = node.child_by_field_name("parameters")
    out: list[Parameter] = []
    for p in params.named_children if params is not None else ():
        t = p.type
        if t == "identifier":
            out.append(Parameter(text(p)))
        elif t in ("typed_parameter", "default_parameter", "typed_default_parameter"):
            name = p.child_by_field_name("name") or p.named_children[0]
            out.append(Parameter(text(name), field_text(p, "type"), field_text(p, "value")))
        elif t in (
            "list_splat_pattern",
            "dictionary_splat_pattern",
            "keyword_separator",
            "positional_separator",
        ):
            out.append(Parameter(text(p)))
    return tuple(out)


def _bases(node: Node) -> tuple[str, ...]:
    supers = node.child_by_field_name("superclasses")
    if supers is None:
        return ()
    return tuple(
        squash(text(c), 200)
        for c in supers.named_children
        if c.type not in ("keyword_argument", "comment", "dictionary_splat", "list_splat")
    )


def _dotted(node: Node | None) -> str:
    return "".join(text(node).split()) if node is not None else ""


def _imports(node: Node) -> list[Import]:
    line = node.start_point[0] + 1
    out: list[Import] = []
    if node.type == "import_statement":
        for name in node.children_by_field_name("name"):
            if name.type == "aliased_import":
                module = _dotted(name.child_by_field_name("name"))
                out.append(Import(module, alias=text(name.child_by_field_name("alias")), line=line))
            else:
                out.append(Import(_dotted(name), line=line))
        return out
    if node.type == "future_import_statement":
        module, level = "__future__", 0
    else:
        mod = node.child_by_field_name("module_name")
        level = 0
        module = ""
        if mod is not None and mod.type == "relative_import":
            for c in mod.children:
                if c.type == "import_prefix":
                    level = text(c).count(".")
                elif c.type == "dotted_name":
                    module = _dotted(c)
        else:
            module = _dotted(mod)
    names = node.children_by_field_name("name")
    if not names and any(c.type == "wildcard_import" for c in node.children):
        return [Import(module, "*", level=level, line=line)]
    for name in names:
        if name.type == "aliased_import":
            out.append(
                Import(
                    module,
                    _dotted(name.child_by_field_name("name")),
                    text(name.child_by_field_name("alias")),
                    level,
                    line,
                )
            )
        else:
            out.append(Import(module, _dotted(name), None, level, line))
    return out


# --- receivers: what a called name is bound to ----------------------------------------------------
#
# A call through a name the enclosing scopes bind (``a = func; a()``, ``x = C(); x.m()``,
# ``HANDLERS = {"a": f}; HANDLERS["a"]()``, ``for step in STEPS: step()``, ``self.c = C()`` in one
# method and ``self.c.m()`` in another, a parameter ``job`` that the file's calls pass ``save``
# or ``fetch``) records what the name may hold, the scope's assignments taken together as a reader
# takes in a function at a glance; only in the scope's own straight-line code does an assignment
# before the call replace the earlier ones, and one after it not reach it:
#
#     (a = func)                      -> the call reaches func
#     (x = C()).m                     -> C().m: the method m of an instance of C
#     (h = make.<locals>.inner | g)   -> make() returns its nested function inner, or g
#
# ``f()`` is replaced by what ``f`` returns when ``f`` is defined in the same file and returns
# names (a function, a closure). A lambda, a comprehension's variable, a library's value, any
# other expression is no value known here. Call sites are this file's only. The resolver
# (``graph/resolvers/python.py``) resolves each value in the caller's scope.

_COMPREHENSIONS = (
    "list_comprehension",
    "set_comprehension",
    "dictionary_comprehension",
    "generator_expression",
)
_SCOPES = ("function_definition", "lambda", "module", "class_definition", *_COMPREHENSIONS)
_COMPOUND = (
    "if_statement",
    "elif_clause",
    "else_clause",
    "for_statement",
    "while_statement",
    "try_statement",
    "except_clause",
    "finally_clause",
    "with_statement",
    "block",
    "match_statement",
    "case_clause",
)
_OTHER = "other"  # bound otherwise (a loop variable, an import, global): unknown here
_PARAM = "param"  # a parameter: what the function's callers in the file pass
_DEF = "def"  # a def or class statement: the resolver finds it by name
_MAX_VALUES = 8
_NO_SCOPE = object()
_MAX_DEPTH = 3
_ITER = "iter"  # the key of what a loop over a name gives: its sequence items
_BUSY: list[str] = []  # a parameter's values while they are worked out (a cycle finds none)
_BUSY_APPLIED = object()  # the same for a def's decorators
_DOTTED = frozenset({"identifier", "attribute"})

# name -> [(key, value node)]: key None for the name's own value, a literal's text for an item
# (``d["a"] = f``, ``d = {"a": f}``, ``l = [f, g]``), "?" for an item under a key not known,
# "in" for a loop variable (the node iterated); or _OTHER / _PARAM / _DEF.
Scope = dict[str, "list[tuple[str | None, Node]] | str"]


def _names(fn: Node, cache: dict) -> tuple[str, ...]:
    """A function's parameter names (``*args`` as ``*args``), read once per file."""
    key = ("params", fn.start_byte)
    found = cache.get(key)
    if found is None:
        found = cache[key] = tuple(p.name for p in _parameters(fn))
    return found


def _pure_dotted(node: Node) -> bool:
    while node.type == "attribute":
        node = node.child_by_field_name("object")
        if node is None:
            return False
    return node.type == "identifier"


def _key(node: Node | None) -> str | None:
    """A literal subscript as a key: ``"a"``/``'a'`` -> ``'a'``; ``1`` -> ``1``; else None."""
    if node is None:
        return None
    if node.type == "integer":
        return text(node)
    if node.type == "string":
        t = text(node)
        if t[:1] in "\"'" and t[-1:] == t[:1] and len(t) >= 2 and t[:3] not in ('"""', "'''"):
            return "'" + t[1:-1] + "'"
    return None


def _scope_of(node: Node, cache: dict | None = None) -> Node | None:
    """The scope around ``node``; memoised per file when ``cache`` is given (walking up to a
    parent is not cheap in tree-sitter)."""
    if cache is not None:
        memo = cache.get("scope_of")
        if memo is None:
            memo = cache["scope_of"] = {}
        found = memo.get(node, _NO_SCOPE)
        if found is _NO_SCOPE:
            found = memo[node] = _scope_of(node)
        return found  # type: ignore[return-value]
    cur = node.parent
    while cur is not None and cur.type not in _SCOPES:
        cur = cur.parent
    return cur


def _bind(scope: Scope, name: str, key: str | None, value: Node) -> None:
    cur = scope.get(name)
    if isinstance(cur, str):
        return
    if cur is None:
        cur = scope[name] = []
    cur.append((key, value))  # type: ignore[union-attr]


def _bind_target(scope: Scope, target: Node, value: Node | None) -> None:
    t = target.type
    if t == "identifier":
        if value is None:
            scope[text(target)] = _OTHER
        elif value.type == "dictionary":
            for pair in value.named_children:
                if pair.type == "pair":
                    k, v = pair.child_by_field_name("key"), pair.child_by_field_name("value")
                    if v is not None:
                        _bind(scope, text(target), _key(k) or "?", v)
        elif value.type in ("list", "tuple"):
            for i, item in enumerate(value.named_children):
                if item.type in ("list_splat", "comment"):
                    return
                _bind(scope, text(target), str(i), item)
        else:
            _bind(scope, text(target), None, value)
    elif t == "subscript" and value is not None:
        base = target.child_by_field_name("value")
        if base is not None and base.type == "identifier":
            _bind(scope, text(base), _key(target.child_by_field_name("subscript")) or "?", value)
    elif t in ("pattern_list", "tuple_pattern", "list_pattern", "expression_list", "tuple"):
        items = target.named_children
        values = (
            value.named_children
            if value is not None and value.type in ("expression_list", "tuple", "list")
            else None
        )
        stars = [i for i, a in enumerate(items) if a.type == "list_splat_pattern"]
        if (
            values is not None
            and len(stars) <= 1
            and len(values) >= len(items) - len(stars)
            and (stars or len(values) == len(items))
            and all(v.type != "list_splat" for v in values)
        ):
            # `a, *rest, z = f, g, h, k`: rest is the list of the values in between
            s = stars[0] if stars else len(items)
            tail = len(items) - s - 1
            for a, b in zip(items[:s], values[:s]):
                _bind_target(scope, a, b)
            if stars:
                star = items[s].named_children[0] if items[s].named_child_count else None
                middle = values[s : len(values) - tail]
                if star is not None and star.type == "identifier":
                    for i, b in enumerate(middle):
                        _bind(scope, text(star), str(i), b)
                    if not middle:
                        scope[text(star)] = _OTHER
                for a, b in zip(items[s + 1 :], values[len(values) - tail :]):
                    _bind_target(scope, a, b)
        else:
            for a in items:
                if a.type == "identifier":
                    scope[text(a)] = _OTHER
    elif t == "attribute":
        return  # `self.x = ...`: the class's, see _fields


def _statements(block: Node, scope: Scope, self_name: str | None, fields: Scope | None) -> None:
    for st in block.named_children:
        t = st.type
        if t == "expression_statement":
            for e in st.named_children:
                _expression(e, scope, self_name, fields)
        elif t in ("assignment", "call"):  # the grammar may leave out the statement around it
            _expression(st, scope, self_name, fields)
        elif t in ("function_definition", "class_definition"):
            name = st.child_by_field_name("name")
            if name is not None:
                scope[text(name)] = _DEF
        elif t == "decorated_definition":
            d = st.child_by_field_name("definition")
            name = d.child_by_field_name("name") if d is not None else None
            if name is not None:
                scope[text(name)] = _DEF
        elif t in ("import_statement", "import_from_statement", "global_statement"):
            for n in st.named_children:
                if n.type == "identifier":
                    scope[text(n)] = _OTHER
                elif n.type in ("dotted_name", "aliased_import"):
                    alias = n.child_by_field_name("alias")
                    first = alias if alias is not None else n.named_children[0]
                    scope[text(first)] = _OTHER
        elif t in _COMPOUND:
            if t in ("with_statement", "except_clause"):
                _aliases_in(st, scope)
            if t == "for_statement":  # for step in STEPS: each item of STEPS
                left, right = st.child_by_field_name("left"), st.child_by_field_name("right")
                if left is not None and left.type == "identifier" and right is not None:
                    _bind(scope, text(left), "in", right)
                elif left is not None:
                    _bind_target(scope, left, None)
            for c in st.named_children:
                if c.type == "block" or c.type in _COMPOUND:
                    _statements(
                        c, scope, self_name, fields
                    )  # a clause: its block among its children


def _expression(e: Node, scope: Scope, self_name: str | None, fields: Scope | None) -> None:
    if e.type == "assignment":
        _assignment(e, scope, self_name, fields)
    elif e.type == "call":  # d.update({"a": f}): items of d
        fn, args = e.child_by_field_name("function"), e.child_by_field_name("arguments")
        if (
            fn is not None
            and fn.type == "attribute"
            and text(fn.child_by_field_name("attribute")) == "update"
            and fn.child_by_field_name("object").type == "identifier"
            and args is not None
            and args.named_child_count == 1
            and args.named_children[0].type == "dictionary"
        ):
            name = text(fn.child_by_field_name("object"))
            for pair in args.named_children[0].named_children:
                k, v = pair.child_by_field_name("key"), pair.child_by_field_name("value")
                if pair.type == "pair" and v is not None:
                    _bind(scope, name, _key(k) or "?", v)


def _unknown(scope: Scope, target: Node | None) -> None:
    """Every name ``target`` binds, bound to what this reading cannot tell."""
    stack = [target] if target is not None else []
    while stack:
        n = stack.pop()
        if n.type == "identifier":
            scope[text(n)] = _OTHER
        elif n.type not in ("attribute", "subscript"):
            stack.extend(n.named_children)


def _aliases_in(node: Node, scope: Scope) -> None:
    """``with x as y``, ``except E as e``: y and e."""
    stack = [c for c in node.named_children if c.type != "block"]
    while stack:
        n = stack.pop()
        if n.type == "as_pattern_target":
            _unknown(scope, n)
        elif n.type == "as_pattern":
            alias = n.child_by_field_name("alias")
            if alias is not None:
                _unknown(scope, alias)
            stack.extend(c for c in n.named_children if c != alias)
        elif n.type not in _SCOPES and n.type != "block":
            stack.extend(n.named_children)


def _assignment(node: Node, scope: Scope, self_name: str | None, fields: Scope | None) -> None:
    left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
    if left is None:
        return
    while right is not None and right.type == "assignment":  # a = b = value
        _assignment(right, scope, self_name, fields)
        right = right.child_by_field_name("right")
    if (
        fields is not None
        and left.type == "attribute"
        and right is not None
        and text(left.child_by_field_name("object")) == self_name
    ):
        attr = left.child_by_field_name("attribute")
        if attr is not None:
            _bind(fields, text(attr), None, right)
        return
    _bind_target(scope, left, right)


def _bindings(node: Node, cache: dict) -> Scope:
    key = ("scope", node.start_byte, node.end_byte)
    found = cache.get(key)
    if found is not None:
        return found
    scope: Scope = {}
    cache[key] = scope
    if node.type in ("function_definition", "lambda"):
        for p in _names(node, cache):
            scope[p.lstrip("*")] = _PARAM
    elif node.type in _COMPREHENSIONS:  # [f(c) for c in xs]: c holds the items of xs
        for clause in node.named_children:
            if clause.type == "for_in_clause":
                left, right = (
                    clause.child_by_field_name("left"),
                    clause.child_by_field_name("right"),
                )
                if left is not None and left.type == "identifier" and right is not None:
                    _bind(scope, text(left), "in", right)
                else:
                    _unknown(scope, left)
        return scope
    body = node.child_by_field_name("body")
    if node.type == "module":
        _statements(node, scope, None, None)
    elif body is not None and body.type == "block":
        _statements(body, scope, None, None)
    return scope


def _fields(cls: Node, cache: dict) -> Scope:
    """``self.x = value`` in any method of the class: the values the field may hold."""
    key = ("fields", cls.start_byte, cls.end_byte)
    found = cache.get(key)
    if found is not None:
        return found
    fields: Scope = {}
    cache[key] = fields
    body = cls.child_by_field_name("body")
    for st in body.named_children if body is not None else ():
        fn = st.child_by_field_name("definition") if st.type == "decorated_definition" else st
        if fn is None or fn.type != "function_definition":
            continue
        params = _names(fn, cache)
        fbody = fn.child_by_field_name("body")
        if params and fbody is not None:
            _statements(fbody, {}, params[0], fields)
    return fields


def _subclass_fields(cls: Node, name: str, cache: dict) -> list[tuple[str | None, Node]]:
    """``self.x`` in a class that stores no ``x`` and whose bases are the file's own classes:
    what the file's subclasses of it store in ``x`` (``self`` is one of them when it runs).
    Read once per class and name."""
    key = ("subclass fields", cls, name)
    found = cache.get(key)
    if found is None:
        found = cache[key] = _subclass_fields_of(cls, name, cache)
    return found


def _subclass_fields_of(cls: Node, name: str, cache: dict) -> list[tuple[str | None, Node]]:
    root = _root(cls)
    own = cls.child_by_field_name("name")
    if own is None or _scope_of(cls) is None or _scope_of(cls).type != "module":
        return []
    for base in _base_names(cls):
        if _class_in(root, base, cache) is None:
            return []  # a base of another module may store it
    if _def_in(cls.child_by_field_name("body"), name, cache) is not None:
        return []
    out: list[tuple[str | None, Node]] = []
    todo, seen = [text(own)], {text(own)}
    while todo:
        parent = todo.pop()
        for sub in _subclasses(root, cache).get(parent, ()):
            sname = text(sub.child_by_field_name("name"))
            if sname in seen:
                continue
            seen.add(sname)
            todo.append(sname)
            bound = _fields(sub, cache).get(name)
            if bound and not isinstance(bound, str):
                out.extend(bound)
    return out


def _subclasses(root: Node, cache: dict) -> dict[str, list[Node]]:
    """The module-level classes of a file by the names of their bases, in the file's order."""
    found = cache.get("subclasses")
    if found is None:
        found = cache["subclasses"] = {}
        for st in root.named_children:
            sub = st.child_by_field_name("definition") if st.type == "decorated_definition" else st
            if sub is None or sub.type != "class_definition":
                continue
            for base in dict.fromkeys(_base_names(sub)):
                found.setdefault(base, []).append(sub)
    return found


def _base_names(cls: Node) -> list[str]:
    supers = cls.child_by_field_name("superclasses")
    return [
        text(b) for b in (supers.named_children if supers is not None else ()) if b.type in _DOTTED
    ]


def _find(node: Node, name: str, cache: dict) -> tuple[str, object, Node | None]:
    """How ``name`` is bound at ``node``, in the innermost scope around it that binds it:
    ("assigned", its assignments, scope), (_PARAM | _DEF | _OTHER, None, scope), or ("free",
    None, None). In the scope's own straight-line code an assignment is undone by the next one
    before ``node`` (``d["a"] = g`` after ``d = {"a": f}``), and one after ``node`` misses it."""
    scope = _scope_of(node, cache)
    first = True
    while scope is not None:
        if scope.type != "class_definition" or first:
            found = _bindings(scope, cache).get(name)
            if isinstance(found, str):
                return found, None, scope
            if found is not None:
                live = first and scope.type not in _COMPREHENSIONS  # `[f(x) for x in xs]`
                return "assigned", _live(found, node, scope) if live else found, scope
        first = False
        scope = _scope_of(scope, cache)
    return "free", None, None


def _name_values(
    at: Node, name: str, key: str | None, cache: dict, depth: int, head: bool
) -> list[str]:
    """What ``name`` (or its item ``key``) may hold at ``at``. ``head``: only what the scopes
    say beyond the name itself (a name the resolver finds on its own gives [])."""
    kind, entries, scope = _find(at, name, cache)
    if kind == "assigned":
        return _all(entries, key, cache, depth + 1)  # type: ignore[arg-type]
    if kind == _PARAM and key is None and scope is not None and scope.type == "lambda":
        return _lambda_param_values(scope, name, cache, depth + 1)
    if kind == _PARAM and key is None and scope is not None and scope.type != "lambda":
        if not head and _self_class(at, name, cache) is not None:
            return [name]  # `self`: the caller's own, read in the caller's method
        return _param_values(scope, name, cache, depth + 1)
    if kind == _DEF and key is None and scope is not None and scope.type != "class_definition":
        dd = _decorated_def(scope, name)  # @dec over def f: f is what dec returns
        applied = _applied(dd, 0, cache, depth) if dd is not None else None
        if applied is not None:
            return applied
    if head or key is not None:
        return []
    if kind == "free" or (scope is not None and scope.type == "module"):
        return [name]
    if kind == _DEF and scope is not None and scope.type == "function_definition":
        path = _local_path(scope)  # a closure of a module-level def (or of one of its closures)
        return [f"{path}.<locals>.{name}"] if path else []
    return []


def _local_path(fn: Node) -> str | None:
    """``outer.<locals>.inner`` for a def nested in module-level defs only; None otherwise."""
    names: list[str] = []
    cur: Node | None = fn
    while cur is not None and cur.type == "function_definition" and len(names) <= _MAX_DEPTH:
        names.append(text(cur.child_by_field_name("name")))
        cur = _scope_of(cur)
    if cur is None or cur.type != "module":
        return None
    return ".<locals>.".join(reversed(names))


def _straight(node: Node, scope: Node) -> bool:
    """Whether ``node`` runs in its scope's straight-line code (in no branch or loop)."""
    cur = node.parent
    while cur is not None and cur != scope:
        if cur.type in _COMPOUND and cur.type != "block" or cur.type in _SCOPES:
            return False
        cur = cur.parent
    return True


def _live(
    found: list[tuple[str | None, Node]], at: Node, scope: Node
) -> list[tuple[str | None, Node]]:
    pos = at.start_byte
    at_straight = _straight(at, scope)
    last: dict[str | None, int] = {}
    for k, v in found:
        if v.start_byte < pos and k != "?" and _straight(v, scope):
            last[k] = max(last.get(k, -1), v.start_byte)
    return [
        (k, v)
        for k, v in found
        if v.start_byte >= last.get(k, -1)
        and not (at_straight and v.start_byte > pos and _straight(v, scope))
    ]


def _values(node: Node, cache: dict, depth: int = 0) -> list[str]:
    """What an expression may evaluate to, as texts the resolver reads; [] when unknown.

    Memoised per file by (node, depth): the calls of a function read the same assignments
    again and again. A result that a cycle guard cut short (see ``_busy``) is what the
    expression gives only while that guard's computation is under way: it is kept in that
    computation's memo, dropped when it ends."""
    if depth > _MAX_DEPTH:
        return []
    memo, frames, _, hits = _state(cache)
    key = (node, depth)
    found = memo.get(key)
    if found is not None:
        return found
    for i in range(len(frames) - 1, -1, -1):
        found = frames[i].get(key)
        if found is not None:
            hits[-1].add(i)
            return found
    hits.append(set())
    try:
        found = _values_of(node, cache, depth)
    finally:
        cut = hits.pop()
    hits[-1] |= cut
    (frames[max(cut)] if cut else memo)[key] = found
    return found


def _state(cache: dict) -> tuple[dict, list[dict], dict, list[set[int]]]:
    """The memo of ``_values``; a memo per guarded computation under way, innermost last; the
    guards' keys, each with the index of its computation; per ``_values`` under way, the
    computations whose cycle guards answered in it."""
    state = cache.get("values")
    if state is None:
        state = cache["values"] = ({}, [], {}, [set()])
    return state


@contextmanager
def _busy(cache: dict, key: object) -> Iterator[None]:
    """A guarded computation under way: asked for again before it ends, it answers what it
    has so far (a cycle), and ``_cut`` tells ``_values``."""
    _, frames, busy, hits = _state(cache)
    busy[key] = len(frames)
    frames.append({})
    try:
        yield
    finally:
        frames.pop()
        hits[-1].discard(busy.pop(key))


def _cut(cache: dict, key: object) -> None:
    """The guard ``key`` answered before its computation ended: what ``_values`` finds now
    holds only while it is under way. (A guard left by an error answers the same for good.)"""
    _, _, busy, hits = _state(cache)
    i = busy.get(key)
    if i is not None:
        hits[-1].add(i)


def _values_of(node: Node, cache: dict, depth: int) -> list[str]:
    t = node.type
    if t == "identifier":
        return _name_values(node, text(node), None, cache, depth, head=False)
    if t == "attribute":
        if not _pure_dotted(node):
            return []
        root = node
        while root.type == "attribute":
            root = root.child_by_field_name("object")
        rest = text(node)[len(text(root)) :]
        if rest[:1] != ".":
            return []
        cls = _self_class(root, text(root), cache)
        first = root.parent.child_by_field_name("attribute")
        if cls is not None and first is not None:  # self.x: what the class's methods store in x
            if _def_in(cls.child_by_field_name("body"), text(first), cache) is None:
                bound = _fields(cls, cache).get(text(first))
                if bound and not isinstance(bound, str):
                    after = rest[len(text(first)) + 1 :]
                    values = _all(bound, None, cache, depth + 1)  # type: ignore[arg-type]
                    return [v + after for v in values if not (after and ".<locals>." in v)]
        roots = _name_values(root, text(root), None, cache, depth, head=False)
        return [r + rest for r in roots if ".<locals>." not in r]
    if t == "parenthesized_expression" and node.named_child_count == 1:
        return _values(node.named_children[0], cache, depth)
    if t == "call":
        fn = node.child_by_field_name("function")
        if fn is None:
            return []
        returned = _returned(fn, cache, depth)
        if returned is not None:
            return returned
        if fn.type not in _DOTTED or not _pure_dotted(fn):
            return []
        return [text(fn) + "()"]
    return []


def _all(
    bound: list[tuple[str | None, Node]], key: str | None, cache: dict, depth: int
) -> list[str]:
    """The values of a name's assignments: its own (key None), one item's (a literal key: that
    item's, and items stored under keys not known), any item's ("*")."""
    out: list[str] = []
    for k, v in bound:
        if key == _ITER:  # iterated: a list's or tuple's items (a dict gives its keys)
            if k is not None and k.isdigit():
                values = _values(v, cache, depth)
            elif k is None and v.type == "call":  # xs = map(f, ys): f's results
                values = _items(v, cache, depth)
            else:
                continue
        elif k == "in" and key is None:  # a loop variable: the items of what it iterates
            values = _items(v, cache, depth)
        elif (key == "*" and k is not None) or k == key or (key is not None and k == "?"):
            values = _values(v, cache, depth)
        elif key == "*" and k is None and v.type == "call":  # xs = map(f, ys): f's results
            values = _items(v, cache, depth)
        else:
            continue
        out.extend(val for val in values if val not in out)
    return out


def _items(node: Node, cache: dict, depth: int) -> list[str]:
    if node.type in ("list", "tuple", "set"):
        out: list[str] = []
        for item in node.named_children:
            out.extend(v for v in _values(item, cache, depth) if v not in out)
        return out
    if node.type == "identifier":
        found = _name_values(node, text(node), _ITER, cache, depth, head=True)
        return found or _iterated_items(node, cache, depth)
    fn = node.child_by_field_name("function") if node.type == "call" else None
    if fn is not None and fn.type == "identifier":  # a generator function: what it yields
        kind, _, scope = _find(fn, text(fn), cache)
        d = _def_in(scope, text(fn), cache) if kind == _DEF and scope is not None else None
        if d is not None and scope.type == "module":
            out = []
            for y in _yields(d.child_by_field_name("body")):
                out.extend(v for v in _values(y, cache, depth + 1) if v not in out)
            return out
    if node.type in ("call", "attribute"):  # an instance of a class of the file: its iteration
        found = _iterated_items(node, cache, depth)
        if found:
            return found
    args = node.child_by_field_name("arguments")
    if fn is not None and text(fn) == "map" and args is not None and args.type == "argument_list":
        if _find(fn, "map", cache)[0] == "free":  # map(f, xs): what f returns
            root, out = _root(node), []
            for f in _called_args(args, "*", "map", cache):
                out.extend(v for v in _text_returns(root, f, cache, depth) if v not in out)
            return out
    return []


def _returned(fn: Node, cache: dict, depth: int) -> list[str] | None:
    """What calling ``fn`` returns, where it is a function of this file that returns names (a
    nested def as ``f.<locals>.inner``): ``f()``, ``alias()`` (``alias = f``), ``f()()``, and a
    method ``x.m()`` of an instance of a class of this file (``x = C()``; ``return self.g`` is
    ``C().g``). None when no such function is known."""
    if depth > _MAX_DEPTH:
        return None
    t = fn.type
    if t == "identifier":
        kind, _, scope = _find(fn, text(fn), cache)
        if kind == _DEF and scope is not None:
            block = scope if scope.type == "module" else scope.child_by_field_name("body")
            d = _def_in(block, text(fn), cache)
            return (_def_returns(d, None, cache, depth) or None) if d is not None else None
        if kind != "assigned":
            return None
        callees = _values(fn, cache, depth)
    elif t == "call":
        inner = fn.child_by_field_name("function")
        callees = _returned(inner, cache, depth + 1) if inner is not None else None
    elif t == "attribute" and _pure_dotted(fn):
        callees = _values(fn, cache, depth)
    else:
        return None
    out: list[str] = []
    root = _root(fn)
    for callee in callees or ():
        out.extend(v for v in _text_returns(root, callee, cache, depth) if v not in out)
    return out or None


def _text_returns(root: Node, callee: str, cache: dict, depth: int) -> list[str]:
    """What calling ``callee`` (a value as ``_values`` writes it: ``f``, ``f.<locals>.g``,
    ``C().m``) returns, when it names a function of this file."""
    if callee.endswith("()") or "(" in callee.split(").", 1)[-1]:
        return []
    if "()." in callee:
        cname, _, method = callee.partition("().")
        cls = _class_in(root, cname, cache)
        d = (
            _method_in(root, cls, method, 0, cache)
            if cls is not None and "." not in method
            else None
        )
        return _def_returns(d, f"{cname}()", cache, depth) if d is not None else []
    d = _def_by_text(root, callee, cache)
    return _def_returns(d, None, cache, depth) if d is not None else []


def _def_returns(d: Node, self_value: str | None, cache: dict, depth: int) -> list[str]:
    """The values a def's ``return`` statements give; in a method, ``self`` as ``self_value``."""
    out: list[str] = []
    self_name = None
    if self_value is not None:
        params = _names(d, cache)
        self_name = params[0] if params else None
    for ret in _returns(d.child_by_field_name("body")):
        for v in _values(ret, cache, depth + 1):
            if self_name is not None and (v == self_name or v.startswith(self_name + ".")):
                v = self_value + v[len(self_name) :]
            elif self_name is not None and v.split(".")[0] == self_name:
                continue
            if v not in out:
                out.append(v)
    return out


def _class_in(root: Node, name: str, cache: dict) -> Node | None:
    return _defs_in(root, "class_definition", cache).get(name)


def _method_in(root: Node, cls: Node, name: str, depth: int, cache: dict) -> Node | None:
    """The def ``name`` of a class of this file, or of its bases in this file (depth first)."""
    found = _def_in(cls.child_by_field_name("body"), name, cache)
    if found is not None or depth > _MAX_DEPTH:
        return found
    supers = cls.child_by_field_name("superclasses")
    for base in supers.named_children if supers is not None else ():
        b = _class_in(root, text(base), cache) if base.type == "identifier" else None
        found = _method_in(root, b, name, depth + 1, cache) if b is not None else None
        if found is not None:
            return found
    return None


def _param_values(fn: Node, name: str, cache: dict, depth: int) -> list[str]:
    """What the calls of ``fn`` in this file pass as its parameter ``name`` (by position or
    keyword), and the parameter's default: ``apply(square, 3)`` binds ``func`` to ``square``."""
    if depth > _MAX_DEPTH:
        return []
    key = ("values", fn.start_byte, name)
    found = cache.get(key)
    # Worked out deeper, the values were cut shorter: worked out again from here.
    if found is None or (found is not _BUSY and cache[key, "depth"] > depth):
        cache[key] = _BUSY  # a cycle of calls passing the parameter on: nothing more
        cache[key, "depth"] = depth
        with _busy(cache, key):
            found = cache[key] = _param_values_of(fn, name, cache, depth)
    elif found is _BUSY:
        _cut(cache, key)
    return found


def _param_values_of(fn: Node, name: str, cache: dict, depth: int) -> list[str]:
    args, out = _param_sources(fn, name, cache, depth)
    for arg in args:
        out.extend(v for v in _values(arg, cache, depth) if v not in out)
    return out


def _param_sources(fn: Node, name: str, cache: dict, depth: int) -> tuple[list[Node], list[str]]:
    """What the file gives ``fn``'s parameter ``name``: the argument nodes of its calls (and its
    default), and the values of the defs a decorator ``fn`` is applied to."""
    params = _names(fn, cache)
    idx = next((i for i, p in enumerate(params) if p == name), None)
    fname = fn.child_by_field_name("name")
    if idx is None or fname is None:
        return [], []
    cls = _class_of(fn)
    pos = idx - 1 if cls is not None else idx
    if pos < 0:
        return [], []  # self
    args: list[Node] = []
    out: list[str] = []
    if cls is not None and text(fname) == "__init__":  # Button(greet): Button.__init__(greet)
        cname = cls.child_by_field_name("name")
        for call in _sites(fn, cache).get(text(cname), ()):
            callee = call.child_by_field_name("function")
            if callee.type == "identifier" and _find(callee, text(cname), cache)[0] == _DEF:
                args.append(_argument(call, pos, name))
    if pos == 0 and cls is None:  # @fname over a def: fname(the def)
        path = _local_path(fn)
        for d, i in _decorated_by(fn, path if path else text(fname), cache):
            values = _applied(d, i + 1, cache, depth) or []  # the def, or the wrapper below
            out.extend(v for v in values if v not in out)
    for call in _sites(fn, cache).get(text(fname), ()):
        callee = call.child_by_field_name("function")
        if cls is not None:
            recv = callee.child_by_field_name("object") if callee.type == "attribute" else None
            if recv is None or not _instance_of(recv, cls, call, cache):
                continue
        elif callee.type != "identifier" or _find(callee, text(fname), cache)[0] != _DEF:
            continue
        args.append(_argument(call, pos, name))
    for alias in _aliases(fn, text(fname), cache) if cls is None else ():
        for call in _sites(fn, cache).get(alias, ()):
            callee = call.child_by_field_name("function")
            if callee.type == "identifier":
                args.append(_argument(call, pos, name))
    mine = _fn_value(fn, cls)
    for call in _indirect_sites(fn, cache) if mine is not None else ():
        # `a(b)` where `a` holds this function: a parameter, a name assigned it, `make()(b)`
        if mine in _values(call.child_by_field_name("function"), cache, depth):
            args.append(_argument(call, pos, name))
    args.append(_default(fn, name))
    return [a for a in args if a is not None], out


def _item_nodes(expr: Node, key: str, cache: dict, depth: int) -> list[Node]:
    """The nodes of the items of a container ``expr`` holds under ``key`` (a literal key's text,
    or "*": any): through names, parameters (what the file's calls pass), the ``return`` of a
    function of the file, subscripts (``d["a"]["b"]``) and slices (``ls[1:]``)."""
    if depth > _MAX_DEPTH:
        return []
    t = expr.type
    out: list[Node] = []
    if t == "parenthesized_expression" and expr.named_child_count == 1:
        return _item_nodes(expr.named_children[0], key, cache, depth)
    if t == "dictionary":
        for pair in expr.named_children:
            v = pair.child_by_field_name("value") if pair.type == "pair" else None
            k = _key(pair.child_by_field_name("key")) or "?"
            if v is not None and (key == "*" or k == key or k == "?"):
                out.append(v)
    elif t in ("list", "tuple"):
        items = expr.named_children
        if any(i.type in ("list_splat", "comment") for i in items):
            return []
        if key == "*":
            return list(items)
        if key.isdigit() and int(key) < len(items):
            out.append(items[int(key)])
    elif t == "identifier":
        kind, entries, scope = _find(expr, text(expr), cache)
        if kind == "assigned":
            for k, v in entries:  # type: ignore[union-attr]
                if k is None:
                    out.extend(n for n in _item_nodes(v, key, cache, depth + 1) if n not in out)
                elif k != "in" and (key == "*" or k == key or k == "?"):
                    out.append(v)
        elif kind == _PARAM and scope is not None and scope.type == "function_definition":
            for arg in _param_sources(scope, text(expr), cache, depth + 1)[0]:
                out.extend(n for n in _item_nodes(arg, key, cache, depth + 1) if n not in out)
    elif t == "subscript":
        base, sub = expr.child_by_field_name("value"), expr.child_by_field_name("subscript")
        if base is None or sub is None:
            return []
        if sub.type == "slice":  # ls[1:3][0] is ls[1]; a step, a start not written: unknown
            parts = sub.children
            if [c.type for c in parts].count(":") != 1 or parts[0].type not in (":", "integer"):
                return []
            start = int(text(parts[0])) if parts[0].type == "integer" else 0
            shifted = str(int(key) + start) if key.isdigit() else key
            return _item_nodes(base, shifted, cache, depth + 1)
        for inner in _item_nodes(base, _key(sub) or "*", cache, depth + 1):
            out.extend(n for n in _item_nodes(inner, key, cache, depth + 1) if n not in out)
    elif t == "call":
        fn = expr.child_by_field_name("function")
        if fn is not None and fn.type == "identifier":
            kind, _, scope = _find(fn, text(fn), cache)
            if kind == _DEF and scope is not None:
                block = scope if scope.type == "module" else scope.child_by_field_name("body")
                d = _def_in(block, text(fn), cache)
                for ret in _returns(d.child_by_field_name("body")) if d is not None else ():
                    out.extend(n for n in _item_nodes(ret, key, cache, depth + 1) if n not in out)
    return out


def _lambda_param_values(lam: Node, name: str, cache: dict, depth: int) -> list[str]:
    """A parameter of a lambda assigned to a name (``apply = lambda f: f()``): what the calls of
    that name in the file pass (``apply(save)``), and the parameter's default."""
    if depth > _MAX_DEPTH:
        return []
    parent = lam.parent
    left = parent.child_by_field_name("left") if parent.type == "assignment" else None
    params = _names(lam, cache)
    if name not in params:
        return []
    pos = params.index(name)
    args = [_default(lam, name)]
    if left is not None and left.type == "identifier":
        here = _find(left, text(left), cache)[2]
        for call in _sites(lam, cache).get(text(left), ()):
            callee = call.child_by_field_name("function")
            if callee.type == "identifier" and _find(callee, text(left), cache)[2] == here:
                args.append(_argument(call, pos, name))
    out: list[str] = []
    for arg in args:
        out.extend(v for v in (_values(arg, cache, depth) if arg else ()) if v not in out)
    return out


def _fn_value(fn: Node, cls: Node | None) -> str | None:
    """A def as the value ``_values`` writes for it: ``f``, ``outer.<locals>.f``, and a method
    of a module-level class as bound to an instance, ``C().m``."""
    if cls is None:
        found = _def_value(fn)
        return found[0] if found else None
    cname = cls.child_by_field_name("name")
    fname = fn.child_by_field_name("name")
    scope = _scope_of(cls)
    if cname is None or fname is None or scope is None or scope.type != "module":
        return None
    return f"{text(cname)}().{text(fname)}"


def _indirect_sites(node: Node, cache: dict) -> list[Node]:
    """The file's calls through a value: the callee a name that a parameter or an assignment
    binds (``a(b)``, ``handler(x)``), or a call (``make()(b)``). Found once per file."""
    found = cache.get("indirect")
    if found is None:
        found = cache["indirect"] = []
        bound = _bound_names(node, cache)
        for call in _captures(node, cache).get("c", ()):
            callee = call.child_by_field_name("function")
            if callee.type == "call" or (
                callee.type == "identifier"
                and text(callee) in bound
                and _find(callee, text(callee), cache)[0] in ("assigned", _PARAM)
            ):
                found.append(call)
    return found


def _instance_of(recv: Node, cls: Node, call: Node, cache: dict) -> bool:
    """Whether ``recv`` is the method's own ``self`` or holds an instance of ``cls`` (a class at
    the module level: ``x = C()``, ``x.m(f)``)."""
    if _self_class(call, text(recv), cache) == cls:
        return True
    name = cls.child_by_field_name("name")
    if recv.type != "identifier" or name is None or _scope_of(cls).type != "module":
        return False
    return f"{text(name)}()" in _values(recv, cache, 1)


def _root(node: Node) -> Node:
    while node.parent is not None:
        node = node.parent
    return node


def _aliases(fn: Node, name: str, cache: dict) -> list[str]:
    """Module-level names assigned the module-level def ``name`` (``c = func``)."""
    if _scope_of(fn, cache) is None or _scope_of(fn, cache).type != "module":
        return []
    found = cache.get("aliases")
    if found is None:  # def name -> the names assigned it, read once per file
        found = cache["aliases"] = {}
        for alias, entries in _bindings(_root(fn), cache).items():
            if isinstance(entries, str):
                continue
            for k, v in entries:
                if k is None and v.type == "identifier":
                    names = found.setdefault(text(v), [])
                    if alias not in names:
                        names.append(alias)
    return found.get(name, [])


def _decorated_by(fn: Node, name: str, cache: dict) -> list[tuple[Node, int]]:
    """The defs of this file decorated ``@name``: (the decorated definition, the decorator's
    index, outermost first)."""
    found = cache.get("decorated")
    if found is not None:
        _cut(cache, "decorated")  # asked for while it is being filled in: what it has so far
    else:
        found = cache["decorated"] = {}
        with _busy(cache, "decorated"):
            _read_decorated(fn, found, cache)
    return found.get(name, [])


def _read_decorated(fn: Node, found: dict[str, list[tuple[Node, int]]], cache: dict) -> None:
    for d in _captures(fn, cache).get("d", ()):
        for i, dec in enumerate(c for c in d.named_children if c.type == "decorator"):
            inner = dec.named_children[0] if dec.named_child_count else None
            if inner is not None and inner.type == "identifier":
                found.setdefault(text(inner), []).append((d, i))
            elif inner is not None and inner.type == "call":  # @factory(...): what it returns
                fn = inner.child_by_field_name("function")
                for v in (_returned(fn, cache, 1) or []) if fn is not None else ():
                    found.setdefault(v, []).append((d, i))


def _def_value(dd: Node) -> list[str]:
    """A def (under its decorators) as a value, undecorated: ``f``, ``outer.<locals>.f``."""
    d = dd.child_by_field_name("definition") if dd.type == "decorated_definition" else dd
    name = d.child_by_field_name("name") if d is not None else None
    scope = _scope_of(dd)
    if name is None or scope is None:
        return []
    if scope.type == "module":
        return [text(name)]
    path = _local_path(scope) if scope.type == "function_definition" else None
    return [f"{path}.<locals>.{text(name)}"] if path else []


def _applied(dd: Node, start: int, cache: dict, depth: int) -> list[str] | None:
    """What a def's name holds once its decorators from ``start`` on (outermost first) are
    applied, innermost first: what each decorator returns (its wrapper ``dec.<locals>.inner``,
    or the function it was given). None when a decorator is no function of this file returning
    such a value (a library's, a factory we cannot follow)."""
    key = ("applied", dd.start_byte, start)
    if key in cache:
        if cache[key] is _BUSY_APPLIED:
            _cut(cache, key)
            return None  # a cycle: unknown
        return cache[key]
    cache[key] = _BUSY_APPLIED
    decorators = [c for c in dd.named_children if c.type == "decorator"]
    values: list[str] | None = _def_value(dd)
    with _busy(cache, key):
        for dec in reversed(decorators[start:]):
            if not values or depth > _MAX_DEPTH:
                values = None
                break
            values = _apply(dec, values, cache, depth + 1)
    cache[key] = values
    return values


def _apply(dec: Node, given: list[str], cache: dict, depth: int) -> list[str] | None:
    expr = dec.named_children[0] if dec.named_child_count else None
    if expr is None:
        return None
    if expr.type == "identifier":
        funcs = _values(expr, cache, depth)
    elif expr.type == "call":  # @factory(...): what the factory returns is the decorator
        funcs = _returned(expr.child_by_field_name("function"), cache, depth) or []
    else:
        return None
    root = _root(dec)
    out: list[str] = []
    for f in funcs:
        d = _def_by_text(root, f, cache)
        if d is None:
            return None
        params = _names(d, cache)
        returns = _returns(d.child_by_field_name("body"))
        if not params or not returns:
            return None
        for ret in returns:
            if ret.type == "identifier" and text(ret) == params[0]:
                values = given  # the function it was given
            else:
                values = _values(ret, cache, depth)
                if not values or any(_def_by_text(root, v, cache) is None for v in values):
                    return None
            out.extend(v for v in values if v not in out)
    return out or None


def _def_by_text(root: Node, value: str, cache: dict) -> Node | None:
    """The function of this file a value names: ``f`` (module level), ``f.<locals>.g``."""
    names = value.split(".<locals>.")
    if not all(n.isidentifier() for n in names):
        return None
    d = _def_in(root, names[0], cache)
    for inner in names[1:]:
        d = _def_in(d.child_by_field_name("body"), inner, cache) if d is not None else None
    return d


def _decorated_def(scope: Node, name: str) -> Node | None:
    block = scope if scope.type == "module" else scope.child_by_field_name("body")
    for st in block.named_children if block is not None else ():
        if st.type == "decorated_definition":
            d = st.child_by_field_name("definition")
            n = d.child_by_field_name("name") if d is not None else None
            if n is not None and text(n) == name and d.type == "function_definition":
                return st
    return None


def _argument(call: Node, pos: int, name: str) -> Node | None:
    args = call.child_by_field_name("arguments")
    i = 0
    for a in args.named_children if args is not None else ():
        t = a.type
        if t == "keyword_argument":
            if text(a.child_by_field_name("name")) == name:
                return a.child_by_field_name("value")
        elif t in ("list_splat", "dictionary_splat"):
            i = -(1 << 30)  # positions after a splat are unknown
        elif t != "comment":
            if i == pos:
                return a
            i += 1
    return None


def _default(fn: Node, name: str) -> Node | None:
    params = fn.child_by_field_name("parameters")
    for p in params.named_children if params is not None else ():
        if p.type in ("default_parameter", "typed_default_parameter"):
            if text(p.child_by_field_name("name")) == name:
                return p.child_by_field_name("value")
    return None


def _class_of(fn: Node) -> Node | None:
    parent = fn.parent
    if parent is not None and parent.type == "decorated_definition":
        parent = parent.parent
    cls = parent.parent if parent is not None and parent.type == "block" else None
    return cls if cls is not None and cls.type == "class_definition" else None


@cache
def _site_query() -> Query:
    return Query(SPEC.language, _SITE_QUERY)


# Calls and decorated defs (call sites of a function); the names any assignment, loop or
# parameter binds: a call whose head is none of them has nothing to annotate.
_SITE_QUERY = """
(call function: [(identifier) (attribute) (call)]) @c
(decorated_definition) @d
(assignment left: (_) @l)
(for_statement left: (identifier) @a)
(for_in_clause left: (identifier) @a)
(parameters [(identifier) @a (default_parameter name: (identifier) @a)
             (typed_parameter (identifier) @a) (typed_default_parameter name: (identifier) @a)])
(lambda_parameters [(identifier) @a (default_parameter name: (identifier) @a)])
"""


def _bound_names(node: Node, cache: dict) -> set[str]:
    found = cache.get("bound")
    if found is None:
        caps = _captures(node, cache)
        found = cache["bound"] = {text(n) for n in caps.get("a", ())}
        for d in caps.get("d", ()):  # a decorated def: bound to what its decorators return
            n = d.child_by_field_name("definition")
            n = n.child_by_field_name("name") if n is not None else None
            if n is not None:
                found.add(text(n))
        stack = list(caps.get("l", ()))
        while stack:
            n = stack.pop()
            if n.type == "identifier":
                found.add(text(n))
            elif n.type == "attribute":
                found.add(text(n.child_by_field_name("attribute")))
            else:
                stack.extend(n.named_children)
    return found


def _captures(node: Node, cache: dict) -> dict[str, list[Node]]:
    found = cache.get("captures")
    if found is None:
        caps = QueryCursor(_site_query()).captures(_root(node))
        found = cache["captures"] = {k: sorted(v, key=_start) for k, v in caps.items()}
    return found


def _start(node: Node) -> int:
    return node.start_byte


def _sites(node: Node, cache: dict) -> dict[str, list[Node]]:
    """The file's calls by the callee's last name, found once per file."""
    found = cache.get("sites")
    if found is None:
        found = cache["sites"] = {}
        for call in _captures(node, cache).get("c", ()):
            callee = call.child_by_field_name("function")
            last = callee.child_by_field_name("attribute") if callee.type == "attribute" else callee
            if last is not None and last.type != "call":
                found.setdefault(text(last), []).append(call)
    return found


def _def_in(block: Node | None, name: str, cache: dict) -> Node | None:
    """The first def ``name`` among a block's statements."""
    return _defs_in(block, "function_definition", cache).get(name) if block is not None else None


def _defs_in(block: Node, kind: str, cache: dict) -> dict[str, Node]:
    """A block's defs (or classes) of ``kind`` by name, the first of each name; read once per
    block and file."""
    key = ("defs", block, kind)
    found = cache.get(key)
    if found is None:
        found = {}
        for st in block.named_children:
            d = st.child_by_field_name("definition") if st.type == "decorated_definition" else st
            if d is not None and d.type == kind:
                n = d.child_by_field_name("name")
                if n is not None:
                    found.setdefault(text(n), d)
        cache[key] = found
    return found


def _returns(block: Node | None) -> list[Node]:
    out: list[Node] = []
    stack = [block] if block is not None else []
    while stack:
        n = stack.pop()
        for c in n.named_children:
            if c.type == "return_statement":
                if c.named_child_count == 1:
                    out.append(c.named_children[0])
            elif c.type == "block" or c.type in _COMPOUND:
                stack.append(c)
    return out


def _yields(block: Node | None) -> list[Node]:
    """The values a generator's ``yield`` statements give (not ``yield from``)."""
    out: list[Node] = []
    stack = [block] if block is not None else []
    while stack:
        n = stack.pop()
        for c in n.named_children:
            if c.type in ("expression_statement", "yield"):
                for e in c.named_children if c.type != "yield" else (c,):
                    if (
                        e.type == "yield"
                        and e.named_child_count == 1
                        and "from" not in [x.type for x in e.children]
                    ):
                        out.append(e.named_children[0])
            elif c.type == "block" or c.type in _COMPOUND:
                stack.append(c)
    return out


def _annotate(node: Node, raw: str, cache: dict) -> str:
    """The call text with what its head name is bound to, where the scopes around tell."""
    t = node.type
    parent = node.parent
    if parent is not None and parent.type in _LOOPS:  # `for x in obj`: the iterated value
        return _iteration(node, parent, cache)
    if t != "call":
        names = raw.split(".", 2)
        bound = _bound_names(node, cache)
        if names[0].split("[", 1)[0] not in bound or (
            names[0] == "self" and (len(names) < 2 or names[1] not in bound)
        ):
            return _calling(node, raw, cache) if raw in _CALLING else raw
    if t == "identifier":
        head, key, rest = node, None, ""
    elif t == "attribute":
        head = node
        while head.type == "attribute":
            head = head.child_by_field_name("object")
            if head is None:
                return raw
        if head.type != "identifier":
            return raw
        key, rest = None, raw[len(text(head)) :]
        if rest[:1] != ".":
            return raw
        cls = _self_class(node, text(head), cache)
        if cls is not None:  # self.c.m(), self.c(): through the field c
            first = head.parent.child_by_field_name("attribute")
            if first is not None and (
                node != head.parent
                or _def_in(cls.child_by_field_name("body"), text(first), cache) is None
            ):
                bound = _fields(cls, cache).get(text(first)) or _subclass_fields(
                    cls, text(first), cache
                )
                if bound and not isinstance(bound, str):
                    values = _all(bound, None, cache, 1)  # type: ignore[arg-type]
                    after = rest[len(text(first)) + 1 :]
                    return _written(f"{text(head)}.{text(first)}", values, after) or raw
    elif t == "subscript":
        head = node.child_by_field_name("value")
        key, rest = _key(node.child_by_field_name("subscript")) or "*", ""
        values = (
            _name_values(node, text(head), key, cache, 0, head=True)
            if head is not None and head.type == "identifier"
            else []
        )
        if not values and head is not None:  # d["a"]["b"], f()["a"], ls2[0] (ls2 = ls[1:])
            for item in _item_nodes(head, key, cache, 1):
                values.extend(v for v in _values(item, cache, 1) if v not in values)
        return _written(text(node), values, "") or raw
    elif t == "call":  # make()(): what make returns
        fn = node.child_by_field_name("function")
        if fn is None:
            return raw
        return _written(raw, _returned(fn, cache, 1) or [], "") or raw
    else:
        return raw
    values = _name_values(node, text(head), key, cache, 0, head=True)
    if t == "attribute" and values and rest.count(".") == 1:  # x = C(); x.f(): C's field f
        fields = [f for v in values for f in _instance_field(node, v, rest[1:], cache, 1)]
        if fields:
            return _written(text(node), list(dict.fromkeys(fields)), "") or raw
    return _written(text(node) if key is not None else text(head), values, rest) or raw


def _instance_field(at: Node, value: str, attr: str, cache: dict, depth: int) -> list[str]:
    """``x.attr`` where ``x`` holds ``value``, an instance ``C()`` of a class of the file that
    defines no method ``attr`` but whose methods (or its bases' in the file) store
    ``self.attr = ...``: what they store, ``self`` being the instance (``C().g``)."""
    if not value.endswith("()") or not value[:-2].isidentifier():
        return []
    root = _root(at)
    cls = _class_in(root, value[:-2], cache)
    if cls is None or _method_in(root, cls, attr, 0, cache) is not None:
        return []
    out: list[str] = []
    todo, seen = [cls], set()
    while todo and len(seen) <= _MAX_DEPTH:
        c = todo.pop(0)
        if c in seen:
            continue
        seen.add(c)
        bound = _fields(c, cache).get(attr)
        for k, v in bound if bound and not isinstance(bound, str) else ():
            fn = _scope_of(v, cache)
            params = (
                _names(fn, cache) if fn is not None and fn.type == "function_definition" else ()
            )
            me = params[0] if params else None
            for val in _values(v, cache, depth + 1) if k is None and me else ():
                if val == me or val.startswith(me + "."):
                    val = value + val[len(me) :]
                elif val.split(".", 1)[0] == me:
                    continue
                if val not in out:
                    out.append(val)
        todo.extend(b for b in map(lambda n: _class_in(root, n, cache), _base_names(c)) if b)
    return out


# A loop over a value (``for x in obj``, ``[f(x) for x in obj]``) calls ``iter(obj)`` and then
# ``__next__`` on what it returns: the iteration protocol.
_LOOPS = ("for_statement", "for_in_clause")


def _iteration(node: Node, loop: Node, cache: dict) -> str:
    """The iterated expression of a loop as the calls the iteration protocol makes on it,
    ``(iter = C().__iter__ | C().__next__)``, where it holds an instance of a class (a class of
    the file, or a capitalised name as a reader takes for a class: ``Rows()``, ``db.Cursor()``);
    "" (no call recorded) for any other value: a list, a builtin, what a reader cannot tell."""
    if node.type == "identifier" and text(node) not in _bound_names(node, cache):
        return ""
    root = _root(node)
    aio = any(c.type == "async" for c in loop.children)
    first, then = ("__aiter__", "__anext__") if aio else ("__iter__", "__next__")
    out: list[str] = []
    for v in _instances(node, cache, 1):
        cname = v[:-2]
        if _class_in(root, cname, cache) is None and not cname.rsplit(".", 1)[-1][:1].isupper():
            continue
        for call in (f"{v}.{first}", f"{v}.{then}"):
            if call not in out:
                out.append(call)
    return _written("iter", out, "") or ""


def _instances(node: Node, cache: dict, depth: int) -> list[str]:
    """The values of ``node`` that are an instance of a named class: ``C()``, ``mod.C()``."""
    return [
        v
        for v in _values(node, cache, depth)
        if v.endswith("()") and _pure_text(v[:-2]) and v.split(".", 1)[0] not in _BUILTIN_NAMES
    ]


def _pure_text(value: str) -> bool:
    return all(p.isidentifier() for p in value.split("."))


_BUILTIN_NAMES = frozenset(dir(builtins))


def _iterated_items(node: Node, cache: dict, depth: int) -> list[str]:
    """What a loop over an instance of a class of the file gives its variable: what the class's
    ``__next__`` returns on what ``__iter__`` returns (``return self``), or what ``__iter__``
    yields (a generator method)."""
    root = _root(node)
    out: list[str] = []
    for v in _instances(node, cache, depth):
        cls = _class_in(root, v[:-2], cache)
        it = _method_in(root, cls, "__iter__", 0, cache) if cls is not None else None
        if it is None:
            continue
        for y in _yields(it.child_by_field_name("body")):
            out.extend(r for r in _values(y, cache, depth + 1) if r not in out)
        for iterator in _def_returns(it, v, cache, depth):
            if iterator.endswith("()") and _pure_text(iterator[:-2]):
                found = _text_returns(root, f"{iterator}.__next__", cache, depth)
                out.extend(r for r in found if r not in out)
    return out


# Builtins that call a function they are given, during the call: which arguments ("*": every
# positional one, else the keyword's name).
_CALLING = {"map": "*", "filter": "*", "sorted": "key", "min": "key", "max": "key"}


def _calling(node: Node, raw: str, cache: dict) -> str:
    """``map(f, xs)``, ``sorted(xs, key=f)``: the builtin runs ``f`` during the call, so the call
    reaches it too: ``(map = map | f)``. Only where the file binds no other ``map``."""
    call = node.parent
    args = call.child_by_field_name("arguments") if call is not None else None
    if args is None or args.type != "argument_list" or _find(node, raw, cache)[0] != "free":
        return raw
    values = _called_args(args, _CALLING[raw], raw, cache)
    return (_written(raw, [raw, *values], "") or raw) if values else raw


def _called_args(args: Node, which: str, raw: str, cache: dict) -> list[str]:
    values: list[str] = []
    for a in args.named_children:
        if which == "*" and a.type in _DOTTED:
            arg: Node | None = a
        elif a.type == "keyword_argument" and text(a.child_by_field_name("name")) == which:
            arg = a.child_by_field_name("value")
        else:
            continue
        if arg is not None and arg.type in _DOTTED:
            values.extend(v for v in _values(arg, cache, 1) if v not in values and v != raw)
    return values


def _written(expr: str, values: list[str], rest: str) -> str | None:
    if not values or len(values) > _MAX_VALUES:
        return None
    return f"({' '.join(expr.split())} = {' | '.join(values)}){rest}"


def _self_class(node: Node, name: str, cache: dict) -> Node | None:
    """The class whose method binds ``name`` as its first parameter, around ``node``."""
    fn = _scope_of(node, cache)
    while fn is not None and (fn.type == "lambda" or fn.type in _COMPREHENSIONS):
        fn = _scope_of(fn, cache)
    if fn is None or fn.type != "function_definition":
        return None
    params = _names(fn, cache)
    if not params or params[0] != name:
        return None
    key = ("class", fn.start_byte)
    if key not in cache:
        cache[key] = _class_of(fn)
    return cache[key]


class _Bound(Receivers):
    def annotate(self, node: Node, text: str, cache: dict) -> str:
        try:
            return _annotate(node, text, cache)
        except (AttributeError, TypeError, ValueError):  # an odd tree (error recovery)
            return text


RECEIVERS = _Bound(scopes={})


SPEC = LanguageSpec(
    name="python",
    grammar="python",
    query_path=query_file(__file__, "python"),
    outer=_outer,
    parameters=_parameters,
    docstring=_docstring,
    decorators=_decorators,
    bases=_bases,
    imports=_imports,
    receivers=RECEIVERS,
)

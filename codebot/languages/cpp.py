"""C++: namespaces, classes, out-of-line `Foo::bar` methods, templates (the shared parts: _cfamily).

Macros the grammar cannot read are blanked before parsing (:func:`blank_macros`): a namespace
opened by a macro (`FMT_BEGIN_NAMESPACE`, `ABSL_NAMESPACE_BEGIN`) and attribute-like macros in a
declaration's head (`FMT_NODISCARD FMT_INLINE auto format(..)`, `class FMT_API format_error`)
otherwise make tree-sitter misparse the definitions that follow.
"""

from __future__ import annotations

import re

from tree_sitter import Node

from codebot.core.model import Import
from codebot.languages import _cfamily
from codebot.languages.base import LanguageSpec, query_file, squash, text
from codebot.languages.receivers import Bindings, Receivers, declared, valued

__all__ = ["SPEC", "blank_macros", "outside_angles", "typed_token"]


def _bases(node: Node) -> tuple[str, ...]:
    """Base classes without their access specifiers: `: public Base, private ns::Mixin<T>`."""
    clause = next((c for c in node.named_children if c.type == "base_class_clause"), None)
    if clause is None:
        return ()
    return tuple(
        squash(text(c), 200)
        for c in clause.named_children
        if c.type not in ("access_specifier", "virtual", "comment")
    )


def _decorators(node: Node) -> tuple[str, ...]:
    """C++11 attributes before a function: `[[nodiscard]]`."""
    return tuple(
        squash(text(c)[2:-2].strip(), 200)
        for c in node.named_children
        if c.type == "attribute_declaration"
    )


def _imports(node: Node) -> list[Import]:
    line = node.start_point[0] + 1
    if node.type == "preproc_include":
        return _cfamily.include(node)
    if node.type == "namespace_alias_definition":
        target = next((c for c in node.named_children if c.type != "namespace_identifier"), None)
        alias = node.child_by_field_name("name")
        return [Import("::".join(_cfamily.qualified_parts(target)), alias=text(alias), line=line)]
    parent = node.parent
    if parent is not None and parent.type == "field_declaration_list":
        return []  # `using Base::Base;` in a class brings members, not a module
    target = node.named_children[-1] if node.named_child_count else None
    parts = _cfamily.qualified_parts(target) if target is not None else []
    if not parts:
        return []
    if any(c.type == "namespace" for c in node.children):
        return [Import("::".join(parts), "*", line=line)]  # `using namespace std;`
    return [Import("::".join(parts[:-1]), parts[-1], line=line)]


# --- receivers: the types of locals, parameters and fields -------------------------------------


_MAKE_SMART = re.compile(r"(?:::)?(?:std::)?make_(?:unique|shared)<\s*([\w:<>, ]+?)\s*>")


def _declared_names(type_node: Node | None, decl: Node | None, out: Bindings) -> None:
    """One declarator of a declaration: `Widget w;`, `Widget *p = new Widget;` (the declared
    type), `auto w = Widget(3);`, `auto p = new Widget(4);`, `auto p =
    std::make_unique<Widget>();` (the value); `auto x = y;` binds ``x`` with no type."""
    value = (
        decl.child_by_field_name("value")
        if decl is not None and decl.type == "init_declarator"
        else None
    )
    name = _cfamily.declarator_name(decl)
    if name is None or name.type not in ("identifier", "field_identifier"):
        return
    auto = type_node is None or type_node.type == "placeholder_type_specifier"
    if not auto:
        out[text(name)] = declared(_const(type_node) + text(type_node) + _pointer(decl))
        return
    what = None
    if value is not None and value.type == "call_expression":
        callee = text(value.child_by_field_name("function"))
        smart = _MAKE_SMART.fullmatch(callee)
        if smart is not None:  # `std::make_unique<Widget>(..)`: what `->` reaches
            what = declared(smart[1])
        elif "<" not in callee:
            what = valued(callee)
    elif value is not None and value.type == "new_expression":
        what = valued(text(value.child_by_field_name("type")), construct=True)
    out[text(name)] = what


def _const(type_node: Node) -> str:
    """``const ``: the declaration's object is const (`const Widget &w`, `const Widget *p`;
    not `Widget *const p`), for the resolver to choose a const member of an overload set."""
    parent = type_node.parent
    if parent is None:
        return ""
    for c in parent.children:
        if c.type == "type_qualifier" and text(c) == "const":
            return "const "
        if c.id == type_node.id:
            break
    return ""


def _pointer(decl: Node | None) -> str:
    """``*``: the declarator declares a pointer (`Widget *p`, `int *n = &k`) or an array."""
    if decl is not None and decl.type == "init_declarator":
        decl = decl.child_by_field_name("declarator")
    pointer = ("pointer_declarator", "array_declarator")  # (an array is passed as a pointer)
    return "*" if decl is not None and decl.type in pointer else ""


_CONDITIONAL = frozenset(
    ("preproc_if", "preproc_ifdef", "preproc_else", "preproc_elif", "preproc_elifdef")
)


def _block(node: Node) -> Bindings:
    """The names a block declares, those in its `#if` branches too (a local declared under
    `#if FMT_USE_LOCALE` is one)."""
    out: Bindings = {}
    todo = list(node.named_children)
    while todo:
        child = todo.pop(0)
        if child.type in ("declaration", "field_declaration"):
            type_node = child.child_by_field_name("type")
            for decl in child.children_by_field_name("declarator"):
                _declared_names(type_node, decl, out)
        elif child.type in _CONDITIONAL:
            todo[:0] = child.named_children
    return out


def _params(node: Node) -> Bindings:
    """A function's or lambda's parameters."""
    decl = _cfamily.function_declarator(node) if node.type == "function_definition" else None
    if node.type == "lambda_expression":
        decl = node.child_by_field_name("declarator")
    params = decl.child_by_field_name("parameters") if decl is not None else None
    out: Bindings = {}
    for p in params.named_children if params is not None else ():
        if p.type in ("parameter_declaration", "optional_parameter_declaration"):
            _declared_names(p.child_by_field_name("type"), p.child_by_field_name("declarator"), out)
    return out


def _range_for(node: Node) -> Bindings:
    out: Bindings = {}
    _declared_names(node.child_by_field_name("type"), node.child_by_field_name("declarator"), out)
    return out


def _for(node: Node) -> Bindings:
    init = node.child_by_field_name("initializer")
    return _block(node) if init is None else _block(_Holder(init))


class _Holder:
    """One node seen as a block holding it (a `for` statement's initializer)."""

    def __init__(self, node: Node) -> None:
        self.named_children = [node]


def _arguments(node: Node, bound=None) -> str | None:
    """``(", 1, lv)``: the arguments the call at ``node`` passes, one token each (see
    :func:`_argument`), for the resolver to choose among overloads by number and kind; None
    where a pack expansion (`args...`) hides the number."""
    call = node.parent
    if call is None or call.type not in ("call_expression", "new_expression"):
        return None
    args = call.child_by_field_name("arguments")
    if args is None:
        return "()" if call.type == "new_expression" else None  # `new Widget`
    values = [c for c in args.named_children if c.type != "comment"]
    if any(c.type == "parameter_pack_expansion" for c in values):
        return None
    if args.type != "argument_list":  # `new Widget{1, 2}`: a braced list (aggregates, too)
        return "(" + ", ".join("?" * len(values)) + ")"
    tokens = [_argument(v, node, bound) for v in values]
    if values and _own_parameters(node, values):
        tokens.append("~")  # `dup(fd)` in `dup(int fd)`: the caller's parameters, unchanged
    return "(" + ", ".join(tokens) + ")"


def _enclosing_declarator(node: Node) -> Node | None:
    """The declarator of the function definition ``node`` is in (None inside a lambda, whose
    parameters and qualifiers are its own, or outside any function)."""
    fn = node.parent
    while fn is not None and fn.type not in ("function_definition", "lambda_expression"):
        fn = fn.parent
    if fn is None or fn.type != "function_definition":
        return None
    return _cfamily.function_declarator(fn)


def _own_parameters(node: Node, values: list[Node]) -> bool:
    """Whether a call passes exactly the parameters of the function around it, in order."""
    decl = _enclosing_declarator(node)
    params = decl.child_by_field_name("parameters") if decl is not None else None
    names = []
    for p in params.named_children if params is not None else ():
        name = _cfamily.declarator_name(p.child_by_field_name("declarator"))
        names.append(text(name) if name is not None else None)
    return len(names) == len(values) and all(
        v.type == "identifier" and text(v) == n for v, n in zip(values, names)
    )


# The C library's standard streams: `fmt::print(stderr, ..)` passes a `FILE*`.
_STREAMS = frozenset(("stdin", "stdout", "stderr"))
_ARITHMETIC = re.compile(
    r"(?:(?:const|volatile|unsigned|signed|short|long|int|char|bool|float|double|size_t|"
    r"ssize_t|ptrdiff_t|u?int(?:8|16|32|64|max|ptr)_t|wchar_t|char(?:8|16|32)_t)\s*)+"
)


_LIMITS = re.compile(
    r"(?:::)?std::numeric_limits<\s*([\w: ]+?)\s*>::(?:max|min|lowest|epsilon|infinity|quiet_NaN)"
)
_ITERATORS = frozenset(("begin", "end", "cbegin", "cend", "rbegin", "rend"))
_STD_ITERATORS = frozenset("std::begin std::end std::cbegin std::cend std::prev std::next".split())
_CALLEE = re.compile(r"(?:::)?[A-Za-z_]\w*(?:::[A-Za-z_]\w*)*")
_CASTS = frozenset(
    ("static_cast", "reinterpret_cast", "const_cast", "ImplicitCast_", "implicit_cast")
)


def outside_angles(text: str) -> str:
    """``std::basic_string_view<Char>*`` -> ``std::basic_string_view*``: the text outside
    template arguments."""
    depth, out = 0, []
    for ch in text:
        if ch == "<":
            depth += 1
        elif ch == ">":
            depth -= 1
        elif depth == 0:
            out.append(ch)
    return "".join(out)


def typed_token(type_text: str) -> str:
    """``n`` for an integral type (``n.`` a floating-point one); ``:T`` (``:std::string``) for another, its
    template arguments and qualifiers dropped; ``?`` for one we cannot read."""
    t = " ".join(type_text.replace("const ", " ").replace("volatile ", " ").split())
    t = re.sub(r"\bconst\b", "", t).strip()
    pointer = t.endswith("*")
    t = t.rstrip("*& ").strip()
    if not pointer and _ARITHMETIC.fullmatch(t):
        return "n." if re.search(r"\b(?:float|double)\b", t) else "n"
    base = outside_angles(t).strip().lstrip(":")
    if not re.fullmatch(r"[A-Za-z_]\w*(?:::[A-Za-z_]\w*)*|(?:unsigned |signed )?\w+", base):
        return "?"
    return f":{base}{'*' if pointer else ''}"


def _value(token: str) -> str:
    """``:T`` (a name's type) as ``=T``: a value made there (a cast, a temporary), an rvalue."""
    return "=" + token[1:] if token[:1] == ":" else token


def _template_names(node: Node) -> set[str]:
    """The type parameters of the templates around ``node`` (`template <typename T>`)."""
    out: set[str] = set()
    scope = node.parent
    while scope is not None:
        if scope.type == "template_declaration":
            params = scope.child_by_field_name("parameters")
            for p in params.named_children if params is not None else ():
                if p.type in ("type_parameter_declaration", "variadic_type_parameter_declaration"):
                    out |= {text(c) for c in p.named_children if c.type == "type_identifier"}
                elif p.type == "optional_type_parameter_declaration":
                    name = p.child_by_field_name("name")
                    if name is not None:
                        out.add(text(name))
        scope = scope.parent
    return out


def _argument(value: Node, at: Node, bound) -> str:
    """One argument as the resolver weighs it against a parameter: ``"`` a string literal
    (``w"`` a wide one: `L"x"`, `u"x"`, `U"x"`),
    ``'`` a character, ``0`` the literal zero (also a null pointer), ``1`` another integer,
    ``1.`` a floating literal, ``b`` true/false, ``nullptr``, ``&&`` `std::move(x)` (an
    rvalue), ``*`` an address (`&x`), ``FILE*`` a standard stream, ``n`` a name declared of an
    integral type (``n.`` floating-point), ``:T`` a name declared of type ``T`` (``:std::string``, ``:Widget*``),
    ``=T`` a value of type ``T`` made there (`static_cast<T>(x)`), ``%E`` a name in ``E``
    (`TestCordSize::kLarge`: of that type if ``E`` is an enum), ``@f`` what calling ``f``
    gives (`runtime(s)`, `std::string(s)`: the resolver looks ``f`` up), ``it`` an iterator
    (`xs.begin()`, `std::end(xs)`), ``lv``
    another name (an lvalue: it binds no `T&&` of a written type), ``?`` anything else."""
    kind = value.type
    if kind in ("string_literal", "raw_string_literal", "concatenated_string"):
        head = text(value)[:2]
        if head[:1] in ("L", "U") or head == 'u"':
            return 'w"'  # `L"{}"`: a wide literal
        return "?" if head == "u8" else '"'
    if kind == "char_literal":
        return "'"
    if kind == "unary_expression" and value.child_by_field_name("operator") is not None:
        op = text(value.child_by_field_name("operator"))
        inner = value.child_by_field_name("argument")
        if op in ("-", "+") and inner is not None and inner.type == "number_literal":
            value, kind = inner, inner.type
    if kind == "number_literal":
        t = text(value).lower().replace("'", "")
        hexa = t.startswith("0x")
        if "." in t or (not hexa and ("e" in t or t.endswith("f"))) or (hexa and "p" in t):
            return "1."
        digits = t.rstrip("ul")
        return "0" if digits.strip("0x") == "" and digits else "1"
    if kind in ("true", "false"):
        return "b"
    if kind == "null":  # `nullptr`, `NULL`
        return "nullptr"
    if kind == "call_expression":
        fn = value.child_by_field_name("function")
        if fn is not None and text(fn) in ("std::move", "move", "::std::move"):
            return "&&"
        limits = _LIMITS.fullmatch(text(fn)) if fn is not None else None
        if limits is not None:  # `std::numeric_limits<int64_t>::max()`: an `int64_t`
            return _value(typed_token(limits[1]))
        if fn is not None and fn.type == "template_function":
            name = fn.child_by_field_name("name")
            targs = fn.child_by_field_name("arguments")
            if name is not None and targs is not None and text(name) in _CASTS:
                inner = [c for c in targs.named_children if c.type == "type_descriptor"]
                return _value(typed_token(text(inner[0]))) if len(inner) == 1 else "?"
        if fn is not None and fn.type == "field_expression":
            field = fn.child_by_field_name("field")
            if field is not None and text(field) in _ITERATORS:
                return "it"  # `xs.begin()`: an iterator
        if fn is not None and text(fn) in _STD_ITERATORS:
            return "it"
        if fn is not None and fn.type in ("identifier", "qualified_identifier"):
            name = text(fn)
            if _CALLEE.fullmatch(name):
                return "@" + name  # what `name(..)` returns: the resolver looks it up
        return "?"
    if kind == "pointer_expression":
        op = value.child_by_field_name("operator")
        if op is not None and text(op) == "&":
            return "*"
        return "lv"  # `*p`
    if kind == "identifier":
        name = text(value)
        if name in _STREAMS:
            return "FILE*"
        what = bound(at, name) if bound is not None else None
        if what is not None and what.startswith(": "):
            token = typed_token(what[2:])
            if token[:1] == ":" and token[1:].rstrip("*") in _template_names(at):
                return "lv"  # `const From& from`: a template's parameter, any type
            return token if token != "?" else "lv"
        return "lv"
    if kind in ("field_expression", "subscript_expression"):
        return "lv"
    if kind == "qualified_identifier":
        scope = value.child_by_field_name("scope")
        name = value.child_by_field_name("name")
        if scope is not None and name is not None and name.type == "identifier":
            return "%" + text(scope)  # `TestCordSize::kLarge`: an enumerator, if an enum's
    return "?"


def _const_method(node: Node) -> bool:
    """Whether the function around ``node`` is a const member (`int size() const {..}`)."""
    decl = _enclosing_declarator(node)
    return decl is not None and any(
        c.type == "type_qualifier" and text(c) == "const" for c in decl.children
    )


class _CppReceivers(Receivers):
    """C++ writes `p->f()`: the receiver's type is looked up as for `p.f()`; the text keeps
    its arrow where no type is found."""

    def annotate(self, node: Node, text: str, cache: dict) -> str:
        arrow = "->" in text
        head, _, rest = text.partition("->") if arrow else text.partition(".")
        if not rest or not (head.isidentifier() or head == "this"):
            return super().annotate(node, text, cache)
        typed = super().annotate(node, f"{head}.{rest}", cache)
        if typed.startswith("("):
            field = rest.partition(".")[0] if head == "this" else head
            if not typed.startswith(f"({head}: const ", 0) and ": const " not in typed[:200]:
                if self._const_field(node, field, cache):
                    # `m_.go()` in a const method: `m_` is const there
                    typed = typed.replace(": ", ": const ", 1)
            return typed
        if head != "this" and self._local(node, head, cache):
            # `auto &numpunct = std::use_facet<..>(loc); numpunct.thousands_sep()`: a local
            # whose type is not written is no type or namespace of that name
            typed = super().annotate(node, f"({head}: ?).{rest}", cache)
            return typed
        args = _arguments(node)
        return f"{text}/{args}" if arrow and args is not None else typed

    def _const_field(self, node: Node, name: str, cache: dict) -> bool:
        """Whether ``name`` at ``node`` is a field of the class (no local or parameter of that
        name around) reached in a const method, not through a pointer."""
        scope = node.parent
        while scope is not None:
            if scope.type in self.scopes:
                found = self._names(scope, cache)
                if name in found:
                    what = found[name] or ""
                    return (
                        scope.type == "field_declaration_list"
                        and not what.endswith("*")
                        and _const_method(node)
                    )
            scope = scope.parent
        return False

    def _local(self, node: Node, name: str, cache: dict) -> bool:
        """Whether a scope around ``node`` binds ``name`` (typed or not)."""
        scope = node.parent
        while scope is not None:
            if scope.type in self.scopes:
                key = (scope.start_byte, scope.end_byte, scope.type)
                found = cache.get(key)
                if found is None:
                    try:
                        found = cache[key] = self.scopes[scope.type](scope)
                    except Exception:  # noqa: BLE001 - an odd tree (error recovery): no names
                        found = cache[key] = {}
                if name in found:
                    return True
            scope = scope.parent
        return False


_RECEIVERS = _CppReceivers(
    scopes={
        "compound_statement": _block,
        "function_definition": _params,
        "lambda_expression": _params,
        "for_range_loop": _range_for,
        "for_statement": _for,
        "field_declaration_list": _block,
    },
    member_scopes=frozenset({"field_declaration_list"}),
    arguments=_arguments,
)


# What the blanking never looks into: comments, string and character literals (raw strings too)
# and preprocessor lines with their continuations. Outside them, an ALL_CAPS name of three or
# more characters is a macro candidate.
_TOKENS = re.compile(
    rb"""(?P<skip>//[^\n]*|/\*.*?\*/|R"(?P<d>[^()\\\s"]{0,16})\(.*?\)(?P=d)"|"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'|^[ \t]*\#(?:[^\n\\]|\\.)*)|(?P<mac>\b[A-Z][A-Z0-9_]{2,}\b)""",
    re.S | re.M,
)
# Words that start (or continue) a declaration's head: a macro right before one is an attribute.
_DECL_WORDS = frozenset(
    b"""auto void bool char wchar_t char8_t char16_t char32_t int long short unsigned signed float
    double size_t const constexpr consteval constinit inline static virtual explicit friend extern
    template typename class struct union enum typedef using operator mutable volatile
    thread_local""".split()
)
_TYPE_KEYS = frozenset((b"class", b"struct", b"union", b"enum"))
_SPECIFIERS = frozenset((b"constexpr", b"inline", b"explicit", b"consteval", b"virtual"))
_CALLED = re.compile(rb"\s+[A-Za-z_]\w*[a-z]\w*\s*\(")
_AFTER_DECLARATOR = frozenset((b"const", b"override", b"final", b"noexcept", b")"))
_WORD = re.compile(rb"[A-Za-z_]\w*|\[\[|\S")
_HEAD = re.compile(rb"\s*(?:template\s*<.*>\s*)?(?:[A-Za-z_]\w*\s+)*")
_CAPS = re.compile(rb"[A-Z][A-Z0-9_]{2,}")


def _next_word(data: bytes, at: int, end: int) -> bytes:
    m = _WORD.search(data, at, end)
    return m[0] if m is not None else b""


def _macro_before(data: bytes, at: int, end: int, depth: int = 0) -> bool:
    """Whether the word at ``at`` starts a declaration: a keyword, `[[`, or another macro that
    does (`FMT_NODISCARD FMT_INLINE auto`)."""
    word = _next_word(data, at, end)
    if word in _DECL_WORDS or word == b"[[":
        return True
    if depth < 4 and _CAPS.fullmatch(word):
        after = data.index(word, at) + len(word)
        if _CALLED.match(data, after) is not None:
            return True  # `FMT_CONSTEXPR FMT_ALWAYS_INLINE named_arg_store(`: a constructor
        return _macro_before(data, after, end, depth + 1)
    return False


def blank_macros(data: bytes) -> bytes:
    """The file with the macros tree-sitter would misparse replaced by a comment of their
    length (`/*    */`; spaces for a three-letter name), byte for byte (the same length, no
    newline moved: every offset, line and column stays the file's), so that a doc comment
    above a macro's line still reads as the definition's:

    - a macro alone on its line (`FMT_BEGIN_NAMESPACE`, `ABSL_NAMESPACE_END`,
      `FMT_BEGIN_EXPORT`): a namespace it opens is transparent (its definitions are read as if
      written outside it; the resolver looks `fmt::format` up that way);
    - one among the leading words of a line, right before a declaration's word (`FMT_API
      void f()`, `FMT_CONSTEXPR20 auto g()`, `static FMT_INLINE int h()`) or a type's name
      (`class FMT_API format_error`), or between a specifier and a constructor's name
      (`constexpr FMT_ALWAYS_INLINE basic_format_args(`);
    - one after a declarator (`int size() const FMT_NOEXCEPT {`, or on the next line:
      `iterator insert(const value_type &v)` / `ABSL_ATTRIBUTE_LIFETIME_BOUND {`).

    Comments, literals and preprocessor lines are left as they are."""
    if _CAPS.search(data) is None:
        return data
    out: bytearray | None = None
    for m in _TOKENS.finditer(data):
        start = m.start("mac")
        if start < 0:
            continue
        end = m.end()
        line_start = data.rfind(b"\n", 0, start) + 1
        line_end = data.find(b"\n", end)
        if line_end < 0:
            line_end = len(data)
        before = data[line_start:start]
        after = data[end:line_end]
        blank = False
        rest = after.split(b"//", 1)[0].strip()
        if not before.strip() and not rest:
            blank = True  # alone on its line
        elif _HEAD.fullmatch(before):
            words = before.split()
            if _macro_before(data, end, line_end):
                blank = True
            elif words and words[-1] in _TYPE_KEYS and re.match(rb"\s+[A-Za-z_]\w*", after):
                blank = True  # `class FMT_API format_error`
            elif (
                words
                and (words[-1] in _SPECIFIERS or _CAPS.fullmatch(words[-1]))
                and (_CALLED.match(after))
            ):
                blank = True  # `constexpr FMT_ALWAYS_INLINE basic_format_args(`: a constructor
        if not blank:  # (the declarator may end on the line above)
            prev = data[max(0, start - 200) : start].rstrip()
            last = re.search(rb"(\w+|\))$", prev)
            nxt = _next_word(data, end, line_end)
            if (
                last is not None
                and last[0] in _AFTER_DECLARATOR
                and nxt in (b"{", b";", b"=", b"-", b"override", b"final", b"const", b"noexcept")
            ):
                blank = True  # `int size() const FMT_NOEXCEPT {`
        if blank:
            if out is None:
                out = bytearray(data)
            n = end - start  # a comment, where it fits: a doc comment above stays attached
            out[start:end] = b"/*" + b" " * (n - 4) + b"*/" if n >= 4 else b" " * n
    data = bytes(out) if out is not None else data
    return _blank_constraints(data) if b"template" in data else data


_CONSTRAINT = re.compile(rb",(\s*)[A-Z][A-Z0-9_]{2,}\(")
_TEMPLATE_HEAD = re.compile(rb"template\s*<[^;{}]*$")


def _blank_constraints(data: bytes) -> bytes:
    """`template <typename To, typename From, FMT_ENABLE_IF(sizeof(To) > sizeof(From))>`: a
    macro's constraint last in a template's parameters, whose `>` or `<` the grammar reads as
    closing the list (the function after it is lost), blanked with its comma (spaces, newlines
    kept). The signature still shows it (it reads the file's bytes)."""
    out: bytearray | None = None
    for m in _CONSTRAINT.finditer(data):
        open_ = m.end() - 1
        depth, i = 0, open_
        while i < len(data):
            ch = data[i]
            if ch == 40:  # (
                depth += 1
            elif ch == 41:  # )
                depth -= 1
                if depth == 0:
                    break
            elif ch in (59, 123, 125):  # ; { }: not a macro's arguments
                i = len(data)
                break
            i += 1
        if i >= len(data):
            continue
        inner = data[open_ + 1 : i]
        if b"<" not in inner and b">" not in inner:
            continue  # (the grammar reads it as it is)
        j = i + 1
        while j < len(data) and data[j] in b" \t\r\n":
            j += 1
        if j >= len(data) or data[j] != 62:  # `>`: the template's parameters end there
            continue
        head = data[max(0, m.start() - 400) : m.start()]
        if _TEMPLATE_HEAD.search(head) is None:
            continue
        if out is None:
            out = bytearray(data)
        for k in range(m.start(), i + 1):
            if out[k] != 10:
                out[k] = 32
    return bytes(out) if out is not None else data


SPEC = LanguageSpec(
    name="cpp",
    grammar="cpp",
    query_path=query_file(__file__, "cpp"),
    decorators=_decorators,
    bases=_bases,
    imports=_imports,
    preprocess=blank_macros,
    receivers=_RECEIVERS,
    **_cfamily.HOOKS,
)

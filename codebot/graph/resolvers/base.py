"""What every language resolver shares: targets, the call-text splitter and the walker.

A raw call (``self.repo.save``, ``fmt.Println``, ``Registry::instance().add``) is split into
pieces, each a name and how it is used (plain, called, indexed). The walker resolves the first
piece in the caller's scope (a hook per language), then each next piece as a member of what the
previous one was: a module's export, a type's member along its MRO, nothing for an unknown value.
What comes out is called: a function is the target, a type means its constructor, a library
value means an external call. Only a value of unknown type falls back to the repository's unique
definition of the last name, and that edge says so (``unique_name``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache

from codebot.core.model import FileResult, Symbol
from codebot.graph.resolvers.names import TYPES, NameTable, strip_duplicate

__all__ = [
    "CLS",
    "Ctx",
    "DECL",
    "Dialect",
    "EXACT",
    "EXT",
    "EXTERNAL",
    "AMBIGUOUS",
    "CALLED",
    "DYNAMIC",
    "EXTERNAL_CALL",
    "IGNORED",
    "INST",
    "LIBRARY_VALUE",
    "MOD",
    "NOT_LOCAL",
    "NO_EDGE",
    "OPAQUE",
    "OVERLOAD",
    "OVERRIDE",
    "Outcome",
    "PLAIN",
    "Resolver",
    "SUPER",
    "SYM",
    "Target",
    "UNIQUE",
    "UNRESOLVED",
    "is_extension",
    "split",
    "typed_head",
]

# Targets: (kind, value). A symbol; an instance of exactly a type; an instance of a declared type
# (it may be a subclass: calls on it also reach the overrides); a class object that may be a
# subclass (``cls``); the super-proxy of a type; a namespace (a module, a package, a directory:
# the language decides); something from a library.
SYM, INST, DECL, CLS, SUPER, MOD, EXT = "sym", "inst", "decl", "cls", "super", "mod", "ext"
NOT_LOCAL = object()  # Resolver.local: the name is not bound in the enclosing functions
Target = tuple[str, str]
EXTERNAL: Target = (EXT, "")
# A value of a library type (a parameter declared so): its own methods are the library's, but
# what they return may be anything.
LIBRARY_VALUE: Target = (EXT, "value")

# Outcomes of one call without an edge, each a reason: into a library, a builtin or the standard
# library (``external``); through a computed name, a subscript or reflection (``dynamic``); a name
# several definitions share and no rule picks one (``ambiguous``); the rest (``unknown``, the value
# of ``UNRESOLVED``). ``ignored``: not a call at all (a property setter decorator).
EXTERNAL_CALL, DYNAMIC, AMBIGUOUS, UNRESOLVED = "external", "dynamic", "ambiguous", "unknown"
IGNORED = "ignored"
NO_EDGE = (EXTERNAL_CALL, DYNAMIC, AMBIGUOUS, UNRESOLVED)  # in the order `stats` lists them
# Resolutions of an edge (core.model.RESOLUTIONS): ``override`` is a method overriding the one a
# call names on a value of a declared type (``self.m()`` -> a subclass's ``m``): a possible
# runtime target, the declared one being the ``exact`` edge.
EXACT, UNIQUE, OVERLOAD, OVERRIDE = "exact", "unique_name", "overload", "override"
Outcome = list[tuple[str, str]] | str

PLAIN, CALLED, OPAQUE = 0, 1, 2  # how a piece of a call text is used
_REACH_DEPTH = 3  # imports followed from a caller's file to find where a fallback may land
Piece = tuple[str, int]

_LITERAL = re.compile(r"""(?:[bBrRuUfF]{0,2}["'`]|[\[{]|\d)""")
_SIMPLE = re.compile(r"[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*")
# A receiver the parser typed (see ``codebot.languages.receivers``): ``(reader: JsonTreeReader)
# .hasNext`` (a declared type), ``(r = chi.NewRouter()).Get`` (the value it was assigned).
_SIMPLE_NAME = re.compile(r"[A-Za-z_$][\w$]*")
_TYPED_HEAD = re.compile(r"\((?P<expr>[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)?)(?P<op>: | = )")


def _typed(text: str) -> tuple[str, str, str, str] | None:
    """``(r = chi.NewRouter()).Get`` -> ("r", " = ", "chi.NewRouter()", "Get")."""
    m = _TYPED_HEAD.match(text)
    if m is None:
        return None
    depth = 1
    for i in range(m.end(), len(text)):
        ch = text[i]
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth == 0:
                if text[i + 1 : i + 2] != "." or i + 2 >= len(text):
                    return None
                return m["expr"], m["op"], text[m.end() : i], text[i + 2 :]
    return None


typed_head = _typed  # (public for the language resolvers that follow a typed chain themselves)


@dataclass(frozen=True)
class Dialect:
    """How a language writes call texts."""

    separators: str = r"\?\.|!!\.|!\."  # regex of member separators other than '.'
    prefixes: tuple[str, ...] = ("await ", "new ", "try! ", "try? ", "try ")
    ident: str = r"[@$]{0,2}[A-Za-z_][\w$]*"
    angle_generics: bool = False  # `f<T>` / `Vec::<u8>`: type arguments to drop
    bracket_generics: bool = False  # `Map[string]` (Go), `f[T]` (Scala): type arguments to drop


@lru_cache(maxsize=64)
def _compiled(d: Dialect) -> tuple[re.Pattern[str] | None, re.Pattern[str]]:
    return (re.compile(d.separators) if d.separators else None), re.compile(d.ident)


def split(text: str, dialect: Dialect, cache: dict[str, list[Piece] | None]) -> list[Piece] | None:
    """``self.repo.save`` -> [('self', PLAIN), ('repo', PLAIN), ('save', PLAIN)];
    ``A().m`` -> [('A', CALLED), ('m', PLAIN)]; None when the text is no path of names."""
    if text in cache:
        return cache[text]
    if _SIMPLE.fullmatch(text):
        out: list[Piece] | None = [(p, PLAIN) for p in text.split(".")]
    else:
        out = _split_slow(text, dialect)
    cache[text] = out
    return out


def _split_slow(text: str, dialect: Dialect) -> list[Piece] | None:
    seps, ident = _compiled(dialect)
    t = text.strip()
    for p in dialect.prefixes:
        if t.startswith(p):
            t = t[len(p) :].lstrip()
    if any(c.isspace() for c in t):
        t = "".join(t.split())  # `promise\n  .then`: a chain broken over lines
    if seps is not None:
        t = seps.sub(".", t)
    t = t.lstrip(".")
    parts: list[str] = []
    depth, start = 0, 0
    for i, ch in enumerate(t):
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == "<" and dialect.angle_generics:
            depth += 1
        elif ch == ">" and dialect.angle_generics and depth > 0:
            depth -= 1
        elif ch == "." and depth == 0:
            parts.append(t[start:i])
            start = i + 1
    parts.append(t[start:])
    pieces: list[Piece] = []
    for p in parts:
        p = p.strip()
        if not p or (p[0] == "<" and dialect.angle_generics):
            continue  # `Vec::<u8>::new`: the turbofish is no piece
        m = ident.match(p)
        if m is None:
            if not pieces:
                return None  # `(*cb)`, `"str".join`, `[a, b].map`: no name to start from
            pieces.append(("", OPAQUE))
            continue
        rest = p[m.end() :]
        if rest[:1] == "<" and dialect.angle_generics:
            rest = _after_group(rest, "<", ">")
        if rest[:1] == "[" and dialect.bracket_generics:
            rest = _after_group(rest, "[", "]")
        if not rest:
            pieces.append((m.group(), PLAIN))
        elif rest[0] == "(" and _after_group(rest, "(", ")") == "":
            pieces.append((m.group(), CALLED))
        else:
            pieces.append((m.group(), OPAQUE))
    return pieces or None


def _after_group(s: str, open_: str, close: str) -> str:
    depth = 0
    for i, ch in enumerate(s):
        if ch == open_:
            depth += 1
        elif ch == close:
            depth -= 1
            if depth == 0:
                return s[i + 1 :]
    return s  # unbalanced: leave it, the caller treats it as opaque


def _qualified_tail(text: str) -> str:
    """``fmt::detail::get_buffer<char>`` -> ``.fmt.detail.get_buffer``; ``""`` when the last
    name is not reached through ``::``."""
    head = text.split("(", 1)[0]
    last = head.rsplit(".", 1)[-1].rsplit("->", 1)[-1]
    if "::" not in last:
        return ""
    parts = [re.sub(r"<.*>", "", p).strip() for p in last.split("::")]
    return "." + ".".join(p for p in parts if p)


def is_extension(sym: Symbol, index: NameTable) -> bool:
    """A method defined for a type other than the one around it (``fun String.slug()``)."""
    if not sym.class_name:
        return False
    parent = index.by_id.get(sym.parent) if sym.parent else None
    return parent is None or parent.kind not in TYPES or parent.name != sym.class_name


def _abstract(sym: Symbol) -> bool:
    return any(d.endswith("abstractmethod") for d in sym.decorators)


@dataclass
class Ctx:
    """A caller, with what its calls are resolved against."""

    sym: Symbol
    file: FileResult
    cls: str | None  # the type whose method (or nested function) this is
    chain: list[Symbol]  # the caller, then the functions around it, innermost first
    scope: dict = field(default_factory=dict)  # per-language extras
    line: int = 0  # the line of the call being resolved (0: not known)


class Resolver:
    """Base of the language resolvers: the walker and the hooks it calls."""

    family = ""
    dialect = Dialect()
    self_names: frozenset[str] = frozenset({"this"})
    class_self_names: frozenset[str] = frozenset()  # `Self`, `static`: the class object itself
    super_names: frozenset[str] = frozenset({"super"})
    ctor_names: tuple[str, ...] = ()  # a type's constructor member; () = the type's own name
    ctor_inherited = False  # Python's __init__ is inherited; a Java constructor is not
    call_member = ""  # the member called when an instance is called (`__call__`)
    stop_names: frozenset[str] = frozenset()  # library method names a fallback never claims
    # Reflection, for calls that make no edge: a call whose last name dispatches by a name or a
    # value (Ruby's `o.send(:m)`, Java's `method.invoke(o)`), or a call of what a lookup by name
    # returned (Python's `getattr(o, name)()`, Go's `v.MethodByName(n).Call()`): ``dynamic``.
    dispatch_names: frozenset[str] = frozenset()
    reflect_names: frozenset[str] = frozenset()
    computed_prefix = ""  # a called name starting so is a variable's value (PHP's `$f()`)
    builtins: frozenset[str] = frozenset()
    capitalized_types = False  # a capitalized name is a type or namespace, never a value
    module_calls = False  # calls at module level (a chunk's) are resolved, from the chunk

    def __init__(self, index: NameTable, files: list[FileResult]) -> None:
        self.index = index
        self.files = files
        self.attached: dict[str, str] = {}  # method id -> type id, for methods outside their type
        self._split: dict[str, list[Piece] | None] = {}
        self._related: dict[str, set[str]] = {}
        self._unique_in: dict[tuple[str, str], bool] = {}
        self._reach: dict[str, set[str] | None] = {}
        self._direct: dict[str, set[str]] = {}
        self._why: dict[tuple[str, str], str] = {}  # (call text, outcome) -> no_edge's answer

    # --- hooks ----------------------------------------------------------------------------------

    def prepare(self) -> None:
        """Resolve bases, attach out-of-body methods: whatever calls need first."""

    def lookup(self, ctx: Ctx, name: str) -> Target | None:
        """The first piece of a call, a plain name in the caller's scope."""
        return None

    def local(self, ctx: Ctx, name: str) -> Target | None | object:
        """A name bound in the enclosing functions: a nested definition, or a parameter (its
        declared type, or None when it has none). ``NOT_LOCAL`` when the name is not bound
        there, so that ``lookup`` goes on to the file's and the module's names."""
        children = self.index.children
        for fn in ctx.chain:
            kids = children.get(fn.id)
            if kids is not None and name in kids:
                return (SYM, kids[name])
            for p in fn.parameters:
                if self.param_named(p.name, name):
                    t = self.param_type(ctx, fn, p.type) if p.type else None
                    return (DECL, t) if t is not None else None
        return NOT_LOCAL

    def param_named(self, param: str, name: str) -> bool:
        """Whether a parameter written ``param`` binds ``name`` (sigils differ by language)."""
        return param == name

    def param_type(self, ctx: Ctx, fn: Symbol, text: str) -> str | None:
        """The type id a parameter's declared type names."""
        return None

    def module_member(self, target: Target, name: str) -> Target | None:
        """A member of a namespace target (MOD)."""
        return None

    def bare_fallback(self, ctx: Ctx, name: str) -> Outcome:
        """A single name that is in no scope: a local variable, a library name..."""
        return EXTERNAL_CALL if name in self.builtins else UNRESOLVED

    def returns(self, sym_id: str) -> Target | None:
        """What calling a function gives, when its declared return type is known."""
        return None

    def import_targets(self, file: FileResult) -> list[tuple[int, str]]:
        """(line, symbol id) of what a file's imports bind, for ``imports`` edges."""
        return []

    # --- context --------------------------------------------------------------------------------

    def _resolve_bases(self, sym: Symbol, file: FileResult) -> None:
        """Record the bases of a type that resolve; any that does not leaves the hierarchy open
        (a method may then come from outside the repository)."""
        found, open_ = [], False
        for text in sym.bases:
            t = self.base_type(sym, file, text)
            if t is not None and t != sym.id:
                found.append(t)
            else:
                open_ = True
        self.index.set_bases(sym.id, found, open_)

    def base_type(self, sym: Symbol, file: FileResult, text: str) -> str | None:
        """The type id a base written as ``text`` names, or None: each language says how."""
        return None

    def context(self, sym: Symbol, file: FileResult) -> Ctx:
        by_id = self.index.by_id
        chain: list[Symbol] = []
        cls: str | None = None
        cur: Symbol | None = sym
        while cur is not None:
            if cur.kind in TYPES:
                if cls is None:
                    cls = cur.id
            else:
                chain.append(cur)
                if cls is None and cur.id in self.attached:
                    cls = self.attached[cur.id]
            cur = by_id.get(cur.parent) if cur.parent else None
        return Ctx(sym, file, cls, chain)

    # --- the walker -----------------------------------------------------------------------------

    def resolve_call(self, ctx: Ctx, text: str) -> Outcome:
        out = self._resolve_text(ctx, text)
        if isinstance(out, str):
            if out != EXTERNAL_CALL and out != UNRESOLVED:
                return out
            key = (text, out)
            why = self._why.get(key)
            if why is None:
                why = self._why[key] = self.no_edge(text, out)
            return why
        stubs = self.index.overload_stubs
        if stubs and isinstance(out, list) and any(d in stubs for d, _ in out):
            # An overload set with no implementation (a `.pyi`): any of its stubs, not known which
            out = [(m, OVERLOAD) for d, r in out for m in stubs.get(d, ())] + [
                (d, r) for d, r in out if d not in stubs
            ]
        return out

    def no_edge(self, text: str, out: str) -> str:
        """The reason a call makes no edge, ``out`` refined: reflection (a library's call, or
        one we could not follow) and a call of a subscript or of a computed expression
        (``handlers[name](x)``, ``(*cb)(x)``) are ``dynamic``."""
        if out not in (UNRESOLVED, EXTERNAL_CALL):
            return out
        if self.dispatch_names or self.reflect_names or self.computed_prefix:
            typed = _typed(text) if text[:1] == "(" else None
            pieces = split(typed[3] if typed else text, self.dialect, self._split)
            if pieces:
                last, how = pieces[-1]
                if how == PLAIN and last in self.dispatch_names:
                    return DYNAMIC
                if any(n in self.reflect_names for n, h in pieces if h == CALLED):
                    return DYNAMIC
                if self.computed_prefix and last.startswith(self.computed_prefix):
                    return DYNAMIC
        if out == UNRESOLVED:
            t = text.rstrip()
            if t.endswith("]") or (t.startswith("(") and t.endswith(")")):
                return DYNAMIC
        return out

    def _resolve_text(self, ctx: Ctx, text: str) -> Outcome:
        out = self._resolve(ctx, text)
        if isinstance(out, list) and "::" in text and all(r == UNIQUE for _, r in out):
            # `fmt::detail::get_buffer`: a fallback must agree with the path as written
            path = _qualified_tail(text)
            if path:
                local = self.index.local_name
                out = [(d, r) for d, r in out if ("." + strip_duplicate(local[d])).endswith(path)]
                return out or UNRESOLVED
        return out

    def _resolve(self, ctx: Ctx, text: str) -> Outcome:
        typed = _typed(text) if text[:1] == "(" else None
        if typed is not None:
            out = self._typed(ctx, typed)
            if out is not None:
                return out
            text = f"{typed[0]}.{typed[3]}"  # a type we cannot tell: as if untyped
        pieces = split(text, self.dialect, self._split)
        if pieces is None:
            # `"".join`, `[1, 2].map`, `` `x`.trim ``: a method of a literal is the language's
            return EXTERNAL_CALL if _LITERAL.match(text) else UNRESOLVED
        name, how = pieces[0]
        target = self.head(ctx, name, how, len(pieces) == 1)
        if isinstance(target, (str, list)):
            return target  # the head decided (a super constructor call, an ignored call)
        if target is None and len(pieces) == 1:
            return self.bare_fallback(ctx, name) if how == PLAIN else UNRESOLVED
        return self._walk(ctx, pieces, target)

    def _typed(self, ctx: Ctx, typed: tuple[str, str, str, str]) -> Outcome | None:
        """A call on a receiver of a type the parser read off its declaration or assignment:
        through that type (a library's: an external call); None when the type is unknown."""
        _, op, what, rest_text = typed
        if op == ": ":
            target = self.declared_type(ctx, what)
        else:
            target = self.value_of(ctx, what)
        if target is None:
            return None
        if target[0] == EXT:
            return self.external_member(ctx, what if op == ": " else None, rest_text)
        rest = split(rest_text, self.dialect, self._split)
        if rest is None or target[0] not in (INST, DECL) or not self.index.is_type(target[1]):
            return None
        name, how = rest[0]
        if how == PLAIN and name and self.index.find_member(target[1], name)[0] is None:
            # The type lacks the method: an extension defined elsewhere, or (a library base, a
            # field holding a function) something the untyped rules may still find.
            found = self.extension(target[1], name) if len(rest) == 1 else None
            return [(found, EXACT)] if found is not None else None
        out = self._walk(ctx, [("", PLAIN), *rest], target)
        if out == UNRESOLVED:
            return None  # a property's value on the way is unknown (`sdk.user.byId`): as if untyped
        return out

    def extension(self, type_id: str, name: str) -> str | None:
        """A method added to a type outside it (a Kotlin extension function), if one is."""
        return None

    def external_member(self, ctx: Ctx, type_text: str | None, rest: str) -> Outcome | None:
        """A call on a library's value (of declared type ``type_text``, or made by a library
        call): external, unless the language lets the repository add methods to a library type
        (an extension function); None: resolve it as if untyped. Past the first member
        (``(t: Track).kind.name``) the value may be anything: as if untyped."""
        return EXTERNAL_CALL if _SIMPLE_NAME.fullmatch(rest) else None

    def declared_type(self, ctx: Ctx, text: str) -> Target | None:
        """What a value declared of type ``text`` is: an instance of a repository type (DECL),
        a library's (EXTERNAL, where the language can tell), or None (unknown)."""
        t = self.param_type(ctx, ctx.sym, text)
        return (DECL, t) if t is not None else None

    def value_of(self, ctx: Ctx, text: str) -> Target | None:
        """What an expression (``new T()``, ``T::new()``, ``pkg.NewT()``) evaluates to."""
        pieces = split(text, self.dialect, self._split)
        if pieces is None or len(pieces) > 4:
            return None
        name, how = pieces[0]
        target = self.head(ctx, name, how, len(pieces) == 1)
        if isinstance(target, (str, list)):
            return None
        if len(pieces) == 1:
            return self.call_result(target) if how == CALLED else None
        for name, how in pieces[1:]:
            if target is None or target[0] == EXT:
                return target
            target = self.member(target, name) if name else None
            if how == CALLED:
                target = self.call_result(target)
            elif how == OPAQUE:
                return None
        return target

    def _walk(self, ctx: Ctx, pieces: list[Piece], target: Target | None) -> Outcome:
        recv: Target | None = None
        how = pieces[0][1]
        for i in range(1, len(pieces)):
            if target is None:
                last, how_last = pieces[-1]
                # An unknown value: only the last name can still say something.
                return self.member_fallback(last, ctx) if how_last == PLAIN else UNRESOLVED
            if target[0] == EXT:
                if target == LIBRARY_VALUE and i < len(pieces) - 1:
                    # `ctx.ensure_object(Info).load()`: what a library's method returns may be
                    # anything (one of ours): past the first member, as if untyped.
                    target = None
                    continue
                return EXTERNAL_CALL
            name, how = pieces[i]
            recv = target
            target = self.member(target, name) if name else None
            if target is None and i == len(pieces) - 1:
                if recv[0] in (SYM, INST, DECL, CLS, SUPER) and self.index.is_type(recv[1]):
                    # A member a known type does not have: inherited from a library if the type
                    # has a base we could not resolve, else an attribute holding a callable.
                    open_ = self.index.find_member(recv[1], name)[1]
                    return EXTERNAL_CALL if open_ else UNRESOLVED
                if recv[0] == MOD:
                    return UNRESOLVED
            if target is None and self.capitalized_types and name[:1].isupper():
                # `Rails::Dom::Testing.x`: a type or namespace the repository does not define
                if recv[0] == MOD or self.index.is_type(recv[1]):
                    return EXTERNAL_CALL
            if how == CALLED and i < len(pieces) - 1:
                target = self.call_result(target)
            elif how == OPAQUE:
                target = None
        if target is None:
            return UNRESOLVED
        if how == CALLED:  # `make()()`: what is called is what the call returned
            target = self.call_result(target)
            if target is None or target[0] != INST:
                return UNRESOLVED
        return self.call_target(target, recv)

    def head(self, ctx: Ctx, name: str, how: int, alone: bool) -> Target | Outcome | None:
        if name in self.super_names and ctx.cls is not None:
            if alone:  # `super()` in a constructor, `base(...)`: the base's constructor
                return self.super_ctor(ctx.cls)
            return (SUPER, ctx.cls)
        if name in self.self_names and ctx.cls is not None:
            target: Target | None = (DECL, ctx.cls)
        elif name in self.class_self_names and ctx.cls is not None:
            target = (CLS, ctx.cls)
        else:
            target = self.lookup(ctx, name)
        if how == CALLED and not alone:
            return self.call_result(target)
        if how == OPAQUE:
            return None
        return target

    def member(self, target: Target, name: str) -> Target | None:
        kind, value = target
        if kind == MOD:
            return self.module_member(target, name)
        if kind == EXT:
            return EXTERNAL
        if kind == SUPER:
            hit = self.index.find_member(value, name, skip=1)[0]
        elif kind in (SYM, INST, DECL, CLS) and self.index.is_type(value):
            hit = self.index.find_member(value, name)[0]
        else:
            return None  # an attribute of a function: unknown
        # Not found: unknown. Only the last name of a call may be blamed on a library base (see
        # resolve_call); a field of a type is no member here, and its value is of unknown type.
        return (SYM, hit) if hit is not None else None

    def member_path(self, target: Target | None, names: list[str]) -> Target | None:
        """Follow ``names`` as members from ``target``, one after another; a library (EXT)
        target, or one not found (None), is returned as it is."""
        for name in names:
            if target is None or target[0] == EXT:
                return target
            target = self.member(target, name)
        return target

    def call_result(self, target: Target | None) -> Target | None:
        """The value a call returns: an instance when a type is called."""
        if target is None:
            return None
        kind, value = target
        if kind == EXT:
            return EXTERNAL
        if kind in (SYM, CLS) and self.index.is_type(value):
            return (INST, value)
        if kind == SYM and self.index.is_callable(value):
            return self.returns(value)
        return None

    def call_target(self, target: Target, recv: Target | None) -> Outcome:
        kind, value = target
        index = self.index
        if kind == EXT:
            return EXTERNAL_CALL
        if kind in (SYM, CLS) and index.is_type(value):
            return [(self.constructor(value), EXACT)]
        if kind in (INST, DECL):
            if self.call_member:
                hit = index.find_member(value, self.call_member)[0]
                if hit is not None:
                    return [(hit, EXACT)]
            return UNRESOLVED
        if kind == SYM and value in index.by_id:
            out = [(value, EXACT)]
            if recv is not None and recv[0] in (DECL, CLS):
                more = index.overrides(recv[1], index.by_id[value].name)
                if more and _abstract(index.by_id[value]):
                    out = []  # an abstract method never runs: only its overrides do
                out += [(o, OVERRIDE) for o in more]
            return out
        return UNRESOLVED

    def constructor(self, type_id: str) -> str:
        names = self.ctor_names or (self.index.by_id[type_id].name,)
        for n in names:
            if self.ctor_inherited:
                hit = self.index.find_member(type_id, n)[0]
            else:
                hit = self.index.members.get(type_id, {}).get(n)
            if hit is not None:
                return hit
        return type_id

    def super_ctor(self, type_id: str) -> Outcome:
        bases = self.index.bases.get(type_id)
        if not bases:
            return EXTERNAL_CALL if type_id in self.index.open_types else UNRESOLVED
        return [(self.constructor(bases[0]), EXACT)]

    def implicit_member(self, ctx: Ctx, name: str, name_only: bool) -> Outcome | None:
        """A bare name called inside a type's method: the method of that type (or of a type
        around it), and its overrides. ``name_only``: the language's call text drops receivers
        (Java's ``repo.save(x)`` reads ``save``), so the name is claimed only when no type outside
        the caller's hierarchy defines it, and the edge is marked ``unique_name``."""
        index = self.index
        cls = ctx.cls
        while cls is not None:
            hit = index.find_member(cls, name)[0]
            if hit == ctx.sym.id and name_only:
                # `parent::__construct()` (PHP), or `inner.close()` inside `close()`: not itself
                hit = index.find_member(cls, name, skip=1)[0]
                if hit is None:
                    return None
            if hit is not None and index.is_callable(hit):
                res = EXACT
                if name_only:
                    if name in self.stop_names or not self._hierarchy_unique(cls, name):
                        return None
                    res = UNIQUE
                more = index.overrides(cls, name)
                over = OVERRIDE if res == EXACT else res
                if more and _abstract(index.by_id[hit]):
                    return [(o, over) for o in more]
                return [(hit, res)] + [(o, over) for o in more]
            parent = index.by_id[cls].parent
            cls = parent if index.is_type(parent) else None
        return None

    def _hierarchy_unique(self, cls: str, name: str) -> bool:
        key = (cls, name)
        found = self._unique_in.get(key)
        if found is None:
            found = self._unique_in[key] = self._check_hierarchy(cls, name)
        return found

    def _check_hierarchy(self, cls: str, name: str) -> bool:
        related = self._related.get(cls)
        if related is None:
            related = self._related[cls] = self.index.related(cls)
        for sid in self.index.names.get((self.family, name), ()):
            owner = self.owner_type(sid)
            if owner is None or owner not in related:
                return False
        return True

    def owner_type(self, sid: str) -> str | None:
        sym = self.index.by_id[sid]
        if sym.parent is not None and self.index.is_type(sym.parent):
            return sym.parent
        return self.attached.get(sid)

    # --- the fallback ---------------------------------------------------------------------------

    def member_fallback(self, name: str, ctx: Ctx) -> Outcome:
        """``x.name()`` on a value of unknown type: the repository's only method ``name``, if
        the caller's file can reach its module through imports (where the language has them)."""
        if not name:
            return UNRESOLVED
        ids = self.index.names.get((self.family, name))
        if not ids:
            return EXTERNAL_CALL  # defined nowhere in the repository: a library's method
        if name in self.stop_names:
            return UNRESOLVED
        if len(ids) == 1 and self.fallback_candidate(ids[0]):
            reach = self.reachable(ctx.file)
            if reach is None or self.index.file_of[ids[0]].module in reach:
                return [(ids[0], UNIQUE)]
            return UNRESOLVED  # out of reach, or the one definition is no method
        return self.not_found(name)

    def not_found(self, name: str) -> str:
        """The reason a name the repository defines makes no edge: ``ambiguous`` when several
        definitions share it (told at the second one), else ``unknown``."""
        ids = self.index.names.get((self.family, name))
        if ids and len(ids) > 1:
            first = strip_duplicate(ids[0])
            if any(strip_duplicate(i) != first for i in ids):  # stops at the second
                return AMBIGUOUS
        return UNRESOLVED

    def direct_imports(self, file: FileResult) -> set[str] | None:
        """Modules of the repository a file imports; None where imports say nothing of reach."""
        return None

    def reachable(self, file: FileResult) -> set[str] | None:
        """Modules within a few imports of a file (itself included): where the type of a value
        it calls a method on can come from. A monorepo's other packages, an example's generated
        client, are out of reach."""
        found = self._reach.get(file.module, False)
        if found is not False:
            return found  # type: ignore[return-value]
        first = self.direct_imports(file)
        if first is None:
            self._reach[file.module] = None
            return None
        seen = {file.module} | first
        frontier = first
        for _ in range(_REACH_DEPTH - 1):
            nxt: set[str] = set()
            for m in frontier:
                f = self.index.modules.get(m)
                more = self.direct_imports(f) if f is not None else None
                if more:
                    nxt |= more - seen
            seen |= nxt
            frontier = nxt
        self._reach[file.module] = seen
        return seen

    def fallback_candidate(self, sid: str) -> bool:
        return self.index.by_id[sid].kind == "method"

    # --- helpers for the languages --------------------------------------------------------------

    def type_of(self, sid: str | None) -> str | None:
        return sid if self.index.is_type(sid) else None

    def unique(self, ids: list[str] | None) -> str | None:
        if not ids:
            return None
        plain = {strip_duplicate(i) for i in ids}
        return ids[0] if len(plain) == 1 else None

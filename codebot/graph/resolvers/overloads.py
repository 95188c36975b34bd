"""Overload sets in the languages whose parser writes a call's arguments (Java, Kotlin, C#).

The parser appends the arguments' types to a call, as a reader sees them (``get/(Class, ?)``;
a Kotlin trailing lambda as ``trailing``, a named argument as ``named:<name>``, anything not seen at a
glance as ``?``). The definitions of one qualified name form a set (``get``, ``get#2``...), and a
call reaches the member its arguments fit: by number (defaults, varargs), then by type (a closed
platform type's conversions, a repository type's hierarchy; with every type known, the most
specific member). When the arguments cannot tell, the members of that arity (``overload``), or,
where ``undecided_edges`` is off (Java, Kotlin, C#), no edge: an ``Undecided`` ``ambiguous`` that
still holds the members for what they agree on.
"""

from __future__ import annotations

import re
from functools import lru_cache

from codebot.core.model import FileResult, Parameter, Symbol
from codebot.graph.resolvers.base import AMBIGUOUS, EXACT, OVERLOAD, Ctx, is_extension
from codebot.graph.resolvers.names import NameTable

__all__ = [
    "ARGS",
    "CLOSED_TYPES",
    "JVM_COLLECTIONS",
    "OverloadChooser",
    "Undecided",
    "hidden",
    "is_vararg",
    "simple_type",
]

# What a value of a closed platform type converts to in a method call (widening, boxing, the
# supertypes): an argument of one of these types fits a parameter only of a type listed here.
_COMMON = ("Object", "Any", "object", "Serializable", "Comparable")
_FITS: dict[str, tuple[str, ...]] = {  # most specific first
    k: (*v.split(), *_COMMON)
    for k, v in {
        "byte": "byte short int long float double Byte Number",
        "short": "short int long float double Short Number",
        "char": "char int long float double Character",
        "int": "int long float double Integer Number decimal",
        "long": "long float double Long Number decimal",
        "float": "float double Float Number",
        "double": "double Double Number",
        "boolean": "boolean Boolean",
        "Byte": "Byte byte short int long float double Number",
        "Short": "Short short int long float double Number",
        "Character": "Character char int long float double",
        "Integer": "Integer int long float double Number",
        "Long": "Long long float double Number",
        "Float": "Float float double Number",
        "Double": "Double double Number",
        "Boolean": "Boolean boolean",
        "String": "String CharSequence Constable ConstantDesc",
        "Class": "Class Type GenericDeclaration AnnotatedElement TypeDescriptor OfField Constable",
        # Kotlin (an integer literal also takes a Long, Short or Byte parameter)
        "Int": "Int Long Short Byte Number",
        "Char": "Char",
        "ByteArray": "ByteArray",
        # C# (`object` is written below with `Object` and `Any`)
        "string": "string IComparable IEnumerable",
        "bool": "bool",
        "decimal": "decimal",
    }.items()
}
# Java's and Kotlin's collection interfaces (what `listOf(...)` makes, a `List<T>` local): their
# supertypes are known, so a value of one fits no other parameter type.
JVM_COLLECTIONS: dict[str, tuple[str, ...]] = {
    k: (*v.split(), *_COMMON)
    for k, v in {
        "List": "List Collection Iterable",
        "MutableList": "MutableList List MutableCollection Collection MutableIterable Iterable",
        "Set": "Set Collection Iterable",
        "MutableSet": "MutableSet Set MutableCollection Collection MutableIterable Iterable",
        "Map": "Map",
        "MutableMap": "MutableMap Map",
    }.items()
}
# Every closed type and what it converts to (the platform's values, the JVM's collections).
CLOSED_TYPES: dict[str, tuple[str, ...]] = {**_FITS, **JVM_COLLECTIONS}
_PRIMITIVE_TYPES = frozenset(
    "byte short char int long float double boolean bool decimal sbyte ushort uint ulong".split()
)
_ANY = ("Object", "Any", "object")  # every reference fits
# A number type's constants of that type, and those that are sizes (an Int)
_BOUNDS = frozenset(
    "MIN_VALUE MAX_VALUE POSITIVE_INFINITY NEGATIVE_INFINITY MIN_NORMAL MIN_EXPONENT".split()
)
_SIZES = frozenset("SIZE_BYTES SIZE_BITS BYTES SIZE".split())
# Java's boxed values: a supertype (no unboxing) before their primitive (JLS 15.12.2: phase
# one takes no boxing or unboxing; `writer.value(aDouble)` is `value(Number)`, not
# `value(double)`)
_JAVA_BOXED: dict[str, tuple[str, ...]] = {
    k: (k, *(("Number",) if k not in ("Boolean", "Character") else ()), *_COMMON, *v.split())
    for k, v in {
        "Byte": "byte short int long float double",
        "Short": "short int long float double",
        "Integer": "int long float double",
        "Long": "long float double",
        "Float": "float double",
        "Double": "double",
        "Boolean": "boolean",
        "Character": "char int long float double",
    }.items()
}
# Java's boxed types' primitives (`Long.MAX_VALUE` is a `long`)
_UNBOXED = {
    "Integer": "int", "Long": "long", "Short": "short", "Byte": "byte", "Character": "char",
    "Boolean": "boolean", "Float": "float", "Double": "double",
}  # fmt: skip
# A Kotlin parameter's type as Java sees it: a primitive, or the boxed type when nullable
_KOTLIN_IN_JAVA = {
    "Int": ("int", "Integer"), "Long": ("long", "Long"), "Short": ("short", "Short"),
    "Byte": ("byte", "Byte"), "Char": ("char", "Character"), "Boolean": ("boolean", "Boolean"),
    "Float": ("float", "Float"), "Double": ("double", "Double"), "Any": ("Object", "Object"),
}  # fmt: skip
# `get/(Class, ?)`: the argument types the parser read (java.py), after the callee's text.
ARGS = re.compile(r"/\(([^()]*)\)$")
_TYPE_VARIABLE = re.compile(r"[A-Z][A-Z0-9]?")
_EXPECT = re.compile(r"\bexpect\b")


@lru_cache(maxsize=4096)
def simple_type(type_text: str | None) -> str:
    """A parameter's type as the parser writes an argument's: ``final List<T>`` -> ``List``,
    ``vararg String`` / ``String...`` -> ``String[]``, ``String?`` -> ``String``, a function
    type ``(A) -> B`` -> ``Function``."""
    if not type_text:
        return "?"
    t = " ".join(type_text.split())
    if "->" in t:
        return "Function"
    t = re.sub(r"<.*>", "", t)
    t = re.sub(r"^(?:(?:final|vararg|params|@[\w.]+)\s+)+", "", t).replace(" ", "").rstrip("?")
    array = t.endswith("...") or (is_vararg(type_text) and not t.endswith("[]"))
    return t.removesuffix("...").rsplit(".", 1)[-1] + ("[]" if array else "")


def hidden(sym: Symbol) -> bool:
    return any(d.startswith("Deprecated") and "HIDDEN" in d for d in sym.decorators)


@lru_cache(maxsize=4096)
def is_vararg(type_text: str | None) -> bool:
    """``String...`` (Java), ``vararg String`` (Kotlin), ``params string[]`` (C#)."""
    return bool(type_text) and (
        type_text.endswith("...") or type_text.startswith(("vararg ", "params "))
    )


def _named(arg: str) -> tuple[str, str]:
    """``named:status=HttpStatusCode`` -> (status, HttpStatusCode); the type ``named`` when
    not written."""
    name, _, written = arg[6:].partition("=")
    return name, written or "named"


class Undecided(str):
    """``ambiguous``, for a call whose arguments cannot decide among overloads, holding the
    members it may reach: no edge, but what they agree on (the receiver of the lambda they
    all take, the type they all return) still holds for the calls around."""

    members: tuple[str, ...]

    def __new__(cls, members: list[str]) -> Undecided:
        out = super().__new__(cls, AMBIGUOUS)
        out.members = tuple(members)
        return out


class OverloadChooser:
    """Mixed into a resolver: ``overloads`` (a member's id -> its set, in order), filled by the
    resolver's ``prepare``; ``repo_type`` names a repository type written in a file."""

    index: NameTable
    overloads: dict[str, list[str]]
    # closed types beyond the platform's values (a value of one fits only the types listed)
    closed_types: dict[str, tuple[str, ...]] = {}
    # whether a call whose arguments' types rule out every member of its arity makes no edge
    # (else: the members of that arity, as ``overload``)
    types_rule_out = False
    # whether, of members that all need default values, the one needing fewest is called
    fewest_defaults = False
    # whether a call the arguments cannot decide takes an ``overload`` edge to each member it
    # may reach (else none: the members have distinct parameter lists, so all edges but one
    # would be wrong; members repeating one parameter list, a function's variants per
    # platform, keep theirs); and whether the tie-breaks (a member before an extension, no
    # default value needed, fewest needed) wait for every argument's type: they choose among
    # members that take the arguments, which an argument of unknown type leaves open
    undecided_edges = True

    def repo_type(self, file: FileResult, text: str) -> str | None:
        """The id of the repository type ``text`` names in ``file``, or None."""
        raise NotImplementedError

    def choose(self, ctx: Ctx, out: list[tuple[str, str]], args: list[str]) -> dict[str, str]:
        """The edges of a call whose name gave ``out``, its members chosen by ``args``."""
        chosen: dict[str, str] = {}
        self.undecided: list[str] = []  # members of sets the arguments leave undecided
        for dst, res in out:
            group = self.overloads.get(dst)
            picked = self._overload_pick(ctx, group, args) if group is not None else None
            if picked is not None and len(picked) > 1:
                picked = self._overload_distinct(dst, picked)
            if picked is None:
                chosen.setdefault(dst, res)
            elif len(picked) == 1:
                chosen.setdefault(picked[0], res)
            elif self.undecided_edges:
                for p in picked:
                    chosen.setdefault(p, OVERLOAD)
            elif self.one_parameter_list(picked):
                for p, r in self.variants(picked, res):
                    chosen.setdefault(p, r)
            else:
                self.undecided += picked
        if len(chosen) > 1:
            # An override (or a hoisted method) whose parameters do not take these arguments is
            # not the one called: `value(long)` of a subclass for `value(true)`
            fit = {d: r for d, r in chosen.items() if self._overload_takes(ctx, d, args)}
            if fit:
                chosen = fit
        return chosen

    def one_parameter_list(self, picked: list[str]) -> bool:
        """Whether members share one parameter list (a function's ``expect`` declaration and
        its ``actual`` ones, its variants per platform): one function, whichever is built."""
        lists = {tuple(simple_type(p.type) for p in self._overload_params(g)) for g in picked}
        return len(lists) == 1

    def value_written(self, ctx: Ctx, name: str) -> tuple[str, FileResult] | None:
        """The declared type of a value ``name`` no scope binds (a property of the class
        around, a top-level value the caller's file sees) and the file it is written in; None
        when not known."""
        return None

    def _argument_type(self, ctx: Ctx, arg: str) -> str | None:
        """The repository type an argument's type names in the caller's file, or a type nested
        in the classes around the caller (`new MyFactory()` inside the test class that
        declares it)."""
        found = self.repo_type(ctx.file, arg)
        cls = ctx.cls
        while found is None and cls is not None and arg.isidentifier():
            hit = self.index.members.get(cls, {}).get(arg)
            if hit is not None and self.index.is_type(hit):
                return hit
            parent = self.index.by_id[cls].parent
            cls = parent if self.index.is_type(parent) else None
        return found

    def member_written(self, type_id: str, name: str) -> tuple[str, FileResult] | None:
        """The declared type of a property ``name`` of a type (or of its companion object)
        and the file it is written in; None when not known."""
        return None

    def _object_type(self, ctx: Ctx, name: str) -> str | None:
        """The repository type of the object a name stands for as a value: an ``object``
        declaration, or the companion object of a class (``install(Authentication)``); None
        when not known (a library's, a top-level value of that name)."""
        found = self.repo_type(ctx.file, name)
        if found is None:  # `install(ContentNegotiation)`: a plugin value
            value = self.value_written(ctx, name)
            return self.repo_type(value[1], value[0]) if value is not None else None
        sym = self.index.by_id[found]
        if re.search(rf"\bobject\s+{re.escape(sym.name)}\b", sym.signature.split("{", 1)[0]):
            return found
        for child in self.index.members.get(found, {}).values():
            c = self.index.by_id.get(child)
            if (
                c is not None
                and c.kind in ("class", "module")
                and "companion object" in c.signature
            ):
                return child
        return None

    def variants(self, picked: list[str], res: str = EXACT) -> list[tuple[str, str]]:
        """The edges to members sharing one parameter list: Kotlin's ``expect`` declaration
        when one is among them (the function the code names; its ``actual``s are what each
        platform builds), else each, ``overload``."""
        expect = [
            p for p in picked if _EXPECT.search(self.index.by_id[p].signature.split("(", 1)[0])
        ]
        if len(expect) == 1:
            return [(expect[0], res)]
        return [(p, OVERLOAD) for p in picked]

    def fits_none(self, ctx: Ctx, chosen: dict[str, str], args: list[str]) -> bool:
        """Whether no function the name reached can take these arguments: not the callee."""
        return bool(chosen) and all(
            self.index.is_callable(d) and not self._overload_takes(ctx, d, args) for d in chosen
        )

    def _overload_params(self, sid: str) -> tuple[Parameter, ...]:
        return self.index.by_id[sid].parameters

    def _overload_takes(self, ctx: Ctx, sid: str, args: list[str]) -> bool:
        """Whether a function can take these arguments (their number, and types as written)."""
        return (
            self._overload_pick(ctx, [sid], args) is not None
            and self._overload_score(ctx, sid, args) is not None
        )

    def _overload_distinct(self, dst: str, picked: list[str]) -> list[str]:
        """One member per parameter list: definitions that repeat one (the methods of anonymous
        classes or enum constants, hoisted under the type's name) are the first one's overrides,
        not overloads; the name's own definition stands for them."""
        by_id = self.index.by_id
        seen: dict[tuple, str] = {}
        for sid in sorted(picked, key=lambda x: x != dst):
            seen.setdefault(tuple(simple_type(p.type) for p in by_id[sid].parameters), sid)
        return [sid for sid in picked if sid in seen.values()]

    def _overload_pick(self, ctx: Ctx, group: list[str], args: list[str]) -> list[str] | None:
        """The members of an overload set a call with ``args`` may reach: by arity (defaults
        counted; varargs only when no fixed arity fits), then by the argument types written;
        one member when the call decides, several when it does not, None when no member fits
        (by number, or by the types written: keep the name's, which then takes no edge)."""
        n = len(args)
        # `@Deprecated(level = HIDDEN)`: kept for binaries, never called from source
        callable_ = [g for g in group if not hidden(self.index.by_id[g])]
        group = callable_ or group

        def varargs(sid: str) -> bool:
            ps = self._overload_params(sid)
            return bool(ps) and is_vararg(ps[-1].type)

        def arity(sid: str) -> bool:
            ps = self._overload_params(sid)
            required = sum(1 for p in ps if p.default is None)
            return required <= n <= len(ps) and filled(ps)

        def filled(ps: tuple[Parameter, ...]) -> bool:
            """Whether every parameter without a default value gets an argument: one written
            by position fills the parameter at its position (a vararg takes the rest of
            them), a named one its parameter, a trailing lambda the last
            (``respondText(text)`` is not ``respondText(contentType = null, status = null,
            provider: () -> String)``)."""
            if "named" in args:  # a named argument whose name was not written
                return True
            if not ps:
                return True
            given: set[int] = set()
            names = {p.name: i for i, p in enumerate(ps)}
            vararg = next((i for i, p in enumerate(ps) if is_vararg(p.type)), len(ps))
            for j, a in enumerate(args):
                if a == "trailing":
                    given.add(len(ps) - 1)
                elif a.startswith("named:"):
                    given.add(names.get(_named(a)[0], -1))
                else:
                    given.add(min(j, vararg))
            return all(
                i in given or p.default is not None or is_vararg(p.type) for i, p in enumerate(ps)
            )

        fits = [g for g in group if not varargs(g) and arity(g)]
        if not fits:
            fits = [g for g in group if varargs(g) and n >= len(self._overload_params(g)) - 1]
        if len(fits) <= 1:
            return fits or None
        scores = {}
        for g in fits:
            score = self._overload_score(ctx, g, args)
            if score is not None:
                scores[g] = score
        if len(scores) == 1:
            return list(scores)
        if not scores:
            # the arguments' types rule every member of that arity out
            return None if self.types_rule_out else fits
        if not self.undecided_edges and not self._unknown_agree(scores, args):
            # the tie-breaks below hold among members that take the arguments: one whose
            # type is not known may fit some and not others
            return list(scores)
        # Kotlin: a member beats an extension of the same name; a member that needs no default
        # value beats one that does
        members = [g for g in scores if not is_extension(self.index.by_id[g], self.index)]
        if members and len(members) < len(scores):
            scores = {g: scores[g] for g in members}
        whole = [g for g in scores if len(self._overload_params(g)) == n]
        if whole and len(whole) < len(scores):
            scores = {g: scores[g] for g in whole}
        elif self.fewest_defaults and len(scores) > 1:
            # Kotlin: of the members that need default values, the one needing fewest
            # (`bind()`: `bind(localAddress = null, configure = {})`, not `bind(hostname =
            # "0.0.0.0", port = 0, configure = {})`)
            least = min(len(self._overload_params(g)) for g in scores)
            scores = {g: sc for g, sc in scores.items() if len(self._overload_params(g)) == least}
        if len(scores) == 1:
            return list(scores)
        if "?" not in args or (not self.undecided_edges and self._unknown_agree(scores, args)):
            # every argument's type known (or those not known taken as one type by every
            # member): the most specific member
            best = max(scores.values())
            top = [g for g, sc in scores.items() if sc == best]
            if len(top) == 1:
                return top
        return list(scores)

    def _unknown_agree(self, members: dict[str, float], args: list[str]) -> bool:
        """Whether the members take each argument of unknown type as the same parameter type
        (so that argument fits all of them or none: `respond(text, status = s)` against
        `respond(text: String, status: Int = 200)` and `respond(text: String)`)."""
        for i, arg in enumerate(args):
            if arg != "?":
                continue
            types = set()
            for g in members:
                ps = self._overload_params(g)
                types.add(simple_type(ps[min(i, len(ps) - 1)].type) if ps else "")
            if len(types) > 1:
                return False
        return True

    def _overload_score(self, ctx: Ctx, sid: str, args: list[str]) -> float | None:
        params = self._overload_params(sid)
        if not params:
            return 0.0 if not args else None
        names = {p.name: i for i, p in enumerate(params)}
        if any(a.startswith("named:") and _named(a)[0] not in names for a in args):
            return None  # Kotlin `f(name = x)`: no parameter of that name
        total = 0.0
        last = len(params) - 1
        java_to_kotlin = ctx.sym.language == "java" and self.index.by_id[sid].language == "kotlin"
        for i, arg in enumerate(args):
            # a trailing lambda (Kotlin) goes to the last parameter, a named argument with its
            # type written (`named:status=HttpStatusCode`) to its parameter; the others in order
            at = last if arg == "trailing" else min(i, last)
            if arg.startswith("named:") and "=" in arg:
                name, arg = _named(arg)
                at = names[name]
            written = params[at].type
            p = simple_type(written)
            if is_vararg(written) and not (at == i == len(args) - 1 and arg.endswith("[]")):
                p = p.removesuffix("[]")
            if p in _KOTLIN_IN_JAVA and java_to_kotlin:
                # `writer.value(1)` in Java on Kotlin's `value(value: Long)`: a `long`
                p = _KOTLIN_IN_JAVA[p][(written or "").rstrip().endswith("?")]
            fit = self._overload_fit(ctx, sid, "lambda" if arg == "trailing" else arg, p)
            if fit is None:
                return None
            total += fit
        return total

    def _overload_fit(self, ctx: Ctx, sid: str, arg: str, param: str) -> float | None:
        """How an argument of type ``arg`` fits a parameter of type ``param``: 3 the same type,
        about 2 a conversion or a supertype (a closer one more), 1 unknown, None it cannot."""
        if arg in ("?", "named") or arg.startswith("named:") or param == "?":
            return 1  # unknown; a named argument (Kotlin) is not matched by position
        if arg.startswith("enum:"):
            # `Codes.NORMAL`: an entry of a repository enum; `Long.MAX_VALUE`: a number type's
            # constant (a Java primitive); else any type
            owner, _, const = arg[5:].rpartition(".")
            last = owner.rsplit(".", 1)[-1]
            if last in _FITS:
                if const in _SIZES:  # `Short.SIZE_BYTES`: an Int
                    last = "Int" if ctx.sym.language == "kotlin" else "int"
                elif const not in _BOUNDS:
                    return 1
                arg = _UNBOXED.get(last, last) if ctx.sym.language == "java" else last
            else:
                t = self.repo_type(ctx.file, owner)
                if t is None:
                    return 1
                if self.index.by_id[t].kind == "enum" and const.isupper():
                    arg = owner
                else:
                    # `HttpStatusCode.OK`, `ContentType.Application.Json`: a property of an
                    # object (or a companion's), of the type it is declared with
                    found = self.member_written(t, const)
                    if found is None:
                        return 1
                    simple = simple_type(found[0])
                    if simple in _FITS or simple in self.closed_types:
                        arg = simple
                    else:
                        mine = self.repo_type(found[1], found[0])
                        if mine is None:
                            return 1
                        theirs = self.repo_type(self.index.file_of[sid], param)
                        if param in {self.index.by_id[m].name for m in self.index.mro(mine)}:
                            return 2
                        return None if theirs is not None or param in _FITS else 1
        if arg.startswith("value:"):
            # a name no scope binds (`install(SSE)`, `HttpClient(CIO)`, `respondText(text)`):
            # an object, a property or a top-level value, of the type the repository declares
            # it with; else any type
            mine = self._object_type(ctx, arg[6:])
            if mine is None:
                found = self.value_written(ctx, arg[6:])
                simple = simple_type(found[0]) if found is not None else "?"
                if simple not in _FITS and simple not in self.closed_types:
                    return 1
                arg = simple
            else:
                theirs = self.repo_type(self.index.file_of[sid], param)
                if param in {self.index.by_id[t].name for t in self.index.mro(mine)}:
                    return 2
                return None if theirs is not None or param in _FITS else 1
        if arg.startswith("object"):
            # an object named by its type's name (Kotlin `install(HttpTimeout)`): no
            # platform value (a string, a number) and no function; a repository object is an
            # instance of its type (`HttpClient(OkHttp)`: `OkHttp : HttpClientEngineFactory`)
            closed = param in _FITS or param in self.closed_types
            if closed or param == "Function":
                return None
            mine = self._object_type(ctx, arg[7:]) if arg[6:7] == ":" else None
            if mine is None:
                return 1
            theirs = self.repo_type(self.index.file_of[sid], param)
            if param in {self.index.by_id[t].name for t in self.index.mro(mine)}:
                return 2
            return None if theirs is not None else 1
        if arg == param:
            return 3
        if (_TYPE_VARIABLE.fullmatch(param) and param not in _FITS) or (
            _TYPE_VARIABLE.fullmatch(arg) and arg not in _FITS
        ):
            return 1  # `T`: a type parameter takes (or holds) any reference
        if param == "Function":  # a Kotlin function type
            return 3 if arg == "lambda" else None
        if arg == "lambda":  # a lambda or a method reference: an instance of an interface
            if param in _FITS or param in _ANY or param in self.closed_types:
                return None
            theirs = self.repo_type(self.index.file_of[sid], param)
            if theirs is not None and self.index.by_id[theirs].kind != "interface":
                return None
            return 1
        if arg == "null":
            return None if param in _PRIMITIVE_TYPES else 2
        fits = _FITS.get(arg) or self.closed_types.get(arg)
        if arg in _JAVA_BOXED and ctx.sym.language == "java":
            fits = _JAVA_BOXED[arg]  # a boxed value takes a supertype before it is unboxed
        if fits is not None:  # `int` fits `long` before `double`, `Integer`, `Object`
            return 2.9 - 0.05 * fits.index(param) if param in fits else None
        if param in _ANY:
            return 1.5  # any reference: less specific than a supertype the argument names
        if arg.endswith("[]") or param.endswith("[]"):
            return None if arg.endswith("[]") and param.endswith("[]") else 1
        mine = self._argument_type(ctx, arg)
        theirs = self.repo_type(self.index.file_of[sid], param)
        if mine is None:
            # a library value: never an instance of a repository type
            return None if theirs is not None or param in _FITS or param in self.closed_types else 1
        names = {self.index.by_id[t].name for t in self.index.mro(mine)}
        if param in names:
            return 2
        if theirs is not None or param in _FITS or param in self.closed_types:
            return None  # a repository type outside the argument's hierarchy
        open_ = any(t in self.index.open_types for t in self.index.mro(mine))
        return 1 if open_ else None

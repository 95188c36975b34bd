"""C++ overload sets: the members a call's arguments and receiver fit.

The C++ parser writes one token per argument after the callee (``languages/cpp.py``,
``_argument``): ``"`` a string literal, ``'`` a character, ``0`` the literal zero, ``1`` another
integer, ``1.`` a floating literal, ``b`` a boolean, ``nullptr``, ``&&`` `std::move(x)`, ``*`` an
address, ``FILE*`` a standard stream, ``n`` a name of integral type (``n.`` floating-point), ``:T`` a name of type
``T``, ``=T`` a value of type ``T`` made there (a cast, a temporary, a call's result), ``it`` an
iterator (`xs.begin()`), ``lv`` another name, ``?`` anything else. Of the members of a set taking that many arguments, a member is dropped when an
argument cannot convert to its parameter as a reader sees it:

- a literal is no pointer (but ``0``), no iterator; a string literal no arithmetic type but
  `bool`, no pointer but to a character or `void`; a number, a character or a boolean no
  string type (`string_view`, `format_string<..>`, `std::string`);
- a repository class takes a literal only through a constructor, not `explicit`, whose one
  required parameter takes it (a constructor template constrained by `enable_if` is not
  assumed to: fmt's `locale_ref(const Locale&)` takes no string literal); a class with no
  such constructor takes none;
- an rvalue (a literal, `std::move(x)`, `&x`) binds no non-const lvalue reference (`T&`); a
  name (an lvalue) binds no rvalue reference of a written type (`T&&` where `T` is no template
  parameter of the function: a forwarding reference takes anything), and among members that
  differ only there (`push_back(const T&)` / `push_back(T&&)`) an rvalue takes `T&&`;
- a template parameter of the function (`T`, `const T&`, `T&&`), a pack, `auto` take anything;
  so does a parameter whose type we cannot read.

Then the receiver (``CResolver.receiver_const``): of members that differ only in their
qualifier (`iterator begin()` / `const_iterator begin() const`), a const receiver (a `const`
declaration, a field or `this` in a const method) takes the const one, another named receiver
the non-const one; a member qualified `&&` is no member of a named receiver.

When no member fits, the set as counted is kept (the arguments were read wrong: a macro's).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache

from codebot.core.model import Parameter, Symbol
from codebot.languages.cpp import outside_angles

__all__ = [
    "by_arguments",
    "deduces",
    "is_pack",
    "by_receiver",
    "fits",
    "member_const",
    "template_parameters",
    "type_name",
]

_RVALUES = frozenset(("0", "1", "1.", "b", "'", "nullptr", "&&", "*", "it"))
_SURE = frozenset(('"', 'w"', "'", "0", "1", "1.", "b", "nullptr"))
_NUMBERS = frozenset(("0", "1", "1.", "b", "'", "n", "n."))
_CHARS = r"(?:char|wchar_t|char8_t|char16_t|char32_t|Char|CharT|char_type|Char_T|TChar)"
_CHAR_POINTER = re.compile(rf"(?:(?:const|volatile)\s+)*(?:std::)?{_CHARS}\s*(?:const\s*)?\*")
_VOID_POINTER = re.compile(r"(?:(?:const|volatile)\s+)*void\s*(?:const\s*)?\*")
_ARITHMETIC = re.compile(
    r"(?:(?:unsigned|signed|short|long|int|char|bool|float|double|wchar_t|char8_t|char16_t|"
    r"char32_t|(?:std::)?(?:s?size_t|ptrdiff_t|u?int(?:8|16|32|64|max|ptr)_t|"
    r"u?int_(?:fast|least)(?:8|16|32|64)_t)|size_type|difference_type)\s*)+"
)
_WIDE = re.compile(r"wchar_t|char16_t|char32_t|char8_t|\b(?:w|u8|u16|u32)[a-z_]*string")
_STRINGISH = re.compile(r"(?i)(?:string|str|view)$")
# Library types that take no literal, no number (streams, files, locales).
_CLOSED = re.compile(r"(?:std::)?(?:basic_)?(?:w?(?:i|o|io)stream|streambuf|FILE|locale)$")
_QUALIFIERS = re.compile(r"\b(?:const|volatile|typename|struct|class|enum|constexpr)\b")
_TEMPLATE = re.compile(r"template\s*<")
_ATTRIBUTE = re.compile(r"\[\[.*?\]\]|\b(?:absl_nonnull|absl_nullable|_Nonnull|_Nullable)\b")


@lru_cache(maxsize=8192)
def template_parameters(signature: str) -> frozenset[str]:
    """The names a function's own `template <..>` header declares (`typename T`, `class...
    Args`, `int N`); an out-of-line member's first header (`template <typename T>
    StatusOr<T>::StatusOr(..)`) is its class's, not the function's."""
    headers: list[str] = []
    pos = 0
    while True:
        m = _TEMPLATE.match(signature, pos)
        if m is None:
            break
        depth, i = 1, m.end()
        while i < len(signature) and depth:
            ch = signature[i]
            depth += ch == "<"
            depth -= ch == ">"
            i += 1
        headers.append(signature[m.end() : i - 1])
        pos = i
        while pos < len(signature) and signature[pos].isspace():
            pos += 1
    if not headers:
        return frozenset()
    rest = signature[pos:].split("(", 1)[0]
    if len(headers) == 1 and re.search(r"<[^<>]*>\s*::\s*~?\w+\s*$", rest):
        return frozenset()  # `template <typename T> StatusOr<T>::StatusOr`: the class's
    names: set[str] = set()
    for h in headers[-1:]:
        depth, start, parts = 0, 0, []
        for i, ch in enumerate(h):
            if ch in "<([":
                depth += 1
            elif ch in ">)]":
                depth -= 1
            elif ch == "," and depth == 0:
                parts.append(h[start:i])
                start = i + 1
        parts.append(h[start:])
        for p in parts:
            p = p.split("=", 1)[0].strip()
            m = re.search(r"(?:typename|class|\w+)\s*(?:\.\.\.)?\s*([A-Za-z_]\w*)$", p)
            if m is not None:
                names.add(m[1])
    return frozenset(names)


def member_const(sym: Symbol) -> tuple[bool, bool]:
    """(const, rvalue-only): a member's qualifiers after its parameters (`) const`, `) &&`)."""
    sig = sym.signature
    m = re.search(
        r"\)\s*(const)?\s*(&&?)?\s*(?:noexcept\b|override\b|final\b|->|[A-Z_]{3,}|$)", sig
    )
    if m is None:
        return False, False
    return bool(m[1]), m[2] == "&&"


def is_pack(ptype: str) -> bool:
    """`Args&&... args`: a pack (not `format_string<T...> fmt`)."""
    return ptype.rstrip().endswith("...")


@lru_cache(maxsize=16384)
def _parts(ptype: str) -> tuple[str, str, bool]:
    """``const std::string &`` -> ("std::string", "&", True): the base type, the reference
    (``&``, ``&&`` or ``""``) and whether the referred type is const."""
    t = " ".join(_ATTRIBUTE.sub(" ", ptype).split())
    ref = ""
    if t.endswith("&&"):
        ref, t = "&&", t[:-2]
    elif t.endswith("&") and not t.endswith(")&"):
        ref, t = "&", t[:-1]
    const = bool(re.match(r"\s*const\b", t)) or t.rstrip().endswith(" const")
    base = _QUALIFIERS.sub("", t).strip()
    base = " ".join(base.split())
    return base, ref, const


def _last_name(base: str) -> str:
    """``std::basic_string_view<Char>`` -> ``basic_string_view``."""
    return outside_angles(base).rstrip("*& ").rsplit("::", 1)[-1].strip()


def type_name(ptype: str) -> str:
    """``const std::vector<int> &`` -> ``vector``: a parameter type's last name."""
    return _last_name(_parts(ptype)[0])


ClassFits = Callable[[str, str], bool | None]


def fits(
    token: str,
    param: Parameter,
    tparams: frozenset[str],
    class_fits: ClassFits,
    cparams: frozenset[str] = frozenset(),
) -> bool:
    """Whether an argument written ``token`` may convert to ``param``. ``tparams``: the
    function's own template parameters (`T&&` of one is a forwarding reference); ``cparams``:
    its class's (`push_back(T&& v)` of `chunked_queue<T>` takes an rvalue only)."""
    if token == "?" or not param.type or param.name == "..." or is_pack(param.type):
        return True
    base, ref, const = _parts(param.type)
    if not base:
        return True
    core = base.rstrip("*& ").strip()
    template = core in tparams or core == "auto" or core.startswith("auto ")
    rvalue = token in _RVALUES or token[:1] == "="
    if ref == "&" and not const and rvalue and not (template and token == '"'):
        return False  # a non-const lvalue reference binds no rvalue
    if ref == "&&" and not template and (token in ("lv", "n", "n.", "FILE*") or token[:1] == ":"):
        return False  # a name binds no rvalue reference of a written type
    pointer = base.endswith("*") or "(*)" in base or "[" in base
    if (template or core in cparams) and pointer and "[" not in base:
        # `const T* p`: a pointer to anything, no number, no value of a class
        if token in ("1", "1.", "b", "'", "n", "n.") or (
            token[:1] in (":", "=") and not token.endswith("*")
        ):
            return False
        return True
    if template or token in ("lv", "&&") or core in cparams:
        return True
    if token == 'w"':  # a wide literal: a wide string or character pointer, `bool`
        if _WIDE.search(base):
            return True
        if pointer or _ARITHMETIC.fullmatch(base):
            return base == "bool" or bool(_VOID_POINTER.fullmatch(base))
        if _STRINGISH.search(_last_name(base)):
            return False
        found = class_fits(_last_name(base), token)
        return True if found is None else found
    if token == "it":  # an iterator: a class or a pointer, no number, no string
        return not _ARITHMETIC.fullmatch(base) and not _STRINGISH.search(_last_name(base))
    if token[:1] in (":", "="):
        return _typed_fits(token[1:], base, pointer, class_fits, ":" + token[1:])
    if pointer:
        if token in ("0", "nullptr", "*"):
            return True
        if token == '"':
            if _WIDE.search(base):
                return False
            return bool(_CHAR_POINTER.fullmatch(base) or _VOID_POINTER.fullmatch(base)) or (
                "[" in base and re.search(_CHARS, base) is not None
            )
        if token == "FILE*":
            return "FILE" in base or bool(_VOID_POINTER.fullmatch(base))
        return False
    if _ARITHMETIC.fullmatch(base):
        if token == '"' or token == "*":
            return base == "bool"
        return token in _NUMBERS
    name = _last_name(base)
    if name == "initializer_list":
        return False  # only a braced list (`{1, 2}`, written `?`) makes one
    if token == '"' and _WIDE.search(base):
        return False  # a narrow literal makes no wide string (`basic_string_view<wchar_t>`)
    if token == "nullptr":
        return True
    if _CLOSED.fullmatch(base.split("<", 1)[0]) or name.lower().endswith("iterator"):
        return False
    if _STRINGISH.search(name):
        return token in ('"', "*")  # (a literal 0 would be a null `const char*`: no)
    if token == "FILE*" and base.startswith(("std::", "::std::")):
        return False
    found = class_fits(name, token)
    return True if found is None else found


def _deduced(base: str, tparams: frozenset[str]) -> bool:
    """Whether a parameter's type is a class template's specialization by the function's own
    template parameters (`InlinedVector<T, N, A>`), which the argument's type deduces."""
    if not tparams or "<" not in base:
        return False
    inner = base.split("<", 1)[1]
    return any(w in tparams for w in re.findall(r"[A-Za-z_]\w*", inner))


def deduces(sym: Symbol, args: list[str], class_fits: ClassFits) -> bool:
    """Whether a function template's parameters that its template parameters deduce
    (`InlinedVector<T, N, A>& a`) take the arguments of a repository class written for them:
    only that class or one derived from it (deduction converts nothing)."""
    if not sym.signature.startswith("template"):
        return True
    tparams = template_parameters(sym.signature)
    params = sym.parameters
    for i, tok in enumerate(args):
        if i >= len(params) or tok[:1] not in (":", "=") or tok.endswith("*"):
            continue
        base, _ref, _const = _parts(params[i].type or "")
        if base.endswith("*") or base.startswith(("std::", "::std::")) or tok[1:4] == "std":
            continue  # (the standard library's aliases: `std::ostream`)
        if not _deduced(base, tparams):
            continue
        arg = _plain(tok[1:]).rsplit("::", 1)[-1]
        if _last_name(base) != arg and class_fits(_last_name(base), "^" + tok) is False:
            return False
    return True


def _plain(name: str) -> str:
    return re.sub(r"^(?:::)?(?:std::)?", "", " ".join(name.replace("const", " ").split()))


def _typed_fits(arg: str, base: str, pointer: bool, class_fits: ClassFits, token: str) -> bool:
    """An argument of type ``arg`` (``std::string``, ``char*``, ``Widget``) against a
    parameter of type ``base``: a pointer takes a pointer to the same type or to `void`; an
    arithmetic type no class; a class its own type, a string type another string type."""
    arg_pointer = arg.endswith("*")
    arg_core = _plain(arg.rstrip("*"))
    if arg_pointer:
        if pointer:
            pointee = _plain(_QUALIFIERS.sub("", base).rstrip("*& ").strip())
            return pointee in (arg_core, "void") or "[" in base or "(*)" in base
        if _ARITHMETIC.fullmatch(base):
            return base == "bool"
        name = _last_name(base)
        if _STRINGISH.search(name):
            return bool(re.fullmatch(_CHARS, arg_core))
        if _CLOSED.fullmatch(base.split("<", 1)[0]) or name.lower().endswith("iterator"):
            return False
        found = class_fits(name, token)
        return True if found is None else found
    if pointer:
        return False  # a class (or a number we could not tell) is no pointer
    if _ARITHMETIC.fullmatch(base):
        return False  # (`n` is written for a value of arithmetic type)
    name = _last_name(base)
    if name == "initializer_list":
        return False
    arg_name = arg_core.rsplit("::", 1)[-1]
    if name == arg_name:
        return True
    if _STRINGISH.search(name) and _STRINGISH.search(arg_name):
        # a string converts to another of its width (`std::wstring` to `std::wstring_view`,
        # not to `absl::string_view`)
        return bool(_WIDE.search(arg)) == bool(_WIDE.search(base))
    if _CLOSED.fullmatch(base.split("<", 1)[0]) or _STRINGISH.search(name):
        return False
    found = class_fits(name, token)
    return True if found is None else found


_KIND_CONSTRAINT = re.compile(
    r"(!?)\s*(?:std::|\w+::)*(is_integral|is_floating_point|EnableIfIntegral|EnableIfFloat)"
    r"(?:_v)?\s*<\s*([A-Za-z_]\w*)\s*>"
)


def _constraint_fits(token: str, ptype: str | None, sym: Symbol) -> bool:
    """A template member constrained to integral or floating-point arguments
    (`template <typename T, EnableIfIntegral<T> = 0> Duration Seconds(T n)`, `enable_if_t<
    std::is_floating_point<T>::value>`): an integer literal takes no floating-only one, a
    floating literal no integral-only one."""
    typed = token[:1] in (":", "=")  # a value of a written type that is no number
    numbers = ("0", "1", "1.", "n", "n.")
    if (token not in numbers and not typed) or not ptype or "<" not in sym.signature:
        return True
    core = _parts(ptype)[0]
    for m in _KIND_CONSTRAINT.finditer(sym.signature):
        if m[3] != core:
            continue
        integral = m[2] in ("is_integral", "EnableIfIntegral")
        if typed:
            if not m[1]:
                return False  # a class or a pointer is neither integral nor floating-point
            continue
        wants_integer = integral != bool(m[1])
        if wants_integer != (token not in ("1.", "n.")):
            return False
    return True


def by_arguments(
    members: list[Symbol],
    args: list[str],
    class_fits: ClassFits,
    strict: bool = False,
    class_params: Callable[[Symbol], frozenset[str]] | None = None,
    written: list[str] | None = None,
) -> list[Symbol]:
    """The members every argument may convert to, then, among members that differ only in a
    reference, the one an rvalue binds best (`T&&`); all of them where none fits.
    ``class_params``: a member's class's template parameters. ``written``: the types the
    arguments were declared with where the repository does not define them (an alias,
    `CivilSecond`; ``?`` for the others): a parameter of that very name is the best match (two
    members with the same parameter types would be one function)."""
    if not args or all(a == "?" for a in args):
        if len(members) > 1 and written and any(w[:1] in (":", "=") for w in written):
            return _same_type_preferred(members, written, class_params)
        return members
    kept = []
    for sym in members:
        tparams = template_parameters(sym.signature)
        cparams = class_params(sym) if class_params is not None else frozenset()
        params = sym.parameters
        ok = True
        for i, tok in enumerate(args):
            p = params[i] if i < len(params) else (params[-1] if params else None)
            if p is not None and not (
                fits(tok, p, tparams, class_fits, cparams) and _constraint_fits(tok, p.type, sym)
            ):
                ok = False
                break
        if ok:
            kept.append(sym)
    if not kept:
        # none fits: a literal is read surely, so the callee is elsewhere (`fmt::format(L"{}")`
        # is `xchar.h`'s, not one of `format.h`'s); other kinds may be misread: all of them
        return [] if strict or any(a in _SURE for a in args) else members
    if len(kept) > 1 and any(a in _RVALUES or a[:1] == "=" for a in args):
        kept = _rvalue_preferred(kept, args)
    if len(kept) > 1 and any(a in _EXACT for a in args):
        kept = _exact_preferred(kept, args)  # ([]: no member is the callee)
    if len(kept) > 1 and any(a[:1] in (":", "=") for a in args):
        kept = _same_type_preferred(kept, args, class_params)
    if len(kept) > 1 and '"' in args:
        kept = _char_pointer_preferred(kept, args)
    if len(kept) > 1 and written and any(w[:1] in (":", "=") for w in written):
        kept = _same_type_preferred(kept, written, class_params)
    return kept


def _char_pointer_preferred(members: list[Symbol], args: list[str]) -> list[Symbol]:
    """A string literal takes `const char*` (an exact match) before a class it converts to
    (`ThrowStdLengthError("..")`: the `const char*` overload, not `const std::string&`)."""
    for i, tok in enumerate(args):
        if tok != '"':
            continue
        kinds = {}
        for s in members:
            base = _parts(s.parameters[i].type or "")[0] if i < len(s.parameters) else ""
            if _CHAR_POINTER.fullmatch(base) and not _WIDE.search(base):
                kinds[s.id] = "exact"
            elif base and not base.endswith("*") and not _ARITHMETIC.fullmatch(base):
                core = base.rstrip("& ").strip()
                free = template_parameters(s.signature)
                kinds[s.id] = "any" if core in free else "class"
            else:
                kinds[s.id] = "any"
        if "exact" in kinds.values():
            members = [s for s in members if kinds[s.id] != "class"]
    return members


def _same_type_preferred(
    members: list[Symbol], args: list[str], class_params: Callable[[Symbol], frozenset[str]] | None
) -> list[Symbol]:
    """A value of type ``T`` takes a parameter of type ``T`` (or of a template's parameter)
    before one it converts to: `EqualsImpl(rhs, n)` with an `absl::string_view rhs` is
    `EqualsImpl(absl::string_view, size_t)`, not `EqualsImpl(const Cord&, size_t)`."""
    for i, tok in enumerate(args):
        if tok[:1] not in (":", "="):
            continue
        pointer = tok.endswith("*")
        arg = tok[1:].rstrip("*").lstrip(":").rsplit("::", 1)[-1]
        kinds = {}
        for s in members:
            if i >= len(s.parameters) or is_pack(s.parameters[i].type or ""):
                kinds[s.id] = "any"
                continue
            base = _parts(s.parameters[i].type or "")[0]
            core = _QUALIFIERS.sub("", base).rstrip("*& ").strip()
            free = template_parameters(s.signature) | (
                class_params(s) if class_params is not None else frozenset()
            )
            if core in free:
                kinds[s.id] = "any"
            elif _last_name(base) == arg and base.rstrip().endswith("*") == pointer:
                kinds[s.id] = "same"
            else:
                kinds[s.id] = "other"
        if "same" in kinds.values():
            special = any(
                kinds[s.id] == "same" and s.signature.startswith("template <>") for s in members
            )
            # an explicit specialization for the argument's type (`template <> size_t
            # SizeOf(const CordRepFlat* rep)`) is what `SizeOf(flat)` deduces to
            # a parameter of the argument's type taken by value matches as well as a template's
            # (`Cord(absl::string_view)` against `template <typename T> Cord(T&& src)` for a
            # `string_view` value), and a function is preferred to a template at a tie
            by_value = any(
                kinds[s.id] == "same" and not _parts(s.parameters[i].type or "")[1] for s in members
            )
            drop = ("other", "any") if special or by_value else ("other",)
            members = [s for s in members if kinds[s.id] not in drop]
    return members


# The type a literal is of: a parameter of exactly that type takes it before one it converts
# to (`int128(0)`: `int128(int)`, not `int128(unsigned)` nor `int128(double)`).
_EXACT = {"0": "int", "1": "int", "1.": "double", "'": "char", "b": "bool"}


def _exact_preferred(members: list[Symbol], args: list[str]) -> list[Symbol]:
    """Among members whose parameter at a literal's position is arithmetic, those of the
    literal's own type, where one is (the other parameters alike)."""
    for i, tok in enumerate(args):
        want = _EXACT.get(tok)
        if want is None:
            continue
        kinds = {}
        for s in members:
            base = _parts(s.parameters[i].type or "")[0] if i < len(s.parameters) else ""
            kinds[s.id] = base if _ARITHMETIC.fullmatch(base) else None
        exact = [s for s in members if kinds[s.id] == want]
        if exact:
            # an exact match beats a conversion (`ullong`, a class's constructor) and ties
            # with a template's deduction, where the function is preferred
            members = exact
        elif (
            len(members) > 1
            and all(kinds[s.id] is not None for s in members)
            and len(set(kinds.values())) > 1
        ):
            # `int128(1)` against `int128(float)`, `int128(double)`, `int128(long double)`
            # only: ambiguous in C++, so the callee is one not seen here (`int128(int)` of an
            # `.inc` file)
            return []
    return members


def _rvalue_preferred(members: list[Symbol], args: list[str]) -> list[Symbol]:
    """`insert(const T&)` / `insert(T&&)` called with an rvalue: the `T&&` member."""
    groups: dict[tuple, list[Symbol]] = {}
    for sym in members:
        key = tuple(_parts(p.type or "")[0] for p in sym.parameters)
        groups.setdefault(key, []).append(sym)
    drop: set[str] = set()
    for group in groups.values():
        if len(group) < 2:
            continue
        for i, tok in enumerate(args):
            if tok not in _RVALUES and tok[:1] != "=":
                continue
            refs = {
                s.id: _parts(s.parameters[i].type or "")[1] if i < len(s.parameters) else ""
                for s in group
            }
            if "&&" in refs.values() and "&" in refs.values():
                drop |= {sid for sid, r in refs.items() if r == "&"}
    return [s for s in members if s.id not in drop] or members


def by_receiver(members: list[Symbol], const: bool | None) -> list[Symbol]:
    """Of members that differ only in their qualifiers, the one a receiver of that constness
    calls (None: not known, all of them)."""
    if const is None or len(members) < 2:
        return members
    groups: dict[tuple, list[Symbol]] = {}
    for sym in members:
        key = tuple(" ".join((p.type or "").split()) for p in sym.parameters)
        groups.setdefault(key, []).append(sym)
    out: set[str] = set()
    for group in groups.values():
        quals = {s.id: member_const(s) for s in group}
        named = [s for s in group if not quals[s.id][1]] or group  # `&&`: a temporary's
        same = [s for s in named if quals[s.id][0] == const]
        out |= {s.id for s in (same or named)}
    return [s for s in members if s.id in out]

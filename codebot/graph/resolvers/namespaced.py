"""C#, PHP, C, C++, Ruby, Swift: names live in namespaces (or one global space) across files.

Each symbol is known by its qualified name inside its file (``Acme.Orders.OrderService``,
``app.net.Pool.create``, ``App.Models.User``): the file's namespaces and types, without the
path. A name is looked up from the caller outwards through its namespaces (``Registry`` inside
``app::net`` tries ``app.net.Registry``, ``app.Registry``, ``Registry``), then through the file's
``using``/``use`` imports and aliases. A method defined outside its type (C++ ``Pool::create``, a
Swift ``extension``) is attached to the type of that name; a Ruby class reopened in several files
is one type.

The receivers these grammars keep differ: C and C++ keep the whole callee (a bare name is a
call without receiver, on ``this`` in a method); C#, Swift, PHP and Ruby drop it only on
complex receivers (PHP: ``$this->m``, ``$x->m``, ``self::m``, ``parent::m``, ``X::m`` are kept;
Ruby: ``obj.m``, ``self.m``, ``X.new``). A PHP method call on a complex receiver is recorded by
its name alone, so a bare name there is claimed by the caller's class only when no unrelated
type defines it (``unique_name``); Ruby marks one ``(?).m`` (see ``RubyResolver``).
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable
from functools import lru_cache

from codebot.core.model import FUNCTION_KINDS, VALUE_KINDS, FileResult, Parameter, Symbol
from codebot.graph.resolvers.base import (
    AMBIGUOUS,
    CLS,
    DECL,
    EXACT,
    EXTERNAL,
    EXTERNAL_CALL,
    INST,
    MOD,
    NOT_LOCAL,
    OVERLOAD,
    OVERRIDE,
    PLAIN,
    SYM,
    UNIQUE,
    UNRESOLVED,
    Ctx,
    Dialect,
    Outcome,
    Resolver,
    Target,
)
from codebot.graph.resolvers.names import TYPES, NameTable, strip_duplicate
from codebot.graph.resolvers.overloads import ARGS, OverloadChooser


class NamespacedResolver(Resolver):
    capitalized_types = True
    name_only = False  # a method call with a receiver may be recorded by its name alone
    implicit_this = True  # a bare name inside a method may be a method of its type
    global_functions = False  # free functions are one space across files (C)
    namespace_sep = "."

    def prepare(self) -> None:
        index = self.index
        self.qnames: dict[str, list[str]] = {}  # qualified name in a file -> ids
        for f in self.files:
            for s in f.symbols:
                if s.kind == "chunk":
                    continue
                local = index.local_name[s.id]
                if "#" not in local:
                    self.qnames.setdefault(local, []).append(s.id)
        self.canonical: dict[str, str] = {}
        for ids in self.qnames.values():  # a type defined in pieces (Ruby, C# partial classes)
            types = [i for i in ids if index.is_type(i)]
            for t in types[1:]:
                self.canonical[t] = types[0]
                for name, mid in index.members.get(t, {}).items():
                    index.members[types[0]].setdefault(name, mid)
        self._attach_methods()
        self.prefixes: set[str] = set()
        for q in self.qnames:
            parts = q.split(".")
            for i in range(1, len(parts)):
                self.prefixes.add(".".join(parts[:i]))
        self.prefix_tails = {p.rsplit(".", 1)[-1] for p in self.prefixes}
        self._usings: dict[str, tuple[dict[str, str], list[str]]] = {}
        self._global_functions: dict[str, list[str]] = {}
        self._found: dict[tuple[str, str, str, bool], str | None] = {}
        for f in self.files:
            for s in f.symbols:
                if s.kind in TYPES and s.id not in self.canonical:
                    self._resolve_bases(s, f)

    def _attach_methods(self) -> None:
        index = self.index
        by_name: dict[str, list[str]] = {}
        for ids in self.qnames.values():
            for i in ids:
                if index.is_type(i) and i not in self.canonical:
                    by_name.setdefault(index.by_id[i].name, []).append(i)
        for f in self.files:
            for s in f.symbols:
                if s.kind != "method" or s.parent is not None or not s.class_name:
                    continue
                owner_q = index.local_name[s.id].rsplit(".", 1)[0]
                owner_q = strip_duplicate(owner_q)
                types = [i for i in self.qnames.get(owner_q, ()) if index.is_type(i)]
                if not types:
                    types = by_name.get(s.class_name, [])
                    near = [t for t in types if _stem(index.file_of[t].path) == _stem(f.path)]
                    types = near or types
                if len(types) >= 1 and len({self.canonical.get(t, t) for t in types}) == 1:
                    t = self.canonical.get(types[0], types[0])
                    index.attach(t, s.id)
                    self.attached[s.id] = t

    def base_type(self, sym: Symbol, file: FileResult, text: str) -> str | None:
        return self._type_name(file, self._nest(sym), text)

    def _type_name(self, file: FileResult, nest: list[str], text: str) -> str | None:
        name = text.split("<", 1)[0].split("(", 1)[0].strip().lstrip("\\").lstrip(":")
        for sep in ("::", "\\"):
            name = name.replace(sep, ".")
        for word in ("public ", "private ", "protected ", "virtual "):
            name = name.replace(word, "")
        name = name.strip().rstrip("?").rstrip("*").rstrip("&").strip()
        if not name or not all(p.isidentifier() for p in name.split(".")):
            return None
        hit = self._qualified(file, nest, name, types_only=True)
        return self.canonical.get(hit, hit) if self.index.is_type(hit) else None

    # --- names ----------------------------------------------------------------------------------

    def _nest(self, sym: Symbol) -> list[str]:
        """The namespaces and types around a symbol (and a type itself), outermost first."""
        local = strip_duplicate(self.index.local_name[sym.id]).split(".")
        return local if sym.kind in TYPES else local[:-1]

    def _usings_of(self, file: FileResult) -> tuple[dict[str, str], list[str]]:
        found = self._usings.get(file.path)
        if found is None:
            aliases: dict[str, str] = {}
            opened: list[str] = []
            for imp in file.imports:
                module = imp.module.replace("\\", ".").replace("::", ".").strip(".")
                if imp.name == "*":
                    opened.append(module)
                elif imp.name:
                    aliases[imp.alias or imp.name] = f"{module}.{imp.name}" if module else imp.name
                elif imp.alias:
                    aliases[imp.alias] = module
            found = (aliases, opened)
            self._usings[file.path] = found
        return found

    def _qualified(
        self, file: FileResult, nest: list[str], name: str, types_only: bool = False
    ) -> str | None:
        """A (dotted) name as written at a place: its definition's id, or None."""
        key = (file.path, ".".join(nest), name, types_only)
        if key not in self._found:
            self._found[key] = self._find(file, nest, name, types_only)
        return self._found[key]

    def _find(self, file: FileResult, nest: list[str], name: str, types_only: bool) -> str | None:
        first, _, rest = name.partition(".")
        aliases, opened = self._usings_of(file)
        candidates = [".".join([*nest[:i], name]) for i in range(len(nest), -1, -1)]
        if first in aliases:
            candidates.append(aliases[first] + (f".{rest}" if rest else ""))
        candidates += [f"{o}.{name}" for o in opened]
        is_type = self.index.is_type
        for q in candidates:
            ids = self.qnames.get(q)
            if types_only and ids:
                ids = [i for i in ids if is_type(i)]  # `Pool` in `Pool::create` is no ctor
            hit = self._pick(ids, file)
            if hit is not None:
                return hit
        return None

    def _pick(self, ids: list[str] | None, file: FileResult) -> str | None:
        if not ids:
            return None
        if len(ids) == 1:
            return ids[0]
        same = [i for i in ids if self.index.file_of[i] is file]
        if len(same) >= 1:
            return same[0]
        firsts = {self.canonical.get(i, i) for i in ids}
        if len(firsts) == 1:
            return ids[0]
        stems = {_stem(self.index.file_of[i].path) for i in ids}
        if len(stems) == 1:  # a header and its implementation
            impl = [i for i in ids if self.index.by_id[i].kind != "chunk"]
            return impl[-1]
        return None

    def param_named(self, param: str, name: str) -> bool:
        return param.lstrip("$&*") == name.lstrip("$")  # PHP `$x`, `&$x`; C `*p`

    def param_type(self, ctx: Ctx, fn: Symbol, text: str) -> str | None:
        return self._type_name(ctx.file, self._nest(fn), text)

    def lookup(self, ctx: Ctx, name: str) -> Target | None:
        local = self.local(ctx, name)
        if local is not NOT_LOCAL:
            return local
        index = self.index
        cls = ctx.cls
        while cls is not None:
            hit = index.find_member(cls, name)[0]
            if hit is not None and index.is_type(hit):
                return (SYM, hit)
            parent = index.by_id[cls].parent
            cls = parent if index.is_type(parent) else None
        nest = self._nest(ctx.sym)
        hit = self._qualified(ctx.file, nest, name)
        if hit is not None and index.by_id[hit].kind != "method":
            # (a method is reached through its type: `implicit_member`, or `Type.method`)
            return (SYM, self.canonical.get(hit, hit))
        for i in range(len(nest), -1, -1):  # a namespace: `detail::f` inside `fmt`
            q = ".".join([*nest[:i], name])
            if q in self.prefixes:
                return (MOD, q)
        if name in self.builtins:
            return EXTERNAL
        if name[:1].isupper() and not self.index.names.get((self.family, name)):
            if name not in self.prefix_tails:
                return EXTERNAL  # a type or namespace defined nowhere here: a library's
        return None

    def returns(self, sym_id: str) -> Target | None:
        sym = self.index.by_id[sym_id]
        if not sym.return_type:
            return None
        t = self._type_name(self.index.file_of[sym_id], self._nest(sym), sym.return_type)
        return (DECL, t) if t is not None else None

    def module_member(self, target: Target, name: str) -> Target | None:
        q = f"{target[1]}.{name}"
        ids = self.qnames.get(q)
        if ids:
            hit = ids[0] if len({self.canonical.get(i, i) for i in ids}) == 1 else None
            return (SYM, self.canonical.get(hit, hit)) if hit is not None else None
        return (MOD, q) if q in self.prefixes else None

    def member(self, target: Target, name: str) -> Target | None:
        if target[0] == SYM and not self.index.is_type(target[1]):
            return None
        if target[0] in (SYM, CLS, DECL) and target[1] in self.canonical:
            target = (target[0], self.canonical[target[1]])
        return super().member(target, name)

    def head(self, ctx: Ctx, name: str, how: int, alone: bool) -> Target | Outcome | None:
        if alone and how == PLAIN and ctx.cls is not None and self.implicit_this:
            if name not in self.super_names and name not in self.self_names:
                out = self.implicit_member(ctx, name, self.name_only)
                if out is not None:
                    return out
        return super().head(ctx, name, how, alone)

    def bare_fallback(self, ctx: Ctx, name: str) -> Outcome:
        if name in self.builtins:
            return EXTERNAL_CALL
        ids = self.index.names.get((self.family, name))
        if not ids:
            return EXTERNAL_CALL
        if self.global_functions:  # C: a function of no namespace, defined in another file
            funcs = self._global_functions.get(name)
            if funcs is None:
                local = self.index.local_name
                funcs = self._global_functions[name] = [
                    i for i in ids if self.index.by_id[i].kind == "function" and "." not in local[i]
                ]
            hit = self._pick(funcs, ctx.file) if funcs else None
            if hit is not None:
                return [(hit, EXACT if self._included(ctx.file, hit) else UNIQUE)]
            return self.not_found(name)  # a bare name in C/C++ is no call on an unknown receiver
        if self.name_only:
            # `x.name(...)`: any receiver; only the caller's class may claim it
            return self.not_found(name)
        return self.member_fallback(name, ctx)

    def _included(self, file: FileResult, sid: str) -> bool:
        target = self.index.file_of[sid]
        if target is file:
            return True
        stem = posixpath.basename(_stem(target.path))
        return any(posixpath.basename(_stem(i.module)) == stem for i in file.imports)

    def fallback_candidate(self, sid: str) -> bool:
        return self.index.by_id[sid].kind in ("method", "function")


_CSHARP_PREDEFINED = frozenset(
    """string object int long short byte sbyte uint ulong ushort char bool float double decimal
    dynamic""".split()
)


class CSharpResolver(OverloadChooser, NamespacedResolver):
    family = "csharp"
    dialect = Dialect(angle_generics=True, prefixes=("await ", "new "))
    self_names = frozenset({"this"})
    super_names = frozenset({"base"})
    builtins = frozenset(
        """nameof typeof sizeof default Console Math String Object Exception ArgumentException
        ArgumentNullException InvalidOperationException NotImplementedException
        NotSupportedException KeyNotFoundException List Dictionary HashSet Task ValueTask
        Guid DateTime TimeSpan Convert Enum Array Tuple Activator Environment Path File
        Directory StringBuilder Interlocked Volatile GC Lazy Func Action""".split()
    )
    stop_names = frozenset(
        """ToString Equals GetHashCode GetType CompareTo Add AddRange Remove Clear Contains
        ContainsKey TryGetValue Select Where First FirstOrDefault Last Any All Count Sum Max Min
        OrderBy OrderByDescending ToList ToArray ToDictionary GroupBy Skip Take Dispose
        DisposeAsync Read Write WriteLine ReadLine Flush Close Get Set Invoke ConfigureAwait
        GetAwaiter GetResult Wait Append Format Join Split Trim Replace Substring StartsWith
        EndsWith IndexOf Parse TryParse""".split()
    )

    def prepare(self) -> None:
        super().prepare()
        # Overloads: the methods and constructors sharing one qualified name (`Save`, `Save#2`)
        groups: dict[tuple[str, str], list[str]] = {}
        self._file_nest: dict[str, list[str]] = {}
        for f in self.files:
            for s in f.symbols:
                if s.kind in FUNCTION_KINDS and s.id in self.index.local_name:
                    key = (f.module, strip_duplicate(self.index.local_name[s.id]))
                    groups.setdefault(key, []).append(s.id)
                elif s.kind in TYPES and f.path not in self._file_nest:
                    self._file_nest[f.path] = self._nest(s)
        self.overloads = {sid: ids for ids in groups.values() if len(ids) > 1 for sid in ids}
        # Extension methods (`static int Execute(this IDbConnection cnn, ...)`) by name
        self.extensions: dict[str, list[str]] = {}
        for f in self.files:
            for s in f.symbols:
                if s.kind == "method" and s.parameters and _this_type(s) is not None:
                    self.extensions.setdefault(s.name, []).append(s.id)
        self._on_receiver = False  # choosing an extension method: its `this` is the receiver

    def repo_type(self, file: FileResult, text: str) -> str | None:
        return self._type_name(file, self._file_nest.get(file.path, []), text)

    def resolve_call(self, ctx: Ctx, text: str) -> Outcome:
        m = ARGS.search(text) if text[-1:] == ")" else None
        if m is None:
            return super().resolve_call(ctx, text)
        args = [a.strip() for a in m[1].split(",")] if m[1].strip() else []
        out = super().resolve_call(ctx, text[: m.start()])
        if isinstance(out, list):
            chosen = self.choose(ctx, out, args)
            if not self.fits_none(ctx, chosen, args):
                return list(chosen.items())
            out = UNRESOLVED  # (a name guess whose parameters take none of these arguments)
        base = text[: m.start()]
        if out not in (UNRESOLVED, AMBIGUOUS) or base.rsplit(".", 1)[-1].split("<", 1)[0] not in (
            self.extensions
        ):
            return out  # (external, dynamic: decided; no extension method of that name)
        ext = self._extension_call(ctx, base, args)
        return ext if ext is not None else out

    def _extension_call(self, ctx: Ctx, text: str, args: list[str]) -> Outcome | None:
        """``connection.Execute(sql)``, ``(cnn: IDbConnection).Query<T>(sql)``: the repository's
        extension methods of that name whose ``this`` takes the receiver, chosen by the other
        arguments. A receiver of a declared type must match the ``this`` type (by name, or a
        type parameter); one of unknown type only when every definition of the name is an
        extension method (``unique_name``)."""
        m = _CS_RECEIVER.fullmatch(text)
        if m is None:
            return None
        name = m["name"]
        exts = self.extensions.get(name)
        if not exts:
            return None
        declared = m["type"]
        recv = m["recv"]
        value = _CS_ASSIGNED.fullmatch(recv) if recv and recv[0] == "(" else None
        if value is not None:
            # `(conn = GetOpenConnection()).Execute(..)`: the type the callee declares it
            # returns (`new T()`: T)
            declared = self._returned_type(ctx, value[1])
            if declared is None:
                return None
        elif declared is None and recv and recv.isidentifier() and ctx.cls is not None:
            # `connection.Execute(..)` in a test whose base class has the property
            # `protected DbConnection connection => ...`: the property's type
            prop = self.index.find_member(ctx.cls, recv)[0]
            sym = self.index.by_id.get(prop) if prop is not None else None
            if sym is not None and sym.return_type and "(" not in sym.signature:
                declared = sym.return_type
        every = exts
        resolution = EXACT
        if declared is not None:
            want = _simple_type(declared)
            fits = (want, f"I{want}", "object")  # `DbConnection` is an `IDbConnection`
            exts = [e for e in every if _this_type(self.index.by_id[e]) in fits]
            exts = exts or [e for e in every if _is_type_parameter(self.index.by_id[e])]
            if not exts and self.repo_type(ctx.file, want) is None:
                # a library type whose interfaces we cannot see: the extensions of a type its
                # name ends as (`NpgsqlConnection`, `SqlConnection` for `IDbConnection`)
                tail = _last_word(want)
                exts = [e for e in every if _last_word(_this_type(self.index.by_id[e])) == tail]
                resolution = UNIQUE
        else:
            resolution = UNIQUE
        if declared is None and (
            recv.startswith("(")  # a value we could not type
            or set(self.index.names.get((self.family, name), ())) - set(every)
        ):
            return None  # another type's method of that name may be the one
        if m["targs"] is not None:  # `Query<Post, User, Post>(..)`: three type parameters
            n = _type_arity(m["targs"])
            exts = [e for e in exts if _type_arity(_generics(self.index.by_id[e])) == n]
        else:  # none written: a generic method only if its arguments tell every type parameter
            exts = [e for e in exts if _inferable(self.index.by_id[e])]
        if not exts:
            return None
        self._on_receiver = True
        try:
            picked = self._overload_pick(ctx, exts, args)
        finally:
            self._on_receiver = False
        if not picked:
            return None
        if len(picked) > 1:  # C#: of members that fit alike, a non-generic one is better
            plain = [e for e in picked if not _generics(self.index.by_id[e])]
            picked = plain or picked
        if len(picked) == 1:
            return [(picked[0], resolution)]
        return [(e, OVERLOAD) for e in picked]

    def _returned_type(self, ctx: Ctx, value: str) -> str | None:
        """``GetOpenConnection()``, ``Provider.Open()``, ``new SqlConnection()`` -> the type
        text the value has, as the repository declares it; None where not known."""
        if value.startswith("new "):
            return value[4:-2].strip() or None
        callee = value[:-2]
        found = self.lookup(ctx, callee) if callee.isidentifier() else None
        if callee.isidentifier() and ctx.cls is not None and found is None:
            hit = self.index.find_member(ctx.cls, callee)[0]
            found = (SYM, hit) if hit is not None else None
        if found is None and "." in callee:
            head, _, name = callee.rpartition(".")
            t = self.lookup(ctx, head) if head.isidentifier() else None
            found = self.member(t, name) if t is not None and t != EXTERNAL else None
        if found is None or found[0] != SYM or found[1] not in self.index.by_id:
            return None
        sym = self.index.by_id[found[1]]
        return sym.return_type if sym.kind in FUNCTION_KINDS and sym.return_type else None

    def _overload_params(self, sid: str) -> tuple[Parameter, ...]:
        params = super()._overload_params(sid)
        if self._on_receiver and params and (params[0].type or "").startswith("this "):
            return params[1:]
        return params

    def declared_type(self, ctx: Ctx, text: str) -> Target | None:
        """A local's, a field's, a property's or a parameter's type: the repository's, a
        library's (a predefined type, a capitalized name defined nowhere here), or None."""
        t = self.param_type(ctx, ctx.sym, text)
        if t is not None:
            return (DECL, t)
        name = text.split("<", 1)[0].rstrip("?[]").strip()
        if name in _CSHARP_PREDEFINED:
            return EXTERNAL
        if not name.isidentifier():
            return None
        return EXTERNAL if self.lookup(ctx, name) == EXTERNAL else None

    def external_member(self, ctx: Ctx, type_text: str | None, rest: str) -> Outcome | None:
        """A library type's method, unless the repository has an extension method of that name
        (``static string Slug(this string s)``)."""
        if not rest.isidentifier():
            return None
        for sid in self.index.names.get((self.family, rest), ()):
            if "(this " in self.index.by_id[sid].signature:
                return None
        return EXTERNAL_CALL

    def head(self, ctx: Ctx, name: str, how: int, alone: bool) -> Target | Outcome | None:
        if alone and name == "this" and ctx.cls is not None:
            ctor = self.constructor(ctx.cls)
            return [(ctor, EXACT)] if ctor != ctx.sym.id else UNRESOLVED
        return super().head(ctx, name, how, alone)


_CS_RECEIVER = re.compile(
    r"(?:\((?P<var>[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)?): (?P<type>[^()]+)\)|(?P<recv>.+?))"
    r"\.(?P<name>[A-Za-z_]\w*)(?:<(?P<targs>[^()]*)>)?"
)


_CS_ASSIGNED = re.compile(r"\([A-Za-z_]\w* = ((?:new )?[A-Za-z_][\w.]*\(\))\)")


def _last_word(name: str | None) -> str:
    """``NpgsqlConnection`` -> ``Connection``: the last word of a camel-case name."""
    words = re.findall(r"[A-Z][a-z0-9]+", name or "")
    return words[-1] if words else ""


def _this_type(sym: Symbol) -> str | None:
    """The simple type of an extension method's ``this`` parameter, or None (no extension)."""
    first = sym.parameters[0].type if sym.parameters else None
    if not first or not first.startswith("this "):
        return None
    return _simple_type(first[5:])


def _simple_type(text: str) -> str:
    """``IEnumerable<T>?`` -> ``IEnumerable``; ``System.Data.IDbConnection`` -> ``IDbConnection``."""
    return text.split("<", 1)[0].strip().rstrip("?").rsplit(".", 1)[-1]


def _generics(sym: Symbol) -> str:
    """``Query<TFirst, TSecond>`` in a method's signature -> ``TFirst, TSecond`` ("" if none)."""
    m = re.search(rf"\b{re.escape(sym.name)}<([^()]*)>\s*\(", sym.signature)
    return m[1] if m else ""  # (after any attributes: `[SuppressMessage(..)] public ..`)


def _type_arity(args: str) -> int:
    """How many type arguments a (possibly nested) list holds: ``A, B<C, D>`` -> 2."""
    if not args.strip():
        return 0
    depth, n = 0, 1
    for ch in args:
        if ch in "<([":
            depth += 1
        elif ch in ">)]":
            depth -= 1
        elif ch == "," and depth == 0:
            n += 1
    return n


def _inferable(sym: Symbol) -> bool:
    """Whether a call without type arguments can reach a method: it is not generic, or each
    type parameter appears in a parameter's type (``Query<T>(this IDbConnection cnn, string
    sql)`` needs ``Query<T>(..)`` written; ``Slug<T>(this T value)`` does not)."""
    names = [t.strip().split()[-1] for t in _generics(sym).split(",") if t.strip()]
    types = " ".join(p.type or "" for p in sym.parameters)
    return all(re.search(rf"\b{re.escape(n)}\b", types) for n in names)


def _is_type_parameter(sym: Symbol) -> bool:
    """``Foo<T>(this T value)``: an extension of any type."""
    t = _this_type(sym)
    return t is not None and f"<{t}>" in sym.signature.replace(" ", "")


class PhpResolver(NamespacedResolver):
    family = "php"
    name_only = True
    dialect = Dialect(separators=r"\?->|->|::|\\", ident=r"\$?[A-Za-z_][\w]*")
    self_names = frozenset({"$this"})
    class_self_names = frozenset({"self", "static"})
    super_names = frozenset({"parent"})
    ctor_names = ("__construct",)
    ctor_inherited = True
    computed_prefix = "$"  # `$f()`, `$this->$name()`: a name held in a variable
    dispatch_names = frozenset(
        {"call_user_func", "call_user_func_array", "forward_static_call", "invoke", "invokeArgs"}
    )
    builtins = frozenset(
        """count strlen array_map array_filter array_keys array_values array_merge in_array
        is_array is_string is_int isset unset empty explode implode sprintf printf str_replace
        substr trim json_encode json_decode function_exists class_exists method_exists
        call_user_func call_user_func_array compact extract array_key_exists ucfirst lcfirst
        strtolower strtoupper preg_match preg_replace var_dump print_r die exit""".split()
    )
    stop_names = frozenset(
        """get set has add remove all first find save delete update create make handle run
        __construct __toString __get __set __call toArray count map filter each push""".split()
    )

    def head(self, ctx: Ctx, name: str, how: int, alone: bool) -> Target | Outcome | None:
        if alone and name in self.class_self_names and ctx.cls is not None:
            return [(self.constructor(ctx.cls), EXACT)]  # `new static()`
        return super().head(ctx, name, how, alone)

    def resolve_call(self, ctx: Ctx, text: str) -> Outcome:
        if text.startswith("\\"):
            # `new \DateTimeImmutable`, `\strlen($s)`: a name from the global namespace, never
            # the `Monolog\DateTimeImmutable` of the caller's namespace
            path = _PHP_PATH.match(text[1:])
            q = path[0].replace("\\", ".") if path else ""
            if q and q not in self.qnames and q not in self.prefixes:
                return EXTERNAL_CALL
        return super().resolve_call(ctx, text)

    def member_fallback(self, name: str, ctx: Ctx) -> Outcome:
        return _not_into_tests(self, ctx, super().member_fallback(name, ctx))


class CResolver(NamespacedResolver):
    family = "c"
    global_functions = True
    dialect = Dialect(separators=r"->|::", angle_generics=True, prefixes=("new ",))
    self_names = frozenset({"this"})
    super_names = frozenset()
    builtins = frozenset(
        """printf fprintf sprintf snprintf vsnprintf puts putchar fputs fgets fopen fclose fread
        fwrite fflush fseek ftell malloc calloc realloc free memcpy memmove memset memcmp
        strlen strcpy strncpy strcat strncat strcmp strncmp strchr strrchr strstr strdup
        strtol strtoul strtod atoi atol atof abs labs exit abort assert qsort bsearch getenv
        time clock rand srand isalpha isdigit isspace isalnum isupper islower toupper tolower
        perror errno va_start va_end va_arg sizeof static_cast dynamic_cast const_cast
        reinterpret_cast std""".split()
    )
    stop_names = frozenset(
        """size push_back emplace_back pop_back begin end find insert erase clear empty get
        reset release data c_str at front back count lock unlock name what compare str substr
        length append push pop first second swap value has_value emplace load store exchange
        write read close open flush resize reserve capacity""".split()
    )

    def fallback_candidate(self, sid: str) -> bool:
        return self.index.by_id[sid].kind == "method"  # `x.f()`, `p->f()`: a method


class RubyResolver(NamespacedResolver):
    """Ruby's call texts (``languages/ruby.py``) say who receives a call:

    - ``save(x)``, no receiver: ``self``. The method a reader finds going up the caller's class,
      its reopened parts, the modules it includes and its ancestors is the one (``exact``); a
      name none of them defines, in a hierarchy a library completes, is the library's.
    - ``(self? it mock_app get).body``: no receiver, in blocks given to those calls (outermost
      first). The caller's ``self`` when each is a library's (``it``); the class a repository
      method's ``&block`` runs in when it takes one as a parameter's default (``mock_app(base =
      Sinatra::Base, &block)``), kept through that class's own methods (``get``); otherwise the
      caller's hierarchy claims the name only when no type outside it defines one
      (``unique_name``).
    - ``(?).c``: a method of an expression the text does not show (``a.b(1).c``): only the
      repository's one definition of the name (``unique_name``).
    - ``x.c``, ``@x.c``: through ``x``'s type when the text records it (``(x = Foo.new()).c``);
      else the one definition of ``c``, when ``x`` names its class (``req`` for ``Request``).
    """

    family = "ruby"
    name_only = False  # a bare name is a call on self (see the docstring)
    dialect = Dialect(separators=r"&\.|::", ident=r"[@$]{0,2}[A-Za-z_]\w*[?!]?", prefixes=())
    self_names = frozenset({"self"})
    super_names = frozenset()
    ctor_names = ("initialize",)
    ctor_inherited = True
    dispatch_names = frozenset({"send", "public_send", "__send__", "instance_exec", "class_exec"})
    reflect_names = frozenset({"method", "instance_method", "public_method", "const_get"})
    builtins = frozenset(
        """puts print p pp require require_relative raise fail loop lambda proc format sprintf
        attr_accessor attr_reader attr_writer include extend prepend private protected public
        module_function define_method instance_variable_get instance_variable_set send
        public_send respond_to? is_a? kind_of? freeze frozen? dup clone block_given? catch throw
        Integer Float String Array Hash""".split()
    )
    stop_names = frozenset(
        """each map select reject find detect inject reduce each_with_object each_with_index
        any? all? none? include? first last size length count empty? nil? to_s to_i to_a to_h
        to_sym join split strip downcase upcase gsub sub push pop shift unshift merge fetch
        keys values key? call new save update destroy create find_by where tap then map! select!
        reject! sort sort_by slice dig except fetch_values values_at delete delete_if has_key?
        value? each_key each_value transform_keys transform_values merge! replace write putc
        read close flush synchronize force_encoding""".split()
    )

    def prepare(self) -> None:
        super().prepare()
        index = self.index
        for f in self.files:
            for s in f.symbols:
                if s.kind not in TYPES:
                    continue
                first = strip_duplicate(index.local_name[s.id]).split(".")[0]
                t = self.canonical.get(s.id, s.id)
                if t != s.id:  # a class reopened: its mixins are the class's wherever written
                    bases = index.bases.setdefault(t, [])
                    for text in s.bases:
                        b = self.base_type(s, f, text)
                        if b is None or b == t:
                            index.open_types.add(t)
                        elif b not in bases:
                            bases.append(b)
                            index.subclasses[b].append(t)
                if first not in self.qnames and first != strip_duplicate(index.local_name[s.id]):
                    # `class Minitest::Test` where no `module Minitest` is ours: a library's
                    # class reopened, whose other methods are the library's
                    index.open_types.add(t)

    def head(self, ctx: Ctx, name: str, how: int, alone: bool) -> Target | Outcome | None:
        if alone and ctx.cls is not None:
            if name == "super":  # the method of the same name in the next type of the MRO
                hit = self.index.find_member(ctx.cls, ctx.sym.name, skip=1)
                if hit[0] is not None:
                    return [(hit[0], EXACT)]
                return EXTERNAL_CALL if hit[1] else UNRESOLVED
            if name == "new":
                return [(self.constructor(ctx.cls), EXACT)]
        return super().head(ctx, name, how, alone)

    def member_fallback(self, name: str, ctx: Ctx) -> Outcome:
        """``obj.m(x)`` on a value of unknown type: no guess when ``m`` is one of Object's
        (``is_a?``) or when the one definition is the caller itself (``@mutex.synchronize`` in
        ``synchronize``: a method of that name on another object)."""
        if name in self.builtins:
            return EXTERNAL_CALL
        out = super().member_fallback(name, ctx)
        if isinstance(out, list) and any(d == ctx.sym.id for d, _ in out):
            return UNRESOLVED
        out = _not_into_tests(self, ctx, out)
        recv = self._receiver
        if isinstance(out, list) and recv is not None and not self._named_for(recv, out[0][0]):
            # `response.status`, `uri.port`, `boom.message`: Rack's, URI's, Exception's methods
            # share these names; a value of unknown type is one of ours only when its name
            # says so (`request.forwarded?` -> `Request#forwarded?`)
            return AMBIGUOUS
        return out

    def _named_for(self, receiver: str, sid: str) -> bool:
        """Whether a variable's name names the class of method ``sid``, one of its bases, or a
        class that includes or extends it: ``request``, ``@request``, ``last_request``,
        ``req`` for ``Request`` (and the ``Request::Helpers`` it includes), ``base`` for
        ``Base``."""
        owner = self.owner_type(sid)
        if owner is None:
            return False
        owner = self.canonical.get(owner, owner)
        r = receiver.lstrip("@$").lower().rstrip("0123456789")
        types = set(self.index.mro(owner))
        todo = [owner]
        while todo:  # the classes that include a module, or subclass a class
            for sub in self.index.subclasses.get(todo.pop(), ()):
                if sub not in types:
                    types.add(sub)
                    todo.append(sub)
        for t in types:
            n = _snake(self.index.by_id[t].name)
            if r == n or r.endswith("_" + n) or (len(r) >= 3 and n.startswith(r)):
                return True  # `request`, `last_request`, `req` for `Request`
        return False

    _receiver: str | None = None  # the call's receiver as written: what `member_fallback` sees

    def resolve_call(self, ctx: Ctx, text: str) -> Outcome:
        self._receiver = None if text.startswith("(self? ") else _receiver(text)
        return self._resolve_ruby(ctx, text)

    def _resolve_ruby(self, ctx: Ctx, text: str) -> Outcome:
        if text.startswith("(self? "):
            blocks, _, name = text[7:].partition(").")
            self_type = self._block_self(ctx, blocks.split())
            if self_type == "":
                return self._resolve_ruby(ctx, name)
            if self_type is not None and name not in ("new", "super"):
                hit, open_ = self.index.find_member(self_type, name)
                if hit is not None:
                    return [(hit, EXACT)]
                if open_:
                    return EXTERNAL_CALL
            if ctx.cls is not None and name not in ("new", "super"):
                out = self.implicit_member(ctx, name, True)
                if out is not None:
                    return out
            return self._resolve_ruby(ctx, f"(?).{name}")
        if text.startswith("(@"):  # `(@app = Foo.new()).call`: see languages/ruby.py
            m = _IVAR_TYPED.fullmatch(text)
            if m is not None:
                out = self._typed(ctx, (m[1], " = ", m[2], m[3]))
                return out if out is not None else self._resolve_ruby(ctx, f"{m[1]}.{m[3]}")
        if text.startswith("(?)."):
            out = self.member_fallback(text[4:], ctx)
            return self.no_edge(text[4:], out) if isinstance(out, str) else out
        # `::Logger.new`: a constant from the top level, looked up as any other
        return super().resolve_call(ctx, text[2:] if text.startswith("::") else text)

    def _block_self(self, ctx: Ctx, blocks: list[str]) -> str | None:
        """Whose ``self`` the blocks given to these calls (outermost first) run with: ``""``
        the caller's (each call is a library's: a test's ``it``/``setup``), a type's id, or
        None (not known). A block given to ``Class.new`` or ``instance_eval`` is not known; one
        given to a repository method that takes ``&block`` and a class as a parameter's default
        (``def mock_app(base = Sinatra::Base, &block)``) runs in that class, and so do the blocks
        inside it given to that class's own methods (its routes: ``get "/" do ... end``)."""
        cur = ""
        for b in blocks:
            if b in _SELF_CHANGING or b in self.ctor_names:
                return None
            if cur:
                if self.index.find_member(cur, b)[0] is None:
                    return None
                continue
            hit = self.index.find_member(ctx.cls, b)[0] if ctx.cls is not None else None
            if hit is None:
                found = self.lookup(ctx, b)
                if found is not None:
                    hit = found[1] if found[0] == SYM else None
                    if hit is None:
                        return None
            if hit is not None:
                cur = self._block_class(hit)
                if cur is None:
                    return None
        return cur

    def _block_class(self, sid: str) -> str | None:
        """The class a method's ``&block`` runs in when it takes the class as a parameter's
        default value (``def mock_app(base = Sinatra::Base, &block)``), else None."""
        sym = self.index.by_id[sid]
        if sym.kind not in FUNCTION_KINDS or not any(p.name[:1] == "&" for p in sym.parameters):
            return None
        for p in sym.parameters:
            if p.default and _CONSTANT.fullmatch(p.default):
                t = self._type_name(self.index.file_of[sid], self._nest(sym), p.default)
                if t is not None and self.index.by_id[t].kind == "class":
                    return t
        return None

    def lookup(self, ctx: Ctx, name: str) -> Target | None:
        found = super().lookup(ctx, name)
        if found is not None and found[0] == SYM and found[1] in self.index.by_id:
            f = self.index.file_of[found[1]]
            if f is not ctx.file and f.role == "test" and not self.index.is_type(found[1]):
                # a `def use` at the top of another spec file is that spec's helper
                return None
        return found

    def value_of(self, ctx: Ctx, text: str) -> Target | None:
        """``Foo::Bar.new()``: an instance of the repository's class (however its
        ``initialize`` is found), or a library's value (``StringIO.new``)."""
        if not text.endswith(".new()") or not _CONSTANT.fullmatch(text[:-6]):
            return super().value_of(ctx, text)
        name = text[:-6].lstrip(":").replace("::", ".")
        if name in ("Class", "Module", "Struct", "Data"):
            return None  # `Class.new(Base)`: a new class, of our base perhaps
        hit = self._qualified(ctx.file, self._nest(ctx.sym), name, types_only=True)
        if hit is not None and self.index.is_type(hit):
            t = self.canonical.get(hit, hit)
            if self.index.by_id[t].kind == "module" or self.index.find_member(t, "new")[0]:
                return None  # `Sinatra.new`: a method named `new`, returning anything
            return (INST, t)
        if hit is None and "." in name:
            return EXTERNAL  # `Rack::Response` where only `module Rack` is ours: the library's
        head = self.lookup(ctx, name)
        return EXTERNAL if head == EXTERNAL else None

    def _typed(self, ctx: Ctx, typed: tuple[str, str, str, str]) -> Outcome | None:
        out = super()._typed(ctx, typed)
        if out is None and typed[1] == " = " and _METHOD.fullmatch(typed[3]):
            target = self.value_of(ctx, typed[2])
            if target is not None and target[0] == INST:
                # an instance of ours lacking the method: a library base's, or no such method
                return (
                    EXTERNAL_CALL if self.index.find_member(target[1], typed[3])[1] else UNRESOLVED
                )
        return out

    def bare_fallback(self, ctx: Ctx, name: str) -> Outcome:
        """A call without receiver that neither the caller's hierarchy nor its scopes define: a
        library's (``Kernel``, an unresolved mixin) or a method the repository defines on
        other types, which this self does not have: no guess."""
        if name in self.builtins:
            return EXTERNAL_CALL
        if not self.index.names.get((self.family, name)):
            return EXTERNAL_CALL
        if ctx.cls is not None and self.index.find_member(ctx.cls, name)[1]:
            # not in the repository's part of the hierarchy, which a library's class or
            # module completes (`class RoutingTest < Minitest::Test` with `Rack::Test::Methods`
            # included: `get "/"` is rack-test's)
            return EXTERNAL_CALL
        return self.not_found(name)

    def member(self, target: Target, name: str) -> Target | None:
        if name == "new" and target[0] in (SYM, CLS) and self.index.is_type(target[1]):
            t = self.canonical.get(target[1], target[1])
            own = self.index.find_member(t, "new")[0]  # `def self.new` of the class or a base
            return (SYM, own if own is not None else self.constructor(t))
        return super().member(target, name)


class SwiftResolver(NamespacedResolver):
    family = "swift"
    dialect = Dialect(angle_generics=True, prefixes=("try ", "try? ", "try! ", "await "))
    self_names = frozenset({"self"})
    class_self_names = frozenset({"Self"})
    super_names = frozenset({"super"})
    ctor_names = ("init",)
    builtins = frozenset(
        """print debugPrint fatalError precondition preconditionFailure assert assertionFailure
        min max abs stride zip repeatElement type withUnsafePointer withExtendedLifetime
        String Int Double Float Bool Array Dictionary Set Optional Result Data Date URL UUID
        DispatchQueue NotificationCenter JSONDecoder JSONEncoder Task""".split()
    )
    stop_names = frozenset(
        """append insert remove removeAll removeFirst removeLast contains first last map
        filter reduce compactMap flatMap forEach sorted sort joined split count isEmpty index
        description encode decode resume cancel async sync""".split()
    )

    def __init__(self, index: NameTable, files: list[FileResult]) -> None:
        super().__init__(index, files)
        self._nests: dict[str, list[str]] = {}
        self._type_names: dict[tuple[str, str, str], str | None] = {}
        self._extended: dict[str, bool] = {}  # name -> may be a library type extended here
        self._shapes: dict[tuple[str, str], bool] = {}
        self._chosen: dict[tuple, Outcome] = {}  # (file, arguments, *targets) -> outcome

    def _nest(self, sym: Symbol) -> list[str]:
        found = self._nests.get(sym.id)
        if found is None:
            found = self._nests[sym.id] = super()._nest(sym)
        return found

    def _type_name(self, file: FileResult, nest: list[str], text: str) -> str | None:
        key = (file.path, ".".join(nest), text)
        if key not in self._type_names:
            self._type_names[key] = super()._type_name(file, nest, text)
        return self._type_names[key]

    def declared_type(self, ctx: Ctx, text: str) -> Target | None:
        """``let q: DispatchQueue``, ``(request: URLRequest)``: the repository's type, a
        library's (defined nowhere here, or only extended: ``extension URLRequest``), or None."""
        t = self.param_type(ctx, ctx.sym, text)
        if t is not None:
            return (DECL, t)
        name = _plain_type(text).split("<", 1)[0].strip()
        if name[:1] == "[" and name[-1:] == "]":
            return EXTERNAL  # `[User]`, `[String: Int]`: an Array, a Dictionary
        if not name.isidentifier() or not name[:1].isupper():
            return None
        found = self.lookup(ctx, name)
        return EXTERNAL if found == EXTERNAL or (found and found[0] == MOD) else None

    def param_type(self, ctx: Ctx, fn: Symbol, text: str) -> str | None:
        return super().param_type(ctx, fn, _plain_type(text))  # `(any EventMonitor)?`

    def lookup(self, ctx: Ctx, name: str) -> Target | None:
        found = super().lookup(ctx, name)
        if found is not None and found[0] == SYM and not self._visible(ctx, found[1]):
            return EXTERNAL  # `NIOLock()` in a source file: not a test file's private `NIOLock`
        if (found is None or found == EXTERNAL) and name in self.globals:
            # `AF` of `public let AF = Session.default`: the repository's value, of the type
            # its declaration shows, or unknown (not a library's)
            values = self.globals[name]
            return self._value(values[0]) if len(values) == 1 else None
        return found

    def member(self, target: Target, name: str) -> Target | None:
        self._recv = target
        found = super().member(target, name)
        if found is not None and found[0] == SYM and not self._imported(found[1]):
            # `app.test(..)` in a file importing XCTVapor: XCTApplicationTester's `test`, not
            # VaporTesting's, though Application conforms to both
            found = None
            for t in self.index.mro(target[1]) if self.index.is_type(target[1]) else ():
                hit = self.index.members.get(t, {}).get(name)
                if hit is not None and self._imported(hit):
                    found = (SYM, hit)
                    break
        if found is None and target[0] in (SYM, CLS) and self.index.is_type(target[1]):
            static = self.statics.get((self.canonical.get(target[1], target[1]), name))
            if static is not None:  # `Session.default`: a static value of the type
                return self._value(static)
        return found

    def head(self, ctx: Ctx, name: str, how: int, alone: bool) -> Target | Outcome | None:
        self._recv = None
        return super().head(ctx, name, how, alone)

    def returns(self, sym_id: str) -> Target | None:
        """What a function returns: its declared type (``Self``: the type of the value it is
        called on, or the type it is a member of), unless its overloads declare others."""
        index = self.index
        group = self.overloads.get(sym_id)
        if group:
            # which member is called decides; the text of a chain drops the arguments, but a
            # member whose value is optional is rarely followed by a plain `.`
            written = {(index.by_id[g].return_type or "").strip() for g in group}
            plain = {w for w in written if w[-1:] not in ("?", "!")}
            if len({_plain_type(w) for w in plain or written}) > 1:
                return None
            sym_id = next(
                g for g in group if (index.by_id[g].return_type or "").strip() in (plain or written)
            )
        sym = index.by_id[sym_id]
        written = _plain_type(sym.return_type or "")
        if written == "Self":
            owner = self.owner_type(sym_id)
            recv = self._recv
            if recv is not None and recv[0] in (INST, DECL) and owner is not None:
                if owner in self.index.mro(recv[1]):
                    return recv
            return (DECL, self.canonical.get(owner, owner)) if owner is not None else None
        if not written:
            return None
        t = self._type_name(index.file_of[sym_id], self._nest(sym), written)
        return (DECL, t) if t is not None else None

    def _value(self, sym: Symbol) -> Target | None:
        """What a constant or variable holds, as its declaration shows: ``let x: T``, ``let x
        = T()`` / ``T.init(..)``, ``let x = T.shared`` (another static value); None else."""
        if sym.id in self._values:
            return self._values[sym.id]
        self._values[sym.id] = None  # (a cycle stops here)
        found: Target | None = None
        m = _VALUE_DECL.search(sym.signature)
        if m is not None:
            file = self.index.file_of[sym.id]
            nest = self._nest(sym)
            if m["type"]:
                t = self._type_name(file, nest, _plain_type(m["type"]))
                found = (DECL, t) if t is not None else None
            elif m["value"]:
                path, called = m["value"], m["call"] is not None
                head, _, rest = path.partition(".")
                t = self._type_name(file, nest, head) if head[:1].isupper() else None
                if t is not None and (not rest or rest == "init") and called:
                    found = (INST, t)
                elif t is not None and rest and "." not in rest and not called:
                    static = self.statics.get((t, rest.strip("`")))
                    found = self._value(static) if static is not None else None
        self._values[sym.id] = found
        return found

    def value_of(self, ctx: Ctx, text: str) -> Target | None:
        """``let done = expectation(description:)`` in a test case: a method of the library
        base class (``XCTestCase``) the repository's hierarchy does not define returns a
        library's value."""
        found = super().value_of(ctx, text)
        name = text[:-2] if text.endswith("()") else ""
        if found is None and name.isidentifier() and ctx.cls is not None:
            hit, open_ = self.index.find_member(ctx.cls, name)
            if hit is None and open_ and self.lookup(ctx, name) is None:
                return EXTERNAL
        return found

    def external_member(self, ctx: Ctx, type_text: str | None, rest: str) -> Outcome | None:
        """A library type's method, unless the repository extends a library type with a method
        of that name (``extension DispatchQueue { func after(..) }``)."""
        if not rest.isidentifier():
            return None
        for sid in self.index.names.get((self.family, rest), ()):
            if self.index.by_id[sid].class_name and self.owner_type(sid) is None:
                return None  # (a function local to another, also named so, is no method)
        return EXTERNAL_CALL

    def prepare(self) -> None:
        super().prepare()
        self._add_conformances()
        # Enum cases (constants of an enum; a `case a, b` line is one symbol, its signature
        # names the others): `.redirect(count:)` may be a case, not a function of that name
        self.enum_cases: dict[str, list[tuple[Parameter, ...] | None]] = {}
        # Values: a type's static ones by (type, name), the top-level ones by name
        self.statics: dict[tuple[str, str], Symbol] = {}
        self.globals: dict[str, list[Symbol]] = {}
        index = self.index
        for sym in index.by_id.values():
            if sym.kind not in VALUE_KINDS or sym.language != "swift":
                continue
            parent = index.by_id.get(sym.parent) if sym.parent is not None else None
            if parent is None:
                self.globals.setdefault(sym.name, []).append(sym)
            elif parent.kind == "enum" and sym.signature.lstrip().startswith(("case ", "indirect")):
                for name, values in _cases(sym):
                    self.enum_cases.setdefault(name, []).append(values)
            elif parent.kind in TYPES:
                self.statics.setdefault((parent.id, sym.name.strip("`")), sym)
        self._values: dict[str, Target | None] = {}
        self._recv: Target | None = None  # the receiver of the member last looked up
        self._file: FileResult | None = None  # the caller's file, while one call is resolved
        self._sees: dict[str, set[str]] = {}  # file -> the modules it sees
        self._private: dict[str, bool] = {}
        self._ranks: dict[tuple[str, ...], tuple[int, int]] = {}
        # SwiftPM modules (`Sources/XCTVapor/..`) some file imports: a member of another module
        # is seen only where that module is imported
        imported = {i.module for f in self.files for i in f.imports}
        self._modules = {
            f.path: parts[1]
            for f in self.files
            if len(parts := f.path.split("/")) > 2
            and parts[0] in ("Sources", "Source")
            and parts[1] in imported
        }
        # what a module's files import (`@_exported import VaporTestUtils` in XCTVapor: one
        # import further is seen too; whether an import is exported is not recorded)
        self._module_imports: dict[str, set[str]] = {}
        for f in self.files:
            module = self._modules.get(f.path)
            if module is not None:
                self._module_imports.setdefault(module, set()).update(i.module for i in f.imports)
        # Overloads: the functions of one name in one type (its extensions too) or one file
        groups: dict[tuple[str, str], list[str]] = {}
        for f in self.files:
            for s in f.symbols:
                if s.kind in FUNCTION_KINDS:
                    if s.parent is not None and not self.index.is_type(s.parent):
                        continue  # a function local to another: its scope picks it
                    owner = self.owner_type(s.id)
                    owner = self.canonical.get(owner, owner) if owner else f"{f.module}\0"
                    groups.setdefault((owner, s.name), []).append(s.id)
        self.overloads = {sid: ids for ids in groups.values() if len(ids) > 1 for sid in ids}
        self._fits: dict[tuple[str, ...], bool] = {}  # (function, *labels) -> takes them

    def _add_conformances(self) -> None:
        """``extension Application: RoutesBuilder { .. }``: the extension's functions carry its
        conformances (``bases``); they are the extended type's too, so that the protocol's
        extension methods (``app.get(..)``) are its members. One that does not resolve (a
        library protocol) leaves the type open."""
        index = self.index
        seen: set[tuple[str, str]] = set()
        added = False
        for f in self.files:
            for s in f.symbols:
                if not s.bases or s.kind != "method" or s.id not in self.attached:
                    continue
                t = self.canonical.get(self.attached[s.id], self.attached[s.id])
                for text in s.bases:
                    if (t, text) in seen:
                        continue
                    seen.add((t, text))
                    b = self._type_name(f, self._nest(s), text)
                    b = self.canonical.get(b, b) if b is not None else None
                    if b is None or b == t:
                        if b is None:
                            index.open_types.add(t)
                        continue
                    bases = index.bases.setdefault(t, [])
                    if b not in bases:
                        bases.append(b)
                        index.subclasses[b].append(t)
                        added = True
        if added:  # (nothing asked the hierarchy yet; dropped all the same, to be sure)
            index._mro.clear()
            index._members_found.clear()
            index._overrides.clear()

    def resolve_call(self, ctx: Ctx, text: str) -> Outcome:
        self._file = ctx.file
        m = ARGS.search(text) if text[-1:] == ")" else None
        if m is None:
            return self._resolve_swift(ctx, text)
        callee = text[: m.start()]
        if callee == ".init" and not self._returns_own(ctx):
            # `self.sync = .init()`: the initializer of the type the context expects, which the
            # text does not show; in a function returning its own type (`static func parse(..)
            # -> Expires? { .init(..) }`), that type's
            return AMBIGUOUS
        labels = [a.strip() for a in m[1].split(",")] if m[1].strip() else []
        awaited = labels.pop() if labels and labels[-1] in ("~await", "~await-") else ""
        extended = self._extended_init(ctx, callee, labels)
        if extended is not None:
            return extended
        if callee.endswith(".init") and callee[:-5] not in ("self", "super") and "(" not in callee:
            callee = callee[:-5]  # `Endpoint.init(path:)` is `Endpoint(path:)`
        out = self._resolve_swift(ctx, callee)
        if not isinstance(out, list):
            return out
        if callee[:1] == "." and self._is_case(callee[1:], labels):
            # `.redirect(count: 3)`: an implicit member of the type the context expects, which
            # may be an enum's case so labelled as well as a function: not known which
            return AMBIGUOUS
        key = (ctx.file.path, m[1], *out)
        found = self._chosen.get(key)
        if found is None:
            found = self._chosen[key] = self._choose(ctx, out, labels, awaited)
        return found

    def _choose(
        self, ctx: Ctx, out: list[tuple[str, str]], labels: list[str], awaited: str
    ) -> Outcome:
        """The members of the targets ``out`` that the call's arguments fit, ranked as Swift
        ranks overloads where the text tells, and seen from the caller."""
        chosen: dict[str, str] = {}
        is_callable = self.index.is_callable
        declared: list[str] = []  # the members chosen for the declared type (`exact`)
        for dst, res in out:
            group = self.overloads.get(dst) or ([dst] if is_callable(dst) else None)
            fits = [g for g in group if self._takes(g, labels)] if group else []
            if res == OVERRIDE and declared:
                # an override implements the declared member: its labels and its `async`
                # (`respond(to:) async` does not implement `Responder.respond(to:)`)
                fits = [g for g in fits if any(self._same_shape(g, d) for d in declared)]
            if len(fits) > 1:
                fits = self._preferred(fits, labels, awaited)
            if not group:
                chosen.setdefault(dst, res)
            elif not fits:
                continue  # the arguments fit no member: not this name's (`"s".write(to:)`)
            elif len(fits) == 1:
                chosen.setdefault(fits[0], res)
                if res == EXACT:
                    declared.append(fits[0])
            elif len({self.index.by_id[g].parameters for g in fits}) == 1:
                continue  # members alike but for what they return: only the context tells
            elif len(fits) > _MAX_SET:
                continue  # told apart by argument types the text does not show: not a guess
            else:
                for g in fits:
                    chosen.setdefault(g, OVERLOAD)
        if not chosen:
            return AMBIGUOUS
        seen = [
            (d, r)
            for d, r in chosen.items()
            if self._visible(ctx, d) and (r == OVERRIDE or self._imported(d))
        ]
        return seen or UNRESOLVED

    def _imported(self, sid: str) -> bool:
        """Whether the caller's file sees the module a definition is in (its own, or one it
        imports); True where modules are not known."""
        file = self._file
        module = self._modules.get(self.index.file_of[sid].path)
        if file is None or module is None or self._modules.get(file.path) == module:
            return True
        seen = self._sees.get(file.path)
        if seen is None:
            direct = {i.module for i in file.imports}
            seen = self._sees[file.path] = direct.union(
                *(self._module_imports.get(m, ()) for m in direct)
            )
        return module in seen

    def _visible(self, ctx: Ctx, sid: str) -> bool:
        """Whether a definition can be seen from the caller: a ``private``/``fileprivate`` one
        only in its file, a test target's never from code that is no test."""
        target = self.index.file_of[sid]
        if target is ctx.file:
            return True
        if target.role == "test" and ctx.file.role != "test":
            return False
        private = self._private.get(sid)
        if private is None:
            head = self.index.by_id[sid].signature.split("(", 1)[0]
            private = any(w in ("private", "fileprivate") for w in head.split()[:4])
            self._private[sid] = private
        return not private

    def _extended_init(self, ctx: Ctx, callee: str, labels: list[str]) -> Outcome | None:
        """``HTTPHeaders()``, ``String(decoding: buf)``: a library type the repository extends
        (a namespace here). An initializer its extensions add, where the call's labels or its
        arguments' declared types fit it and no other; the library's own where none fits (no
        edge, external); else not known which (ambiguous). None: no such type."""
        name = callee[:-5] if callee.endswith(".init") else callee
        maybe = self._extended.get(name)
        if maybe is None:
            # an extended library type is a namespace (some `name.member` is defined) and no
            # top-level type of the repository's own
            maybe = self._extended[name] = (
                name[:1].isupper()
                and name.isidentifier()
                and name in self.prefix_tails
                and not any(
                    self.index.is_type(i) and "." not in self.index.local_name[i]
                    for i in self.index.names.get((self.family, name), ())
                )
            )
        if not maybe:
            return None
        found = self.lookup(ctx, name)
        if found is None or found[0] != MOD:
            return None
        inits: list[str] = []
        for sid in self.qnames.get(f"{found[1]}.init", ()):
            for g in self.overloads.get(sid, [sid]):
                if g not in inits and self.index.is_callable(g) and self._visible(ctx, g):
                    inits.append(g)
        fits = [g for g in inits if self._takes(g, labels)]
        if not fits:
            return EXTERNAL_CALL
        told = any(
            a.split(":", 1)[0].split(".", 1)[0] not in ("_", "{}", "{await}") for a in labels
        )
        typed = all(":" in a for a in labels if a.split(":", 1)[0] == "_")
        if len(fits) == 1 and labels and (told or typed):
            return [(fits[0], EXACT)]
        return AMBIGUOUS

    def _returns_own(self, ctx: Ctx) -> bool:
        """Whether the caller returns its own type (``Self``, or the type it is a member of)."""
        written = (ctx.sym.return_type or "").strip().rstrip("?!").strip()
        if written == "Self":
            return True
        if ctx.cls is None or not written.isidentifier():
            return False
        return self.index.by_id[ctx.cls].name == written

    def _is_case(self, name: str, labels: list[str]) -> bool:
        """Whether an enum case ``name`` takes these arguments (``case status(Int)`` takes
        ``.status(200)``; ``case bytes(count: Int)`` not ``.bytes(10)``; a case without
        associated values is never called)."""
        return any(
            values is not None and _takes(values, labels)
            for values in self.enum_cases.get(name, ())
        )

    def _rank(self, sid: str, labels: list[str]) -> tuple[int, int]:
        """(arguments of known type filling a parameter of that very type, the index of the
        parameter a trailing closure fills), per function and labels."""
        key = (sid, *labels)
        found = self._ranks.get(key)
        if found is None:
            params = self.index.by_id[sid].parameters
            found = self._ranks[key] = (_exact_types(params, labels), _closure_slot(params, labels))
        return found

    def _same_shape(self, a: str, b: str) -> bool:
        """Whether two functions take the same argument labels and agree on ``async``."""
        found = self._shapes.get((a, b))
        if found is None:
            found = self._shapes[(a, b)] = self._shape_of(a, b)
        return found

    def _shape_of(self, a: str, b: str) -> bool:
        sa, sb = self.index.by_id[a], self.index.by_id[b]
        if _is_async(sa) != _is_async(sb) or len(sa.parameters) != len(sb.parameters):
            return False
        return all(
            (p.name or "_").split()[0] == (q.name or "_").split()[0]
            for p, q in zip(sa.parameters, sb.parameters)
        )

    def _preferred(self, fits: list[str], labels: list[str], awaited: str) -> list[str]:
        """Of the members a call fits, those Swift ranks first where the text tells: not an
        ``@_disfavoredOverload`` one; under ``await`` an ``async`` one, else a synchronous one;
        a trailing closure goes to a synchronous function type rather than an ``async`` one
        (``app.get("a") { req in .. }``: the synchronous ``get``)."""
        by_id = self.index.by_id
        favoured = [g for g in fits if "_disfavoredOverload" not in by_id[g].decorators]
        fits = favoured or fits
        if any(":" in a for a in labels):
            # `File(data: "..")`: the member whose parameter is of the argument's very type
            # (`init(data: String)`) over one it may convert to (`init(data: ByteBuffer)`)
            exact = {g: self._rank(g, labels)[0] for g in fits}
            best = max(exact.values())
            if best > 0:
                fits = [g for g in fits if exact[g] == best]
        asyncs = [g for g in fits if _is_async(by_id[g])]
        if awaited == "~await" and asyncs:
            fits = asyncs  # under `await`, Swift takes the async member
        elif not awaited and len(asyncs) < len(fits):
            fits = [g for g in fits if g not in asyncs]  # an async one needs `await`
        if not labels or labels[-1] not in ("{}", "{await}"):
            return fits
        if labels[-1] == "{await}":  # a closure with `await` in it: an async function type
            sync = [g for g in fits if _async_closure(by_id[g].parameters)]
        else:
            sync = [g for g in fits if not _async_closure(by_id[g].parameters)]
        fits = sync or fits
        # Swift gives a trailing closure to the first function-typed parameter it may fill:
        # where that is one of several defaulted closures (`test(.., beforeRequest: = {..},
        # afterResponse: = {..})`), the call means the member whose last parameter it fills
        # (`test(.., afterResponse:)`), the other's closure being of another type
        last = [g for g in fits if self._rank(g, labels)[1] == len(by_id[g].parameters) - 1]
        return last or fits

    def _takes(self, sid: str, labels: list[str]) -> bool:
        """Whether function ``sid`` takes arguments so labelled, an implicit member argument
        (``.default``) only where the parameter's type may have that member (a repository
        type lacking it, its hierarchy closed, does not: ``any URLConvertible``)."""
        key = (sid, *labels)
        found = self._fits.get(key)
        if found is None:
            found = self._fits[key] = self._takes_labels(sid, labels)
        return found

    def _takes_labels(self, sid: str, labels: list[str]) -> bool:
        sym = self.index.by_id[sid]
        if not labels:
            return all(
                p.default is not None or (p.type or "").endswith("...") for p in sym.parameters
            )
        file = self.index.file_of[sid]

        def has(type_text: str | None, member: str) -> bool:
            name = (type_text or "").replace("any ", "").replace("some ", "").strip()
            name = name.split("<", 1)[0].rstrip("?!").strip()
            t = self._type_name(file, self._nest(sym), name) if name.isidentifier() else None
            if t is None or self.index.by_id[t].kind != "interface":
                return True  # a library's type; a struct's, class's, enum's static properties
                # and cases are no symbols
            return self.index.find_member(t, member)[0] is not None

        def takes(type_text: str | None, arg: str) -> bool:
            """A value of type ``arg`` for a parameter of a repository's struct, class or enum
            type: that type or one of its subclasses (`String` is no `Endpoint`)."""
            name = (type_text or "").replace("any ", "").replace("some ", "").strip()
            name = name.split("<", 1)[0].rstrip("?!").strip()
            if not _fits_scalar(type_text, arg):
                return False  # `"a"` for an `Int` or a `[PathComponent]`
            t = self._type_name(file, self._nest(sym), name) if name.isidentifier() else None
            if t is None or self.index.by_id[t].kind == "interface" or arg == name:
                return True
            a = self._type_name(file, self._nest(sym), arg)
            return a is not None and t in self.index.mro(a)

        def repo_type(type_text: str | None) -> bool:
            """Whether a parameter's type is one the repository defines (no function type)."""
            name = _plain_type((type_text or "").replace("@escaping", ""))
            return name.isidentifier() and self._type_name(file, self._nest(sym), name) is not None

        return _takes(sym.parameters, labels, has, takes, repo_type)

    def _resolve_swift(self, ctx: Ctx, text: str) -> Outcome:
        out = super().resolve_call(ctx, text)
        if out == UNRESOLVED and text[:1].isupper() and text.isidentifier():
            # `String(format:)`, `URLRequest(url:)`, `Result { }`: a library type the
            # repository extends (`extension String`) is a namespace here, not a type; called,
            # it is the library's initializer unless an extension adds one (then: not known
            # which)
            found = self.lookup(ctx, text)
            if found is not None and found[0] == MOD and f"{text}.init" not in self.qnames:
                return EXTERNAL_CALL
        return out


# `let x: T`, `let x = T(..)`, `let x = T.shared`: a value's declaration, its first line
_VALUE_DECL = re.compile(
    r"(?:let|var)\s+`?\w+`?\s*(?::\s*(?P<type>[^=]+?)\s*(?:=|$)|=\s*(?P<value>[A-Z]\w*"
    r"(?:\.`?\w+`?)?)\s*(?P<call>\()?)"
)
_MAX_SET = 2  # the most members of an overload set a call reaches when the text cannot tell
_INTEGERS = (
    "Int",
    "Int8",
    "Int16",
    "Int32",
    "Int64",
    "UInt",
    "UInt8",
    "UInt16",
    "UInt32",
    "UInt64",
)
_SCALARS = {  # Swift's standard scalar types, and those a value of each is not (an integer
    # literal, written `:Int`, also makes a Double)
    "String": (*_INTEGERS, "Double", "Float", "Bool"),
    "Int": ("String", "Bool"),
    "Double": (*_INTEGERS, "String", "Bool"),
    "Float": (*_INTEGERS, "String", "Bool"),
    "Bool": (*_INTEGERS, "String", "Double", "Float"),
    **{t: ("String", "Bool", "Double", "Float") for t in _INTEGERS[1:]},
}


@lru_cache(maxsize=4096)
def _plain_type(written: str) -> str:
    """A Swift type as a name: ``(any EventMonitor)?`` -> ``EventMonitor``, ``some P`` -> ``P``,
    ``inout Foo`` -> ``Foo`` (as ``codebot.languages.swift.plain_type`` writes receivers)."""
    t = " ".join(written.split())
    for _ in range(3):
        t = t.rstrip("?!").strip()
        if t[:1] == "(" and t[-1:] == ")" and "," not in t and "->" not in t:
            t = t[1:-1].strip()
        for word in ("inout ", "any ", "some ", "borrowing ", "consuming "):
            if t.startswith(word):
                t = t[len(word) :].strip()
    return t


def _top_level(text: str) -> list[str]:
    """``a(b, c), d`` -> ["a(b, c)", "d"]: split at the commas outside brackets."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch in "([<":
            depth += 1
        elif ch in ")]>" and not (ch == ">" and text[i - 1 : i] == "-"):
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(text[start:i].strip())
            start = i + 1
    parts.append(text[start:].strip())
    return [p for p in parts if p]


def _cases(sym: Symbol) -> list[tuple[str, tuple[Parameter, ...] | None]]:
    """``case redirect(count: Int), other`` (an enum case's signature) -> [("redirect",
    (Parameter("count", "Int"),)), ("other", None)]: each case and its associated values
    (None: it has none, and is no function), an unlabelled one named ``_``."""
    text = sym.signature.strip()
    text = text[text.index("case ") + 5 :] if "case " in text else text
    out: list[tuple[str, tuple[Parameter, ...] | None]] = []
    for part in _top_level(text):
        name, paren, rest = part.partition("(")
        name = name.split("=", 1)[0].strip().strip("`")
        if not name.isidentifier():
            continue
        if not paren:
            out.append((name, None))
            continue
        values = []
        for v in _top_level(rest.rsplit(")", 1)[0]):
            v, _, default = v.partition("=")
            label, colon, type_ = v.partition(":")
            if not colon or not label.strip().isidentifier():
                label, type_ = "_", v  # `case status(Int)`
            values.append(Parameter(label.strip(), type_.strip(), default.strip() or None))
        out.append((name, tuple(values)))
    return out or [(sym.name, None)]


def _maybe_alias(type_text: str | None) -> bool:
    """Whether a parameter's type may name a function type through a type alias
    (``RequestModifier``): a plain name, not a generic, nested or collection type."""
    t = _plain_type((type_text or "").replace("@escaping", "").replace("@Sendable", ""))
    return t.isidentifier() and t[:1].isupper()


def _exact_types(params: tuple[Parameter, ...], labels: list[str]) -> int:
    """How many of a call's arguments of known type (``_:String``) fill a parameter of that
    very type."""
    slots: list[int] = []
    if not _takes(params, labels, slots=slots):
        return 0
    n = 0
    for label, i in zip(labels, slots):
        known = label.partition(":")[2]
        if known and _plain_type(params[i].type or "") == known:
            n += 1
    return n


def _closure_slot(params: tuple[Parameter, ...], labels: list[str]) -> int:
    """The index of the parameter a call's trailing closure (its last label) fills; -1: none."""
    slots: list[int] = []
    return slots[-1] if _takes(params, labels, slots=slots) and slots else -1


def _is_async(sym: Symbol) -> bool:
    """Whether a function is ``async`` (the word after its parameter list, before ``->``)."""
    effects = sym.signature.rsplit(")", 1)[-1].split("->", 1)[0]
    return "async" in effects.split()


def _async_closure(params: tuple[Parameter, ...]) -> bool:
    """Whether the last function-typed parameter (what a trailing closure fills) is async."""
    for p in reversed(params):
        if "->" in (p.type or ""):
            return " async" in f" {p.type}"
    return False


def _fits_scalar(param_type: str | None, arg: str) -> bool:
    """A value of standard type ``arg`` (``String``) for a parameter of type ``param_type``:
    not an array, a dictionary or another standard scalar."""
    t = (param_type or "").replace("inout ", "").strip().rstrip("?!").strip()
    if arg not in _SCALARS:
        return True
    if t[:1] == "[":
        return False
    return t not in _SCALARS[arg]


def _takes(
    params: tuple[Parameter, ...],
    labels: list[str],
    has: Callable[[str | None, str], bool] = lambda t, m: True,
    takes: Callable[[str | None, str], bool] = lambda t, a: True,
    repo_type: Callable[[str | None], bool] = lambda t: False,
    slots: list[int] | None = None,
) -> bool:
    """Whether a Swift function whose parameters are ``params`` (``with id``, ``_ value``,
    ``name``) takes a call's argument labels (``_`` none, ``{}`` a trailing closure, ``_.x``
    the implicit member ``.x``, which the parameter's type must ``has``): each argument in
    order, a parameter left out only when it has a default value. ``slots`` collects the
    index of the parameter each argument fills."""
    i = 0
    for written_label in labels:
        head, _, arg_type = written_label.partition(":")  # `_:String`: a value of that type
        label, _, member = head.partition(".")
        label = "{}" if label == "{await}" else label  # (a closure with `await` in it)
        while i < len(params):
            p = params[i]
            if label == "{}":
                type_ = p.type or ""
                closure = "->" in type_ or (
                    i == len(params) - 1 and _maybe_alias(type_) and not repo_type(type_)
                )
                if closure and "@autoclosure" not in type_:
                    break  # a trailing closure: a function-typed parameter, or the last one
            elif (p.name.split()[0] if p.name else "_") == label:
                if member and not has(p.type, member):
                    return False
                if arg_type and not takes(p.type, arg_type):
                    return False
                break
            if p.default is None and not (p.type or "").rstrip().endswith("..."):
                return False  # a parameter without default left out
            i += 1
        else:
            return False
        p = params[i]
        if slots is not None:
            slots.append(i)
        if not ((p.type or "").rstrip().endswith("...") and label == "_"):
            i += 1  # (a variadic parameter takes the unlabeled arguments that follow)
    return all(p.default is not None or (p.type or "").rstrip().endswith("...") for p in params[i:])


_CONSTANT = re.compile(r"(?:::)?[A-Z]\w*(?:::[A-Z]\w*)*")
_IVAR_TYPED = re.compile(r"\((@[A-Za-z_]\w*) = ((?:::)?[A-Z][\w:]*\.new\(\))\)\.(.+)")
_RECEIVER = re.compile(r"\(?(@{0,2}[a-z_]\w*)(?: = |\.|&\.)")
_METHOD = re.compile(r"[A-Za-z_]\w*[?!=]?")
_SELF_CHANGING = frozenset(
    """new instance_eval instance_exec class_eval class_exec module_eval module_exec
    define_method""".split()
)


_PHP_PATH = re.compile(r"[A-Za-z_]\w*(?:\\[A-Za-z_]\w*)*")


def _not_into_tests(r: Resolver, ctx: Ctx, out: Outcome) -> Outcome:
    """A name guess from code that is no test never lands in a test (monolog's
    ``$this->redisClient->rpush`` is Predis's, not a test double's ``rpush``)."""
    if isinstance(out, list) and ctx.file.role != "test":
        if any(r.index.file_of[d].role == "test" for d, _ in out):
            return UNRESOLVED
    return out


def _receiver(text: str) -> str:
    """The variable a call's text names as its receiver (``response`` in ``response.status``,
    ``(req = Foo.new()).x``), or "" (none: ``(?).m``, ``save``)."""
    m = _RECEIVER.match(text)
    return m[1] if m else ""


def _snake(name: str) -> str:
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name).lower()


def _stem(path: str) -> str:
    return posixpath.splitext(path)[0]


__all__ = [
    "CResolver",
    "CSharpResolver",
    "NamespacedResolver",
    "PhpResolver",
    "RubyResolver",
    "SwiftResolver",
]

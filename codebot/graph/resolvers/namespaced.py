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
    CALLED,
    CLS,
    DECL,
    DYNAMIC,
    EXACT,
    EXTERNAL,
    EXTERNAL_CALL,
    INST,
    LIBRARY_VALUE,
    MOD,
    NOT_LOCAL,
    OPAQUE,
    OVERLOAD,
    OVERRIDE,
    PLAIN,
    SUPER,
    SYM,
    UNIQUE,
    UNRESOLVED,
    Ctx,
    Dialect,
    Outcome,
    Resolver,
    Target,
    split,
    typed_head,
)
from codebot.graph.resolvers.cpp_overloads import (
    by_arguments,
    by_receiver,
    deduces,
    fits,
    is_pack,
    member_const,
    template_parameters,
    type_name,
)
from codebot.graph.resolvers.names import TYPES, NameTable, strip_duplicate
from codebot.graph.resolvers.overloads import (
    ARGS,
    OverloadChooser,
    Undecided,
    is_vararg,
    simple_type,
)
from codebot.languages.cpp import typed_token
from codebot.languages.swift import plain_type


class NamespacedResolver(Resolver):
    capitalized_types = True
    name_only = False  # a method call with a receiver may be recorded by its name alone
    implicit_this = True  # a bare name inside a method may be a method of its type
    global_functions = False  # free functions are one space across files (C)
    namespace_sep = "."
    pieces = True  # a type's definitions of one name in several files are one type

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
        for ids in self.qnames.values() if self.pieces else ():
            # a type defined in pieces (Ruby, C# partial classes)
            types = [i for i in ids if index.is_type(i) and self.merges(i)]
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

    def merges(self, type_id: str) -> bool:
        """Whether a type definition is a piece of the one type its qualified name names."""
        return True

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

    def _add_bases(self, index, s: Symbol, f: FileResult, owner: str) -> None:
        """The types ``s`` names as bases become ``owner``'s; a base that cannot be followed
        leaves ``owner`` open (members may come from where we cannot see)."""
        have = index.bases.setdefault(owner, [])
        for text in s.bases:
            t = self.base_type(s, f, text)
            if t is None or t == owner:
                index.open_types.add(owner)
            elif t not in have:
                have.append(t)
                index.subclasses[t].append(owner)

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
                by_id = self.index.by_id
                funcs = self._global_functions[name] = [
                    i
                    for i in ids
                    if by_id[i].kind == "function"
                    and ("." not in local[i] or by_id[i].signature.startswith("#"))
                ]  # (a macro is global wherever it is defined: `#define EXPECT_EQ` in a namespace)
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
    # an overload set the arguments leave undecided makes no edge (``ambiguous``), as in Java
    # and Kotlin: read strictly, all but one of the members' `overload` edges would be wrong
    undecided_edges = False
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
        # Generic arity is part of a C# type's name: `Database` is not `Database<T>`
        self._arity: dict[str, int] = {}
        for f in self.files:
            for s in f.symbols:
                if s.kind in TYPES:
                    m = re.search(rf"\b{re.escape(s.name)}\s*<([^()]*?)>", s.signature)
                    self._arity[s.id] = _type_arity(m[1]) if m else 0
        self._arity_wanted = 0  # of the type name being looked up (0: none written)
        self._type_names: dict[tuple[str, str, str], str | None] = {}
        self._picked: dict[tuple, list[str] | None] = {}
        self._ext_results: dict[tuple[str, str, str], tuple[str, str] | None] = {}
        self._nullable_params: dict[str, tuple[Parameter, ...]] = {}
        # Types whose qualified name repeats another's in one file (a generic `Identity<T..>`
        # beside the plain `Identity`): their ids are `Name#2`.., reached here by generic arity
        self._same_name_types: dict[str, list[str]] = {}
        for f in self.files:
            for s in f.symbols:
                local = self.index.local_name.get(s.id, "")
                if s.kind in TYPES and "#" in local:
                    self._same_name_types.setdefault(strip_duplicate(local), []).append(s.id)
        super().prepare()
        self._partial_bases()
        # Overloads: the methods and constructors sharing one qualified name (`Save`, `Save#2`)
        groups: dict[tuple[str, str], list[str]] = {}
        self._file_nest: dict[str, list[str]] = {}
        statics: dict[tuple[str, str], str] = {}  # `static T()`: never called from code
        for f in self.files:
            for s in f.symbols:
                if s.kind in FUNCTION_KINDS and s.id in self.index.local_name:
                    key = (f.module, strip_duplicate(self.index.local_name[s.id]))
                    if s.class_name == s.name and "static" in s.signature.split("(")[0].split():
                        statics[key] = s.id
                        continue
                    groups.setdefault(key, []).append(s.id)
                elif s.kind in TYPES and f.path not in self._file_nest:
                    self._file_nest[f.path] = self._nest(s)
        # a static constructor's id (the first definition) stands for the instance ones
        self._instance_ctor = {sid: groups[key][0] for key, sid in statics.items() if key in groups}
        self._static_ctors = set(statics.values())
        self.overloads = {sid: ids for ids in groups.values() if len(ids) > 1 for sid in ids}
        # Extension methods (`static int Execute(this IDbConnection cnn, ...)`) by name
        self.extensions: dict[str, list[str]] = {}
        for f in self.files:
            for s in f.symbols:
                if s.kind == "method" and s.parameters and _this_type(s) is not None:
                    self.extensions.setdefault(s.name, []).append(s.id)
        self._on_receiver = False  # choosing an extension method: its `this` is the receiver
        self._inherit_overloads()
        # An explicit interface implementation (`int IList.IndexOf(object? value)`) is reached
        # only through the interface (an override of its method), never by its bare name nor on
        # a receiver of the class: it is no member of a set a call chooses from
        self._explicit = {
            s.id for f in self.files for s in f.symbols if _explicit_implementation(s)
        }
        self._class_overloads = dict(self.overloads)
        for sid, group in self.overloads.items():
            rest = [m for m in group if m not in self._explicit]
            if rest and len(rest) < len(group):
                self._class_overloads[sid] = rest
        self._targs = -1  # type arguments written on the call being resolved (-1: none)
        self._ext_chosen = False  # the call's edges are extension methods already chosen

    def choose(self, ctx: Ctx, out: list[tuple[str, str]], args: list[str]) -> dict[str, str]:
        """The method named (on a class, or bare) is chosen among its set less the explicit
        interface implementations; an override reached through an interface's method among
        its whole set (`void ITypeHandler.SetValue(..)` implements `ITypeHandler.SetValue`)."""
        named = [e for e in out if e[1] != OVERRIDE]
        through = [e for e in out if e[1] == OVERRIDE]
        full = self.overloads
        self.overloads = _Accessible(self, ctx)
        try:
            chosen = super().choose(ctx, named, args) if named else {}
        finally:
            self.overloads = full
        if not through:
            return chosen
        if not named:
            return super().choose(ctx, through, args)
        for d, r in super().choose(ctx, through, args).items():
            chosen.setdefault(d, r)
        fit = {d: r for d, r in chosen.items() if self._overload_takes(ctx, d, args)}
        return fit or chosen

    def fallback_candidate(self, sid: str) -> bool:
        return super().fallback_candidate(sid) and sid not in self._explicit

    def _visible_member(self, ctx: Ctx, sid: str) -> bool:
        """Whether the caller may call a member: a `private` one only from inside its type
        (or a type nested in it; `private protected` counts as protected)."""
        sym = self.index.by_id[sid]
        words = sym.signature.split("(", 1)[0].split()
        if "private" not in words or "protected" in words:
            return True
        owner = self.owner_type(sid)
        if owner is None:
            return True
        owner = self.canonical.get(owner, owner)
        cls = ctx.cls
        while cls is not None:
            if self.canonical.get(cls, cls) == owner:
                return True
            parent = self.index.by_id[cls].parent
            cls = parent if parent is not None and self.index.is_type(parent) else None
        return False

    def _partial_bases(self) -> None:
        """A partial class's bases may be written on any of its parts (`partial class
        JsonTextWriter : JsonWriter` in one file, `partial class JsonTextWriter` in another):
        the type the parts are one of has them all."""
        index = self.index
        for f in self.files:
            for s in f.symbols:
                c = self.canonical.get(s.id)
                if c is None or not s.bases or s.kind not in TYPES:
                    continue
                self._add_bases(index, s, f, c)

    def _inherit_overloads(self) -> None:
        """C# chooses among every method of a name the type has, its bases' included (an
        override being its base's method): `JsonTextWriter.WriteValue(Guid?)` is JsonWriter's
        when JsonTextWriter overrides only the others."""
        index = self.index
        for f in self.files:
            for t in f.symbols:
                if t.kind not in TYPES or t.id in self.canonical:
                    continue
                mro = index.mro(t.id)
                if len(mro) < 2:
                    continue
                for name, mid in index.members.get(t.id, {}).items():
                    if not index.is_callable(mid) or name == t.name:
                        continue
                    own = self.overloads.get(mid, [mid])
                    seen = {self._parameter_key(m) for m in own}
                    extra = []
                    for base in mro[1:]:
                        bid = index.members.get(base, {}).get(name)
                        if bid is None or not index.is_callable(bid):
                            continue
                        for m in self.overloads.get(bid, [bid]):
                            k = self._parameter_key(m)
                            if k not in seen:
                                seen.add(k)
                                extra.append(m)
                    if extra:
                        group = [*own, *extra]
                        for m in own:
                            self.overloads[m] = group

    def _parameter_key(self, sid: str) -> tuple[str, ...]:
        return tuple(simple_type(p.type) for p in self._overload_params(sid))

    def _type_name(self, file: FileResult, nest: list[str], text: str) -> str | None:
        key = (file.path, ".".join(nest), text)
        if key in self._type_names:
            return self._type_names[key]
        before = self._arity_wanted
        self._arity_wanted = _written_arity(text)
        try:
            found = self._type_names[key] = super()._type_name(file, nest, text)
        finally:
            self._arity_wanted = before
        return found

    def _qualified(
        self, file: FileResult, nest: list[str], name: str, types_only: bool = False
    ) -> str | None:
        n = self._arity_wanted
        return super()._qualified(file, nest, f"{name}`{n}" if n else name, types_only)

    def _find(self, file: FileResult, nest: list[str], name: str, types_only: bool) -> str | None:
        """As written, a type of that generic arity first (`new Database(..)`: PetaPoco's
        `Database` of a `using`, not Dapper.Rainbow's `Database<T>` of an outer namespace);
        then any, as before."""
        name, _, n = name.partition("`")
        want = int(n) if n else 0
        first, _, rest = name.partition(".")
        aliases, opened = self._usings_of(file)
        candidates = [".".join([*nest[:i], name]) for i in range(len(nest), -1, -1)]
        if first in aliases:
            candidates.append(aliases[first] + (f".{rest}" if rest else ""))
        candidates += [f"{o}.{name}" for o in opened]
        is_type, arity = self.index.is_type, self._arity
        for q in candidates:
            ids = self.qnames.get(q)
            if not ids:
                continue
            # (`Identity<TFirst, ..>` and `Identity` in one class: the second is `Identity#2`)
            ids = [*ids, *self._same_name_types.get(q, ())]
            types = [i for i in ids if is_type(i)]
            if not types and types_only:
                continue
            if types:
                ids = [i for i in types if arity.get(i, 0) == want]
            hit = self._pick(ids, file)
            if hit is not None:
                return hit
        return super()._find(file, nest, name, types_only)

    def repo_type(self, file: FileResult, text: str) -> str | None:
        return self._type_name(file, self._file_nest.get(file.path, []), text)

    def _of_written_arity(self, type_id: str) -> str:
        """The type of ``type_id``'s name with the generic arity written (`Identity`: the plain
        `Identity`, not `Identity<TFirst, ..>` declared before it in the same class); itself
        when it has that arity or no single other type does."""
        want = self._arity_wanted
        if self._arity.get(type_id, 0) == want:
            return type_id
        local = strip_duplicate(self.index.local_name.get(type_id, ""))
        same = [
            t
            for t in (self.qnames.get(local, []), self._same_name_types.get(local, ()))
            for t in t
            if self.index.is_type(t) and self._arity.get(t, 0) == want
        ]
        return same[0] if len(set(same)) == 1 else type_id

    def implicit_member(self, ctx: Ctx, name: str, name_only: bool) -> Outcome | None:
        """As the walker's; a type of the class around called by its name (`new Identity(..)`
        in `SqlMapper`) is the one of the generic arity written."""
        out = super().implicit_member(ctx, name, name_only)
        if isinstance(out, list) and len(out) == 1 and self.index.is_type(out[0][0]):
            return [(self._of_written_arity(out[0][0]), out[0][1])]
        return out

    def resolve_call(self, ctx: Ctx, text: str) -> Outcome:
        m = ARGS.search(text) if text[-1:] == ")" else None
        if m is None:
            return self._resolve_base(ctx, text, None)
        args = [self._argument(ctx, a.strip()) for a in m[1].split(",")] if m[1].strip() else []
        last = _last_segment(text[: m.start()])
        # `DeserializeObject<T>(json)`: only members of that many type parameters
        self._targs = _written_arity(last) if "<" in last else -1
        self._ext_chosen = False
        out = self._resolve_base(ctx, text[: m.start()], args)
        if isinstance(out, (list, Undecided)) and self._ext_chosen:
            # extension methods, chosen with the receiver as their `this` (or left undecided)
            return out
        base = text[: m.start()]
        name = base.rsplit(".", 1)[-1].split("<", 1)[0]
        if isinstance(out, list) and name in self.extensions and all(r == UNIQUE for _, r in out):
            # a guess by name: the extension methods that take the receiver's type come first
            ext = self._extension_call(ctx, base, args)
            if isinstance(ext, (list, Undecided)):
                return ext
        if isinstance(out, list):
            # `"..".FormatWith(provider, x)` reached by name: an extension method called on a
            # receiver takes it as its `this`
            by_id = self.index.by_id
            self._on_receiver = "." in text[: m.start()] and all(
                d in by_id and _this_type(by_id[d]) is not None for d, _ in out
            )
            try:
                chosen = self.choose(ctx, out, args)
                undecided = self.undecided
                declared = [d for d, r in chosen.items() if r == EXACT]
                if undecided and len(declared) == 1:
                    # the method declared is decided: of another type's set, the member with
                    # its parameters implements it (`void ITypeHandler.SetValue(..)` beside
                    # `SetValue(.., T? value)`), whichever the arguments would pick
                    owner = self.owner_type(declared[0])
                    for u in undecided:
                        if self.owner_type(u) != owner:
                            chosen.setdefault(u, OVERLOAD)
                    undecided = [u for u in undecided if self.owner_type(u) == owner]
                chosen = self._implementations(chosen)
                if base == "this" and ctx.sym.id in [*chosen, *undecided]:
                    # `: this(..)` in a constructor never calls that constructor itself
                    if len(chosen) > 1:
                        chosen.pop(ctx.sym.id, None)
                    undecided = [u for u in undecided if u != ctx.sym.id]
                    if not chosen and len(undecided) == 1:
                        chosen = {undecided[0]: EXACT}
                        undecided = []
                fits_none = self.fits_none(ctx, chosen, args)
            finally:
                self._on_receiver = False
            if not chosen and undecided:
                return Undecided(undecided)  # overloads the arguments cannot decide between
            if not fits_none:
                if self._undecided(chosen):
                    return AMBIGUOUS
                return list(chosen.items())
            out = UNRESOLVED  # (a name guess whose parameters take none of these arguments)
        if out not in (UNRESOLVED, AMBIGUOUS) or name not in self.extensions:
            return out  # (external, dynamic: decided; no extension method of that name)
        ext = self._extension_call(ctx, base, args)
        return ext if ext is not None else out

    def _undecided(self, chosen: dict[str, str]) -> bool:
        """Whether the arguments left more than one member (``overload``) undecided: the
        extension methods that take the receiver alike, of one static class or several."""
        return sum(1 for r in chosen.values() if r == OVERLOAD) > 1

    def one_parameter_list(self, picked: list[str]) -> bool:
        """C# has no variants per platform: members that `_overload_distinct` left apart
        (differing by parameters, by generic arity or only by constraints) are distinct."""
        return len(picked) == 1

    def _overload_distinct(self, dst: str, picked: list[str]) -> list[str]:
        """One member per parameter list, generic arity and constraints: definitions repeating
        all of them are one method under another `#if` branch; `Get<T>(T x) where T : class`
        and `Get<T>(T x) where T : struct` are two."""
        by_id = self.index.by_id
        seen: dict[tuple, str] = {}
        for sid in sorted(picked, key=lambda x: x != dst):
            seen.setdefault(_cs_overload_key(by_id[sid], self._overload_params(sid)), sid)
        return [sid for sid in picked if sid in seen.values()]

    def _implementations(self, chosen: dict[str, str]) -> dict[str, str]:
        """A method of another type reached from the declared one (an override, a member of
        its overload set) runs for the call only if its parameters are the declared method's:
        ``ITypeHandler.SetValue(IDbDataParameter, object)`` is implemented by ``void
        ITypeHandler.SetValue(..)``, not by ``TypeHandler<T>``'s ``SetValue(.., T? value)``."""
        declared = [d for d, r in chosen.items() if r == EXACT]
        if len(declared) != 1 or len(chosen) == 1:
            return chosen
        top = declared[0]
        owner = self.owner_type(top)
        want = self._overload_params(top)  # (`Guid?` apart from `Guid`)
        out: dict[str, str] = {}
        for d, r in chosen.items():
            if d == top or r not in (OVERRIDE, OVERLOAD) or self.owner_type(d) == owner:
                out[d] = r
            elif _same_parameters(self.index, top, want, self._overload_params(d)):
                out[d] = OVERRIDE
        return out

    def _resolve_base(self, ctx: Ctx, text: str, args: list[str] | None) -> Outcome:
        """A call text without its arguments: a method of an expression's value the parser
        could not follow (``(?).M``: only the repository's one method of that name), a chain
        (``conn.Query<int>().Single``, ``(cmd: IDbCommand).Parameters.Add``) followed through
        the declared types, or the walker's."""
        if "::" in text:  # `global::System.X`, `MsgPack::Formatters.Y` (an extern alias)
            text = text.replace("global::", "").replace("::", ".")
        if text.startswith("(?)."):
            name = text[4:].split("<", 1)[0]
            return self.member_fallback(name, ctx) if name.isidentifier() else UNRESOLVED
        if "()." in text or text[:1] == "(":
            out = self._chain_call(ctx, text, args)
            if out is not None:
                return out
        head = _GENERIC_HEAD.match(text)
        if head is None:
            return super().resolve_call(ctx, text)
        before = self._arity_wanted  # `new Database<Db>()`, `Cache<T>.Get()`: of that arity
        self._arity_wanted = _written_arity(text[head.start(1) :])
        try:
            return super().resolve_call(ctx, text)
        finally:
            self._arity_wanted = before

    # --- chains: the type of each value along a call text -------------------------------------

    def _chain_call(self, ctx: Ctx, text: str, args: list[str] | None) -> Outcome | None:
        """``conn.Query<int>().Single``: the value before the last name, typed through the
        declared types along the chain (a repository type, a library's, a type's static
        members), and the last name called on it; None where a value on the way is unknown."""
        typed = typed_head(text) if text[:1] == "(" else None
        if typed is not None:
            _, op, what, rest = typed
            value = self._typed_value(ctx, op, what)
            pieces = split(rest, self.dialect, self._split)
        else:
            rest = text
            pieces = split(text, self.dialect, self._split)
            if not pieces or len(pieces) < 2:
                return None
            value = self._head_value(ctx, *pieces[0])
            pieces = pieces[1:]
        if value is None or not pieces:
            return None
        for name, how in pieces[:-1]:
            if how == OPAQUE or not name:
                return None
            value = self._member_value(ctx, value, name, how == CALLED)
            if value is None:
                # a value of a type we cannot tell (an auto-property's, a generic method's):
                # only the repository's one method of the last name, as for `(?).M`
                last, how_last = pieces[-1]
                if how_last != PLAIN or not last:
                    return None
                return self.member_fallback(last, ctx)
        name, how = pieces[-1]
        if how != PLAIN or not name:
            return None
        last = _last_segment(rest)
        kind, what = value
        # `var r = new T(); r.M()`: the value is a T itself, not a subclass, so T's M alone
        # runs (no override fan-out as for a declared type)
        made = typed is not None and typed[1] != ": " and typed[2].startswith("new ")
        if kind == _LIB:
            if name in self.extensions:
                if what == "?":
                    return None
                ext = self._extension_call(ctx, f"(_: {what}).{last}", args or [])
                return ext  # (None: as if untyped)
            return EXTERNAL_CALL
        if kind == _REPO:
            target = (INST if made and len(pieces) == 1 else DECL, what)
        else:
            target = (SYM, what)
        out = self._walk(ctx, [("", PLAIN), (name, PLAIN)], target)
        if isinstance(out, list) or kind != _REPO or name not in self.extensions:
            return out
        ext = self._extension_call(ctx, f"(_: {self.index.by_id[what].name}).{last}", args or [])
        return ext if ext is not None else out

    def _typed_value(self, ctx: Ctx, op: str, what: str) -> tuple[str, str] | None:
        if op == ": ":
            return self._declared_value(ctx, ctx.sym, ctx.file, what)
        if what.startswith("new ") and what.endswith("()"):
            return self._declared_value(ctx, ctx.sym, ctx.file, what[4:-2])
        pieces = split(what, self.dialect, self._split)
        if not pieces:
            return None
        value = self._head_value(ctx, *pieces[0])
        for name, how in pieces[1:]:
            if value is None or how == OPAQUE or not name:
                return None
            value = self._member_value(ctx, value, name, how == CALLED)
        return value

    def _declared_value(
        self, ctx: Ctx, sym: Symbol, file: FileResult, type_text: str
    ) -> tuple[str, str] | None:
        """A type as written where ``sym`` is: the repository's (``repo``), a library's
        (``lib``, with its text), or None (a type parameter, ``void``, not known)."""
        t = type_text.strip()
        if not t or t == "void" or "(" in t:
            return None
        found = self._type_name(file, self._nest(sym), t)
        if found is not None:
            return (_REPO, found)
        name = _simple_type(t)
        if name in _CSHARP_PREDEFINED or t.endswith("[]"):
            return (_LIB, t)
        if not name.isidentifier() or _type_parameter(name, sym, self.index):
            return None
        if name[:1].isupper() and not self.index.names.get((self.family, name)):
            if name not in self.prefix_tails:
                return (_LIB, t)
        return None

    def _head_value(self, ctx: Ctx, name: str, how: int) -> tuple[str, str] | None:
        if how == OPAQUE:
            return None
        if name == "this":
            return (_REPO, ctx.cls) if ctx.cls is not None and how == PLAIN else None
        if name in _CSHARP_PREDEFINED:
            return (_LIB, name) if how == PLAIN else None
        if how == CALLED:  # `Open().Query(..)`: a method of this type, or one in scope
            hit = self.index.find_member(ctx.cls, name)[0] if ctx.cls is not None else None
            return self._result(ctx, hit) if hit is not None else None
        for fn in ctx.chain:  # a parameter: its declared type, a library's too
            for p in fn.parameters:
                if p.name == name:
                    t = (p.type or "").removeprefix("this ").removeprefix("params ")
                    return self._declared_value(ctx, fn, ctx.file, t) if t else None
        found = self.lookup(ctx, name)
        if found == EXTERNAL:
            return (_LIB, name)
        if found is not None:
            kind, value = found
            if kind in (DECL, INST) and self.index.is_type(value):
                return (_REPO, value)
            if kind == SYM and self.index.is_type(value):
                return (_STATIC, value)
            return None
        if ctx.cls is not None:  # a property of this type or a base's
            hit = self.index.find_member(ctx.cls, name)[0]
            if hit is not None:
                return self._property_value(hit)
            # an abstract property (`public abstract DbProviderFactory Factory { get; }` is no
            # symbol): the type its overrides declare, when they agree
            found = {self._property_value(o) for o in self.index.overrides(ctx.cls, name)}
            if len(found) == 1:
                return found.pop()
        return None

    def _member_value(
        self, ctx: Ctx, value: tuple[str, str], name: str, called: bool
    ) -> tuple[str, str] | None:
        kind, what = value
        if kind == _LIB:
            if called and name in self.extensions:
                return self._extension_result(ctx, what, name)
            # a library's member: a library's value, unless the type's arguments may be ours
            return (_LIB, "?") if "<" not in what and "[" not in what else None
        hit = self.index.find_member(what, name)[0]
        if hit is None:
            if called and name in self.extensions:
                return self._extension_result(ctx, self.index.by_id[what].name, name)
            return None
        if self.index.is_type(hit):
            return (_STATIC, self.canonical.get(hit, hit)) if not called else None
        if called:
            return self._result(ctx, hit)
        return self._property_value(hit)

    def _extension_result(self, ctx: Ctx, type_text: str, name: str) -> tuple[str, str] | None:
        """What a repository's extension method ``name`` called on a value of ``type_text``
        gives, when every one that may be called says the same type (``Query`` on a connection:
        an ``IEnumerable``)."""
        if type_text == "?":
            return None
        key = (ctx.file.path, type_text, name)
        if key not in self._ext_results:
            self._ext_results[key] = self._extension_result_uncached(ctx, type_text, name)
        return self._ext_results[key]

    def _extension_result_uncached(
        self, ctx: Ctx, type_text: str, name: str
    ) -> tuple[str, str] | None:
        want = _simple_type(type_text)
        every = self.extensions.get(name, [])
        fits = [e for e in every if _this_type(self.index.by_id[e]) in (want, f"I{want}")]
        fits = fits or [e for e in every if _is_type_parameter(self.index.by_id[e])]
        if not fits and self.repo_type(ctx.file, want) is None:
            tail = _last_word(want)
            fits = [e for e in every if _last_word(_this_type(self.index.by_id[e])) == tail]
        found = set()
        for e in fits:
            sym = self.index.by_id[e]
            value = (
                self._declared_value(ctx, sym, self.index.file_of[e], sym.return_type)
                if sym.return_type
                else None
            )
            if value is None:
                return None
            found.add((value[0], _simple_type(value[1]) if value[0] == _LIB else value[1]))
        if len(found) != 1:
            return None
        kind, what = found.pop()
        return (kind, f"{what}<>" if kind == _LIB else what)  # (its type arguments: not known)

    def _result(self, ctx: Ctx, sid: str) -> tuple[str, str] | None:
        """What calling the method ``sid`` (or any member of its overload set) gives."""
        sym = self.index.by_id.get(sid)
        if sym is None or sym.kind not in FUNCTION_KINDS:
            return None
        found = {
            self._declared_value(ctx, self.index.by_id[m], self.index.file_of[m], rt)
            if (rt := self.index.by_id[m].return_type)
            else None
            for m in self.overloads.get(sid, (sid,))
        }
        return found.pop() if len(found) == 1 else None

    def _property_value(self, sid: str) -> tuple[str, str] | None:
        sym = self.index.by_id.get(sid)
        if sym is None or sym.kind != "method" or not sym.return_type or "(" in sym.signature:
            return None
        file = self.index.file_of[sid]
        return self._declared_value(Ctx(sym, file, None, []), sym, file, sym.return_type)

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
        exts = [e for e in self.extensions.get(name, ()) if self._extension_visible(ctx, e)]
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
        if len(picked) > 1:  # one method under several `#if` branches is one
            by_id = self.index.by_id
            seen: dict[tuple, str] = {}
            for e in picked:
                key = (self.owner_type(e), _cs_overload_key(by_id[e], self._overload_params(e)))
                seen.setdefault(key, e)
            picked = [e for e in picked if e in seen.values()]
        self._ext_chosen = True
        if len(picked) == 1:
            return [(picked[0], resolution)]
        return Undecided(picked)  # extension methods the arguments cannot decide between

    def _extension_visible(self, ctx: Ctx, sid: str) -> bool:
        """Whether the caller's file sees an extension method: its static class's namespace
        encloses the caller, or a `using` opens it (`using static` its class). LinqBridge's
        `Enumerable.Select` (namespace `..Utilities.LinqBridge`) is no candidate in a file of
        `..Utilities` that does not open it: System.Linq's is called there."""
        owner = self.index.by_id[sid].parent
        local = self.index.local_name.get(owner or "")
        if not local:
            return True
        cls = strip_duplicate(local)
        ns = cls.rpartition(".")[0]
        if not ns:
            return True
        parts = ns.split(".")
        if (
            strip_duplicate(self.index.local_name.get(ctx.sym.id, "")).split(".")[: len(parts)]
            == parts
        ):
            return True
        opened = self._usings_of(ctx.file)[1]
        return ns in opened or cls in opened

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

    def _overload_pick_named(self, ctx: Ctx, group: list[str], args: list[str]) -> list[str] | None:
        if any(a.startswith("named:") for a in args):
            # `Query<int>(sql, p, commandType: ..)`: each parameter without a default is given,
            # by position or by name (not `Query<T>(sql, Type[] types, Func map, ..)`)
            group = [g for g in group if _takes_named(self._overload_params(g), args)]
            if not group:
                return None
        return super()._overload_pick(ctx, group, args)

    def _overload_params(self, sid: str) -> tuple[Parameter, ...]:
        params = self._nullable_params.get(sid)
        if params is None:
            params = self._nullable_params[sid] = tuple(
                Parameter(p.name, _nullable(p.type, self._is_value_type), p.default)
                for p in super()._overload_params(sid)
            )
        if self._on_receiver and params and (params[0].type or "").startswith("this "):
            return params[1:]
        return params

    def _argument(self, ctx: Ctx, arg: str) -> str:
        """``int?`` -> ``int?`` kept apart from ``int`` (``Nullable<int>``), ``string?`` ->
        ``string`` (a nullable reference is the same type)."""
        if len(arg) > 1 and arg[-1] == "?":
            return _nullable(arg, self._is_value_type) or "?"
        if arg[:1] == "~":  # `Formatting.Indented`: an enum's member is of the enum's type
            name = arg[1:]
            if name in _STATIC_SAME_TYPE:
                return name
            found = self._qualified(ctx.file, self._nest(ctx.sym), name, types_only=True)
            return name if found is not None and self.index.by_id[found].kind == "enum" else "?"
        return arg

    def _is_value_type(self, name: str) -> bool:
        if name in _VALUE_TYPES:
            return True
        ids = self.index.names.get((self.family, name), ())
        return bool(ids) and all(self.index.by_id[i].kind in ("struct", "enum") for i in ids)

    def _overload_fit(self, ctx: Ctx, sid: str, arg: str, param: str) -> float | None:
        """A nullable value type (``NullableOfint``): takes its own type, ``null`` and (as a
        worse conversion) what its underlying type takes; it fits ``object`` only otherwise."""
        if param.startswith(_NULLABLE) and arg != param and arg not in ("?", "named"):
            inner = param[len(_NULLABLE) :]
            if arg == "null":
                return 2
            if arg.startswith("named:"):
                return 1
            fit = super()._overload_fit(ctx, sid, arg.removeprefix(_NULLABLE), inner)
            return None if fit is None else fit - 0.5
        if arg.startswith(_NULLABLE) and arg != param and param != "?":
            if param in ("object", "Object"):
                return 2
            if param in _VALUE_TYPES or param in ("string", "String") or param[:1].islower():
                return None
            # a type parameter takes it; a repository type does not; a library one may
            return None if self.repo_type(self.index.file_of[sid], param) is not None else 1
        if arg.startswith("lambda`"):  # a lambda of n parameters: a Func of n + 1 types
            n = int(arg[7:])
            if param.startswith(("Func`", "Action`")):
                m = int(param.split("`", 1)[1])
                return 3 if (m - 1 if param[0] == "F" else m) == n else None
            arg = "lambda"
        if "`" in arg and "`" in param and arg != param:
            return None  # `Func<A, B, R>` for a `Func<A, R>`
        if arg.endswith("[]") and param.endswith("[]") and arg != param:
            # element by element: `int[]` for a `T[]`; a reference type's array for its base's
            # (covariance), never a value type's for `object[]`
            a, p = arg[:-2], param[:-2]
            if _type_parameter(p, self.index.by_id[sid], self.index):
                return 2
            if a == "?" or p == "?":
                return 1
            if self._is_value_type(a) or a in _CSHARP_PREDEFINED and a not in ("string", "object"):
                return None
            fit = self._overload_fit(ctx, sid, a, p)
            return None if fit is None else min(fit, 2)
        if arg.endswith("[]") and not param.endswith("[]") and param != "?":
            # `new[] { tableType }` (a Type[]) is no `Type`: an array converts only to object,
            # Array, the collection interfaces, spans, or a type parameter
            if param.split("`", 1)[0] not in _ARRAY_TAKERS and not _type_parameter(
                param, self.index.by_id[sid], self.index
            ):
                return None
        fit = super()._overload_fit(ctx, sid, arg, param)
        if fit == 1 and arg != "?" and param != "?" and arg.endswith(param) and arg != param:
            return 1.5  # two library types: `MemoryStream` for a `Stream` before a `BinaryWriter`
        return fit

    def _overload_pick(self, ctx: Ctx, group: list[str], args: list[str]) -> list[str] | None:
        # (memoised: a file calls one overload set with the same argument types again and
        # again, `writer.WriteValue(int)`; what fits depends on the file's types only)
        key = (tuple(group), tuple(args), ctx.file.path, self._on_receiver, self._targs)
        found = self._picked.get(key, False)
        if found is False:
            found = self._picked[key] = self._overload_pick_uncached(ctx, group, args)
        return list(found) if found is not None else None

    def _overload_pick_uncached(
        self, ctx: Ctx, group: list[str], args: list[str]
    ) -> list[str] | None:
        # C#: where one member takes `object` and a generic one its type parameter, the
        # inferred type is the better conversion (`AreEqual<T>(T, T)` over `AreEqual(object,
        # object)`), unless every such argument is `null` (nothing to infer from)
        by_id = self.index.by_id
        if self._targs > 0:  # type arguments written: members of that many type parameters
            group = [g for g in group if _type_arity(_generics(by_id[g])) == self._targs] or group
        elif self._targs < 0:  # none: a generic member only if its arguments tell them all
            group = [g for g in group if _inferable(by_id[g])] or group
        generic = [g for g in group if _generics(self.index.by_id[g])]
        if generic and len(generic) < len(group):
            beaten = {o for o in group if any(self._object_for_t(g, o, args) for g in generic)}
            group = [g for g in group if g not in beaten]
        picked = self._overload_pick_named(ctx, group, args)
        if (
            picked
            and len(group) > 1
            and all(self._overload_score(ctx, g, args) is None for g in picked)
        ):
            # no member of that arity takes these arguments' types: a `params` array in its
            # normal form (`CreateTableConstructor(new[] { t })` is `(params Type[] tableTypes)`)
            spread = [
                g
                for g in group
                if g not in picked
                and (ps := self._overload_params(g))
                and is_vararg(ps[-1].type)
                and len(args) >= len(ps) - 1
                and self._overload_score(ctx, g, args) is not None
            ]
            if spread:
                return spread
        return picked

    def _object_for_t(self, generic: str, other: str, args: list[str]) -> bool:
        mine, theirs = self._overload_params(generic), self._overload_params(other)
        if len(mine) != len(theirs) or _generics(self.index.by_id[other]):
            return False
        names = {t.strip().split()[-1] for t in _generics(self.index.by_id[generic]).split(",")}
        inferred = False
        for i, (a, b) in enumerate(zip(mine, theirs)):
            ta, tb = simple_type(a.type), simple_type(b.type)
            if ta == tb:
                continue
            if ta not in names or tb not in ("object", "Object"):
                return False
            inferred = inferred or (i < len(args) and args[i] not in ("null", "object"))
        return inferred

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

    def constructor(self, type_id: str) -> str:
        ctor = super().constructor(type_id)
        if ctor in self._static_ctors:  # `static T()` runs once, by the runtime
            return self._instance_ctor.get(ctor, type_id)
        return ctor

    def lookup(self, ctx: Ctx, name: str) -> Target | None:
        if name in _CSHARP_PREDEFINED:  # `string.Join`, `int.Parse`: the language's types
            return EXTERNAL
        out = super().lookup(ctx, name)
        if out is not None and out[0] == SYM and self.index.is_type(out[1]):
            # a type of the class around: the one of the generic arity written
            return (SYM, self._of_written_arity(out[1]))
        return out

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


_REPO, _LIB, _STATIC = "repo", "lib", "static"  # a chain's value: of which type


_GENERIC_HEAD = re.compile(r"(?:new )?([A-Za-z_]\w*)<")


def _written_arity(text: str) -> int:
    """``Database<Db>`` -> 1, ``Dictionary<string, List<int>>`` -> 2, ``Database`` -> 0: the
    type arguments written after the first name."""
    head, lt, rest = text.partition("<")
    if not lt or not head.strip().replace(".", "").replace("_", "a").isalnum():
        return 0
    depth = 1
    for i, ch in enumerate(rest):
        if ch == "<":
            depth += 1
        elif ch == ">":
            depth -= 1
            if depth == 0:
                return _type_arity(rest[:i])
    return 0


def _last_segment(text: str) -> str:
    """``a.Query<int>().Read<A, B>`` -> ``Read<A, B>``: the last name, type arguments kept."""
    depth = 0
    for i in range(len(text) - 1, -1, -1):
        ch = text[i]
        if ch in ">)]":
            depth += 1
        elif ch in "<([":
            depth -= 1
        elif ch == "." and depth == 0:
            return text[i + 1 :]
    return text


# Library types whose static members written as arguments are of that type
_STATIC_SAME_TYPE = frozenset(
    """DateTime DateTimeOffset TimeSpan Guid CultureInfo StringComparison DateTimeKind
    BindingFlags Encoding StringComparer""".split()
)
_NULLABLE = "NullableOf"  # `int?` as an overload's parameter or argument: `NullableOfint`
_VALUE_TYPES = frozenset(
    """int long short byte sbyte uint ulong ushort char bool float double decimal DateTime
    DateTimeOffset TimeSpan Guid BigInteger Int32 Int64 Int16 Byte SByte UInt32 UInt64 UInt16
    Char Boolean Single Double Decimal""".split()
)


_DELEGATE = re.compile(r"\b(Func|Action)<(.*)>\??$")


def _nullable(type_text: str | None, is_value: Callable[[str], bool]) -> str | None:
    """``int?`` -> ``NullableOfint`` (``this int?`` -> ``this NullableOfint``), ``string?`` ->
    ``string``; ``Func<A, B, R>`` -> ``Func`3`` (a delegate's arity tells overloads apart);
    other types as written."""
    if not type_text:
        return type_text
    d = _DELEGATE.search(type_text)
    if d is not None:
        return f"{type_text[: d.start()]}{d[1]}`{_type_arity(d[2])}"
    if not type_text.endswith("?"):
        return type_text
    words = type_text[:-1].rsplit(" ", 1)
    name = words[-1]
    if "<" in name or "[" in name or not is_value(name.rsplit(".", 1)[-1]):
        return type_text[:-1]
    words[-1] = _NULLABLE + name.rsplit(".", 1)[-1]
    return " ".join(words)


def _takes_named(params: tuple[Parameter, ...], args: list[str]) -> bool:
    """Whether the parameters take these arguments, the named ones (``named:x``) by name."""
    names = {a[6:] for a in args if a.startswith("named:")}
    positional = sum(1 for a in args if not a.startswith("named"))
    given = {p.name for p in params}
    if names - given:
        return False
    for p in params[positional:]:
        if p.default is None and p.name not in names and not is_vararg(p.type):
            return False
    return True


def _same_parameters(
    index, top: str, want: tuple[Parameter, ...], have: tuple[Parameter, ...]
) -> bool:
    """Whether a method's parameters are those of ``top`` (by simple type; a type parameter of
    ``top`` or of its type takes any)."""
    if len(want) != len(have):
        return False
    sym = index.by_id[top]
    for w, h in zip(want, have):
        a, b = simple_type(w.type), simple_type(h.type)
        if a != b and not _type_parameter(a, sym, index, loose=False):
            return False
    return True


def _type_parameter(name: str, sym: Symbol, index, loose: bool = True) -> bool:
    """Whether ``name`` is a type parameter where ``sym`` is: of the method, of a type around
    it, or (``loose``) named as C# names them (``T``, ``TResult``)."""
    if loose and re.fullmatch(r"T(?:[A-Z0-9]\w*)?", name):
        return True
    cur: Symbol | None = sym
    while cur is not None:
        if name in _type_parameters(cur.name, cur.signature):
            return True
        cur = index.by_id.get(cur.parent) if cur.parent else None
    return False


@lru_cache(maxsize=65536)
def _type_parameters(name: str, signature: str) -> frozenset[str]:
    """``class Cache<TKey, TValue>`` -> {TKey, TValue}: the type parameters a declaration names."""
    if "<" not in signature:
        return frozenset()
    m = re.search(rf"\b{re.escape(name)}<([^()]*)>", signature)
    return frozenset(re.findall(r"\w+", m[1])) if m else frozenset()


def _last_word(name: str | None) -> str:
    """``NpgsqlConnection`` -> ``Connection``: the last word of a camel-case name."""
    words = re.findall(r"[A-Z][a-z0-9]+", name or "")
    return words[-1] if words else ""


# What a C# array converts to (besides an array type and a type parameter)
_ARRAY_TAKERS = frozenset(
    """object Object Array ICloneable IEnumerable ICollection IList IReadOnlyCollection
    IReadOnlyList IStructuralComparable IStructuralEquatable Span ReadOnlySpan Memory
    ReadOnlyMemory ArraySegment""".split()
)


class _Accessible:
    """A named call's overload sets as the caller sees them: without explicit interface
    implementations, and without `private` members of a type the caller is not inside
    (`new CommandDefinition("..", flags: ..)` in a benchmark cannot call CommandDefinition's
    private `(object? parameters, CommandFlags flags)`)."""

    def __init__(self, resolver: CSharpResolver, ctx: Ctx) -> None:
        self.resolver, self.ctx = resolver, ctx

    def get(self, sid: str, default: list[str] | None = None) -> list[str] | None:
        group = self.resolver._class_overloads.get(sid, default)
        if not group:
            return group
        seen = [m for m in group if self.resolver._visible_member(self.ctx, m)]
        return seen if seen and len(seen) < len(group) else group


def _explicit_implementation(sym: Symbol) -> bool:
    """``void ICollection<JToken>.Add(JToken item)``: a method named after its interface."""
    if sym.kind != "method":
        return False
    head = sym.signature.split("(", 1)[0].rstrip()
    if head.endswith(">"):  # `T IFactory.Create<T>`: its own type parameters
        head = head[: head.rfind("<")].rstrip()
    return head.endswith(f".{sym.name}")


def _cs_overload_key(sym: Symbol, params: tuple[Parameter, ...]) -> tuple:
    """What tells C# overloads apart: the parameter types, the generic arity, the
    constraints (a `where` clause after the parameters)."""
    tail = sym.signature.rsplit(")", 1)[-1] if ")" in sym.signature else ""
    where = re.sub(r"\s+", " ", tail.split("{", 1)[0].split("=>", 1)[0]).strip()
    return (
        tuple(simple_type(p.type) for p in params),
        _type_arity(_generics(sym)) if _generics(sym) else 0,
        where if where.startswith("where") else "",
    )


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
    return _generics_of(sym.name, sym.signature)


@lru_cache(maxsize=65536)
def _generics_of(name: str, signature: str) -> str:
    if "<" not in signature:
        return ""
    m = re.search(rf"\b{re.escape(name)}<([^()]*)>\s*\(", signature)
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

    def base_type(self, sym: Symbol, file: FileResult, text: str) -> str | None:
        if text.startswith("\\"):
            # `extends \DateTimeImmutable`: fully qualified, PHP's class even where the
            # namespace has a `DateTimeImmutable` of its own (monolog's, an alias of this class)
            ids = self.qnames.get(text[1:].split("<", 1)[0].strip().replace("\\", "."))
            hit = ids[0] if ids else None
            return self.canonical.get(hit, hit) if self.index.is_type(hit) else None
        return super().base_type(sym, file, text)

    def member(self, target: Target, name: str) -> Target | None:
        if target[0] == SUPER:
            # `parent::m()`: the parent class's `m` (its traits' included), never one of the
            # caller's own traits, which come first in its MRO (see NameTable.mro)
            by_id = self.index.by_id
            parents = [
                b
                for b in self.index.bases.get(target[1], ())
                if by_id[b].kind not in ("trait", "interface")
            ]
            if not parents:
                return None
            hit = self.index.find_member(parents[0], name)[0]
            return (SYM, hit) if hit is not None else None
        return super().member(target, name)


class CResolver(NamespacedResolver):
    family = "c"
    global_functions = True
    # A C++ class has one body: two of one name are specializations (`struct formatter<int>`,
    # `struct formatter<weekday>`), the preprocessor's alternatives, or test files' own
    # classes, each with its members.
    pieces = False
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

    def member_fallback(self, name: str, ctx: Ctx) -> Outcome:
        """C++: the one method of a name is no fallback for a caller that cannot see it: a
        method of a source file the caller neither is nor reaches through a header of the
        same name (`Policy::apply` in `raw_hash_set.h` is no `apply` of a benchmark's `.cc`)."""
        out = super().member_fallback(name, ctx)
        if not isinstance(out, list) or ctx.file.language != "cpp":
            return out
        file_of = self.index.file_of
        closure = self._closure(ctx.file)
        stems = self._closure_stems(ctx.file)
        out = [
            (d, r)
            for d, r in out
            if file_of[d].path in closure
            or file_of[d].path.endswith(_HEADERS)
            or _stem(file_of[d].path) in stems
        ]
        return out or UNRESOLVED

    # --- C++: namespaces opened by macros, `std`, declared types -----------------------------

    def prepare(self) -> None:
        self._by_base: dict[str, list[FileResult]] = {}
        for f in self.files:
            self._by_base.setdefault(posixpath.basename(f.path), []).append(f)
        self._closures: dict[str, frozenset[str]] = {}
        self._included_files: dict[str, list[FileResult]] = {}
        self._stems: dict[str, frozenset[str]] = {}
        super().prepare()  # (bases are resolved there: through `_find`)
        sets: dict[tuple[str, str], list[str]] = {}  # C++ overloads: `f`, `f#2` of one file
        local = self.index.local_name
        for f in self.files:
            if f.language == "cpp":
                for s in f.symbols:
                    if s.kind in FUNCTION_KINDS and s.id in local:
                        sets.setdefault((f.path, strip_duplicate(local[s.id])), []).append(s.id)
        self._overloads = {i: ids for ids in sets.values() if len(ids) > 1 for i in ids}
        # The same functions of the file's header or implementation (`str_cat.h` defines
        # `StrCat(a)` inline, `str_cat.cc` defines `StrCat(a, b)`), tried when none of the
        # file's own takes a call's number of arguments.
        by_stem: dict[tuple[str, str], list[str]] = {}
        for path, name in sets:
            by_stem.setdefault((_stem(path), name), []).append(path)
        self._paired: dict[str, list[str]] = {}
        for (path, name), ids in sets.items():
            others = [p for p in by_stem[(_stem(path), name)] if p != path]
            if others:
                more = [i for p in others for i in sets[(p, name)]]
                more = [i for i in more if not self.index.by_id[i].signature.startswith("#")]
                for i in ids:
                    self._paired[i] = more
        self._fits_memo: dict[tuple[str, str], bool | None | object] = {}
        self._call_tokens: dict[tuple[str, str, str], str] = {}
        self._folders: set[str] | None = None
        self._known_types: dict[str, bool] = {}
        self._by_args: dict[tuple, tuple[str, ...]] = {}
        self._caller_file: FileResult | None = None  # (the file whose call is resolved)

    def _includes(self, file: FileResult) -> list[FileResult]:
        """The repository's files an `#include` names: the one next to the includer, else
        those whose path ends as written (`fmt/format.h`)."""
        found = self._included_files.get(file.path)
        if found is None:
            found = self._included_files[file.path] = self._includes_uncached(file)
        return found

    def _includes_uncached(self, file: FileResult) -> list[FileResult]:
        out: list[FileResult] = []
        for imp in file.imports:
            if imp.name is not None or imp.alias is not None:
                continue  # `using std::string;`, `namespace fs = ...`: no file
            candidates = self._by_base.get(posixpath.basename(imp.module))
            if not candidates:
                continue
            near = posixpath.normpath(posixpath.join(posixpath.dirname(file.path), imp.module))
            hit = [c for c in candidates if c.path == near]
            out += hit or [
                c for c in candidates if c.path == imp.module or c.path.endswith("/" + imp.module)
            ]
        return out

    def _closure_stems(self, file: FileResult) -> frozenset[str]:
        """The paths of the caller's include closure without their extensions: a source
        file's functions are declared by its header (`os.h` for `os.cc`)."""
        found = self._stems.get(file.path)
        if found is None:
            found = self._stems[file.path] = frozenset(_stem(p) for p in self._closure(file))
        return found

    def _closure(self, file: FileResult) -> frozenset[str]:
        """The paths of the file and of every repository file it includes, transitively."""
        found = self._closures.get(file.path)
        if found is None:
            seen = {file.path}
            todo = [file]
            while todo:
                for inc in self._includes(todo.pop()):
                    if inc.path not in seen:
                        seen.add(inc.path)
                        todo.append(inc)
            found = self._closures[file.path] = frozenset(seen)
        return found

    def _transparent(self, file: FileResult, parts: list[str], types_only: bool) -> str | None:
        """``fmt::format`` where no ``fmt.format`` is defined: a namespace opened by a macro
        (`FMT_BEGIN_NAMESPACE`), which the parser reads as transparent (languages/cpp.py).
        The name with its leading namespaces dropped, one at a time (``format``), defined in
        the caller's file or a file it includes (transitively) under a directory named as the
        namespace (`include/fmt/format.h`: a library's headers live so); never under ``std``
        (`boost::format` is no `format` of the repository)."""
        if len(parts) < 2 or parts[0] in ("", "std"):
            return None
        closure = None
        folder = f"/{parts[0]}/"
        for k in range(1, len(parts)):
            ids = self.qnames.get(".".join(parts[k:]))
            if not ids:
                continue
            if closure is None:
                closure = self._closure(file)
            ids = [
                i
                for i in ids
                if (path := self.index.file_of[i].path) in closure and folder in f"/{path}"
            ]
            if types_only:
                ids = [i for i in ids if self.index.is_type(i)]
            hit = self._pick(ids, file)
            if hit is not None:
                return hit
        return None

    def _find(self, file: FileResult, nest: list[str], name: str, types_only: bool) -> str | None:
        hit = super()._find(file, nest, name, types_only)
        if hit is not None or file.language != "cpp":
            return hit
        aliases, opened = self._usings_of(file)
        first, _, rest = name.partition(".")
        paths = [name] if "." in name else []
        if first in aliases:  # `using fmt::memory_buffer;`
            paths.append(aliases[first] + (f".{rest}" if rest else ""))
        paths += [f"{o}.{name}" for o in opened]  # `using namespace fmt;`
        for path in paths:
            hit = self._transparent(file, path.split("."), types_only)
            if hit is not None:
                return hit
        return None

    def _pick(self, ids: list[str] | None, file: FileResult) -> str | None:
        """C++: of several definitions, those in the files the caller's file includes first
        (nlohmann-json's `include/` and its amalgamated `single_include/` copy)."""
        if ids and len(ids) > 1 and file.language == "cpp":
            closure = self._closure(file)
            near = [i for i in ids if self.index.file_of[i].path in closure]
            if near:
                ids = near
        if ids and file.language == "cpp":
            # a free function of a header the caller's file does not include (directly or
            # through its includes) is not one it can call: `swap(s1, s2)` in a btree test is
            # no `absl::swap` of `inlined_vector.h`
            by_id, file_of = self.index.by_id, self.index.file_of
            closure = self._closure(file)
            free = [
                i
                for i in ids
                if by_id[i].kind == "function"
                and not by_id[i].signature.startswith("#")
                and file_of[i].path not in closure
            ]
            # a class of a source file the caller does not include is that file's own
            # (`Policy` of a benchmark's `.cc` is no `Policy` of `raw_hash_set.h`)
            ids = [
                i
                for i in ids
                if not (
                    by_id[i].kind in TYPES
                    and file_of[i].path not in closure
                    and not file_of[i].path.endswith(_HEADERS)
                )
            ]
            if free:
                stems = self._closure_stems(file)
                seen = [
                    i
                    for i in free
                    if not file_of[i].path.endswith(_HEADERS) and _stem(file_of[i].path) in stems
                ]
                # a source file's functions stay when one of them is declared by a header
                # included (`time.cc` for `time.h`): another source file may implement that
                # header too (`duration.cc`), so they do not choose among themselves
                drop = {i for i in free if file_of[i].path.endswith(_HEADERS) or not seen}
                ids = [i for i in ids if i not in drop]
        return super()._pick(ids, file)

    def _included(self, file: FileResult, sid: str) -> bool:
        if file.language != "cpp":
            return super()._included(file, sid)
        return self.index.file_of[sid].path in self._closure(file)  # (transitively)

    def bare_fallback(self, ctx: Ctx, name: str) -> Outcome:
        """C++: of the free functions of one name in several files, those the caller's file
        includes (transitively): one is the callee, several an overload set."""
        out = super().bare_fallback(ctx, name)
        if isinstance(out, list) and ctx.file.language == "cpp":
            # a function of another source file is called through a header declaring it:
            # its own header (`os.h` for `os.cc`) among the caller's includes, or no edge
            # (`write(..)` in `format.h` is no `write` of `test/os-test.cc`)
            stems = self._closure_stems(ctx.file)
            out = [
                (d, r) for d, r in out if r != UNIQUE or _stem(self.index.file_of[d].path) in stems
            ]
            return out or UNRESOLVED
        if out not in (AMBIGUOUS, UNRESOLVED) or ctx.file.language != "cpp":
            return out
        funcs = self._global_functions.get(name)
        if not funcs:
            return out
        closure = self._closure(ctx.file)
        near = [i for i in funcs if self.index.file_of[i].path in closure]
        if len(near) == 1:
            return [(near[0], EXACT)]
        return [(i, OVERLOAD) for i in near] if near else out

    def resolve_call(self, ctx: Ctx, text: str) -> Outcome:
        """C++ writes how many arguments a call passes (`insert/(?)`, languages/cpp.py): of an
        overload set, the members that take that many; several: each an ``overload`` edge."""
        m = ARGS.search(text) if text[-1:] == ")" else None
        if _FUNDAMENTAL.fullmatch(text[: m.start()] if m is not None else text):
            # `new char[n]`, `int(x)`: a fundamental type has no constructor (not `operator
            # char()` of a class)
            return EXTERNAL_CALL
        if m is None:
            self._caller_file = ctx.file if ctx.file.language == "cpp" else None
            return self._resolve_cpp(ctx, text)
        callee = text[: m.start()]
        self._caller_file = ctx.file if ctx.file.language == "cpp" else None
        out = self._resolve_cpp(ctx, callee)
        if not isinstance(out, list):
            return out
        by_id = self.index.by_id
        args = [a.strip() for a in m[1].split(",")] if m[1].strip() else []
        own = args[-1:] == ["~"]  # the caller's own parameters, unchanged
        if own:
            args = args[:-1]
            if isinstance(out, list) and all(d == ctx.sym.id for d, _ in out):
                # `fdopen(fildes, mode)` in `test::fdopen(int fildes, const char* mode)`
                # (through `::FMT_POSIX(..)`): a recursion passing its own parameters unchanged
                # would never end; the callee is another function of that name
                return UNRESOLVED
        n = len(args)
        calls = args
        if any(a[:1] == "@" for a in args) and any(sid in self._overloads for sid, _ in out):
            args = [self._call_token(ctx, a[1:]) if a[:1] == "@" else a for a in args]
        known = [self._known(a) for a in args]
        # an argument of a type the repository does not define (an alias: `CivilSecond c`, a
        # temporary `absl::CivilSecond(..)`): its written name
        written = tuple(
            w
            if k == "lv" and w[:1] in (":", "=")
            else "=" + c[1:]
            if c[:1] == "@" and k == "?" and "<" not in c and not c.startswith("@std::")
            else "?"
            for w, k, c in zip(args, known, calls)
        )
        written = written if any(w != "?" for w in written) else ()
        args = known
        by_id = self.index.by_id
        const: bool | None | object = _UNSET
        chosen: list[tuple[str, str]] = []
        for sid, res in out:
            members = self._overloads.get(sid)
            paired = self._paired.get(sid)
            if paired and (members or not _takes_at_most(by_id[sid], n)):
                # the set with its header's or implementation's members (`int128(int)` in
                # `int128.h`, `int128(double)` in `int128.cc`), one of each parameter list
                own = members or [sid]
                keys = {_params_key(by_id[i]) for i in own}
                members = own + [i for i in paired if _params_key(by_id[i]) not in keys]
            fit = [by_id[i] for i in members if _takes_count(by_id[i], n)] if members else []
            if any(_DELETED.search(f.signature) for f in fit):
                fit = [f for f in fit if not _DELETED.search(f.signature)]  # never called
                if not fit:
                    continue
            if len(fit) > 1 and callee.endswith(">"):
                fit = _specialized_for(fit, callee)
            if fit and "<" not in callee.rsplit("::", 1)[-1]:
                # (no template arguments written: the arguments deduce them)
                fit = [f for f in fit if deduces(f, args, self._class_fits)]
            if len(fit) > 1:
                key = (tuple(f.id for f in fit), tuple(args), written)
                chosen_ids = self._by_args.get(key)
                if chosen_ids is None:
                    picked = by_arguments(
                        fit,
                        args,
                        self._class_fits,
                        class_params=self._class_params,
                        written=list(written),
                    )
                    chosen_ids = self._by_args[key] = tuple(f.id for f in picked)
                fit = [by_id[i] for i in chosen_ids]
            if len(fit) > 1:
                if const is _UNSET:
                    const = self.receiver_const(ctx, callee)
                fit = by_receiver(fit, const)  # type: ignore[arg-type]
            if len(fit) == 1:
                chosen.append((fit[0].id, res))
            elif fit:
                chosen += [(i.id, OVERLOAD) for i in fit]
            elif not members and _DELETED.search(by_id[sid].signature):
                continue  # `Impl(const Impl&) = delete;`: no call reaches it
            elif not members and (
                by_id[sid].kind not in FUNCTION_KINDS
                or (
                    _takes_count(by_id[sid], n)
                    if self._declared_here(by_id[sid])
                    else _takes_at_most(by_id[sid], n)
                )
            ):
                # (one definition: in a source file, its declaration in a header may give
                # defaults, so only more arguments than it takes rule it out: `int128(x)`
                # against `int128() = default`; `IsEmpty()` is no `IsEmpty(ctrl_t c)` of a
                # header); and the arguments may convert to its parameters (`ToFloat(0x0)`
                # is no `ToFloat(absl::string_view s)`)
                if (
                    by_id[sid].kind in FUNCTION_KINDS
                    and not by_id[sid].signature.startswith("#")
                    and any(a in _LITERALS for a in args)
                    and not by_arguments(
                        [by_id[sid]],
                        [a if a in _LITERALS else "?" for a in args],
                        self._class_fits,
                        strict=True,
                        class_params=self._class_params,
                    )
                ):
                    continue
                if (
                    "<" not in callee.rsplit("::", 1)[-1]
                    and by_id[sid].kind in FUNCTION_KINDS
                    and not deduces(by_id[sid], args, self._class_fits)
                ):
                    continue  # `swap(a, a)` of two `linked_hash_set`s: no `InlinedVector`'s
                chosen.append((sid, res))
            # else: no member of the set takes that many arguments (`Eq(x)` where the one
            # `Eq` of that file takes none, `int128(x)` against its defaulted `int128()`)
        chosen = list(dict.fromkeys(chosen))
        if len(out) > 1 and len(chosen) > 1 and any(a != "?" for a in args):
            # the sets of several files (`format` of `format.h`, `xchar.h` and `color.h`, all
            # included): one overload set
            syms = [by_id[d] for d, _ in chosen]
            if all(x.kind in FUNCTION_KINDS and not x.signature.startswith("#") for x in syms):
                kept = {
                    x.id
                    for x in by_arguments(
                        syms,
                        args,
                        self._class_fits,
                        class_params=self._class_params,
                        written=list(written),
                    )
                }
                chosen = [(d, r) for d, r in chosen if d in kept]
        if len({_alike_key(by_id[d]) for d, _ in chosen}) > 1:
            # an undecided set: one member is the callee, the edges to the others would be
            # wrong (as Java, Kotlin and C#: no edge); members alike (the preprocessor's
            # alternatives: `GetThreadCount()` once per platform) are one function
            return AMBIGUOUS
        return chosen or UNRESOLVED

    def _class_params(self, sym: Symbol) -> frozenset[str]:
        """The template parameters of a member's class (`template <typename T> class
        chunked_queue`), or of the class an out-of-line member names (`template <typename T>
        StatusOr<T>::StatusOr`)."""
        owner = sym.parent if self.index.is_type(sym.parent) else self.attached.get(sym.id)
        out = template_parameters(self.index.by_id[owner].signature) if owner else frozenset()
        if sym.signature.startswith("template") and not template_parameters(sym.signature):
            out |= _header_names(sym.signature)  # (the out-of-line member's first header)
        return out

    def _known(self, token: str) -> str:
        if token[:1] == "%":  # `E::k`: a value of `E` where the repository's enum `E`
            last = token[1:].rsplit("::", 1)[-1]
            enums = [
                i
                for i in self.index.names.get((self.family, last), ())
                if self.index.by_id[i].kind == "enum"
            ]
            return f"={last}" if enums else "?"
        return self._known_type(token)

    def _known_type(self, token: str) -> str:
        """A value's type as an argument token: ``:T``/``=T`` where the repository defines
        ``T`` or the standard library does (`std::string`), or a pointer; else (an alias,
        `using memory_buffer = basic_memory_buffer<char>`; a type the parser could not tell
        from a template's parameter) a value of any type, ``lv``."""
        if token[:1] not in (":", "=") or token.endswith("*"):
            return token
        name = token[1:].lstrip(":")
        if name.startswith("std::"):
            return token
        last = name.rsplit("::", 1)[-1]
        if re.search(r"(?i)(?:string|string_view)$", last):
            return token  # a string type, wherever defined (`absl::string_view`)
        found = self._known_types.get(last)
        if found is None:
            ids = self.index.names.get((self.family, last), ())
            found = self._known_types[last] = any(self.index.is_type(i) for i in ids)
        return token if found else "lv"

    def _call_token(self, ctx: Ctx, name: str) -> str:
        """An argument `f(..)`: ``=T`` for the type ``T`` it gives (a class's constructor, a
        function's declared return type, a standard string or container); ``?`` where that is
        not one type."""
        key = (ctx.file.path, ".".join(self._nest(ctx.sym)), name)
        found = self._call_tokens.get(key)
        if found is None:
            found = self._call_tokens[key] = self._call_token_uncached(ctx, name)
        return found

    def _call_token_uncached(self, ctx: Ctx, name: str) -> str:
        parts = name.lstrip(":").split("::")
        if parts[0] == "std":
            return f"=std::{parts[1]}" if len(parts) == 2 and parts[1] in _STD_TYPES else "?"
        out = self._resolve_cpp(ctx, name)
        if not isinstance(out, list) or not out:
            return "?"
        tokens = set()
        by_id = self.index.by_id
        for sid, _ in out:
            sym = by_id[sid]
            if sym.kind in TYPES:
                tokens.add("=" + sym.name)
            elif sym.name == sym.class_name and sym.kind == "method":
                tokens.add("=" + sym.name)  # a constructor
            elif sym.return_type and sym.kind in FUNCTION_KINDS:
                t = typed_token(sym.return_type)
                tokens.add("=" + t[1:] if t[:1] == ":" else t)
            else:
                return "?"
        if len(tokens) != 1:
            return "?"
        token = tokens.pop()
        return token if token in ("n", "n.", "?") or token[:1] == "=" else "?"

    def _declared_here(self, sym: Symbol) -> bool:
        """Whether a definition is its function's declaration too, so that its defaults are
        all there: one in a header, or in a class's body."""
        if sym.parent is not None and self.index.is_type(sym.parent):
            return True
        path = self.index.file_of[sym.id].path
        return path.endswith((".h", ".hpp", ".hh", ".hxx", ".inc", ".ipp")) and (
            "::" not in sym.signature.split("(", 1)[0]
        )

    def receiver_const(self, ctx: Ctx, callee: str) -> bool | None:
        """Whether the receiver of a member call is const: a receiver declared `const`, a
        field in a const method (the parser writes both `(w: const Widget)`), `this` or no
        receiver in a const method; False for another declared or `this` receiver; None where
        the call is on another value (a chain, a value whose declaration we cannot read)."""
        typed = typed_head(callee) if callee[:1] == "(" else None
        if typed is not None:
            if typed[1] != ": " or not _SIMPLE_MEMBER.fullmatch(typed[3]):
                return None
            return typed[2].startswith("const ")
        if callee.isidentifier() or _THIS_MEMBER.fullmatch(callee):
            const = member_const(ctx.sym)[0]  # (only a member is `const`)
            return const if const or ctx.sym.kind == "method" or ctx.cls else None
        if _ARROW_MEMBER.fullmatch(callee):
            # `impl_->current_test_info()` (a field declared elsewhere): what a pointer
            # points to is not const unless declared so (a const method's `impl_` is a
            # `UnitTestImpl* const`, its pointee not const)
            return False
        return None

    def _class_fits(self, name: str, token: str) -> bool | None:
        """Whether the repository's class ``name`` takes an argument written ``token`` (a
        literal, a number) through a converting constructor; None: no class of that name."""
        key = (name, token)
        found = self._fits_memo.get(key, _UNSET)
        if found is _UNSET:
            found = self._fits_memo[key] = self._class_fits_uncached(name, token)
        return found  # type: ignore[return-value]

    def _class_fits_uncached(self, name: str, token: str) -> bool | None:
        index = self.index
        types = [i for i in index.names.get((self.family, name), ()) if index.is_type(i)]
        if token[:1] == "^":
            # a deduced parameter (`InlinedVector<T, N, A>&`) converts nothing: a class of the
            # repository takes it only when it is that class or derives from it (an alias,
            # `string_view` of `basic_string_view<char>`, is not known)
            arg = token[2:].rsplit("::", 1)[-1]
            ids = [a for a in index.names.get((self.family, arg), ()) if index.is_type(a)]
            classes = ("class", "struct")
            if not ids or not types or not all(index.by_id[a].kind in classes for a in ids + types):
                return None
            return any(index.by_id[b].name == name for a in ids for b in index.mro(a))
        if not types or token in ("lv", "&&", "?"):
            return None
        if token[:1] in (":", "=") and not token.endswith("*"):
            arg = token[1:].rsplit("::", 1)[-1]
            for a in index.names.get((self.family, arg), ()):
                if index.is_type(a) and any(index.by_id[b].name == name for b in index.mro(a)):
                    return True  # a class derived from the parameter's
        for t in types:
            ctors = list(index.members.get(t, {}).values())
            ctors += self.qnames.get(index.local_name[t] + "." + name, ())  # (out of line)
            if any(_converts(index.by_id[c], name, token) for c in ctors):
                return True
        return False

    def _foreign(self, ctx: Ctx, text: str) -> bool:
        """`benchmark::DoNotOptimize(x)`: a path whose head names no namespace, type or alias
        of the repository, nor one of its folders (a namespace a macro opens lives in its
        folder: `fmt::` in `include/fmt/`), is a library's."""
        head = text.lstrip(":").split("::", 1)[0].strip()
        if not head.isidentifier() or head in self.prefix_tails:
            return False
        if any(self.index.is_type(i) for i in self.index.names.get((self.family, head), ())):
            return False
        aliases, opened = self._usings_of(ctx.file)
        if head in aliases:
            return False
        if self._folders is None:
            self._folders = {
                part for f in self.files for part in posixpath.dirname(f.path).split("/")
            }
        return head not in self._folders

    def _resolve_cpp(self, ctx: Ctx, text: str) -> Outcome:
        out = super().resolve_call(ctx, text)
        m = _SPECIALIZED.match(text) if isinstance(out, list) else None
        if m is not None and ctx.file.language == "cpp":
            # `formatter<std::tm, Char>::format(..)`, `formatter<T, Char>()`: a member of one
            # of the specializations of `formatter`, which its arguments choose: not told here
            index = self.index
            for sid, _ in out:
                owner = sid if index.is_type(sid) else self.owner_type(sid)
                if owner is None or index.by_id[owner].name != m[1]:
                    break
                if not self._specializations(owner, ctx.file):
                    break
            else:
                return UNRESOLVED
        if (
            out in (UNRESOLVED, AMBIGUOUS)
            and "::" in text
            and text[:1] != "("
            and ctx.file.language == "cpp"
            and (text.lstrip(":").startswith("std::") or self._foreign(ctx, text))
        ):
            return EXTERNAL_CALL  # (`std::numeric_limits<int128>::max`: not specialized here)
        if isinstance(out, list) and out[0][0] == ctx.sym.id:
            if ctx.sym.name == ctx.sym.class_name:
                # `pipe(fds)` in `pipe::pipe()`: a constructor never calls itself (the C
                # function of the class's name, through a macro: `FMT_POSIX_CALL(pipe(fds))`)
                return UNRESOLVED
            if text.endswith(">") and not ctx.sym.signature.startswith("template"):
                # `StrReplaceAll<FixedMapping>(s, r)` in the plain `StrReplaceAll`: the
                # template of that name, not itself
                return UNRESOLVED
        if "::" not in text or out == EXTERNAL_CALL or out == DYNAMIC:
            return out
        if isinstance(out, list) and any(r != UNIQUE for _, r in out):
            return out
        m = _CPP_PATH.fullmatch(text)
        if m is None:
            return out
        parts = [p.split("<", 1)[0].strip() for p in m[1].split("::")]
        hit = self._transparent(ctx.file, parts, False)
        if hit is None:
            return out
        if self.index.is_type(hit):
            return [(self.constructor(self.canonical.get(hit, hit)), EXACT)]
        if self.index.is_callable(hit):
            return [(hit, EXACT)]
        return out

    def lookup(self, ctx: Ctx, name: str) -> Target | None:
        """C++: a macro is the one the caller's file sees, defined in it or in a file it
        includes (transitively), where one is: `FMT_ASSERT` in `format.h` is `base.h`'s, not
        the one a test header defines before including it."""
        out = super().lookup(ctx, name)
        if out is None or out[0] != SYM or ctx.file.language != "cpp":
            return out
        sym = self.index.by_id.get(out[1])
        if sym is None or not sym.signature.startswith("#"):
            return out
        closure = self._closure(ctx.file)
        file_of = self.index.file_of
        if file_of[out[1]].path in closure:
            return out
        seen = [
            i
            for i in self.index.names.get((self.family, name), ())
            if file_of[i].path in closure and self.index.by_id[i].signature.startswith("#")
        ]
        return (SYM, seen[0]) if seen else out

    def implicit_member(self, ctx: Ctx, name: str, name_only: bool) -> Outcome | None:
        """C++: `unsupported()` in a base's method reaches a subclass's `unsupported` only
        when the base's is virtual (see ``call_target``)."""
        out = super().implicit_member(ctx, name, name_only)
        if not out or ctx.file.language != "cpp":
            return out
        return self._virtual_only(out)

    def _virtual_only(self, out: list[tuple[str, str]]) -> list[tuple[str, str]]:
        by_id = self.index.by_id
        named = [d for d, r in out if r != OVERRIDE]
        if not named or any(_VIRTUAL.search(by_id[d].signature) for d in named):
            return out
        return [(d, r) for d, r in out if r != OVERRIDE or _VIRTUAL.search(by_id[d].signature)]

    def call_target(self, target: Target, recv: Target | None) -> Outcome:
        """C++: a method overrides only a virtual one (`virtual`, or itself `override` /
        `final`): a subclass's method of the same name otherwise hides it, and a call through
        the base's type never reaches it."""
        out = super().call_target(target, recv)
        if not isinstance(out, list) or all(r != OVERRIDE for _, r in out):
            return out
        if self.index.by_id[target[1]].language != "cpp":
            return out
        return self._virtual_only(out)

    def _typed(self, ctx: Ctx, typed: tuple[str, str, str, str]) -> Outcome | None:
        """C++: a value declared of a type we cannot follow (a template parameter, an alias
        such as `using ListType = std::list<..>`) makes no name guess: `splice` of a
        `ListType` is `std::list`'s, not the repository's one `splice`."""
        out = super()._typed(ctx, typed)
        if out is None and typed[1] == ": " and ctx.file.language == "cpp":
            return UNRESOLVED
        return out

    def module_member(self, target: Target, name: str) -> Target | None:
        hit = super().module_member(target, name)
        if hit is None and self._caller_file is not None:
            # `absl::StrCat` defined in `str_cat.h` and `str_cat.cc`: the caller's includes
            # decide, as for a name written bare (`_pick`)
            ids = self.qnames.get(f"{target[1]}.{name}")
            pick = self._pick(ids, self._caller_file) if ids and len(ids) > 1 else None
            if pick is not None:
                return (SYM, pick)
        if hit is None and target[1].split(".", 1)[0] == "std":
            return EXTERNAL  # `std::move` where the repository's `namespace std` specializes
        if (
            hit is not None
            and hit[0] == SYM
            and self._caller_file is not None
            and self.index.by_id[hit[1]].kind == "method"
        ):
            # a member of a source file's own class is not the caller's (`Policy::apply`)
            path = self.index.file_of[hit[1]].path
            caller = self._caller_file
            if (
                not path.endswith(_HEADERS)
                and path not in self._closure(caller)
                and _stem(path) not in self._closure_stems(caller)
            ):
                return None
        return hit

    def declared_type(self, ctx: Ctx, text: str) -> Target | None:
        """A local's, a parameter's or a field's type (`const Widget &`, `fmt::memory_buffer`,
        `std::unique_ptr<Pool>`): the repository's type; a standard library's type (EXTERNAL;
        a smart pointer: the type it points to); None where unknown."""
        t = _CPP_QUALIFIERS.sub("", text).strip().rstrip("*&").strip()
        m = _SMART_POINTER.fullmatch(t)
        if m is not None:
            t = m[1].strip()
        if t.startswith(("std::", "::std::")):
            return EXTERNAL
        found = self.param_type(ctx, ctx.sym, t)
        if found is not None and "<" in t and self._specializations(found, ctx.file):
            return None  # `formatter<T, Char> value_formatter_`: which one, its arguments say
        return (DECL, found) if found is not None else None

    def _specializations(self, type_id: str, file: FileResult) -> bool:
        """Whether a class has several definitions of its name that ``file`` sees
        (`formatter<weekday, Char>`, `formatter<std::tm, Char>`): specializations, one of
        which template arguments choose."""
        index = self.index
        q = strip_duplicate(index.local_name[type_id])
        closure = self._closure(file)
        seen = [
            i
            for i in self.qnames.get(q, ())
            if index.is_type(i) and index.file_of[i].path in closure
        ]
        if len(seen) > 1:
            return True  # (of one qualified name, in several files)
        table = index.local.get(index.file_of[type_id].module, {})
        return index.is_type(table.get(q + "#2"))


def _header_names(signature: str) -> frozenset[str]:
    """The names of a signature's first `template <..>` header, whoever's it is."""
    m = re.match(r"template\s*<([^<>]*(?:<[^<>]*>[^<>]*)*)>", signature)
    if m is None:
        return frozenset()
    return frozenset(
        n[1]
        for p in m[1].split(",")
        if (n := re.search(r"(?:typename|class)\s*(?:\.\.\.)?\s*([A-Za-z_]\w*)", p))
    )


def _first_template_kind(signature: str) -> str | None:
    """``type`` for `template <class T, ..>`, ``value`` for `template <size_t N, ..>`."""
    m = re.match(r"template\s*<\s*(\w+)", signature)
    if m is None:
        return None
    return "type" if m[1] in ("class", "typename") else "value"


def _specialized_for(members: list[Symbol], callee: str) -> list[Symbol]:
    """`assign_from_buf<double>(data)`: no explicit specialization for other arguments
    (`template <> bool assign_from_buf<bool>(..)`); the one for these arguments if any."""
    depth = 0
    for i in range(len(callee) - 1, -1, -1):
        depth += callee[i] == ">"
        depth -= callee[i] == "<"
        if depth == 0:
            break
    written = "".join(callee[i + 1 : -1].split())
    first = written.split(",", 1)[0]
    if re.fullmatch(r"[\d(][\w+\-*/() ]*|\w+[-+*/]\w+", first) and not first.isidentifier():
        # `Offset<N - 1>()`, `Get<0>()`: a value, no `template <class T>` member's argument
        kinds = [_first_template_kind(m.signature) for m in members]
        if "value" in kinds:
            members = [m for m, k in zip(members, kinds) if k != "type"]
    specs: dict[str, str] = {}
    for m in members:
        if not m.signature.startswith("template <>") and not m.signature.startswith("template<>"):
            continue
        found = re.search(rf"\b{re.escape(m.name)}\s*<([^()]*)>\s*\(", m.signature)
        if found is not None:
            specs[m.id] = "".join(found[1].split())
    if not specs:
        return members
    same = [m for m in members if specs.get(m.id) == written]
    return same or [m for m in members if m.id not in specs] or members


def _params_key(sym: Symbol) -> tuple:
    """A function's parameter types and qualifiers (`const`, `&&`): two definitions alike
    are alternatives of the preprocessor (`#ifdef _WIN32 .. #else ..`), one of which the build
    compiles."""
    return (*(" ".join((p.type or "").split()) for p in sym.parameters), member_const(sym))


_CONSTRAINT = re.compile(r"enable_if|ENABLE_IF|EnableIf|\brequires\b")


def _template_head(sig: str) -> str:
    """A signature's `template <..>` headers (brackets matched: `FMT_ENABLE_IF(a < b)`)."""
    pos = 0
    while sig.startswith("template", pos):
        i = sig.find("<", pos)
        if i < 0:
            break
        depth, i = 1, i + 1
        while i < len(sig) and depth:
            depth += (sig[i] == "<") - (sig[i] == ">")
            i += 1
        pos = i
        while pos < len(sig) and sig[pos].isspace():
            pos += 1
    return sig[:pos]


def _alike_key(sym: Symbol) -> tuple:
    """Two members of a set are alike (alternatives of the preprocessor, a declaration and its
    definition) when their parameters, qualifiers and template constraints are: members that
    differ only in an `enable_if` or a `requires` (`to_string(const T&)` for
    `use_format_as<T>` or not) are two functions, of which a call reaches one."""
    sig = sym.signature
    constraint = ""
    if sig.startswith("template") and _CONSTRAINT.search(sig):
        head = _template_head(sig)
        tail = sig[sig.find(")") :].split("requires", 1)[1] if ") requires" in sig else ""
        constraint = "".join((head + tail).split())
    return (*_params_key(sym), constraint)


def _converts(ctor: Symbol, name: str, token: str) -> bool:
    """Whether a constructor of class ``name`` converts an argument written ``token``: not
    `explicit`, one required parameter that takes it (no copy or move constructor; no
    constructor template constrained by `enable_if`, not assumed to take a literal)."""
    if ctor.name != name or "explicit" in ctor.signature.split("(", 1)[0].split():
        return False
    params = ctor.parameters
    if not params or sum(1 for p in params if p.default is None) > 1:
        return False
    if type_name(params[0].type or "") == name:
        return False  # a copy or move constructor converts nothing
    tparams = template_parameters(ctor.signature)
    literal = token[:1] not in (":", "=") or token.endswith("*")
    if literal and tparams and re.search(r"enable_if|ENABLE_IF|EnableIf|requires", ctor.signature):
        return False  # (a class's value may well meet the constraint: `locale_ref(loc)`)
    # one user-defined conversion at most: no class through another's constructor (a string
    # literal makes no `text_style` through `text_style(emphasis)`)
    arg = token[1:].lstrip(":").rsplit("::", 1)[-1] if not literal else None
    return fits(token, params[0], tparams, lambda n, _t: arg is not None and n == arg)


def _variadic(sym: Symbol) -> list[Parameter]:
    """The parameters of a function that take any number (`...`, `Args&&... args`); a
    variadic macro's `...` (`#define LOG(severity, ...)`) is no parameter the parser lists."""
    params = sym.parameters
    out = [p for p in params if p.name == "..." or is_pack(p.type or "")]
    if not out and sym.signature.startswith("#") and "..." in sym.signature.split(")", 1)[0]:
        out = [Parameter("...")]
    return out


def _takes_at_most(sym: Symbol, n: int) -> bool:
    return n <= len(sym.parameters) or bool(_variadic(sym))


def _takes_count(sym: Symbol, n: int) -> bool:
    """Whether a function takes ``n`` arguments: its parameters without a default, up to all
    of them (any number past a `...` or a pack `Args&&... args`)."""
    params = sym.parameters
    variadic = _variadic(sym)
    required = sum(1 for p in params if p.default is None and p not in variadic)
    return required <= n and (bool(variadic) or n <= len(params))


_UNSET = object()
_FUNDAMENTAL = re.compile(
    r"(?:(?:unsigned|signed|short|long)\s+)*(?:char|wchar_t|char8_t|char16_t|char32_t|bool|int|"
    r"short|long|float|double|unsigned|signed|void)"
)
_SPECIALIZED = re.compile(r"(?:[A-Za-z_]\w*::)*([A-Za-z_]\w*)\s*<[^()]*>(?:::|$)")
# The standard library's types an argument may be made as (`std::string(s)`): a value of that type.
_STD_TYPES = frozenset(
    """string wstring string_view wstring_view u8string u16string u32string vector list deque
    map set unordered_map unordered_set pair tuple optional unique_ptr shared_ptr array
    function chrono""".split()
)
_VIRTUAL = re.compile(r"\bvirtual\b|\)\s*(?:const\s*)?(?:noexcept\s*)?(?:override|final)\b")
_HEADERS = (".h", ".hpp", ".hh", ".hxx", ".inc", ".ipp", ".inl")
_LITERALS = frozenset(('"', "'", "0", "1", "1.", "b", "nullptr"))
_SIMPLE_MEMBER = re.compile(r"[A-Za-z_]\w*(?:<[^()]*>)?")
_DELETED = re.compile(r"\)\s*(?:const\s*)?(?:&&?\s*)?=\s*delete\b")
_ARROW_MEMBER = re.compile(r"[A-Za-z_]\w*->[A-Za-z_]\w*")
_THIS_MEMBER = re.compile(r"this(?:->|\.)[A-Za-z_]\w*")
_CPP_PATH = re.compile(r"((?:[A-Za-z_]\w*(?:<[^()]*>)?::)+[A-Za-z_]\w*(?:<[^()]*>)?)")
_CPP_QUALIFIERS = re.compile(r"\b(?:const|volatile|typename|struct|class|enum|constexpr|static)\b")
_SMART_POINTER = re.compile(r"(?:::)?std::(?:unique_ptr|shared_ptr)<([\w:]+)\s*(?:,[^<>]*)?>")


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
                    self._add_bases(index, s, f, t)
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
        self._closure_params: dict[tuple[str, str], Target | None] = {}
        self._scalar_protocols: set[tuple[str, str]] | None = None
        self._shapes: dict[tuple[str, str], bool] = {}
        self._chosen: dict[tuple, Outcome] = {}  # (file, arguments, *targets) -> outcome

    def param_named(self, param: str, name: str) -> bool:
        return param.rsplit(" ", 1)[-1] == name  # `_ test`, `with id`: the name after the label

    def merges(self, type_id: str) -> bool:
        # a `private struct User` of a test file is its own type, not the `User` of another
        # file (whose extensions do merge: they are no type definitions)
        head = self.index.by_id[type_id].signature.split("{", 1)[0].split()[:4]
        return not any(w in ("private", "fileprivate") for w in head)

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
                plain = _plain_type(m["type"])
                t = self._type_name(file, nest, plain)
                found = (DECL, t) if t is not None else None
                name = plain.split("<", 1)[0].strip()
                if t is None and (
                    (name[:1] == "[" and name[-1:] == "]")
                    or (
                        name[:1].isupper()
                        and name.isidentifier()
                        and not self.index.names.get((self.family, name))
                        and name not in self.prefix_tails
                    )
                ):
                    # `@TaskLocal var metrics: TestMetrics`: a type the repository neither
                    # defines nor extends; its methods are the library's
                    found = LIBRARY_VALUE
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
        library's value. ``{app.get/(_:String, {})}#0``: a closure's untyped parameter."""
        if text[:1] == "{":
            return self._closure_parameter(ctx, text)
        found = super().value_of(ctx, text)
        name = text[:-2] if text.endswith("()") else ""
        if found is None and name.isidentifier() and ctx.cls is not None:
            hit, open_ = self.index.find_member(ctx.cls, name)
            if hit is None and open_ and self.lookup(ctx, name) is None:
                return EXTERNAL
        return found

    def _closure_parameter(self, ctx: Ctx, text: str) -> Target | None:
        """``{app.get/(_:String, {})}#0``: the i-th parameter of the trailing closure of the
        call written inside, typed by the function type of the parameter that closure fills in
        each callee (``use closure: @escaping (Request) async throws -> Response``): an instance
        of a repository type, a library's value, or None (not known, the callees disagree)."""
        key = (ctx.file.path, text)
        if key in self._closure_params:
            return self._closure_params[key]
        self._closure_params[key] = None  # (a closure inside its own owner's arguments)
        end = text.rfind("}#")
        found: Target | None = None
        if end > 0 and text[end + 2 :].isdigit():
            found = self._closure_parameter_of(ctx, text[1:end], int(text[end + 2 :]))
        self._closure_params[key] = found
        return found

    def _closure_parameter_of(self, ctx: Ctx, owner: str, at: int) -> Target | None:
        m = ARGS.search(owner) if owner[-1:] == ")" else None
        if m is None:
            return None
        labels = [a.strip() for a in m[1].split(",")] if m[1].strip() else []
        if labels and labels[-1] in ("~await", "~await-"):
            labels.pop()
        if not labels or labels[-1] not in ("{}", "{await}"):
            return None
        out = self.resolve_call(ctx, owner)
        self._file = ctx.file
        if not isinstance(out, list):
            return None
        found: set[Target] = set()
        for dst, res in out:
            if res == OVERRIDE:
                continue
            sym = self.index.by_id[dst]
            if not self.index.is_callable(dst) or self.index.is_type(dst):
                return None
            slots: list[int] = []
            if not _takes(sym.parameters, labels, slots=slots) or len(slots) != len(labels):
                return None
            written = sym.parameters[slots[-1]].type or ""
            types = _closure_parameter_types(written)
            if types is None or at >= len(types):
                return None
            plain = plain_type(types[at])
            name = plain.split("<", 1)[0].strip()
            t = self._type_name(self.index.file_of[dst], self._nest(sym), plain)
            if t is not None:
                found.add((DECL, t))
            elif (
                name[:1].isupper()
                and name.isidentifier()
                and not _type_parameter(name, sym, self.index, loose=False)
                and not self.index.names.get((self.family, name))
                and name not in self.prefix_tails
            ):
                found.add(LIBRARY_VALUE)
            else:
                return None
        return found.pop() if len(found) == 1 else None

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
        if callee[:2] == "(@":
            # `(@Suite).disabled()`: an implicit member in an attribute's arguments, of the type
            # its parameter names: a library's unless the repository defines the attribute
            name = callee[2:].split(")", 1)[0]
            mine = any(
                "." not in strip_duplicate(self.index.local_name[i])  # a top-level definition
                for i in self.index.names.get((self.family, name), ())
            )
            return UNRESOLVED if mine else EXTERNAL_CALL
        if callee == ".init" and not self._returns_own(ctx):
            # `self.sync = .init()`: the initializer of the type the context expects, which the
            # text does not show; in a function returning its own type (`static func parse(..)
            # -> Expires? { .init(..) }`), that type's
            return AMBIGUOUS
        if callee.isidentifier() and self._parameter(ctx, callee):
            return DYNAMIC  # `test(app)`: the closure a parameter holds, not a method `test`
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
        if callee == "self.init" and isinstance(found, list) and len(found) > 1:
            # `self.init(x.codingKey)` delegates to another initializer, never to itself
            found = [(d, r) for d, r in found if d != ctx.sym.id] or found
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
                    # the one implementing it takes its parameter types (`decode(_:from: URI)`,
                    # not `decode(_:from: String)`)
                    typed = [g for g in fits if any(self._same_types(g, d) for d in declared)]
                    fits = typed or fits
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

    def _parameter(self, ctx: Ctx, name: str) -> bool:
        """Whether ``name`` is a parameter of the caller or of a function around it."""
        return any(
            self.param_named(p.name, name) for fn in ctx.chain for p in fn.parameters if p.name
        )

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

    def _same_types(self, a: str, b: str) -> bool:
        """Whether two functions' parameters are of the same written types (plain names)."""
        pa, pb = self.index.by_id[a].parameters, self.index.by_id[b].parameters
        return len(pa) == len(pb) and all(
            _plain_type(p.type or "") == _plain_type(q.type or "") for p, q in zip(pa, pb)
        )

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
        # called without arguments, a member without a variadic parameter over one whose
        # variadic parameter is left empty (`HTTPCookies()`: `init()`, not
        # `init(dictionaryLiteral: (String, Value)...)`)
        fixed = [
            g
            for g in fits
            if not any((p.type or "").rstrip().endswith("...") for p in by_id[g].parameters)
        ]
        fits = (fixed or fits) if not labels else fits
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
            name = name.split("<", 1)[0].rstrip("?!").strip().removesuffix("...").strip()
            if not _fits_scalar(type_text, arg):
                return False  # `"a"` for an `Int` or a `[PathComponent]`
            if arg[:1] == "[":
                return self._takes_array(sym, file, type_text or "", arg[1:-1])
            t = self._type_name(file, self._nest(sym), name) if name.isidentifier() else None
            if t is not None and arg in _SCALARS and self.index.by_id[t].kind == "interface":
                # `grouped("sessions")`: a String is no `any Middleware` unless the repository
                # declares the conformance (`extension String: Middleware`)
                return (arg, self.index.by_id[t].name) in self._scalar_conformances()
            if t is None or self.index.by_id[t].kind == "interface" or arg == name:
                return True
            a = self._type_name(file, self._nest(sym), arg)
            return a is not None and t in self.index.mro(a)

        def repo_type(type_text: str | None) -> bool:
            """Whether a parameter's type is one the repository defines (no function type)."""
            name = _plain_type((type_text or "").replace("@escaping", ""))
            return name.isidentifier() and self._type_name(file, self._nest(sym), name) is not None

        return _takes(sym.parameters, labels, has, takes, repo_type)

    def _scalar_conformances(self) -> set[tuple[str, str]]:
        """(standard type, protocol) the repository declares on extensions of the standard
        types (recorded on their functions' bases)."""
        found = self._scalar_protocols
        if found is None:
            found = self._scalar_protocols = {
                (s.class_name, _plain_type(b))
                for f in self.files
                for s in f.symbols
                if s.class_name in _SCALARS and s.bases
                for b in s.bases
            }
        return found

    def _takes_array(self, sym: Symbol, file: FileResult, param: str, element: str) -> bool:
        """Whether a parameter written ``param`` takes an array of ``element``: never a
        variadic one (Swift passes no array to ``T...``); ``[T]`` when the element fits ``T``
        (the same type, a repository type's base; a library's ``T`` may be a protocol it
        conforms to); a repository struct, class or enum is no array."""
        p = param.replace("inout ", "").replace("any ", "").replace("some ", "").strip()
        p = p.rstrip("?!").strip()
        if p.endswith("..."):
            return False
        nest = self._nest(sym)
        if p[:1] == "[" and p[-1:] == "]" and ":" not in p:
            want = p[1:-1].strip()
            if want == element:
                return True
            w = self._type_name(file, nest, want) if want.isidentifier() else None
            a = self._type_name(file, nest, element)
            if w is None:
                if a is None or not want.isidentifier():
                    return True  # two library types, or one not written plainly: not known
                # a repository type's values are of a library type it is declared to conform to
                return any(
                    want in (_plain_type(b) for b in self.index.by_id[t].bases)
                    for t in self.index.mro(a)
                )
            return a is not None and w in self.index.mro(a)
        t = self._type_name(file, nest, p) if p.isidentifier() else None
        return t is None or self.index.by_id[t].kind == "interface"

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


# A Swift type as a name, as ``codebot.languages.swift`` writes receivers; memoised: the
# resolver asks for the same few hundred types over and over.
_plain_type = lru_cache(maxsize=4096)(plain_type)


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
                if closure and "@autoclosure" not in type_ and not _skipped(params, i):
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


def _closure_parameter_types(written: str) -> list[str] | None:
    """``@escaping @Sendable (Request) async throws -> Response`` -> [``Request``]: the
    parameter types of a function type (labels dropped: ``(_ req: Request)``); None when the
    text is no function type."""
    t = re.sub(r"@\w+|\b(?:sending|any|some|inout)\b", " ", written).strip()
    while t.startswith("(") and t.endswith(")?"):
        t = t[1:-2].strip()  # `((App) async throws -> Void)?`
    if not t.startswith("(") or "->" not in t:
        return None
    depth, parts, start = 0, [], 1
    for i, ch in enumerate(t):
        if ch in "([<":
            depth += 1
        elif ch in ")]>" and not (ch == ">" and t[i - 1 : i] == "-"):
            depth -= 1
            if depth == 0:
                parts.append(t[start:i])
                rest = t[i + 1 :].strip()
                if not re.match(r"(?:async\s+)?(?:throws\s+|rethrows\s+)?->", rest + " "):
                    return None
                break
        elif ch == "," and depth == 1:
            parts.append(t[start:i])
            start = i + 1
    else:
        return None
    out = []
    for part in parts:
        part = part.strip()
        if not part:
            continue
        if ":" in part.split("<", 1)[0]:
            part = part.split(":", 1)[1]
        out.append(part.strip())
    return out


def _skipped(params: tuple[Parameter, ...], i: int) -> bool:
    """Swift's forward scan (SE-0286) passes over a defaulted parameter for the trailing
    closure when a later parameter needs an argument: ``withApp { app in }`` with
    ``withApp(configure: ((App) -> Void)? = nil, _ test: (App) -> T)`` fills ``test``."""
    if params[i].default is None:
        return False
    return any(
        q.default is None and not (q.type or "").rstrip().endswith("...") for q in params[i + 1 :]
    )


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

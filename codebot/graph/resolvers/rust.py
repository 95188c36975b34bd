"""Rust: ``use`` paths through the crate's module tree, ``impl`` methods, ``Self::``.

A crate is rooted at the nearest ``src`` directory above a file (``lib.rs``/``main.rs`` are the
root module, ``a/mod.rs`` and ``a.rs`` are module ``a``); a file outside ``src`` (tests,
examples) is a crate of its own that may name a package of the repository by its directory
name. A path (``crate::store::disk::DiskStore``, ``super::model::Item``, ``self::x``) walks the
file modules, then the inline modules and items inside the last file. Methods of ``impl`` blocks
are members of their type, and trait methods reach the implementing types' methods; ``self`` is
an instance of the impl's type and ``Self`` the type.
"""

from __future__ import annotations

import posixpath
import re

from codebot.core.model import FileResult, Import, Symbol
from codebot.graph.resolvers.base import (
    AMBIGUOUS,
    DECL,
    EXACT,
    EXTERNAL,
    EXTERNAL_CALL,
    INST,
    MOD,
    NOT_LOCAL,
    SYM,
    UNRESOLVED,
    Ctx,
    Dialect,
    Outcome,
    Resolver,
    Target,
)
from codebot.graph.resolvers.names import TYPES, strip_duplicate

_BUILTINS = frozenset(
    """Some None Ok Err Box Vec String Option Result HashMap HashSet BTreeMap BTreeSet VecDeque
    Rc Arc Weak RefCell Cell Mutex RwLock Default Clone From Into TryFrom TryInto Iterator
    IntoIterator ToString ToOwned AsRef AsMut Debug Display PhantomData Duration Instant drop
    std core alloc u8 u16 u32 u64 u128 usize i8 i16 i32 i64 i128 isize f32 f64 bool char str
    format panic todo unimplemented unreachable assert assert_eq vec""".split()
)
_PRIMITIVES = frozenset(
    "i8 i16 i32 i64 i128 isize u8 u16 u32 u64 u128 usize f32 f64 bool char str String".split()
)
_STOP = frozenset(
    """new clone into from unwrap unwrap_or unwrap_or_else unwrap_or_default expect map
    map_err and_then or_else ok_or ok_or_else ok err is_some is_none is_ok is_err iter
    iter_mut into_iter collect push pop insert remove get get_mut len is_empty as_ref as_mut
    as_str as_slice to_string to_owned to_vec borrow borrow_mut lock read write send recv
    poll next fmt default eq ne cmp partial_cmp hash contains extend take replace split join
    trim parse with_capacity capacity clear drain filter find any all count sum min max rev
    chain zip enumerate skip fold flat_map for_each cloned copied entry or_insert
    or_insert_with keys values spawn await""".split()
)


class RustResolver(Resolver):
    capitalized_types = True
    family = "rust"
    dialect = Dialect(separators=r"::", angle_generics=True, prefixes=("await ",))
    self_names = frozenset({"self"})
    class_self_names = frozenset({"Self"})
    super_names = frozenset()
    stop_names = _STOP
    builtins = _BUILTINS

    def prepare(self) -> None:
        index = self.index
        self.mods: dict[tuple[str, tuple[str, ...]], FileResult] = {}
        self.place: dict[str, tuple[str, tuple[str, ...]]] = {}  # file module -> (root, path)
        self.crates: dict[str, str] = {}  # crate name -> root directory
        for f in self.files:
            root, path = _module_path(f.path)
            self.mods.setdefault((root, path), f)
            self.place[f.module] = (root, path)
            if posixpath.basename(root) == "src":
                package = posixpath.basename(posixpath.dirname(root))
                if package:
                    self.crates.setdefault(package.replace("-", "_"), root)
        # every module name of the repository's files: a path head none of them is, which no
        # scope binds, is another crate's (`tracing_subscriber::fmt::layer()`)
        self.module_names = {p for _, path in self.mods for p in path}
        self.inline: dict[str, set[str]] = {}  # file module -> qualified prefixes inside it
        for f in self.files:
            prefixes: set[str] = set()
            for local in index.local.get(f.module, {}):
                parts = local.split(".")
                for i in range(1, len(parts)):
                    prefixes.add(".".join(parts[:i]))
            self.inline[f.module] = prefixes
        self._attach()
        self._scopes: dict[str, tuple[dict[str, object], list[Import]]] = {}
        self._resolving: set[tuple[str, str, int]] = set()
        self._names: dict[tuple[str, str, str], Target | None] = {}  # (module, name, nest)
        for f in self.files:
            for s in f.symbols:
                if s.kind in TYPES:
                    self._resolve_bases(s, f)

    def _attach(self) -> None:
        index = self.index
        by_crate: dict[tuple[str, str], list[str]] = {}
        for f in self.files:
            root = self.place[f.module][0]
            for s in f.symbols:
                if s.kind in TYPES:
                    by_crate.setdefault((root, s.name), []).append(s.id)
        for f in self.files:
            local = index.local.get(f.module, {})
            for s in f.symbols:
                if s.kind != "method" or s.parent is not None or not s.class_name:
                    continue
                owner = strip_duplicate(index.local_name[s.id]).rsplit(".", 1)[0]
                t = local.get(owner)
                if not index.is_type(t):
                    found = by_crate.get((self.place[f.module][0], s.class_name), [])
                    t = found[0] if len(found) == 1 else None
                if t is not None:
                    index.attach(t, s.id)
                    self.attached[s.id] = t

    def base_type(self, sym: Symbol, file: FileResult, text: str) -> str | None:
        return self._type(file, text)

    def _type(self, file: FileResult, text: str) -> str | None:
        t = text.strip()
        for word in ("&mut ", "&", "mut ", "dyn ", "impl ", "'static "):
            t = t.replace(word, "")
        t = t.split("<", 1)[0].strip()
        if t in ("Self", "self"):
            return None
        segs = t.split("::")
        if not all(s.isidentifier() for s in segs):
            return None
        target = self._path(file, segs)
        return (
            target[1]
            if target is not None and target[0] == SYM and self.index.is_type(target[1])
            else None
        )

    # --- paths ----------------------------------------------------------------------------------

    def _scope(self, file: FileResult) -> tuple[dict[str, object], list[Import]]:
        found = self._scopes.get(file.module)
        if found is None:
            names: dict[str, object] = {}
            globs: list[Import] = []
            for imp in file.imports:
                if imp.name == "*":
                    globs.append(imp)
                else:
                    key = imp.alias or imp.name or imp.module.split("::")[-1]
                    names[key] = imp
            found = (names, globs)
            self._scopes[file.module] = found
        return found

    def _path(
        self, file: FileResult, segs: list[str], nest: list[str] | None = None
    ) -> Target | None:
        """A path as written in a file (``crate::a::B``, ``B::new``, ``helper``) -> a target."""
        root, path = self.place[file.module]
        first = segs[0]
        if first == "crate":
            target: Target | None = self._module(root, ())
        elif first == "self":
            target = (MOD, f"{file.module}\0")
        elif first == "super":
            target = self._module(root, path[:-1]) if path else None
        elif first in self.crates and first not in self._scope(file)[0]:
            target = self._module(self.crates[first], ())
        else:
            target = self._name(file, first, nest or [])
        for s in segs[1:]:
            if target is None or target[0] not in (MOD, SYM):
                return target
            if s == "super" and target[0] == MOD:
                module = target[1].split("\0")[0]
                r, p = self.place.get(module, (root, ()))
                target = self._module(r, p[:-1])
                continue
            target = self.member(target, s)
        return target

    def _module(self, root: str, path: tuple[str, ...]) -> Target | None:
        f = self.mods.get((root, path))
        return (MOD, f"{f.module}\0") if f is not None else None

    def _name(self, file: FileResult, name: str, nest: list[str]) -> Target | None:
        key = (file.module, name, len(nest))
        if key in self._resolving or len(self._resolving) > 64:
            return None  # `use a::*` inside `a`, a cycle or a very long chain of re-exports
        outermost = not self._resolving
        if outermost:  # (a result inside a chain may be one a cycle guard cut short)
            memo = (file.module, name, ".".join(nest))
            if memo in self._names:
                return self._names[memo]
        self._resolving.add(key)
        try:
            found = self._find_name(file, name, nest)
        finally:
            self._resolving.discard(key)
        if outermost:
            self._names[memo] = found
        return found

    def _find_name(self, file: FileResult, name: str, nest: list[str]) -> Target | None:
        local = self.index.local.get(file.module, {})
        for i in range(len(nest), -1, -1):  # items of the inline modules around, then the file
            q = ".".join([*nest[:i], name])
            if q in local:
                return (SYM, local[q])
            if q in self.inline.get(file.module, ()):
                return (MOD, f"{file.module}\0{q}")
        names, globs = self._scope(file)
        value = names.get(name)
        if isinstance(value, Import):
            names[name] = None
            value = self._import(file, value)
            names[name] = value
        if value is not None:
            return value  # type: ignore[return-value]
        root, path = self.place[file.module]
        child = self._module(root, (*path, name))  # `mod x;` declared here
        if child is not None:
            return child
        for imp in globs:
            base = self._path(file, imp.module.split("::"))
            if base is not None and base[0] == MOD:
                t = self.module_member(base, name)
                if t is not None:
                    return t
        return EXTERNAL if name in _BUILTINS else None

    def _import(self, file: FileResult, imp: Import) -> Target | None:
        segs = imp.module.split("::") + ([imp.name] if imp.name else [])
        if segs[0] not in ("crate", "self", "super") and segs[0] not in self.crates:
            root, path = self.place[file.module]
            if (
                self._module(root, (*path, segs[0])) is None
                and self._module(root, (segs[0],)) is None
            ):
                return EXTERNAL  # another crate: a library
        target = self._path(file, segs)
        if target is None and segs[0] not in ("crate", "self", "super"):
            root, _ = self.place[file.module]  # 2015 edition: paths from the crate root
            target = self._path(file, ["crate", *segs])
        return target

    def module_member(self, target: Target, name: str) -> Target | None:
        module, _, prefix = target[1].partition("\0")
        if name == "super":  # `super::super::f()`: out of an inline module, or the file's
            if prefix:
                return (MOD, f"{module}\0{prefix.rpartition('.')[0]}")
            root, path = self.place.get(module, ("", ()))
            return self._module(root, path[:-1]) if path else None
        q = f"{prefix}.{name}" if prefix else name
        hit = self.index.local.get(module, {}).get(q)
        if hit is not None:
            return (SYM, hit)
        if q in self.inline.get(module, ()):
            return (MOD, f"{module}\0{q}")
        if not prefix and module in self.place:
            root, path = self.place[module]
            child = self._module(root, (*path, name))
            if child is not None:
                return child
            file = self.index.modules.get(module)
            if file is not None:
                names, globs = self._scope(file)
                if name in names or globs:
                    # a `pub use` re-export, or a name a glob brings in (`pub use self::a::*`,
                    # `use super::*` in a child module: the parent's imports as well)
                    found = self._name(file, name, [])
                    return found if found != EXTERNAL or name in names else None
        return None

    # --- calls ----------------------------------------------------------------------------------

    def param_named(self, param: str, name: str) -> bool:
        return param == name and name != "self"  # `self` is the receiver, resolved elsewhere

    def param_type(self, ctx: Ctx, fn: Symbol, text: str) -> str | None:
        return self._type(ctx.file, text)

    def declared_type(self, ctx: Ctx, text: str) -> Target | None:
        """A binding's type: the repository's, a library's (a primitive, `std`'s, another
        crate's), or None. A smart pointer derefs to what it holds (`Arc<Track>` is a Track)."""
        text = _unwrap(text)
        t = self._type(ctx.file, text)
        if t is not None:
            return (DECL, t)
        name = text.strip()
        for word in ("&mut ", "&", "mut ", "dyn ", "impl "):
            name = name.replace(word, "")
        name = name.split("<", 1)[0].strip()
        if name in _PRIMITIVES:
            return EXTERNAL
        head = name.split("::", 1)[0]
        if not head.isidentifier() or head in ("Self", "self", "crate", "super"):
            return None
        found = self.lookup(ctx, head)
        if found is None and _CRATE_PATH.match(name) and head not in self.module_names:
            # `reqwest::RequestBuilder`, `matchit::Router<RouteId>`: a path from a crate that
            # is neither the repository's nor one of its modules (as for calls, resolve_call)
            return EXTERNAL if head not in self.crates else None
        return EXTERNAL if found == EXTERNAL else None

    def external_member(self, ctx: Ctx, type_text: str | None, rest: str) -> Outcome | None:
        """A library type's method, unless a trait of the repository has a method of that name
        (it may be implemented for the library type)."""
        if not rest.isidentifier():
            return None
        for sid in self.index.names.get((self.family, rest), ()):
            owner = self.owner_type(sid)
            if owner is None or self.index.by_id[owner].kind == "trait":
                return None
        return EXTERNAL_CALL

    def lookup(self, ctx: Ctx, name: str) -> Target | None:
        local = self.local(ctx, name)
        if local is not NOT_LOCAL:
            return local
        if name == "crate":
            return self._path(ctx.file, [name])  # `crate::a::f()`
        if name == "super" or (name == "self" and ctx.cls is None):
            return self._relative(ctx, name)  # `super::f()`, `self::f()`
        nest = self.index.local_name[ctx.sym.id].split(".")[:-1]
        found = self._name(ctx.file, name, nest)
        if found is None and name in self.crates:
            return self._module(self.crates[name], ())  # `axum::serve(...)` from an example
        return found

    def _relative(self, ctx: Ctx, name: str) -> Target | None:
        """``self``/``super`` in a path, from inside the inline modules of a file (``mod tests
        { fn t() { super::f() } }``: ``super`` is the file's module) or from its top."""
        module = ctx.file.module
        nest = self.index.local_name[ctx.sym.id].split(".")[:-1]
        local = self.index.local.get(module, {})
        depth = 0  # how many of the outer names are inline modules (not types, not functions)
        while depth < len(nest) and local.get(".".join(nest[: depth + 1])) is None:
            depth += 1
        if depth == 0:
            return self._path(ctx.file, [name])
        keep = depth - 1 if name == "super" else depth
        return (MOD, f"{module}\0{'.'.join(nest[:keep])}")

    def resolve_call(self, ctx: Ctx, text: str) -> Outcome:
        out = super().resolve_call(ctx, text)
        if out == UNRESOLVED and _PATH.fullmatch(text):
            value = self._value_path(ctx, text.split("::"))
            if value is not None:
                return value
        if out == UNRESOLVED or out == AMBIGUOUS:
            m = _CRATE_PATH.match(text)
            if (
                m is not None
                and m[1] not in self.module_names
                and m[1] not in self.crates
                and self.lookup(ctx, m[1]) is None
            ):
                return EXTERNAL_CALL  # `tracing_subscriber::fmt::layer()`: another crate's
        return out

    def _value_path(self, ctx: Ctx, segs: list[str]) -> Outcome | None:
        """``axum::serve(..)`` where the crate root has both ``mod serve`` and ``pub use
        self::serve::serve``: a call names the function (values and modules are two
        namespaces; the walk took the module)."""
        target = self.member_path(self.lookup(ctx, segs[0]), segs[1:-1])
        if target is None or target[0] != MOD or "\0" in target[1].rstrip("\0"):
            return None
        file = self.index.modules.get(target[1].split("\0")[0])
        if file is None or segs[-1] not in self._scope(file)[0]:
            return None
        found = self._name(file, segs[-1], [])
        if found is not None and found[0] == SYM and self.index.is_callable(found[1]):
            return [(found[1], EXACT)]
        return None

    def member(self, target: Target, name: str) -> Target | None:
        found = super().member(target, name)
        if found is None and target[0] in (SYM, INST, DECL) and self._derives(target[1], name):
            return EXTERNAL  # `#[derive(Clone)]`: the compiler writes `clone`
        return found

    def _typed(self, ctx: Ctx, typed: tuple[str, str, str, str]) -> Outcome | None:
        out = super()._typed(ctx, typed)
        if out is None and typed[3] in _DERIVED_METHODS:
            _, op, what, name = typed
            t = self.declared_type(ctx, what) if op == ": " else self.value_of(ctx, what)
            if t is not None and t[0] in (INST, DECL) and self._derives(t[1], name):
                return EXTERNAL_CALL  # `(s = State::default()).clone`, State deriving Clone
        _, op, what, name = typed
        if out is None and op == ": " and name.isidentifier():
            if self.declared_type(ctx, what) is None:
                # A written type we cannot follow (`req: Request<B>` where axum-core's `Request`
                # is `type Request<T = Body> = http::Request<T>`, an alias of a library type; a
                # type parameter): the value is of that type, not of whatever type has the one
                # method of the name, so no unique-name guess; a name the repository defines
                # nowhere is still a library's
                found = self.index.names.get((self.family, name))
                return self.not_found(name) if found else EXTERNAL_CALL
        return out

    def _derives(self, type_id: str, name: str) -> bool:
        """Whether a repository type lacking method ``name`` has it by ``#[derive(..)]``."""
        traits = _DERIVED_METHODS.get(name)
        if traits is None or not self.index.is_type(type_id):
            return False
        if self.index.find_member(type_id, name)[0] is not None:
            return False
        for d in self.index.by_id[type_id].decorators:
            if d.startswith("derive("):
                derived = {t.strip().rsplit("::", 1)[-1] for t in d[7:].rstrip(")").split(",")}
                if derived & traits:
                    return True
        return False

    def returns(self, sym_id: str) -> Target | None:
        sym = self.index.by_id[sym_id]
        if not sym.return_type:
            return None
        if sym.return_type.strip() == "Self" and sym_id in self.attached:
            return (DECL, self.attached[sym_id])
        t = self._type(self.index.file_of[sym_id], sym.return_type)
        return (DECL, t) if t is not None else None

    def import_targets(self, file: FileResult) -> list[tuple[int, str]]:
        return []


# The methods a `#[derive(..)]` of these traits gives a type (the compiler's, or a library's)
_DERIVED_METHODS: dict[str, frozenset[str]] = {
    "clone": frozenset({"Clone"}),
    "clone_from": frozenset({"Clone"}),
    "default": frozenset({"Default"}),
    "fmt": frozenset({"Debug"}),
    "eq": frozenset({"PartialEq"}),
    "ne": frozenset({"PartialEq"}),
    "partial_cmp": frozenset({"PartialOrd"}),
    "cmp": frozenset({"Ord"}),
    "hash": frozenset({"Hash"}),
    "serialize": frozenset({"Serialize"}),
    "deserialize": frozenset({"Deserialize"}),
}
_PATH = re.compile(r"[A-Za-z_]\w*(?:::[A-Za-z_]\w*)+")
_CRATE_PATH = re.compile(r"([a-z_][a-z0-9_]*)::[A-Za-z_]")
_POINTERS = ("Arc<", "Rc<", "Box<", "std::sync::Arc<", "std::rc::Rc<")


def _unwrap(text: str) -> str:
    """``&Arc<Box<T>>`` -> ``T``: the type a method call on a smart pointer reaches."""
    t = text.strip().lstrip("&").removeprefix("mut ").strip()
    while t.endswith(">") and t.startswith(_POINTERS):
        t = t[t.index("<") + 1 : -1].strip().lstrip("&").removeprefix("mut ").strip()
    return t


def _module_path(path: str) -> tuple[str, tuple[str, ...]]:
    """``pkg/src/a/b.rs`` -> (``pkg/src``, (a, b)); ``pkg/src/a/mod.rs`` -> (..., (a,))."""
    parts = path.split("/")
    stem = posixpath.splitext(parts[-1])[0]
    dirs = parts[:-1]
    idx = max((i for i, d in enumerate(dirs) if d == "src"), default=-1)
    if idx < 0:
        return "/".join(dirs), () if stem in ("lib", "main", "mod") else (stem,)
    root = "/".join(dirs[: idx + 1])
    rel = dirs[idx + 1 :]
    if stem in ("mod",) or (not rel and stem in ("lib", "main")):
        return root, tuple(rel)
    return root, (*rel, stem)

"""Zig: files are structs, names are looked up in the containers around the call.

A file is a namespace (its top-level functions, types and aliases); ``const x =
@import("x.zig")`` binds the file of that path (relative to the importer's directory),
``@import("clap")`` the repository's one file ``clap.zig`` if there is one, else a package
(``std``, ``builtin``: external). ``const Allocator = std.mem.Allocator`` and ``const Self =
@This()`` are aliases, recorded by the parser as imports (``languages/zig.py``) and followed
here. A bare name is the enclosing container's declaration, then the file's.

``x.f()`` is ``T.f(x)`` when ``x`` is of type ``T``: a parameter's declared type (``self:
*Parser``), a local's (``var p: Parser``, ``const p = Parser.init(a)`` through ``init``'s return
type), a field's (``self.alloc.free``, the parser's annotation). A type that leads to the standard
library or a package makes the call external; a receiver of unknown type falls back to the
repository's one method of that name, within the files the caller's imports reach.
"""

from __future__ import annotations

import posixpath
import re

from codebot.core.model import FileResult
from codebot.graph.resolvers.base import (
    EXT,
    EXTERNAL,
    EXTERNAL_CALL,
    INST,
    MOD,
    SYM,
    UNRESOLVED,
    Ctx,
    Dialect,
    Outcome,
    Resolver,
    Target,
    split,
    typed_head,
)
from codebot.graph.resolvers.names import TYPES

__all__ = ["ZigResolver"]

_PRIMITIVES = frozenset(
    """u8 u16 u32 u64 u128 usize i8 i16 i32 i64 i128 isize f16 f32 f64 f80 f128 bool void
    anyerror anyopaque anytype type comptime_int comptime_float noreturn c_int c_uint c_long
    c_ulong c_char""".split()
)
# Methods of the standard library's containers, allocators, readers and writers: no fallback
# claims them for a repository method on a receiver of unknown type.
_STOP = frozenset(
    """init deinit append appendSlice appendAssumeCapacity items get getPtr getOrPut
    getOrPutValue put putNoClobber putAssumeCapacity contains remove swapRemove orderedRemove
    fetchRemove fetchPut free alloc create destroy dupe dupeZ realloc resize print write
    writeAll writeByte writeByteNTimes read readAll readByte next peek reset clear
    clearRetainingCapacity clearAndFree count len format parse toOwnedSlice ensureTotalCapacity
    ensureUnusedCapacity addOne pop insert iterator keyIterator valueIterator writer reader
    allocator hash eql lock unlock wait signal set unset isSet toSlice span slice close open
    seekTo getEndPos stat call run start stop add sub mul div""".split()
)
_TYPE_TEXT = re.compile(r"[A-Za-z_][\w]*(?:\.[A-Za-z_][\w]*)*")


class ZigResolver(Resolver):
    family = "zig"
    dialect = Dialect(separators="", prefixes=())
    self_names = frozenset()  # `self` is a parameter with a declared type
    super_names = frozenset()
    stop_names = _STOP
    builtins = _PRIMITIVES

    def prepare(self) -> None:
        self.by_path = {f.path: f for f in self.files}
        by_stem: dict[str, list[FileResult]] = {}
        for f in self.files:
            by_stem.setdefault(posixpath.splitext(posixpath.basename(f.path))[0], []).append(f)
        self.packages = {k: v[0].module for k, v in by_stem.items() if len(v) == 1}
        # module -> alias name -> [(first line, last line of the container it is in, Import)]
        self.aliases: dict[str, dict[str, list]] = {}
        for f in self.files:
            types = [s for s in f.symbols if s.kind in TYPES or s.kind == "function"]
            table: dict[str, list] = {}
            for imp in f.imports:
                if imp.alias is None:
                    continue
                around = [s for s in types if s.start_line < imp.line <= s.end_line]
                owner = max(around, key=lambda s: s.start_line).id if around else None
                table.setdefault(imp.alias, []).append((owner, imp))
            self.aliases[f.module] = table
        self._alias_cache: dict[tuple[str, str, str | None], Target | None] = {}

    # --- names ----------------------------------------------------------------------------------

    def _scopes(self, sym_id: str | None) -> list[str | None]:
        """The containers around a symbol, innermost first, then the file (None)."""
        out: list[str | None] = []
        cur = self.index.by_id.get(sym_id) if sym_id else None
        while cur is not None:
            if cur.kind in TYPES or (cur.kind == "function" and self.index.children.get(cur.id)):
                out.append(cur.id)
            cur = self.index.by_id.get(cur.parent) if cur.parent else None
        out.append(None)
        return out

    def _name(self, file: FileResult, scope: str | None, name: str) -> Target | None:
        """What ``name`` means at ``scope`` (a container's id, None for the file) of ``file``."""
        for owner in self._scopes(scope):
            if owner is not None:
                hit = self.index.children.get(owner, {}).get(name)
                if hit is not None:
                    return (SYM, hit)
            else:
                hit = self.index.local.get(file.module, {}).get(name)
                if hit is not None:
                    return (SYM, hit)
            for at, imp in self.aliases.get(file.module, {}).get(name, ()):
                if at == owner:
                    return self._alias(file, owner, imp)
        return EXTERNAL if name in _PRIMITIVES else None

    def _alias(self, file: FileResult, owner: str | None, imp) -> Target | None:
        key = (file.module, imp.alias, owner)
        if key in self._alias_cache:
            return self._alias_cache[key]
        self._alias_cache[key] = None  # `const a = b; const b = a;` must not loop
        target = self._import_target(file, owner, imp.module)
        if target is not None and imp.name:
            target = self.member_path(target, imp.name.split("."))
        self._alias_cache[key] = target
        return target

    def _import_target(self, file: FileResult, owner: str | None, module: str) -> Target | None:
        if module == "@This()":
            return (SYM, owner) if owner is not None else (MOD, file.module)
        if module.endswith(".zig"):
            path = posixpath.normpath(posixpath.join(posixpath.dirname(file.path), module))
            found = self.by_path.get(path)
            return (MOD, found.module) if found is not None else EXTERNAL
        if "." not in module and module.isidentifier():
            inner = self._name(file, owner, module)
            if inner is not None:
                return inner  # `const Allocator = std.mem.Allocator`: `std` of this scope
        package = self.packages.get(module)
        return (MOD, package) if package is not None else EXTERNAL

    def _type(self, file: FileResult, scope: str | None, text: str | None) -> Target | None:
        """The namespace a declared type names: ``*const Parser``, ``!Self``, ``?*std.Io.Writer``
        (a type's id, a file's module, EXTERNAL), or None."""
        if not text:
            return None
        t = text.rsplit("!", 1)[-1].strip()
        while t[:1] in ("*", "?") or t.startswith("const "):
            t = t[6:].strip() if t.startswith("const ") else t[1:].strip()
        if not _TYPE_TEXT.fullmatch(t):
            if t.split("(", 1)[0].split(".", 1)[0] in ("std", "builtin"):
                return EXTERNAL
            return None
        head, *rest = t.split(".")
        target = self._name(file, scope, head)
        return self.member_path(target, rest)

    # --- hooks ----------------------------------------------------------------------------------

    def lookup(self, ctx: Ctx, name: str) -> Target | None:
        for fn in ctx.chain:
            for p in fn.parameters:
                if p.name == name or p.name == f"comptime {name}":
                    return self._type(ctx.file, fn.id, p.type)
        return self._name(ctx.file, ctx.sym.id, name)

    def module_member(self, target: Target, name: str) -> Target | None:
        file = self.index.modules.get(target[1])
        return self._name(file, None, name) if file is not None else None

    def member(self, target: Target, name: str) -> Target | None:
        kind, value = target
        if kind == SYM and value in self.index.by_id:
            hit = self.index.children.get(value, {}).get(name)
            if hit is not None:
                return (SYM, hit)
            file = self.index.file_of[value]
            for at, imp in self.aliases.get(file.module, {}).get(name, ()):
                if at == value:  # `Parser.Self`, an alias a container declares
                    return self._alias(file, value, imp)
            return None
        return super().member(target, name)

    def call_result(self, target: Target | None) -> Target | None:
        if target is not None and target[0] == MOD:
            return None  # a file is no function
        return super().call_result(target)

    def returns(self, sym_id: str) -> Target | None:
        sym = self.index.by_id[sym_id]
        found = self._type(self.index.file_of[sym_id], sym.id, sym.return_type)
        if found is not None and found[0] == SYM:
            # an instance of a type; a generic type's function (`ArrayList(T)`): none we know
            return (INST, found[1]) if self.index.is_type(found[1]) else None
        return found

    def call_target(self, target: Target, recv: Target | None) -> Outcome:
        kind, value = target
        if kind == SYM and self.index.is_type(value):
            return UNRESOLVED  # a type is not called in Zig (`T{...}` makes one)
        return super().call_target(target, recv)

    def direct_imports(self, file: FileResult) -> set[str] | None:
        found = self._direct.get(file.module)
        if found is None:
            found = set()
            for imp in file.imports:
                target = self._import_target(file, None, imp.module)
                if imp.module.endswith(".zig") or imp.module in self.packages:
                    if target is not None and target[0] == MOD:
                        found.add(target[1])
            self._direct[file.module] = found
        return found

    def bare_fallback(self, ctx: Ctx, name: str) -> Outcome:
        return UNRESOLVED  # every name is declared in a scope around: a local's value

    def resolve_call(self, ctx: Ctx, text: str) -> Outcome:
        typed = typed_head(text) if text[:1] == "(" else None
        if typed is not None:
            # `(p: *Parser).step`, `(s = Store.init()).get`: through the type, which may be a
            # file (a namespace) or a library's
            if typed[1] == ": ":
                target = self._type(ctx.file, ctx.sym.id, typed[2])
            else:
                target = self.value_of(ctx, typed[2])
            pieces = split(typed[3], self.dialect, self._split)
            if target is not None and pieces is not None and len(pieces) == 1:
                if target[0] == INST:
                    target = (SYM, target[1])
                found = self.member(target, pieces[0][0])
                if found is not None and found[0] == EXT:
                    return EXTERNAL_CALL
                if found is not None:
                    return self.call_target(found, target)
                if target[0] == EXT:
                    return EXTERNAL_CALL
                return UNRESOLVED  # a field holding a function, a member we do not see
            text = f"{typed[0]}.{typed[3]}"
        if text.startswith("."):
            # A decl literal whose type the context gives but the parser could not read (a
            # field's, an argument's): a member of some type; no unique-name guess.
            return UNRESOLVED
        if text.startswith("(?)."):
            return self.member_fallback(text[4:], ctx)
        return super().resolve_call(ctx, text)

    def declared_type(self, ctx: Ctx, text: str) -> Target | None:
        return self._type(ctx.file, ctx.cls, text)

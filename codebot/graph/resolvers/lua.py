"""Lua: module tables, ``require`` and ``self``.

A Lua module is a file that returns a table (``local M = {} ... return M``); its functions are
recorded as methods of that table (``M.find``), so a name is looked up in the caller's file
first: a ``local function``, a table's method (``M.find``, ``self:close`` inside a method of
``M``), a global function. A table bound by ``local util = require("telescope.utils")`` is the
file ``.../telescope/utils.lua`` (or ``.../telescope/utils/init.lua``), and ``util.get`` is the
one function ``get`` of a table in it; so is ``require("telescope.utils").get`` written inline.
A global function defined in another file is found by its unique name (``unique_name``).
"""

from __future__ import annotations

import re

from codebot.core.model import FileResult
from codebot.graph.resolvers.base import (
    EXACT,
    EXTERNAL,
    EXTERNAL_CALL,
    MOD,
    NOT_LOCAL,
    SYM,
    UNIQUE,
    UNRESOLVED,
    Ctx,
    Dialect,
    Outcome,
    Resolver,
    Target,
)
from codebot.graph.resolvers.names import strip_duplicate

__all__ = ["LuaResolver"]

_REQUIRE = re.compile(r"""require\s*\(?\s*["']([\w.\-/]+)["']\s*\)?\s*[.:]\s*([A-Za-z_]\w*)""")
_SEP = "\0"  # a MOD target's value: "<module>\0<table>" (a table of the file: "" for any)


class LuaResolver(Resolver):
    family = "lua"
    dialect = Dialect(separators=r":", prefixes=())
    self_names = frozenset()  # `self` is the table of the method around the call (lookup)
    super_names = frozenset()
    builtins = frozenset(
        """assert collectgarbage dofile error getmetatable ipairs load loadfile next pairs pcall
        print rawequal rawget rawlen rawset require select setmetatable tonumber tostring type
        unpack xpcall coroutine debug io math os package string table utf8 vim bit jit""".split()
    )
    stop_names = frozenset(
        """new setup get set call run close open start stop add remove find insert format
        match gsub sub len concat sort render update init reset""".split()
    )

    def prepare(self) -> None:
        # require paths -> modules: `lua/telescope/utils.lua` answers `telescope.utils`,
        # `utils`...; `.../init.lua` answers its directory's path.
        self.required: dict[str, list[str]] = {}
        for f in self.files:
            parts = f.module.split(".")
            if parts[-1] == "init" and len(parts) > 1:
                parts = parts[:-1]
            for i in range(len(parts)):
                self.required.setdefault(".".join(parts[i:]), []).append(f.module)
        self._imports: dict[str, dict[str, str]] = {}
        self._self_call = False  # the call being resolved is `x:f()` (see resolve_call)

    def _module(self, path: str) -> str | None:
        found = self.required.get(path.replace("/", "."))
        return found[0] if found and len(found) == 1 else None

    def _aliases(self, file: FileResult) -> dict[str, str]:
        found = self._imports.get(file.module)
        if found is None:
            found = {}
            for imp in file.imports:
                if imp.alias:
                    module = self._module(imp.module)
                    found[imp.alias] = module if module is not None else ""
            self._imports[file.module] = found
        return found

    def direct_imports(self, file: FileResult) -> set[str] | None:
        return None  # a table of another file is often passed around, never required

    def lookup(self, ctx: Ctx, name: str) -> Target | None:
        module = ctx.file.module
        if name == "self":  # `function M:close()` takes `self`, the table `M`
            owner = ctx.chain[-1].class_name if ctx.chain else None
            return (MOD, f"{module}{_SEP}{owner}") if owner else None
        local = self.local(ctx, name)
        if local is not NOT_LOCAL:
            return local
        table = self.index.local.get(module, {})
        hit = table.get(name)
        if hit is not None and self.index.is_callable(hit):
            return (SYM, hit)
        aliases = self._aliases(ctx.file)
        if name in aliases:
            return (MOD, f"{aliases[name]}{_SEP}") if aliases[name] else EXTERNAL
        if hit is not None or any(k.startswith(name + ".") for k in table):
            return (MOD, f"{module}{_SEP}{name}")  # a table of this file
        if name in self.builtins:
            return EXTERNAL
        return None

    def module_member(self, target: Target, name: str) -> Target | None:
        module, _, table = target[1].partition(_SEP)
        names = self.index.local.get(module, {})
        if table:
            hit = names.get(f"{table}.{name}")
            if hit is not None:
                return (SYM, hit) if self.index.is_callable(hit) else None
            return (MOD, f"{module}{_SEP}{table}.{name}")
        # A required module: the function of that name in one of its tables, or a global one
        hits = {
            strip_duplicate(sid)
            for q, sid in names.items()
            if (q == name or q.endswith("." + name)) and q.count(".") <= 1 and "#" not in q
        }
        hits = {h for h in hits if self.index.is_callable(h)}
        return (SYM, hits.pop()) if len(hits) == 1 else None

    def resolve_call(self, ctx: Ctx, text: str) -> Outcome:
        m = _REQUIRE.match(text)
        if m is not None:  # `require("telescope.actions").close`
            module = self._module(m[1])
            if module is None:
                return EXTERNAL_CALL
            hit = self.module_member((MOD, f"{module}{_SEP}"), m[2])
            return [(hit[1], EXACT)] if hit is not None else UNRESOLVED
        # `x:f()` passes `x` as self: a method of some class; `x.f()` reads a field of `x`,
        # often a function stored there (a sorter's `highlighter`), not a class's method.
        self._self_call = text.rpartition(":")[2].isidentifier() and ":" in text
        return super().resolve_call(ctx, text)

    def bare_fallback(self, ctx: Ctx, name: str) -> Outcome:
        """A global function defined in another file: the one of that name, if only one."""
        if name in self.builtins:
            return EXTERNAL_CALL
        ids = self.index.names.get((self.family, name))
        if not ids:
            return EXTERNAL_CALL
        plain = [i for i in ids if self.index.by_id[i].kind == "function"]
        local = self.index.local_name
        globals_ = [i for i in plain if "." not in strip_duplicate(local[i])]
        if len(globals_) == 1:
            return [(globals_[0], UNIQUE)]
        return self.not_found(name)

    def fallback_candidate(self, sid: str) -> bool:
        """On a value of unknown type, ``x:f()`` may be any class's method ``f``; ``x.f()`` only
        one defined to be called so on an instance (``function Class:f()``): a module table's
        function (``function M.f()``) is reached through ``require``, not guessed."""
        sym = self.index.by_id[sid]
        if sym.kind != "method":
            return False
        return self._self_call or f":{sym.name}" in sym.signature

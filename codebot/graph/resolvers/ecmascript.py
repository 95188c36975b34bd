"""JavaScript, TypeScript, TSX: ES modules and CommonJS, classes, object literals, TS types.

An import specifier resolves like a bundler would, as far as paths tell: relative to the importing
file, with or without its extension, or to ``index`` in a directory. A scoped package of the same
monorepo (``@trpc/server/http``) resolves to ``<dir>/server/src/http`` or ``<dir>/server/http``
when exactly one file matches; ``@/x`` and ``~/x`` (path aliases) to the one file ending in
``x``. Anything else is a library. A module's exports are its top-level definitions, its
``export default`` (``<module>.default`` or a definition signed ``export default``), the names it
re-exports and its ``export *`` sources, followed through as many files as they chain.
"""

from __future__ import annotations

import posixpath
import re

from codebot.core.model import VALUE_KINDS, FileResult, Import, Symbol
from codebot.graph.resolvers.base import (
    DECL,
    EXTERNAL,
    INST,
    MOD,
    NOT_LOCAL,
    SYM,
    Ctx,
    Dialect,
    Resolver,
    Target,
)
from codebot.graph.resolvers.names import TYPES

# `export const name: Type = value`: a module variable's declared type and its value, as signed.
_VARIABLE = re.compile(
    r"(?:export\s+)?(?:declare\s+)?(?:const|let|var)\s+[\w$]+\s*(?::\s*(?P<type>[^=]+?))?\s*"
    r"(?:=\s*(?P<value>.+))?",
    re.S,
)
# A value the resolver can follow: `new T(...)`, `make(...)`, `a.b.make<T>(...)`, one call.
_CALLED_VALUE = re.compile(
    r"(?P<new>new\s+)?(?P<callee>[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*){0,3})"
    r"\s*(?:<[^()]*>)?\s*\((?P<args>.*)\)",
    re.S,
)
_EXTENSIONS = (".d.ts", ".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs")
_GLOBALS = frozenset(
    """Object Array String Number Boolean Symbol BigInt Math JSON Date RegExp Error TypeError
    RangeError SyntaxError ReferenceError EvalError URIError AggregateError Promise Proxy Reflect
    Map Set WeakMap WeakSet WeakRef ArrayBuffer SharedArrayBuffer DataView Int8Array Uint8Array
    Uint8ClampedArray Int16Array Uint16Array Int32Array Uint32Array Float32Array Float64Array
    BigInt64Array BigUint64Array Intl console process Buffer globalThis window document navigator
    location history localStorage sessionStorage fetch Request Response Headers FormData URL
    URLSearchParams AbortController AbortSignal Blob File FileReader TextEncoder TextDecoder
    ReadableStream WritableStream TransformStream WebSocket EventSource Event CustomEvent
    EventTarget MessageChannel BroadcastChannel Worker setTimeout clearTimeout setInterval
    clearInterval setImmediate clearImmediate queueMicrotask structuredClone requestAnimationFrame
    cancelAnimationFrame parseInt parseFloat isNaN isFinite encodeURIComponent decodeURIComponent
    encodeURI decodeURI escape unescape atob btoa eval require module exports __dirname
    __filename import describe it test expect vi jest beforeEach afterEach beforeAll afterAll
    suite bench expectTypeOf assertType performance crypto alert confirm prompt getComputedStyle
    matchMedia IntersectionObserver ResizeObserver MutationObserver HTMLElement Node Element
    NaN Infinity undefined Function""".split()
)
# Methods of the language's and the platform's objects (arrays, strings, maps, promises, streams,
# emitters, the DOM): a unique definition in the repository does not make `x.name()` call it.
_STOP = frozenset(
    """at concat copyWithin entries every fill filter find findIndex findLast findLastIndex flat
    flatMap forEach includes indexOf join keys lastIndexOf map pop push reduce reduceRight
    reverse shift slice some sort splice toLocaleString toString unshift values with charAt
    charCodeAt codePointAt endsWith localeCompare match matchAll normalize padEnd padStart repeat
    replace replaceAll search split startsWith substring toLowerCase toUpperCase trim trimEnd
    trimStart valueOf get set has delete clear add then catch finally resolve reject all
    allSettled any race bind call apply toJSON toISOString getTime getFullYear on once off emit
    addListener removeListener removeAllListeners addEventListener removeEventListener
    dispatchEvent write end close destroy pipe read send json text blob arrayBuffer formData
    listen use next return throw log error warn info debug trace assert test exec parse
    stringify create assign freeze defineProperty getOwnPropertyNames hasOwnProperty isArray
    from of abort cancel enqueue getReader getWriter releaseLock subscribe unsubscribe
    querySelector querySelectorAll getElementById appendChild removeChild setAttribute
    getAttribute focus blur click preventDefault stopPropagation toBe toEqual toMatch
    toHaveBeenCalled toHaveBeenCalledWith toThrow mockReturnValue mockResolvedValue
    mockImplementation""".split()
)


class EcmaResolver(Resolver):
    family = "js"
    dialect = Dialect(angle_generics=True)
    self_names = frozenset({"this"})
    super_names = frozenset({"super"})
    ctor_names = ("constructor",)
    stop_names = _STOP
    builtins = _GLOBALS
    module_calls = True

    def prepare(self) -> None:
        self.stems: dict[str, FileResult] = {}
        self.by_module = {f.module: f for f in self.files}
        for f in sorted(self.files, key=lambda f: f.path):
            stem = _stem(f.path)
            self.stems.setdefault(stem, f)
            if stem.endswith(".d"):
                self.stems.setdefault(stem[:-2], f)
        self.suffixes: dict[str, list[str]] = {}
        for stem in self.stems:
            parts = stem.split("/")
            for i in range(1, len(parts)):
                self.suffixes.setdefault("/".join(parts[i:]), []).append(stem)
        self._scopes: dict[str, dict[str, object]] = {}
        self._specs: dict[tuple[str, str], FileResult | Target | None] = {}
        self._exporting: set[tuple[str, str]] = set()
        self._prefixes: dict[str, set[str]] = {}
        for f in self.files:
            names = set()
            for local in self.index.local.get(f.module, {}):
                parts = local.split(".")
                for i in range(1, len(parts)):
                    names.add(".".join(parts[:i]))
            self._prefixes[f.module] = names
        # A name defined more than once at the file's level: functions of the same name in
        # sibling callbacks (`describe(() => { const setup = ... })`, one per test), which the
        # parser numbers `setup`, `setup#2`... Module code calls the nearest one above it.
        self._repeated: dict[str, dict[str, list[tuple[int, str]]]] = {}
        self._values: dict[str, Target | None] = {}
        # Module variables: no scope's names (the resolvers see definitions only), but what they
        # hold is known when their declaration says it
        self._variables: dict[str, dict[str, str]] = {}
        for sid, sym in self.index.by_id.items():
            if sym.kind in VALUE_KINDS and sym.parent is None:
                local = self.index.local_name.get(sid, "")
                if local and "." not in local and "#" not in local:
                    module = self.index.file_of[sid].module
                    self._variables.setdefault(module, {}).setdefault(sym.name, sid)
        for f in self.files:
            for s in f.symbols:
                if s.kind in TYPES:
                    self._resolve_bases(s, f)
                if s.parent is None and s.kind != "chunk" and "#" in self.index.local_name[s.id]:
                    self._repeated.setdefault(f.module, {}).setdefault(s.name, [])
            repeated = self._repeated.get(f.module)
            if repeated:
                for s in f.symbols:
                    if s.parent is None and s.name in repeated and _binds_name(s):
                        local = self.index.local_name[s.id]
                        if "." not in local.split("#", 1)[0]:
                            repeated[s.name].append((s.start_line, s.id))

    def base_type(self, sym: Symbol, file: FileResult, text: str) -> str | None:
        t = self._path_value(file, text.split("<", 1)[0].strip())
        return t[1] if t is not None and t[0] == SYM and self.index.is_type(t[1]) else None

    def _path_value(self, file: FileResult, dotted: str) -> Target | None:
        parts = dotted.split(".")
        return self.member_path(self._global(file, parts[0]), parts[1:])

    # --- modules --------------------------------------------------------------------------------

    def _spec(self, importer: FileResult, spec: str) -> FileResult | Target | None:
        key = (importer.path, spec)
        if key not in self._specs:
            self._specs[key] = self._find_spec(importer, spec)
        return self._specs[key]

    def _find_spec(self, importer: FileResult, spec: str) -> FileResult | Target | None:
        if spec.startswith("."):
            joined = posixpath.normpath(posixpath.join(posixpath.dirname(importer.path), spec))
            return self._file_at(joined)
        if spec.startswith(("@/", "~/", "#/")):
            return self._by_suffix(spec[2:]) or None
        if spec.startswith("@") and "/" in spec:
            parts = spec.split("/")
            package, sub = parts[1], "/".join(parts[2:])
            for candidate in _monorepo_paths(package, sub):
                hit = self._by_suffix(candidate)
                if hit is not None:
                    return hit
        return EXTERNAL

    def _file_at(self, path: str) -> FileResult | None:
        stem = _stem(path)
        return self.stems.get(stem) or self.stems.get(stem + "/index") or self.stems.get(path)

    def _by_suffix(self, tail: str) -> FileResult | None:
        tail = _stem(tail)
        for t in (tail, tail + "/index"):
            found = self.suffixes.get(t)
            if found is not None and len(found) == 1:
                return self.stems[found[0]]
        return None

    def _scope(self, file: FileResult) -> dict[str, object]:
        scope = self._scopes.get(file.module)
        if scope is None:
            scope = {}
            # Imports first; a local name exported (`export { Hono }`, no module) does not
            # hide the import it re-exports
            for imp in sorted(file.imports, key=lambda i: not i.module):
                key = imp.alias or imp.name
                if imp.name != "*" and key and (imp.module or key not in scope):
                    scope[key] = imp
            for s in file.symbols:
                if s.parent is None and s.kind != "chunk":
                    local = self.index.local_name[s.id]
                    if "." in local or "#" in local:
                        continue
                    if _binds_name(s):
                        scope[s.name] = (SYM, s.id)
            self._scopes[file.module] = scope
        return scope

    def _global(self, file: FileResult, name: str) -> Target | None:
        scope = self._scope(file)
        value = scope.get(name)
        if isinstance(value, Import):
            scope[name] = None  # an import cycle resolves to nothing
            value = self._import(file, value)
            scope[name] = value
        if value is not None:
            return value  # type: ignore[return-value]
        variable = self._variables.get(file.module, {}).get(name)
        if variable is not None:
            # `export const initTRPC = new TRPCBuilder()`: never a callee, but a receiver whose
            # value the declaration tells
            return self.variable_value(variable)
        if name in self._prefixes.get(file.module, ()):
            return (MOD, f"{file.module}\0{name}")  # an object literal or TS namespace
        return EXTERNAL if name in _GLOBALS else None

    def _import(self, file: FileResult, imp: Import) -> Target | None:
        if not imp.module:  # `export { Hono as HonoBase }`: a name of this file, exported
            return self._global(file, imp.name) if imp.name and imp.name != imp.alias else None
        target = self._spec(file, imp.module)
        if not isinstance(target, FileResult):
            return target
        if imp.name is None:
            return (MOD, target.module)
        return self.export(target, imp.name)

    def export(self, file: FileResult, name: str) -> Target | None:
        key = (file.module, name)
        if key in self._exporting or len(self._exporting) > 64:
            return None  # a cycle, or a chain of re-exports too long to be real
        self._exporting.add(key)
        try:
            if name == "default":
                return self._default(file)
            t = self._global(file, name)
            if t is not None and (t != EXTERNAL or name in self._variables.get(file.module, ())):
                return t  # a library's global is no export; a variable holding a library value is
            for imp in file.imports:
                if imp.name == "*":
                    src = self._spec(file, imp.module)
                    if isinstance(src, FileResult):
                        t = self.export(src, name)
                        if t is not None:
                            return t
            return None
        finally:
            self._exporting.discard(key)

    def _default(self, file: FileResult) -> Target | None:
        local = self.index.local.get(file.module, {})
        if "default" in local:
            return (SYM, local["default"])
        if isinstance(self._scope(file).get("default"), Import):  # `export { app as default }`
            return self._global(file, "default")
        for s in file.symbols:
            if s.parent is None and s.kind != "chunk" and s.signature.startswith("export default"):
                return (SYM, s.id)
        return None

    def module_member(self, target: Target, name: str) -> Target | None:
        module, _, prefix = target[1].partition("\0")
        if prefix:
            local = f"{prefix}.{name}"
            hit = self.index.local.get(module, {}).get(local)
            if hit is not None:
                return (SYM, hit)
            if local in self._prefixes.get(module, ()):
                return (MOD, f"{module}\0{local}")
            return None
        file = self.by_module.get(module)
        return self.export(file, name) if file is not None else None

    # --- calls ----------------------------------------------------------------------------------

    def param_named(self, param: str, name: str) -> bool:
        return param.lstrip(".").rstrip("?") == name  # `...rest`, `opt?`

    def param_type(self, ctx: Ctx, fn: Symbol, text: str) -> str | None:
        return self._type(ctx.file, text)

    def lookup(self, ctx: Ctx, name: str) -> Target | None:
        local = self.local(ctx, name)
        if local is not NOT_LOCAL:
            return local
        found = self._global(ctx.file, name)
        if found is not None and found[0] == SYM and ctx.line:
            defs = self._repeated.get(ctx.file.module, {}).get(name)
            if defs and any(sid == found[1] for _, sid in defs):
                above = [sid for line, sid in defs if line <= ctx.line]
                return (SYM, above[-1] if above else defs[0][1])
        return found

    def _type(self, file: FileResult, text: str) -> str | None:
        parts = [p.strip() for p in text.split("|") if p.strip() not in ("undefined", "null")]
        if len(parts) != 1:
            return None
        name = parts[0].split("<", 1)[0].strip()
        if not name.replace(".", "").replace("_", "").replace("$", "").isalnum():
            return None
        t = self._path_value(file, name)
        return t[1] if t is not None and t[0] == SYM and self.index.is_type(t[1]) else None

    def member(self, target: Target, name: str) -> Target | None:
        if target[0] == SYM and not self.index.is_type(target[1]):
            # `Server.create = function`, `Server.prototype.listen = ...`: members of a function
            sid = target[1]
            if sid not in self.index.file_of:
                return None
            module = self.index.file_of[sid].module
            hit = self.index.local.get(module, {}).get(f"{self.index.local_name[sid]}.{name}")
            return (SYM, hit) if hit is not None else None
        return super().member(target, name)

    def variable_value(self, sid: str) -> Target | None:
        """What a module variable holds, as its declaration says at a glance: its declared type
        (`const x: T`), a `new T()`, or what one call returns (`createRouter()`, whose return
        type is declared); None for anything else (a literal, a chain of calls)."""
        if sid in self._values:
            return self._values[sid]
        self._values[sid] = None  # a variable defined through itself resolves to nothing
        sym = self.index.by_id[sid]
        file = self.index.file_of[sid]
        m = _VARIABLE.fullmatch(sym.signature.strip().rstrip(";"))
        out: Target | None = None
        if m is not None and m.group("type"):
            t = self._type(file, m.group("type").strip())
            out = (DECL, t) if t is not None else None
        elif m is not None and m.group("value") and sym.end_line == sym.start_line:
            call = _CALLED_VALUE.fullmatch(m.group("value").strip())
            if call is not None and _balanced(call.group("args")):
                head = self._path_value(file, call.group("callee"))
                if call.group("new"):
                    ok = head is not None and head[0] == SYM and self.index.is_type(head[1])
                    out = (INST, head[1]) if ok else None  # type: ignore[index]
                else:
                    out = self.call_result(head)
        self._values[sid] = out
        return out

    def returns(self, sym_id: str) -> Target | None:
        sym = self.index.by_id[sym_id]
        if not sym.return_type:
            return None
        t = self._type(self.index.file_of[sym_id], sym.return_type)
        return (DECL, t) if t is not None else None

    def direct_imports(self, file: FileResult) -> set[str] | None:
        found = self._direct.get(file.module)
        if found is None:
            found = set()
            for imp in file.imports:
                target = self._spec(file, imp.module)
                if isinstance(target, FileResult):
                    found.add(target.module)
            self._direct[file.module] = found
        return found

    def import_targets(self, file: FileResult) -> list[tuple[int, str]]:
        out: list[tuple[int, str]] = []
        for imp in file.imports:
            if imp.name == "*" or not imp.module:
                continue  # a wildcard; a local name exported (no module imported)
            t = self._import(file, imp) if imp.name or imp.alias else None
            if t is not None and t[0] == SYM:
                out.append((imp.line, t[1]))
            elif imp.name is None:
                target = self._spec(file, imp.module)
                if isinstance(target, FileResult) and target.module in self.index.first_chunk:
                    out.append((imp.line, self.index.first_chunk[target.module]))
        return out


def _binds_name(sym: Symbol) -> bool:
    """Whether a definition binds its name in a scope: not a property of an object literal
    passed in a call (`new Hono({ getPath: (req) => ... })`, `{ async load(x) {} }`), which the
    parser lists at the file's level but no code calls by its bare name."""
    sig, name = sym.signature.lstrip(), sym.name
    return not sig.startswith(
        (
            f"{name}:",
            f"{name}(",
            f"{name}<",
            f"async {name}(",
            f"*{name}(",
            f"'{name}'",
            f'"{name}"',
        )
    )


def _balanced(args: str) -> bool:
    """Whether ``args`` closes every bracket it opens: ``f(a)(b)`` is two calls, not one."""
    depth = 0
    for ch in args:
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
            if depth < 0:
                return False
    return depth == 0


def _stem(path: str) -> str:
    for ext in _EXTENSIONS:
        if path.endswith(ext):
            return path[: -len(ext)]
    return path


def _monorepo_paths(package: str, sub: str) -> list[str]:
    if not sub:
        return [f"{package}/src/index", f"{package}/index"]
    return [f"{package}/src/{sub}", f"{package}/{sub}"]

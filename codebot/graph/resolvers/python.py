"""Python: imports (absolute, relative, aliased, star, package re-exports), scopes and classes.

A module's scope is its top-level definitions over the names its imports bind; an import is
resolved only when a call needs it, and once. Import paths are matched against module ids
exactly, or as a suffix when the repository keeps its code under a directory that is not a
package (``src/pkg/mod.py`` is imported as ``pkg.mod``) and the match is unique.

Inside a function, names resolve through its nested definitions, its parameters (a parameter
shadows everything; an annotated one is an instance of its type) and the functions around it
(closures), then the module, then builtins. ``self``/``cls`` are a method's first parameter.
"""

from __future__ import annotations

import builtins
import sys

from codebot.core.model import FileResult, Import, Symbol
from codebot.graph.resolvers.base import (
    CLS,
    DECL,
    EXACT,
    EXT,
    EXTERNAL,
    EXTERNAL_CALL,
    IGNORED,
    LIBRARY_VALUE,
    MOD,
    SUPER,
    SYM,
    UNRESOLVED,
    Ctx,
    Dialect,
    Outcome,
    Resolver,
    Target,
)
from codebot.graph.resolvers.names import TYPES

_BUILTINS = frozenset(dir(builtins))
_STDLIB = frozenset(getattr(sys, "stdlib_module_names", ()))
_BUILTIN_TYPES = (list, dict, set, frozenset, str, bytes, bytearray, int, float, tuple, object)
# Method names of builtin types and of the standard library's most used objects (files, locks,
# loggers, futures, paths, regex matches, mocks): a unique definition of such a name in the
# repository is no evidence that `x.name()` calls it.
_STOP = frozenset(
    {n for t in _BUILTIN_TYPES for n in dir(t)}
    | {n for n in dir(BaseException)}
    | set(
        """read write close open flush readline readlines writelines seek tell send recv
        sendall connect bind listen accept start stop run wait cancel cancelled result done
        exception set_result set_exception add_done_callback get put get_nowait put_nowait
        acquire release locked search match fullmatch sub findall finditer group groups
        groupdict span debug info warning warn error critical log exists is_file is_dir mkdir
        unlink resolve read_text write_text read_bytes write_bytes iterdir glob rglob
        assert_called assert_called_once assert_called_with assert_called_once_with
        assert_not_called assert_any_call assert_awaited assert_awaited_once
        assert_awaited_once_with total_seconds isoformat strftime timestamp json text
        raise_for_status fileno shutdown submit map gather sleep create_task call_soon
        call_later run_until_complete run_forever feed_data feed_eof at_eof items keys values
        setdefault fromkeys most_common elements popleft appendleft cache_clear reset
        is_set set clear parse parse_args add_argument dumps loads dump load""".split()
    )
)
_IGNORED_DECORATOR_TAILS = (".setter", ".getter", ".deleter")
# Annotations that say nothing of where a value's methods come from: a parameter so annotated is
# of unknown type, not a library's.
_OPEN_TYPES = frozenset(
    "Any object Union Callable Type type TypeVar Protocol Self Generic ClassVar Awaitable "
    "Coroutine LiteralString Literal".split()
)
_NOT_PARAM = ("", "")  # a sentinel: the name is no parameter of the function
_MAX_CHAIN = 64  # re-exports followed through at most this many modules


class PythonResolver(Resolver):
    family = "python"
    dialect = Dialect(separators="", prefixes=("await ",))
    self_names = frozenset()  # `self` is a method's first parameter, whatever its name
    super_names = frozenset()  # `super()` is handled in `head`
    ctor_names = ("__init__",)
    ctor_inherited = True
    call_member = "__call__"
    stop_names = _STOP
    builtins = _BUILTINS
    module_calls = True
    # `getattr(o, name)()`, `importlib.import_module(name).f()`, `eval(text)()`: dynamic
    reflect_names = frozenset({"getattr", "import_module", "__import__", "eval", "attrgetter"})

    def prepare(self) -> None:
        self.pymods = {f.module: f for f in self.files}
        self.pkgs = {f.module for f in self.files if _is_init(f.path)}
        self.prefixes: set[str] = set()
        for m in self.pymods:
            parts = m.split(".")
            for i in range(1, len(parts)):
                self.prefixes.add(".".join(parts[:i]))
        # Every dotted suffix of a module id or package prefix -> the full ids it ends.
        self.suffixes: dict[str, set[str]] = {}
        for full in self.prefixes | set(self.pymods):
            parts = full.split(".")
            for i in range(1, len(parts)):
                self.suffixes.setdefault(".".join(parts[i:]), set()).add(full)
        self._scopes: dict[str, dict[str, object]] = {}
        self._stars: dict[str, list[Import]] = {}
        # Imports inside a function body bind in that function only: module -> [(start, end of
        # the function, the import)].
        self._local_imports: dict[str, list[tuple[int, int, Import]]] = {}
        self._returns: dict[str, Target | None] = {}
        self._exporting: set[tuple[str, str]] = set()
        self._memo_ctx: Ctx | None = None  # the caller whose calls _memo holds
        self._memo: dict[str, Outcome] = {}
        for f in self.files:
            for s in f.symbols:
                if s.kind in TYPES:
                    self._resolve_bases(s, f)

    def _resolve_bases(self, cls: Symbol, file: FileResult) -> None:
        ctx = self.context(cls, file)
        ctx.scope["bases"] = True
        found: list[str] = []
        open_ = False
        for text in cls.bases:
            t = self.value_of(ctx, _type_text(text))
            if t is not None and t[0] in (SYM, CLS) and self.index.is_type(t[1]):
                if t[1] != cls.id:
                    found.append(t[1])
            elif text not in ("object", "Protocol") and not text.startswith("Generic"):
                open_ = True
        self.index.set_bases(cls.id, found, open_)

    # --- scopes ---------------------------------------------------------------------------------

    def lookup(self, ctx: Ctx, name: str) -> Target | None:
        children = self.index.children
        for fn in ctx.chain:
            kids = children.get(fn.id)
            if kids is not None and name in kids:
                return (SYM, kids[name])
            bound = self._param(fn, name)
            if bound is not _NOT_PARAM:
                return bound
        body = ctx.scope.get("class_body")
        if body is None and ctx.sym.kind in TYPES and not ctx.scope.get("bases"):
            body = ctx.sym.id
        if body is not None:
            kids = children.get(body)
            if kids is not None and name in kids:
                return (SYM, kids[name])
        t = self._function_import(ctx, name)
        if t is not None:
            return t
        t = self._global(ctx.file.module, name)
        if t is not None:
            return t
        return EXTERNAL if name in _BUILTINS else None

    def _function_import(self, ctx: Ctx, name: str) -> Target | None:
        """A name an ``import`` inside one of the enclosing functions binds (``from ._impl import
        get_file`` in a ``get_file`` wrapper shadows the wrapper itself)."""
        module = ctx.file.module
        self._scope(module)  # sorts the file's imports into module and function ones
        for fn in ctx.chain:
            for start, end, imp in self._local_imports.get(module, ()):
                bound = imp.alias or (imp.name if imp.name else imp.module.split(".")[0])
                if bound == name and start == fn.start_line and imp.line <= end:
                    return self._import(module, imp)
        return None

    def _param(self, fn: Symbol, name: str) -> Target | None:
        params = fn.parameters
        if not params:
            return _NOT_PARAM
        for i, p in enumerate(params):
            if p.name.lstrip("*") != name:
                continue
            if i == 0 and fn.kind == "method" and fn.parent in self.index.by_id:
                if "staticmethod" in fn.decorators:
                    return None
                cls = fn.parent
                if "classmethod" in fn.decorators or fn.name in ("__new__", "__init_subclass__"):
                    return (CLS, cls)
                return (DECL, cls)
            if p.type and not p.name.startswith("*"):
                t = self._annotation(fn, p.type)
                if t is not None:
                    return (DECL, t)
                if self._library_annotation(fn, p.type):
                    return LIBRARY_VALUE  # its methods are the library's: no name fallback
            return None  # a parameter of unknown type shadows every other binding
        return _NOT_PARAM

    def _annotation(self, fn: Symbol, text: str) -> str | None:
        text = _type_text(text)
        if not text:
            return None
        file = self.index.file_of[fn.id]
        ctx = Ctx(fn, file, None, [], {"bases": True})
        t = self.value_of(ctx, text)
        return t[1] if t is not None and t[0] == SYM and self.index.is_type(t[1]) else None

    def _library_annotation(self, fn: Symbol, text: str) -> bool:
        """Whether an annotation names a type of a library or of the standard library (``str``,
        ``OrderedDict``, ``httpx.Client``), not one that may hold anything (``Any``, a union,
        a callable, a class object)."""
        text = _type_text(text)
        if not text or text.rsplit(".", 1)[-1] in _OPEN_TYPES:
            return False
        file = self.index.file_of[fn.id]
        return self.value_of(Ctx(fn, file, None, [], {"bases": True}), text) == EXTERNAL

    def _global(self, module: str, name: str) -> Target | None:
        scope = self._scope(module)
        if name in scope:
            return self._bound(module, scope, name)
        stars = self._stars.get(module, ())
        for imp in stars:
            base = self._from_base(module, imp)
            if isinstance(base, str):
                t = self.export(base, name)
                if t is not None:
                    return t
        if any(self._from_base(module, imp) == EXTERNAL for imp in stars):
            return EXTERNAL  # `from library import *` brought it, most likely
        return None

    def _scope(self, module: str) -> dict[str, object]:
        scope = self._scopes.get(module)
        if scope is not None:
            return scope
        scope = {}
        self._scopes[module] = scope
        file = self.pymods.get(module)
        if file is None:
            return scope
        stars: list[Import] = []
        functions = [
            (f.start_line, f.end_line) for f in file.symbols if f.kind in ("function", "method")
        ]
        local: list[tuple[int, int, Import]] = []
        self._local_imports[module] = local
        for imp in file.imports:
            inside = [span for span in functions if span[0] < imp.line <= span[1]]
            if inside:  # the innermost function's binding, not the module's
                start, end = max(inside)
                local.append((start, end, imp))
                continue
            if imp.name == "*":
                stars.append(imp)
            elif imp.name is None:
                key = imp.alias or imp.module.split(".")[0]
                if key:
                    scope[key] = imp
            else:
                scope[imp.alias or imp.name] = imp
        self._stars[module] = stars
        for s in file.symbols:
            if s.parent is None and s.kind != "chunk" and "." not in self.index.local_name[s.id]:
                scope[s.name] = (SYM, self.index.local[module].get(s.name, s.id))
        return scope

    def _bound(self, module: str, scope: dict[str, object], name: str) -> Target | None:
        value = scope[name]
        if not isinstance(value, Import):
            return value  # type: ignore[return-value]
        scope[name] = None  # a cycle of imports resolves to nothing
        resolved = self._import(module, value)
        scope[name] = resolved
        return resolved

    def _import(self, module: str, imp: Import) -> Target | None:
        if imp.name is None:
            if imp.alias:  # `import a.b as c`: c is a.b
                found = self._path(imp.module, module)
            else:  # `import a.b`: binds a
                found = self._path(imp.module.split(".")[0], module)
            return (MOD, found) if isinstance(found, str) else found
        base = self._from_base(module, imp)
        if not isinstance(base, str):
            return base
        return self.export(base, imp.name)

    def _from_base(self, module: str, imp: Import) -> str | Target | None:
        """The module id a `from ... import` reads from, EXTERNAL, or None (ambiguous)."""
        if imp.level == 0:
            return self._path(imp.module, module)
        file = self.pymods.get(module)
        parts = (
            module.split(".")
            if file is not None and _is_init(file.path)
            else module.split(".")[:-1]
        )
        up = imp.level - 1
        if up > len(parts):
            return None
        parts = parts[: len(parts) - up]
        if imp.module:
            parts.append(imp.module)
        full = ".".join(parts)
        return full if full in self.pymods or full in self.prefixes else None

    def _path(self, path: str, importer: str) -> str | Target | None:
        """A module path as imported -> the module id (or package prefix), EXTERNAL, or None."""
        if path in self.pymods or path in self.prefixes:
            return path
        if path.split(".")[0] in _STDLIB:
            return EXTERNAL
        found = self.suffixes.get(path)
        if not found:
            return EXTERNAL
        # `pkg.mod` may stand for `src.pkg.mod` only when `src` is no package itself.
        cands = [f for f in found if f[: -len(path) - 1] not in self.pkgs]
        if len(cands) == 1:
            return cands[0]
        root = importer.split(".")[0]
        same_root = [f for f in cands if f.split(".")[0] == root]
        return same_root[0] if len(same_root) == 1 else None

    def export(self, module: str, name: str) -> Target | None:
        """What ``from module import name`` gives: a definition, a re-export, a submodule."""
        key = (module, name)
        if key in self._exporting or len(self._exporting) > _MAX_CHAIN:
            return None  # a cycle, or a chain of re-exports too long to be real
        self._exporting.add(key)
        try:
            if module in self.pymods:
                t = self._global(module, name)
                if t is not None:
                    return t
            sub = f"{module}.{name}"
            if sub in self.pymods or sub in self.prefixes:
                return (MOD, sub)
            return None
        finally:
            self._exporting.discard(key)

    def module_member(self, target: Target, name: str) -> Target | None:
        return self.export(target[1], name)

    # --- calls ----------------------------------------------------------------------------------

    def resolve_call(self, ctx: Ctx, text: str) -> Outcome:
        """A call the parser annotated with what its head name is bound to (``(a = f | g)``,
        ``(x = C()).m``; see ``languages/python.py``): through each value, as a reader follows
        an assignment; as written when no value resolves."""
        # What a text resolves to depends on its caller, not on its line, and a function often
        # makes the same call again (38% of the standard library's calls): resolved once each.
        if ctx is not self._memo_ctx:
            self._memo_ctx, self._memo = ctx, {}
        out = self._memo.get(text)
        if out is None:
            out = self._memo[text] = self._resolve_call(ctx, text)
        return out

    def _resolve_call(self, ctx: Ctx, text: str) -> Outcome:
        if text[:1] == "(":
            bound = _bound(text)
            if bound is not None:
                expr, values, rest = bound
                out = self._through(ctx, values, rest)
                if out is not None:
                    return out
                text = expr + rest
        return self._written(ctx, text)

    def _written(self, ctx: Ctx, text: str) -> Outcome:
        """A call as written (no bound value in it)."""
        out = super().resolve_call(ctx, text)
        if out == UNRESOLVED:
            return self._subclass_members(ctx, text) or out
        return out

    def _subclass_members(self, ctx: Ctx, text: str) -> Outcome | None:
        """``self.m()`` in a class that has no ``m`` (and no base that might): the ``m`` its
        subclasses define, one of which ``self`` must be when the call runs. The fan-out to
        subclasses is this one place."""
        head, dot, name = text.partition(".")
        if not dot or not name.isidentifier() or not ctx.chain:
            return None
        target = self.lookup(ctx, head)
        if target is None or target[0] not in (DECL, CLS) or not self.index.is_type(target[1]):
            return None
        more = self.index.overrides(target[1], name)
        return [(o, EXACT) for o in more] or None

    def _through(self, ctx: Ctx, values: list[str], rest: str) -> Outcome | None:
        edges: list[tuple[str, str]] = []
        external = False
        for value in values:
            if ".<locals>." in value:
                out = self._nested(ctx, value) if not rest else UNRESOLVED
            else:
                out = self._written(ctx, value + rest)
            if isinstance(out, list):
                edges += [e for e in out if e not in edges]
            elif out == EXTERNAL_CALL:
                external = True
        if edges:
            return edges
        return EXTERNAL_CALL if external else None

    def _nested(self, ctx: Ctx, value: str) -> Outcome:
        """``make.<locals>.inner``: the function ``make`` defines as ``inner`` (and returns);
        ``a.<locals>.b.<locals>.c`` for one nested deeper."""
        outer, *names = value.split(".<locals>.")
        t = self.value_of(ctx, outer)
        if t is None or t[0] != SYM or not self.index.is_callable(t[1]):
            return UNRESOLVED
        hit: str | None = t[1]
        for name in names:
            hit = self.index.children.get(hit, {}).get(name) if hit is not None else None
        return [(hit, EXACT)] if hit is not None else UNRESOLVED

    def head(self, ctx: Ctx, name: str, how: int, alone: bool) -> Target | Outcome | None:
        if name == "super" and self._global(ctx.file.module, "super") in (None, EXTERNAL):
            if alone or ctx.cls is None:
                return EXTERNAL_CALL  # the `super()` call itself: a builtin
            return (SUPER, ctx.cls)
        return super().head(ctx, name, how, alone)

    def returns(self, sym_id: str) -> Target | None:
        if sym_id not in self._returns:
            sym = self.index.by_id[sym_id]
            t = self._annotation(sym, sym.return_type) if sym.return_type else None
            self._returns[sym_id] = (DECL, t) if t is not None else None
        return self._returns[sym_id]

    def value_of(self, ctx: Ctx, text: str) -> Target | None:
        """A dotted name (a base, an annotation) as a value, without calling it."""
        if not text:
            return None
        parts = text.split(".")
        return self.member_path(self.lookup(ctx, parts[0]), parts[1:])

    def decorator_calls(self, ctx: Ctx) -> list[tuple[str, Outcome]]:
        """A decorator is called on behalf of what it decorates: (text, outcome) for each."""
        sym = ctx.sym
        out: list[tuple[str, Outcome]] = []
        parent = self.index.by_id.get(sym.parent) if sym.parent else None
        outer = Ctx(
            sym, ctx.file, None, ctx.chain[1:] if ctx.chain and ctx.chain[0] is sym else ctx.chain
        )
        if parent is not None and parent.kind in TYPES:
            outer.scope["class_body"] = parent.id
        for text in sym.decorators:
            callee = text.split("(", 1)[0].strip()
            if callee.endswith(_IGNORED_DECORATOR_TAILS):
                out.append((callee, IGNORED))
            else:
                out.append((callee, self.resolve_call(outer, callee)))
        return out

    def import_targets(self, file: FileResult) -> list[tuple[int, str]]:
        out: list[tuple[int, str]] = []
        for imp in file.imports:
            if imp.name == "*":
                continue
            t = self._import(file.module, imp)
            if t is None or t[0] == EXT:
                continue
            if t[0] == SYM:
                out.append((imp.line, t[1]))
            elif t[0] == MOD and t[1] in self.index.first_chunk:
                out.append((imp.line, self.index.first_chunk[t[1]]))
        return out

    def direct_imports(self, file: FileResult) -> set[str] | None:
        found = self._direct.get(file.module)
        if found is None:
            found = set()
            for imp in file.imports:
                if imp.name is None:
                    base = self._path(imp.module, file.module)
                else:
                    base = self._from_base(file.module, imp)
                if isinstance(base, str):
                    found.add(base)
                    sub = f"{base}.{imp.name}" if imp.name and imp.name != "*" else ""
                    if sub in self.pymods:
                        found.add(sub)  # `from pkg import module`
            self._direct[file.module] = found
        return found

    def bare_fallback(self, ctx: Ctx, name: str) -> Outcome:
        return EXTERNAL_CALL if name in _BUILTINS else UNRESOLVED

    def fallback_candidate(self, sid: str) -> bool:
        sym = self.index.by_id[sid]
        return sym.kind == "method" and not (sym.name.startswith("__") and sym.name.endswith("__"))


def _bound(text: str) -> tuple[str, list[str], str] | None:
    """``(x = C() | f).m`` -> ("x", ["C()", "f"], ".m"); None when the text is no such form."""
    depth = 0
    eq = -1
    for i, ch in enumerate(text):
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
            if depth == 0:
                if eq < 0:
                    return None
                values = [v.strip() for v in text[eq + 3 : i].split(" | ")]
                return text[1:eq], [v for v in values if v], text[i + 1 :]
        elif ch == " " and depth == 1 and eq < 0 and text.startswith(" = ", i):
            eq = i
    return None


def _is_init(path: str) -> bool:
    return path.endswith(("/__init__.py", "/__init__.pyi")) or path in (
        "__init__.py",
        "__init__.pyi",
    )


def _type_text(text: str) -> str:
    """``Optional["Repo"]`` -> ``Repo``; ``Repo | None`` -> ``Repo``; ``list[Repo]`` -> ``list``."""
    t = text.strip().strip("'\"").strip()
    for wrapper in ("Optional[", "typing.Optional[", "Annotated[", "typing.Annotated[", "Final["):
        if t.startswith(wrapper) and t.endswith("]"):
            t = t[len(wrapper) : -1].split(",")[0].strip().strip("'\"")
    if "|" in t:
        parts = [p.strip() for p in t.split("|") if p.strip() not in ("None", "")]
        if len(parts) != 1:
            return ""
        t = parts[0].strip("'\"")
    if "[" in t:
        t = t.split("[", 1)[0]  # a generic: its origin (`Base[T]` is Base; `list[Repo]` is list)
    return t if all(p.isidentifier() for p in t.split(".")) else ""

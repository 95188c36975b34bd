"""Languages whose functions are called by their plain name: Bash, Haskell.

A sourced Bash file's functions are global: ``nvm_echo`` is the function of that name in the
caller's file, else the repository's one function of that name (``unique_name``: which files a
script sources is decided at run time), else, among several, the one in a file the caller
``source``s by name. A name the repository does not define is a program or a builtin.
"""

from __future__ import annotations

import posixpath

from codebot.core.model import FUNCTION_KINDS, FileResult, Import
from codebot.graph.resolvers.base import (
    AMBIGUOUS,
    EXACT,
    EXTERNAL_CALL,
    UNIQUE,
    Ctx,
    Dialect,
    Outcome,
    Resolver,
)
from codebot.graph.resolvers.names import TYPES, strip_duplicate

__all__ = ["HaskellResolver", "PlainResolver", "ShellResolver"]


class PlainResolver(Resolver):
    """Calls by plain name: the caller's file first, then the repository's one definition."""

    dialect = Dialect(separators="", prefixes=())
    self_names = frozenset()
    super_names = frozenset()

    def prepare(self) -> None:
        self._stems: dict[str, set[str]] = {}

    def resolve_call(self, ctx: Ctx, text: str) -> Outcome:
        name = text.strip()
        if name in self.builtins:
            return EXTERNAL_CALL
        index = self.index
        hit = index.local.get(ctx.file.module, {}).get(name)
        if hit is not None and index.is_callable(hit):
            return [(hit, EXACT)]
        ids = [i for i in index.names.get((self.family, name), ()) if index.is_callable(i)]
        if not ids:
            return EXTERNAL_CALL  # a program, a builtin, a library's function
        if len({strip_duplicate(i) for i in ids}) == 1:
            return [(ids[0], UNIQUE)] if self.in_scope(ctx.file, ids[0]) else EXTERNAL_CALL
        stems = self._sourced(ctx.file)
        near = [i for i in ids if _stem(index.file_of[i].path) in stems]
        if len(near) == 1:
            return [(near[0], EXACT)]
        return self.not_found(name)

    def in_scope(self, file: FileResult, sid: str) -> bool:
        """Whether the one definition of a name can be what ``file`` calls by it: a sourced
        shell function is global, wherever it is defined."""
        return True

    def _sourced(self, file: FileResult) -> set[str]:
        found = self._stems.get(file.path)
        if found is None:
            found = self._stems[file.path] = {_stem(i.module) for i in file.imports}
        return found


class ShellResolver(PlainResolver):
    family = "shell"
    builtins = frozenset(
        """echo printf read cd pwd exit return local export unset set shift source . test [
        [[ true false eval exec trap wait kill command type hash builtin declare typeset readonly
        let getopts alias unalias printf pushd popd dirs shopt umask ulimit times jobs fg bg
        disown enable help history mapfile readarray compgen complete compopt caller
        ls cat grep sed awk cut tr sort uniq head tail wc find xargs mkdir rm cp mv ln chmod
        chown touch basename dirname date sleep tee env curl wget git tar uname which mktemp
        printenv diff""".split()
    )


class HaskellResolver(PlainResolver):
    """Haskell: a name is what the caller's module defines, else what one of its imports brings
    in, as that module exports it. A module with an export list (``module X (a, T(..), module
    Y) where``, see ``languages/haskell.py``) exports those names, whether it defines them or
    imports them, and with ``module Y`` what it imports from ``Y``; one without exports its own
    top-level definitions. An import brings in what it lists (``import X (a)``), all but what
    it hides (``import X hiding (a)``), or, qualified, only ``M.name``. ``M.lookup`` is
    ``lookup`` of a module imported as ``M`` (or named so), when that module is the
    repository's (``src/XMonad/Core.hs`` is ``XMonad.Core``), else a library's. A name none of
    the repository's modules the caller imports brings in is a library's (or a local binding):
    the unique-name guess is left to an import whose module the path cannot tell (two files
    of one module name), among what those files export."""

    family = "haskell"
    builtins = frozenset(
        """map filter foldr foldl foldl' foldMap fmap pure return show read print putStrLn
        error undefined fst snd head tail null length reverse concat concatMap zip zipWith
        lookup elem maybe either id const flip not otherwise mapM mapM_ forM forM_ when unless
        sequence traverse fromIntegral toEnum fromEnum min max succ pred mempty mappend
        fromMaybe catMaybes mapMaybe liftIO lift""".split()
    )

    def prepare(self) -> None:
        super().prepare()
        self._by_name: dict[str, list[str]] = {}  # `XMonad.Core`, `Core` -> module ids
        # module -> its top-level names (functions, class methods, types) -> the first definition
        self._top: dict[str, dict[str, str]] = {}
        self._classes: dict[str, set[str]] = {}  # class method -> the classes declaring it
        for f in self.files:
            parts = f.module.split(".")
            for i in range(len(parts)):
                self._by_name.setdefault(".".join(parts[i:]), []).append(f.module)
            top = self._top.setdefault(f.module, {})
            for sym in f.symbols:
                if sym.kind in TYPES and sym.parent is None:
                    top.setdefault(sym.name, sym.id)  # `W.RationalRect r`: its constructor
                    continue
                if sym.kind not in FUNCTION_KINDS:
                    continue
                parent = self.index.by_id.get(sym.parent) if sym.parent else None
                if parent is None or parent.kind in TYPES:
                    top.setdefault(sym.name, sym.id)
                    if parent is not None:
                        self._classes.setdefault(sym.name, set()).add(parent.name)
        self._file_imports: dict[str, _Imports] = {}
        self._exported: dict[tuple[str, str], str | None] = {}
        self._in_scope: dict[tuple[str, str], str | None] = {}
        self._untold_by_file: dict[str, bool] = {}

    def in_scope(self, file: FileResult, sid: str) -> bool:
        """The unique-name guess: only onto a definition that an import whose module the path
        cannot tell (several files of that name) may bring in, as one of them exports it."""
        module = self.index.file_of[sid].module
        name = self.index.by_id[sid].name
        for imp in self._imports_of(file).opened:
            if imp.allows(name) and module in self._by_name.get(imp.module, ()):
                if len(self._by_name[imp.module]) > 1 and self.export(module, name) == sid:
                    return True
        return False

    def _untold(self, file: FileResult) -> bool:
        """Whether a file imports, unqualified, a module the path cannot tell."""
        found = self._untold_by_file.get(file.module)
        if found is None:
            found = self._untold_by_file[file.module] = any(
                len(self._by_name.get(imp.module, ())) > 1 for imp in self._imports_of(file).opened
            )
        return found

    def direct_imports(self, file: FileResult) -> set[str] | None:
        found = self._direct.get(file.module)
        if found is None:
            found = set()
            for imp in file.imports:
                repo = self._repo_module(imp.module) if imp.module else None
                if repo is not None:
                    found.add(repo)
            self._direct[file.module] = found
        return found

    def _repo_module(self, name: str) -> str | None:
        found = self._by_name.get(name)
        return found[0] if found and len(found) == 1 else None

    def _imports_of(self, file: FileResult) -> _Imports:
        found = self._file_imports.get(file.module)
        if found is None:
            found = self._file_imports[file.module] = _Imports(file.imports)
        return found

    def export(self, module: str, name: str) -> str | None:
        """The definition a module exports as ``name`` (its own, or one it re-exports), or
        None (not exported, or a library's)."""
        key = (module, name)
        if key in self._exported:
            return self._exported[key]
        self._exported[key] = None  # an import cycle exports nothing more
        found = self._export(module, name)
        self._exported[key] = found
        return found

    def _export(self, module: str, name: str) -> str | None:
        f = self.index.modules.get(module)
        if f is None:
            return None
        imports = self._imports_of(f)
        if not imports.exports:
            return self._top.get(module, {}).get(name)
        listed = imports.exports
        if (
            name in listed
            or f"{name}(..)" in listed  # a type with its constructors (`RationalRect(..)`)
            # a class with its methods, its own or one it imports (`HasReaderOptions(..)`)
            or any(f"{cls}(..)" in listed for cls in self._classes.get(name, ()))
        ):
            return self.scope(f, name)
        for re in imports.reexports:
            if module in self._by_name.get(re, ()):  # `module X (module X, ...)`: its own
                hit = self._top.get(module, {}).get(name)
            else:
                hit = self._provided(
                    imports, name, lambda imp, re=re: re in (imp.module, imp.alias)
                )
            if hit is not None:
                return hit
        return None

    def scope(self, file: FileResult, name: str) -> str | None:
        """What ``name``, written plain, is at the top level of a module: its own definition,
        else what one of its imports brings in from the repository."""
        key = (file.module, name)
        if key not in self._in_scope:
            self._in_scope[key] = None  # (a cycle: not found)
            hit = self._top.get(file.module, {}).get(name)
            if hit is None:
                hit = self._provided(self._imports_of(file), name, lambda imp: True)
            self._in_scope[key] = hit
        return self._in_scope[key]

    def _provided(self, imports: _Imports, name: str, which) -> str | None:
        for imp in imports.opened:
            if which(imp) and imp.allows(name, self._classes):
                repo = self._repo_module(imp.module)
                hit = self.export(repo, name) if repo is not None else None
                if hit is not None:
                    return hit
        return None

    def resolve_call(self, ctx: Ctx, text: str) -> Outcome:
        qual, _, name = text.strip().rpartition(".")
        imports = self._imports_of(ctx.file)
        if qual:
            for module in imports.quals.get(qual, [qual]):
                repo = self._repo_module(module)
                hit = self.export(repo, name) if repo is not None else None
                if hit is not None:
                    return [(hit, EXACT)]
            return EXTERNAL_CALL  # a library's module, or one re-exporting a library's name
        hit = self.scope(ctx.file, name)
        if hit is not None and self.index.is_callable(hit):
            return [(hit, EXACT)]  # (its own `filter`, or an import's the Prelude's gives way to)
        if name in self.builtins:
            return EXTERNAL_CALL
        index = self.index
        near = (
            [
                i
                for i in index.names.get((self.family, name), ())
                if index.is_callable(i) and self.in_scope(ctx.file, i)
            ]
            if self._untold(ctx.file)
            else []
        )
        if near:
            return [(near[0], UNIQUE)] if len(near) == 1 else AMBIGUOUS
        return EXTERNAL_CALL  # a library's (or a local binding's, `where go = ...`)


class _Import:
    """One module a file imports unqualified: what of it the file may name plain."""

    __slots__ = ("alias", "hidden", "listed", "module")

    def __init__(self, module: str, alias: str | None) -> None:
        self.module = module
        self.alias = alias
        self.listed: set[str] | None = None  # None: every name it exports
        self.hidden: set[str] = set()

    def allows(self, name: str, classes: dict[str, set[str]] | None = None) -> bool:
        """Whether the file may name ``name`` plain through this import; ``classes``: the
        classes declaring each method name (``import X (C(..))`` brings C's methods)."""
        if name in self.hidden:
            return False
        if self.listed is None or name in self.listed or f"{name}(..)" in self.listed:
            return True
        if not classes or name not in classes:
            return False
        return any(f"{cls}(..)" in self.listed for cls in classes[name])


class _Imports:
    """A file's imports and exports, read once: qualifiers (``M`` -> modules), the modules
    imported unqualified, the names exported (empty: no export list) and the modules
    re-exported whole (``module Y``)."""

    def __init__(self, imports: list[Import]) -> None:
        self.quals: dict[str, list[str]] = {}
        self.exports: set[str] = set()
        self.reexports: list[str] = []
        by_module: dict[tuple[str, str | None], _Import] = {}
        self.opened: list[_Import] = []
        for imp in imports:
            if not imp.module:  # an entry of the export list
                if imp.name and imp.name.startswith("module "):
                    self.reexports.append(imp.name[len("module ") :])
                    self.exports.add("")  # (an export list, even of modules only)
                elif imp.name:
                    self.exports.add(imp.name)
                continue
            if imp.alias == "hiding":
                for o in self.opened:
                    if o.module == imp.module and imp.name:
                        o.hidden.add(imp.name)
                continue
            qual = imp.alias or imp.module
            mods = self.quals.setdefault(qual, [])
            if imp.module not in mods:
                mods.append(imp.module)
            if imp.alias is not None and imp.name is None:
                continue  # qualified: no plain name
            if imp.alias is not None:  # `import X as Y`: `Y.f` and `f`
                mods = self.quals.setdefault(imp.module, [])
                if imp.module not in mods:
                    mods.append(imp.module)
            key = (imp.module, imp.alias)
            o = by_module.get(key)
            if o is None:
                o = by_module[key] = _Import(imp.module, imp.alias)
                o.listed = set()
                self.opened.append(o)
            if imp.name == "*":
                o.listed = None
            elif imp.name and o.listed is not None:
                o.listed.add(imp.name)


def _stem(path: str) -> str:
    return posixpath.splitext(posixpath.basename(path))[0]

"""Languages whose functions are called by their plain name: Bash, Haskell.

A sourced Bash file's functions are global: ``nvm_echo`` is the function of that name in the
caller's file, else the repository's one function of that name (``unique_name``: which files a
script sources is decided at run time), else, among several, the one in a file the caller
``source``s by name. A name the repository does not define is a program or a builtin.
"""

from __future__ import annotations

import posixpath

from codebot.core.model import FileResult
from codebot.graph.resolvers.base import (
    EXACT,
    EXTERNAL_CALL,
    UNIQUE,
    Ctx,
    Dialect,
    Outcome,
    Resolver,
)
from codebot.graph.resolvers.names import strip_duplicate

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
    """Haskell: ``M.lookup`` is ``lookup`` of the module ``import``ed as ``M`` (or named so),
    when that module is the repository's (``src/XMonad/Core.hs`` is ``XMonad.Core``), else a
    library's; a plain name is the caller's module's, else that of a module it imports whole or
    by that name, else the repository's one definition of it (``unique_name``) when the
    caller's imports reach its module (a re-export), else a library's."""

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
        for f in self.files:
            parts = f.module.split(".")
            for i in range(len(parts)):
                self._by_name.setdefault(".".join(parts[i:]), []).append(f.module)
        self._file_imports: dict[
            str, tuple[dict[str, list[str]], list[tuple[str, str | None]]]
        ] = {}

    def in_scope(self, file: FileResult, sid: str) -> bool:
        """A name is in scope through the module's imports, or what they re-export: a module
        of the repository that none of them reaches (within a few imports) cannot be where the
        name comes from, a library's module imported whole can (``skip`` in a module that
        imports ``Data.Binary.Get``, not ``Readers.TikiWiki.skip``)."""
        return self.index.file_of[sid].module in self.reachable(file)

    def direct_imports(self, file: FileResult) -> set[str] | None:
        found = self._direct.get(file.module)
        if found is None:
            found = set()
            for imp in file.imports:
                repo = self._repo_module(imp.module)
                if repo is not None:
                    found.add(repo)
            self._direct[file.module] = found
        return found

    def _repo_module(self, name: str) -> str | None:
        found = self._by_name.get(name)
        return found[0] if found and len(found) == 1 else None

    def _imports_of(self, file: FileResult):
        """(qualifier -> modules, [(module, name or None for all)]) of a file's imports."""
        found = self._file_imports.get(file.path)
        if found is None:
            quals: dict[str, list[str]] = {}
            opened: list[tuple[str, str | None]] = []
            for imp in file.imports:
                quals.setdefault(imp.alias or imp.module, []).append(imp.module)
                if imp.alias is None:
                    opened.append((imp.module, None if imp.name == "*" else imp.name))
            found = self._file_imports[file.path] = (quals, opened)
        return found

    def resolve_call(self, ctx: Ctx, text: str) -> Outcome:
        qual, _, name = text.strip().rpartition(".")
        quals, opened = self._imports_of(ctx.file)
        if qual:
            for module in quals.get(qual, [qual]):
                repo = self._repo_module(module)
                if repo is not None:
                    hit = self.index.local.get(repo, {}).get(name)
                    return [(hit, EXACT)] if hit is not None else EXTERNAL_CALL
            return EXTERNAL_CALL  # a library's module
        hit = self.index.local.get(ctx.file.module, {}).get(name)
        if hit is not None and self.index.is_callable(hit):
            return [(hit, EXACT)]
        for module, only in opened:
            if only is not None and only != name:
                continue
            repo = self._repo_module(module)
            hit = self.index.local.get(repo, {}).get(name) if repo is not None else None
            if hit is not None and self.index.is_callable(hit):
                return [(hit, EXACT)]
        return super().resolve_call(ctx, name)


def _stem(path: str) -> str:
    return posixpath.splitext(posixpath.basename(path))[0]

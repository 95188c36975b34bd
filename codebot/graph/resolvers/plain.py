"""Languages whose functions are called by their plain name, one space per program: Bash.

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

__all__ = ["PlainResolver", "ShellResolver"]


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
            return [(ids[0], UNIQUE)]
        stems = self._sourced(ctx.file)
        near = [i for i in ids if _stem(index.file_of[i].path) in stems]
        if len(near) == 1:
            return [(near[0], EXACT)]
        return self.not_found(name)

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


def _stem(path: str) -> str:
    return posixpath.splitext(posixpath.basename(path))[0]

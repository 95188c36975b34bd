"""Go: packages are directories, calls are package-qualified or on receivers.

A package's scope is the top-level functions and types of every file in its directory; a method
(``func (s *Server) Handle``) is a member of its receiver type in the same package. An import
path belongs to the repository when it is one of the repository's module paths followed by a
directory that has Go files; the module paths are learned from the imports themselves (the
prefixes that, cut off, leave a directory of the repository). The name an import binds is its
alias or the last element of its path (``v2`` and ``go-`` aside).

``s.Method()`` on a receiver or a typed parameter resolves through the type's methods and the
methods promoted from its embedded fields. Go has no subclassing, so no override edges.
"""

from __future__ import annotations

import posixpath
import re
from collections import Counter

from codebot.core.model import FileResult, Symbol
from codebot.graph.resolvers.base import (
    EXT,
    EXTERNAL,
    INST,
    MOD,
    SYM,
    Ctx,
    Dialect,
    Resolver,
    Target,
)
from codebot.graph.resolvers.names import TYPES

_RECEIVER = re.compile(r"^func\s*\(\s*(\w+)\s+\*?\s*(\w+)")
_VERSION = re.compile(r"^v\d+$")
_BUILTINS = frozenset(
    """append cap clear close complex copy delete imag len make max min new panic print println
    real recover bool byte complex64 complex128 error float32 float64 int int8 int16 int32
    int64 rune string uint uint8 uint16 uint32 uint64 uintptr any comparable""".split()
)
# Methods of the standard library's common interfaces and types (io, fmt, sync, context, errors,
# net/http, testing, reflect, database/sql, encoding): no fallback claims them.
_STOP = frozenset(
    """String Error Unwrap Is As Close Read Write WriteString ReadFrom WriteTo Len Less Swap Lock
    Unlock RLock RUnlock TryLock Add Done Wait Go Get Set Del Load Store LoadOrStore Delete Range
    Do Reset Bytes Err Value Deadline Next Scan Query QueryRow Exec Begin Commit Rollback Prepare
    Marshal Unmarshal MarshalJSON UnmarshalJSON Encode Decode ServeHTTP Handle HandleFunc
    Header WriteHeader Flush Hijack Run Start Stop Name Type Kind Elem Field Method NumField
    NumMethod Interface Index Int Uint Float Bool IsNil IsValid IsZero Cap Call New Open Stat
    Seek Sync Fatal Fatalf Log Logf Helper Cleanup Skip Skipf Parallel Errorf Fail FailNow
    Sprintf Printf Println Print Fprintf Equal Contains Copy Clone Format Parse Cancel Now
    Since Sub Unix Sleep Timer Ticker Tick Before After Context WithValue WithCancel
    Keys Values Clear Push Pop Peek Send Recv Accept Dial Listen Serve Shutdown""".split()
)


class GoResolver(Resolver):
    family = "go"
    dialect = Dialect(bracket_generics=True)
    self_names = frozenset()
    super_names = frozenset()
    stop_names = _STOP
    builtins = _BUILTINS
    reflect_names = frozenset({"MethodByName"})  # `v.MethodByName(n).Call(args)`

    def prepare(self) -> None:
        index = self.index
        self.packages: dict[str, dict[str, str]] = {}  # directory -> name -> id
        self.dir_modules: dict[str, list[str]] = {}  # directory -> modules of its files
        for f in self.files:
            self.dir_modules.setdefault(posixpath.dirname(f.path), []).append(f.module)
            scope = self.packages.setdefault(posixpath.dirname(f.path), {})
            for s in f.symbols:
                if s.parent is None and s.kind != "chunk" and s.class_name is None:
                    scope.setdefault(s.name, index.local.get(f.module, {}).get(s.name, s.id))
        self.receivers: dict[str, tuple[str, str]] = {}  # method id -> (receiver name, type id)
        for f in self.files:
            scope = self.packages[posixpath.dirname(f.path)]
            for s in f.symbols:
                if s.kind == "method" and s.parent is None and s.class_name in scope:
                    type_id = scope[s.class_name]
                    if index.is_type(type_id):
                        index.attach(type_id, s.id)
                        self.attached[s.id] = type_id
                        m = _RECEIVER.match(s.signature)
                        if m is not None:
                            self.receivers[s.id] = (m.group(1), type_id)
        self._module_paths()
        self._imports: dict[str, dict[str, Target]] = {}
        for f in self.files:
            for s in f.symbols:
                if s.kind in TYPES:
                    self._resolve_bases(s, f)

    def _module_paths(self) -> None:
        """Learn the repository's module paths from the import paths that end in its dirs."""
        dirs = set(self.packages)
        counts: Counter[str] = Counter()
        for f in self.files:
            for imp in f.imports:
                segs = imp.module.split("/")
                for k in range(1, len(segs)):
                    if "/".join(segs[k:]) in dirs and "." in segs[0]:
                        counts["/".join(segs[:k])] += 1
                        break
        best = counts.most_common(1)[0][1] if counts else 0
        self.module_paths = {p for p, n in counts.items() if n >= 2 or n == best}

    def _package_dir(self, path: str) -> str | None:
        if path in self.module_paths and "" in self.packages:
            return ""
        segs = path.split("/")
        for k in range(1, len(segs)):
            if "/".join(segs[:k]) in self.module_paths:
                rest = "/".join(segs[k:])
                return rest if rest in self.packages else None
        return None

    def _file_imports(self, file: FileResult) -> dict[str, Target]:
        found = self._imports.get(file.path)
        if found is None:
            found = {}
            for imp in file.imports:
                d = self._package_dir(imp.module)
                target: Target = (MOD, d) if d is not None else EXTERNAL
                if imp.alias == ".":
                    found.setdefault("\0dot", EXTERNAL if d is None else target)
                elif imp.alias != "_":
                    found[imp.alias or _package_name(imp.module)] = target
            self._imports[file.path] = found
        return found

    def base_type(self, sym: Symbol, file: FileResult, text: str) -> str | None:
        return self._type(file, text)

    def _type(self, file: FileResult, text: str) -> str | None:
        t = text.strip().lstrip("*").split("[", 1)[0].strip()
        if not t or not all(p.isidentifier() for p in t.split(".")):
            return None
        if "." in t:
            pkg, name = t.split(".", 1)
            target = self._file_imports(file).get(pkg)
            if target is None or target[0] != MOD:
                return None
            hit = self.packages.get(target[1], {}).get(name)
        else:
            hit = self.packages.get(posixpath.dirname(file.path), {}).get(t)
        return hit if self.index.is_type(hit) else None

    def declared_type(self, ctx: Ctx, text: str) -> Target | None:
        """A variable's declared type: the repository's, a library's (a builtin type, a type of
        a package outside the repository), or None."""
        t = self._type(ctx.file, text)
        if t is not None:
            return (INST, t)
        name = text.strip().lstrip("*").strip()
        if name in _BUILTINS:
            return EXTERNAL
        pkg = name.split(".", 1)[0] if "." in name else ""
        if pkg and self._file_imports(ctx.file).get(pkg) == EXTERNAL:
            return EXTERNAL
        return None

    # --- calls ----------------------------------------------------------------------------------

    def lookup(self, ctx: Ctx, name: str) -> Target | None:
        for fn in ctx.chain:
            recv = self.receivers.get(fn.id)
            if recv is not None and recv[0] == name:
                return (INST, recv[1])
            for p in fn.parameters:
                if p.name == name:
                    t = self._type(ctx.file, p.type) if p.type else None
                    return (INST, t) if t is not None else None
        hit = self.packages.get(posixpath.dirname(ctx.file.path), {}).get(name)
        if hit is not None:
            return (SYM, hit)
        imports = self._file_imports(ctx.file)
        if name in imports:
            return imports[name]
        if name in _BUILTINS:
            return EXTERNAL
        dot = imports.get("\0dot")
        if dot is not None:
            if dot[0] == MOD:
                hit = self.packages.get(dot[1], {}).get(name)
                return (SYM, hit) if hit is not None else None
            return EXTERNAL
        return None

    def direct_imports(self, file: FileResult) -> set[str] | None:
        found = self._direct.get(file.module)
        if found is None:
            dirs = {posixpath.dirname(file.path)}
            dirs |= {t[1] for t in self._file_imports(file).values() if t[0] == MOD}
            found = {m for d in dirs for m in self.dir_modules.get(d, ())}
            self._direct[file.module] = found
        return found

    def module_member(self, target: Target, name: str) -> Target | None:
        hit = self.packages.get(target[1], {}).get(name)
        return (SYM, hit) if hit is not None else None

    def returns(self, sym_id: str) -> Target | None:
        sym = self.index.by_id[sym_id]
        if not sym.return_type:
            return None
        text = sym.return_type.strip("() ").split(",")[0]
        t = self._type(self.index.file_of[sym_id], text)
        return (INST, t) if t is not None else None

    def member(self, target: Target, name: str) -> Target | None:
        if target[0] == EXT:
            return EXTERNAL
        return super().member(target, name)


def _package_name(path: str) -> str:
    segs = path.split("/")
    last = segs[-1]
    if _VERSION.match(last) and len(segs) > 1:
        last = segs[-2]
    last = last.split(".")[0]
    if last.startswith("go-"):
        last = last[3:]
    return last.replace("-", "_")

"""The repository's symbol table, built once, and the type hierarchy over it.

Everything a resolver asks per call is a dict lookup here: symbols by id, the symbols of a module
by their qualified name inside it, the members of a type, every definition of a short name. The
type hierarchy (bases, MRO, subclasses) is filled by the language resolvers, which know how to
read a base's text, and then queried by all of them alike.
"""

from __future__ import annotations

import re
from collections import defaultdict

from codebot.core.model import FUNCTION_KINDS, TYPE_KINDS, FileResult, Symbol, is_overload_stub

__all__ = [
    "FAMILY",
    "NameTable",
    "TYPES",
    "strip_duplicate",
]

# Resolver families: the languages that can call each other's symbols by name. A unique-name
# fallback only looks inside the caller's family.
FAMILY: dict[str, str] = {
    "python": "python",
    "javascript": "js",
    "typescript": "js",
    "tsx": "js",
    "go": "go",
    "java": "jvm",
    "kotlin": "jvm",
    "scala": "jvm",
    "csharp": "csharp",
    "c": "c",
    "cpp": "c",
    "rust": "rust",
    "ruby": "ruby",
    "php": "php",
    "swift": "swift",
    "lua": "lua",
    "elixir": "elixir",
    "shell": "shell",
    "haskell": "haskell",
    "zig": "zig",
}

CALLABLE_KINDS = frozenset(FUNCTION_KINDS)
TYPES = frozenset(TYPE_KINDS)
_DUPLICATE = re.compile(r"#\d+$")

# A method with more overriding definitions than this gets no per-override edges from a call on
# a declared type (self, a typed parameter): the declared target alone stands for them.
MAX_OVERRIDES = 16


def strip_duplicate(symbol_id: str) -> str:
    """``pkg.mod.f#2`` -> ``pkg.mod.f``: the second definition of a name shares the first's name."""
    return _DUPLICATE.sub("", symbol_id) if "#" in symbol_id else symbol_id


class NameTable:
    """Symbols of all files, by id, by module, by parent, by short name; and the type hierarchy."""

    def __init__(self, files: list[FileResult]) -> None:
        self.files = files
        self.by_id: dict[str, Symbol] = {}
        self.file_of: dict[str, FileResult] = {}
        self.modules: dict[str, FileResult] = {}
        # module -> qualified name inside the module (``Class.method``, ``ns.Type``) -> id. A
        # duplicate keeps the first id under the plain name and its own under ``name#2``.
        self.local: dict[str, dict[str, str]] = {}
        self.local_name: dict[str, str] = {}  # id -> its qualified name inside its module
        self.children: dict[str, dict[str, str]] = defaultdict(dict)  # parent id -> name -> id
        # (family, short name) -> ids of the functions, methods and types of that name, one per
        # qualified name (overloads and redefinitions count once).
        self.names: dict[tuple[str, str], list[str]] = defaultdict(list)
        # Members of a type: its children plus methods defined elsewhere (a Go receiver, a Rust
        # impl, a C++ out-of-line definition, a Swift extension), attached by the resolvers.
        self.members: dict[str, dict[str, str]] = defaultdict(dict)
        self.bases: dict[str, list[str]] = {}  # type id -> resolved base type ids
        self.open_types: set[str] = set()  # types with a base that did not resolve (a library's)
        self.subclasses: dict[str, list[str]] = defaultdict(list)
        self._mro: dict[str, list[str]] = {}
        self._overrides: dict[tuple[str, str], list[str]] = {}
        # members a type holds that another defines (a Scala companion object's, lent to its
        # class for `X.member`): no override of an instance method unless their owner is a
        # subtype itself
        self.lent: set[str] = set()
        self._members_found: dict[tuple[str, str, int], tuple[str | None, bool]] = {}
        self.c3 = {"python"}  # families whose MRO is C3; the others search bases depth-first
        self.first_chunk: dict[str, str] = {}  # module -> id of its first chunk (`<module>`)
        # Python overload sets without an implementation (a `.pyi`): the id a name reaches (the
        # first stub) -> every stub of the set. A set with an implementation is reached at the
        # implementation instead (see `_overload_sets`), and needs nothing here.
        self.overload_stubs: dict[str, list[str]] = {}
        sets: dict[tuple[str, str], list[Symbol]] = {}
        for f in files:
            self.modules.setdefault(f.module, f)
            family = FAMILY.get(f.language)
            prefix = f.module + "." if f.module else ""
            table = self.local.setdefault(f.module, {})
            for s in f.symbols:
                if s.kind == "chunk":
                    self.first_chunk.setdefault(f.module, s.id)
                    continue
                sid = s.id
                self.by_id[sid] = s
                self.file_of[sid] = f
                local = sid[len(prefix) :] if prefix and sid.startswith(prefix) else sid
                self.local_name[sid] = local
                plain = strip_duplicate(local)
                table.setdefault(plain, sid)
                if s.decorators and is_overload_stub(s):
                    sets.setdefault((f.module, plain), [])
                if plain != local:
                    table[local] = sid
                    continue  # a second definition of one name: reached through the first
                if s.parent is not None:
                    self.children[s.parent].setdefault(s.name, sid)
                    if s.parent in self.by_id and self.by_id[s.parent].kind in TYPES:
                        self.members[s.parent].setdefault(s.name, sid)
                if family is not None:
                    self.names[(family, s.name)].append(sid)
        if sets:
            self._overload_sets(sets)

    def _overload_sets(self, sets: dict[tuple[str, str], list[Symbol]]) -> None:
        """One logical symbol per overload set: every name that reached the first definition
        (the first stub) reaches the implementation, the last definition without ``@overload``;
        stubs never take a call. A set with no implementation is recorded in ``overload_stubs``."""
        for (module, plain), members in sets.items():
            table = self.local[module]
            first = table[plain]
            members.append(self.by_id[first])
            n = 2
            while f"{plain}#{n}" in table:
                members.append(self.by_id[table[f"{plain}#{n}"]])
                n += 1
            impls = [m for m in members if not is_overload_stub(m)]
            if not impls:
                self.overload_stubs[first] = [m.id for m in members]
                continue
            impl = impls[-1].id
            if impl == first:
                continue
            table[plain] = impl
            sym = self.by_id[first]
            if sym.parent is not None:
                for d in (self.children, self.members):
                    kids = d.get(sym.parent)
                    if kids is not None and kids.get(sym.name) == first:
                        kids[sym.name] = impl
            family = FAMILY.get(sym.language)
            ids = self.names.get((family, sym.name), [])
            self.names[(family, sym.name)] = [impl if i == first else i for i in ids]

    # --- types ----------------------------------------------------------------------------------

    def is_type(self, sid: str | None) -> bool:
        return sid is not None and sid in self.by_id and self.by_id[sid].kind in TYPES

    def is_callable(self, sid: str | None) -> bool:
        return sid is not None and sid in self.by_id and self.by_id[sid].kind in CALLABLE_KINDS

    def attach(self, type_id: str, method_id: str) -> None:
        """Make a method defined outside its type's body a member of the type."""
        self.members[type_id].setdefault(self.by_id[method_id].name, method_id)

    def set_bases(self, type_id: str, bases: list[str], open_: bool) -> None:
        self.bases[type_id] = bases
        if open_:
            self.open_types.add(type_id)
        for b in bases:
            self.subclasses[b].append(type_id)

    def mro(self, type_id: str) -> list[str]:
        """The type, then its resolved bases in method resolution order (C3 for Python)."""
        found = self._mro.get(type_id)
        if found is None:
            self._mro[type_id] = [type_id]  # a cycle of bases stops here
            found = self._linearize(type_id)
            self._mro[type_id] = found
        return found

    def _linearize(self, type_id: str) -> list[str]:
        bases = self.bases.get(type_id, [])
        if not bases:
            return [type_id]
        family = FAMILY.get(self.by_id[type_id].language)
        if family == "php":
            # PHP copies a trait's methods into the class that uses it: they come before the
            # parent's (which they override). An interface only declares: its method is the
            # target only where no class or trait on the way defines one (`setFormatter` of
            # `FormattableHandlerTrait`, not of `FormattableHandlerInterface`).
            rank = {"trait": 0, "interface": 2}
            bases = sorted(bases, key=lambda b: rank.get(self.by_id[b].kind, 1))
        lines = [list(self.mro(b)) for b in bases]
        if family in self.c3:
            merged = _c3([*lines, list(bases)])
            if merged is not None:
                return [type_id, *merged]
        out, seen = [type_id], {type_id}
        for line in lines:
            for t in line:
                if t not in seen:
                    seen.add(t)
                    out.append(t)
        if family == "php":
            out = [
                *(t for t in out if self.by_id[t].kind != "interface"),
                *(t for t in out if self.by_id[t].kind == "interface"),
            ]
            if out[0] != type_id:  # (an interface's own MRO: it stays first)
                out.remove(type_id)
                out.insert(0, type_id)
        return out

    def find_member(self, type_id: str, name: str, skip: int = 0) -> tuple[str | None, bool]:
        """The first member ``name`` along the MRO (after ``skip`` entries), and whether the
        search was open: a type on the way has a base we could not resolve, so the member may
        be inherited from a library."""
        key = (type_id, name, skip)
        found = self._members_found.get(key)
        if found is None:
            found = self._members_found[key] = self._find_member(type_id, name, skip)
        return found

    def _find_member(self, type_id: str, name: str, skip: int) -> tuple[str | None, bool]:
        mro = self.mro(type_id)
        for t in mro[skip:]:
            hit = self.members.get(t, {}).get(name)
            if hit is not None:
                return hit, False
        return None, any(t in self.open_types for t in mro)

    def overrides(self, type_id: str, name: str) -> list[str]:
        """Members ``name`` defined by the (transitive) subclasses of a type."""
        key = (type_id, name)
        found = self._overrides.get(key)
        if found is None:
            found, seen, stack = [], {type_id}, list(self.subclasses.get(type_id, ()))
            while stack:
                t = stack.pop()
                if t in seen:
                    continue
                seen.add(t)
                hit = self.members.get(t, {}).get(name)
                if hit is not None and hit in self.lent and self.by_id[hit].parent != t:
                    hit = None  # lent by a companion: no instance method of `t`
                if hit is not None and hit not in found:
                    found.append(hit)
                stack.extend(self.subclasses.get(t, ()))
            if len(found) > MAX_OVERRIDES:
                found = []
            self._overrides[key] = found
        return found

    def related(self, type_id: str) -> set[str]:
        """A type, its ancestors and its descendants: the types a call on it may reach."""
        out = set(self.mro(type_id))
        stack = [type_id]
        while stack:
            for sub in self.subclasses.get(stack.pop(), ()):
                if sub not in out:
                    out.add(sub)
                    stack.append(sub)
        return out


def _c3(seqs: list[list[str]]) -> list[str] | None:
    out: list[str] = []
    seqs = [s for s in seqs if s]
    while seqs:
        for seq in seqs:
            head = seq[0]
            if not any(head in s[1:] for s in seqs):
                break
        else:
            return None  # inconsistent hierarchy: fall back to depth-first
        out.append(head)
        seqs = [s[1:] if s[0] == head else s for s in seqs]
        seqs = [s for s in seqs if s]
    return out

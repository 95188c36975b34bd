"""Java, Kotlin, Scala: packages are directories, imports name types by their full name.

A type's full name is taken as its directory (dotted) plus its name in the file, so an import
``com.acme.orders.Order`` matches ``src/main/java/com/acme/orders/Order.java`` (or any file of
that directory defining ``Order``) as a suffix; a wildcard import opens a package (every
directory ending in it) or a type's members (a static import). Names resolve through the
enclosing types (members along the hierarchy; a Kotlin companion or a Scala companion object
counts as its class), the file's imports, the package (the directory), wildcard imports.

Java records a method call by its name alone (``repo.save(x)`` reads ``save``): a bare name is
claimed by the caller's class only when no type outside its hierarchy defines it, and is marked
``unique_name``. Kotlin and Scala keep receivers that are plain names, so a bare name there is a
call on the implicit ``this`` (or on a complex expression, which is rarer).
"""

from __future__ import annotations

import posixpath

from codebot.core.model import FileResult, Import, Symbol
from codebot.graph.resolvers.base import (
    DECL,
    EXACT,
    EXTERNAL,
    EXTERNAL_CALL,
    NOT_LOCAL,
    PLAIN,
    SUPER,
    SYM,
    UNRESOLVED,
    Ctx,
    Dialect,
    Outcome,
    Resolver,
    Target,
    is_extension,
)
from codebot.graph.resolvers.names import TYPES, strip_duplicate

_BUILTINS = frozenset(
    # java.lang, and the Kotlin and Scala standard functions called without a receiver
    """String Object Integer Long Short Byte Double Float Boolean Character Number Math
    StrictMath System Thread Runnable Exception RuntimeException Error Throwable
    IllegalArgumentException IllegalStateException NullPointerException
    UnsupportedOperationException IndexOutOfBoundsException ClassCastException
    ArithmeticException CloneNotSupportedException InterruptedException AssertionError
    StringBuilder StringBuffer Class Enum Iterable Comparable CharSequence Void Record
    ArrayList LinkedList HashMap LinkedHashMap TreeMap HashSet LinkedHashSet TreeSet
    ArrayDeque IdentityHashMap EnumMap WeakHashMap ConcurrentHashMap
    println print require requireNotNull check checkNotNull error TODO repeat run with apply
    also let takeIf takeUnless lazy listOf mutableListOf arrayListOf setOf mutableSetOf
    hashSetOf mapOf mutableMapOf hashMapOf linkedMapOf emptyList emptyMap emptySet arrayOf
    intArrayOf emptyArray sequenceOf buildList buildMap buildString synchronized maxOf minOf
    Pair Triple Some None Option Left Right Seq List Map Set Vector Array Nil Future Try
    Success Failure assert assertEquals assertTrue assertFalse assertNull assertNotNull
    assertThrows assertThat assertSame fail""".split()
)
_PRIMITIVES = frozenset(
    "int long short byte char boolean float double Int Long Short Byte Char Boolean Float Double"
    " Unit".split()
)
_STOP = frozenset(
    """toString equals hashCode compareTo compare get set put add addAll remove removeAll
    contains containsKey containsValue isEmpty size clear iterator hasNext next stream map
    filter flatMap forEach collect reduce toList toArray sorted count findFirst findAny
    anyMatch allMatch noneMatch orElse orElseGet orElseThrow isPresent ifPresent of ofNullable
    valueOf append length charAt substring indexOf startsWith endsWith trim split replace
    format close read write flush run start join call apply accept test getKey getValue
    entrySet keySet values getClass name ordinal clone wait notify notifyAll let also takeIf
    first last firstOrNull lastOrNull getOrNull getOrElse getOrDefault mapOf listOf copy
    invoke use lines print println error""".split()
)


class JvmResolver(Resolver):
    capitalized_types = True
    family = "jvm"
    dialect = Dialect(
        separators=r"\?\.|!!\.|!\.|::",
        prefixes=("new ",),
        ident=r"[A-Za-z_$`][\w$`]*",
        angle_generics=True,
        bracket_generics=True,
    )
    self_names = frozenset({"this"})
    super_names = frozenset({"super"})
    stop_names = _STOP
    builtins = _BUILTINS
    # `method.invoke(o)`, `ctor.newInstance()`, `Class.forName(n).getMethod(m)...`: reflection
    dispatch_names = frozenset({"invoke", "newInstance", "invokeExact", "invokeWithArguments"})
    reflect_names = frozenset({"getMethod", "getDeclaredMethod", "forName", "findVirtual"})

    def prepare(self) -> None:
        index = self.index
        self.packages: dict[str, dict[str, str]] = {}  # directory (dotted) -> name -> id
        self.fqn: dict[str, list[str]] = {}  # dotted suffix (2+ parts) of a full name -> ids
        self.dirs: dict[str, list[str]] = {}  # dotted suffix of a directory -> directories
        self.dir_modules: dict[str, list[str]] = {}  # directory (dotted) -> its files' modules
        for f in self.files:
            d = _dir(f)
            self.dir_modules.setdefault(d, []).append(f.module)
            scope = self.packages.setdefault(d, {})
            for s in f.symbols:
                if s.kind == "chunk":
                    continue
                local = index.local_name[s.id]
                if "#" in local or (s.parent is not None and not index.is_type(s.parent)):
                    continue
                if s.parent is None and "." not in local:
                    scope.setdefault(s.name, s.id)
                if s.kind in TYPES or s.parent is None:
                    parts = f"{d}.{local}".split(".") if d else local.split(".")
                    for i in range(len(parts) - 1):
                        self.fqn.setdefault(".".join(parts[i:]), []).append(s.id)
        for d in self.packages:
            parts = d.split(".") if d else []
            for i in range(len(parts)):
                self.dirs.setdefault(".".join(parts[i:]), []).append(d)
        self._merge_companions()
        self._scopes: dict[str, tuple[dict[str, object], list[Import]]] = {}
        for f in self.files:
            for s in f.symbols:
                if s.kind in TYPES:
                    self._resolve_bases(s, f)

    def _merge_companions(self) -> None:
        """A Kotlin ``companion object`` and a Scala companion ``object X`` (``X#2``) lend their
        members to the class: ``OrderService.copy(o)`` calls the companion's ``copy``."""
        index = self.index
        for f in self.files:
            local = index.local.get(f.module, {})
            for s in f.symbols:
                if s.kind not in TYPES:
                    continue
                if s.name == "Companion" and index.is_type(s.parent):
                    for name, mid in index.members.get(s.id, {}).items():
                        index.members[s.parent].setdefault(name, mid)
                sid = index.local_name[s.id]
                if "#" in sid:
                    first = local.get(strip_duplicate(sid))
                    if first is not None and first != s.id and index.is_type(first):
                        for name, mid in index.members.get(s.id, {}).items():
                            index.members[first].setdefault(name, mid)
                        for name, mid in index.members.get(first, {}).items():
                            index.members[s.id].setdefault(name, mid)

    def base_type(self, sym: Symbol, file: FileResult, text: str) -> str | None:
        return self._type(file, text)

    def _type(self, file: FileResult, text: str) -> str | None:
        name = text.split("<", 1)[0].split("[", 1)[0].split("(", 1)[0].strip().rstrip("?")
        for word in ("final ", "vararg ", "out ", "in "):
            if name.startswith(word):
                name = name[len(word) :].strip()
        if name.endswith("..."):
            return None
        parts = name.split(".")
        if not all(p.isidentifier() for p in parts):
            return None
        t = self._scoped(file, parts[0])
        for p in parts[1:]:
            if t is None or t[0] != SYM:
                break
            t = self.member(t, p)
        return t[1] if t is not None and t[0] == SYM and self.index.is_type(t[1]) else None

    # --- scopes ---------------------------------------------------------------------------------

    def _file_scope(self, file: FileResult) -> tuple[dict[str, object], list[Import]]:
        found = self._scopes.get(file.path)
        if found is None:
            names: dict[str, object] = {}
            wild: list[Import] = []
            for imp in file.imports:
                if imp.name == "*":
                    wild.append(imp)
                elif imp.name:
                    names[imp.alias or imp.name] = imp
            found = (names, wild)
            self._scopes[file.path] = found
        return found

    def _scoped(self, file: FileResult, name: str) -> Target | None:
        """A name at file level: an import, the package, a wildcard import, the platform."""
        names, wild = self._file_scope(file)
        value = names.get(name)
        if isinstance(value, Import):
            value = self._import(value)
            names[name] = value
        if value is not None:
            return value  # type: ignore[return-value]
        hit = self.packages.get(_dir(file), {}).get(name)
        if hit is not None:
            return (SYM, hit)
        for imp in wild:
            t = self._in_wildcard(imp.module, name)
            if t is not None:
                return t
        if name in _BUILTINS:
            return EXTERNAL
        return None

    def _import(self, imp: Import) -> Target:
        full = f"{imp.module}.{imp.name}" if imp.module else str(imp.name)
        hit = self.unique(self.fqn.get(full))
        if hit is not None:
            return (SYM, hit)
        owner = self.unique(self.fqn.get(imp.module))
        if owner is not None and self.index.is_type(owner):  # a static import of a member
            member = self.index.find_member(owner, str(imp.name))[0]
            if member is not None:
                return (SYM, member)
        return EXTERNAL

    def _in_wildcard(self, module: str, name: str) -> Target | None:
        for d in self.dirs.get(module, ()):
            hit = self.packages[d].get(name)
            if hit is not None:
                return (SYM, hit)
        owner = self.unique(self.fqn.get(module))
        if owner is not None and self.index.is_type(owner):
            member = self.index.find_member(owner, name)[0]
            if member is not None:
                return (SYM, member)
        return None

    def param_type(self, ctx: Ctx, fn: Symbol, text: str) -> str | None:
        return self._type(ctx.file, text)

    def external_member(self, ctx: Ctx, type_text: str | None, rest: str) -> Outcome | None:
        """Kotlin's extension functions add methods to library types (``fun String.slug()``):
        ``(s: String).slug`` calls the repository's one ``String.slug``; a name some extension
        of another type has is left to the untyped rules."""
        if not rest.isidentifier():
            return None  # `(t: Track).kind.name`: past the first member, anything
        index = self.index
        ext = [
            sid
            for sid in index.names.get((self.family, rest), ())
            if is_extension(index.by_id[sid], index)
        ]
        if not ext:
            return EXTERNAL_CALL
        if type_text is None:
            return None
        simple = type_text.split("<", 1)[0].rstrip("?").strip().rsplit(".", 1)[-1]
        mine = [sid for sid in ext if index.by_id[sid].class_name == simple]
        return [(mine[0], EXACT)] if len(mine) == 1 and len(ext) == 1 else None

    def extension(self, type_id: str, name: str) -> str | None:
        index = self.index
        owners = {index.by_id[t].name for t in index.mro(type_id)}
        found = [
            sid
            for sid in index.names.get((self.family, name), ())
            if index.by_id[sid].class_name in owners and is_extension(index.by_id[sid], index)
        ]
        return found[0] if len(found) == 1 else None

    def declared_type(self, ctx: Ctx, text: str) -> Target | None:
        """A local's, a field's or a parameter's type: a repository type (nested ones too), a
        library's (imported from outside, the platform's, a primitive), or None (a type
        parameter, a name from a wildcard import of a library: unknown)."""
        t = self._type(ctx.file, text)
        if t is not None:
            return (DECL, t)
        name = text.split("<", 1)[0].split("[", 1)[0].strip().rstrip("?")
        if name in _PRIMITIVES:
            return EXTERNAL
        head = name.split(".", 1)[0]
        if not head.isidentifier():
            return None
        found = self.lookup(ctx, head)
        if found is not None and found[0] == SYM and self.index.is_type(found[1]) and head == name:
            return (DECL, found[1])
        return EXTERNAL if found == EXTERNAL else None

    def lookup(self, ctx: Ctx, name: str) -> Target | None:
        local = self.local(ctx, name)
        if local is not NOT_LOCAL:
            return local
        index = self.index
        cls = ctx.cls
        while cls is not None:  # nested types, and a type's own name
            hit = index.find_member(cls, name)[0]
            if hit is not None and index.is_type(hit):
                return (SYM, hit)
            if index.by_id[cls].name == name:
                return (SYM, cls)
            parent = index.by_id[cls].parent
            cls = parent if index.is_type(parent) else None
        return self._scoped(ctx.file, name)

    def module_member(self, target: Target, name: str) -> Target | None:
        return None

    # --- calls ----------------------------------------------------------------------------------

    def head(self, ctx: Ctx, name: str, how: int, alone: bool) -> Target | Outcome | None:
        if alone and how == PLAIN:
            if name == "this" and ctx.cls is not None:  # `this(...)`: another constructor
                return self._other_constructor(ctx)
            if name not in self.super_names and ctx.cls is not None:
                java = ctx.sym.language == "java"
                out = self.implicit_member(ctx, name, name_only=java)
                if out is not None:
                    return out
        return super().head(ctx, name, how, alone)

    def _other_constructor(self, ctx: Ctx) -> Outcome:
        cls = ctx.cls
        assert cls is not None
        local = self.index.local.get(self.index.file_of[cls].module, {})
        base = self.index.local_name[cls]
        for ctor in ("constructor", "this", self.index.by_id[cls].name):
            for n in range(1, 9):
                sid = local.get(f"{base}.{ctor}" + (f"#{n}" if n > 1 else ""))
                if sid is not None and sid != ctx.sym.id:
                    return [(sid, EXACT)]
        return UNRESOLVED

    def constructor(self, type_id: str) -> str:
        lang = self.index.by_id[type_id].language
        if lang == "java":
            return self.index.members.get(type_id, {}).get(self.index.by_id[type_id].name, type_id)
        if lang == "kotlin":
            return self.index.members.get(type_id, {}).get("constructor", type_id)
        return type_id  # Scala: the primary constructor is the class

    def bare_fallback(self, ctx: Ctx, name: str) -> Outcome:
        if name in _BUILTINS:
            return EXTERNAL_CALL
        if ctx.sym.language == "java":
            # `x.name(...)` on any receiver reads `name`: a name the JDK shares with one method
            # of the repository (`getType`, `isAssignableFrom`) would make a wrong edge.
            return (
                self.not_found(name) if self.index.names.get((self.family, name)) else EXTERNAL_CALL
            )
        return self.member_fallback(name, ctx)

    def member(self, target: Target, name: str) -> Target | None:
        if target[0] == SUPER and not self.index.bases.get(target[1]):
            return EXTERNAL if target[1] in self.index.open_types else None
        return super().member(target, name)

    def fallback_candidate(self, sid: str) -> bool:
        return self.index.by_id[sid].kind in ("method", "function")

    def direct_imports(self, file: FileResult) -> set[str] | None:
        found = self._direct.get(file.module)
        if found is None:
            found = set(self.dir_modules.get(_dir(file), ()))  # the package
            for imp in file.imports:
                if imp.name == "*":
                    for d in self.dirs.get(imp.module, ()):
                        found.update(self.dir_modules.get(d, ()))
                    owner = self.unique(self.fqn.get(imp.module))
                    if owner is not None:
                        found.add(self.index.file_of[owner].module)
                elif imp.name:
                    t = self._import(imp)
                    if t[0] == SYM:
                        found.add(self.index.file_of[t[1]].module)
            self._direct[file.module] = found
        return found

    def import_targets(self, file: FileResult) -> list[tuple[int, str]]:
        out = []
        for imp in file.imports:
            if imp.name and imp.name != "*":
                t = self._import(imp)
                if t[0] == SYM:
                    out.append((imp.line, t[1]))
        return out


def _dir(file: FileResult) -> str:
    return posixpath.dirname(file.path).replace("/", ".")

"""Java, Kotlin, Scala: packages are directories, imports name types by their full name.

A type's full name is taken as its directory (dotted) plus its name in the file, so an import
``com.acme.orders.Order`` matches ``src/main/java/com/acme/orders/Order.java`` (or any file of
that directory defining ``Order``) as a suffix; a wildcard import opens a package (every
directory ending in it) or a type's members (a static import). Names resolve through the
enclosing types (members along the hierarchy; a Kotlin companion or a Scala companion object
counts as its class), the file's imports, the package (the directory), wildcard imports.

Java records a call on an expression other than a name or a call by its method name alone
(``a[0].save(x)`` reads ``save``): a bare name is claimed by the caller's class only when no type
outside its hierarchy defines it, and is marked ``unique_name``. Kotlin and Scala keep receivers
that are plain names, so a bare name there is a call on the implicit ``this``; Kotlin writes a
call on an expression's value ``(?).name`` (only the unique-name fallback applies).

Overloads (Java, Kotlin): the parser appends the arguments' types (``get/(Class, ?)``, a Kotlin
trailing lambda as ``trailing``, a named argument as ``named``). The definitions of one qualified
name (``get``, ``get#2``; a Kotlin class's primary constructor with its ``constructor``s;
Kotlin's top-level functions over the files of a package) form a set; a call reaches the member
its arguments fit by number, then by type (most specific first when every type is known); when
they cannot tell, no edge (``ambiguous``: all but one would be wrong), except to the variants of
one function per platform (its ``expect`` declaration). A definition that cannot take the
arguments is not the callee, and a value of a library type never reaches a repository method by
its name.
"""

from __future__ import annotations

import posixpath
import re
from functools import lru_cache

from codebot.core.model import FUNCTION_KINDS, VALUE_KINDS, FileResult, Import, Parameter, Symbol
from codebot.graph.resolvers.base import (
    AMBIGUOUS,
    CLS,
    DECL,
    DYNAMIC,
    EXACT,
    EXT,
    EXTERNAL,
    EXTERNAL_CALL,
    INST,
    LIBRARY_VALUE,
    NOT_LOCAL,
    OVERLOAD,
    OVERRIDE,
    PLAIN,
    SUPER,
    SYM,
    UNIQUE,
    UNRESOLVED,
    Ctx,
    Dialect,
    Outcome,
    Resolver,
    Target,
    is_extension,
)
from codebot.graph.resolvers.names import TYPES, strip_duplicate
from codebot.graph.resolvers.overloads import (
    ARGS,
    CLOSED_TYPES,
    JVM_COLLECTIONS,
    OverloadChooser,
    Undecided,
    simple_type,
)

_ARGUMENTS = frozenset({"java", "kotlin"})  # the languages whose calls carry their arguments

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
# What Scala's standard library gives its collections, Option, Either, Try, Future, iterators
# and builders: on a value of unknown type, such a name is no evidence of a repository method.
_SCALA_VALUE = re.compile(r"\b(?:val|var)\s+[\w$]+\s*:\s*([^=]+?)\s*(?:=|$)")
_SCALA_STOP = frozenset(
    """map flatMap flatten filter filterNot withFilter find exists forall foreach fold foldLeft
    foldRight reduce reduceLeft reduceOption collect collectFirst head headOption last
    lastOption tail init isEmpty nonEmpty size length contains get getOrElse orElse toList
    toVector toSeq toSet toMap toArray toIterator toOption toEither mkString result zip
    zipWithIndex unzip take drop takeWhile dropWhile sortBy sortWith sorted groupBy reverse
    iterator hasNext next apply update updated append prepend addOne addAll clear sum max min
    maxBy minBy count indexOf distinct partition span transform recover recoverWith swap
    isDefined isLeft isRight left right merge andThen compose tupled equals hashCode toString
    copy keys values keySet mapValues lift orNull grouped sliding scan empty concat diff
    intersect union""".split()
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


def _primary_parameters(name: str, signature: str) -> tuple[Parameter, ...] | None:
    """``class Ping(data: ByteArray) : Frame`` -> (data: ByteArray): a Kotlin class's primary
    constructor, read off its signature; None when it has none."""
    parts = _primary_parts(name, signature)
    if parts is None:
        return None
    out = []
    for part in parts:
        decl, _, default = part.partition("=")
        pname, _, ptype = decl.partition(":")
        words = pname.split()
        if not words:
            continue
        vararg = "vararg" in words[:-1]
        ptype = " ".join(ptype.split())
        out.append(
            Parameter(
                words[-1], f"vararg {ptype}" if vararg else ptype or None, default.strip() or None
            )
        )
    return tuple(out)


def _primary_properties(name: str, signature: str) -> dict[str, str]:
    """``class RoutingContext(val call: RoutingCall, x: Int)`` -> {call: RoutingCall}: the
    properties a Kotlin class's primary constructor declares (``val``/``var``) with a type."""
    out: dict[str, str] = {}
    for part in _primary_parts(name, signature) or ():
        decl = part.partition("=")[0]
        pname, _, ptype = decl.partition(":")
        words = pname.split()
        if len(words) > 1 and words[-2] in ("val", "var") and ptype.strip():
            out[words[-1]] = " ".join(ptype.split())
    return out


_PROPERTY = re.compile(
    r"\b(?:val|var)\s+(?:<[^=]*?>\s*)?(?P<name>[\w.<>?*, ]*?\w)\s*(?P<rest>[:=].*|by\b.*)?$"
)


def _property_type(signature: str) -> tuple[str, str] | None:
    """``override val client: HttpClient get() = ...`` -> (client, HttpClient); ``private val
    x = Attributes()`` -> (x, Attributes): a Kotlin property's declared type (or the class its
    initializer constructs), read off its first line; None when not written."""
    m = _PROPERTY.search(signature.split("//", 1)[0])
    if m is None:
        return None
    name = m["name"].rsplit(".", 1)[-1]  # `val ApplicationCall.application`: an extension
    rest = (m["rest"] or "").strip()
    if rest.startswith(":"):
        t = re.split(r"\s(?:=|by|get\b|set\b)|=(?!>)|\{", rest[1:], maxsplit=1)[0].strip()
        return (name, t) if t else None
    ctor = re.match(r"=\s*((?:[a-z]\w*\.)*[A-Z]\w*)\s*(?:<[^()]*>)?\s*\(", rest)
    return (name, ctor[1]) if ctor else None


@lru_cache(maxsize=4096)
def _primary_pattern(name: str) -> re.Pattern[str]:
    return re.compile(rf"\b{re.escape(name)}\s*(?:<[^()]*>)?\s*(?:[\w@ ]*constructor\s*)?\(")


def _primary_parts(name: str, signature: str) -> list[str] | None:
    """The parameters' texts of a Kotlin class's primary constructor, split at top-level
    commas; None when it has none."""
    m = _primary_pattern(name).search(signature)
    if m is None:
        return None
    depth, start, parts = 1, m.end(), []
    for i in range(m.end(), len(signature)):
        ch = signature[i]
        if ch in "(<[{":
            depth += 1
        elif ch in ")>]}" and not (ch == ">" and signature[i - 1] == "-"):
            depth -= 1
            if depth == 0:
                parts.append(signature[start:i])
                break
        elif ch == "," and depth == 1:
            parts.append(signature[start:i])
            start = i + 1
    else:
        return None
    return parts


class JvmResolver(OverloadChooser, Resolver):
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
    closed_types = JVM_COLLECTIONS
    types_rule_out = True
    fewest_defaults = True
    undecided_edges = False
    # `method.invoke(o)`, `ctor.newInstance()`, `Class.forName(n).getMethod(m)...`: reflection
    dispatch_names = frozenset({"invoke", "newInstance", "invokeExact", "invokeWithArguments"})
    reflect_names = frozenset({"getMethod", "getDeclaredMethod", "forName", "findVirtual"})

    def prepare(self) -> None:
        index = self.index
        self.packages: dict[str, dict[str, str]] = {}  # directory (dotted) -> name -> id
        self.fqn: dict[str, list[str]] = {}  # dotted suffix (2+ parts) of a full name -> ids
        self.dirs: dict[str, list[str]] = {}  # dotted suffix of a directory -> directories
        self.dir_modules: dict[str, list[str]] = {}  # directory (dotted) -> its files' modules
        # package -> name -> the first top-level extension function of that name (Kotlin)
        self.extensions: dict[str, dict[str, str]] = {}
        self._visible: dict[str, set[str]] = {}  # module -> packages its names come from
        self._type_memo: dict[tuple[str, str], str | None] = {}  # (path, text) -> type id
        self._scoped_memo: dict[tuple[str, str], Target | None] = {}  # (path, name) -> target
        self._syntax: dict[str, bool] = {}  # a name an implicit class or an extension defines
        self._value_types: dict[str, Target | None] = {}  # a Scala `val`'s declared type
        # (type id, name) -> a Scala `val`/`var` of an object or a class (values are no members)
        self._scala_values: dict[tuple[str, str], str] = {}
        for s in index.by_id.values():
            if s.language == "scala" and s.kind in VALUE_KINDS and index.is_type(s.parent):
                self._scala_values.setdefault((str(s.parent), s.name), s.id)
        # directory (dotted) -> name -> id of the type: a Kotlin factory function may share a
        # class's name (`fun HttpClient(...)` next to `class HttpClient`)
        self.package_types: dict[str, dict[str, str]] = {}
        for f in self.files:
            d = _dir(f)
            self.dir_modules.setdefault(d, []).append(f.module)
            scope = self.packages.setdefault(d, {})
            for s in f.symbols:
                if s.kind == "chunk":
                    continue
                local = index.local_name[s.id]
                if s.parent is None and s.kind in TYPES and "." not in strip_duplicate(local):
                    self.package_types.setdefault(d, {}).setdefault(s.name, s.id)
                if "#" in local or (s.parent is not None and not index.is_type(s.parent)):
                    continue
                if s.parent is None and "." not in local:
                    if not _private(s):  # a private one is its file's only (found there)
                        scope.setdefault(s.name, s.id)
                elif s.parent is None and s.kind in FUNCTION_KINDS and s.class_name:
                    # `fun Route.get(...)` at top level: a name of the package, for a call
                    # without a receiver (`get("/") {}` in a lambda with a Route receiver)
                    self.extensions.setdefault(d, {}).setdefault(s.name, s.id)
                    self.fqn.setdefault(f"{d}.{s.name}" if d else s.name, []).append(s.id)
                if s.kind in TYPES or s.parent is None:
                    parts = f"{d}.{local}".split(".") if d else local.split(".")
                    for i in range(len(parts) - 1):
                        self.fqn.setdefault(".".join(parts[i:]), []).append(s.id)
        for d in self.packages:
            parts = d.split(".") if d else []
            for i in range(len(parts)):
                self.dirs.setdefault(".".join(parts[i:]), []).append(d)
        self._merge_companions()
        # Overloads: the definitions sharing one qualified name (`get`, `get#2`), in order.
        groups: dict[tuple[str, str], list[str]] = {}
        for f in self.files:
            for s in f.symbols:
                if s.kind in FUNCTION_KINDS and s.id in index.local_name:
                    # Kotlin's top-level functions overload over the files of their package
                    where = f"package {_dir(f)}" if s.parent is None else f.module
                    key = (where, strip_duplicate(index.local_name[s.id]))
                    groups.setdefault(key, []).append(s.id)
        self._primary: dict[str, tuple[Parameter, ...]] = {}
        for f in self.files:
            if f.language != "kotlin":
                continue
            for s in f.symbols:
                # a class's primary constructor is an overload of its `constructor`s
                key = (f.module, f"{index.local_name.get(s.id, '')}.constructor")
                if s.kind in TYPES and key in groups and _primary_parameters(s.name, s.signature):
                    groups[key].insert(0, s.id)
        self.overloads: dict[str, list[str]] = {
            sid: ids for ids in groups.values() if len(ids) > 1 for sid in ids
        }
        self._scopes: dict[str, tuple[dict[str, object], list[Import]]] = {}
        self._implicit_memo: dict[tuple[str, str], tuple[list[str], bool]] = {}
        self._receivers_stopped: set[tuple[str, str]] = set()  # at a receiver not known
        self._owners: dict[tuple[str, str], Outcome] = {}  # (caller, call taking a lambda)
        # (type, name, module) -> the extensions of the type (or a base) the module sees
        self._extensions_of: dict[tuple[str, str, str], list[str]] = {}
        self._prepare_properties()
        self._prepare_companions()
        for f in self.files:
            for s in f.symbols:
                if s.kind in TYPES:
                    self._resolve_bases(s, f)

    def _prepare_companions(self) -> None:
        """Scala: a class (or trait) and its companion ``object`` of the same name, and the
        object's ``apply`` methods: ``X(...)`` calls them, ``new X(...)`` the class."""
        # a type's id -> (the class, the companion object, the object's `apply`s)
        self._companions: dict[str, tuple[str | None, str | None, list[str]]] = {}
        index = self.index
        local_name = index.local_name
        for f in self.files:
            if f.language != "scala":
                continue
            groups: dict[str, list[Symbol]] = {}
            for s in f.symbols:
                if s.kind in TYPES:
                    groups.setdefault(strip_duplicate(local_name[s.id]), []).append(s)
            for members in groups.values():
                obj = next((s.id for s in members if s.kind == "module"), None)
                cls = next((s.id for s in members if s.kind != "module"), None)
                if obj is None:
                    continue
                # the class's own `apply(c: HCursor)`: anonymous instances in the object
                # (`new Decoder[X] { def apply(c: HCursor) }`) hoisted as its members override
                # it, they are no factory
                own = {
                    tuple(simple_type(p.type) for p in s.parameters)
                    for s in f.symbols
                    if s.parent == cls and s.name == "apply" and cls is not None
                }
                name = index.by_id[obj].name
                applies = [
                    s.id
                    for s in f.symbols
                    if s.parent == obj
                    and s.name == "apply"
                    and tuple(simple_type(p.type) for p in s.parameters) not in own
                    and _makes(s.return_type, name)
                ]
                for s in members:
                    self._companions[s.id] = (cls, obj, applies)

    def _local_twins(self, sid: str) -> bool:
        """Whether a Scala class or trait shares its name with another class or trait of the
        same scope (each declared in its own block: `test("a") { case class Foo(..) }`)."""
        index = self.index
        sym = index.by_id[sid]
        if not index.is_type(sid) or sym.kind == "module" or sym.parent is None:
            return False
        table = index.local.get(index.file_of[sid].module, {})
        base = strip_duplicate(index.local_name[sid])
        for n in range(1, 10):
            other = table.get(f"{base}#{n}" if n > 1 else base)
            if other is None:
                if n > 1:
                    break
                continue
            if other != sid and index.is_type(other) and index.by_id[other].kind != "module":
                return True
        return False

    def _scala_construct(self, type_id: str, new: bool) -> Outcome | None:
        """``new X(...)``: the class X, not its companion object; ``X(...)``: the companion's
        ``apply`` (one; several: not known which, no edge), a case class when its object
        defines none. None: leave the call as resolved (no companion, or nothing to say)."""
        found = self._companions.get(type_id)
        if found is None:
            return None
        cls, _, applies = found
        if new:
            return [(cls, EXACT)] if cls is not None else None
        if cls is not None and "case class" in self.index.by_id[cls].signature:
            # its synthesized `apply` makes the case class (explicit ones: not known which)
            return None if applies else [(cls, EXACT)]
        if not applies:
            return None
        return [(applies[0], EXACT)] if len(applies) == 1 else AMBIGUOUS

    def _library_parameter(self, ctx: Ctx, name: str, method: str) -> bool:
        """Scala ``eqW.eqv(a, b)`` with ``eqW: Eq[W]`` a parameter of a library type: the
        library's method, unless the repository adds a method of that name to other types
        (an implicit class's, an extension's: ``xs.asJson``)."""
        written = next(
            (p.type for fn in ctx.chain for p in fn.parameters if p.name == name and p.type),
            None,
        )
        if written is None or self.declared_type(ctx, written) != EXTERNAL:
            return False
        return not self._added_syntax(method)

    def _added_syntax(self, method: str) -> bool:
        """Scala: whether the repository adds a method of this name to other types (an
        implicit class's, an extension's: ``xs.asJson``)."""
        syntax = self._syntax.get(method)
        if syntax is None:
            index = self.index
            syntax = self._syntax[method] = any(
                is_extension(index.by_id[sid], index)
                or (
                    (owner := self.owner_type(sid)) is not None
                    and "implicit " in index.by_id[owner].signature
                )
                for sid in index.names.get((self.family, method), ())
            )
        return syntax

    def _summoned(self, ctx: Ctx, name: str, method: str) -> Outcome | None:
        """Scala ``Encoder[String].contramap``: ``Encoder[String]`` calls the companion's
        ``apply[A]`` (which makes an Encoder), so the method is the class's, not the
        object's."""
        t = self.lookup(ctx, name)
        found = self._companions.get(t[1]) if t is not None and t[0] == SYM else None
        if found is None or found[0] is None or not found[2]:
            return None
        return self._walk(ctx, [(name, PLAIN), (method, PLAIN)], (INST, found[0]))

    def _prepare_properties(self) -> None:
        """Kotlin: type aliases (what each stands for) and the properties of types (a class's
        or an interface's ``val``s, a primary constructor's ``val`` parameters, extension
        properties), with their declared types, for calls on a receiver's property."""
        index = self.index
        self.aliases: dict[str, str] = {}  # a type alias's id -> the type it stands for
        # type id -> property name -> (declared type, the id of the symbol it is written in)
        self.properties: dict[str, dict[str, tuple[str, str]]] = {}
        # name -> (receiver's simple name, declared type, id) of the extension properties
        self.ext_properties: dict[str, list[tuple[str, str, str]]] = {}
        # (package, name) -> (declared type, id) of the top-level values (Kotlin `val`s)
        self.top_values: dict[tuple[str, str], list[tuple[str, str]]] = {}
        self._property_memo: dict[tuple[str, str, str], tuple[Target, str] | None] = {}
        for f in self.files:
            if f.language != "kotlin":
                continue
            for s in f.symbols:
                if s.kind == "interface" and "typealias " in s.signature:
                    m = re.search(r"\btypealias\s+\w+\s*(?:<[^=]*>)?\s*=\s*(.+)", s.signature)
                    if m:
                        self.aliases[s.id] = m[1].strip()
                elif s.kind in TYPES and "(" in s.signature:
                    if "val " not in s.signature and "var " not in s.signature:
                        continue
                    for name, t in _primary_properties(s.name, s.signature).items():
                        self.properties.setdefault(s.id, {})[name] = (t, s.id)
        for s in index.by_id.values():
            if s.kind not in VALUE_KINDS or s.language != "kotlin":
                continue
            found = _property_type(s.signature)
            if found is None:
                continue
            name, t = found
            if s.parent is not None and index.is_type(s.parent):
                if s.class_name == index.by_id[s.parent].name:
                    self.properties.setdefault(s.parent, {}).setdefault(name, (t, s.id))
            elif s.parent is None and s.class_name:
                self.ext_properties.setdefault(name, []).append((s.class_name, t, s.id))
            elif s.parent is None and "private " not in s.signature.split("val", 1)[0]:
                # `val SSE: ClientPlugin<SSEConfig> = ...`: a package's value, by its type
                key = (_dir(index.file_of[s.id]), name)
                self.top_values.setdefault(key, []).append((t, s.id))

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
                        scala = s.language == "scala"
                        for name, mid in index.members.get(s.id, {}).items():
                            if index.members[first].setdefault(name, mid) == mid and scala:
                                index.lent.add(mid)
                        for name, mid in index.members.get(first, {}).items():
                            if index.members[s.id].setdefault(name, mid) == mid and scala:
                                index.lent.add(mid)

    def member_written(self, type_id: str, name: str) -> tuple[str, FileResult] | None:
        index = self.index
        owners = [type_id] + [
            c
            for c in index.members.get(type_id, {}).values()
            if c in index.by_id
            and index.is_type(c)
            and "companion object" in index.by_id[c].signature
        ]
        for t in owners:
            prop = self.properties.get(t, {}).get(name)
            if prop is not None:
                return prop[0], index.file_of[prop[1]]
        return None

    def value_written(self, ctx: Ctx, name: str) -> tuple[str, FileResult] | None:
        """``install(SSE)``, ``respondText(text)``: the type a property of the class around
        (or of its bases), else a top-level value of a package the file sees (or imports the
        name from), is declared with, and the file it is written in; None when not known."""
        if ctx.cls is not None:
            for t in self.index.mro(ctx.cls):
                prop = self.properties.get(t, {}).get(name)
                if prop is not None:
                    return prop[0], self.index.file_of[prop[1]]
        found = {
            (t, sid)
            for d in self._visible_packages(ctx.file) | self._imported_as(ctx.file, name)
            for t, sid in self.top_values.get((d, name), ())
        }
        if len(found) != 1:
            return None
        t, sid = found.pop()
        return t, self.index.file_of[sid]

    def base_type(self, sym: Symbol, file: FileResult, text: str) -> str | None:
        return self._type(file, text)

    def repo_type(self, file: FileResult, text: str) -> str | None:
        return self._type(file, text)

    def _type(self, file: FileResult, text: str) -> str | None:
        key = (file.path, text)
        found = self._type_memo.get(key, False)
        if found is False:
            found = self._type_memo[key] = self._find_type(file, text)
        return found  # type: ignore[return-value]

    def _find_type(self, file: FileResult, text: str) -> str | None:
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
        if t is not None and t[0] == SYM and not self.index.is_type(t[1]):
            # `HttpClient`: the class, not the factory function of its name
            same = self.package_types.get(_dir(self.index.file_of[t[1]]), {}).get(parts[0])
            t = (SYM, same) if same is not None else t
        for p in parts[1:]:
            if t is None or t[0] != SYM:
                break
            t = self.member(t, p)
        found = t[1] if t is not None and t[0] == SYM and self.index.is_type(t[1]) else None
        if found is not None and found in self.aliases:
            # `typealias Handler = Pipeline<..>`: the type it stands for; a function type's
            # alias names no type
            what = self.aliases[found]
            if "->" in what or what.split("<", 1)[0].strip() == name:
                return None
            return self._type(self.index.file_of[found], what)
        return found

    def _alias(self, file: FileResult, text: str) -> tuple[str, FileResult] | None:
        """``RoutingHandler`` -> ``suspend RoutingContext.() -> Unit``: what a type alias
        written in ``file`` stands for, and the file that defines it; None when ``text`` names
        none."""
        name = _TYPE_MODIFIERS.sub("", text.strip()).split("<", 1)[0].strip().rstrip("?")
        if not name.isidentifier():
            return None
        t = self._scoped(file, name)
        if t is None or t[0] != SYM or t[1] not in self.aliases:
            return None
        return self.aliases[t[1]], self.index.file_of[t[1]]

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
        key = (file.path, name)
        found = self._scoped_memo.get(key, False)
        if found is False:
            found = self._scoped_memo[key] = self._find_scoped(file, name)
        return found  # type: ignore[return-value]

    def _find_scoped(self, file: FileResult, name: str) -> Target | None:
        names, wild = self._file_scope(file)
        value = names.get(name)
        if isinstance(value, Import):
            value = self._import(value)
            names[name] = value
        if value is not None:
            return value  # type: ignore[return-value]
        own = self.index.local.get(file.module, {}).get(name)
        if (
            own is not None
            and self.index.by_id[own].parent is None
            and _private(self.index.by_id[own])
        ):
            return (SYM, own)  # the file's own private definition: no name of the package
        hit = self.packages.get(_dir(file), {}).get(name)
        if hit is not None:
            return (SYM, hit)
        for imp in wild:
            t = self._in_wildcard(imp.module, name)
            if t is not None:
                return t
        if name in _BUILTINS:
            return EXTERNAL
        return self._extension_in_scope(file, name) if self.extensions else None

    def _extension_in_scope(self, file: FileResult, name: str) -> Target | None:
        """A bare call of a top-level extension function of the file's package or of one it
        imports with a wildcard: its receiver is the implicit one of a lambda (`routing { get()
        }`). Only when one package gives the name and no type of those packages has a member
        of that name (the lambda's receiver might be that type)."""
        visible = self._visible_packages(file)
        hits = {self.extensions[d][name] for d in visible if name in self.extensions.get(d, ())}
        if len({strip_duplicate(h) for h in hits}) != 1:
            return None
        for sid in self.index.names.get((self.family, name), ()):
            owner = self.owner_type(sid)
            if owner is not None and _dir(self.index.file_of[owner]) in visible:
                return None
        return (SYM, next(iter(hits)))

    def _visible_packages(self, file: FileResult) -> set[str]:
        found = self._visible.get(file.module)
        if found is None:
            found = {_dir(file)}
            for imp in file.imports:
                if imp.name == "*":
                    found.update(self.dirs.get(imp.module, ()))
                elif imp.name:
                    t = self._import(imp)
                    if t[0] == SYM and self.index.is_type(t[1]):
                        found.add(_dir(self.index.file_of[t[1]]))
            self._visible[file.module] = found
        return found

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
        if ctx.sym.language == "scala":
            # `(b = List.newBuilder()).result`, `(F: Apply[F]).map2`: the library's method,
            # unless an implicit class or an extension of the repository adds one of that name
            return None if self._added_syntax(rest) else EXTERNAL_CALL
        index = self.index
        ext = [
            sid
            for sid in index.names.get((self.family, rest), ())
            if is_extension(index.by_id[sid], index)
            # a private extension of another file is not seen here
            and not (
                "private " in index.by_id[sid].signature.split("fun ", 1)[0]
                and index.file_of[sid].path != ctx.file.path
            )
        ]
        if not ext:
            return EXTERNAL_CALL
        supertypes: tuple[str, ...] = ()
        if type_text is not None:
            simple = type_text.split("<", 1)[0].rstrip("?").strip().rsplit(".", 1)[-1]
            mine = [sid for sid in ext if index.by_id[sid].class_name == simple]
            if len(mine) == 1 and len(ext) == 1:
                return [(mine[0], EXACT)]
            if mine:
                return None
            supertypes = _LIBRARY_SUPERTYPES.get(simple, ())
        if any(self._may_receive_library_value(sid, supertypes) for sid in ext):
            return None
        # every extension of the name is of a repository type, which a library's value is
        # not: the library type's own method (`(buffer: ByteBuffer).clear()`)
        return EXTERNAL_CALL

    def _may_receive_library_value(self, sid: str, supertypes: tuple[str, ...] = ()) -> bool:
        """Whether an extension function's receiver may be a library's value: a library type
        (its subtypes are not known; ``supertypes``: the value's type's, where known) or a
        type parameter; not a repository type."""
        sym = self.index.by_id[sid]
        receiver = sym.class_name or ""
        head = sym.signature.split("(", 1)[0]
        if re.search(rf"<(?:[^<>]|<[^<>]*>)*\b{re.escape(receiver)}\b", head):
            return True  # `fun <T> T.foo()`
        if supertypes and receiver not in supertypes:
            return False  # `MutableMap<..>.add` takes no `ArrayList`
        return self._type(self.index.file_of[sid], receiver) is None

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
            return self._unalias((DECL, t))
        name = text.split("<", 1)[0].split("[", 1)[0].strip().rstrip("?")
        if name in _PRIMITIVES:
            return EXTERNAL
        head = name.split(".", 1)[0]
        if not head.isidentifier():
            return None
        found = self.lookup(ctx, head)
        if found is not None and found[0] == SYM and self.index.is_type(found[1]) and head == name:
            return (DECL, found[1])
        if found is None and head == name and not self._type_parameter(ctx, name):
            # `input: Source` (kotlinx.io's, through a wildcard import): no type of the
            # repository has the name, and no type parameter around does
            if self._library_type_name(ctx.sym, name):
                return EXTERNAL
        return EXTERNAL if found == EXTERNAL else None

    def _type_parameter(self, ctx: Ctx, name: str) -> bool:
        """Whether a function around the caller or a class around it declares a type
        parameter ``name`` (`fun <T> f(x: T)`, `class Box<T>`)."""
        pattern = re.compile(rf"<[^()]*\b{re.escape(name)}\b")
        around = [*ctx.chain, ctx.sym]
        cls = ctx.cls
        while cls is not None and cls in self.index.by_id:
            around.append(self.index.by_id[cls])
            cls = self.index.by_id[cls].parent
        return any(pattern.search(s.signature.split("(", 1)[0]) for s in around)

    def value_of(self, ctx: Ctx, text: str) -> Target | None:
        """Also: Kotlin ``launch()``, a function the repository defines nowhere and the caller
        does not bind: a library's value."""
        found = super().value_of(ctx, text)
        if (
            found is not None
            and found[0] == INST
            and not self.index.is_type(found[1])
            and self.index.is_callable(found[1])
        ):
            found = self.returns(found[1])  # `BytePacketBuilder()`: a factory function's value
        found = self._unalias(found)
        if found is None and ctx.sym.language == "kotlin" and _CALLED_NAME.fullmatch(text):
            name = text[:-2]
            if not self.index.names.get((self.family, name)) and self.local(ctx, name) is NOT_LOCAL:
                return EXTERNAL
        return found

    def local(self, ctx: Ctx, name: str) -> Target | None | object:
        found = super().local(ctx, name)
        if isinstance(found, tuple) and found[0] == SYM:
            sym = self.index.by_id[found[1]]
            if sym.language == "kotlin" and "override " in sym.signature.split("fun ", 1)[0]:
                return NOT_LOCAL  # a member of an object expression in the function: not in scope
        return found

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

    def returns(self, sym_id: str) -> Target | None:
        """What a method returns, by its declared type: an instance of a repository type (its
        own nested types too), a library's value, or None (none declared, a type parameter)."""
        sym = self.index.by_id[sym_id]
        text = sym.return_type
        if not text and sym.language == "kotlin" and sym.kind in FUNCTION_KINDS:
            # `fun BytePacketBuilder(): Sink = kotlinx.io.Buffer()`: written after the
            # parameters, before the expression body
            m = _RETURNS.search(sym.signature)
            text = m[1] if m else None
        if not text or sym.language == "scala":
            return None
        file = self.index.file_of[sym_id]
        t = self._type(file, text)
        name = text.split("<", 1)[0].split("[", 1)[0].strip().rstrip("?")
        cls = sym.parent if self.index.is_type(sym.parent) else None
        while t is None and cls is not None and name.isidentifier():
            hit = self.index.find_member(cls, name)[0]
            if hit is not None and self.index.is_type(hit):
                t = hit
            elif self.index.by_id[cls].name == name:
                t = cls
            parent = self.index.by_id[cls].parent
            cls = parent if self.index.is_type(parent) else None
        if t is not None:
            return (DECL, t)
        if name in _PRIMITIVES or name in ("void", "Unit", "String", "Any"):
            return EXTERNAL
        head = name.split(".", 1)[0]
        if head.isidentifier() and len(head) > 2 and self._scoped(file, head) == EXTERNAL:
            return EXTERNAL
        if head == name and self._library_type_name(sym, name):
            return EXTERNAL  # `fun BytePacketBuilder(): Sink` (kotlinx.io's, a wildcard import)
        return None

    def _unalias(self, target: Target | None) -> Target | None:
        """A value of a type alias is a value of what it stands for: a repository type, or a
        library's (`typealias BytePacketBuilder = Sink`, kotlinx.io's: its methods are the
        library's); a function type or one not known: None."""
        if target is None or target[0] not in (INST, DECL) or target[1] not in self.aliases:
            return target
        written = self.aliases[target[1]]
        if "->" in written:
            return None
        file = self.index.file_of[target[1]]
        t = self._type(file, written)
        if t is not None:
            return (target[0], t) if t not in self.aliases else None
        name = written.split("<", 1)[0].strip().rstrip("?")
        if name in _PRIMITIVES or self._scoped(file, name.split(".", 1)[0]) == EXTERNAL:
            return EXTERNAL
        if "." in name or self._library_type_name(self.index.by_id[target[1]], name):
            return EXTERNAL  # `= kotlinx.io.Sink`, or a name no repository type has
        return None

    def _library_type_name(self, sym: Symbol, name: str) -> bool:
        """Whether a declared type's name is no type of the repository at all (nor a type
        parameter of the function or its class): a library's, whatever import brings it."""
        if len(name) <= 2 or not name[:1].isupper() or not name.isidentifier():
            return False
        if any(self.index.is_type(i) for i in self.index.names.get((self.family, name), ())):
            return False
        for s in (sym, self.index.by_id.get(sym.parent or "")):
            if s is not None and re.search(rf"<[^()]*\b{name}\b", s.signature.split("(", 1)[0]):
                return False  # `fun <Sink> f(): Sink`: a type parameter
        return True

    # --- calls ----------------------------------------------------------------------------------

    def resolve_call(self, ctx: Ctx, text: str) -> Outcome:
        if text[-9:] == "trailing)" and ctx.sym.language == "kotlin":
            # a call taking a lambda: the calls inside ask for it again, for their receiver
            key = (ctx.sym.id, text)
            found = self._owners.get(key)
            if found is None:
                found = self._owners[key] = self._resolve_call(ctx, text)
            return found
        return self._resolve_call(ctx, text)

    def _resolve_call(self, ctx: Ctx, text: str) -> Outcome:
        if text[:4] == "(=> ":
            return self._value_call(ctx, text)
        if self._library_qualified(ctx, text):
            return EXTERNAL_CALL
        typed = False
        if ">/(" in text and ctx.sym.language == "kotlin":
            # `get<User>/(trailing)`: type arguments choose a generic overload, and go
            receiver, rest = _implicit_split(text)
            typed = ">/(" in rest
            text = (f"{{{receiver}}}" if receiver else "") + _drop_type_arguments(rest)
        if ctx.sym.language == "kotlin" and (
            text[:1] == "{" or _BARE_CALL.match(text) or _PATH_CALL.match(text)
        ):
            # a Kotlin call without a receiver: in a lambda with one (`{routing/(trailing)}get/(…)`)
            # or in an extension function (`fun Application.main() { install(X) }`)
            receiver, text = _implicit_split(text)
            out = self._implicit_call(ctx, receiver, text, typed)
            if out is not None:
                return out
            if receiver and self._receivers(ctx, receiver)[1]:
                # `buildString { append(x) }`: a library's receiver may have the method; a name
                # in scope (the package's function) still resolves, no unique-name guess
                out = self._implicit_call(ctx, None, text, typed)  # an extension function's
                if out is None:
                    out = self._resolve_plain(ctx, text, typed)
                if isinstance(out, list) and all(r == UNIQUE for _, r in out):
                    out = self.not_found(text.split("/", 1)[0].split("<", 1)[0])
                if out in (AMBIGUOUS, UNRESOLVED) and self._out_of_reach(ctx, receiver, text):
                    return EXTERNAL_CALL
                return out
            if _BARE_CALL.match(text):
                out = self._resolve_plain(ctx, text, typed)
                if out in (AMBIGUOUS, UNRESOLVED) and self._out_of_reach(ctx, receiver, text):
                    return EXTERNAL_CALL
                return out
        return self._resolve_plain(ctx, text, typed)

    def _resolve_plain(self, ctx: Ctx, text: str, typed: bool = False) -> Outcome:
        """A call by its name or path, its arguments choosing among overloads."""
        if text.startswith("(?)."):
            # a method of an expression's value (`getAll(name)?.contains(v)`): not `this`'s;
            # only the repository's one method of that name, if any
            name = text[4:].split("/", 1)[0]
            return self.member_fallback(name, ctx) if name.isidentifier() else UNRESOLVED
        m = ARGS.search(text) if text[-1:] == ")" and ctx.sym.language in _ARGUMENTS else None
        if m is None:
            summoned = _SUMMONED.fullmatch(text) if ctx.sym.language == "scala" else None
            if summoned is not None:
                out = self._summoned(ctx, summoned[1], summoned[2])
                if out is not None:
                    return out
            on_param = _PARAM_CALL.fullmatch(text) if ctx.sym.language == "scala" else None
            if on_param is not None and self._library_parameter(ctx, on_param[1], on_param[2]):
                return EXTERNAL_CALL
            out = super().resolve_call(ctx, text)
            if ctx.sym.language == "scala" and isinstance(out, list) and len(out) == 1:
                if self._local_twins(out[0][0]):
                    # `case class Foo` declared in each of several test blocks of one suite:
                    # which block's the call is in is not known here
                    return AMBIGUOUS
                if out[0][0] in self._companions:
                    return self._scala_construct(out[0][0], text.startswith("new ")) or out
            return out
        args = [a.strip() for a in m[1].split(",")] if m[1].strip() else []
        name = text[: m.start()]
        if self.overloads and ctx.cls is not None and name.isidentifier():
            sibling = self._sibling(ctx, name, args)
            if sibling is not None:
                return sibling
        ctx.scope["args"] = (args, typed)  # for a typed receiver's extensions (`_typed`)
        try:
            out = super().resolve_call(ctx, name)
        finally:
            ctx.scope.pop("args", None)
        if not isinstance(out, list):
            return out
        chosen = self.choose(ctx, out, args)
        if not chosen:
            return Undecided(self.undecided)  # overloads the arguments cannot decide between
        if ctx.sym.language == "kotlin" and len(chosen) == 1:
            factory = self._factory_instead(ctx, next(iter(chosen)), args)
            if factory is not None:
                return factory
        if self.fits_none(ctx, chosen, args):
            # no definition the name reached can take these arguments: not the callee
            # (`routing { }` next to a test's own `fun routing(rootPath: String)`)
            if ctx.sym.language == "kotlin" and name.isidentifier():
                ext = self._extension_in_scope(ctx.file, name)
                if ext is not None and self._overload_takes(ctx, ext[1], args):
                    return [(ext[1], EXACT)]
            return UNRESOLVED
        return list(chosen.items())

    # --- Kotlin: calls on a call's value ----------------------------------------------------

    def _value_call(self, ctx: Ctx, text: str) -> Outcome:
        """``(=> client.get/(Url)).body<String>/()``: a method called on the value another call
        returns (``client.get(url).body<String>()``), through that call's declared return type:
        its members, then the extensions the file sees; a library's value: external, unless a
        repository extension may take it. Else, as for any expression's value, only the
        repository's one method of that name."""
        inner, rest = _value_split(text)
        typed = ">/(" in rest
        if typed:
            rest = _drop_type_arguments(rest)
        m = ARGS.search(rest) if rest[-1:] == ")" else None
        name = rest[: m.start()] if m else rest
        if inner is None or not name.isidentifier():
            return UNRESOLVED
        args = [a.strip() for a in m[1].split(",")] if m and m[1].strip() else []
        value = self._call_value(ctx, inner)
        if value is not None:
            target, written = value
            if name in _ANY_EXTENSIONS and (
                target[0] == EXT or self.index.find_member(target[1], name)[0] is None
            ):
                return EXTERNAL_CALL  # `.apply { }` on a known value: the standard library's
            if target[0] == EXT:
                out = self.external_member(ctx, written, name)
                if out is not None:
                    return out
            elif self.index.is_type(target[1]):
                out = self._on_receiver(ctx, target[1], name, args, typed)
                if out is not None:
                    return out
                # not the type's, nor an extension the file sees: a library base's, else unknown
                if self.index.find_member(target[1], name)[1]:
                    return EXTERNAL_CALL
                return self.not_found(name)
        return self.member_fallback(name, ctx)

    def _call_value(self, ctx: Ctx, call: str) -> tuple[Target, str | None] | None:
        """What a call returns: an instance of a repository type (a constructor's, a declared
        return type's), a library's value (with its type as written), or None (not known, or
        the callees disagree)."""
        out = _candidates(self.resolve_call(ctx, call))
        if out == EXTERNAL_CALL:
            return EXTERNAL, None
        if not isinstance(out, list):
            return None
        index = self.index
        found: set[tuple[Target, str | None]] = set()
        for dst, res in out:
            if res not in (EXACT, OVERLOAD):
                continue
            sym = index.by_id[dst]
            if index.is_type(dst):
                found.add(((INST, dst), None))
            elif sym.name == "constructor" and index.is_type(sym.parent):
                found.add(((INST, str(sym.parent)), None))
            else:
                t = self.returns(dst)
                if t is None or (t[0] != EXT and not index.is_type(t[1])):
                    return None
                found.add((t, sym.return_type if t[0] == EXT else None))
        return found.pop() if len(found) == 1 else None

    # --- Kotlin: lambdas with receivers -----------------------------------------------------

    def _implicit_call(
        self, ctx: Ctx, receiver: str | None, text: str, typed: bool = False
    ) -> Outcome | None:
        """``get("/") { }`` in ``routing { }``: a member (then an extension visible in the file)
        of the implicit receivers, innermost first (the lambdas' the parser wrote, then the
        receiver of the extension function the call is in), by the arguments; None when none
        has one (the call is then resolved as before: the class around, the package), or when
        a receiver is not known (a library's lambda, ``x.apply`` on a value of unknown type, a
        type parameter): the name may be one of its members. A local function comes first."""
        m = ARGS.search(text) if text[-1:] == ")" else None
        callee = text[: m.start()] if m else text
        name = callee.split("<", 1)[0].strip()
        args = [a.strip() for a in m[1].split(",")] if m and m[1].strip() else []
        if not name.isidentifier():
            names = _SEPARATOR.split(callee)
            if len(names) > 1 and all(n.isidentifier() for n in names):
                return self._property_call(ctx, receiver, names, args, typed)
            return None
        if name in _BUILTINS:
            return None
        local = self.local(ctx, name)
        if isinstance(local, tuple) and local[0] == SYM:
            return None
        if local is not NOT_LOCAL:
            return DYNAMIC  # `block()`: a parameter's function value, no receiver's member
        for type_id in self._receivers(ctx, receiver)[0]:
            out = self._on_receiver(ctx, type_id, name, args, typed)
            if out is not None:
                return out
        return None

    def _out_of_reach(self, ctx: Ctx, receiver: str | None, text: str) -> bool:
        """Whether no definition of a bare call's name in the repository can be what it calls:
        no top-level function of a package the file sees or imports the name from, no member
        of the receivers around (the lambdas', the extension function's, the class's, along
        their hierarchies; any type's when a receiver is not known), no extension the file
        sees. Then it is a library's (`runTest { }`, `withTimeout(..)`, `assertFailsWith<..>`)."""
        name = text.split("/", 1)[0].split("<", 1)[0].strip()
        if not name.isidentifier() or self.local(ctx, name) is not NOT_LOCAL:
            return False
        index = self.index
        types, _ = self._receivers(ctx, receiver)
        stopped = (ctx.sym.id, receiver or "") in self._receivers_stopped
        around = set()
        for t in types:
            around |= index.related(t)
        cls = ctx.cls
        while cls is not None:
            around |= index.related(cls)
            parent = index.by_id[cls].parent
            cls = parent if index.is_type(parent) else None
        visible = self._visible_packages(ctx.file) | self._imported_as(ctx.file, name)
        for sid in index.names.get((self.family, name), ()):
            sym = index.by_id[sid]
            owner = self.owner_type(sid)
            if owner is not None:
                if stopped or owner in around or is_extension(sym, index):
                    return False
            elif sym.parent is None and _dir(index.file_of[sid]) in visible:
                return False
        return True

    def _property_call(
        self, ctx: Ctx, receiver: str | None, names: list[str], args: list[str], typed: bool
    ) -> Outcome | None:
        """``call.respond(x)`` in ``get { }``, ``client.get("/")`` in ``testApplication { }``:
        the head is a property of an implicit receiver (a lambda's, an extension function's,
        the class's own along its bases, innermost first); the call resolves on the property's
        declared type (its members, then the extensions the file sees). None when no receiver
        has the property, or a property on the way has no type we know."""
        head = names[0]
        if not head[:1].islower() or head in _BUILTINS or self.local(ctx, head) is not NOT_LOCAL:
            return None
        index = self.index
        types = list(self._receivers(ctx, receiver)[0])
        cls = ctx.cls
        while cls is not None:
            types.append(cls)
            parent = index.by_id[cls].parent
            cls = parent if index.is_type(parent) else None
        for type_id in types:
            found = self._property_of(ctx.file, type_id, head)
            if found is None:
                continue
            target, written = found
            for n in names[1:-1]:  # `call.request.headers.get(...)`
                if target[0] != DECL:
                    return None
                found = self._property_of(ctx.file, target[1], n)
                if found is None:
                    return None
                target, written = found
            last = names[-1]
            if target[0] == EXT:
                return self.external_member(ctx, written, last)
            out = self._on_receiver(ctx, target[1], last, args, typed)
            if out is not None:
                return out
            # not the type's nor an extension the file sees: a library base's, if it has one
            return EXTERNAL_CALL if index.find_member(target[1], last)[1] else None
        return None

    def _property_of(self, file: FileResult, type_id: str, name: str) -> tuple[Target, str] | None:
        """What the property ``name`` of a type (along its bases; else an extension property
        of it that ``file`` sees) holds: an instance of its declared type (DECL), a library's
        value (EXTERNAL), with the type as written; None when the type has no such property or
        its type is not known (a type parameter)."""
        key = (type_id, name, file.module)
        if key in self._property_memo:
            return self._property_memo[key]
        index = self.index
        hit = None
        for t in index.mro(type_id):
            hit = self.properties.get(t, {}).get(name)
            if hit is not None:
                break
        if hit is None and name in self.ext_properties:
            owners = {index.by_id[t].name for t in index.mro(type_id)}
            visible = self._visible_packages(file) | self._imported_as(file, name)
            seen = {
                (written, sid)
                for recv, written, sid in self.ext_properties[name]
                if recv in owners and _dir(index.file_of[sid]) in visible
            }
            if len({w for w, _ in seen}) == 1:
                hit = min(seen)
        found: tuple[Target, str] | None = None
        if hit is not None:
            written, sid = hit
            where = index.file_of[sid]
            t = self.declared_type_in(where, written)
            found = (t, written) if t is not None else None
        self._property_memo[key] = found
        return found

    def _typed(self, ctx: Ctx, typed: tuple[str, str, str, str]) -> Outcome | None:
        """Kotlin: a typed receiver whose type lacks the method: an extension of it (or of a
        base) that the file sees, chosen among its overloads by the arguments (``(channel:
        ByteWriteChannel).writeFully/(ByteArray)``); a path of the type's properties
        (``(client: HttpClient).requestPipeline.intercept``) through their declared types."""
        if ctx.sym.language != "kotlin":
            return super()._typed(ctx, typed)
        _, op, what, rest = typed
        names = _SEPARATOR.split(rest)
        lam = self._lambda_parameter(ctx, what) if op == " = " and what[:1] == "{" else None
        if lam is not None:  # `test { client -> client.get() }`: the callee's parameter type
            target, written = lam
            if not all(n.isidentifier() for n in names):
                return None
            if target[0] == EXT:
                return self.external_member(ctx, written, rest)
        else:
            if op == " = " and len(names) == 1 and _MADE.fullmatch(what):
                if self.value_of(ctx, what) == EXTERNAL:  # `ArrayList()`: a library's type
                    return self.external_member(ctx, what[:-2], rest)
            if len(names) == 1 or not all(n.isidentifier() for n in names):
                out = super()._typed(ctx, typed)
                if out is not None or len(names) > 1:
                    return out
            target = self.declared_type(ctx, what) if op == ": " else self.value_of(ctx, what)
            written = what
        if target is None or target[0] not in (INST, DECL) or not self.index.is_type(target[1]):
            return None
        for n in names[:-1]:  # `(client: HttpClient).requestPipeline.intercept`: properties
            found = self._property_of(ctx.file, target[1], n)
            if found is None:
                return None
            target, written = found
            if target[0] == EXT:
                return self.external_member(ctx, written, names[-1])
        args, typed_args = ctx.scope.get("args", ([], False))
        out = self._on_receiver(ctx, target[1], names[-1], args, typed_args)
        if out is None and (len(names) > 1 or lam is not None):
            return EXTERNAL_CALL if self.index.find_member(target[1], names[-1])[1] else None
        return out

    def _lambda_parameter(self, ctx: Ctx, what: str) -> tuple[Target, str] | None:
        """``{test/(trailing)}#0``: the type of the first parameter of the lambda ``test``
        takes, read off the callee's last parameter (``suspend (client: HttpClient) -> Unit``,
        ``T.(A) -> R``, a type alias of one): a repository type (DECL) or a library's (EXT),
        with the type as written; None when not known or the callees disagree."""
        end = what.rfind("}#")
        if end < 0 or not what[end + 2 :].isdigit():
            return None
        owner, at = what[1:end], int(what[end + 2 :])
        out = _candidates(self.resolve_call(ctx, owner))
        if not isinstance(out, list):
            return None
        found: set[tuple[Target, str]] = set()
        for dst, res in out:
            if res == OVERRIDE:
                continue
            params = self._overload_params(dst)
            written = params[-1].type if params else None
            where = self.index.file_of[dst]
            if written and "->" not in written:
                written, where = self._alias(where, written) or (written, where)
            types = _function_parameters(written)
            if types is None or at >= len(types):
                return None
            t = self.declared_type_in(where, types[at])
            if t is None:
                return None
            found.add((t, types[at]))
        return found.pop() if len(found) == 1 else None

    def declared_type_in(self, file: FileResult, text: str) -> Target | None:
        """A type written in ``file``: a repository type (DECL), a library's (EXTERNAL), or
        None (a type parameter, not known)."""
        t = self._type(file, text)
        if t is not None:
            return (DECL, t)
        simple = text.split("<", 1)[0].strip().rstrip("?")
        if simple in _PRIMITIVES:
            return EXTERNAL
        if simple.isidentifier() and len(simple) > 2 and self._scoped(file, simple) == EXTERNAL:
            return EXTERNAL
        return None

    def _receivers(self, ctx: Ctx, receiver: str | None) -> tuple[list[str], bool]:
        """The repository types of the implicit receivers, innermost first, up to the first
        one not known (those ``receiver`` writes, then the extension functions' around), and
        whether that one is a library's (the lambda of a library function, ``x.apply { }`` on
        a library value): not a type parameter's or an expression's of unknown type."""
        key = (ctx.sym.id, receiver or "")
        memo = self._implicit_memo.get(key)
        if memo is not None:
            return memo
        self._implicit_memo[key] = ([], False)  # a receiver written in terms of itself
        found: list[str] = []
        desc: str | None = receiver
        while desc:
            if desc == "?":
                self._implicit_memo[key] = (found, False)
                self._receivers_stopped.add(key)
                return found, False
            outer, body = _implicit_split(desc)
            if body.startswith(": "):
                t = self.declared_type(ctx, body[2:])
            elif body.startswith("= "):
                t = self.value_of(ctx, body[2:])
                if t is None and body[2:3].isupper():
                    t = EXTERNAL  # `File(path).apply { }`: a type the repository does not define
            else:
                outer, t = _implicit_split(desc)[0], self._lambda_receiver(ctx, desc)
                if t == _SAME:  # `runLater { }` taking a `() -> Unit`: the receivers around
                    desc = outer
                    continue
            if t is None or t[0] not in (INST, DECL) or not self.index.is_type(t[1]):
                library = t is not None and t[0] == EXT
                self._implicit_memo[key] = (found, library)
                self._receivers_stopped.add(key)
                return found, library
            found.append(t[1])
            desc = outer
        for fn in ctx.chain:  # `fun Application.main() { ... }`: `this` is the Application
            if fn.class_name and is_extension(fn, self.index):
                t = self._type(self.index.file_of[fn.id], fn.class_name)
                if t is None:
                    self._receivers_stopped.add(key)
                    break  # a library type, a type parameter: its members are not known
                found.append(t)
            elif fn.parent is not None and self.index.is_type(fn.parent):
                break  # a member function: the class's own `this` (resolved as before)
        self._implicit_memo[key] = (found, False)
        return found, False

    def _lambda_receiver(self, ctx: Ctx, call: str) -> Target | None:
        """The receiver of the lambda a call takes last: the callee's last parameter is
        ``T.() -> R`` (``suspend``, nullable); ``_SAME`` when it is a function type without a
        receiver (the lambda keeps the receivers around it); not known otherwise (a library's
        function's: EXTERNAL; a type alias, a type parameter, callees that disagree: None)."""
        out = _candidates(self.resolve_call(ctx, call))
        if not isinstance(out, list):
            return EXTERNAL if out == EXTERNAL_CALL else None
        types = set()
        for dst, res in out:
            if res == OVERRIDE:
                continue
            params = self._overload_params(dst)
            written = params[-1].type if params else None
            where = self.index.file_of[dst]
            if written and "->" not in written:  # `body: RoutingHandler`: a type alias
                written, where = self._alias(where, written) or (written, where)
            receiver = _function_receiver(written)
            if receiver is None and written and "->" in written:
                types.add(_SAME)
                continue
            t = self._type(where, receiver) if receiver else None
            if t is None:
                return None
            types.add((DECL, t))
        return types.pop() if len(types) == 1 else None

    def _on_receiver(
        self, ctx: Ctx, type_id: str, name: str, args: list[str], typed: bool = False
    ) -> Outcome | None:
        """A call of ``name`` on an implicit receiver of type ``type_id``: its member, else an
        extension of its type (or a base's) that the file sees; None when it has neither (or
        none that takes the arguments)."""
        index = self.index
        hit = index.find_member(type_id, name)[0]
        if hit is not None and index.is_callable(hit):
            out = self.call_target((SYM, hit), (DECL, type_id))
            if isinstance(out, list) and out:
                chosen = self.choose(ctx, out, args)
                if not chosen:
                    return Undecided(self.undecided)  # overloads the arguments cannot decide
                if not self.fits_none(ctx, chosen, args):
                    return list(chosen.items())
        key = (type_id, name, ctx.file.module)
        ext = self._extensions_of.get(key)
        if ext is None:
            owners = {index.by_id[t].name for t in index.mro(type_id)}
            visible = self._visible_packages(ctx.file) | self._imported_as(ctx.file, name)
            ext = self._extensions_of[key] = list(
                dict.fromkeys(
                    member  # each definition of the name with its overloads (`get`, `get#2`)
                    for sid in index.names.get((self.family, name), ())
                    for member in self.overloads.get(sid, (sid,))
                    if index.by_id[member].parent is None
                    and _receives(index.by_id[member], owners)
                    and _dir(index.file_of[member]) in visible
                )
            )
        if len(ext) > 1:
            # `get<User> { }` takes a generic overload; `post { }` without type arguments not
            # a `<reified R>` one, which needs them
            heads = {e: index.by_id[e].signature.split("(", 1)[0] for e in ext}
            if typed:
                fit = [e for e in ext if "fun <" in heads[e]]
            else:
                fit = [e for e in ext if not self._needs_type_arguments(e, heads[e])]
            ext = fit or ext
        picked = self._overload_pick(ctx, ext, args) if ext else None
        if picked and len(picked) == 1 and not self._overload_takes(ctx, picked[0], args):
            picked = None
        if not picked:
            return None
        if len(picked) > 1 and not self.one_parameter_list(picked):
            return Undecided(picked)  # extensions the arguments cannot decide between
        return [(picked[0], EXACT)] if len(picked) == 1 else self.variants(picked)

    def _library_qualified(self, ctx: Ctx, text: str) -> bool:
        """``kotlin.time.Clock.System.now()``, ``java.util.Objects.hash(x)``: a call written
        by a full name rooted in a platform or library package no scope binds and no package
        of the repository has: the library's (not a repository method of the last name)."""
        path = _implicit_split(text)[1] if text[:1] == "{" else text
        head, _, rest = path.partition(".")
        if head not in _LIBRARY_ROOTS or not rest[:1].islower():
            return False
        names = _SEPARATOR.split(path.split("/", 1)[0])
        prefix = []
        for n in names[:-1]:
            if not n[:1].islower():
                break
            prefix.append(n)
        if len(prefix) < 2 or self.dirs.get(".".join(prefix)):
            return False  # a package of the repository (`io.ktor.util.x()`)
        return self.local(ctx, head) is NOT_LOCAL

    def _factory_instead(self, ctx: Ctx, dst: str, args: list[str]) -> Outcome | None:
        """``GMTDate()``: a Kotlin class whose primary constructor cannot take the arguments,
        next to top-level functions of its name in its package (`fun GMTDate(timestamp: Long?
        = null)`): the function the arguments fit (several: not known which); None when the
        class takes them or no such function is there."""
        index = self.index
        sym = index.by_id[dst]
        if not index.is_type(dst) or sym.language != "kotlin" or "(" not in sym.signature:
            return None
        if _primary_parameters(sym.name, sym.signature) is None:
            return None  # no primary constructor read: nothing to compare
        if self._overload_takes(ctx, dst, args):
            return None
        where = _dir(index.file_of[dst])
        fns = [
            f
            for f in index.names.get((self.family, sym.name), ())
            if index.by_id[f].parent is None
            and index.by_id[f].kind in FUNCTION_KINDS
            and not index.by_id[f].class_name
            and _dir(index.file_of[f]) == where
        ]
        if not fns:
            return None
        group = list(dict.fromkeys(m for f in fns for m in self.overloads.get(f, (f,))))
        picked = self._overload_pick(ctx, group, args)
        if picked and len(picked) == 1 and self._overload_takes(ctx, picked[0], args):
            return [(picked[0], EXACT)]
        if picked and len(picked) > 1:
            if self.one_parameter_list(picked):
                return self.variants(picked)
            return Undecided(picked)
        return UNRESOLVED

    def _needs_type_arguments(self, sid: str, head: str) -> bool:
        """Whether a call must write a function's type arguments: a ``reified`` type parameter
        no parameter's value gives (``fun <reified R> Route.post(body: suspend
        RoutingContext.(R) -> Unit)``; ``respond(message: T)`` infers ``T`` from the message)."""
        if "reified " not in head:
            return False
        given = " ".join(
            p.type or "" for p in self._overload_params(sid) if p.type and "->" not in p.type
        )
        return any(
            not re.search(rf"\b{name}\b", given) for name in re.findall(r"\breified\s+(\w+)", head)
        )

    def _imported_as(self, file: FileResult, name: str) -> set[str]:
        """The packages a file imports a function ``name`` from (`import io.ktor.x.get`)."""
        return {
            d for imp in file.imports if imp.name == name for d in self.dirs.get(imp.module, ())
        }

    def _sibling(self, ctx: Ctx, name: str, args: list[str]) -> Outcome | None:
        """A bare call from one member of an overload set to another (``check()`` calling
        ``check(x, y)``): the walker would see the caller itself and look no further."""
        assert ctx.cls is not None
        hit = self.index.find_member(ctx.cls, name)[0]
        group = self.overloads.get(hit) if hit is not None else None
        if group is None or ctx.sym.id not in group:
            return None
        picked = self._overload_pick(ctx, group, args)
        if not picked or ctx.sym.id in picked or name in self.stop_names:
            return None
        if not self._hierarchy_unique(ctx.cls, name):
            return None  # Java writes `x.check(...)` as `check` when `x` is an expression
        if len(picked) > 1 and not self.one_parameter_list(picked):
            return Undecided(picked)  # overloads the arguments cannot decide between
        return [(picked[0], UNIQUE)] if len(picked) == 1 else self.variants(picked, UNIQUE)

    def _overload_params(self, sid: str) -> tuple[Parameter, ...]:
        """A member's parameters; for a Kotlin class, its primary constructor's."""
        sym = self.index.by_id[sid]
        if sym.kind not in TYPES:
            return sym.parameters
        found = self._primary.get(sid)
        if found is None:
            found = self._primary[sid] = _primary_parameters(sym.name, sym.signature) or ()
        return found

    def head(self, ctx: Ctx, name: str, how: int, alone: bool) -> Target | Outcome | None:
        if alone and how == PLAIN:
            if name == "this" and ctx.cls is not None:  # `this(...)`: another constructor
                return self._other_constructor(ctx)
            if ctx.sym.language != "java" and self._parameter(ctx, name):
                return DYNAMIC  # `toInt()` calls a parameter's value, not a method `toInt`
            if name not in self.super_names and ctx.cls is not None:
                java = ctx.sym.language == "java"
                out = self.implicit_member(ctx, name, name_only=java)
                if out is not None:
                    return out
        return super().head(ctx, name, how, alone)

    def _parameter(self, ctx: Ctx, name: str) -> bool:
        """Whether ``name`` is a parameter of the caller or a function around it (Kotlin,
        Scala): called, it is the parameter's value (a function, an object with ``apply``),
        which shadows the methods and functions of that name."""
        found = self.local(ctx, name)
        return found is not NOT_LOCAL and not (isinstance(found, tuple) and found[0] == SYM)

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
        if name == "it" and ctx.sym.language == "kotlin":
            return UNRESOLVED  # a lambda's implicit parameter, called: a function value
        ids = self.index.names.get((self.family, name))
        if ids and len(ids) == 1 and self.index.file_of[ids[0]].path != ctx.file.path:
            sig = self.index.by_id[ids[0]].signature
            if "private " in sig.split("fun ", 1)[0].split("(", 1)[0]:
                return UNRESOLVED  # a private function of another file: not this one
        if ctx.sym.language == "java":
            # `x.name(...)` on any receiver reads `name`: a name the JDK shares with one method
            # of the repository (`getType`, `isAssignableFrom`) would make a wrong edge.
            return (
                self.not_found(name) if self.index.names.get((self.family, name)) else EXTERNAL_CALL
            )
        return self.member_fallback(name, ctx)

    def member_fallback(self, name: str, ctx: Ctx) -> Outcome:
        if ctx.sym.language == "scala" and name in _SCALA_STOP:
            # `_.find(p)`, `xs.reverse.find(p)`: a name the standard library's collections,
            # options and builders define says nothing of a value of unknown type
            return UNRESOLVED if self.index.names.get((self.family, name)) else EXTERNAL_CALL
        out = super().member_fallback(name, ctx)
        if isinstance(out, list) and len(out) == 1 and self._private_elsewhere(out[0][0], ctx):
            return UNRESOLVED  # the one method of that name is private to another file's type
        return out

    def _private_elsewhere(self, sid: str, ctx: Ctx) -> bool:
        """Whether a definition, or a type around it, is ``private`` in a file other than the
        caller's: no call from there reaches it by name (``sourcePeek.require(n)`` on an okio
        source is not ``JsonValueReader``'s ``private fun require``)."""
        index = self.index
        if index.file_of[sid].path == ctx.file.path:
            return False
        at: str | None = sid
        while at is not None and at in index.by_id:
            if _private(index.by_id[at]):
                return True
            at = index.by_id[at].parent
        return False

    def member(self, target: Target, name: str) -> Target | None:
        if target[0] == SUPER and not self.index.bases.get(target[1]):
            return EXTERNAL if target[1] in self.index.open_types else None
        index = self.index
        kind, value = target
        if kind in (INST, DECL) and index.by_id[value].language == "scala":
            # an instance of a class or trait: its members and its bases', never those its
            # companion object lends it (`codecForT.encodeObject`, with `codecForT:
            # ReprAsObjectCodec[T]`, is no member of `object ReprAsObjectCodec`)
            if index.by_id[value].kind != "module":
                for t in index.mro(value):
                    hit = index.members.get(t, {}).get(name)
                    if hit is None:
                        continue
                    owner = index.by_id[hit].parent
                    if owner == t or owner is None or index.by_id[owner].kind != "module":
                        return (SYM, hit)
                    if index.by_id[t].kind == "module":
                        return (SYM, hit)
                return self._scala_value(value, name)
        found = super().member(target, name)
        if found is None and kind in (SYM, CLS) and self._scala_values:
            return self._scala_value(value, name)
        return found

    def _scala_value(self, type_id: str, name: str) -> Target | None:
        """``Decoder.resultInstance`` as a receiver: the object's ``val`` (of the type, its
        companion, their bases) by its declared type: a repository type's instance (DECL), a
        library's value (``MonadError[Result, ..]``: its methods are the library's, unless an
        implicit class or extension of the repository adds one of the name); None: not known."""
        index = self.index
        if type_id not in index.by_id or index.by_id[type_id].language != "scala":
            return None
        owners = [type_id]
        companion = self._companions.get(type_id)
        if companion is not None:
            owners += [t for t in companion[:2] if t is not None and t != type_id]
        for owner in owners:
            for t in index.mro(owner):
                sid = self._scala_values.get((t, name))
                if sid is None:
                    continue
                held = self._scala_value_type(sid)
                if held is not None and held[0] == EXT:
                    return LIBRARY_VALUE
                return held
        return None

    def _scala_value_type(self, sid: str) -> Target | None:
        """The declared type of a Scala ``val``/``var`` symbol (an object's), as a target: a
        repository type (DECL), a library's (EXTERNAL); None when not declared or not known."""
        found = self._value_types.get(sid, False)
        if found is not False:
            return found  # type: ignore[return-value]
        sym = self.index.by_id[sid]
        m = _SCALA_VALUE.search(sym.signature)
        found = None
        if m is not None:
            written = " ".join(m[1].split())
            found = self.declared_type_in(self.index.file_of[sid], written)
            if found is None:
                simple = written.split("[", 1)[0].strip()
                if simple in _PRIMITIVES or (
                    simple.isidentifier()
                    and self._scoped(self.index.file_of[sid], simple) == EXTERNAL
                ):
                    found = EXTERNAL
        self._value_types[sid] = found
        return found

    def fallback_candidate(self, sid: str) -> bool:
        """A method the unique-name fallback may reach: not an override, which (being the
        repository's only definition of its name) overrides a library's method, so a call of
        that name may be on any of the library's values (`getAsNumber().longValue()` on a
        `Number` is not `LazilyParsedNumber.longValue`)."""
        sym = self.index.by_id[sid]
        if sym.kind not in ("method", "function"):
            return False
        if any(
            d.split("(", 1)[0].strip() in ("Override", "java.lang.Override") for d in sym.decorators
        ):
            return False
        head = sym.signature.split("fun ", 1)[0] if sym.language == "kotlin" else ""
        return re.search(r"\boverride\b", head) is None

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


# `fun f(a: A): Sink = ...`: the return type written after the parameters
_RETURNS = re.compile(r"\)\s*:\s*([A-Za-z_][\w.]*(?:<[^=(){}]*>)?\??)\s*(?:=|\{|$|where\b)")


def _private(sym: Symbol) -> bool:
    """Whether a definition is declared ``private`` to its file or type (its modifiers, before
    its keyword). Scala's ``private[circe]`` is visible in the whole package it names, and a
    top-level ``private`` Scala definition in its own package: neither is its file's only."""
    head = re.split(r"\b(?:fun|class|object|interface|val|var)\b|\(", sym.signature, maxsplit=1)
    found = re.search(r"\bprivate\b(\s*\[)?", head[0])
    if found is None or found.group(1):
        return False
    return not (sym.language == "scala" and sym.parent is None)


def _candidates(out: Outcome) -> Outcome:
    """A call's edges, or the members of the overload set its arguments leave undecided (as
    ``overload`` edges): what they agree on (a lambda's receiver) holds whichever is called."""
    return [(m, OVERLOAD) for m in out.members] if isinstance(out, Undecided) else out


def _makes(return_type: str | None, name: str) -> bool:
    """Whether a companion's ``apply`` returning ``return_type`` makes a ``name`` (``apply[A](
    implicit d: Decoder[A]): Decoder[A]``, or none declared), as a factory does; an anonymous
    instance's ``apply(a: Json): Json``, hoisted into the object, does not."""
    if not return_type:
        return True
    return return_type.split("[", 1)[0].strip().rsplit(".", 1)[-1] == name


def _receives(sym: Symbol, owners: set[str]) -> bool:
    """Whether a top-level extension function takes a receiver of one of the types ``owners``
    (a type and its bases, by simple name): ``fun Route.get()``, or ``fun <P : Pipeline> P.
    install()`` whose type parameter's bound is one of them (no bound: any receiver)."""
    receiver = sym.class_name
    if not receiver:
        return False
    if receiver in owners:
        return True
    head = sym.signature.split("(", 1)[0]
    m = re.search(rf"<(?:[^<>]|<[^<>]*>)*\b{re.escape(receiver)}\b(\s*:\s*[\w.]+)?", head)
    if m is None:
        return False  # a type of its own that is none of them
    bound = m[1].split(":", 1)[1].strip().rsplit(".", 1)[-1] if m[1] else "Any"
    return bound == "Any" or bound in owners


# Library types whose supertypes are known (a value of one takes only extensions of these).
_LIBRARY_SUPERTYPES: dict[str, tuple[str, ...]] = {
    **{k: (k, *v) for k, v in CLOSED_TYPES.items()},
    **{
        k: (k, *v.split(), "Any", "Object")
        for k, v in {
            "ArrayList": "MutableList List MutableCollection Collection MutableIterable Iterable"
            " AbstractList AbstractMutableList RandomAccess",
            "HashMap": "MutableMap Map AbstractMutableMap",
            "LinkedHashMap": "HashMap MutableMap Map AbstractMutableMap",
            "HashSet": "MutableSet Set MutableCollection Collection MutableIterable Iterable",
            "LinkedHashSet": "HashSet MutableSet Set MutableCollection Collection Iterable",
            "StringBuilder": "Appendable CharSequence",
        }.items()
    },
}
_MADE = re.compile(r"[A-Z]\w*\(\)")  # `= ArrayList()`: a value the parser saw made
_CALLED_NAME = re.compile(r"[a-z]\w*\(\)")  # `= launch()`
# The standard library's extensions of every value (`x.apply { }`, `x.let { }`).
_ANY_EXTENSIONS = frozenset("apply let also run takeIf takeUnless to".split())
_PARAM_CALL = re.compile(r"([a-z]\w*)\.(\w+)")  # Scala `eqW.eqv`: a call on a plain name
_SUMMONED = re.compile(r"([A-Z]\w*)\[[^()]*\]\.(\w+)")  # Scala `Encoder[String].contramap`
_SEPARATOR = re.compile(r"\?\.|!!\.|\.")
# The roots of the platforms' and libraries' packages, written in a call by its full name
_LIBRARY_ROOTS = frozenset(
    "java javax jdk sun kotlin kotlinx android androidx org com io net okio okhttp3".split()
)
# `call.respond/(...)`: a call on a property of a name no scope binds (an implicit receiver's)
_PATH_CALL = re.compile(r"[a-z_]\w*(?:(?:\?\.|!!\.|\.)[A-Za-z_]\w*)+/\(")
_SAME: Target = ("same", "")  # a lambda without a receiver: `this` is the one around it
_BARE_CALL = re.compile(r"[A-Za-z_]\w*(?:<[^()]*>)?/\(")


def _drop_type_arguments(text: str) -> str:
    """``mutableListOf<suspend A.() -> Unit>/()`` -> ``mutableListOf/()``."""
    end = text.rfind(">/(")
    depth = 0
    for i in range(end, -1, -1):
        ch = text[i]
        if ch == ">" and not (i and text[i - 1] == "-"):
            depth += 1
        elif ch == "<":
            depth -= 1
            if depth == 0:
                return text[:i] + text[end + 1 :]
    return text


def _value_split(text: str) -> tuple[str | None, str]:
    """``(=> a.b/(Int)).c/()`` -> ("a.b/(Int)", "c/()"): the call whose value a method is
    called on (``languages/kotlin.py``), and the rest; (None, text) when unbalanced."""
    depth = 0
    for i, ch in enumerate(text):
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth == 0:
                return (text[4:i], text[i + 2 :]) if text[i + 1 : i + 2] == "." else (None, text)
    return None, text


def _implicit_split(text: str) -> tuple[str | None, str]:
    """``{routing/(trailing)}get/(String)`` -> ("routing/(trailing)", "get/(String)"): the
    implicit receiver the parser wrote before a call (``languages/kotlin.py``), and the call."""
    if text[:1] != "{":
        return None, text
    depth = 0
    for i, ch in enumerate(text):
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0:
                return text[1:i], text[i + 1 :]
    return None, text


_TYPE_MODIFIERS = re.compile(r"^(?:(?:suspend|noinline|crossinline)\s+|@[\w.]+\s*)+")


def _before_arrow(type_text: str) -> str | None:
    """``suspend Route.(Int) -> Unit`` -> ``Route.(Int)``: a function type's receiver and
    parameter list, its modifiers and enclosing parentheses removed; None for no function type."""
    t = _TYPE_MODIFIERS.sub("", " ".join(type_text.split()))
    while t.startswith("(") and _after_group(t) in ("", "?"):
        t = _TYPE_MODIFIERS.sub("", t[1 : len(t) - 1 - len(_after_group(t))].strip())
    depth, arrow = 0, -1
    for i, ch in enumerate(t):
        if ch in "(<":
            depth += 1
        elif ch in ")>" and not (ch == ">" and t[i - 1] == "-"):
            depth -= 1
        elif ch == "-" and depth == 0 and t[i + 1 : i + 2] == ">":
            arrow = i
            break
    left = t[:arrow].strip() if arrow > 0 else ""
    return left if left.endswith(")") else None


def _function_receiver(type_text: str | None) -> str | None:
    """``suspend Route.(Int) -> Unit`` -> ``Route``: the receiver of a function type; None for
    a function type without one, or no function type."""
    if not type_text:
        return None
    left = _before_arrow(type_text)
    if left is None:
        return None
    depth = 0
    for j in range(len(left) - 1, -1, -1):
        depth += {")": 1, "(": -1}.get(left[j], 0)
        if depth == 0:
            receiver = left[:j].strip()
            if not receiver.endswith("."):
                return None
            return receiver[:-1].strip() or None
    return None


def _function_parameters(type_text: str | None) -> list[str] | None:
    """``suspend TestInfo.(client: HttpClient, Int) -> Unit`` -> [HttpClient, Int]: the
    parameter types of a function type; None for no function type."""
    if not type_text or "->" not in type_text:
        return None
    left = _before_arrow(type_text)
    if left is None:
        return None
    depth, start = 0, len(left) - 1
    for j in range(len(left) - 1, -1, -1):
        depth += {")": 1, "(": -1}.get(left[j], 0)
        if depth == 0:
            start = j
            break
    inner, parts, depth, begin = left[start + 1 : -1], [], 0, 0
    for i, ch in enumerate(inner):
        if ch in "(<":
            depth += 1
        elif ch in ")>" and not (ch == ">" and inner[i - 1] == "-"):
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(inner[begin:i])
            begin = i + 1
    if inner.strip():
        parts.append(inner[begin:])
    out = []
    for part in parts:
        head, colon, rest = part.partition(":")
        named = colon and head.strip().isidentifier() and "(" not in head
        out.append((rest if named else part).strip())
    return out


def _after_group(t: str) -> str:
    """What follows the parenthesized group ``t`` starts with."""
    depth = 0
    for i, ch in enumerate(t):
        depth += {"(": 1, ")": -1}.get(ch, 0)
        if depth == 0:
            return t[i + 1 :]
    return t


# The first directory of a package's path, in the usual reverse-domain naming; where none is,
# a Maven/Gradle source root (`src/main/java/`) is cut off.
_PACKAGE_ROOTS = frozenset(
    "com org io net dev me edu kotlinx androidx uk de fr ch nl ru cn jp be se fi app co ai".split()
)
_SOURCE_ROOT = re.compile(r"(?:^|.*/)src/[^/]+/(?:java|kotlin|scala)/")


@lru_cache(maxsize=4096)
def _package_of(directory: str) -> str:
    parts = directory.split("/") if directory else []
    for i, part in enumerate(parts):
        if part in _PACKAGE_ROOTS and i + 1 < len(parts):
            return ".".join(parts[i:])
    m = _SOURCE_ROOT.match(directory + "/")
    return directory[m.end() :].replace("/", ".") if m else directory.replace("/", ".")


def _dir(file: FileResult) -> str:
    """A file's package, as its directory says: ``com.google.gson`` for both
    ``gson/src/main/java/com/google/gson/`` and ``gson/src/test/java/com/google/gson/`` (one
    package over source roots, main and test, Kotlin's ``jvm/src`` and ``common/src``)."""
    return _package_of_file(file.path)


@lru_cache(maxsize=16384)
def _package_of_file(path: str) -> str:
    return _package_of(posixpath.dirname(path))

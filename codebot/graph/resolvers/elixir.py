"""Elixir: modules are one namespace across files, functions are called through them.

``Shop.Cart.add`` is the function ``add`` of the module ``Shop.Cart`` wherever it is defined (a
module is a namespace of the parser's, spanning files, not a symbol);
``Cart.add`` after ``alias Shop.Cart`` (or ``alias Shop.{Cart, Item}``) is the same;
``__MODULE__.add`` and a bare ``add(x)`` are the caller's module's. A bare name the module does
not define may come from an ``import``ed module (``import Shop.Util``), else from ``Kernel``.
A definition's head (``(def) add``, see ``languages/elixir.py``) is no call. The resolution is
the namespaced one (:mod:`.namespaced`), with Elixir's names.

A function is its name and its arity: the parser writes how many arguments a call passes
(``list/(?)``, the piped value and a ``do`` block counted), and a call reaches only a clause
that takes that many (``def list(topic, opts \\\\ [])`` takes one or two), never the function of
the same name and another arity beside it. A bare name is a function of the definitions around
the caller (the ``def``s of a ``quote`` inside ``__using__``), then of its own module (not of
the modules around it: Elixir does not look there), then of an ``import``ed module.
"""

from __future__ import annotations

from codebot.core.model import FUNCTION_KINDS, FileResult, Symbol
from codebot.graph.resolvers.base import (
    EXACT,
    EXTERNAL_CALL,
    IGNORED,
    MOD,
    PLAIN,
    UNIQUE,
    UNRESOLVED,
    Ctx,
    Dialect,
    Outcome,
    Target,
)
from codebot.graph.resolvers.names import strip_duplicate
from codebot.graph.resolvers.namespaced import NamespacedResolver
from codebot.graph.resolvers.overloads import ARGS

__all__ = ["ElixirResolver"]


class ElixirResolver(NamespacedResolver):
    family = "elixir"
    dialect = Dialect(separators="", prefixes=())
    self_names = frozenset()  # `__MODULE__` is the module around the caller (lookup)
    super_names = frozenset()
    ctor_names = ("__struct__",)
    builtins = frozenset(
        """Enum Map List String Kernel Keyword Process GenServer Agent Task IO File Path Logger
        Application Code Module Access Integer Float Tuple Atom System Regex URI Base Stream
        MapSet Date DateTime NaiveDateTime Time Registry Supervisor DynamicSupervisor Node
        Function Exception Macro Protocol StringIO Port Inspect Calendar Version Config
        is_atom is_binary is_bitstring is_boolean is_float is_function is_integer is_list
        is_map is_map_key is_nil is_number is_pid is_port is_reference is_tuple is_struct
        is_exception length hd tl elem put_elem map_size tuple_size byte_size bit_size abs div
        rem round trunc max min not inspect to_string to_charlist apply spawn spawn_link send
        self make_ref node binary_part struct struct! exit function_exported? get_in put_in
        update_in pop_in then tap dbg sigil_r sigil_s sigil_w sigil_S sigil_c""".split()
    )
    stop_names = frozenset(
        """new call init get put fetch update delete run start start_link handle_call
        handle_cast handle_info terminate child_spec build parse format validate""".split()
    )

    implicit_this = False  # a bare name: `head` looks in the caller's own module, by arity

    def prepare(self) -> None:
        super().prepare()
        self._arity: int | None = None  # of the call being resolved
        self._imports_by_file: dict[str, list[tuple[str, set[str] | None, set[str]]]] = {}
        # the first clause of a function (the id its name reaches) -> every clause, in order
        self._clauses: dict[str, list[str]] = {}
        self._first: dict[str, str] = {}
        index = self.index
        for f in self.files:
            table = index.local.get(f.module, {})
            for sym in f.symbols:
                if sym.kind not in FUNCTION_KINDS:
                    continue
                first = table.get(strip_duplicate(index.local_name[sym.id]), sym.id)
                self._clauses.setdefault(first, []).append(sym.id)
                self._first[sym.id] = first

    def clause(self, sid: str, n: int) -> str | None:
        """The clause of the function ``sid`` names that takes ``n`` arguments (a default
        argument makes one clause take several numbers), or None: ``foo/1`` and ``foo/2`` are
        two functions that share a name. What is no function is kept as it is."""
        first = self._first.get(sid)
        if first is None:
            return sid
        for c in self._clauses[first]:
            if _takes(self.index.by_id[c], n):
                return c
        return None

    def resolve_call(self, ctx: Ctx, text: str) -> Outcome:
        if text.startswith("(def) "):
            return IGNORED  # the head of a definition
        m = ARGS.search(text) if text[-1:] == ")" else None
        if m is None:
            return super().resolve_call(ctx, text)
        n = m[1].count("?")
        self._arity = n
        try:
            out = super().resolve_call(ctx, text[: m.start()])
        finally:
            self._arity = None
        if not isinstance(out, list):
            return out
        fit = [(c, r) for sid, r in out if (c := self.clause(sid, n)) is not None]
        return list(dict.fromkeys(fit)) if fit else UNRESOLVED  # `Mod.f` of another arity

    def head(self, ctx: Ctx, name: str, how: int, alone: bool) -> Target | Outcome | None:
        """A bare name with its arity: a ``def`` around the caller (a ``quote``'s, whose
        functions call each other), else the caller's module's, else an import's."""
        n = self._arity
        if not (alone and how == PLAIN and n is not None) or name == "__MODULE__":
            return super().head(ctx, name, how, alone)
        index = self.index
        for fn in ctx.chain:
            kid = index.children.get(fn.id, {}).get(name)
            if kid is not None and index.is_callable(kid):
                hit = self.clause(kid, n)
                if hit is not None:
                    return [(hit, EXACT)]
        if ctx.cls is not None:
            own = index.members.get(ctx.cls, {}).get(name)
            hit = self.clause(own, n) if own is not None and index.is_callable(own) else None
            if hit is not None:
                return [(hit, EXACT)]
        return self.bare_fallback(ctx, name)

    def lookup(self, ctx: Ctx, name: str) -> Target | None:
        if name == "__MODULE__":  # the module around the caller
            nest = self._nest(ctx.sym)
            return (MOD, ".".join(nest)) if nest else None
        return super().lookup(ctx, name)

    def bare_fallback(self, ctx: Ctx, name: str) -> Outcome:
        """A name neither the module nor its scopes define: a function of an ``import``ed
        module of the repository's, else ``Kernel``'s or a library's."""
        if name in self.builtins:
            return EXTERNAL_CALL
        for module, only, hidden in self._imported(ctx.file):
            if not _allowed(name, self._arity, only, hidden):
                continue
            hit = self._pick(self.qnames.get(f"{module}.{name}"), ctx.file)
            if hit is not None and self._arity is not None:
                hit = self.clause(hit, self._arity)
            if hit is not None and not _private(self.index.by_id[hit]):
                return [(hit, EXACT)]  # (`import` brings no `defp` in)
        return super().bare_fallback(ctx, name)

    def _usings_of(self, file: FileResult) -> tuple[dict[str, str], list[str]]:
        """Aliases and the modules imported whole; ``import X, only: [f: 1]`` and ``except:``
        entries are no alias (``_imported`` reads them)."""
        found = self._usings.get(file.path)
        if found is None:
            aliases: dict[str, str] = {}
            opened: list[str] = []
            for imp in file.imports:
                if imp.name == "*":
                    opened.append(imp.module)
                elif imp.name and "/" not in imp.name and imp.alias != "except":
                    full = f"{imp.module}.{imp.name}" if imp.module else imp.name
                    aliases[imp.alias or imp.name] = full
            found = self._usings[file.path] = (aliases, opened)
        return found

    def _imported(self, file: FileResult) -> list[tuple[str, set[str] | None, set[str]]]:
        """(module, the ``name/arity``s ``only:`` lists or None for all, those ``except:``
        lists) of each module a file ``import``s."""
        found = self._imports_by_file.get(file.path)
        if found is None:
            by: dict[str, tuple[str, set[str] | None, set[str]]] = {}
            for imp in file.imports:
                if imp.name is None or (imp.name != "*" and "/" not in imp.name):
                    continue  # an alias, a `use`, a `require`
                module, only, hidden = by.setdefault(imp.module, (imp.module, set(), set()))
                if imp.name == "*":
                    by[imp.module] = (module, None, hidden)
                elif imp.alias == "except":
                    hidden.add(imp.name)
                elif only is not None:
                    only.add(imp.name)
            found = self._imports_by_file[file.path] = list(by.values())
        return found

    def member_fallback(self, name: str, ctx: Ctx) -> Outcome:
        """The repository's one public function of that name and arity (in reach, and not a
        test's when the caller is no test: tests are not compiled with the code they test); a
        name the repository defines with no clause of that arity is a library's or
        ``Kernel``'s."""
        n = self._arity
        if n is None or not name:
            return super().member_fallback(name, ctx)
        ids = self.index.names.get((self.family, name))
        if not ids:
            return EXTERNAL_CALL
        fit = [c for i in ids if (c := self.clause(i, n)) is not None]
        if not fit:
            return EXTERNAL_CALL  # `name/n` is defined nowhere here
        if name in self.stop_names:
            return UNRESOLVED
        if len(fit) == 1 and self.fallback_candidate(fit[0]):
            if self._around(ctx, fit[0]):
                return UNRESOLVED  # a module's function is not its inner modules' to call
            if self.index.file_of[fit[0]].role == "test" and ctx.file.role != "test":
                return UNRESOLVED  # (ecto: `adapter.transaction` is no test adapter's)
            owner = strip_duplicate(self.index.local_name[fit[0]]).rpartition(".")[0]
            for module, only, hidden in self._imported(ctx.file):
                if module == owner and not _allowed(name, n, only, hidden):
                    return UNRESOLVED  # its module is imported, without it
            reach = self.reachable(ctx.file)
            if reach is None or self.index.file_of[fit[0]].module in reach:
                return [(fit[0], UNIQUE)]
            return UNRESOLVED
        return self.not_found(name)

    def _around(self, ctx: Ctx, sid: str) -> bool:
        """Whether ``sid`` is a function of the caller's module or of a module around it: a
        bare name there that ``head`` did not take is no call of it (Elixir does not look in
        the modules around, an ``import`` of one was tried)."""
        owner = self.index.by_id[sid].parent
        cls = ctx.cls
        while cls is not None:
            if cls == owner:
                return True
            parent = self.index.by_id[cls].parent
            cls = parent if self.index.is_type(parent) else None
        return False

    def fallback_candidate(self, sid: str) -> bool:
        """A private function (``defp``, ``defmacrop``) is callable only inside its module: a
        call the module lookup did not find is never one of another module's."""
        return super().fallback_candidate(sid) and not _private(self.index.by_id[sid])

    def direct_imports(self, file: FileResult) -> set[str] | None:
        """The files defining the modules a file names in ``alias``/``import``/``require``/
        ``use``: a function called without its module comes from one of them (``use`` and
        ``import`` bring it in), or from what they use in turn (``use MyApp.ConnCase``, which
        imports ``Phoenix.ConnTest``), never from a module nothing there names."""
        found = self._direct.get(file.module)
        if found is None:
            if not hasattr(self, "_namespace_files"):
                self._namespace_files: dict[str, set[str]] = {}
                for f in self.files:
                    for sym in f.symbols:
                        nest = self.index.local_name.get(sym.id, "").split(".")[:-1]
                        for i in range(1, len(nest) + 1):
                            self._namespace_files.setdefault(".".join(nest[:i]), set()).add(
                                f.module
                            )
            found = set()
            for imp in file.imports:
                whole = imp.name in (None, "*") or "/" in imp.name or imp.alias == "except"
                named = imp.module if whole else f"{imp.module}.{imp.name}"
                found |= self._namespace_files.get(named, set())
            self._direct[file.module] = found
        return found


def _allowed(name: str, n: int | None, only: set[str] | None, hidden: set[str]) -> bool:
    """Whether an import with ``only:`` (None: all) and ``except:`` lists brings ``name/n``."""
    if n is None:
        key = name + "/"
        return (only is None or any(o.startswith(key) for o in only)) and not any(
            h.startswith(key) for h in hidden
        )
    key = f"{name}/{n}"
    return (only is None or key in only) and key not in hidden


def _takes(sym: Symbol, n: int) -> bool:
    """Whether a clause takes ``n`` arguments: its parameters less those with a default, up to
    all of them."""
    params = sym.parameters
    required = sum(1 for p in params if p.default is None)
    return required <= n <= len(params)


def _private(sym: Symbol) -> bool:
    return sym.signature.startswith(("defp ", "defmacrop "))

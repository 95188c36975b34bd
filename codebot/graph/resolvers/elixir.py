"""Elixir: modules are one namespace across files, functions are called through them.

``Shop.Cart.add`` is the function ``add`` of the module ``Shop.Cart`` wherever it is defined (a
module is a namespace of the parser's, spanning files, not a symbol);
``Cart.add`` after ``alias Shop.Cart`` (or ``alias Shop.{Cart, Item}``) is the same;
``__MODULE__.add`` and a bare ``add(x)`` are the caller's module's. A bare name the module does
not define may come from an ``import``ed module (``import Shop.Util``), else from ``Kernel``.
A definition's head (``(def) add``, see ``languages/elixir.py``) is no call. The resolution is
the namespaced one (:mod:`.namespaced`), with Elixir's names.
"""

from __future__ import annotations

from codebot.core.model import FileResult, Symbol
from codebot.graph.resolvers.base import (
    EXACT,
    EXTERNAL_CALL,
    IGNORED,
    MOD,
    Ctx,
    Dialect,
    Outcome,
    Target,
)
from codebot.graph.resolvers.namespaced import NamespacedResolver

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

    def lookup(self, ctx: Ctx, name: str) -> Target | None:
        if name == "__MODULE__":  # the module around the caller
            nest = self._nest(ctx.sym)
            return (MOD, ".".join(nest)) if nest else None
        return super().lookup(ctx, name)

    def resolve_call(self, ctx: Ctx, text: str) -> Outcome:
        if text.startswith("(def) "):
            return IGNORED  # the head of a definition
        return super().resolve_call(ctx, text)

    def bare_fallback(self, ctx: Ctx, name: str) -> Outcome:
        """A name neither the module nor its scopes define: a function of an ``import``ed
        module of the repository's, else ``Kernel``'s or a library's."""
        if name in self.builtins:
            return EXTERNAL_CALL
        _, opened = self._usings_of(ctx.file)
        for module in opened:
            hit = self._pick(self.qnames.get(f"{module}.{name}"), ctx.file)
            if hit is not None and not _private(self.index.by_id[hit]):
                return [(hit, EXACT)]  # (`import` brings no `defp` in)
        return super().bare_fallback(ctx, name)

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
                named = imp.module if imp.name in (None, "*") else f"{imp.module}.{imp.name}"
                found |= self._namespace_files.get(named, set())
            self._direct[file.module] = found
        return found


def _private(sym: Symbol) -> bool:
    return sym.signature.startswith(("defp ", "defmacrop "))

"""TSX: TypeScript with JSX. The query is typescript.scm followed by tsx.scm (JSX components)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from tree_sitter import Query

from ._ecmascript import HOOKS
from .base import LanguageSpec, query_file


@dataclass(frozen=True)
class _TsxSpec(LanguageSpec):
    @cached_property
    def query(self) -> Query:
        source = query_file(__file__, "typescript").read_text() + self.query_path.read_text()
        return Query(self.language, source)


SPEC = _TsxSpec(
    name="tsx",
    grammar="tsx",
    query_path=query_file(__file__, "tsx"),
    **HOOKS,
)

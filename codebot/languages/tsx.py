"""TSX: TypeScript with JSX components."""

from __future__ import annotations

from codebot.languages._ecmascript import HOOKS
from codebot.languages.base import LanguageSpec, query_file

SPEC = LanguageSpec(
    name="tsx",
    grammar="tsx",
    query_path=query_file(__file__, "typescript"),
    query_parts=(query_file(__file__, "ecmascript"), query_file(__file__, "jsx")),
    **HOOKS,
)

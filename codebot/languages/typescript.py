"""TypeScript: JavaScript's definitions plus interfaces, type aliases, enums, abstract classes,
overload signatures, namespaces, parameter and return types, and decorators."""

from __future__ import annotations

from codebot.languages._ecmascript import HOOKS
from codebot.languages.base import LanguageSpec, query_file

SPEC = LanguageSpec(
    name="typescript",
    grammar="typescript",
    query_path=query_file(__file__, "typescript"),
    query_parts=(query_file(__file__, "ecmascript"),),
    **HOOKS,
)

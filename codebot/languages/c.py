"""C: functions named through their declarators, typedef'd structs, `#include`s (see _cfamily)."""

from __future__ import annotations

from codebot.languages import _cfamily
from codebot.languages.base import LanguageSpec, query_file

SPEC = LanguageSpec(
    name="c",
    grammar="c",
    query_path=query_file(__file__, "c"),
    imports=_cfamily.include,
    **_cfamily.HOOKS,
)

"""JavaScript (and JSX): functions, classes, arrow functions bound to names, ES and CommonJS imports."""

from __future__ import annotations

from codebot.languages._ecmascript import HOOKS
from codebot.languages.base import LanguageSpec, query_file

SPEC = LanguageSpec(
    name="javascript",
    grammar="javascript",
    query_path=query_file(__file__, "javascript"),
    query_parts=(query_file(__file__, "ecmascript"), query_file(__file__, "jsx")),
    **HOOKS,
)

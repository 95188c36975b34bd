"""C: functions named through their declarators, typedef'd structs, `#include`s (see _cfamily)."""

from __future__ import annotations

from . import _cfamily
from .base import LanguageSpec, query_file

SPEC = LanguageSpec(
    name="c",
    grammar="c",
    query_path=query_file(__file__, "c"),
    owner=_cfamily.owner,
    outer=_cfamily.outer,
    parameters=_cfamily.parameters,
    return_type=_cfamily.return_type,
    docstring=_cfamily.docstring,
    imports=_cfamily.include,
)

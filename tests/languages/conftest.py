"""Helpers for the per-language tests: parse a snippet and look symbols up by id."""

from __future__ import annotations

import textwrap

import pytest

from codebot.core.model import FileResult, Symbol
from codebot.graph.resolve import resolve
from codebot.parse.extract import module_id, parse_source
from codebot.parse.files import role_for_path


class Parsed:
    def __init__(self, result: FileResult) -> None:
        self.result = result
        self.by_id: dict[str, Symbol] = {s.id: s for s in result.symbols}

    def __getitem__(self, symbol_id: str) -> Symbol:
        try:
            return self.by_id[symbol_id]
        except KeyError:
            raise AssertionError(f"{symbol_id!r} not among {sorted(self.by_id)}") from None

    @property
    def ids(self) -> list[str]:
        return [s.id for s in self.result.symbols if s.kind != "chunk"]

    @property
    def imports(self):
        return self.result.imports

    def calls(self, symbol_id: str) -> list[str]:
        return [c.name for c in self[symbol_id].calls]


@pytest.fixture
def parse():
    def _parse(language: str, path: str, code: str) -> Parsed:
        return Parsed(parse_source(path, textwrap.dedent(code).lstrip("\n").encode(), language))

    return _parse


@pytest.fixture
def resolved():
    """The call edges of a small repository ({path: code}) in one language: {(src, dst):
    resolution}."""

    def _resolved(language: str, files: dict[str, str]) -> dict[tuple[str, str], str]:
        parsed = [
            parse_source(
                p,
                textwrap.dedent(c).lstrip("\n").encode(),
                language,
                role=role_for_path(p, language),  # a test's role, as `codebot index` gives it
                module=module_id(p),
            )
            for p, c in files.items()
        ]
        return {(e.src, e.dst): e.resolution for e in resolve(parsed).edges if e.kind == "calls"}

    return _resolved

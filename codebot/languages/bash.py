"""Bash (language ``shell``): functions, top-level variables, ``source`` imports.

- a function's docstring is the ``#`` comment block right above it (a shebang line is not part
  of it); functions take no declared parameters.
- ``source "$(dirname "$0")/lib.sh"`` is ``Import("$(dirname "$0")/lib.sh")``: the path as
  written, quotes removed; the resolver matches a sourced file by its name.
"""

from __future__ import annotations

from tree_sitter import Node

from codebot.core.model import Import
from codebot.languages.base import LanguageSpec, leading_comment, query_file, text


def _docstring(node: Node) -> str | None:
    doc = leading_comment(node)
    if doc is None:
        return None
    lines = [line for line in doc.splitlines() if not line.startswith("!")]  # `#!/bin/bash`
    return "\n".join(lines).strip() or None


def _imports(node: Node) -> list[Import]:
    args = [c for c in node.named_children if c.type != "command_name"]
    if not args:
        return []
    path = text(args[0]).strip("\"'")
    return [Import(path, line=node.start_point[0] + 1)] if path else []


SPEC = LanguageSpec(
    name="shell",
    grammar="bash",
    query_path=query_file(__file__, "bash"),
    parameters=lambda node: (),
    return_type=lambda node: None,
    docstring=_docstring,
    imports=_imports,
)

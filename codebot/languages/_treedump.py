"""Print a file's syntax tree with field names: ``python -m codebot.languages._treedump LANG FILE``.

A working aid for writing and debugging the ``.scm`` queries against the pinned grammars.
"""

from __future__ import annotations

import sys

from tree_sitter import Node


def dump(node: Node, depth: int = 0, out=sys.stdout) -> None:
    fields = [
        f"{node.field_name_for_child(i)}={node.children[i].type}"
        for i in range(node.child_count)
        if node.field_name_for_child(i)
    ]
    leaf = f" {node.text[:40]!r}" if node.child_count == 0 else ""
    out.write(f"{'  ' * depth}{node.type}{leaf}  {' '.join(fields)}\n")
    for child in node.children:
        dump(child, depth + 1, out)


if __name__ == "__main__":
    from tree_sitter_language_pack import get_parser

    language, path = sys.argv[1], sys.argv[2]
    with open(path, "rb") as f:
        dump(get_parser(language).parse(f.read()).root_node)

"""How an :class:`~codebot.query.answer.Answer` is printed: ``tree``, ``list``, ``json``, ``markdown``.

    DetectionTrainer.get_dataloader  ultralytics/models/yolo/detect/train.py:52  [hit]
    ├── build_dataset  ultralytics/data/build.py:88  [bridge]
    │   └── YOLODataset.__init__  ultralytics/data/dataset.py:40  [neighbour]

Pure functions of an answer, so the CLI, the context packer and other front ends share them. The
JSON document follows ``schemas/answer.schema.json``.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from codebot.query.answer import Answer, AnswerNode
from codebot.query.graph_output import label

__all__ = [
    "FORMATS",
    "answer_doc",
    "hit_why",
    "list_lines",
    "markdown_text",
    "render",
    "tree_lines",
    "walk",
]

FORMATS = ("tree", "list", "json", "markdown")

_MARK_TEXT = {
    "cycle": "(cycle)",
    "repeat": "(see above)",
    "depth": "(deeper calls not shown)",
    "limit": "(more calls not shown)",
}


def hit_why(hit: Any) -> str:
    """A flat hit's reason; plain search hits (no graph stage) are all ``hit``."""
    return getattr(hit, "why", None) or "hit"


def walk(node: AnswerNode) -> Iterator[AnswerNode]:
    """The nodes of a tree in pre-order: the order a reader meets them in the rendering."""
    yield node
    for child in node.children:
        yield from walk(child)


# --- tree -----------------------------------------------------------------------------------------


def _node_line(n: AnswerNode) -> str:
    s = n.symbol
    mark = f"  {_MARK_TEXT.get(n.mark, '(' + n.mark + ')')}" if n.mark else ""
    return f"{label(s)}  {s.path}:{s.start_line}  [{n.why}]{mark}"


def tree_lines(answer: Answer, max_trees: int | None = None) -> list[str]:
    """Each tree with box-drawing branches, then the ranked hits no tree shows.

    An answer without trees (graph stage off, or nothing connected) falls back to the list.
    """
    if not answer.trees:
        return list_lines(answer)
    out: list[str] = []
    shown: set[str] = set()
    for i, root in enumerate(answer.trees[:max_trees]):
        if i:
            out.append("")
        out.append(_node_line(root))
        shown.add(root.symbol.id)

        def grow(n: AnswerNode, prefix: str) -> None:
            for j, c in enumerate(n.children):
                last = j == len(n.children) - 1
                out.append(prefix + ("└── " if last else "├── ") + _node_line(c))
                shown.add(c.symbol.id)
                grow(c, prefix + ("    " if last else "│   "))

        grow(root, "")
    rest = [h for h in answer.hits if h.symbol.id not in shown]
    if rest:  # the hits the trees do not reach still answer the question: never hide them
        out += ["", "also ranked:"]
        out += ["  " + line for line in list_lines(Answer(answer.query, rest))]
    return out


# --- list -----------------------------------------------------------------------------------------


def list_lines(answer: Answer, with_code: bool = False) -> list[str]:
    """The flat ranked hits, one per line: ``codebot search``'s text output since the start,
    with the reason appended when the graph stage brought the hit in."""
    out = []
    for h in answer.hits:
        s = h.symbol
        why = hit_why(h)
        tag = "" if why == "hit" else f"  [{why}]"
        out.append(f"{h.score:7.4f}  {s.path}:{s.start_line}-{s.end_line}  {s.kind:<9} {s.id}{tag}")
        if with_code and getattr(h, "code", None) is not None:
            out.append("".join("    " + ln for ln in h.code.splitlines(keepends=True)).rstrip())
    return out


# --- json -----------------------------------------------------------------------------------------


def _node_doc(n: AnswerNode) -> dict[str, Any]:
    out: dict[str, Any] = {**n.symbol.ref(), "why": n.why, "score": round(float(n.score), 6)}
    if n.symbol.signature:
        out["signature"] = n.symbol.signature
    if n.call_line is not None:
        out["call_line"] = n.call_line
    if n.mark is not None:
        out["mark"] = n.mark
    out["children"] = [_node_doc(c) for c in n.children]
    return out


def answer_doc(answer: Answer, graph: bool = True) -> dict[str, Any]:
    """The answer as one JSON document (``schemas/answer.schema.json``)."""
    hits = []
    for h in answer.hits:
        d = {**h.symbol.ref(), "score": round(float(h.score), 6), "why": hit_why(h)}
        if h.symbol.signature:
            d["signature"] = h.symbol.signature
        if getattr(h, "code", None) is not None:
            d["code"] = h.code
        hits.append(d)
    return {
        "query": answer.query,
        "graph": graph,
        "hits": hits,
        "trees": [_node_doc(t) for t in answer.trees],
    }


# --- markdown -------------------------------------------------------------------------------------


def markdown_text(answer: Answer) -> str:
    """For a PR description or a prompt: the trees as a fenced block, the hits as a table."""
    lines = [f"### codebot: `{answer.query}`", ""]
    if answer.trees:
        lines += [
            "**Call trees** (`[hit]` ranked by search, `[neighbour]` a caller or callee of a "
        ]
        lines[-1] += "hit, `[bridge]` on the call path between hits):"
        lines += ["", "```text", *tree_lines(Answer(answer.query, [], answer.trees)), "```", ""]
    if answer.hits:
        lines += ["| # | symbol | where | why | score |", "|---|---|---|---|---|"]
        for i, h in enumerate(answer.hits, 1):
            s = h.symbol
            where = f"`{s.path}:{s.start_line}-{s.end_line}`"
            lines.append(f"| {i} | `{s.id}` | {where} | {hit_why(h)} | {h.score:.4f} |")
    else:
        lines.append("_no results_")
    return "\n".join(lines) + "\n"


def render(answer: Answer, fmt: str, graph: bool = True, with_code: bool = False) -> str:
    """The answer in one of :data:`FORMATS`, as the text to print."""
    import json

    if fmt == "tree":
        return "\n".join(tree_lines(answer)) + "\n"
    if fmt == "list":
        return "\n".join(list_lines(answer, with_code)) + ("\n" if answer.hits else "")
    if fmt == "json":
        return json.dumps(answer_doc(answer, graph), indent=2, ensure_ascii=False) + "\n"
    if fmt == "markdown":
        return markdown_text(answer)
    raise ValueError(f"unknown format {fmt!r}; choose one of {', '.join(FORMATS)}")

"""Whether a call is made every time its caller runs, read from the syntax tree.

A call inside an ``if``/``elif``/``else`` branch, a ``case``/``when``/``match`` arm, a
``catch``/``except``/``rescue`` handler, either side of a ternary, the right side of a
short-circuit ``and``/``or``/``&&``/``||``/``??``/``?:``, a loop body (it may run zero
times) or a comprehension's element is *conditional*. A call inside a lambda, closure or block
is read like one of its definer's (the graph gives it to the definer): a callback handed to a
call (``t.Run("x", func(t) {...})``, ``it("x", () => ...)``) runs in nearly every case, and
calling it conditional would empty the reach of whole test suites. What a branch or a loop evaluates first (an ``if``'s condition, a ``for``'s
iterable, a ``switch``'s subject), a ``try`` or ``with`` body, a ``finally`` and a ``do ... while``
body are not. An early ``return`` above a call is not seen: a call after ``if x: return`` counts
as unconditional.

The rules read node type names and field names, which the fifteen grammars share closely
enough (``if_statement``/``if_expression``/``if``, ``for_statement``/``for_in_statement``/
``enhanced_for_statement``, ``switch_case``/``when_entry``/``match_arm``/``case_clause``...):
a word of the type name (``if``, ``for``, ``while``, ``switch``, ``case``...) marks a branching
node, so a grammar not listed falls back to the same reading. Where the reading is unsure (a
branching node without a ``condition`` field: its first named child is taken as the guard), it
errs towards "conditional": the claim it protects is "this test reaches this code".
"""

from __future__ import annotations

import re

from tree_sitter import Node, Tree

__all__ = ["CallConditions", "constructor_names"]

# A node whose children run only under a condition, but for its guard.
_BRANCHING = re.compile(
    r"(^|_)(if|unless|elif|for|foreach|while|until|switch|select|match|when|conditional|ternary"
    r"|comprehension|generator)(_|$)"
)
# A node that runs only under a condition, wherever it sits: an arm, a handler, a closure.
_ARM = re.compile(
    r"(^|_)(else|elif|elsif|except|catch|rescue|case|when|arm)(_|$)"
    r"|^(switch_default|default_case|default_statement|default_clause|when_entry|switch_entry"
    r"|switch_section|switch_rule|switch_block_statement_group)$"
)
_NOT_ARM = {"case", "when_expression", "switch_block"}  # a whole statement, not one arm
_GUARD_FIELDS = {"condition", "subject", "value", "right", "iterable", "initializer", "left"}
_BODY_FIELDS = {"consequence", "alternative", "body", "increment", "update", "update_expression"}
_SHORT_CIRCUIT = {"and", "or", "&&", "||", "??", "?:", "and also", "or else"}
_CONSTRUCTORS = {"__init__", "__new__", "constructor", "initialize", "new", "init"}


class CallConditions:
    """One file's syntax tree, parsed once, asked whether calls at given lines are conditional."""

    def __init__(self, tree: Tree | None, data: bytes) -> None:
        """``tree``: the file's syntax tree, parsed by the caller within the parse bounds
        (``parse.guard.bounded_tree``: these are repository files), or None where it was
        refused: then every call of the file counts as conditional, since nothing is known."""
        self.lines = data.split(b"\n")
        self.tree = tree

    def conditional(self, line: int, names: tuple[str, ...], span: tuple[int, int]) -> bool:
        """Whether every call at ``line`` (1-based) naming one of ``names`` is made only under a
        condition of the definition spanning ``span`` (its first and last line). A line where
        no name is found is read from its first token; a file not parsed gives True."""
        if self.tree is None:
            return True
        if not 0 < line <= len(self.lines):
            return False
        text = self.lines[line - 1]
        columns = [
            m.start()
            for n in names
            if n
            for m in re.finditer(rb"(?<![\w$])" + re.escape(n.encode()) + rb"(?![\w$])", text)
        ]
        if not columns:
            stripped = len(text) - len(text.lstrip())
            columns = [stripped]
        root = self.tree.root_node
        for col in columns:
            leaf = root.descendant_for_point_range((line - 1, col), (line - 1, col + 1))
            if leaf is None or not self._under_condition(leaf, span):
                return False
        return True

    def _under_condition(self, node: Node, span: tuple[int, int]) -> bool:
        child = node
        parent = node.parent
        while parent is not None:
            if parent.start_point[0] + 1 <= span[0] and parent.end_point[0] + 1 >= span[1]:
                return False  # the caller's own definition (or what holds it): stop
            if self._conditional_child(parent, child):
                return True
            child, parent = parent, parent.parent
        return False

    def _conditional_child(self, parent: Node, child: Node) -> bool:
        kind = child.type
        if child.is_named and _ARM.search(kind) and kind not in _NOT_ARM:
            return True
        field = _field_of(parent, child)
        ops = [c for c in parent.children if not c.is_named]
        for op in ops:  # the right side of a short-circuit operator
            if op.type in _SHORT_CIRCUIT and child.start_byte >= op.end_byte:
                return True
        if not _BRANCHING.search(parent.type):
            return False
        if kind == "for_in_clause":  # `[f(x) for x in xs()]`: the first iterable runs once
            first = next(c for c in parent.named_children if c.type == kind)
            return first.id != child.id
        if field in _BODY_FIELDS:
            return True
        if field in _GUARD_FIELDS:
            return False
        if parent.child_by_field_name("condition") is not None:
            return True  # neither the guard nor a known body: a branch
        keyword = next((c for c in parent.children if c.type == "if"), None)
        if keyword is not None and parent.type.startswith("conditional"):
            guard = keyword.next_named_sibling  # `a if c else b`
            return guard is None or guard.id != child.id
        named = parent.named_children
        return not named or named[0].id != child.id


def _field_of(parent: Node, child: Node) -> str | None:
    for i in range(parent.child_count):
        if parent.children[i].id == child.id:
            return parent.field_name_for_child(i)
    return None


def constructor_names(name: str, class_name: str | None) -> tuple[str, ...]:
    """The names a call to ``name`` is written with: a constructor's class's too."""
    if name in _CONSTRUCTORS and class_name:
        return (name, class_name.rsplit(".", 1)[-1])
    return (name,)

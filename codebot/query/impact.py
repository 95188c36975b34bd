"""What a range of commits touches beyond its diff: ``codebot impact BASE..HEAD``.

    committed index ──apply_changes──► a view at BASE ┐   (throwaway, in a temp dir: the
                    └─apply_changes──► a view at HEAD ┘    committed index is not moved)
    the diff's changed lines ──► the definitions they fall in (their own lines, nested
    definitions apart): added, modified, removed, renamed/moved, signature changes
    each one, in the graph where it lives ──► callers, the entry points and tests that reach it
    over the whole graph, the calls into it left unresolved; for a removed or moved one, the
    callers and imports still naming the old one

What a reader counts is what the report counts: a definition is *modified* when a changed line
falls in its own lines (a class whose method changed is not; the method is), a change of an
overload signature (Python ``@overload``) is a change of its set, listed once at the
implementation. Files without a grammar (docs, config) and code between definitions are summed
per file, never given callers or tests.

Test reach is the set of symbols with a path to the definition through calls and decorations,
walked to the end (bounded by the graph, not a depth), entering a class through its members (a
test of a method reaches the class) and a constructor through its class. "No test reaches this"
is said only when no call that might lead into that set is left unresolved; otherwise the
report says how many are (:func:`_open_calls`).

Two sizes of one report: :func:`impact_markdown` (the pull-request comment, under GitHub's
65,536 characters) and :func:`impact_compact` (for agents: ids, counts and path:line, no graph).
"""

from __future__ import annotations

import re
import tempfile
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from codebot.core.config import Config
from codebot.core.errors import CodebotError
from codebot.core.model import Symbol, is_overload_stub
from codebot.git.repo import short_commit
from codebot.git.workspace import Workspace
from codebot.graph.callgraph import KIND_CODE
from codebot.index.store import Index, lock_for_writing, read_index
from codebot.languages.conditions import CallConditions, constructor_names
from codebot.parse.files import Selector
from codebot.parse.guard import bounded_tree_or_none

__all__ = [
    "COMMENT_LIMIT",
    "impact",
    "impact_compact",
    "impact_compact_text",
    "impact_markdown",
    "impact_text",
    "parse_range",
]

_LISTED = 20  # callers, entry points, tests listed per definition (the counts are always whole)
_MAY_LISTED = 5  # tests that may reach it through conditional calls, named per definition
_MERMAID_NODES = 40
COMMENT_LIMIT = 65_536  # GitHub's limit on a comment body
_CALLERS = ("calls", "decorates")  # who uses a definition: its callers, the scopes applying it
_CONSTRUCTORS = {"__init__", "__new__", "constructor", "initialize", "init"}
_CALLABLE = {"function", "method", "constructor"}  # other kinds are types, values, or unknown
_SUFFIX = re.compile(r"#\d+(?=$|\.)")  # the place among same-named definitions
_ROUNDS = 8  # rounds of names followed before "unknown" is the honest answer
_ORDER = {"deleted": 0, "renamed": 1, "modified": 2, "added": 3}


def parse_range(text: str) -> tuple[str, str]:
    """``BASE..HEAD`` (``BASE...HEAD`` reads the same), or ``BASE`` alone for ``BASE..HEAD``."""
    for sep in ("...", ".."):
        if sep in text:
            base, head = text.split(sep, 1)
            return base or "HEAD", head or "HEAD"
    return text, "HEAD"


def impact(
    where: Workspace | str | Path, config: Config, base: str, head: str = "HEAD", depth: int = 3
) -> dict[str, Any]:
    """The impact report of ``base..head`` (``schemas/impact.schema.json``).

    Needs the committed index (any commit: views of both ends are derived from it by the
    incremental update machinery, in a temporary directory).
    """
    if depth < 1:
        raise CodebotError(f"depth must be at least 1, not {depth}")
    ws = Workspace.of(where, config.index_dir)
    repo = ws.repo
    if repo is None:
        raise CodebotError(f"{ws.root} is not in a git repository: impact compares two commits")
    base_c, head_c = repo.resolve_commit(base), repo.resolve_commit(head)
    committed = read_index(ws)
    prefix = committed.manifest.root.strip("/")
    lines = {
        _relative(p, prefix): (_relative(old, prefix), removed, added)
        for p, (old, removed, added) in repo.changed_lines(base_c, head_c).items()
        if _inside(p, prefix) or _inside(old, prefix)
    }
    with tempfile.TemporaryDirectory(prefix="codebot-impact-") as tmp:
        before = _View(_view_at(committed, repo, config, base_c, Path(tmp) / "base"))
        after = _View(_view_at(committed, repo, config, head_c, Path(tmp) / "head"))
        return _Report(before, after, lines, depth).doc(base_c, head_c)


def _inside(path: str, prefix: str) -> bool:
    return not prefix or path.startswith(prefix + "/")


def _relative(path: str, prefix: str) -> str:
    return path[len(prefix) + 1 :] if prefix and path.startswith(prefix + "/") else path


def _view_at(committed: Index, repo, config: Config, commit: str, where: Path) -> Index:
    """The index as of ``commit``: the committed one, or a throwaway copy brought there."""
    if committed.manifest.commit == commit:
        return committed
    from codebot.index.update import apply_changes, commit_changes

    changes, _ = commit_changes(repo, committed.manifest.commit, commit, committed.manifest.root)
    selector = Selector(committed.root, repo, config, commit)
    with lock_for_writing(where):
        report = apply_changes(
            committed, changes, selector, where, config, None, None, commit,
            with_vectors=False,
        )  # fmt: skip
    return Index(where, committed.root, report.manifest, repo)


# --- one end of the range -------------------------------------------------------------------------


@dataclass
class _View:
    """One end of the range: its index, and what the report asks of it more than once."""

    index: Index
    _files: dict[str, Any] | None = None
    _children: dict[str, list[int]] | None = None
    _open: dict[str, list[tuple[int, int]]] | None = None
    entry_points: set[int] = field(default_factory=set)
    _texts: dict[str, str] = field(default_factory=dict)
    _conditions: dict[str, CallConditions] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.rows = self.index.by_id
        self.symbols = self.index.symbols
        self.graph = self.index.graph
        self.entry_points = set(self.graph.entry_points.tolist())

    @property
    def files(self) -> dict[str, Any]:
        if self._files is None:
            self._files = {f.path: f for f in self.index.files()}
        return self._files

    def children(self, sid: str) -> list[int]:
        """Rows of the definitions directly inside ``sid`` (methods of a class...)."""
        if self._children is None:
            kids: dict[str, list[int]] = {}
            for row, s in enumerate(self.symbols):
                if s.parent is not None and s.kind != "chunk":
                    kids.setdefault(s.parent, []).append(row)
            self._children = kids
        return self._children.get(sid, [])

    def definitions(self, path: str) -> list[Symbol]:
        """The definitions of a file (chunks of other code apart), in row order."""
        f = self.files.get(path)
        if f is None:
            return []
        out = [self.symbols[self.rows[sid]] for sid in f.symbols]
        return [s for s in out if s.kind != "chunk"]

    def is_code(self, path: str) -> bool:
        from codebot.languages import get_spec

        f = self.files.get(path)
        return f is not None and get_spec(f.language) is not None

    def text(self, f: Any) -> str:
        """A file's text at this end (from git: the work tree may be elsewhere), read once."""
        if f.path not in self._texts:
            self._texts[f.path] = self.index.repo.blob(f.blob).decode("utf-8", "replace")
        return self._texts[f.path]

    def conditional(self, edge: int) -> bool:
        """Whether the call of ``edge`` is made only under a condition of its caller (a branch,
        an arm, a handler, a loop body, the right of ``and``/``or``): its caller's file parsed
        once, here, for the files the test paths cross (``languages.conditions``). A
        decoration is applied unconditionally."""
        graph, symbols = self.graph, self.symbols
        if graph.kind[edge] != KIND_CODE["calls"]:
            return False
        caller, callee = symbols[int(graph.src[edge])], symbols[int(graph.dst[edge])]
        f = self.files.get(caller.path)
        if f is None:
            return False
        cond = self._conditions.get(f.path)
        if cond is None:
            cond = CallConditions(
                bounded_tree_or_none(f.language, data := self.text(f).encode()), data
            )
            self._conditions[f.path] = cond
        names = constructor_names(callee.name, callee.class_name)
        return cond.conditional(int(graph.line[edge]), names, (caller.start_line, caller.end_line))

    def spans(self, path: str) -> list[tuple[int, int, int]]:
        """(start, end, row) of every symbol of a file, chunks included."""
        f = self.files[path]
        out = []
        for sid in f.symbols:
            s = self.symbols[self.rows[sid]]
            out.append((s.start_line, s.end_line, self.rows[sid]))
        return out

    def label(self, row: int) -> str:
        s = self.symbols[row]
        return f"{s.class_name}.{s.name}" if s.class_name else s.name

    def open_calls(self) -> dict[str, list[tuple[int, int]]]:
        """Calls that gave no edge, from symbols the graph counts unresolved calls for, by the
        last segment of the name called: (caller row, line).

        Main records per caller only how many calls stayed unresolved, not which: every call of
        such a caller that gave no edge at its line is taken as possibly unresolved (an
        external call of the same caller among them; the claim errs towards "unknown"). When
        the graph records a reason per call, this is the one place to read it.
        """
        if self._open is None:
            graph, symbols = self.graph, self.symbols
            out: dict[str, list[tuple[int, int]]] = {}
            for row in graph.unresolved.nonzero()[0].tolist():
                resolved = {
                    (int(graph.line[e]), symbols[int(graph.dst[e])].name)
                    for e in graph.out_edges(row, _CALLERS)
                }
                for call in symbols[row].calls:
                    name = _last(call.name)
                    if (call.line, name) not in resolved:
                        out.setdefault(name, []).append((row, call.line))
            self._open = out
        return self._open


def _last(name: str) -> str:
    return re.split(r"[.:>]", name.rstrip("()"))[-1].strip()


def _base_id(sid: str) -> str:
    return _SUFFIX.sub("", sid)


def _implicit(s: Symbol) -> bool:
    """Run by the language, not by a call written in the code: a Python special method
    (``__call__``, ``__eq__``, ``__class_getitem__``...), the constructor apart."""
    return (
        s.language == "python"
        and s.name.startswith("__")
        and s.name.endswith("__")
        and s.name not in ("__init__", "__new__")
    )


def _keys(defs: list[Symbol]) -> dict[tuple[str, bool, int], Symbol]:
    """Definitions by a key stable across versions: the id without its ``#n`` (which shifts
    when an overload is added before), whether it is an overload signature, and its place
    among those alike."""
    seen: dict[tuple[str, bool], int] = {}
    out = {}
    for s in defs:
        k = (_base_id(s.id), is_overload_stub(s))
        seen[k] = seen.get(k, 0) + 1
        out[(*k, seen[k])] = s
    return out


def _own_lines(view: _View, s: Symbol) -> set[int]:
    """The lines of ``s`` not inside a definition nested in it."""
    lines = set(range(s.start_line, s.end_line + 1))
    for row in view.children(s.id):
        c = view.symbols[row]
        lines -= set(range(c.start_line, c.end_line + 1))
    return lines


# --- the report -----------------------------------------------------------------------------------


@dataclass
class _Change:
    change: str
    new: Symbol | None  # at the head (None: removed)
    old: Symbol | None  # at the base (None: added)
    added: int = 0  # lines
    removed: int = 0
    overloads: int = 0  # overload signatures of its set changed with it


class _Report:
    def __init__(self, before: _View, after: _View, lines, depth: int) -> None:
        self.before, self.after, self.lines, self.depth = before, after, lines, depth

    def doc(self, base: str, head: str) -> dict[str, Any]:
        files, changes = self._changes()
        definitions = [self._entry(c) for c in changes]
        definitions.sort(key=_risk_order)
        summary = {k: sum(1 for d in definitions if d["change"] == k) for k in _ORDER}
        summary["signature_changed"] = sum(1 for d in definitions if d.get("signature"))
        summary["lines_added"] = sum(f["lines_added"] for f in files)
        summary["lines_removed"] = sum(f["lines_removed"] for f in files)
        statuses = {"added": "A", "modified": "M", "deleted": "D", "renamed": "R"}
        return {
            "base": base,
            "head": head,
            "summary": summary,
            "file_counts": {
                k: sum(1 for f in files if f["status"] == v) for k, v in statuses.items()
            },
            "files": files,
            "definitions": definitions,
            "communities": self._communities(definitions),
            "mermaid": self._mermaid(definitions),
        }

    # --- what changed -----------------------------------------------------------------------------

    def _changes(self) -> tuple[list[dict[str, Any]], list[_Change]]:
        before, after = self.before, self.after
        files: list[dict[str, Any]] = []
        changes: list[_Change] = []
        for path, (old_path, removed, added) in sorted(self.lines.items()):
            in_old, in_new = old_path in before.files, path in after.files
            status = "A" if not in_old else "D" if not in_new else "R" if old_path != path else "M"
            code = after.is_code(path) if in_new else before.is_code(old_path)
            entry: dict[str, Any] = {
                "path": path,
                "status": status,
                "code": code,
                "lines_added": len(added),
                "lines_removed": len(removed),
            }
            if old_path != path:
                entry["old_path"] = old_path
            files.append(entry)
            if not code:
                continue
            old_defs = before.definitions(old_path) if in_old else []
            new_defs = after.definitions(path) if in_new else []
            # Blank lines change no definition (a method removed leaves its class as it was).
            minus = _inked(before, old_path, removed) if in_old else set()
            plus = _inked(after, path, added) if in_new else set(added)
            found, outside = self._file_changes(old_defs, new_defs, minus, plus)
            changes += found
            entry["definitions"] = len(found)
            entry["other_lines"] = outside
        changes = _fold_overloads(_pair_moves(changes, before, after), before, after)
        for f in files:
            if f["code"]:
                f["definitions"] = sum(
                    1 for c in changes if (c.new or c.old).path in (f["path"], f.get("old_path"))
                )
        return files, changes

    def _file_changes(
        self, old_defs: list[Symbol], new_defs: list[Symbol], removed: set[int], added: set[int]
    ) -> tuple[list[_Change], int]:
        """The definitions of one file the diff changes, and its changed lines outside any."""
        old, new = _keys(old_defs), _keys(new_defs)
        out: list[_Change] = []
        covered_old: set[int] = set()
        covered_new: set[int] = set()
        for key, s in new.items():
            own = _own_lines(self.after, s)
            covered_new |= set(range(s.start_line, s.end_line + 1))
            if key not in old:
                out.append(_Change("added", s, None, len(own & added) or len(own), 0))
                continue
            o = old[key]
            own_old = _own_lines(self.before, o)
            plus, minus = len(own & added), len(own_old & removed)
            if plus or minus or _signature(o, s):
                out.append(_Change("modified", s, o, plus, minus))
        for key, o in old.items():
            covered_old |= set(range(o.start_line, o.end_line + 1))
            if key not in new:
                own_old = _own_lines(self.before, o)
                out.append(_Change("deleted", None, o, 0, len(own_old & removed) or len(own_old)))
        return out, len(added - covered_new) + len(removed - covered_old)

    # --- one definition ---------------------------------------------------------------------------

    def _entry(self, c: _Change) -> dict[str, Any]:
        gone = c.change == "deleted"
        view = self.before if gone else self.after
        s = c.new if c.new is not None else c.old
        assert s is not None
        row = view.rows[s.id]
        out: dict[str, Any] = {
            "change": c.change,
            "id": s.id,
            "name": s.name,
            "kind": s.kind,
            "path": s.path,
            "start_line": s.start_line,
            "end_line": s.end_line,
            "lines_added": c.added,
            "lines_removed": c.removed,
        }
        if c.change == "renamed" and c.old is not None:
            out["from"] = c.old.id
            out["from_path"] = c.old.path
            out["from_line"] = c.old.start_line
        if c.overloads:
            out["overloads_changed"] = c.overloads
        if c.old is not None and c.new is not None:
            sig = _signature(c.old, c.new)
            if sig:
                out["signature"] = sig
        seeds = _seeds(view, row)
        callers = _callers(view, seeds, self.depth)
        reach = _reach(view, seeds)
        symbols = view.symbols
        tests = [] if gone else _tests(view, reach)
        sure = set(_reach(view, seeds, unconditional=True)) if tests else set()
        may = [r for r in tests if r not in sure]
        tests = [r for r in tests if r in sure]
        entries = [r for r in reach if r in view.entry_points and symbols[r].role != "test"]
        direct = [n for n in callers if n["depth"] == 1]
        out.update(
            {
                "community": int(view.graph.community[row]),
                "callers": callers[:_LISTED],
                "callers_direct": len(direct),
                "callers_total": len(reach),
                "entry_points": [_where(symbols[r]) for r in entries[:_LISTED]],
                "entry_points_total": len(entries),
                "tests": [_where(symbols[r]) for r in tests[:_LISTED]],
                "tests_total": len(tests),
                "may_tests": [_where(symbols[r]) for r in may[:_MAY_LISTED]],
                "may_tests_total": len(may),
            }
        )
        if gone:  # what reached it is in its callers and what still names it
            out["test_reach"], out["unresolved_calls"] = "removed", 0
        elif s.role == "test":
            out["test_reach"], out["unresolved_calls"] = "is_test", 0
        elif tests:
            out["test_reach"], out["unresolved_calls"] = "tested", 0
        elif may:
            out["test_reach"], out["unresolved_calls"] = "conditional", 0
        else:
            inside = [s] + [symbols[r] for r in reach]
            implicit = any(_implicit(x) for x in inside)
            open_ = _open_calls(view, seeds, reach)
            named = None if open_ or implicit else _referenced(view, seeds, reach)
            if named is not None:
                implicit = named[0] == "implicit"
            out["test_reach"] = "unknown" if open_ or implicit or named else "untested"
            out["unresolved_calls"] = open_
            if named is not None and named[0] == "test":
                out["named_by_tested_code"] = named[1]
            if implicit:
                out["implicit"] = True
        if gone or c.change == "renamed":
            assert c.old is not None
            out["still_calling"] = self._still_calling(c.old)
            out["imports"] = self._still_importing(c.old, c.new)
        return out

    def _still_calling(self, old: Symbol) -> list[dict[str, Any]]:
        """Direct callers (at the base) that at the head still call the old name, and no
        definition of that name: each with the line of the call."""
        before, after = self.before, self.after
        graph = before.graph
        out = []
        for e in graph.in_edges(before.rows[old.id], _CALLERS):
            sid = before.symbols[int(graph.src[e])].id
            row = after.rows.get(sid)
            if row is None:
                continue
            caller = after.symbols[row]
            hits = {
                (int(after.graph.line[x]), after.symbols[int(after.graph.dst[x])].name)
                for x in after.graph.out_edges(row, _CALLERS)
            }
            for call in caller.calls:
                if _last(call.name) == old.name and (call.line, old.name) not in hits:
                    out.append({"id": sid, "path": caller.path, "line": call.line})
                    break
        return out

    def _still_importing(self, old: Symbol, new: Symbol | None) -> list[dict[str, Any]]:
        """Imports (at the head) of files that imported ``old`` at the base and still import
        its name where the graph finds no definition of it any more."""
        before, after = self.before, self.after
        graph = before.graph
        files = {
            before.symbols[int(graph.src[e])].path
            for e in graph.in_edges(before.rows[old.id], ("imports",))
        }
        out = []
        for path in sorted(files):
            f = after.files.get(path)
            if f is None:
                continue
            bound = {}
            chunk = after.rows.get(f.symbols[0]) if f.symbols else None
            if chunk is not None:
                bound = {
                    int(after.graph.line[e]): int(after.graph.dst[e])
                    for e in after.graph.out_edges(chunk, ("imports",))
                }
            for imp in f.imports:
                if imp.name != old.name:
                    continue
                target = bound.get(imp.line)
                if target is None:
                    out.append({"path": path, "line": imp.line})
                    continue
                bound_to = after.symbols[target]
                if bound_to.id != new.id if new is not None else bound_to.name != old.name:
                    out.append({"path": path, "line": imp.line})
        return out

    # --- the whole ---------------------------------------------------------------------------------

    def _communities(self, definitions: list[dict[str, Any]]) -> list[dict[str, Any]]:
        touched: dict[int, int] = {}
        for e in definitions:
            if e["community"] >= 0 and e["change"] != "deleted":
                touched[e["community"]] = touched.get(e["community"], 0) + 1
        graph, symbols = self.after.graph, self.after.symbols
        out = []
        for cid, count in sorted(touched.items(), key=lambda kv: (-kv[1], kv[0])):
            c = graph.communities[cid]
            central = [symbols[r].id for r in c.central]
            out.append({"id": cid, "size": c.size, "changed": count, "central": central})
        return out

    def _mermaid(self, definitions: list[dict[str, Any]]) -> str:
        """The changed definitions with their direct callers and callees, labelled
        ``Class.method``; the changed ones filled."""
        view = self.after
        graph = view.graph
        changed = [view.rows[e["id"]] for e in definitions if e["change"] != "deleted"]
        if not changed:
            return ""
        rows = list(changed)
        for row in changed:
            rows += [n.row for n in graph.callers(row, 1, _CALLERS)]
            rows += [n.row for n in graph.callees(row, 1)]
        rows = list(dict.fromkeys(rows))[:_MERMAID_NODES]
        names = {row: f"n{i}" for i, row in enumerate(rows)}
        out = ["flowchart LR"]
        for row in rows:
            s = view.symbols[row]
            label = f"{view.label(row)}<br/>{s.path}:{s.start_line}".replace('"', "#quot;")
            out.append(f'  {names[row]}["{label}"]')
        pairs = dict.fromkeys(
            (int(graph.src[e]), int(graph.dst[e])) for e in graph.edges_among(rows, _CALLERS)
        )
        out += [f"  {names[a]} --> {names[b]}" for a, b in pairs if a != b]
        filled = set(changed)
        marked = ",".join(names[r] for r in rows if r in filled)
        out += ["  classDef changed fill:#fde68a,stroke:#b45309", f"  class {marked} changed"]
        return "\n".join(out) + "\n"


def _inked(view: _View, path: str, numbers: list[int]) -> set[int]:
    """The line numbers of ``path`` that are not blank."""
    lines = view.text(view.files[path]).splitlines()
    return {n for n in numbers if 0 < n <= len(lines) and lines[n - 1].strip()}


def _pair_moves(changes: list[_Change], before: _View, after: _View) -> list[_Change]:
    """A removed definition whose code reappears added elsewhere, unchanged (the same content),
    under the same name in another file, or with the same code under another name (its own
    name apart), is one definition renamed or moved."""
    added = [c for c in changes if c.change == "added"]

    def renamed(a: _Change, c: _Change) -> bool:
        return (
            a.new.kind == c.old.kind
            and a.new.parent == c.old.parent
            and _unnamed(after, a.new) == _unnamed(before, c.old)
        )

    paired: set[int] = set()
    out = []
    for c in changes:
        if c.change != "deleted" or c.old is None:
            continue
        match = (
            next(
                (
                    a
                    for a in added
                    if id(a) not in paired and a.new.content_hash == c.old.content_hash
                ),
                None,
            )
            or next(
                (
                    a
                    for a in added
                    if id(a) not in paired
                    and a.new.name == c.old.name
                    and a.new.kind == c.old.kind
                    and a.new.path != c.old.path
                ),
                None,
            )
            or next((a for a in added if id(a) not in paired and renamed(a, c)), None)
        )
        if match is not None:
            paired |= {id(match), id(c)}
            same = match.new.content_hash == c.old.content_hash
            out.append(
                _Change(
                    "renamed",
                    match.new,
                    c.old,
                    0 if same else match.added,
                    0 if same else c.removed,
                )
            )
    return out + [c for c in changes if id(c) not in paired]


def _unnamed(view: _View, s: Symbol) -> str:
    """The code of ``s`` with its own name blanked, spacing apart: equal for a renamed copy."""
    f = view.files.get(s.path)
    if f is None:
        return ""
    lines = view.text(f).splitlines()[s.start_line - 1 : s.end_line]
    return " ".join(re.sub(rf"\b{re.escape(s.name)}\b", "_", "\n".join(lines)).split())


def _fold_overloads(changes: list[_Change], before: _View, after: _View) -> list[_Change]:
    """Changes of ``@overload`` signatures folded into their set's implementation when it has
    one (an added or modified implementation, or one otherwise unchanged, reported modified)."""
    out: list[_Change] = []
    stubs = []
    for c in changes:
        s = c.new or c.old
        (stubs if s is not None and is_overload_stub(s) else out).append(c)
    for c in stubs:
        s = c.new or c.old
        impl = next(
            (
                x
                for x in out
                if (x.new or x.old) is not None
                and _base_id((x.new or x.old).id) == _base_id(s.id)
                and x.change != "deleted"
            ),
            None,
        )
        if impl is None:
            found = _implementation(after, s)
            if found is None:
                out.append(c)
                continue
            old = before.rows.get(found.id)
            impl = _Change("modified", found, before.symbols[old] if old is not None else None)
            out.append(impl)
        impl.overloads += 1
        impl.added += c.added if c.change != "deleted" else 0
        impl.removed += c.removed
    return out


def _implementation(view: _View, stub: Symbol) -> Symbol | None:
    """The implementation of the overload set ``stub`` belongs to, in ``view``."""
    for r in view.index.by_name.get(stub.name, []):
        o = view.symbols[r]
        if o.path == stub.path and _base_id(o.id) == _base_id(stub.id) and not is_overload_stub(o):
            return o
    return None


def _signature(old: Symbol, new: Symbol) -> dict[str, Any] | None:
    """How the parameters and the return type differ; None when they do not."""
    if old.kind == "class" or new.kind == "class":
        return None
    a = [p.name for p in old.parameters]
    b = [p.name for p in new.parameters]
    types_a = {p.name: p.type for p in old.parameters}
    types_b = {p.name: p.type for p in new.parameters}
    removed = [n for n in a if n not in b]
    added = [n for n in b if n not in a]
    renamed = []
    if removed and added:  # a name replaced at the same place is a rename
        for n in list(removed):
            i = a.index(n)
            if i < len(b) and b[i] in added:
                renamed.append([n, b[i]])
                removed.remove(n)
                added.remove(b[i])
    retyped = [n for n in a if n in types_b and types_a[n] != types_b[n]]
    defaults_a = {p.name: p.default for p in old.parameters}
    defaults_b = {p.name: p.default for p in new.parameters}
    defaults = [n for n in b if n in defaults_a and defaults_a[n] != defaults_b[n]]
    out: dict[str, Any] = {}
    if added:
        out["parameters_added"] = added
    if removed:
        out["parameters_removed"] = removed
    if renamed:
        out["parameters_renamed"] = renamed
    if retyped:
        out["parameters_retyped"] = retyped
    if defaults:
        out["parameters_default_changed"] = defaults
    if (old.return_type or None) != (new.return_type or None):
        out["return_type"] = [old.return_type, new.return_type]
    if not out:
        return None
    out["before"], out["after"] = old.signature, new.signature
    return out


def _seeds(view: _View, row: int) -> list[int]:
    """Where callers of a definition enter: itself; a type's members (a test of a method
    reaches the class) and subclasses; a constructor's type; an overload signature's
    implementation."""
    s = view.symbols[row]
    graph = view.graph
    seeds = [row]
    if s.kind not in _CALLABLE:
        seeds += [int(graph.dst[e]) for e in graph.out_edges(row, ("contains",))]
        seeds += [int(graph.src[e]) for e in graph.in_edges(row, ("inherits",))]
    if s.name in _CONSTRUCTORS:
        seeds += [int(graph.src[e]) for e in graph.in_edges(row, ("contains",))]
    if is_overload_stub(s):
        impl = _implementation(view, s)
        if impl is not None:
            seeds.append(view.rows[impl.id])
    return list(dict.fromkeys(seeds))


def _reach(view: _View, seeds: list[int], unconditional: bool = False) -> list[int]:
    """Rows with a path of calls or decorations to any seed, nearest first: the whole graph
    walked (each row once), so the bound is the graph, not a depth. A function nested in
    another is reached from the one defining it (a test's local helper runs in the test).
    ``unconditional``: only through calls each made every time its caller runs (a test on
    such a path reaches the code; one whose every path has a conditional hop may reach it)."""
    graph, symbols, rows = view.graph, view.symbols, view.rows
    seen = set(seeds)
    out: list[int] = []
    frontier = deque(seeds)
    while frontier:
        r = frontier.popleft()
        callers = [
            int(graph.src[e])
            for e in graph.in_edges(r, _CALLERS)
            if not unconditional or (int(graph.src[e]) not in seen and not view.conditional(e))
        ]
        parent = symbols[r].parent
        if parent is not None and symbols[r].kind in _CALLABLE and parent in rows:
            if symbols[rows[parent]].kind in _CALLABLE:
                callers.append(rows[parent])
        for caller in callers:
            if caller not in seen:
                seen.add(caller)
                out.append(caller)
                frontier.append(caller)
    return out


def _tests(view: _View, reach: list[int]) -> list[int]:
    """The tests among ``reach``: test functions (``test_*``, ``Test*``) when there are any,
    else any code of the test files (a language whose tests are not named so)."""
    symbols = view.symbols
    code = [r for r in reach if symbols[r].role == "test" and symbols[r].kind != "chunk"]
    named = [r for r in code if symbols[r].name.lower().startswith("test")]
    return named or code


def _open_calls(view: _View, seeds: list[int], reach: list[int]) -> int:
    """Calls left unresolved that might lead into ``seeds``: in a symbol outside the reach, to
    a name one of the reach (or the seeds) bears."""
    inside = set(seeds) | set(reach)
    table = view.open_calls()
    return sum(1 for n in _names(view, inside) for row, _ in table.get(n, ()) if row not in inside)


def _names(view: _View, rows: set[int]) -> set[str]:
    """The names code uses to reach ``rows``: theirs, and a constructor's type's."""
    names = {view.symbols[r].name for r in rows if not view.symbols[r].name.startswith("<")}
    for r in rows:
        s = view.symbols[r]
        if s.name in _CONSTRUCTORS and s.class_name:
            names.add(s.class_name)
    return names


def _referenced(view: _View, seeds: list[int], reach: list[int]) -> tuple[str, int] | None:
    """Whether code the graph did not follow may still lead a test into ``seeds``.

    A definition is also used where it is named without a call the graph followed: a function
    passed as a value (a callback, a handler, middleware), a type in a literal, an import. Each
    line naming one of the reach (comments apart) outside the reach is taken as a use by the
    definition holding it, and the walk goes on from there, calls and names alike, to the end:
    ``("test", n)`` when it meets a test (or a test file's module code), ``("implicit", n)``
    when it meets code the language runs implicitly, None when it ends without either (``n``:
    the places found).
    """
    inside = set(seeds) | set(reach)
    places = 0
    for _ in range(_ROUNDS):
        names = _names(view, inside)
        if not names:
            return None
        found = set()
        for row in _naming(view, names):
            if row is None or row not in inside:
                places += 1
                if row is None:
                    continue
                found.add(row)
        if not found:
            return None
        more = found | set(_reach(view, list(found)))
        for row in more:
            s = view.symbols[row]
            if s.role == "test":
                return "test", places
            if _implicit(s):
                return "implicit", places
        inside |= more
    return "test", places  # still widening: a test may well be further on


_COMMENT = re.compile(r"^\s*(#|//|/\*|\*|--|;)")
# A string with a space in it is a message, not a name looked up: ``panic("Throttle expects")``
_PROSE = re.compile(r"\"[^\"\n]*\s[^\"\n]*\"|'[^'\n]*\s[^'\n]*'")


def _naming(view: _View, names: set[str]) -> list[int | None]:
    """The innermost definition (or chunk) of each line of code naming one of ``names``."""
    pattern = re.compile(r"\b(?:" + "|".join(map(re.escape, sorted(names))) + r")\b")
    out: list[int | None] = []
    for path, f in view.files.items():
        if not view.is_code(path):
            continue
        text = view.text(f)
        if not pattern.search(text):
            continue
        spans = view.spans(path)
        for number, line in enumerate(text.splitlines(), 1):
            if _COMMENT.match(line):
                continue
            hits = set(pattern.findall(_PROSE.sub("", line)))
            if not hits:
                continue
            row = _innermost(spans, number)
            s = view.symbols[row] if row is not None else None
            if s is not None and s.start_line == number and hits == {s.name}:
                continue  # a definition's own name, where it is defined
            out.append(row)
    return out


def _innermost(spans: list[tuple[int, int, int]], line: int) -> int | None:
    """The row of the narrowest definition (or chunk) whose lines hold ``line``."""
    best = None
    for start, end, row in spans:
        if start <= line <= end and (best is None or end - start < best[1] - best[0]):
            best = (start, end, row)
    return best[2] if best else None


def _callers(view: _View, seeds: list[int], depth: int) -> list[dict[str, Any]]:
    """Callers up to ``depth`` steps, breadth first, each once, nearest first, with the symbol
    each calls on its way (``via``) and the line of the call."""
    graph, symbols = view.graph, view.symbols
    from codebot.core.model import RESOLUTIONS

    seen = set(seeds)
    frontier = list(seeds)
    out: list[dict[str, Any]] = []
    first = seeds[0]
    for level in range(1, depth + 1):
        nxt = []
        for row in frontier:
            for e in graph.in_edges(row, _CALLERS):
                caller = int(graph.src[e])
                if caller in seen:
                    continue
                seen.add(caller)
                nxt.append(caller)
                via = first if level == 1 else row
                out.append(
                    {
                        **_where(symbols[caller]),
                        "depth": level,
                        "via": symbols[via].id,
                        "calls": symbols[row].id,
                        "line": int(graph.line[e]),
                        "resolution": RESOLUTIONS[graph.resolution[e]],
                    }
                )
        if not nxt:
            break
        frontier = nxt
    return out


def _where(s: Symbol) -> dict[str, Any]:
    return {"id": s.id, "path": s.path, "start_line": s.start_line}


def _risk(e: dict[str, Any]) -> int:
    """How much a change can break, at a glance: what calls it and what runs through it; for
    removed code, what still calls or imports it."""
    broken = 10 * (len(e.get("still_calling", [])) + len(e.get("imports", [])))
    if e["change"] == "deleted":
        return broken
    return e["callers_total"] + 5 * e["entry_points_total"] + broken


def _risk_order(e: dict[str, Any]) -> tuple:
    return (-_risk(e), e["tests_total"], _ORDER[e["change"]], e["path"], e["start_line"])


# --- text ---------------------------------------------------------------------------------------


def _headline(doc: dict[str, Any]) -> str:
    s = doc["summary"]
    parts = [f"{s[k]} {k}" for k in ("modified", "added", "deleted", "renamed") if s[k]]
    text = (
        (", ".join(parts) or "no") + " definition" + ("s" if len(doc["definitions"]) != 1 else "")
    )
    if s["signature_changed"]:
        text += f" ({s['signature_changed']} with a new signature)"
    code = [f for f in doc["files"] if f["code"]]
    other = [f for f in doc["files"] if not f["code"]]
    text += f" in {len(code)} code file{'s' if len(code) != 1 else ''}"
    if other:
        text += f"; {len(other)} other file{'s' if len(other) != 1 else ''}"
    return text + f"; +{s['lines_added']} -{s['lines_removed']} lines"


def _reach_note(e: dict[str, Any]) -> str:
    if e["test_reach"] == "tested":
        return f"{e['tests_total']} tests" + _may_note(e)
    if e["test_reach"] == "conditional":
        return _conditional_only(e)
    if e["test_reach"] == "is_test":
        return "a test"
    if e["test_reach"] == "removed":
        return f"{len(e['still_calling'])} still calling it"
    if e["test_reach"] == "untested":
        return "no test reaches this"
    return f"no test found ({_unknown_why(e)})"


def _may_note(e: dict[str, Any]) -> str:
    """How many more tests may reach it through conditional calls, or nothing."""
    n = e.get("may_tests_total", 0)
    return f" (+{n} may, through conditional calls)" if n else ""


def _conditional_only(e: dict[str, Any]) -> str:
    n = e["may_tests_total"]
    return f"reached only through conditional calls by {n} test{'s' if n != 1 else ''}"


def _unknown_why(e: dict[str, Any]) -> str:
    why = [f"{e['unresolved_calls']} calls into it unresolved"] if e["unresolved_calls"] else []
    if e.get("named_by_tested_code"):
        why.append(
            f"named, not called, in {e['named_by_tested_code']} places a test may reach it from"
        )
    if e.get("implicit"):
        why.insert(0, "run implicitly by the language")
    return "; ".join(why)


def _sig_note(sig: dict[str, Any]) -> str:
    parts = []
    if sig.get("parameters_added"):
        parts.append("+" + ",".join(sig["parameters_added"]))
    if sig.get("parameters_removed"):
        parts.append("-" + ",".join(sig["parameters_removed"]))
    for a, b in sig.get("parameters_renamed", []):
        parts.append(f"{a}->{b}")
    if sig.get("parameters_retyped"):
        parts.append("retyped " + ",".join(sig["parameters_retyped"]))
    if sig.get("parameters_default_changed"):
        parts.append("new default " + ",".join(sig["parameters_default_changed"]))
    if "return_type" in sig:
        parts.append(f"returns {sig['return_type'][1] or '?'} (was {sig['return_type'][0] or '?'})")
    return " ".join(parts)


def impact_text(doc: dict[str, Any]) -> str:
    """The impact report in a few lines: the headline, then one line per definition."""
    lines = [f"{short_commit(doc['base'])}..{short_commit(doc['head'])}: {_headline(doc)}"]
    for e in doc["definitions"]:
        notes = [f"+{e['lines_added']} -{e['lines_removed']}", f"{e['callers_direct']} callers"]
        if e.get("signature"):
            notes.append("signature " + _sig_note(e["signature"]))
        if e["change"] == "deleted":
            notes.append(f"{len(e['still_calling'])} still calling it")
        else:
            notes.append(_reach_note(e))
        lines.append(
            f"  {e['change']:<8} {e['path']}:{e['start_line']}  {e['id']}  ({', '.join(notes)})"
        )
    for f in doc["files"]:
        if not f["code"]:
            lines.append(f"  file     {f['path']} (+{f['lines_added']} -{f['lines_removed']})")
    return "\n".join(lines) + "\n"


# --- compact, for agents --------------------------------------------------------------------------


def impact_compact(doc: dict[str, Any]) -> dict[str, Any]:
    """The report for an agent (``schemas/impact-compact.schema.json``): ids, counts and
    path:line, a few tests each, no graph."""
    defs = []
    for e in doc["definitions"]:
        d: dict[str, Any] = {
            "change": e["change"],
            "id": e["id"],
            "at": f"{e['path']}:{e['start_line']}",
            "lines": f"+{e['lines_added']} -{e['lines_removed']}",
            "callers": e["callers_direct"],
            "callers_total": e["callers_total"],
            "entry_points": e["entry_points_total"],
            "tests": e["tests_total"],
            "may_tests": e.get("may_tests_total", 0),
            "test_reach": e["test_reach"],
        }
        if e.get("from"):
            d["from"] = f"{e['from']} {e['from_path']}:{e['from_line']}"
        if e.get("signature"):
            d["signature"] = _sig_note(e["signature"])
        if e["test_reach"] == "unknown":
            d["unresolved_calls"] = e["unresolved_calls"]
            d["why"] = _unknown_why(e)
        if e["tests"]:
            d["some_tests"] = [t["id"] for t in e["tests"][:2]]
        elif e.get("may_tests"):
            d["some_may_tests"] = [t["id"] for t in e["may_tests"][:2]]
        if e["change"] in ("deleted", "renamed"):
            d["still_calling"] = [f"{c['path']}:{c['line']}" for c in e["still_calling"][:5]]
            d["imports"] = [f"{i['path']}:{i['line']}" for i in e["imports"][:5]]
        defs.append(d)
    return {
        "range": f"{short_commit(doc['base'])}..{short_commit(doc['head'])}",
        "headline": _headline(doc),
        "definitions": defs,
        "other_files": [
            f"{f['path']} +{f['lines_added']} -{f['lines_removed']}"
            for f in doc["files"]
            if not f["code"]
        ],
    }


def impact_compact_text(doc: dict[str, Any]) -> str:
    """:func:`impact_compact` as lines: what the MCP ``impact`` tool and ``--format compact``
    print."""
    c = impact_compact(doc)
    lines = [f"{c['range']}: {c['headline']}"]
    for d in c["definitions"]:
        bits = [d["lines"], f"callers {d['callers']}/{d['callers_total']}"]
        if d["entry_points"]:
            bits.append(f"entry points {d['entry_points']}")
        bits.append(
            "removed"
            if d["test_reach"] == "removed"
            else f"tests {d['tests']}" + (f" (+{d['may_tests']} may)" if d["may_tests"] else "")
            if d["test_reach"] in ("tested", "is_test")
            else f"tests 0, {d['may_tests']} may reach it through conditional calls"
            if d["test_reach"] == "conditional"
            else "NO TEST"
            if d["test_reach"] == "untested"
            else f"no test found ({d['why']})"
        )
        if d.get("signature"):
            bits.append(f"sig {d['signature']}")
        line = f"{d['change']} {d['id']} {d['at']}"
        if d.get("from"):
            line += f" (was {d['from']})"
        lines.append(f"{line}: {'; '.join(bits)}")
        if d.get("some_tests"):
            lines.append(f"  e.g. {', '.join(d['some_tests'])}")
        if d.get("some_may_tests"):
            lines.append(f"  may reach it: {', '.join(d['some_may_tests'])}")
        if d.get("still_calling"):
            lines.append(f"  still calling: {', '.join(d['still_calling'])}")
        if d.get("imports"):
            lines.append(f"  still importing: {', '.join(d['imports'])}")
    if c["other_files"]:
        lines.append("other files: " + ", ".join(c["other_files"]))
    return "\n".join(lines) + "\n"


# --- markdown, for a pull request comment and the job summary -------------------------------------


def impact_markdown(
    doc: dict[str, Any], link: str | None = None, limit: int = COMMENT_LIMIT, marker: str = ""
) -> str:
    """The report as GitHub-flavoured markdown, within ``limit`` characters.

    ``link``: a URL prefix for ``path#Lline`` links (the blob at the head commit). Whatever the
    code contains is escaped: names and paths go in code spans, nothing is taken as markup.
    """
    head = [
        marker,
        f"### codebot impact `{doc['base'][:10]}..{doc['head'][:10]}`",
        "",
        _headline(doc),
        "",
    ]
    broken = [e for e in doc["definitions"] if e.get("still_calling") or e.get("imports")]
    if broken:
        head.append(f"**{len(broken)} removed or moved definition(s) still named:**")
        for e in broken:
            refs = [f"{_ref(c, link, 'line')} calls it" for c in e["still_calling"]]
            refs += [f"{_ref(i, link, 'line')} imports it" for i in e["imports"]]
            head.append(f"- {_code(e.get('from') or e['id'])} ← " + "; ".join(refs))
        head.append("")
    untested = [e for e in doc["definitions"] if e["test_reach"] == "untested"]
    if untested:
        head.append(
            f"**No test reaches {len(untested)} changed definition(s):** "
            + ", ".join(_ref(e, link) for e in untested[:_LISTED])
            + (" …" if len(untested) > _LISTED else "")
        )
        head.append("")
    if doc["definitions"]:
        head += [
            "| definition | change | lines | callers | entry points | tests |",
            "|---|---|---|---|---|---|",
        ]
        for e in doc["definitions"]:
            change = e["change"] + (" (signature)" if e.get("signature") else "")
            tests = (
                "—"
                if e["test_reach"] == "removed"
                else str(e["tests_total"])
                + (f" (+{e['may_tests_total']} may)" if e.get("may_tests_total") else "")
                if e["test_reach"] in ("tested", "is_test")
                else f"0 ({e['may_tests_total']} may, through conditional calls)"
                if e["test_reach"] == "conditional"
                else "**none**"
                if e["test_reach"] == "untested"
                else f"none found ({_unknown_why(e)})"
            )
            head.append(
                f"| {_ref(e, link)} | {change} | +{e['lines_added']} -{e['lines_removed']} | "
                f"{e['callers_direct']} ({e['callers_total']} in all) | "
                f"{e['entry_points_total']} | {tests} |"
            )
        head.append("")
    edges = [c for e in doc["definitions"] for c in e.get("callers", ())]
    precise = sum(c["resolution"] == "precise" for c in edges)
    if precise:  # codebot precise: a compiler-grade indexer's edges, for unchanged code
        head.append(
            f"{precise} of {len(edges)} caller edges are precise (from a SCIP index: a "
            "compiler's answer); the others are codebot's resolution."
        )
        head.append("")
    other = [f for f in doc["files"] if not f["code"]]
    if other:
        head.append(
            "Other files: "
            + ", ".join(
                f"{_code(f['path'])} (+{f['lines_added']} -{f['lines_removed']})" for f in other
            )
        )
        head.append("")
    body = []
    for e in doc["definitions"]:
        body += _entry_markdown(e, link)
    tail = []
    if doc["mermaid"]:
        tail = ["<details><summary>Call graph of the changes</summary>", "", "```mermaid",
                doc["mermaid"].rstrip(), "```", "", "</details>", ""]  # fmt: skip
    text = "\n".join(head + body + tail)
    if len(text) <= limit:
        return text
    # Too long for a comment: keep the summary, as many entries as fit, and say what was cut.
    note = "\n_(cut to fit: run `codebot impact` locally, or see the job summary, for all)_\n"
    out, used = [], len(note)
    for line in head + body:
        if used + len(line) + 1 > limit:
            break
        out.append(line)
        used += len(line) + 1
    return "\n".join(out) + note


def _entry_markdown(e: dict[str, Any], link: str | None) -> list[str]:
    title = f"{e['change']} {e['kind']} {_ref(e, link)}"
    if e["change"] == "renamed":
        title += f" (was {_code(e['from'])})"
    lines = [f"<details><summary>{_html(title)}</summary>", ""]
    if e.get("signature"):
        sig = e["signature"]
        lines += [f"Signature: {_code(sig['before'])} → {_code(sig['after'])}", ""]
    if e.get("overloads_changed"):
        lines += [f"With {e['overloads_changed']} of its overload signatures.", ""]
    if e["callers"]:
        lines.append(f"Callers ({e['callers_direct']} direct, {e['callers_total']} in all):")
        lines += _caller_tree(e, link)
        if len(e["callers"]) == _LISTED:
            lines.append("- …")
    else:
        lines.append("No callers in the repository.")
    if e["entry_points"]:
        lines.append("")
        lines.append(
            f"Entry points reaching it ({e['entry_points_total']}): "
            + _few(e["entry_points"], e["entry_points_total"], link)
        )
    if e["change"] != "deleted":
        lines.append("")
        if e["test_reach"] == "tested":
            lines.append(
                f"Tests reaching it ({e['tests_total']}): "
                + _few(e["tests"], e["tests_total"], link)
            )
            if e.get("may_tests_total"):
                lines.append(
                    f"and {e['may_tests_total']} more test{'s' if e['may_tests_total'] != 1 else ''}"
                    " may reach it through conditional"
                    " calls (a branch, a handler, a loop body on the way), e.g. "
                    + ", ".join(_ref(t, link) for t in e["may_tests"][:3])
                )
        elif e["test_reach"] == "conditional":
            lines.append(
                f"No test surely reaches this: {_conditional_only(e)} (a branch, a handler,"
                " a loop body on the way), e.g. "
                + ", ".join(_ref(t, link) for t in e["may_tests"][:3])
            )
        elif e["test_reach"] == "untested":
            lines.append("**No test reaches this.**")
        elif e["test_reach"] == "unknown":
            lines.append(f"No test found ({_unknown_why(e)}).")
    lines += ["", "</details>", ""]
    return lines


def _caller_tree(e: dict[str, Any], link: str | None) -> list[str]:
    """Callers as a tree: each under the symbol it calls on the way to the changed one."""
    below: dict[str, list[dict[str, Any]]] = {}
    for c in e["callers"]:
        below.setdefault(c["via"], []).append(c)
    lines: list[str] = []

    def walk(sid: str, indent: int) -> None:
        for c in below.get(sid, ()):
            mark = {
                "unique_name": " (unique name)",
                "overload": " (an overload)",
                "override": " (an override)",
                "precise": " (precise)",
            }.get(c["resolution"], "")
            lines.append(f"{'  ' * indent}- {_ref(c, link)} line {c['line']}{mark}")
            walk(c["id"], indent + 1)

    walk(e["id"], 0)
    return lines


def _few(items: list[dict[str, Any]], total: int, link: str | None, shown: int = 5) -> str:
    text = ", ".join(_ref(x, link) for x in items[:shown])
    return text + (f" and {total - shown} more" if total > shown else "")


def _code(text: str) -> str:
    """``text`` as a code span, whatever backticks it holds."""
    fence = "``" if "`" in text else "`"
    return f"{fence} {text} {fence}" if fence == "``" else f"`{text}`"


def _ref(x: dict[str, Any], link: str | None, key: str = "start_line") -> str:
    label = _code(f"{x['path']}:{x[key]}")
    name = _code(x["id"].rsplit(".", 1)[-1]) if "id" in x else ""
    if link:
        label = f"[{label}]({link.rstrip('/')}/{_url_path(x['path'])}#L{x[key]})"
    return f"{name} {label}".strip()


def _url_path(path: str) -> str:
    from urllib.parse import quote

    return quote(path)


def _html(text: str) -> str:
    """Inside <summary>, markdown still renders but raw HTML must not: escape < > &."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")

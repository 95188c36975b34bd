"""What a range of commits touches beyond its diff: ``codebot impact BASE..HEAD``.

    committed index ──apply_changes──► a view at BASE ┐   (throwaway, in a temp dir: the
                    └─apply_changes──► a view at HEAD ┘    committed index is not moved)
    symbols of the changed files, BASE vs HEAD ──► added, modified, deleted, renamed
    each one, in the graph where it lives ──► callers (with resolution), the entry points whose
    call trees pass through it, the tests that reach it (or "no test reaches this"), communities

A deleted symbol's callers come from BASE; those still in HEAD are *orphaned*: they called code
that is gone. A renamed symbol is one whose code moved unchanged to another id (a file renamed,
a function moved between files). Chunks (code between definitions) are counted, not listed.
"""

from __future__ import annotations

import tempfile
from collections import deque
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from codebot.core.config import Config
from codebot.core.errors import CodebotError
from codebot.git.repo import short_commit
from codebot.git.workspace import Workspace
from codebot.index.store import Index, lock_for_writing, read_index
from codebot.parse.files import Selector

__all__ = ["impact", "impact_markdown", "impact_text", "parse_range"]

_REACH_DEPTH = 8  # how far up the callers entry points and tests are looked for
_REACH_LIMIT = 5_000  # symbols visited at most per changed symbol (hubs)
_LISTED = 20  # callers, entry points, tests listed per symbol (the counts are always whole)
_MERMAID_NODES = 40
COMMENT_LIMIT = 65_536  # GitHub's limit on a comment body


def parse_range(text: str) -> tuple[str, str]:
    """``BASE..HEAD`` (``BASE...HEAD`` reads the same), or ``BASE`` alone for ``BASE..HEAD``."""
    for sep in ("...", ".."):
        if sep in text:
            base, head = text.split(sep, 1)
            return base or "HEAD", head or "HEAD"
    return text, "HEAD"


@dataclass
class _View:
    index: Index
    rows: dict[str, int]  # symbol id -> row

    @classmethod
    def of(cls, index: Index) -> _View:
        return cls(index, index.by_id)


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
    changed = repo.diff(base_c, head_c)
    with tempfile.TemporaryDirectory(prefix="codebot-impact-") as tmp:
        before = _View.of(_view_at(committed, repo, config, base_c, Path(tmp) / "base"))
        after = _View.of(_view_at(committed, repo, config, head_c, Path(tmp) / "head"))
        return _report(before, after, changed, base_c, head_c, depth)


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
            with_vectors=False, transient=True,
        )  # fmt: skip
    return Index(where, committed.root, report.manifest, repo)


def _report(
    before: _View, after: _View, changed, base: str, head: str, depth: int
) -> dict[str, Any]:
    old_paths = {c.old_path or c.path for c in changed}
    new_paths = {c.path for c in changed if c.status != "D"}
    old = _symbols_in(before.index, old_paths)
    new = _symbols_in(after.index, new_paths)
    added = [i for i in new if i not in old]
    deleted = [i for i in old if i not in new]
    modified = [i for i in new if i in old and new[i].content_hash != old[i].content_hash]
    renamed = _renames(old, new, added, deleted)
    moved_from = {a: d for d, a in renamed}
    added = [i for i in added if i not in moved_from]
    deleted = [i for i in deleted if i not in {d for d, _ in renamed}]

    entries: list[dict[str, Any]] = []
    for sid in modified:
        entries.append(_entry("modified", after, sid, depth))
    for sid in added:
        entries.append(_entry("added", after, sid, depth))
    for old_id, new_id in renamed:
        entries.append({**_entry("renamed", after, new_id, depth), "from": old_id})
    for sid in deleted:
        entry = _entry("deleted", before, sid, depth)
        entry["orphaned_callers"] = [c for c in entry["callers"] if c["id"] in after.rows]
        entries.append(entry)
    entries.sort(key=lambda e: (_ORDER[e["change"]], e["path"], e["start_line"]))
    chunks = sum(
        1
        for ids, table in ((old, before), (new, after))
        for i in ids
        if table.index.symbols[table.rows[i]].kind == "chunk"
    )
    communities = _communities(entries, before, after)
    return {
        "base": base,
        "head": head,
        "files": {
            kind: sum(1 for c in changed if c.status == code)
            for kind, code in (
                ("added", "A"),
                ("modified", "M"),
                ("deleted", "D"),
                ("renamed", "R"),
            )
        },
        "summary": {kind: sum(1 for e in entries if e["change"] == kind) for kind in _ORDER},
        "chunks_changed": chunks,
        "symbols": entries,
        "communities": communities,
        "mermaid": _mermaid(after, [e for e in entries if e["change"] != "deleted"]),
    }


_ORDER = {"deleted": 0, "modified": 1, "renamed": 2, "added": 3}


def _symbols_in(index: Index, paths: set[str]) -> dict[str, Any]:
    """The definitions (chunks apart) of ``paths``, by id, in row order."""
    table = index.symbols
    out = {}
    for f in index.files():
        if f.path in paths:
            for sid in f.symbols:
                s = table[index.by_id[sid]]
                out[sid] = s
    return out


def _renames(old, new, added: list[str], deleted: list[str]) -> list[tuple[str, str]]:
    """(old id, new id) of definitions whose code moved unchanged to another id."""
    by_hash: dict[str, list[str]] = {}
    for sid in added:
        if new[sid].kind != "chunk":
            by_hash.setdefault(new[sid].content_hash, []).append(sid)
    pairs = []
    for sid in deleted:
        if old[sid].kind == "chunk":
            continue
        candidates = by_hash.get(old[sid].content_hash, [])
        same_name = [c for c in candidates if new[c].name == old[sid].name]
        if same_name:
            pairs.append((sid, same_name[0]))
            candidates.remove(same_name[0])
    return pairs


def _entry(change: str, view: _View, sid: str, depth: int) -> dict[str, Any]:
    index = view.index
    graph, symbols = index.graph, index.symbols
    row = view.rows[sid]
    s = symbols[row]
    callers = graph.callers(row, depth)
    reach = _reaching(graph, row)
    entry_points = set(graph.entry_points.tolist())
    tests = [r for r in reach if symbols[r].role == "test"]
    entries = [r for r in reach if r in entry_points and symbols[r].role != "test"]
    return {
        "change": change,
        "id": s.id,
        "name": s.name,
        "kind": s.kind,
        "path": s.path,
        "start_line": s.start_line,
        "end_line": s.end_line,
        "community": int(graph.community[row]),
        "callers": [
            {
                **_where(symbols[n.row]),
                "depth": n.depth,
                "via": symbols[n.via].id,
                "line": n.line,
                "resolution": n.resolution,
            }
            for n in callers[:_LISTED]
        ],
        "callers_total": len(callers),
        "entry_points": [_where(symbols[r]) for r in entries[:_LISTED]],
        "entry_points_total": len(entries),
        "tests": [_where(symbols[r]) for r in tests[:_LISTED]],
        "tests_total": len(tests),
        "tested": bool(tests) or s.role == "test",
    }


def _where(s) -> dict[str, Any]:
    return {"id": s.id, "path": s.path, "start_line": s.start_line}


def _reaching(graph, row: int) -> list[int]:
    """Rows with a call path to ``row`` (callers, theirs...), nearest first, bounded."""
    seen = {row}
    out: list[int] = []
    frontier = deque([(row, 0)])
    while frontier and len(seen) < _REACH_LIMIT:
        r, d = frontier.popleft()
        if d == _REACH_DEPTH:
            continue
        for e in graph.in_edges(r):
            caller = int(graph.src[e])
            if caller not in seen:
                seen.add(caller)
                out.append(caller)
                frontier.append((caller, d + 1))
    return out


def _communities(entries, before: _View, after: _View) -> list[dict[str, Any]]:
    touched: dict[int, int] = {}
    for e in entries:
        if e["community"] >= 0 and e["change"] != "deleted":
            touched[e["community"]] = touched.get(e["community"], 0) + 1
    graph, symbols = after.index.graph, after.index.symbols
    out = []
    for cid, count in sorted(touched.items(), key=lambda kv: (-kv[1], kv[0])):
        c = graph.communities[cid]
        out.append(
            {
                "id": cid,
                "size": c.size,
                "changed": count,
                "central": [symbols[r].id for r in c.central],
            }
        )
    return out


def _mermaid(view: _View, entries: list[dict[str, Any]]) -> str:
    """The changed symbols with their direct callers and callees, as a Mermaid flowchart."""
    from codebot.graph.callgraph import CALLS
    from codebot.query.graph_output import export_doc, export_mermaid

    if not entries:
        return ""
    graph = view.index.graph
    rows: list[int] = []
    for e in entries:
        row = view.rows[e["id"]]
        rows += (
            [row] + [n.row for n in graph.callers(row, 1)] + [n.row for n in graph.callees(row, 1)]
        )
    rows = list(dict.fromkeys(rows))[:_MERMAID_NODES]
    doc = export_doc(view.index, rows, graph.edges_among(rows, CALLS), CALLS, None, 1)
    changed = {view.rows[e["id"]] for e in entries}
    marked = ",".join(f"n{i}" for i, row in enumerate(rows) if row in changed)  # export's names
    return (
        export_mermaid(doc)
        + "  classDef changed fill:#fde68a,stroke:#b45309\n"
        + f"  class {marked} changed\n"
    )


# --- markdown, for a pull request comment and the job summary -------------------------------------


def impact_text(doc: dict[str, Any]) -> str:
    """The impact report in a few lines: the summary, then one line per definition."""
    s = doc["summary"]
    lines = [
        f"{short_commit(doc['base'])}..{short_commit(doc['head'])}: {s['modified']} modified, "
        f"{s['added']} added, {s['deleted']} deleted, {s['renamed']} renamed definitions"
    ]
    for e in doc["symbols"]:
        notes = [f"{e['callers_total']} callers"]
        if e["change"] == "deleted" and e["orphaned_callers"]:
            notes.append(f"{len(e['orphaned_callers'])} still calling it")
        if e["change"] != "deleted":
            notes.append(f"{e['tests_total']} tests" if e["tested"] else "no test reaches this")
        lines.append(
            f"  {e['change']:<8} {e['path']}:{e['start_line']}  {e['id']}  ({', '.join(notes)})"
        )
    return "\n".join(lines) + "\n"


def impact_markdown(
    doc: dict[str, Any], link: str | None = None, limit: int = COMMENT_LIMIT, marker: str = ""
) -> str:
    """The report as GitHub-flavoured markdown, within ``limit`` characters.

    ``link``: a URL prefix for ``path#Lline`` links (the blob at the head commit). Whatever the
    code contains is escaped: names and paths go in code spans, nothing is taken as markup.
    """
    s = doc["summary"]
    head = [
        marker,
        f"### codebot impact `{doc['base'][:10]}..{doc['head'][:10]}`",
        "",
        f"{s['modified']} modified, {s['added']} added, {s['deleted']} deleted, "
        f"{s['renamed']} renamed definitions"
        + (
            f" ({doc['chunks_changed']} changed chunks of other code)"
            if doc["chunks_changed"]
            else ""
        ),
        "",
    ]
    untested = [e for e in doc["symbols"] if e["change"] != "deleted" and not e["tested"]]
    orphaned = [e for e in doc["symbols"] if e.get("orphaned_callers")]
    if orphaned:
        head.append(f"**{len(orphaned)} deleted definition(s) still called:**")
        for e in orphaned:
            callers = ", ".join(_ref(c, link) for c in e["orphaned_callers"])
            head.append(f"- {_code(e['id'])} ← {callers}")
        head.append("")
    if untested:
        head.append(
            f"**No test reaches {len(untested)} changed definition(s):** "
            + ", ".join(_ref(e, link) for e in untested[:_LISTED])
            + (" …" if len(untested) > _LISTED else "")
        )
        head.append("")
    body = []
    for e in doc["symbols"]:
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
    out, used = list(head), len("\n".join(head)) + len(note)
    for line in body:
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
    if e["callers"]:
        lines.append(f"Callers ({e['callers_total']}):")
        lines += _caller_tree(e, link)
        if e["callers_total"] > len(e["callers"]):
            lines.append(f"- … {e['callers_total'] - len(e['callers'])} more")
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
        if e["tests"]:
            lines.append(
                f"Tests reaching it ({e['tests_total']}): "
                + _few(e["tests"], e["tests_total"], link)
            )
        elif not e["tested"]:
            lines.append("**No test reaches this.**")
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


def _ref(x: dict[str, Any], link: str | None) -> str:
    label = _code(f"{x['path']}:{x['start_line']}")
    name = _code(x["id"].rsplit(".", 1)[-1]) if "id" in x else ""
    if link:
        label = f"[{label}]({link.rstrip('/')}/{_url_path(x['path'])}#L{x['start_line']})"
    return f"{name} {label}".strip()


def _url_path(path: str) -> str:
    from urllib.parse import quote

    return quote(path)


def _html(text: str) -> str:
    """Inside <summary>, markdown still renders but raw HTML must not: escape < > &."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")

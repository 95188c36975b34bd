"""What the graph commands print: JSON documents (the schemas in ``schemas/``) and their text,
DOT and Mermaid renderings. Pure functions of an index and its graph, so the CLI stays thin and
other front ends (the MCP server) can reuse them.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from codebot.core.model import EDGE_KINDS, RESOLUTIONS, Symbol

if TYPE_CHECKING:
    from codebot.graph.callgraph import ChainNode, Neighbor
    from codebot.index.store import Index

__all__ = [
    "precise_line",
    "brief",
    "call_sites",
    "label",
    "neighbors_doc",
    "neighbors_text",
    "chain_doc",
    "chain_text",
    "entrypoints_doc",
    "export_doc",
    "export_dot",
    "export_mermaid",
    "stats_doc",
    "stats_text",
]


def brief(s: Symbol) -> dict[str, Any]:
    """The fields that locate a symbol (schemas: ``$defs/symbol_ref``)."""
    return s.ref()


def label(s: Symbol) -> str:
    """``Class.method`` for a method, the name otherwise; chunks by their id's last part."""
    if s.kind == "chunk":
        return s.id.rsplit(".", 1)[-1]
    return f"{s.class_name}.{s.name}" if s.class_name else s.name


def _where(s: Symbol) -> str:
    return f"{s.path}:{s.start_line}"


# --- callers / callees ----------------------------------------------------------------------------


def neighbors_doc(
    symbols: Sequence[Symbol], row: int, direction: str, depth: int, found: list[Neighbor]
) -> dict[str, Any]:
    return {
        "symbol": brief(symbols[row]),
        "direction": direction,
        "depth": depth,
        "results": [
            {
                **brief(symbols[n.row]),
                "depth": n.depth,
                "via": symbols[n.via].id,
                "line": n.line,
                "resolution": n.resolution,
                **({"edge": n.kind} if n.kind != "calls" else {}),
            }
            for n in found
        ],
    }


def neighbors_text(
    symbols: Sequence[Symbol], row: int, direction: str, found: list[Neighbor]
) -> list[str]:
    s = symbols[row]
    if not found:
        who = "nobody calls" if direction == "callers" else "no resolved calls from"
        return [f"{who} {s.id}  {_where(s)}"]
    lines = []
    for n in found:
        t = symbols[n.row]
        # The call site: in the caller (the found symbol) for callers, in `via` for callees.
        site = symbols[n.row if direction == "callers" else n.via]
        guess = _RESOLUTION_TEXT.get(n.resolution, "")
        if n.kind != "calls":
            guess += f"  ({n.kind})"
        via = f"  via {label(symbols[n.via])}" if n.depth > 1 else ""
        lines.append(f"{n.depth}  {t.id}  {_where(t)}  call at {site.path}:{n.line}{via}{guess}")
    return lines


# --- chains ---------------------------------------------------------------------------------------


def chain_doc(symbols: Sequence[Symbol], root: ChainNode, depth: int) -> dict[str, Any]:
    def node(n: ChainNode) -> dict[str, Any]:
        out: dict[str, Any] = {**brief(symbols[n.row])}
        if n.line is not None:
            out["line"] = n.line
            out["resolution"] = n.resolution
        if n.mark is not None:
            out["mark"] = n.mark
        out["children"] = [node(c) for c in n.children]
        return out

    return {"depth": depth, "nodes": root.size(), "root": node(root)}


_MARK_TEXT = {
    "cycle": "(cycle)",
    "repeat": "(see above)",
    "depth": "(deeper calls not shown)",
    "limit": "(more calls not shown)",
}


# How a guessed edge is marked in text: the name was the only one, or the set's member is unknown;
# and an edge a compiler-grade indexer gave (codebot precise).
_RESOLUTION_TEXT = {
    "unique_name": "  (unique name)",
    "overload": "  (an overload)",
    "override": "  (an override)",
    "precise": "  (precise)",
}


def chain_text(symbols: Sequence[Symbol], root: ChainNode) -> list[str]:
    def line(n: ChainNode) -> str:
        s = symbols[n.row]
        extra = _RESOLUTION_TEXT.get(n.resolution or "", "")
        mark = f"  {_MARK_TEXT[n.mark]}" if n.mark else ""
        return f"{label(s)}  {_where(s)}{extra}{mark}"

    out = [line(root)]

    def walk(n: ChainNode, prefix: str) -> None:
        for i, c in enumerate(n.children):
            last = i == len(n.children) - 1
            out.append(prefix + ("└── " if last else "├── ") + line(c))
            walk(c, prefix + ("    " if last else "│   "))

    walk(root, "")
    return out


def _by(counts: dict[str, int], skip: int = 0) -> str:
    """``exact 10, unique_name 2``: the non-zero counts (the first ``skip`` left out)."""
    return ", ".join(f"{k} {n}" for k, n in list(counts.items())[skip:] if n) or "none"


# --- entry points ---------------------------------------------------------------------------------


def entrypoints_doc(index: Index, rows: Iterable[int]) -> dict[str, Any]:
    graph, symbols = index.graph, index.symbols
    _, outdeg = graph.degree()
    results = [
        {**brief(symbols[r]), "role": symbols[r].role, "callees": int(outdeg[r])} for r in rows
    ]
    return {"total": len(graph.entry_points), "results": results}


# --- export ---------------------------------------------------------------------------------------


def export_doc(
    index: Index,
    rows: list[int],
    edges: list[int],
    kinds: Sequence[str],
    center: int | None,
    depth: int | None,
) -> dict[str, Any]:
    graph, symbols = index.graph, index.symbols
    return {
        "center": symbols[center].id if center is not None else None,
        "depth": depth,
        "kinds": list(kinds),
        "nodes": [
            {
                **brief(symbols[r]),
                "pagerank": float(graph.pagerank[r]),
                "community": int(graph.community[r]),
            }
            for r in rows
        ],
        "edges": [
            {
                "src": symbols[graph.src[e]].id,
                "dst": symbols[graph.dst[e]].id,
                "kind": EDGE_KINDS[graph.kind[e]],
                "line": int(graph.line[e]),
                "resolution": RESOLUTIONS[graph.resolution[e]],
            }
            for e in edges
        ],
    }


def _merged(doc: dict[str, Any]) -> list[tuple[str, str, str, str]]:
    """One drawn edge per (src, dst, kind): a function called on five lines is one arrow."""
    seen: dict[tuple[str, str, str], str] = {}
    for e in doc["edges"]:
        key = (e["src"], e["dst"], e["kind"])
        if key not in seen or e["resolution"] == "exact":
            seen[key] = e["resolution"]
    return [(*k, r) for k, r in seen.items()]


def export_dot(doc: dict[str, Any]) -> str:
    def esc(text: str) -> str:
        return text.replace("\\", "\\\\").replace('"', '\\"')

    out = ["digraph codebot {", "  rankdir=LR;", "  node [shape=box, fontname=monospace];"]
    for n in doc["nodes"]:
        text = f"{esc(n['name'])}\\n{esc(n['path'])}:{n['start_line']}"
        bold = ", style=bold" if n["id"] == doc["center"] else ""
        out.append(f'  "{esc(n["id"])}" [label="{text}"{bold}];')
    for src, dst, kind, res in _merged(doc):
        attrs = [] if kind == "calls" else [f'label="{kind}"']
        if res != "exact":
            attrs.append("style=dashed")
        suffix = f" [{', '.join(attrs)}]" if attrs else ""
        out.append(f'  "{esc(src)}" -> "{esc(dst)}"{suffix};')
    out.append("}")
    return "\n".join(out) + "\n"


def export_mermaid(doc: dict[str, Any]) -> str:
    ids = {n["id"]: f"n{i}" for i, n in enumerate(doc["nodes"])}

    def text(n: dict[str, Any]) -> str:
        raw = f"{n['name']}<br/>{n['path']}:{n['start_line']}"
        return raw.replace('"', "#quot;")

    out = ["flowchart LR"]
    out += [f'  {ids[n["id"]]}["{text(n)}"]' for n in doc["nodes"]]
    for src, dst, kind, res in _merged(doc):
        arrow = "-.->" if res != "exact" else "-->"
        tag = "" if kind == "calls" else f"|{kind}|"
        out.append(f"  {ids[src]} {arrow}{tag} {ids[dst]}")
    return "\n".join(out) + "\n"


# --- stats ----------------------------------------------------------------------------------------


def stats_doc(index: Index, top_communities: int = 10) -> dict[str, Any]:
    graph, symbols = index.graph, index.symbols
    by_kind: dict[str, dict[str, int]] = {}
    for kind in EDGE_KINDS:
        counts = {r: graph.count(kind, r) for r in RESOLUTIONS}
        by_kind[kind] = {"total": sum(counts.values()), **counts}
    # Call sites by outcome and reason, as the build counted them; an edge merges every call from
    # one symbol to another, so the edge count is only a stand-in for an index that did not.
    sites = graph.meta.get("call_sites") or {}
    resolved = sites.get("resolved", by_kind["calls"]["total"])
    external, unresolved = int(graph.external.sum()), int(graph.unresolved.sum())
    if "unknown" not in sites:  # an index built before the reasons were recorded
        sites = {
            **sites,
            "calls": resolved + external + unresolved + sites.get("ignored", 0),
            "resolved": resolved,
            "external": external,
            "unknown": unresolved,
        }
    per_language = graph.meta.get("call_sites_by_language") or {}
    languages: dict[str, dict[str, Any]] = {}
    files = Counter(f.language for f in index.files())
    calls_from = Counter(graph.src[graph.edge_rows(("calls",))].tolist())
    for row, s in enumerate(symbols):
        lang = languages.setdefault(
            s.language,
            {
                "files": files.get(s.language, 0),
                "symbols": 0,
                "call_edges": 0,
                "external_calls": 0,
                "unresolved_calls": 0,
            },
        )
        lang["symbols"] += 1
        lang["call_edges"] += calls_from.get(row, 0)
        lang["external_calls"] += int(graph.external[row])
        lang["unresolved_calls"] += int(graph.unresolved[row])
    for name, counts in per_language.items():
        if name in languages:
            languages[name]["calls"] = call_sites(counts)
    doc: dict[str, Any] = {}
    if graph.meta.get("precise"):  # precise edges merged (codebot precise): how fresh they are
        doc["precise"] = {k: graph.meta["precise"][k] for k in _PRECISE_KEYS}
    return doc | {
        "symbols": len(symbols),
        "files": sum(files.values()),
        "edges": {"total": len(graph), "by_kind": by_kind},
        "calls": call_sites(sites),
        "graph": {
            "entry_points": len(graph.entry_points),
            "leaves": len(graph.leaves),
            "isolated": len(graph.isolated),
            "communities": len(graph.communities),
            "community_method": graph.meta.get("community_method", "none"),
        },
        "languages": dict(sorted(languages.items())),
        "communities": [
            {
                "id": c.id,
                "size": c.size,
                "central": [symbols[r].id for r in c.central],
                "paths": [{"path": p, "symbols": n} for p, n in c.paths],
            }
            for c in graph.communities[:top_communities]
        ],
    }


_PRECISE_KEYS = ("commit", "tool", "files", "fresh_files", "stale_files", "edges", "confirmed",
                 "new", "dropped", "stale_sites")  # fmt: skip


def precise_line(p: dict[str, Any]) -> str:
    """``precise at <commit>, N files heuristic since``: what the precise edges describe."""
    at = (p.get("commit") or "the work tree")[:12]
    return (
        f"precise at {at}, {p['stale_files']} files heuristic since ({p['fresh_files']} of "
        f"{p['files']} covered files unchanged): {p['edges']} precise call edges "
        f"({p['confirmed']} confirmed, {p['new']} new), {p['dropped']} heuristic edges dropped"
    )


def call_sites(counts: dict[str, int]) -> dict[str, Any]:
    """The ``calls`` object of ``stats``: call sites by outcome, the reasons of those without an
    edge, and the share resolved of those that can have one (not external, not dynamic)."""
    from codebot.graph.resolve import internal_rate

    c = {k: int(counts.get(k, 0)) for k in counts}
    return {
        "total": c.get("calls", 0),
        "resolved": c.get("resolved", 0),
        "by_resolution": {r: c.get(r, 0) for r in ("exact", "override", "overload", "unique_name")},
        "external": c.get("external", 0),
        "unresolved": sum(c.get(r, 0) for r in ("dynamic", "ambiguous", "unknown")),
        "by_reason": {r: c.get(r, 0) for r in ("external", "dynamic", "ambiguous", "unknown")},
        "ignored": c.get("ignored", 0),
        "resolution_rate": internal_rate(c),
    }


def stats_text(doc: dict[str, Any]) -> list[str]:
    e, c, g = doc["edges"], doc["calls"], doc["graph"]
    kinds = ", ".join(
        f"{k} {v['total']} (exact {v['exact']}, unique name {v['unique_name']}"
        + "".join(f", {r} {v[r]}" for r in ("overload", "override", "precise") if v.get(r))
        + ")"
        for k, v in e["by_kind"].items()
        if v["total"]
    )
    out = [
        f"symbols      {doc['symbols']} in {doc['files']} files",
        f"edges        {e['total']}" + (f": {kinds}" if kinds else ""),
        f"calls        {c['total']}: {c['resolved']} resolved ({_by(c['by_resolution'])}), "
        f"{c['external']} external, {c['unresolved']} unresolved ({_by(c['by_reason'], 1)})",
        f"             {c['resolution_rate']:.1%} of the calls that can have an edge resolved "
        "(resolved / (calls - external - dynamic))",
        f"graph        {g['entry_points']} entry points, {g['leaves']} leaves, {g['isolated']} "
        f"isolated functions (often unresolved calls), {g['communities']} communities "
        f"({g['community_method']})",
        "",
        f"{'language':<12} {'files':>7} {'symbols':>8} {'calls':>8} {'resolved':>9} "
        f"{'external':>9} {'dynamic':>8} {'ambiguous':>9} {'unknown':>8} {'rate':>6}",
    ]
    if doc.get("precise"):
        out.insert(5, precise_line(doc["precise"]))
    quiet: Counter[str] = Counter()
    for lang, v in doc["languages"].items():
        if not v["call_edges"] + v["external_calls"] + v["unresolved_calls"]:
            # Text, markup and data files make no calls: one summary line is enough.
            quiet.update(files=v["files"], symbols=v["symbols"], languages=1)
            continue
        s = v.get("calls")
        if s is None:  # an older index: edges, external and unresolved per caller only
            out.append(
                f"{lang:<12} {v['files']:>7} {v['symbols']:>8} {'-':>8} {'-':>9} "
                f"{v['external_calls']:>9} {'-':>8} {'-':>9} {v['unresolved_calls']:>8}"
            )
            continue
        r = s["by_reason"]
        out.append(
            f"{lang:<12} {v['files']:>7} {v['symbols']:>8} {s['total']:>8} {s['resolved']:>9} "
            f"{r['external']:>9} {r['dynamic']:>8} {r['ambiguous']:>9} {r['unknown']:>8} "
            f"{s['resolution_rate']:>6.1%}"
        )
    if quiet["languages"]:
        out.append(
            f"{'(others)':<12} {quiet['files']:>7} {quiet['symbols']:>8}  "
            f"in {quiet['languages']} languages without calls"
        )
    if doc["communities"]:
        out += ["", "largest communities"]
        for m in doc["communities"]:
            paths = ", ".join(f"{p['path']} ({p['symbols']})" for p in m["paths"])
            central = ", ".join(".".join(i.split(".")[-2:]) for i in m["central"])
            out.append(
                f"  #{m['id']:<4} {m['size']:>5} symbols  central: {central}  files: {paths}"
            )
    return out

"""``codebot`` commands over the call graph: callers, callees, chain, entrypoints, graph
export, stats and impact. Registered on the group in ``cli``; each command finds its workspace
once, makes one library call and prints its report.
"""

from __future__ import annotations

import click

from codebot.core.model import EDGE_KINDS
from codebot.serve.options import (
    depth_option,
    emit,
    index_dir_option,
    path_argument,
    print_json,
    reads_index,
    searcher_at,
    workspace,
)

__all__ = ["COMMANDS"]


# --- the call graph -------------------------------------------------------------------------------


@click.command()
@click.argument("symbol_id", metavar="ID")
@depth_option(1, 10)
@reads_index
def callers(symbol_id: str, depth: int, path: str, index_dir: str | None, as_json: bool) -> None:
    """Who calls ID (as found by `codebot find`), and with --depth who calls them.

    One line per caller: its distance, id, location and the line of the call. Only resolved calls
    count; an edge found by a repository-unique name is marked (unique name), a method
    overriding the one the call names (a possible runtime target) (an override). --json follows
    schemas/graph-neighbors.schema.json.
    """
    from codebot.query.lookup import neighbors

    emit(neighbors(searcher_at(path, index_dir=index_dir), symbol_id, depth, "callers"), as_json)


@click.command()
@click.argument("symbol_id", metavar="ID")
@depth_option(1, 10)
@reads_index
def callees(symbol_id: str, depth: int, path: str, index_dir: str | None, as_json: bool) -> None:
    """What ID calls in this repository, and with --depth what those call.

    Calls into libraries and builtins are not listed (see `codebot stats`). --json follows
    schemas/graph-neighbors.schema.json.
    """
    from codebot.query.lookup import neighbors

    emit(neighbors(searcher_at(path, index_dir=index_dir), symbol_id, depth, "callees"), as_json)


@click.command()
@click.argument("symbol_id", metavar="ID")
@depth_option(4, 20)
@reads_index
def chain(symbol_id: str, depth: int, path: str, index_dir: str | None, as_json: bool) -> None:
    """The execution tree below ID: what it calls, in call order, and what those call.

    A call back into a function on the current path is marked (cycle); a function already
    expanded higher up is marked (see above) instead of repeated; an override of the method a
    call names (a possible runtime target) is followed and marked (an override). --json follows
    schemas/chain.schema.json.
    """
    from codebot.query.lookup import call_chain

    emit(call_chain(searcher_at(path, index_dir=index_dir), symbol_id, depth), as_json)


@click.command()
@click.option("--all", "all_roles", is_flag=True, help="Include tests, examples and docs.")
@click.option("-n", "--limit", type=click.IntRange(1), help="Print at most this many.")
@reads_index
def entrypoints(
    all_roles: bool, limit: int | None, path: str, index_dir: str | None, as_json: bool
) -> None:
    """Functions called by nobody in the repository that call others: mains, commands, handlers.

    Source code only unless --all (every test would be one). --json follows
    schemas/entrypoints.schema.json.
    """
    from codebot.query.lookup import entry_points

    emit(entry_points(searcher_at(path, index_dir=index_dir).index, all_roles, limit), as_json)


@click.group()
def graph() -> None:
    """The call graph as a whole."""


@graph.command("export")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["json", "dot", "mermaid"]),
    default="json",
    show_default=True,
)
@click.option("--around", metavar="ID", help="Only the symbols within --depth calls of ID.")
@depth_option(2, 10)
@click.option(
    "--kind",
    "kinds",
    type=click.Choice(list(EDGE_KINDS)),
    multiple=True,
    help="Edge kinds to export (repeatable; default: calls).",
)
@path_argument
@index_dir_option
def graph_export(
    fmt: str, around: str | None, depth: int, kinds: tuple[str, ...], path: str,
    index_dir: str | None,
) -> None:  # fmt: skip
    """Print the graph (or the part --around a symbol) as JSON, Graphviz DOT or Mermaid.

    JSON follows schemas/graph-export.schema.json. Edges that are not exact (a unique name, an
    overload, an override) are dashed in DOT and Mermaid.
    """
    from codebot.query.graph_output import export_dot, export_mermaid
    from codebot.query.lookup import export_graph

    doc = export_graph(searcher_at(path, index_dir=index_dir), kinds, around, depth)
    if fmt == "json":
        print_json(doc)
    else:
        click.echo((export_dot if fmt == "dot" else export_mermaid)(doc), nl=False)


@click.command()
@reads_index
def stats(path: str, index_dir: str | None, as_json: bool) -> None:
    """Symbols, edges by kind and resolution, resolved / unresolved / external calls, per
    language, and the largest communities. --json follows schemas/stats.schema.json."""
    from codebot.query.graph_output import stats_doc, stats_text

    doc = stats_doc(searcher_at(path, index_dir=index_dir).index)
    if as_json:
        print_json(doc)
    else:
        click.echo("\n".join(stats_text(doc)))


@click.command("impact")
@click.argument("rev_range", metavar="BASE..HEAD")
@depth_option(3, 10, "Caller depth of the caller trees.")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "markdown", "compact"]),
    default="text",
    help="text: a line per definition; markdown: the pull request comment (capped at "
    "65,536 characters); compact: the short form for agents (ids, counts, path:line).",
)
@click.option("--markdown", is_flag=True, help="Same as --format markdown.")
@click.option("--link", metavar="URL", help="Prefix for path#Lline links (a blob URL at HEAD).")
@reads_index
def impact_(
    rev_range: str, depth: int, fmt: str, markdown: bool, link: str | None, path: str,
    index_dir: str | None, as_json: bool,
) -> None:  # fmt: skip
    """What a range of commits touches beyond its diff: the definitions it adds, modifies,
    deletes and renames (signature changes and lines each; other files summed per file); for
    each, its callers (a tree to --depth), the entry points and tests that reach it over the
    whole graph ("No test reaches this" only when nothing unresolved could lead a test in),
    the callers and imports still naming removed code; sorted by risk. BASE alone means
    BASE..HEAD. Needs an index (of any commit: both ends are derived from it). --json follows
    schemas/impact.schema.json (with --format compact: schemas/impact-compact.schema.json).
    """
    from codebot.query.impact import (
        impact,
        impact_compact,
        impact_compact_text,
        impact_markdown,
        impact_text,
        parse_range,
    )

    ws, config = workspace(path, index_dir=index_dir)
    doc = impact(ws, config, *parse_range(rev_range), depth)
    fmt = "markdown" if markdown else fmt
    if as_json:
        print_json(impact_compact(doc) if fmt == "compact" else doc)
    elif fmt == "markdown":
        click.echo(impact_markdown(doc, link), nl=False)
    elif fmt == "compact":
        click.echo(impact_compact_text(doc), nl=False)
    else:
        click.echo(impact_text(doc), nl=False)


COMMANDS = [callers, callees, chain, entrypoints, graph, stats, impact_]

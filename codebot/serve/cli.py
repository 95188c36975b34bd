"""The ``codebot`` command: a thin layer over the library.

Each command parses its options, finds the workspace once (``options.workspace``: the repository
opened, the settings of its root loaded), makes one library call and prints the report it gets
back, as text or with --json as JSON; the MCP server prints the same reports. Only click and
``codebot.core`` are imported here at start-up; everything heavy is imported inside the command
that needs it, so ``codebot --help`` and the git hooks stay fast.
"""

from __future__ import annotations

import json
from typing import Any

import click

from codebot.serve.options import (
    CodebotGroup,
    emit,
    index_dir_option,
    interactive,
    json_option,
    limit_option,
    mode_option,
    path_argument,
    print_json,
    progress,
    reads_index,
    searcher_at,
    wait_option,
    workspace,
)

__all__ = ["LAZY", "main"]


def _stderr(text: str | None) -> None:
    if text:
        click.echo(text, err=True, nl=False)


# The commands defined in other modules, loaded when run (CodebotGroup): name -> module.
LAZY = {
    **dict.fromkeys(
        ("callers", "callees", "chain", "entrypoints", "graph", "stats", "impact"),
        "codebot.serve.cli_graph",
    ),
    **dict.fromkeys(
        ("pack", "publish", "pull", "init", "mcp", "action", "hooks", "hook"),
        "codebot.serve.cli_share",
    ),
    "precise": "codebot.serve.cli_precise",
}


@click.group(cls=CodebotGroup, lazy=LAZY, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="codebot")
@click.option("-q", "--quiet", is_flag=True, help="No progress bars on stderr.")
@click.pass_context
def main(ctx: click.Context, quiet: bool) -> None:
    """codebot: the functions a question about a codebase needs, ranked and as call chains."""
    ctx.meta["codebot.quiet"] = quiet


@main.command()
@click.argument("path", default=".", type=click.Path(exists=True))
@json_option
@click.option("--max-file-bytes", type=int, help="Skip files larger than this (default 1 MB).")
def parse(path: str, as_json: bool, max_file_bytes: int | None) -> None:
    """Print the symbols codebot extracts from a file or directory.

    A debugging and scripting aid: one line per symbol (path:lines, kind, id), then a summary of
    skipped files and parse problems on stderr. With --json, one document that follows
    schemas/parse.schema.json.
    """
    from codebot.parse.extract import parse_path

    ws, config = workspace(path, max_file_bytes=max_file_bytes)
    report = parse_path(ws, config, progress=progress("parsing"))
    emit(report, as_json)
    _stderr(report.summary())


@main.command()
@path_argument
@index_dir_option
@click.option(
    "--embedder",
    help="builtin (the shipped model, offline; default), none (keywords only, fastest), "
    "model2vec:<dir or owner/name>, sentence-transformers:<dir or owner/name>, "
    "openai-compatible:<base_url>#<model> or voyage:<model>. Another model re-embeds "
    "(from the vector cache where it can).",
)
@click.option(
    "--foreground/--background",
    default=None,
    help="Embed before returning, or commit keywords + call graph first and embed in the "
    "background (default: background on a terminal; foreground in CI, where CI is set, or "
    "without a terminal).",
)
@click.option(
    "-j",
    "--jobs",
    type=click.IntRange(0, 1024),
    help="Processes that parse files (default: the jobs setting; 0: one per CPU, as free memory "
    "allows, and one on two CPUs or fewer). The index is the same whatever it is.",
)
@wait_option
@json_option
def index(
    path: str, index_dir: str | None, embedder: str | None, foreground: bool | None,
    jobs: int | None, wait: float, as_json: bool,
) -> None:  # fmt: skip
    """Build the index of a repository, a subdirectory of one, or a plain directory.

    In git, indexes the files of the commit HEAD points to (read from git: uncommitted edits are
    the work tree overlay's, which every query applies). Indexes keywords (BM25) and, unless
    --embedder none, embeds every symbol with the built-in model. Vectors are cached by content:
    an interrupted build resumes where it stopped, and a rebuild embeds only what changed.
    With --background (the default on a terminal) the index answers with keywords and the call
    graph at once, and the vectors follow from a background process (`codebot status`).
    """
    from codebot.index.background import in_background
    from codebot.index.build import build_index
    from codebot.index.overlay import stamp_if_clean
    from codebot.index.status import worktree_note

    ws, config = workspace(path, index_dir=index_dir, embedder=embedder, jobs=jobs)
    later = not foreground if foreground is not None else interactive()
    report = build_index(ws, config, progress("parsing"), wait=wait, vectors_later=later)
    stamp_if_clean(ws)
    emit(report, as_json)
    _stderr((note := in_background(ws, report.manifest)) and note + "\n")
    if not as_json and (note := worktree_note(ws, report.manifest)):
        click.echo(note, err=True)
    _stderr(report.parse.summary(quiet_when_clean=True))


@main.command()
@path_argument
@click.option("--to", "rev", metavar="REV", help="A commit to bring the index to (default HEAD).")
@click.option(
    "--worktree",
    is_flag=True,
    help="Refresh the overlay of uncommitted edits now (every query does it when needed).",
)
@click.option(
    "--no-settle",
    is_flag=True,
    help="Skip the settle (keyword index rewritten, communities detected again) even when due.",
)
@click.option(
    "--settle",
    "settle_now",
    is_flag=True,
    help="Settle now, due or not: the index is then exactly a fresh build's.",
)
@click.option(
    "--foreground/--background",
    default=None,
    help="Embed the changed symbols before returning, or commit keywords + call graph first "
    "and embed them in the background (default: background; foreground in CI, where CI is "
    "set). Meanwhile searches find them by keywords.",
)
@index_dir_option
@wait_option
@json_option
def update(
    path: str,
    rev: str | None,
    worktree: bool,
    no_settle: bool,
    settle_now: bool,
    foreground: bool | None,
    index_dir: str | None,
    wait: float,
    as_json: bool,
) -> None:
    """Bring the index up to date with HEAD (or --to REV), touching only what changed.

    git tells which files differ from the indexed commit (renames included); only those are
    parsed, only symbols whose content changed are re-indexed and re-embedded (a revert or a
    branch switch back embeds nothing), and the call graph is re-resolved from the stored calls.
    Edges, symbols and PageRank are a fresh build's; the keyword index's statistics and the
    communities are brought back to a build's once changes reach a tenth of the symbols (or
    with --settle). With no index yet, or after a settings
    change, it builds from scratch and says why. The changed symbols' vectors follow from a
    background process (`codebot status`), unless --foreground. The git hooks run this in the
    background.
    """
    import os
    from pathlib import Path

    from codebot.git.refs import read_head
    from codebot.index.fresh import config_inputs, write_stamp
    from codebot.index.update import update_index

    # What the settings come from, read before they are loaded: the stamp a no-op update is
    # answered by (codebot.__main__) names what this update checked (index.fresh).
    head = read_head(Path(path).resolve()) if rev is None and index_dir is None else None
    inputs = config_inputs(head.workdir) if head is not None else None
    ws, config = workspace(path, index_dir=index_dir)
    later = not foreground if foreground is not None else not os.environ.get("CI")
    report = update_index(
        ws, config, rev, wait, progress("parsing"), settle=not no_settle, settle_now=settle_now,
        vectors_later=later,
    )  # fmt: skip
    m = report.manifest
    if head is not None and inputs is not None and m.commit == head.commit and not m.overlay:
        write_stamp(ws.index_dir, m, inputs)
    if m.vectors_pending or m.vectors_behind:  # left to, or killed in, the background embedder
        from codebot.index.background import start_background

        if later:
            start_background(ws)
        else:  # the vectors in before returning (another embedder at work: wait for it)
            report.manifest = _vectors_now(ws, config)
    state = None
    if worktree:
        from codebot.index.status import worktree_state  # imported only when asked for

        state = worktree_state(ws, config)
    if as_json:
        print_json({**report.to_dict(), **({"worktree": state} if state else {})})
        return
    click.echo(report.to_text(), nl=False)
    if state is not None:
        files = state["files"]
        n = len(files)
        click.echo(
            f"work tree: {n} uncommitted file(s) in the overlay" if n else "work tree: clean"
        )


def _vectors_now(ws, config):
    """The manifest once every vector it waits for is committed (by us, or by the background
    embedder that holds the lock)."""
    import time

    from codebot.index.background import finish_vectors, vectors_owed
    from codebot.index.store import read_manifest

    while True:
        done = finish_vectors(ws, config, progress("embedding"))
        manifest = read_manifest(ws.index_dir)
        if not done.busy or not vectors_owed(manifest):
            return manifest
        time.sleep(0.2)


@main.command()
@path_argument
@index_dir_option
@click.option("--detached", is_flag=True, hidden=True, help="Run as the background embedder.")
@json_option
def embed(path: str, index_dir: str | None, detached: bool, as_json: bool) -> None:
    """Compute the vectors the index is waiting for, now (what `codebot index` leaves to a
    background process on a terminal); resumes from the vectors already cached. With another
    embedder at work, says so and leaves the job to it."""
    from codebot.index.background import finish_vectors, run_detached

    ws, config = workspace(path, index_dir=index_dir)
    if detached:
        return run_detached(ws, config)
    emit(finish_vectors(ws, config, progress("embedding")), as_json)


# --- queries --------------------------------------------------------------------------------------


@main.command()
@click.argument("query", required=False)
@limit_option()
@mode_option
@click.option("--code", "with_code", is_flag=True, help="Include each result's code.")
@click.option(
    "--batch",
    type=click.File("r"),
    help="Read queries from FILE (- for stdin): one per line, or JSONL with a 'query' key. "
    "Writes one JSON line per query.",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["tree", "list", "json", "markdown"]),
    help="list: the ranking, graph stage included (default); tree: the call trees that connect "
    "the hits; json: schemas/answer.schema.json; markdown: for a PR or a prompt.",
)
@click.option("--no-graph", is_flag=True, help="Skip the graph stage: the flat ranking only.")
@click.option(
    "--repo",
    "repos",
    multiple=True,
    type=click.Path(exists=True, file_okay=False),
    help="Search this repository's index (repeatable): one ranked list over all of them, each "
    "result labelled with its repository. Replaces PATH.",
)
@reads_index
def search(
    query: str | None, k: int, mode: str, with_code: bool, batch: Any, fmt: str | None,
    no_graph: bool, repos: tuple[str, ...], path: str, index_dir: str | None, as_json: bool,
) -> None:  # fmt: skip
    """Find the functions that answer QUERY: a question or a name.

    Results are ranked by keywords and meaning together, then the graph stage connects them into
    call trees (each node marked hit, neighbour or bridge). --json keeps the flat ranking of
    schemas/search-result.schema.json; --format json follows schemas/answer.schema.json.
    With --batch, a single argument is the PATH.

    With --repo PATH more than once, every index is searched with its own commit and embedder
    and the rankings are merged into one (see codebot.query.multi); --json and --format json
    then print schemas/search-result.schema.json with each result's repo. A repository whose
    index is missing or damaged is skipped with one line on stderr; the others answer.
    """
    if batch is not None and query is not None and path == "." and not repos:
        path, query = click.Path(exists=True, file_okay=False).convert(query, None, None), None
    if (query is None) == (batch is None):
        raise click.UsageError("give a QUERY or --batch FILE (not both)")
    if repos:
        if path != "." or index_dir is not None:
            raise click.UsageError(
                "with --repo, name every repository with --repo (each uses its own index "
                "directory); PATH and --index-dir are for one repository"
            )
        return _search_repos(list(repos), query, batch, k, mode, with_code, fmt, no_graph, as_json)
    searcher = searcher_at(path, index_dir=index_dir)
    _stderr((note := searcher.mode_note(mode)) and note + "\n")
    if batch is not None:
        for line in filter(None, (line.strip() for line in batch)):
            q = json.loads(line)["query"] if line.startswith("{") else line
            hits = searcher.search(q, k=k, mode=mode, with_code=with_code)
            doc = {"query": q, "results": [h.to_dict() for h in hits]}
            click.echo(json.dumps(doc, ensure_ascii=False))
    elif as_json:  # the flat ranking, as scripts have read it since the first release
        hits = searcher.search(query, k=k, mode=mode, with_code=with_code)
        print_json({"query": query, "results": [h.to_dict() for h in hits]})
    else:
        from codebot.query.render import render

        # The ranked list is the default view: the trees are unmeasured yet (no benchmark scores
        # them), so they are one --format away rather than in the way.
        answer = searcher.answer(query, k=k, mode=mode, graph=not no_graph)
        if with_code:
            from dataclasses import replace

            code = searcher.index.code  # replace(): keeps any field the graph stage added (why)
            answer.hits = [replace(h, code=code(h.symbol)) for h in answer.hits]
        click.echo(render(answer, fmt or "list", not no_graph, with_code), nl=False)


def _search_repos(
    repos: list[str], query: str | None, batch: Any, k: int, mode: str, with_code: bool,
    fmt: str | None, no_graph: bool, as_json: bool,
) -> None:  # fmt: skip
    """``codebot search --repo A --repo B ...``: one merged ranking over several indexes."""
    from codebot.query.multi import searcher_over

    multi = searcher_over(repos)
    for note in multi.mode_notes(mode):
        click.echo(note, err=True)
    if batch is not None:
        for line in filter(None, (line.strip() for line in batch)):
            q = json.loads(line)["query"] if line.startswith("{") else line
            answer = multi.answer(q, k=k, mode=mode, with_code=with_code)
            for skipped in answer.skipped_lines():
                click.echo(skipped, err=True)
            click.echo(json.dumps(answer.to_dict(), ensure_ascii=False))
        return
    graph = not no_graph and not as_json  # --json: the flat ranking, as for one repository
    answer = multi.answer(query, k=k, mode=mode, graph=graph, with_code=with_code)
    for skipped in answer.skipped_lines():
        click.echo(skipped, err=True)
    text = answer.render("json" if as_json else (fmt or "list"), with_code)
    click.echo(text, nl=False)


@main.command()
@click.argument("name")
@reads_index
def find(name: str, path: str, index_dir: str | None, as_json: bool) -> None:
    """Look a symbol up by exact name: a qualified id (pkg.mod.Class.method), a dotted tail
    (Class.method) or a short name (method, listing every match).

    A miss is an error that suggests the closest names; it never returns something else.
    """
    from codebot.query.lookup import find as find_symbols

    emit(find_symbols(searcher_at(path, index_dir=index_dir), name), as_json)


@main.command()
@click.argument("symbol_id", metavar="ID")
@reads_index
def show(symbol_id: str, path: str, index_dir: str | None, as_json: bool) -> None:
    """Print the code of a symbol (as found by `codebot find`), with its path and lines."""
    from codebot.query.lookup import code_of

    emit(code_of(searcher_at(path, index_dir=index_dir), symbol_id), as_json)


@main.command()
@reads_index
def status(path: str, index_dir: str | None, as_json: bool) -> None:
    """Where the index is, what it describes, how big it is, which files it skipped and which
    files of the work tree differ from it."""
    from codebot.index.status import index_status

    emit(index_status(workspace(path, index_dir=index_dir)[0]), as_json)


@main.command("eval")
@click.argument("file", type=click.Path(exists=True, dir_okay=False))
@limit_option(10)
@mode_option
@reads_index
def eval_(file: str, k: int, mode: str, path: str, index_dir: str | None, as_json: bool) -> None:
    """Measure search on a query set: Recall@5, Recall@10, MRR@10, NDCG@10, and the misses.

    FILE is JSONL, one {"query": ..., "expected": [...]} per line, where a target is a path, a
    {"path", "start_line", "end_line"} object or a symbol id; or a semble annotation file (a JSON
    list of {"query", "relevant", "secondary", "category"}). See schemas/eval-queries.schema.json.
    """
    from codebot.query.evaluate import evaluate, load_queries

    searcher = searcher_at(path, index_dir=index_dir)
    report = evaluate(load_queries(file), lambda q: searcher.search(q, k=k, mode=mode))
    if as_json:
        print_json(report.to_dict())
    else:
        click.echo(report.format_text())


# --- context and map: what an agent reads -------------------------------------------------------


def _tokens_note(counter: str) -> None:
    """Which tokenizer counted the budget: budgets are only exact by the counter's measure."""
    click.echo(f"codebot: tokens counted with {counter}", err=True)


@main.command()
@click.argument("query")
@click.option("--tokens", "budget", type=click.IntRange(1), default=4000, show_default=True)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["markdown", "text", "json"]),
    default="markdown",
    show_default=True,
)
@limit_option()
@mode_option
@click.option("--no-graph", is_flag=True, help="Pack the flat ranking only.")
@click.option(
    "--include",
    type=click.Choice(["tests", "docs", "examples"]),
    multiple=True,
    help="Pack these with the code, in rank order (default: after all the code, if room is left).",
)
@path_argument
@index_dir_option
def context(
    query: str, budget: int, fmt: str, k: int, mode: str, no_graph: bool, include: tuple[str, ...],
    path: str, index_dir: str | None,
) -> None:  # fmt: skip
    """The code that answers QUERY, packed into --tokens N tokens for a prompt.

    Full bodies for the hits and then the best call tree's nodes, signatures and docstrings for
    what does not fit, paths and line ranges always. A body longer than a quarter of N shows its
    signature and the lines that share the question's words ("excerpt"), and whole only if
    budget remains once every item has its place. Tests, documentation and examples come after
    all the code, with the budget left, unless QUERY asks for them or --include names them.
    Never more than N tokens (tiktoken's cl100k_base if installed, else the built-in model's
    tokenizer, else characters / 4; the one used is named on stderr, and in the JSON).
    """
    from codebot.query.context import pack_context
    from codebot.query.tokens import token_counter

    searcher = searcher_at(path, index_dir=index_dir)
    answer = searcher.answer(query, k=k, mode=mode, graph=not no_graph)
    counter = token_counter()
    style = "text" if fmt == "text" else fmt
    packed = pack_context(searcher.index, answer, budget, counter, style, include)
    if fmt == "json":
        print_json(packed.to_dict())
        return
    _tokens_note(f"{counter.name}: {packed.tokens}/{budget}")
    click.echo(packed.text, nl=False)


@main.command()
@click.argument("question")
@click.option("--tokens", "budget", type=click.IntRange(200), help="Context budget (ask_tokens).")
@limit_option(1, 100)
@click.option("--chat-url", help="An OpenAI-compatible base URL, e.g. http://localhost:11434/v1.")
@click.option("--chat-model", help="The chat model to ask (chat_model).")
@click.option("--dry-run", is_flag=True, help="Print the messages it would send; send nothing.")
@reads_index
def ask(
    question: str, budget: int | None, k: int, chat_url: str | None, chat_model: str | None,
    dry_run: bool, path: str, index_dir: str | None, as_json: bool,
) -> None:  # fmt: skip
    """Answer QUESTION with an LLM, from the code that answers it, citing path:line.

    The context is what `codebot context` packs (the hits and their call tree, to --tokens),
    sent with the question to an OpenAI-compatible chat endpoint (chat_url, chat_model); the
    answer streams to stdout, then the sources it cited, checked against the context. Without an
    endpoint it prints the context it would have sent, says how to configure one, and exits 1.
    """
    from codebot.query.ask import ask as ask_llm
    from codebot.query.ask import sources_text
    from codebot.query.tokens import token_counter

    searcher = searcher_at(path, index_dir=index_dir, chat_url=chat_url, chat_model=chat_model)
    write = (lambda _: None) if as_json else (lambda text: click.echo(text, nl=False))
    result = ask_llm(
        searcher, question, searcher.config, write, token_counter(), budget, k, dry_run
    )
    if as_json:
        print_json(result.to_dict())
    elif not dry_run:
        click.echo(sources_text(result), nl=False)


@main.command("map")
@click.option("--tokens", "budget", type=click.IntRange(1), default=1024, show_default=True)
@click.option("--focus", help="A file or directory (its symbols), or a query (its hits).")
@reads_index
def map_(budget: int, focus: str | None, path: str, index_dir: str | None, as_json: bool) -> None:
    """A map of the repository: its most important symbols' signatures, grouped by file.

    Ranked by PageRank on the call graph, personalised to --focus; as many symbols as fit in
    --tokens N (the tokenizer used is named on stderr, and in the JSON).
    """
    from codebot.query.repomap import repo_map
    from codebot.query.tokens import token_counter

    searcher = searcher_at(path, index_dir=index_dir)
    counter = token_counter()
    result = repo_map(searcher.index, budget, counter, focus, searcher)
    if as_json:
        print_json(result.to_dict(searcher.index))
        return
    _tokens_note(f"{counter.name}: {result.tokens}/{budget}, {result.symbols} symbols")
    click.echo(result.text, nl=False)


if __name__ == "__main__":  # pragma: no cover
    main()

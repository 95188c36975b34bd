"""``codebot precise``: compiler-grade call edges from SCIP indexers, merged into the index.
Registered on the group in ``cli``."""

from __future__ import annotations

import tempfile
from pathlib import Path

import click

from codebot.serve.options import emit, quiet, reads_index, wait_option, workspace

__all__ = ["COMMANDS"]


@click.command("precise")
@click.option(
    "--indexer",
    type=click.Choice(["auto", "python", "typescript"]),
    default="auto",
    show_default=True,
    help="Which SCIP indexer to run; auto: those of the languages the index holds.",
)
@click.option(
    "--scip",
    "scip_files",
    multiple=True,
    type=click.Path(exists=True, dir_okay=False),
    help="A SCIP index a build produced (repeatable); then no indexer runs.",
)
@click.option(
    "--npm-exec",
    is_flag=True,
    help="Let npm fetch an indexer that is not installed (npm exec --yes).",
)
@click.option(
    "--keep",
    type=click.Path(file_okay=False),
    help="Keep the SCIP indexes the indexers wrote in this directory.",
)
@click.option(
    "--timeout", type=click.FloatRange(1), default=3600.0, show_default=True,
    help="Seconds an indexer may run.",
)  # fmt: skip
@wait_option
@reads_index
def precise(
    indexer: str, scip_files: tuple[str, ...], npm_exec: bool, keep: str | None, timeout: float,
    wait: float, path: str, index_dir: str | None, as_json: bool,
) -> None:  # fmt: skip
    """Precise call edges from SCIP indexers (scip-python, scip-typescript; Node.js), merged
    into the index of PATH: a precise edge replaces the heuristic one of the same call site, a
    heuristic edge the indexer contradicts is dropped, files it did not cover keep theirs.
    Updates keep the precise edges of unchanged files only. Needs an index (codebot index)
    of the checked-out commit. --json follows schemas/precise.schema.json."""
    import os

    from codebot.graph.scip import read_scip
    from codebot.index.precise import apply_precise

    ws, _config = workspace(path, index_dir=index_dir)
    paths = [Path(p) for p in scip_files]
    with tempfile.TemporaryDirectory(prefix="codebot-scip-") as tmp:
        if not paths:
            from codebot.index.store import read_index
            from codebot.serve.indexers import npm_exec_allowed, run_indexers

            languages = {f.language for f in read_index(ws).files()}
            paths = run_indexers(
                ws.root, languages, indexer, Path(keep) if keep else Path(tmp),
                lambda line: click.echo(line, err=True),
                npm_exec or npm_exec_allowed(dict(os.environ)), timeout, _say,
            )  # fmt: skip
        _say(f"reading {len(paths)} SCIP index(es)")
        scips = [read_scip(p) for p in paths]
        report = apply_precise(ws, scips, wait=wait)
    emit(report, as_json)


def _say(line: str) -> None:
    if not quiet():
        click.echo(line, err=True)


COMMANDS = [precise]

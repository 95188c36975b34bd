"""The ``codebot`` command: a thin layer over the library.

Each command resolves the configuration, makes one library call and renders the answer. Only click
and ``codebot.config`` are imported here at start-up; everything heavy is imported inside the
command that needs it, so ``codebot --help`` and the git hooks stay fast.
"""

from __future__ import annotations

import json
import os
import sys
import traceback
from collections.abc import Callable
from typing import Any

import click

from .config import Config, load_config
from .errors import CodebotError
from .gitio import repository_root

__all__ = ["main"]


def json_option(f: Callable) -> Callable:
    """``--json``: the same answer as one JSON document on stdout, for scripts."""
    return click.option(
        "--json", "as_json", is_flag=True, help="Print JSON (see schemas/) instead of text."
    )(f)


def _config(path: str | None, **flags: Any) -> Config:
    return load_config(repository_root(path or "."), flags)


def _progress(label: str) -> Callable[[int, int, str], None] | None:
    """A progress line on stderr, only when stderr is a terminal."""
    if not sys.stderr.isatty():
        return None

    def report(done: int, total: int, item: str) -> None:
        if done == total or done % 50 == 0:
            end = "\n" if done == total else ""
            click.echo(f"\r{label} {done}/{total}", err=True, nl=False)
            click.echo(end, err=True, nl=False)

    return report


def _print_json(data: Any) -> None:
    click.echo(json.dumps(data, indent=2, ensure_ascii=False))


class _Group(click.Group):
    """Turns codebot's errors into a message and exit 1; a bug into exit 3 with a log."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except CodebotError as exc:
            click.echo(f"codebot: error: {exc}", err=True)
            ctx.exit(1)
        except (click.exceptions.Exit, click.ClickException, click.Abort, KeyboardInterrupt):
            raise
        except BrokenPipeError:  # `codebot parse . | head`: the reader has all it wanted
            sys.stderr = open(os.devnull, "w")  # noqa: SIM115 - silence the flush at exit
            ctx.exit(0)
        except Exception:
            log = os.path.join(
                os.environ.get("TMPDIR", "/tmp"), f"codebot-crash-{os.getpid()}.log"
            )
            with open(log, "w") as f:
                traceback.print_exc(file=f)
            click.echo(f"codebot: internal error (a bug); details in {log}", err=True)
            ctx.exit(3)


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="codebot")
def main() -> None:
    """codebot: the functions a question about a codebase needs, ranked and as call chains."""


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
    from .parse import parse_path

    config = _config(path, max_file_bytes=max_file_bytes)
    report = parse_path(path, config, progress=_progress("parsing"))
    if as_json:
        _print_json(report.to_dict())
    else:
        for f in report.files:
            for s in f.symbols:
                click.echo(f"{s.path}:{s.start_line}-{s.end_line}  {s.kind:<9} {s.id}")
    _summary(report)


def _summary(report: Any) -> None:
    """Counts, then every skipped file and every problem, with its reason, on stderr."""
    counts = report.counts()
    click.echo(
        f"{counts['files']} files, {counts['symbols']} symbols ({counts['chunks']} chunks), "
        f"{counts['skipped']} skipped, {counts['issues']} problems",
        err=True,
    )
    for s in report.skipped:
        click.echo(f"  skipped {s.path}: {s.reason}", err=True)
    for issue in report.issues:
        click.echo(f"  problem {issue.path}: {issue.reason}", err=True)


if __name__ == "__main__":  # pragma: no cover
    main()

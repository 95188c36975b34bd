"""What every ``codebot`` command shares: its options, declared once as decorator bundles, the
workspace and settings it resolves at the edge, how it prints a report, progress on stderr, and
the one error handler at the top (codebot's errors exit 1, Ctrl-C 130, a bug 3 with a log).

Only click and ``codebot.core`` load here: ``codebot --help`` and the git hooks stay fast.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import click

from codebot.core.config import Config, load_config
from codebot.core.errors import CodebotError

if TYPE_CHECKING:
    from codebot.git.workspace import Workspace
    from codebot.query.search import Searcher

__all__ = [
    "CodebotGroup",
    "bytes_progress",
    "depth_option",
    "emit",
    "index_dir_option",
    "interactive",
    "json_option",
    "limit_option",
    "mode_option",
    "path_argument",
    "print_json",
    "progress",
    "quiet",
    "reads_index",
    "searcher_at",
    "store_path",
    "wait_option",
    "workspace",
]

Decorator = Callable[[Callable], Callable]


def _bundle(*decorators: Decorator) -> Decorator:
    def apply(f: Callable) -> Callable:
        for d in reversed(decorators):
            f = d(f)
        return f

    return apply


json_option = click.option(
    "--json", "as_json", is_flag=True, help="Print JSON (see schemas/) instead of text."
)
index_dir_option = click.option(
    "--index-dir",
    type=click.Path(file_okay=False),
    help="Where the index lives (default: .git/codebot, or .codebot outside git).",
)
wait_option = click.option(
    "--wait", type=float, default=0.0, help="Seconds to wait if another build holds the lock."
)
mode_option = click.option(
    "--mode", type=click.Choice(["hybrid", "bm25", "vector"]), default="hybrid", show_default=True
)


def path_argument(f: Callable) -> Callable:
    """``[PATH]``: the repository, a directory in it, or a plain directory (default: here)."""
    return click.argument("path", default=".", type=click.Path(exists=True, file_okay=False))(f)


def limit_option(lowest: int = 1, highest: int = 1000) -> Decorator:
    return click.option(
        "-k", "--limit", "k", type=click.IntRange(lowest, highest), default=10, show_default=True
    )


def depth_option(default: int, most: int, help: str = "How many calls away to go.") -> Decorator:
    return click.option(
        "--depth", type=click.IntRange(1, most), default=default, show_default=True, help=help
    )


# A command that reads an index: [PATH] (after its own arguments), --index-dir and --json.
reads_index = _bundle(path_argument, index_dir_option, json_option)


def workspace(path: str, **flags: Any) -> tuple[Workspace, Config]:
    """The workspace of ``path`` (the repository opened once) and the settings of its root, with
    the command line's ``flags`` (None: not given) on top."""
    from codebot.git.workspace import Workspace

    ws = Workspace.at(path)
    config = load_config(ws.root, flags)
    return ws.with_index_dir(config.index_dir), config


def searcher_at(path: str, **flags: Any) -> Searcher:
    """A searcher over the index of ``path`` as the work tree sees it."""
    from codebot.index.overlay import open_index
    from codebot.query.search import Searcher

    ws, config = workspace(path, **flags)
    return Searcher(open_index(ws, config), config)


def print_json(data: Any) -> None:
    click.echo(json.dumps(data, indent=2, ensure_ascii=False))


def emit(report: Any, as_json: bool) -> None:
    """A report as its JSON document (``to_dict``) or its text (``to_text``)."""
    if as_json:
        print_json(report.to_dict())
    else:
        click.echo(report.to_text(), nl=False)


def store_path(value: str | None) -> str | None:
    """A store named on the command line: a relative path is taken from the current directory."""
    if value and not (
        value == "github" or value.startswith(("github:", "http", "file://", "s3://"))
    ):
        return os.path.abspath(value)
    return value


def interactive() -> bool:
    """Whether someone is at a terminal to be answered early (not in CI, where ``CI`` is set,
    nor with stderr going elsewhere): then long work may go on in the background."""
    return sys.stderr.isatty() and not os.environ.get("CI")


def quiet() -> bool:
    """Whether ``codebot --quiet`` asked for no progress bars (or stderr is not a terminal)."""
    ctx = click.get_current_context(silent=True)
    return not sys.stderr.isatty() or bool(ctx is not None and ctx.meta.get("codebot.quiet"))


class _Bars:
    """One tqdm bar per phase of a long step (count, rate, ETA), on stderr; tqdm is imported
    only when a bar is shown."""

    def __init__(self, unit: str, scale: bool = False) -> None:
        self.unit, self.scale = unit, scale
        self.bar: Any = None
        self.phase = ""

    def show(self, phase: str, done: int, total: int | None) -> None:
        if self.bar is None or phase != self.phase:
            self.close()
            from tqdm import tqdm

            self.phase = phase
            self.bar = tqdm(
                total=total, desc=phase, unit=self.unit, unit_scale=self.scale,
                unit_divisor=1024 if self.scale else 1000, file=sys.stderr, mininterval=0.2,
                dynamic_ncols=True, leave=True,
            )  # fmt: skip
        if total is not None and self.bar.total != total:
            self.bar.total = total
        self.bar.update(done - self.bar.n)
        if total is not None and done >= total:
            self.close()

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
            self.bar = None


def progress(label: str) -> Callable[[int, int, str], None] | None:
    """Progress bars on stderr (parsing files, then embedding texts), only on a terminal and
    without --quiet."""
    if quiet():
        return None
    bars = _Bars("file")

    def report(done: int, total: int, item: str) -> None:
        # `item` is a file path while parsing, or the name of a later phase ("embedding").
        phase = item if item == "embedding" else label
        bars.unit = "text" if phase == "embedding" else "file"
        bars.show(phase, done, total)

    return report


def bytes_progress(label: str) -> Callable[[int, int | None], None] | None:
    """Bytes transferred, as a bar on stderr, only on a terminal and without --quiet."""
    if quiet():
        return None
    bars = _Bars("B", scale=True)

    def report(done: int, total: int | None) -> None:
        bars.show(label, done, total)

    return report


class CodebotGroup(click.Group):
    """Turns codebot's errors into a message and exit 1; a bug into exit 3 with a log.

    ``lazy``: command name -> the module defining it (in its ``COMMANDS``), imported only when
    that command runs or the help lists them all: ``codebot search`` never loads the modules of
    the graph, sharing or precise commands."""

    def __init__(self, *args: Any, lazy: dict[str, str] | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.lazy = dict(lazy or {})

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *self.lazy})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name in self.lazy and cmd_name not in self.commands:
            import importlib

            module = importlib.import_module(self.lazy[cmd_name])
            for command in module.COMMANDS:
                self.add_command(command)
        return super().get_command(ctx, cmd_name)

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except CodebotError as exc:
            from codebot.core.http import scrub_environment  # the HTTP client: only on an error

            click.echo(f"codebot: error: {scrub_environment(str(exc))}", err=True)
            ctx.exit(1)
        except KeyboardInterrupt:
            click.echo(
                "\ncodebot: interrupted; the index is as it was before this command "
                "(an interrupted build resumes from its cached vectors when run again)",
                err=True,
            )
            ctx.exit(130)
        except (click.exceptions.Exit, click.ClickException, click.Abort):
            raise
        except BrokenPipeError:  # `codebot parse . | head`: the reader has all it wanted
            sys.stderr = open(os.devnull, "w")  # noqa: SIM115 - silence the flush at exit
            ctx.exit(0)
        except Exception:
            import tempfile
            import traceback

            from codebot.core.http import scrub_environment

            # A new file of our own (O_EXCL, 0600): a name known in advance could be a link.
            fd, log = tempfile.mkstemp(prefix="codebot-crash-", suffix=".log")
            with os.fdopen(fd, "w") as f:
                f.write(scrub_environment(traceback.format_exc()))
            click.echo(f"codebot: internal error (a bug); details in {log}", err=True)
            ctx.exit(3)

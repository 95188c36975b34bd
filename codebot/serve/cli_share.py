"""``codebot`` commands around the index: sharing it (pack, publish, pull, init), serving it
(mcp), the GitHub Action, and the git hooks that keep it at HEAD. Registered on the group in
``cli``; each command finds its workspace once, makes one library call and prints its report.
"""

from __future__ import annotations

import os
from typing import Any

import click

from codebot.serve.options import (
    bytes_progress,
    depth_option,
    emit,
    index_dir_option,
    json_option,
    path_argument,
    print_json,
    progress,
    store_path,
    wait_option,
    workspace,
)

__all__ = ["COMMANDS"]

_STORES = (
    "github, github:OWNER/REPO, an http(s) URL template with {commit}, s3://BUCKET/PREFIX, or a "
    "directory"
)
_GIT_HOOKS = ("post-commit", "post-merge", "post-checkout", "post-rewrite")  # = hooks.GIT_HOOKS


def _s3_options(command: Any) -> Any:
    """--s3-endpoint-url, --s3-region and --s3-profile: where an s3:// store is, and whose
    credentials it gets (the settings of the same names)."""
    for name, text in reversed(
        (
            ("endpoint-url", "S3-compatible service, e.g. https://HOST for MinIO, R2, GCS."),
            ("region", "Region of an s3:// store's bucket (default: boto3's)."),
            ("profile", "Profile of ~/.aws/config with the credentials (default: boto3's)."),
        )
    ):
        command = click.option(f"--s3-{name}", metavar=name.split("-")[0].upper(), help=text)(
            command
        )
    return command


def _s3_flags(kw: dict[str, Any]) -> dict[str, Any]:
    return {f"s3_{k}": kw.pop(f"s3_{k}", None) for k in ("endpoint_url", "region", "profile")}


def _token() -> str | None:
    from codebot.serve.hook import github_token

    return github_token()


# --- sharing the index: artifacts (issue 7) -------------------------------------------------------


@click.command("pack")
@path_argument
@click.option("-o", "--output", type=click.Path(), help="File to write, or a directory for it.")
@index_dir_option
@wait_option
@json_option
def pack_(path: str, output: str | None, index_dir: str | None, wait: float, as_json: bool) -> None:
    """Write the index as one artifact file, codebot-index-v<format>-<commit>.tar.gz (here, by
    default): the files of the current generation and artifact.json (formats, codebot version,
    commit, embedder, counts, sha256 and size of every member; schemas/artifact.schema.json)."""
    from codebot.share.artifacts import pack

    ws, config = workspace(path, index_dir=index_dir)
    emit(pack(ws, config, output, wait), as_json)


@click.command()
@path_argument
@click.option("--to", "target", metavar="TARGET", help=f"{_STORES} (default: artifacts setting).")
@click.option("--keep", type=click.IntRange(1), help="Artifacts to keep there (default 30).")
@_s3_options
@index_dir_option
@wait_option
@json_option
def publish(
    path: str, target: str | None, keep: int | None, index_dir: str | None, wait: float,
    as_json: bool, **s3: Any,
) -> None:  # fmt: skip
    """Pack the index and store it: as an asset of a GitHub release (one per index stream, the
    artifact_release setting; needs GITHUB_TOKEN or GH_TOKEN with contents: write), with PUT to
    a URL, as an object of an S3 bucket (pip install 'codebot[s3]'), or in a directory; then
    delete all but the newest --keep there. Publishes the commit the index describes: bring it
    to HEAD first (codebot update)."""
    from codebot.share.sync import publish as publish_index

    ws, config = workspace(path, index_dir=index_dir, **_s3_flags(s3))
    report = publish_index(
        ws, config, store_path(target), token=_token(), keep=keep,
        progress=bytes_progress("upload"), wait=wait,
    )  # fmt: skip
    emit(report, as_json)


@click.command()
@path_argument
@click.option(
    "--from", "source", metavar="SOURCE", help=f"{_STORES}, or an artifact file (default: setting)."
)
@click.option("--depth", type=click.IntRange(1), help="First-parent commits to look back (100).")
@click.option("--no-update", is_flag=True, help="Install the artifact; do not update it to HEAD.")
@_s3_options
@index_dir_option
@wait_option
@json_option
def pull(
    path: str, source: str | None, depth: int | None, no_update: bool, index_dir: str | None,
    wait: float, as_json: bool, **s3: Any,
) -> None:  # fmt: skip
    """Install the index of the nearest first-parent ancestor of HEAD that has an artifact, then
    update it to HEAD. Downloads resume after a broken connection and retry with backoff
    (Retry-After honoured); the artifact is verified (checksums, format, commit, embedder,
    settings) and installed atomically: on any failure the index in place stays as it was."""
    from codebot.share.sync import pull as pull_index

    ws, config = workspace(path, index_dir=index_dir, pull_depth=depth, **_s3_flags(s3))
    report = pull_index(
        ws, config, store_path(source), token=_token(), progress=bytes_progress("download"),
        parse_progress=progress("parsing"), update=not no_update, wait=wait,
    )  # fmt: skip
    emit(report, as_json)


@click.command()
@path_argument
@click.option("--from", "source", metavar="SOURCE", help="Where artifacts are (see pull).")
@click.option("--save", is_flag=True, help="Write --from into .codebot.toml (artifacts).")
@click.option("--no-hooks", is_flag=True, help="Do not install the git hooks.")
@click.option("--no-pull", is_flag=True, help="Build locally without looking for an artifact.")
@_s3_options
@index_dir_option
@json_option
def init(
    path: str, source: str | None, save: bool, no_hooks: bool, no_pull: bool,
    index_dir: str | None, as_json: bool, **s3: Any,
) -> None:  # fmt: skip
    """Set a clone up: install the git hooks, then pull the index (see pull), or build it
    locally when no artifact store is configured, none has an artifact for this history, or its
    artifact does not suit this clone (the reason is printed)."""
    from codebot.share.sync import init as init_clone

    ws, config = workspace(path, index_dir=index_dir, **_s3_flags(s3))
    report = init_clone(
        ws, config, store_path(source), save=save, hooks=not no_hooks, pull_first=not no_pull,
        token=_token(), progress=bytes_progress("download"), parse_progress=progress("parsing"),
    )  # fmt: skip
    emit(report, as_json)


# --- MCP: codebot as tools for coding agents (issue 9) ---------------------------------------------


@click.command()
@click.option(
    "--repo",
    "repos",
    multiple=True,
    type=click.Path(exists=True, file_okay=False),
    help="A repository to serve (repeatable; the first is the default; default: .).",
)
@click.option(
    "--update-wait",
    type=click.FloatRange(0),
    default=5.0,
    show_default=True,
    help="Seconds a call waits for the index to catch up with a new HEAD before answering "
    "from the work tree overlay (which is already right, only slower).",
)
def mcp(repos: tuple[str, ...], update_wait: float) -> None:
    """Serve codebot to coding agents over MCP on stdio: search_code, find_symbol, get_code,
    callers, callees, call_chain, repo_map and index_status.

    Answers follow HEAD and uncommitted edits; with no index yet a tool says how to build one.
    stdout is the protocol, logs go to stderr. Needs the extra: pip install 'codebot[mcp]'.
    """
    try:
        from codebot.serve.mcp import serve
    except ImportError as exc:
        if not (exc.name or "").startswith(("mcp", "pydantic")):
            raise
        raise click.ClickException(
            f"codebot mcp needs the MCP SDK ({exc}); install it: pip install 'codebot[mcp]'"
        ) from exc
    serve(list(repos) or ["."], update_wait=update_wait)


@click.group()
def action() -> None:
    """What the GitHub Action runs (action/action.yml), from the environment GitHub sets.

    Outside GitHub Actions use `codebot impact` and `codebot publish` instead.
    """


@action.command("pr")
@depth_option(3, 10, "Caller depth.")
@click.option("--no-comment", is_flag=True, help="Write the job summary only.")
@path_argument
@json_option
def action_pr(depth: int, no_comment: bool, path: str, as_json: bool) -> None:
    """On a pull_request event: impact of base..head in the job summary, the step outputs
    (report, report-json) and one comment on the pull request, edited in place on each push."""
    from codebot.git.workspace import Workspace
    from codebot.serve.action import ActionEnv, base_config, pr_context, pr_text

    env = ActionEnv.from_environ(os.environ)
    ws = Workspace.at(path)
    config = base_config(ws, env)  # never the pull request's own settings files
    result = pr_context(ws.with_index_dir(config.index_dir), config, env, depth, not no_comment)
    print_json(result) if as_json else click.echo(pr_text(result), nl=False)


@action.command("publish")
@click.option("--to", "target", metavar="TARGET", help="Where to publish (default: artifacts).")
@click.option(
    "--precise",
    is_flag=True,
    help="Run the SCIP indexers (scip-python, scip-typescript) and merge their edges first.",
)
@path_argument
@json_option
def action_publish(target: str | None, precise: bool, path: str, as_json: bool) -> None:
    """On a push: bring the index to the pushed commit (from the last published one when there
    is one), with --precise merge the SCIP indexers' edges, and publish it."""
    from codebot.serve.action import ActionEnv, publish_index, publish_text

    ws, config = workspace(path)
    result = publish_index(
        ws, config, ActionEnv.from_environ(os.environ), store_path(target), precise
    )
    print_json(result) if as_json else click.echo(publish_text(result), nl=False)


# --- git hooks: the index follows HEAD ------------------------------------------------------------


@click.group()
def hooks() -> None:
    """Git hooks that bring the index to HEAD after each commit, merge, checkout and rebase."""


def _hooks_report(report: Any, as_json: bool) -> None:
    emit(report, as_json)
    if not as_json:
        for note in getattr(report, "notes", ()):
            click.echo(f"note: {note}", err=True)
    if getattr(report, "refused", False):
        raise click.exceptions.Exit(1)


@hooks.command("install")
@path_argument
@json_option
def hooks_install(path: str, as_json: bool) -> None:
    """Install post-commit, post-merge, post-checkout and post-rewrite hooks into the directory git
    runs hooks from (core.hooksPath counts). Hooks already there keep running: each is renamed
    <name>.codebot-legacy and run first. The update runs in the background; git never waits."""
    from codebot.git.hooks import install

    _hooks_report(install(path), as_json)


@hooks.command("uninstall")
@path_argument
@json_option
def hooks_uninstall(path: str, as_json: bool) -> None:
    """Remove codebot's hooks and put back the ones they chained."""
    from codebot.git.hooks import uninstall

    _hooks_report(uninstall(path), as_json)


@hooks.command("status")
@path_argument
@json_option
def hooks_status(path: str, as_json: bool) -> None:
    """Per hook: installed, outdated, not installed or someone else's; the hook it chains; whether
    the Python it runs still exists. Also where the update log is."""
    from codebot.git.hooks import hooks_status

    emit(hooks_status(path, log=workspace(path)[0].log_path), as_json)


@click.command(context_settings={"ignore_unknown_options": True})
@click.argument("name", type=click.Choice(_GIT_HOOKS))
@click.argument("args", nargs=-1, type=click.UNPROCESSED)
@click.option("--detached", is_flag=True, hidden=True, help="Already in the background.")
def hook(name: str, args: tuple[str, ...], detached: bool) -> None:
    """What the git hooks run: start an index update in the background and return at once.

    ARGS are git's arguments to the hook (under pre-commit, its PRE_COMMIT_* variables). Always
    exits 0: what goes wrong is written to update.log in the index directory.
    """
    from codebot.serve.hook import run_git_hook

    if problem := run_git_hook(name, args, detached):
        click.echo(problem, err=True)


COMMANDS = [pack_, publish, pull, init, mcp, action, hooks, hook]

"""The ``codebot`` command: a thin layer over the library.

Each command resolves the configuration, makes one library call and renders the answer. Only click
and ``codebot.core.config`` are imported here at start-up; everything heavy is imported inside the
command that needs it, so ``codebot --help`` and the git hooks stay fast.
"""

from __future__ import annotations

import json
import os
import sys
import time
import traceback
from collections.abc import Callable
from typing import Any

import click

from codebot.core.config import Config, load_config
from codebot.core.errors import CodebotError
from codebot.git.repo import repository_root

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
        # `item` is a file path while parsing, or the name of a later phase ("embedding").
        phase = item if item == "embedding" else label
        if done == total or done % 25 == 0:
            end = "\n" if done == total else ""
            click.echo(f"\r{phase} {done}/{total}", err=True, nl=False)
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
            log = os.path.join(os.environ.get("TMPDIR", "/tmp"), f"codebot-crash-{os.getpid()}.log")
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
    from codebot.parse.extract import parse_path

    config = _config(path, max_file_bytes=max_file_bytes)
    report = parse_path(path, config, progress=_progress("parsing"))
    if as_json:
        _print_json(report.to_dict())
    else:
        for f in report.files:
            for s in f.symbols:
                click.echo(f"{s.path}:{s.start_line}-{s.end_line}  {s.kind:<9} {s.id}")
    _summary(report)


def _index_options(f: Callable) -> Callable:
    """Options shared by every command that reads or writes an index."""
    f = click.option(
        "--index-dir",
        type=click.Path(file_okay=False),
        help="Where the index lives (default: .git/codebot, or .codebot outside git).",
    )(f)
    return f


@main.command()
@click.argument("path", default=".", type=click.Path(exists=True, file_okay=False))
@_index_options
@click.option(
    "--embedder",
    help="builtin (the shipped model, offline; default), none (keywords only, fastest), "
    "model2vec:<dir or owner/name>, sentence-transformers:<dir or owner/name>, "
    "openai-compatible:<base_url>#<model> or voyage:<model>. Another model re-embeds "
    "(from the vector cache where it can).",
)
@click.option(
    "--wait", type=float, default=0.0, help="Seconds to wait if another build holds the lock."
)
@json_option
def index(
    path: str, index_dir: str | None, embedder: str | None, wait: float, as_json: bool
) -> None:
    """Build the index of a repository, a subdirectory of one, or a plain directory.

    In git, indexes the files of the commit HEAD points to (read from git: uncommitted edits are
    the work tree overlay's, which every query applies). Indexes keywords (BM25) and, unless
    --embedder none, embeds every symbol with the built-in model. Vectors are cached by content:
    an interrupted build resumes where it stopped, and a rebuild embeds only what changed.
    """
    from codebot.index.build import build_index

    config = _config(path, index_dir=index_dir, embedder=embedder)
    report = build_index(path, config, progress=_progress("parsing"), wait=wait)
    if as_json:
        _print_json(
            {
                "index_dir": str(report.index_dir),
                "manifest": report.manifest.to_dict(),
                "seconds": round(report.seconds, 3),
                "embedded": report.embedded,
            }
        )
    else:
        c = report.counts
        at = f" at {_short(report.manifest.commit)}" if report.manifest.commit else ""
        click.echo(
            f"indexed {c['files']} files{at}, {c['symbols']} symbols ({c['vectors']} vectors, "
            f"{report.embedded} newly embedded) in {report.seconds:.1f}s -> {report.index_dir}"
        )
        _worktree_note(path, config, report)
    _summary(report.parse, quiet_when_clean=True)


def _worktree_note(path: str, config: Config, report: Any) -> None:
    """Say so when the work tree holds what the committed index does not: queries see it (the
    overlay), but a user who just ran `codebot index` expects to hear about it."""
    from codebot.index.overlay import dirty_paths
    from codebot.index.store import Index
    from codebot.parse.files import locate

    _, repo, _ = locate(path)
    if repo is None:
        return
    dirty = dirty_paths(repo, Index(report.index_dir, repo.workdir, report.manifest))
    if report.manifest.commit is None:
        click.echo("nothing is committed yet: queries read the files from the work tree", err=True)
    elif dirty:
        click.echo(
            f"{len(dirty)} uncommitted file(s) differ from {_short(report.manifest.commit)}: "
            "queries read them from the work tree",
            err=True,
        )


@main.command()
@click.argument("path", default=".", type=click.Path(exists=True, file_okay=False))
@click.option("--to", "rev", metavar="REV", help="A commit to bring the index to (default HEAD).")
@click.option(
    "--worktree",
    is_flag=True,
    help="Refresh the overlay of uncommitted edits now (every query does it when needed).",
)
@click.option(
    "--no-settle",
    is_flag=True,
    help="Skip the lexical rewrite that makes BM25 statistics match a fresh build.",
)
@_index_options
@click.option(
    "--wait", type=float, default=0.0, help="Seconds to wait if another build holds the lock."
)
@json_option
def update(
    path: str,
    rev: str | None,
    worktree: bool,
    no_settle: bool,
    index_dir: str | None,
    wait: float,
    as_json: bool,
) -> None:
    """Bring the index up to date with HEAD (or --to REV), touching only what changed.

    git tells which files differ from the indexed commit (renames included); only those are
    parsed, only symbols whose content changed are re-indexed and re-embedded (a revert or a
    branch switch back embeds nothing), and the call graph is re-resolved from the stored calls.
    The result is the index a fresh build would make. With no index yet, or after a settings
    change, it builds from scratch and says why. The git hooks run this in the background.
    """
    from codebot.index.update import update_index

    config = _config(path, index_dir=index_dir)
    report = update_index(path, config, rev, wait, _progress("parsing"), settle=not no_settle)
    data = report.to_dict()
    if worktree:
        from codebot.index.store import open_index

        view = open_index(path, config)
        data["worktree"] = {
            "overlay": view.manifest.overlay is not None,
            "generation": view.manifest.generation,
            "files": sorted((view.manifest.overlay or {}).get("files", {})),
        }
    if as_json:
        _print_json(data)
        return
    if report.action == "up-to-date":
        click.echo(f"up to date at {_short(report.commit)}")
    elif report.action == "rebuilt":
        click.echo(f"rebuilt at {_short(report.commit)} ({report.reason}) in {report.seconds:.1f}s")
    else:
        f, s = report.files, report.symbols
        click.echo(
            f"updated {_short(report.base_commit)} -> {_short(report.commit)}: "
            f"{f['added']} added, {f['modified']} modified, {f['renamed']} renamed, "
            f"{f['deleted']} deleted files; symbols {s['added']} added, {s['changed']} changed, "
            f"{s['removed']} removed ({report.embedded} embedded) in {report.seconds:.2f}s"
        )
    if worktree:
        files = data["worktree"]["files"]
        click.echo(
            f"work tree: {len(files)} uncommitted file(s) in the overlay"
            if files
            else "work tree: clean"
        )


def _short(commit: str | None) -> str:
    return commit[:10] if commit else "(no commit)"


# --- sharing the index: artifacts (issue 7) -------------------------------------------------------

_STORES = "github, github:OWNER/REPO, an http(s) URL template with {commit}, or a directory"


def _token() -> str | None:
    """GitHub's token, from the environment: it goes into a request header and nowhere else."""
    return os.environ.get("GITHUB_TOKEN") or os.environ.get("GH_TOKEN") or None


def _store(value: str | None) -> str | None:
    """A store named on the command line: a relative path is taken from the current directory."""
    if value and not (value == "github" or value.startswith(("github:", "http", "file://"))):
        return os.path.abspath(value)
    return value


def _bytes_progress(label: str) -> Callable[[int, int | None], None] | None:
    """Bytes transferred, on stderr, only when stderr is a terminal."""
    if not sys.stderr.isatty():
        return None
    shown = [0.0]

    def report(done: int, total: int | None) -> None:
        now = time.monotonic()
        if done == total or now - shown[0] >= 0.2:
            shown[0] = now
            of = f"/{total / 1e6:.1f}" if total else ""
            click.echo(f"\r{label} {done / 1e6:.1f}{of} MB", err=True, nl=done == total)

    return report


def _wait_option(f: Callable) -> Callable:
    return click.option(
        "--wait", type=float, default=0.0, help="Seconds to wait if another build holds the lock."
    )(f)


@main.command("pack")
@click.argument("path", default=".", type=click.Path(exists=True, file_okay=False))
@click.option("-o", "--output", type=click.Path(), help="File to write, or a directory for it.")
@_index_options
@_wait_option
@json_option
def pack_(path: str, output: str | None, index_dir: str | None, wait: float, as_json: bool) -> None:
    """Write the index as one artifact file, codebot-index-v<format>-<commit>.tar.gz (here, by
    default): the files of the current generation and artifact.json (formats, codebot version,
    commit, embedder, counts, sha256 and size of every member; schemas/artifact.schema.json)."""
    from codebot.share.artifacts import pack

    report = pack(path, _config(path, index_dir=index_dir), output, wait)
    if as_json:
        _print_json(report.to_dict())
        return
    click.echo(
        f"packed {report.symbols} symbols at {_short(report.commit)}: {report.path} "
        f"({report.bytes / 1e6:.1f} MB)"
    )


@main.command()
@click.argument("path", default=".", type=click.Path(exists=True, file_okay=False))
@click.option("--to", "target", metavar="TARGET", help=f"{_STORES} (default: artifacts setting).")
@click.option("--keep", type=click.IntRange(1), help="Artifacts to keep there (default 30).")
@_index_options
@_wait_option
@json_option
def publish(
    path: str,
    target: str | None,
    keep: int | None,
    index_dir: str | None,
    wait: float,
    as_json: bool,
) -> None:
    """Pack the index and store it: as an asset of a GitHub release (one per index stream, the
    artifact_release setting; needs GITHUB_TOKEN or GH_TOKEN with contents: write), with PUT to
    a URL, or in a directory; then delete all but the newest --keep there. Publishes the commit
    the index describes: bring it to HEAD first (codebot update)."""
    from codebot.share.sync import publish as publish_index

    config = _config(path, index_dir=index_dir)
    report = publish_index(
        path, config, _store(target), token=_token(), keep=keep, progress=_bytes_progress("upload"),
        wait=wait,
    )  # fmt: skip
    if as_json:
        _print_json(report.to_dict())
        return
    a = report.artifact
    click.echo(f"published {a['asset']} ({a['bytes'] / 1e6:.1f} MB) to {report.target}")
    if report.pruned:
        click.echo(f"pruned {len(report.pruned)} older artifact(s)")


def _pull_text(p: dict[str, Any]) -> str:
    if p["action"] == "pulled":
        behind = f", {p['behind']} commit(s) behind HEAD" if p["behind"] > 0 else ""
        t = p["timings"]
        text = (
            f"pulled {p['asset']} ({p['bytes'] / 1e6:.1f} MB{behind}) from {p['source']}: "
            f"downloaded in {t.get('download', 0):.1f}s, installed in {t.get('install', 0):.1f}s"
        )
    else:
        text = p["note"]
    if p["update"]:
        text += f"; {p['update']['action']} at {_short(p['update']['commit'])}"
    return text


@main.command()
@click.argument("path", default=".", type=click.Path(exists=True, file_okay=False))
@click.option(
    "--from", "source", metavar="SOURCE", help=f"{_STORES}, or an artifact file (default: setting)."
)
@click.option("--depth", type=click.IntRange(1), help="First-parent commits to look back (100).")
@click.option("--no-update", is_flag=True, help="Install the artifact; do not update it to HEAD.")
@_index_options
@_wait_option
@json_option
def pull(
    path: str,
    source: str | None,
    depth: int | None,
    no_update: bool,
    index_dir: str | None,
    wait: float,
    as_json: bool,
) -> None:
    """Install the index of the nearest first-parent ancestor of HEAD that has an artifact, then
    update it to HEAD. Downloads resume after a broken connection and retry with backoff
    (Retry-After honoured); the artifact is verified (checksums, format, commit, embedder,
    settings) and installed atomically: on any failure the index in place stays as it was."""
    from codebot.share.sync import pull as pull_index

    config = _config(path, index_dir=index_dir, pull_depth=depth)
    report = pull_index(
        path, config, _store(source), token=_token(), progress=_bytes_progress("download"),
        parse_progress=_progress("parsing"), update=not no_update, wait=wait,
    )  # fmt: skip
    if as_json:
        _print_json(report.to_dict())
    else:
        click.echo(_pull_text(report.to_dict()))


@main.command()
@click.argument("path", default=".", type=click.Path(exists=True, file_okay=False))
@click.option("--from", "source", metavar="SOURCE", help="Where artifacts are (see pull).")
@click.option("--save", is_flag=True, help="Write --from into .codebot.toml (artifacts).")
@click.option("--no-hooks", is_flag=True, help="Do not install the git hooks.")
@click.option("--no-pull", is_flag=True, help="Build locally without looking for an artifact.")
@_index_options
@json_option
def init(
    path: str,
    source: str | None,
    save: bool,
    no_hooks: bool,
    no_pull: bool,
    index_dir: str | None,
    as_json: bool,
) -> None:
    """Set a clone up: install the git hooks, then pull the index (see pull), or build it
    locally when no artifact store is configured, none has an artifact for this history, or its
    artifact does not suit this clone (the reason is printed)."""
    from codebot.share.sync import init as init_clone

    report = init_clone(
        path, _config(path, index_dir=index_dir), _store(source), save=save, hooks=not no_hooks,
        pull_first=not no_pull, token=_token(), progress=_bytes_progress("download"),
        parse_progress=_progress("parsing"),
    )  # fmt: skip
    if as_json:
        _print_json(report.to_dict())
        return
    if report.config:
        click.echo(f"settings written to {report.config}")
    if report.hooks:
        click.echo(f"hooks installed in {report.hooks['hooks_dir']}")
    if report.pull:
        click.echo(_pull_text(report.pull))
    else:
        u = report.update or {}
        click.echo(
            f"built locally ({report.built}): {u.get('action')} at {_short(u.get('commit'))}"
        )


def _searcher(index_dir: str | None, path: str = "."):
    from codebot.index.store import open_index
    from codebot.query.search import Searcher

    config = _config(path, index_dir=index_dir)
    return Searcher(open_index(path, config), config)


@main.command()
@click.argument("query", required=False)
@click.option("-k", "--limit", "k", type=click.IntRange(1, 1000), default=10, show_default=True)
@click.option(
    "--mode", type=click.Choice(["hybrid", "bm25", "vector"]), default="hybrid", show_default=True
)
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
@_index_options
@json_option
def search(
    query: str | None,
    k: int,
    mode: str,
    with_code: bool,
    batch: Any,
    fmt: str | None,
    no_graph: bool,
    index_dir: str | None,
    as_json: bool,
) -> None:
    """Find the functions that answer QUERY: a question or a name.

    Results are ranked by keywords and meaning together, then the graph stage connects them into
    call trees (each node marked hit, neighbour or bridge). --json keeps the flat ranking of
    schemas/search-result.schema.json; --format json follows schemas/answer.schema.json.
    """
    if (query is None) == (batch is None):
        raise click.UsageError("give a QUERY or --batch FILE (not both)")
    searcher = _searcher(index_dir)
    if batch is not None:
        for line in batch:
            line = line.strip()
            if not line:
                continue
            q = json.loads(line)["query"] if line.startswith("{") else line
            hits = searcher.search(q, k=k, mode=mode, with_code=with_code)
            click.echo(
                json.dumps({"query": q, "results": [h.to_dict() for h in hits]}, ensure_ascii=False)
            )
        return
    if as_json:  # the flat ranking, as scripts have read it since the first release
        hits = searcher.search(query, k=k, mode=mode, with_code=with_code)
        _print_json({"query": query, "results": [h.to_dict() for h in hits]})
        return
    from codebot.query.render import render

    answer = searcher.answer(query, k=k, mode=mode, graph=not no_graph)
    if with_code:
        from dataclasses import replace

        code = searcher.index.code  # replace(): keeps any field the graph stage added (why)
        answer.hits = [replace(h, code=code(h.symbol)) for h in answer.hits]
    # The ranked list is the default view: the trees are unmeasured yet (no benchmark scores
    # them), so they are one --format away rather than in the way.
    text = render(answer, fmt or "list", not no_graph, with_code)
    click.echo(text, nl=False)


@main.command()
@click.argument("name")
@_index_options
@json_option
def find(name: str, index_dir: str | None, as_json: bool) -> None:
    """Look a symbol up by exact name: a qualified id (pkg.mod.Class.method), a dotted tail
    (Class.method) or a short name (method, listing every match).

    A miss is an error that suggests the closest names; it never returns something else.
    """
    symbols = _searcher(index_dir).find(name)
    if as_json:
        _print_json([s.to_dict() for s in symbols])
        return
    for s in symbols:
        click.echo(f"{s.path}:{s.start_line}-{s.end_line}  {s.kind:<9} {s.id}  {s.signature}")


@main.command()
@click.argument("symbol_id", metavar="ID")
@_index_options
@json_option
def show(symbol_id: str, index_dir: str | None, as_json: bool) -> None:
    """Print the code of a symbol (as found by `codebot find`), with its path and lines."""
    searcher = _searcher(index_dir)
    matches = searcher.find(symbol_id)
    if len(matches) > 1:
        listing = "\n".join(f"  {s.id}" for s in matches)
        raise click.ClickException(
            f"{symbol_id!r} names {len(matches)} symbols; give one id:\n{listing}"
        )
    s = matches[0]
    code = searcher.index.code(s)
    if as_json:
        _print_json({**s.to_dict(), "code": code})
        return
    click.echo(f"# {s.path}:{s.start_line}-{s.end_line}  {s.id}")
    click.echo(code, nl=not code.endswith("\n"))


@main.command()
@_index_options
@json_option
def status(index_dir: str | None, as_json: bool) -> None:
    """Where the index is, what it describes, how big it is, and which files it skipped.

    Checks every file of the index against the checksum recorded when it was written: a damaged
    one is an error (exit 1) that names it and says to rebuild.
    """
    from codebot.index.overlay import dirty_paths
    from codebot.index.store import Index, ensure_intact, index_location, read_manifest
    from codebot.parse.files import locate

    config = _config(".", index_dir=index_dir)
    root, location, _ = index_location(".", config)
    manifest = read_manifest(location)
    ensure_intact(location, manifest)  # status is where a damaged file should show up first
    _, repo, _ = locate(".")
    dirty = dirty_paths(repo, Index(location, root, manifest)) if repo is not None else []
    if as_json:
        _print_json(
            {
                "index_dir": str(location),
                "root": str(root),
                **manifest.to_dict(),
                "worktree": {"differs": dirty},
            }
        )
        return
    c = manifest.counts
    emb = manifest.embedder
    click.echo(f"index     {location}")
    click.echo(f"root      {root}{'/' + manifest.root if manifest.root else ''}")
    click.echo(f"commit    {manifest.commit or '(not a git repository)'}")
    click.echo(f"built     {manifest.created} by codebot {manifest.codebot_version}")
    click.echo(
        f"embedder  {emb['name'] + ' (' + str(emb['dimension']) + ' dims)' if emb else 'none (keywords only)'}"
    )
    click.echo(
        f"contents  {c['files']} files, {c['symbols']} symbols ({c['chunks']} chunks), "
        f"{c['vectors']} vectors"
    )
    if repo is not None:
        head = repo.head_commit()
        behind = (
            " (HEAD is at " + _short(head) + ": run codebot update)"
            if head != manifest.commit
            else ""
        )
        click.echo(
            f"work tree {len(dirty)} file(s) differ from the index{behind}"
            if dirty
            else "work tree clean"
        )
    click.echo(f"skipped   {c['skipped']} files")
    for s in manifest.skipped:
        click.echo(f"  {s['path']}: {s['reason']}")


# --- git hooks: the index follows HEAD ------------------------------------------------------------

_GIT_HOOKS = ("post-commit", "post-merge", "post-checkout", "post-rewrite")  # = hooks.GIT_HOOKS


@main.group()
def hooks() -> None:
    """Git hooks that bring the index to HEAD after each commit, merge, checkout and rebase."""


def _hooks_report(report: Any, as_json: bool) -> None:
    if as_json:
        _print_json(report.to_dict())
    else:
        click.echo(f"hooks in {report.hooks_dir}")
        for h in report.hooks:
            chained = f" (chains {os.path.basename(h.chained)})" if h.chained else ""
            if h.action == "removed" and h.chained:
                chained = " (the hook it chained is back)"
            click.echo(f"  {h.name:<14} {h.action}{chained}")
            if h.reason:
                click.echo(f"      {h.reason}")
        for note in getattr(report, "notes", ()):
            click.echo(f"note: {note}", err=True)
    if getattr(report, "refused", False):
        raise click.exceptions.Exit(1)


@hooks.command("install")
@click.argument("path", default=".", type=click.Path(exists=True, file_okay=False))
@json_option
def hooks_install(path: str, as_json: bool) -> None:
    """Install post-commit, post-merge, post-checkout and post-rewrite hooks into the directory git
    runs hooks from (core.hooksPath counts). Hooks already there keep running: each is renamed
    <name>.codebot-legacy and run first. The update runs in the background; git never waits."""
    from codebot.git.hooks import install

    _hooks_report(install(path), as_json)


@hooks.command("uninstall")
@click.argument("path", default=".", type=click.Path(exists=True, file_okay=False))
@json_option
def hooks_uninstall(path: str, as_json: bool) -> None:
    """Remove codebot's hooks and put back the ones they chained."""
    from codebot.git.hooks import uninstall

    _hooks_report(uninstall(path), as_json)


@hooks.command("status")
@click.argument("path", default=".", type=click.Path(exists=True, file_okay=False))
@json_option
def hooks_status(path: str, as_json: bool) -> None:
    """Per hook: installed, outdated, not installed or someone else's; the hook it chains; whether
    the Python it runs still exists. Also where the update log is."""
    from codebot.git.hooks import LOG, hooks_status
    from codebot.index.store import index_location

    report = hooks_status(path)
    log = str(index_location(path, _config(path))[1] / LOG)
    if as_json:
        _print_json({**report.to_dict(), "log": log})
        return
    click.echo(f"hooks in {report.hooks_dir}")
    for h in report.hooks:
        owner = f" ({h.owner})" if h.owner not in (None, "codebot") else ""
        chained = f", chains {os.path.basename(h.chained)}" if h.chained else ""
        missing = "" if h.interpreter_exists in (None, True) else f", {h.interpreter} is gone"
        click.echo(f"  {h.name:<14} {h.state}{owner}{chained}{missing}")
    click.echo(f"log in {log}")


@main.command(context_settings={"ignore_unknown_options": True})
@click.argument("name", type=click.Choice(_GIT_HOOKS))
@click.argument("args", nargs=-1, type=click.UNPROCESSED)
@click.option("--detached", is_flag=True, hidden=True, help="Already in the background.")
def hook(name: str, args: tuple[str, ...], detached: bool) -> None:
    """What the git hooks run: start an index update in the background and return at once.

    ARGS are git's arguments to the hook (under pre-commit, its PRE_COMMIT_* variables). Always
    exits 0: what goes wrong is written to update.log in the index directory.
    """
    from codebot.git import (
        hooks as git_hooks,  # nothing heavy before the update is in the background
    )

    try:
        if not args and os.environ.get("PRE_COMMIT") == "1":
            args = git_hooks.pre_commit_args(name, os.environ)
        git_dir = git_hooks.git_dir_at(os.getcwd(), os.environ.get("GIT_DIR"))
        if not git_hooks.wants_update(name, args, git_dir):
            return
        if not detached:
            git_hooks.spawn_detached(git_hooks.detached_command(sys.executable, name, args))
            return
        _update_in_background(name)
    except Exception as exc:  # noqa: BLE001 - a hook never fails git: say why, still exit 0
        click.echo(f"codebot hook {name}: index not updated: {exc!r}", err=True)


def _update_in_background(name: str) -> None:
    from codebot.git.hooks import run_hook
    from codebot.index.store import index_location

    try:
        os.setsid()  # out of the terminal's session: closing it does not stop the update
    except OSError:
        pass  # already a session leader (spawned detached)
    config: Config | None = None
    try:
        config = _config(".")
        index_dir = index_location(".", config)[1]
    except CodebotError:  # a bad setting: log where the index would be; the update logs the error
        index_dir = index_location(".", Config())[1]

    def job() -> str:
        from codebot.index.update import update_index

        # Loaded once above; after a bad setting, loading it again raises its error into the log.
        cfg = config if config is not None else _config(".")
        pulled = _pull_into_new_clone(cfg) if name == "post-checkout" else ""
        r = update_index(".", cfg)
        return f"{pulled}{r.action} {(r.base_commit or '-')[:12]} -> {(r.commit or '-')[:12]}"

    run_hook(name, index_dir, job)


def _pull_into_new_clone(config: Config) -> str:
    """A checkout with no index yet (a new clone) pulls one first, when artifacts are configured
    and pull_on_clone allows; what happened opens the log line."""
    from codebot.index.store import index_location, read_manifest

    if not (config.artifacts and config.pull_on_clone):
        return ""
    try:
        read_manifest(index_location(".", config)[1])
        return ""
    except CodebotError:  # no index here yet (a new clone): pull one
        pass
    from codebot.share.sync import pull

    try:
        r = pull(".", config, token=_token(), update=False)
    except CodebotError as exc:  # no artifact, or none that suits: the update builds instead
        return f"no pull ({exc}); "
    return f"pulled {r.asset} from {r.source}; " if r.asset else ""


@main.command("eval")
@click.argument("file", type=click.Path(exists=True, dir_okay=False))
@click.option("-k", "--limit", "k", type=click.IntRange(10, 1000), default=10, show_default=True)
@click.option(
    "--mode", type=click.Choice(["hybrid", "bm25", "vector"]), default="hybrid", show_default=True
)
@_index_options
@json_option
def eval_(file: str, k: int, mode: str, index_dir: str | None, as_json: bool) -> None:
    """Measure search on a query set: Recall@5, Recall@10, MRR@10, NDCG@10, and the misses.

    FILE is JSONL, one {"query": ..., "expected": [...]} per line, where a target is a path, a
    {"path", "start_line", "end_line"} object or a symbol id; or a semble annotation file (a JSON
    list of {"query", "relevant", "secondary", "category"}). See schemas/eval-queries.schema.json.
    """
    from codebot.query.evaluate import evaluate, load_queries

    queries = load_queries(file)
    searcher = _searcher(index_dir)
    report = evaluate(queries, lambda q: searcher.search(q, k=k, mode=mode))
    if as_json:
        _print_json(report.to_dict())
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
@click.option("-k", "--limit", "k", type=click.IntRange(1, 1000), default=10, show_default=True)
@click.option(
    "--mode", type=click.Choice(["hybrid", "bm25", "vector"]), default="hybrid", show_default=True
)
@click.option("--no-graph", is_flag=True, help="Pack the flat ranking only.")
@_index_options
def context(
    query: str, budget: int, fmt: str, k: int, mode: str, no_graph: bool, index_dir: str | None
) -> None:
    """The code that answers QUERY, packed into --tokens N tokens for a prompt.

    Full bodies for the hits and then the best call tree's nodes, signatures and docstrings for
    what does not fit, paths and line ranges always. Never more than N tokens (tiktoken's
    cl100k_base if installed, else the built-in model's tokenizer, else characters / 4; the one
    used is named on stderr, and in the JSON).
    """
    from codebot.query.context import pack_context
    from codebot.query.tokens import token_counter

    searcher = _searcher(index_dir)
    answer = searcher.answer(query, k=k, mode=mode, graph=not no_graph)
    counter = token_counter()
    packed = pack_context(searcher.index, answer, budget, counter, "text" if fmt == "text" else fmt)
    if fmt == "json":
        _print_json(packed.to_dict())
        return
    _tokens_note(f"{counter.name}: {packed.tokens}/{budget}")
    click.echo(packed.text, nl=False)


@main.command()
@click.argument("question")
@click.option("--tokens", "budget", type=click.IntRange(200), help="Context budget (ask_tokens).")
@click.option("-k", "--limit", "k", type=click.IntRange(1, 100), default=10, show_default=True)
@click.option("--chat-url", help="An OpenAI-compatible base URL, e.g. http://localhost:11434/v1.")
@click.option("--chat-model", help="The chat model to ask (chat_model).")
@click.option("--dry-run", is_flag=True, help="Print the messages it would send; send nothing.")
@_index_options
@json_option
def ask(
    question: str,
    budget: int | None,
    k: int,
    chat_url: str | None,
    chat_model: str | None,
    dry_run: bool,
    index_dir: str | None,
    as_json: bool,
) -> None:
    """Answer QUESTION with an LLM, from the code that answers it, citing path:line.

    The context is what `codebot context` packs (the hits and their call tree, to --tokens),
    sent with the question to an OpenAI-compatible chat endpoint (chat_url, chat_model); the
    answer streams to stdout, then the sources it cited, checked against the context. Without an
    endpoint it prints the context it would have sent, says how to configure one, and exits 1.
    """
    from codebot.index.store import open_index
    from codebot.query.ask import ask as ask_llm
    from codebot.query.ask import sources_text
    from codebot.query.search import Searcher
    from codebot.query.tokens import token_counter

    config = _config(".", index_dir=index_dir, chat_url=chat_url, chat_model=chat_model)
    searcher = Searcher(open_index(".", config), config)
    write = (lambda _: None) if as_json else (lambda text: click.echo(text, nl=False))
    result = ask_llm(searcher, question, config, write, token_counter(), budget, k, dry_run)
    if as_json:
        _print_json(result.to_dict())
    elif not dry_run:
        click.echo(sources_text(result), nl=False)


@main.command("map")
@click.option("--tokens", "budget", type=click.IntRange(1), default=1024, show_default=True)
@click.option("--focus", help="A file or directory (its symbols), or a query (its hits).")
@_index_options
@json_option
def map_(budget: int, focus: str | None, index_dir: str | None, as_json: bool) -> None:
    """A map of the repository: its most important symbols' signatures, grouped by file.

    Ranked by PageRank on the call graph, personalised to --focus; as many symbols as fit in
    --tokens N (the tokenizer used is named on stderr, and in the JSON).
    """
    from codebot.query.repomap import repo_map
    from codebot.query.tokens import token_counter

    searcher = _searcher(index_dir)
    counter = token_counter()
    result = repo_map(searcher.index, budget, counter, focus, searcher)
    if as_json:
        _print_json(result.to_dict(searcher.index))
        return
    _tokens_note(f"{counter.name}: {result.tokens}/{budget}, {result.symbols} symbols")
    click.echo(result.text, nl=False)


# --- the call graph -------------------------------------------------------------------------------


def _graph_symbol(index_dir: str | None, symbol_id: str):
    """(index, row) of the one symbol ``symbol_id`` names, looked up like `codebot find`."""
    searcher = _searcher(index_dir)
    matches = searcher.find(symbol_id)  # a miss raises NotFound, with suggestions
    if len(matches) > 1:
        listing = "\n".join(f"  {s.id}  {s.path}:{s.start_line}" for s in matches[:20])
        more = f"\n  ... and {len(matches) - 20} more" if len(matches) > 20 else ""
        raise CodebotError(
            f"{symbol_id!r} names {len(matches)} symbols; give one id:\n{listing}{more}"
        )
    index = searcher.index
    return index, index.by_id[matches[0].id]


def _depth_option(default: int, most: int) -> Callable:
    return click.option(
        "--depth",
        type=click.IntRange(1, most),
        default=default,
        show_default=True,
        help="How many calls away to go.",
    )


def _neighbors(symbol_id: str, depth: int, index_dir: str | None, as_json: bool, direction: str):
    from codebot.query.graph_output import neighbors_doc, neighbors_text

    index, row = _graph_symbol(index_dir, symbol_id)
    walk = index.graph.callers if direction == "callers" else index.graph.callees
    found = walk(row, depth)
    if as_json:
        _print_json(neighbors_doc(index.symbols, row, direction, depth, found))
        return
    for line in neighbors_text(index.symbols, row, direction, found):
        click.echo(line)


@main.command()
@click.argument("symbol_id", metavar="ID")
@_depth_option(1, 10)
@_index_options
@json_option
def callers(symbol_id: str, depth: int, index_dir: str | None, as_json: bool) -> None:
    """Who calls ID (as found by `codebot find`), and with --depth who calls them.

    One line per caller: its distance, id, location and the line of the call. Only resolved calls
    count; an edge found by a repository-unique name is marked (unique name). --json follows
    schemas/graph-neighbors.schema.json.
    """
    _neighbors(symbol_id, depth, index_dir, as_json, "callers")


@main.command()
@click.argument("symbol_id", metavar="ID")
@_depth_option(1, 10)
@_index_options
@json_option
def callees(symbol_id: str, depth: int, index_dir: str | None, as_json: bool) -> None:
    """What ID calls in this repository, and with --depth what those call.

    Calls into libraries and builtins are not listed (see `codebot stats`). --json follows
    schemas/graph-neighbors.schema.json.
    """
    _neighbors(symbol_id, depth, index_dir, as_json, "callees")


@main.command()
@click.argument("symbol_id", metavar="ID")
@_depth_option(4, 20)
@_index_options
@json_option
def chain(symbol_id: str, depth: int, index_dir: str | None, as_json: bool) -> None:
    """The execution tree below ID: what it calls, in call order, and what those call.

    A call back into a function on the current path is marked (cycle); a function already
    expanded higher up is marked (see above) instead of repeated. --json follows
    schemas/chain.schema.json.
    """
    from codebot.query.graph_output import chain_doc, chain_text

    index, row = _graph_symbol(index_dir, symbol_id)
    tree = index.graph.chain(row, depth)
    if as_json:
        _print_json(chain_doc(index.symbols, tree, depth))
        return
    for line in chain_text(index.symbols, tree):
        click.echo(line)


@main.command()
@click.option("--all", "all_roles", is_flag=True, help="Include tests, examples and docs.")
@click.option("-n", "--limit", type=click.IntRange(1), help="Print at most this many.")
@_index_options
@json_option
def entrypoints(all_roles: bool, limit: int | None, index_dir: str | None, as_json: bool) -> None:
    """Functions called by nobody in the repository that call others: mains, commands, handlers.

    Source code only unless --all (every test would be one). --json follows
    schemas/entrypoints.schema.json.
    """
    from codebot.index.store import open_index
    from codebot.query.graph_output import entrypoints_doc

    index = open_index(".", _config(".", index_dir=index_dir))
    symbols = index.symbols
    rows = [
        r for r in index.graph.entry_points.tolist() if all_roles or symbols[r].role == "source"
    ]
    doc = entrypoints_doc(index, rows[:limit] if limit else rows)
    if as_json:
        _print_json(doc)
        return
    for item in doc["results"]:
        click.echo(
            f"{item['path']}:{item['start_line']}  {item['kind']:<9} {item['id']}  "
            f"(calls {item['callees']})"
        )


@main.group()
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
@_depth_option(2, 10)
@click.option(
    "--kind",
    "kinds",
    type=click.Choice(["calls", "contains", "inherits", "imports"]),
    multiple=True,
    help="Edge kinds to export (repeatable; default: calls).",
)
@_index_options
def graph_export(
    fmt: str, around: str | None, depth: int, kinds: tuple[str, ...], index_dir: str | None
) -> None:
    """Print the graph (or the part --around a symbol) as JSON, Graphviz DOT or Mermaid.

    JSON follows schemas/graph-export.schema.json. Edges resolved by a unique name only are
    dashed in DOT and Mermaid.
    """
    from codebot.query.graph_output import export_doc, export_dot, export_mermaid

    kinds = kinds or ("calls",)
    if around is not None:
        index, center = _graph_symbol(index_dir, around)
        rows = index.graph.neighborhood([center], depth, kinds)
    else:
        from codebot.index.store import open_index

        index, center = open_index(".", _config(".", index_dir=index_dir)), None
        rows = range(index.graph.n)
    g = index.graph
    edges = g.edges_among(rows, kinds)
    if center is None:  # the whole graph: only the symbols that take part in an edge
        rows = sorted({int(r) for e in edges for r in (g.src[e], g.dst[e])})
    doc = export_doc(index, list(rows), edges, kinds, center, depth if around else None)
    if fmt == "json":
        _print_json(doc)
    else:
        click.echo((export_dot if fmt == "dot" else export_mermaid)(doc), nl=False)


@main.command()
@_index_options
@json_option
def stats(index_dir: str | None, as_json: bool) -> None:
    """Symbols, edges by kind and resolution, resolved / unresolved / external calls, per
    language, and the largest communities. --json follows schemas/stats.schema.json."""
    from codebot.index.store import open_index
    from codebot.query.graph_output import stats_doc, stats_text

    doc = stats_doc(open_index(".", _config(".", index_dir=index_dir)))
    if as_json:
        _print_json(doc)
        return
    for line in stats_text(doc):
        click.echo(line)


# --- MCP: codebot as tools for coding agents (issue 9) ---------------------------------------------


@main.command()
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


@main.command("impact")
@click.argument("rev_range", metavar="BASE..HEAD")
@click.option(
    "--depth", type=click.IntRange(1, 10), default=3, show_default=True, help="Caller depth."
)
@click.option("--markdown", is_flag=True, help="GitHub-flavoured markdown (a PR comment).")
@click.option("--link", metavar="URL", help="Prefix for path#Lline links (a blob URL at HEAD).")
@_index_options
@json_option
def impact_(
    rev_range: str,
    depth: int,
    markdown: bool,
    link: str | None,
    index_dir: str | None,
    as_json: bool,
) -> None:
    """What a range of commits touches beyond its diff: the definitions it adds, modifies,
    deletes and renames; for each, its callers (to --depth), the entry points and tests that
    reach it ("no test reaches this" when none does), callers left calling deleted code, the
    communities touched and a Mermaid graph. BASE alone means BASE..HEAD. Needs an index (of
    any commit: both ends are derived from it). --json follows schemas/impact.schema.json.
    """
    from codebot.query.impact import impact, impact_markdown, parse_range

    base, head = parse_range(rev_range)
    doc = impact(".", _config(".", index_dir=index_dir), base, head, depth)
    if as_json:
        _print_json(doc)
    elif markdown:
        click.echo(impact_markdown(doc, link))
    else:
        s = doc["summary"]
        click.echo(
            f"{_short(doc['base'])}..{_short(doc['head'])}: {s['modified']} modified, "
            f"{s['added']} added, {s['deleted']} deleted, {s['renamed']} renamed definitions"
        )
        for e in doc["symbols"]:
            notes = [f"{e['callers_total']} callers"]
            if e["change"] == "deleted" and e["orphaned_callers"]:
                notes.append(f"{len(e['orphaned_callers'])} still calling it")
            if e["change"] != "deleted":
                notes.append(f"{e['tests_total']} tests" if e["tested"] else "no test reaches this")
            click.echo(
                f"  {e['change']:<8} {e['path']}:{e['start_line']}  {e['id']}  ({', '.join(notes)})"
            )


@main.group()
def action() -> None:
    """What the GitHub Action runs (action/action.yml), from the environment GitHub sets.

    Outside GitHub Actions use `codebot impact` and `codebot publish` instead.
    """


@action.command("pr")
@click.option(
    "--depth", type=click.IntRange(1, 10), default=3, show_default=True, help="Caller depth."
)
@click.option("--no-comment", is_flag=True, help="Write the job summary only.")
@json_option
def action_pr(depth: int, no_comment: bool, as_json: bool) -> None:
    """On a pull_request event: impact of base..head in the job summary, the step outputs
    (report, report-json) and one comment on the pull request, edited in place on each push."""
    from codebot.serve.action import ActionEnv, pr_context

    env = ActionEnv.from_environ(os.environ)
    result = pr_context(".", _config("."), env, depth, comment=not no_comment)
    if as_json:
        _print_json(result)
    else:
        s = result["impact"]
        why = f" ({result['reason']})" if result["reason"] else ""
        click.echo(
            f"impact {result['base'][:10]}..{result['head'][:10]}: {s['modified']} modified, "
            f"{s['added']} added, {s['deleted']} deleted, {s['renamed']} renamed; "
            f"{result['index']}; comment {result['comment']}{why}"
        )


@action.command("publish")
@click.option("--to", "target", metavar="TARGET", help="Where to publish (default: artifacts).")
@json_option
def action_publish(target: str | None, as_json: bool) -> None:
    """On a push: bring the index to the pushed commit (from the last published one when there
    is one) and publish it."""
    from codebot.serve.action import ActionEnv, publish_index

    env = ActionEnv.from_environ(os.environ)
    result = publish_index(".", _config("."), env, _store(target))
    if as_json:
        _print_json(result)
    else:
        click.echo(f"{result['index']}; published to {result['target']}: {result['location']}")


def _summary(report: Any, quiet_when_clean: bool = False) -> None:
    """Counts, then every skipped file and every problem, with its reason, on stderr."""
    counts = report.counts()
    if quiet_when_clean and not report.skipped and not report.issues:
        return
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

"""``codebot mcp``: codebot's answers as tools that coding agents call, over MCP on stdio.

    agent ──JSON-RPC on stdin/stdout──► MCPServer (the mcp SDK) ──► a tool ──► ServedRepo.run()
        1. HEAD moved past the indexed commit? ``update_index`` in a background thread, waited for
           at most ``update_wait`` seconds (answers meanwhile come from the work tree overlay,
           which already covers the commits between: never stale, only slower);
        2. ``open_index(worktree=True)``: uncommitted edits, new and deleted files applied;
        3. the same generation as the last call? the same ``Searcher`` (symbols, Tantivy and the
           graph stay loaded); a new one (a hook's update, an edit) gets a new one;
        4. the tool's library call (search, find, graph walks, map), rendered as compact text with
           ``path:line`` on every symbol.

Decisions (issue 9):

- No index yet: a tool error that says how to build one (``codebot index``). The server never
  starts a full build itself: it would take the CPU for minutes behind the agent's back. The index
  is picked up on the next call, without a restart.
- Another writer holds the index (``IndexBusy``, a hook's update): answer from the index as it is.
- Errors are tool errors (``is_error``) whose message says what to do; a bug is logged with its
  traceback on stderr and reported as an internal error; the session keeps going either way.
- stdout is the protocol: the SDK points file descriptor 1 at stderr while it serves, so a stray
  print cannot corrupt it; logs go to stderr.

All ``mcp`` imports live here; the CLI imports this module only inside ``codebot mcp``, so
``codebot --help`` and the git hooks never load the SDK.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import ToolAnnotations
from pydantic import Field

from codebot.core import __version__
from codebot.core.config import Config, load_config
from codebot.core.errors import CodebotError, IndexBusy
from codebot.core.http import scrub_environment

if TYPE_CHECKING:
    from codebot.index.store import Manifest
    from codebot.query.search import Searcher

__all__ = ["ServedRepo", "build_server", "serve"]

log = logging.getLogger("codebot.mcp")

UPDATE_WAIT = 5.0  # seconds a call waits for an update to HEAD before answering from the overlay
_MAX_LINES = 300  # longest neighbour list or chain a tool returns; the rest is counted

INSTRUCTIONS = """\
codebot indexes this repository (symbols, keywords, call graph) and answers from the code as it
is on disk now, uncommitted edits included. Every result carries path:line.
- search_code: a question or description ("where are retries handled") -> call trees + ranked
  symbols; with tokens=N, the code itself packed into N tokens; repo="*" searches every served
  repository at once.
- find_symbol: an exact name you already know (qualified id, Class.method or short name).
- get_code: the source of one symbol, by the id another tool gave.
- callers / callees / call_chain: follow calls from a symbol before changing it.
- repo_map: the most important signatures, for orientation; focus= narrows it.
- index_status: what is indexed, and whether the index matches HEAD.
Ids from one tool go into the others."""

_READ_ONLY = ToolAnnotations(read_only_hint=True, open_world_hint=False)

# Argument types, shared by the tools: bounds in the schema, so a bad value never reaches codebot.
RepoArg = Annotated[
    str | None,
    Field(
        description="Which served repository: its directory name or path, as index_status lists "
        "them. Default: the first one."
    ),
]
SearchRepoArg = Annotated[
    str | None,
    Field(
        description="Which served repository: its directory name or path, as index_status lists "
        "them; '*' for all of them at once (one ranked list, each result labelled with its "
        "repository). Default: the first one."
    ),
]
ALL_REPOS = "*"
IdArg = Annotated[
    str,
    Field(
        min_length=1,
        max_length=1000,
        description="A symbol id as other tools print it (pkg.mod.Class.method); a dotted tail "
        "(Class.method) or short name works when it names one symbol.",
    ),
]
Depth10 = Annotated[int, Field(ge=1, le=10, description="How many calls away to go (1-10).")]


# --- one served repository ------------------------------------------------------------------------


class ServedRepo:
    """A repository the server answers for: its settings, its freshness state and the searcher
    over the index generation the last call saw. Calls on one repository are serialised."""

    def __init__(
        self,
        path: str | Path,
        update_wait: float = UPDATE_WAIT,
        shared: dict[str, Any] | None = None,
    ) -> None:
        from codebot.git.workspace import Workspace

        self.path = Path(path).resolve()
        ws = Workspace.at(self.path)
        self.config: Config = load_config(ws.root)
        self.ws = ws.with_index_dir(self.config.index_dir)
        self.root, self.index_dir, self._repo = self.ws.root, self.ws.index_dir, self.ws.repo
        self.name = self.path.name
        self.update_wait = update_wait
        self.lock = threading.Lock()
        self._cached: tuple[tuple[Any, ...], Searcher] | None = None
        self._embedder: tuple[dict[str, Any], Any] | None = None  # (identity, loaded embedder)
        # One embedder per model for every repository served (query.multi.SharedEmbedder): a
        # query over several repositories is embedded once per model.
        self._shared = shared if shared is not None else {}
        self.model: str | None = None  # the model key of the index last served (None: no vectors)
        self._update: threading.Thread | None = None
        self._update_started = 0.0
        self._failed_head: str | None = None  # an update to this HEAD failed: do not retry it
        self.last_update = "none since the server started"

    # --- freshness --------------------------------------------------------------------------------

    def manifest(self) -> Manifest:
        """The committed index's manifest; a tool error saying how to build one if there is none."""
        from codebot.index.store import MANIFEST, read_manifest

        if not (self.index_dir / MANIFEST).exists():
            raise ToolError(
                f"no codebot index for {self.path} yet. Build one in a shell, then call again "
                f"(no restart needed): `codebot index --embedder none {self.path}` (keywords "
                f"only, seconds) or `codebot index {self.path}` (adds meaning-based search, "
                "slower). The server does not build it by itself."
            )
        return read_manifest(self.index_dir)

    def head(self) -> str | None:
        return self._repo.head_commit() if self._repo is not None else None

    def catch_up(self, manifest: Manifest) -> None:
        """Start bringing the committed index to HEAD when HEAD moved past it, and wait until it
        describes HEAD, at most ``update_wait`` seconds from the start (the overlay answers for
        HEAD meanwhile; the BM25 settling after an update goes on in the background)."""
        head = self.head()
        if head is None or head == manifest.commit:
            return
        update = self._update
        if update is None or not update.is_alive():
            if head == self._failed_head:
                return  # logged once; the overlay answers for HEAD
            update = self._update = threading.Thread(
                target=self._run_update,
                args=(
                    head,
                    self._update_config(manifest),
                    self._loaded_embedder(manifest.embedder),
                ),
                name="codebot-update",
                daemon=True,
            )
            self._update_started = time.monotonic()
            update.start()
        deadline = self._update_started + self.update_wait
        while update.is_alive() and time.monotonic() < deadline:
            update.join(min(0.05, max(0.0, deadline - time.monotonic())))
            if self._indexed_commit() == head:
                return

    def _indexed_commit(self) -> str | None:
        from codebot.index.store import read_manifest

        try:
            return read_manifest(self.index_dir).commit
        except CodebotError:
            return None

    def _update_config(self, manifest: Manifest) -> Config:
        """The settings to update under: the index's own embedder setting wins, so an index built
        with --embedder none is not rebuilt with the model behind the agent's back (a change of
        embedder is a deliberate `codebot index`)."""
        built_with = manifest.settings.get("embedder")
        if built_with and built_with != self.config.embedder:
            return self.config.replace(embedder=built_with)
        return self.config

    def _run_update(self, head: str, config: Config, embedder: Any) -> None:
        from codebot.index.update import update_index

        started = time.monotonic()
        try:
            r = update_index(self.ws, config, embedder=embedder)
        except IndexBusy:
            self.last_update = "skipped: another process (a git hook?) is writing the index"
            log.info("codebot: %s: index busy, answering from the current one", self.name)
            return
        except CodebotError as exc:
            self._failed_head = head
            self.last_update = f"failed at HEAD {head[:10]}: {exc}"
            log.warning("codebot: %s: update failed: %s", self.name, exc)
            return
        except Exception:  # noqa: BLE001 - a thread's crash must not go unseen
            self._failed_head = head
            self.last_update = f"failed at HEAD {head[:10]}: internal error (see the server log)"
            log.exception("codebot: %s: update crashed", self.name)
            return
        seconds = time.monotonic() - started
        self.last_update = (
            f"{r.action} {(r.base_commit or '-')[:10]} -> {(r.commit or '-')[:10]} in {seconds:.2f}s"
            + (f" ({r.reason})" if r.reason else "")
        )
        log.info("codebot: %s: %s", self.name, self.last_update)

    def _loaded_embedder(self, identity: dict[str, Any] | None) -> Any:
        """The embedder already loaded for the index's model ``identity``, else None."""
        if self._embedder is None or identity is None or self._embedder[0] != identity:
            return None
        return self._embedder[1]

    def searcher(self) -> Searcher:
        """A searcher over the index as the work tree sees it now, reused while it is current."""
        from codebot.index.overlay import open_index
        from codebot.query.search import Searcher

        manifest = self.manifest()
        self.catch_up(manifest)
        embedder = self._loaded_embedder(manifest.embedder)
        if embedder is None and manifest.embedder is not None:
            from codebot.query.multi import shared_embedder

            self.model, embedder = shared_embedder(self._shared, manifest.embedder, self.config)
            self._embedder = (dict(manifest.embedder), embedder)
        elif manifest.embedder is None:
            self.model = None
        view = open_index(self.ws, self.config, embedder=embedder)
        m = view.manifest
        key = (str(view.gen_dir), m.generation, m.created, m.commit, _inode(view.gen_dir))
        if self._cached is not None and self._cached[0] == key:
            return self._cached[1]
        searcher = Searcher(view, self.config, embedder=embedder)
        self._cached = (key, searcher)
        log.info("codebot: %s: serving %s (%s)", self.name, view.gen_dir, (m.commit or "-")[:10])
        return searcher

    def run(self, work: Callable[[Searcher], str]) -> str:
        """``work`` on a fresh searcher; once more on a new one if a writer deleted the
        generation under it (an update prunes old generations)."""
        with self.lock:
            searcher = self.searcher()
            try:
                return work(searcher)
            except Exception:
                if searcher.index.gen_dir.is_dir():
                    raise
            log.info("codebot: %s: %s vanished; reopening", self.name, searcher.index.gen_dir)
            self._cached = None
            return work(self.searcher())

    def status(self) -> str:
        """index_status's text for this repository (after catching up, like any other tool): the
        report of ``codebot status`` between a ``repo`` and an ``updates`` line."""
        from codebot.index.status import index_status

        lines = [f"repo      {self.name}  {self.path}"]
        try:
            manifest = self.manifest()
        except ToolError as exc:
            return "\n".join([*lines, f"index     none: {exc}"])
        with self.lock:
            self.catch_up(manifest)
            lines.append(index_status(self.ws).to_text().rstrip("\n"))
        if self._update is not None and self._update.is_alive():
            started = time.monotonic() - self._update_started
            lines.append(f"updates   one running for {started:.1f}s; last: {self.last_update}")
        else:
            lines.append(f"updates   last: {self.last_update}")
        return "\n".join(lines)


def _inode(path: Path) -> int:
    try:
        return path.stat().st_ino
    except OSError:
        return -1


# --- what each tool does, as text -----------------------------------------------------------------


def search_text(searcher: Searcher, query: str, k: int, fmt: str, tokens: int | None) -> str:
    """The graph-RAG answer: call trees then the ranked list (``tree``), the list only, markdown
    or JSON; with ``tokens``, the answer's code packed into that many tokens instead."""
    from codebot.query.answer import Answer
    from codebot.query.render import answer_doc, list_lines, markdown_text, tree_lines

    query = query.strip()
    if not query:
        raise ToolError("the query is empty: describe what you are looking for, or give a name")
    answer = searcher.answer(query, k=k)
    if tokens is not None:
        from codebot.query.context import pack_context
        from codebot.query.tokens import token_counter

        style = fmt if fmt in ("markdown", "json") else "text"
        packed = pack_context(searcher.index, answer, tokens, token_counter(), style)
        if fmt == "json":
            return json.dumps(packed.to_dict(), ensure_ascii=False)
        return packed.text
    if fmt == "json":
        return json.dumps(answer_doc(answer), ensure_ascii=False)
    if fmt == "markdown":
        return markdown_text(answer)
    if not answer.hits:
        return f"no results for {query!r}; try other words, or find_symbol for an exact name\n"
    lines: list[str] = []
    if fmt == "tree" and answer.trees:
        lines += ["call trees:", *tree_lines(Answer(query, [], answer.trees)), "", "ranked:"]
    return "\n".join(lines + list_lines(answer)) + "\n"


def search_all_text(repos: list[ServedRepo], query: str, k: int, fmt: str) -> str:
    """search_code over every served repository (``repo="*"``): each answers as it would alone,
    as the work tree sees it now, and query.multi merges the rankings; a repository that cannot
    answer (no index, a damaged one) is one ``skipped`` line, the others answer."""
    from contextlib import ExitStack

    from codebot.query.multi import Member, MultiSearcher

    query = query.strip()
    if not query:
        raise ToolError("the query is empty: describe what you are looking for, or give a name")
    with ExitStack() as held:  # every repository's lock, always in the same order
        members = []
        for r in repos:
            held.enter_context(r.lock)
            member = Member(r.name, r.path)
            try:
                member.searcher, member.model = r.searcher(), r.model
            except (ToolError, CodebotError) as exc:
                member.error = " ".join(str(exc).split())
            members.append(member)
        answer = MultiSearcher(members).answer(query, k=k, graph=fmt == "tree")
    skipped = [f"skipped {s['repo']}: {s['reason']}" for s in answer.skipped]
    if fmt == "json":
        return json.dumps(answer.to_dict(), ensure_ascii=False)
    if fmt == "markdown":
        return "\n".join([*skipped, answer.markdown_text()])
    if not answer.hits:
        return "\n".join([*skipped, f"no results for {query!r} in any served repository\n"])
    return "\n".join([*skipped, *answer.render(fmt).splitlines()]) + "\n"


def map_text(searcher: Searcher, tokens: int, focus: str | None) -> str:
    from codebot.query.repomap import repo_map
    from codebot.query.tokens import token_counter

    counter = token_counter()
    result = repo_map(searcher.index, tokens, counter, focus or None, searcher)
    head = (
        f"# {result.symbols} of {result.ranked} symbols, {result.tokens}/{tokens} tokens "
        f"({counter.name})" + (f", focus {focus!r}" if focus else "") + "\n"
    )
    return head + result.text


# --- the server -----------------------------------------------------------------------------------


def impact_text(served: ServedRepo, base: str, head: str, depth: int) -> str:
    """The compact impact report: ids, counts and path:line for an agent, no graph."""
    from codebot.query.impact import impact, impact_compact_text

    return impact_compact_text(impact(served.ws, served.config, base, head, depth))


def _pick(repos: list[ServedRepo], name: str | None) -> ServedRepo:
    if not name:
        return repos[0]
    wanted = name.rstrip("/")
    for r in repos:
        if wanted in (r.name, str(r.path), str(r.root)):
            return r
    try:
        resolved = Path(wanted).expanduser().resolve()
    except (OSError, RuntimeError):
        resolved = None
    for r in repos:
        if resolved in (r.path, r.root):
            return r
    served = ", ".join(f"{r.name} ({r.path})" for r in repos)
    raise ToolError(f"no served repository {name!r}; this server serves: {served}")


def _answer(repos: list[ServedRepo], repo: str | None, work: Callable[[Searcher], str]) -> str:
    """Run one tool's work, turning codebot's errors into tool errors a model can act on."""
    served = _pick(repos, repo)
    return _guarded(lambda: served.run(work))


def _guarded(work: Callable[[], str]) -> str:
    """``work()``, its codebot errors turned into tool errors, a bug logged and reported."""
    from codebot.core.errors import Ambiguous, NotFound

    try:
        return work()
    except ToolError:
        raise
    except Ambiguous as exc:
        raise ToolError(
            f"{exc.name!r} names {len(exc.matches)} symbols; call again with one of these ids:\n"
            f"{exc.listing()}"
        ) from exc
    except NotFound as exc:
        if exc.suggestions:
            raise ToolError(
                f"no symbol named {exc.name!r}. Nearest names (suggestions, NOT matches; check "
                f"one before using it): {', '.join(exc.suggestions)}. To search by description, "
                "use search_code."
            ) from exc
        raise ToolError(
            f"no symbol named {exc.name!r} and no close name; use search_code to search by "
            "description"
        ) from exc
    except CodebotError as exc:
        raise ToolError(scrub_environment(str(exc))) from exc
    except Exception as exc:
        log.exception("codebot: internal error")
        raise ToolError(
            f"internal error in codebot ({type(exc).__name__}: {scrub_environment(str(exc))}); the "
            "traceback is in the server's log (stderr). The server keeps running: try another "
            "tool or other arguments."
        ) from exc


def build_server(paths: list[str | Path], update_wait: float = UPDATE_WAIT) -> MCPServer:
    """The MCP server for these repositories (the first is the default one)."""
    from codebot.query import lookup

    shared: dict[str, Any] = {}
    repos = [ServedRepo(p, update_wait, shared) for p in paths]
    names = [r.name for r in repos]
    for r in repos:  # two repositories with one directory name: callers give the path
        if names.count(r.name) > 1:
            r.name = str(r.path)
    mcp: MCPServer = MCPServer("codebot", version=__version__, instructions=INSTRUCTIONS)

    @mcp.tool(title="Search code", annotations=_READ_ONLY, structured_output=False)
    def search_code(
        query: Annotated[
            str,
            Field(
                min_length=1,
                max_length=2000,
                description="What to find: a question or description ('where are retries "
                "handled'), or identifiers ('parse_config yaml').",
            ),
        ],
        k: Annotated[int, Field(ge=1, le=100, description="How many ranked symbols (1-100).")] = 10,
        format: Annotated[
            Literal["tree", "list", "markdown", "json"],
            Field(
                description="tree: call trees connecting the hits, then the ranked list "
                "(default); list: the ranked list only; markdown; json (schemas/answer)."
            ),
        ] = "tree",
        tokens: Annotated[
            int | None,
            Field(
                ge=100,
                le=100_000,
                description="Return the code itself, packed into at most this many tokens: full "
                "bodies of the best symbols, signatures for the rest. Omit for locations only.",
            ),
        ] = None,
        repo: SearchRepoArg = None,
    ) -> str:
        """Find the code that answers a question about this repository, by keywords and meaning,
        connected into call trees (each node marked [hit] ranked by search, [neighbour] a caller
        or callee of a hit, [bridge] on the call path between hits). Lists lines of
        'score path:start-end kind id'. Searches the files as they are on disk now, uncommitted
        edits included. Use this first for 'how/where does X happen'; use find_symbol when you
        already know a name. Pass an id to get_code to read one symbol. With repo='*', searches
        every served repository: lines of 'score repo path:start-end kind id'; pass that repo
        to the other tools with the id."""
        if repo is not None and repo.strip() == ALL_REPOS:
            if tokens is not None:
                raise ToolError(
                    "tokens= packs one repository's code: search with repo='*' to see which "
                    "repository answers, then call again with repo=<that name> and tokens"
                )
            return _guarded(lambda: search_all_text(repos, query, k, format))
        return _answer(repos, repo, lambda s: search_text(s, query, k, format, tokens))

    @mcp.tool(title="Find a symbol by name", annotations=_READ_ONLY, structured_output=False)
    def find_symbol(
        name: Annotated[
            str,
            Field(
                min_length=1,
                max_length=1000,
                description="An exact name: qualified id (pkg.mod.Class.method), dotted tail "
                "(Class.method) or short name (method).",
            ),
        ],
        repo: RepoArg = None,
    ) -> str:
        """Look a function, class or method up by its exact name. Lists every match as
        'path:start-end kind id signature'. A miss is an error naming the nearest existing names
        as suggestions: they are not matches, never use one without checking it."""
        return _answer(repos, repo, lambda s: lookup.find(s, name).to_text())

    @mcp.tool(title="Get a symbol's code", annotations=_READ_ONLY, structured_output=False)
    def get_code(id: IdArg, repo: RepoArg = None) -> str:
        """The source of one symbol as it is on disk now, after a '# path:start-end kind id'
        header. Cheaper than reading the whole file. An id naming several symbols is an error
        that lists them."""
        return _answer(repos, repo, lambda s: lookup.code_of(s, id).to_text(kind=True))

    @mcp.tool(title="Who calls a symbol", annotations=_READ_ONLY, structured_output=False)
    def callers(id: IdArg, depth: Depth10 = 1, repo: RepoArg = None) -> str:
        """Who calls this symbol (and, with depth > 1, who calls those): one line per caller,
        'distance id path:line call at path:line'. Check this before changing a signature or
        behaviour. Only calls resolved inside the repository; '(unique name)' marks a call
        matched by a repository-unique name, '(an override)' a caller that calls a method this
        one overrides (it runs when the receiver is of this class)."""
        return _answer(
            repos, repo, lambda s: lookup.neighbors(s, id, depth, "callers").to_text(_MAX_LINES)
        )

    @mcp.tool(title="What a symbol calls", annotations=_READ_ONLY, structured_output=False)
    def callees(id: IdArg, depth: Depth10 = 1, repo: RepoArg = None) -> str:
        """What this symbol calls inside the repository (and, with depth > 1, what those call):
        one line per callee, 'distance id path:line call at path:line'. Calls into libraries
        and builtins are not listed."""
        return _answer(
            repos, repo, lambda s: lookup.neighbors(s, id, depth, "callees").to_text(_MAX_LINES)
        )

    @mcp.tool(
        title="Execution tree below a symbol", annotations=_READ_ONLY, structured_output=False
    )
    def call_chain(
        id: IdArg,
        depth: Annotated[int, Field(ge=1, le=20, description="How deep to expand (1-20).")] = 4,
        repo: RepoArg = None,
    ) -> str:
        """The execution tree below a symbol: what it calls in call order, what those call, and
        so on, one 'name path:line' per node. '(cycle)' marks recursion, '(see above)' a function
        already expanded. Use it to understand a workflow end to end."""
        return _answer(repos, repo, lambda s: lookup.call_chain(s, id, depth).to_text(_MAX_LINES))

    @mcp.tool(title="Repository map", annotations=_READ_ONLY, structured_output=False)
    def repo_map(
        tokens: Annotated[
            int, Field(ge=100, le=32_000, description="Token budget for the map.")
        ] = 1024,
        focus: Annotated[
            str | None,
            Field(
                max_length=2000,
                description="A file or directory (its surroundings), or a query (its hits); "
                "omit for the whole repository.",
            ),
        ] = None,
        repo: RepoArg = None,
    ) -> str:
        """A map of the repository for orientation: the most important signatures (PageRank on
        the call graph, personalised to focus), grouped under 'path:' headers with line numbers,
        as many as fit in tokens."""
        return _answer(repos, repo, lambda s: map_text(s, tokens, focus))

    @mcp.tool(title="Impact of a range of commits", annotations=_READ_ONLY, structured_output=False)
    def impact(
        base: Annotated[
            str,
            Field(
                min_length=1,
                max_length=200,
                description="The older end: a commit, branch or tag (main, HEAD~3, a sha).",
            ),
        ],
        head: Annotated[
            str, Field(min_length=1, max_length=200, description="The newer end.")
        ] = "HEAD",
        depth: Depth10 = 2,
        repo: RepoArg = None,
    ) -> str:
        """What the commits base..head touch beyond their diff, in short: each definition they
        add, modify, delete or rename (path:line, lines changed, signature changes), how many
        callers, entry points and tests reach it ('NO TEST' only when that is known, else why
        no test was found), and what still calls or imports removed code. Use it to review a
        change or to check what an edit you committed may break."""
        served = _pick(repos, repo)
        return _answer(repos, repo, lambda s: impact_text(served, base, head, depth))

    @mcp.tool(title="Index status", annotations=_READ_ONLY, structured_output=False)
    def index_status(repo: RepoArg = None) -> str:
        """What the index of each served repository holds: its commit against HEAD, counts, the
        embedder, which uncommitted files are served from the work tree, and the last update.
        Without repo, every served repository."""
        chosen = [_pick(repos, repo)] if repo else repos
        try:
            return "\n\n".join(r.status() for r in chosen) + "\n"
        except ToolError:
            raise
        except CodebotError as exc:
            raise ToolError(str(exc)) from exc

    for r in repos:
        log.info("codebot mcp: serving %s (index in %s)", r.path, r.index_dir)
    return mcp


def serve(paths: list[str | Path], update_wait: float = UPDATE_WAIT) -> None:
    """Serve over stdio until the client closes stdin."""
    build_server(paths, update_wait).run()

"""Ranking a reader agrees with, on snippets of real projects (click 8.2 and flask 3.1, trimmed):
a qualified name puts its definition first, implementations come before their stubs and tests,
documentation waits unless the question asks for it, and a question's words in a file's name
lift that file. Each signal of ``Searcher`` can be switched off (the ablation benchmark does)."""

from __future__ import annotations

import pytest

from codebot.core.config import Config
from codebot.core.errors import CodebotError
from codebot.index.overlay import open_index
from codebot.query.search import DEFAULT_SIGNALS, Searcher
from codebot.query.signals import (
    QualifiedName,
    asks_for_docs,
    asks_for_tests,
    path_keywords,
    path_match_ratio,
    qualified_name,
)

CLICK_CORE = '''
import typing as t

V = t.TypeVar("V")


class Context:
    """The context is a special internal object that holds state relevant
    for the script execution at every single level."""

    def __init__(self, command, parent=None, info_name=None):
        self.command = command
        self.parent = parent
        self.info_name = info_name

    @t.overload
    def invoke(
        self, callback: t.Callable[..., V], /, *args: t.Any, **kwargs: t.Any
    ) -> V: ...

    @t.overload
    def invoke(self, callback: Command, /, *args: t.Any, **kwargs: t.Any) -> t.Any: ...

    def invoke(
        self, callback: Command | t.Callable[..., V], /, *args: t.Any, **kwargs: t.Any
    ) -> t.Any | V:
        """Invokes a command callback in exactly the way it expects."""
        if isinstance(callback, Command):
            other_cmd = callback
            callback = other_cmd.callback
            ctx = self._make_sub_context(other_cmd)
        else:
            ctx = self
        with ctx:
            return callback(*args, **kwargs)


class Command:
    """Commands are the basic building block of command line interfaces in
    Click.  A basic command handles command line parsing and might dispatch
    more parsing to commands nested below it."""

    def __init__(self, name, callback=None, params=None):
        self.name = name
        self.callback = callback
        self.params = params or []

    def invoke(self, ctx: Context) -> t.Any:
        """Given a context, this invokes the attached callback (if it exists)
        in the right way."""
        if self.callback is not None:
            return ctx.invoke(self.callback, **ctx.params)


class Group(Command):
    """A group is a command that nests other commands (or more groups)."""

    def __init__(self, name=None, commands=None, **kwargs):
        super().__init__(name, **kwargs)
        self.commands = dict(commands or {})

    @t.overload
    def group(self, __func: t.Callable[..., t.Any]) -> Group: ...

    @t.overload
    def group(self, *args: t.Any, **kwargs: t.Any) -> t.Callable[[t.Callable[..., t.Any]], Group]: ...

    def group(self, *args: t.Any, **kwargs: t.Any):
        """A shortcut decorator for declaring and attaching a group to
        the group. The group invoke callback is set up for it."""
        from .decorators import group

        def decorator(f):
            cmd = group(*args, **kwargs)(f)
            self.commands[cmd.name] = cmd
            return cmd

        return decorator

    def invoke(self, ctx: Context) -> t.Any:
        def _process_result(value: t.Any) -> t.Any:
            return value

        cmd_name, cmd, args = self.resolve_command(ctx, ctx.protected_args)
        with cmd.make_context(cmd_name, args, parent=ctx) as sub_ctx:
            return _process_result(sub_ctx.command.invoke(sub_ctx))
'''

CLICK_TESTING = '''
class CliRunner:
    """The CLI runner provides functionality to invoke a Click command line
    script for unittesting purposes in a isolated environment."""

    def invoke(self, cli, args=None, input=None, env=None, catch_exceptions=True):
        """Invokes a command in an isolated environment.  The arguments are
        forwarded directly to the command line script."""
        with self.isolation(input=input, env=env) as outstreams:
            return cli.main(args=args or (), prog_name=self.get_default_prog_name(cli))
'''

FLASK_APP = '''
class Flask:
    """The flask object implements a WSGI application and acts as the central
    object."""

    def __init__(self, import_name: str):
        self.import_name = import_name

    def run(self, host=None, port=None, debug=None, load_dotenv=True, **options):
        """Runs the application on a local development server."""
        from werkzeug.serving import run_simple

        run_simple(host or "127.0.0.1", port or 5000, self, **options)
'''

FLASK_SESSIONS = '''
class SecureCookieSessionInterface:
    """The default session interface that stores sessions in signed cookies
    through the :mod:`itsdangerous` module."""

    salt = "cookie-session"

    def get_signing_serializer(self, app):
        """Return the serializer that signs the session cookie with the secret key."""
        if not app.secret_key:
            return None
        return URLSafeTimedSerializer(app.secret_key, salt=self.salt)

    def open_session(self, app, request):
        """Load the session from the signed cookie of the request."""
        s = self.get_signing_serializer(app)
        val = request.cookies.get(self.get_cookie_name(app))
        return self.session_class(s.loads(val))
'''

FLASK_TYPES_STUB = '''
def make_response(*args: object) -> Response:
    """Convert the return value of a view into a response object."""
    ...
'''

FLASK_HELPERS = '''
def make_response(*args):
    """Convert the return value of a view into a response object,
    to add headers to it before returning it."""
    if not args:
        return current_app.response_class()
    return current_app.make_response(args[0] if len(args) == 1 else args)
'''

FLASK_TEST = '''
def test_make_response(app, req_ctx):
    """make_response converts the return value of a view into a response object."""
    rv = flask.helpers.make_response()
    assert rv.status_code == 200
    rv = flask.helpers.make_response("Hello")
    assert rv.data == b"Hello"
'''

FLASK_DOCS = """
# Sessions

Flask signs the session cookie with the secret key: the session interface
loads the session from the signed cookie and saves it back into the cookie.
"""

REQUESTS_SESSIONS = '''
class Session:
    """A Requests session.

    Provides cookie persistence, connection-pooling, and configuration.
    """

    def __init__(self):
        self.headers = default_headers()
        self.cookies = cookiejar_from_dict({})


def session():
    """Returns a :class:`Session` for context-management.

    .. deprecated:: 1.0.0

        This method has been deprecated since version 1.0.0 and is only kept for
        backwards compatibility. New code should use :class:`~requests.sessions.Session`
        to create a session. This may be removed at a future date.
    """
    return Session()
'''

REPO = {
    "src/requests/sessions.py": REQUESTS_SESSIONS,
    "src/click/core.py": CLICK_CORE,
    "src/click/testing.py": CLICK_TESTING,
    "src/flask/app.py": FLASK_APP,
    "src/flask/sessions.py": FLASK_SESSIONS,
    "src/flask/helpers.py": FLASK_HELPERS,
    "src/flask/helpers.pyi": FLASK_TYPES_STUB,
    "tests/test_helpers.py": FLASK_TEST,
    "docs/sessions.md": FLASK_DOCS,
}


@pytest.fixture(scope="module")
def repo(tmp_path_factory):
    from .conftest import indexed_snippets

    return indexed_snippets(tmp_path_factory.mktemp("projects"), REPO)


def searcher(repo, signals=None) -> Searcher:
    root, embedder = repo
    return Searcher(open_index(root, Config()), Config(), embedder=embedder, signals=signals)


def first(repo, query: str, mode: str, signals=None) -> str:
    return searcher(repo, signals).search(query, k=5, mode=mode)[0].id


@pytest.mark.parametrize("mode", ["hybrid", "bm25"])
@pytest.mark.parametrize(
    "query,expected",
    [
        # The method, not Group.group (its name and its class both match the words).
        ("Group.invoke", "src.click.core.Group.invoke"),
        # Context's own method (its implementation, after two @overload signatures), never
        # Command.invoke, whose docstring says "invokes" twice.
        ("Context.invoke", "src.click.core.Context.invoke#3"),
        ("Context.invoke()", "src.click.core.Context.invoke#3"),
        ("Command.invoke", "src.click.core.Command.invoke"),
        ("CliRunner.invoke", "src.click.testing.CliRunner.invoke"),
        ("click.core.Group.invoke", "src.click.core.Group.invoke"),
        # Path-qualified: the file, then the name in it.
        ("src/click/core.py:Group.invoke", "src.click.core.Group.invoke"),
        ("core.py:Context.invoke", "src.click.core.Context.invoke#3"),
        ("flask/app.py:Flask.run", "src.flask.app.Flask.run"),
        # A module, then the name.
        ("app.Flask", "src.flask.app.Flask"),
        ("flask.app:Flask", "src.flask.app.Flask"),
    ],
)
def test_an_exact_qualified_name_is_first(repo, query, expected, mode):
    assert first(repo, query, mode) == expected


@pytest.mark.parametrize("mode", ["hybrid", "bm25"])
def test_a_name_written_as_code_names_its_definition_case_and_all(repo, mode):
    """``Session`` is the class, though the function ``session`` says "session" five times."""
    assert first(repo, "Session", mode) == "src.requests.sessions.Session"
    assert first(repo, "session", mode) == "src.requests.sessions.session"


def test_a_qualified_name_lists_its_overloads_after_the_implementation(repo):
    ids = [h.id for h in searcher(repo).search("Context.invoke", k=3, mode="hybrid")]
    assert ids[0] == "src.click.core.Context.invoke#3"
    assert set(ids[1:]) == {"src.click.core.Context.invoke", "src.click.core.Context.invoke#2"}


def test_without_the_signal_the_qualified_name_is_not_first(repo):
    """What the signal changes: fusion alone ranks Group.group above Group.invoke (the issue's
    report on click itself) or Command.invoke above Context.invoke."""
    without = DEFAULT_SIGNALS - {"qualified"}
    assert first(repo, "Context.invoke", "bm25", without) != "src.click.core.Context.invoke#3"


@pytest.mark.parametrize("mode", ["hybrid", "bm25"])
def test_the_implementation_comes_before_its_stub_and_its_test(repo, mode):
    query = "convert a view return value into a response object"
    ids = [h.id for h in searcher(repo).search(query, k=10, mode=mode)]
    impl = ids.index("src.flask.helpers.py.make_response")
    assert impl < ids.index("src.flask.helpers.pyi.make_response")
    test = "tests.test_helpers.test_make_response"
    assert test not in ids or impl < ids.index(test)
    # Without the signal, the stub and the test are only mildly behind (the test by 0.7).
    plain = searcher(repo, DEFAULT_SIGNALS - {"impl_first"}).search(query, k=10, mode=mode)
    scores = {h.id: h.score for h in plain}
    stub_share = scores["src.flask.helpers.pyi.make_response"] / scores[ids[impl]]
    with_signal = {h.id: h.score for h in searcher(repo).search(query, k=10, mode=mode)}
    assert with_signal["src.flask.helpers.pyi.make_response"] / with_signal[ids[impl]] < stub_share


def test_a_question_about_tests_gets_its_tests(repo):
    ids = [h.id for h in searcher(repo).search("test of make_response", k=2, mode="bm25")]
    assert "tests.test_helpers.test_make_response" in ids


@pytest.mark.parametrize("mode", ["hybrid", "bm25"])
def test_documentation_waits_unless_the_question_asks_for_it(repo, mode):
    s = searcher(repo)
    code = [h.path for h in s.search("session signed cookie secret key", k=10, mode=mode)]
    assert code[0].startswith("src/")
    assert "docs/sessions.md" not in code or code.index("docs/sessions.md") > code.index(
        "src/flask/sessions.py"
    )
    asked = [h.path for h in s.search("documentation of the session cookie", k=5, mode=mode)]
    assert "docs/sessions.md" in asked


def test_a_file_named_by_the_question_is_lifted(repo):
    """ "sessions" names sessions.py: its definitions come first for a question about them."""
    hits = searcher(repo).search("how are sessions loaded", k=3, mode="bm25")
    assert hits[0].path == "src/flask/sessions.py"


def test_unknown_signals_are_refused(repo):
    with pytest.raises(CodebotError, match="unknown ranking signal"):
        searcher(repo, frozenset({"qualified", "magic"}))


@pytest.mark.parametrize(
    "query,expected",
    [
        ("Group.invoke", QualifiedName(("Group", "invoke"))),
        ("Sinatra::Base", QualifiedName(("Sinatra", "Base"))),
        ("Monolog\\Logger", QualifiedName(("Monolog", "Logger"))),
        ("Logger->pushHandler", QualifiedName(("Logger", "pushHandler"))),
        ("flask/app.py:Flask.run", QualifiedName(("Flask", "run"), "flask/app.py")),
        ("app.py:Flask", QualifiedName(("Flask",), "app.py")),
        ("flask.app:Flask", QualifiedName(("flask", "app", "Flask"))),
        ("Context.invoke()", QualifiedName(("Context", "invoke"))),
        ("Helpers.not_found?", QualifiedName(("Helpers", "not_found?"))),
        ("Base.compile!", QualifiedName(("Base", "compile!"))),
        ("AcceptEntry.<=>", QualifiedName(("AcceptEntry", "<=>"))),
        ("a!.b", None),
        ("invoke", None),
        ("how does Group.invoke work", None),
        ("src/click/core.py", None),
        ("", None),
    ],
)
def test_qualified_names_are_read_across_languages(query, expected):
    assert qualified_name(query) == expected


def test_a_qualified_name_matches_ids_by_their_tail():
    q = QualifiedName(("Group", "invoke"))
    assert q.matches("src.click.core.Group.invoke", "src/click/core.py") == 2
    assert q.matches("src.click.core.Group.invoke#2", "src/click/core.py") == 2
    assert q.matches("src.click.core.Command.invoke", "src/click/core.py") == 0
    assert q.matches("src.click.core.Group.group", "src/click/core.py") == 0
    # Qualifiers in order but apart (PHP's namespace over a file named like its class).
    php = QualifiedName(("Monolog", "Logger"))
    assert php.matches("src.Monolog.Logger.Logger", "src/Monolog/Logger.php") == 1
    assert QualifiedName(("Flask", "run"), "flask/app.py").matches(
        "src.flask.app.Flask.run", "src/flask/app.py"
    )
    assert not QualifiedName(("Flask", "run"), "flask/app.py").matches(
        "src.flask.sansio.app.Flask.run", "src/flask/sansio/app.py"
    )
    assert not QualifiedName(("Flask", "run"), "ask/app.py").matches(
        "src.flask.app.Flask.run", "src/flask/app.py"
    )


def test_what_a_question_asks_for():
    assert asks_for_docs("where is the changelog for 8.0")
    assert asks_for_docs("example of a nested group")
    assert not asks_for_docs("how are environment variables mapped to options")
    assert asks_for_tests("where is shell completion tested")
    assert not asks_for_tests("where is shell completion for bash generated")


def test_path_words_match_forms_of_one_word():
    keywords = path_keywords("routing HTTP requests to controllers")
    assert keywords == frozenset({"routing", "http", "requests", "controllers"})
    assert path_match_ratio(keywords, "src/Illuminate/Routing/Router.php") == 0.25
    assert path_match_ratio(keywords, "src/Routing/ControllerDispatcher.php") == 0.5
    assert path_match_ratio(keywords, "src/Auth/Guard.php") == 0.0
    assert path_match_ratio(frozenset({"dependency"}), "fastapi/dependencies/utils.py") == 1.0

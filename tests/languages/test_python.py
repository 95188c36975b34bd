from codebot.core.model import Import, Parameter

SOURCE = '''
"""Module docstring."""
import os, a.b as c
from ..pkg.mod import y as z, w
from . import sibling
from m import *

LIMIT = 10


@cache
@app.route("/items")
async def fetch(url: str, retries: int = 3, *args, **kw) -> bytes:
    """Fetch a URL.

    Retries on failure.
    """
    def attempt():
        return os.path.join(url)
    return await client.get(url).read()


class Repo(Base, mixins.Loggable, metaclass=Meta):
    """A repository."""

    kind: str = "git"

    def __init__(self, path):
        super().__init__()
        self.path = path
        self._load()

    @property
    def name(self):
        return self.path

    @name.setter
    def name(self, value):
        self.path = value

    @staticmethod
    def parse(text, /, *, strict=False):
        return text

    class Config:
        def validate(self):
            return check(self)


if __name__ == "__main__":
    fetch("x")
'''


def test_definitions_ids_kinds_lines(parse):
    p = parse("python", "src/pkg/repo.py", SOURCE)
    assert p.ids == [
        "src.pkg.repo.LIMIT",
        "src.pkg.repo.fetch",
        "src.pkg.repo.fetch.attempt",
        "src.pkg.repo.Repo",
        "src.pkg.repo.Repo.__init__",
        "src.pkg.repo.Repo.name",
        "src.pkg.repo.Repo.name#2",
        "src.pkg.repo.Repo.parse",
        "src.pkg.repo.Repo.Config",
        "src.pkg.repo.Repo.Config.validate",
    ]
    fetch = p["src.pkg.repo.fetch"]
    assert (fetch.kind, fetch.start_line, fetch.end_line) == ("function", 10, 19)
    assert fetch.decorators == ("cache", 'app.route("/items")')
    assert fetch.docstring == "Fetch a URL.\n\nRetries on failure."
    assert fetch.return_type == "bytes"
    assert fetch.parameters == (
        Parameter("url", "str"),
        Parameter("retries", "int", "3"),
        Parameter("*args"),
        Parameter("**kw"),
    )
    assert fetch.signature.startswith('@cache @app.route("/items") async def fetch(url: str')
    attempt = p["src.pkg.repo.fetch.attempt"]
    assert (attempt.kind, attempt.parent, attempt.class_name) == ("function", fetch.id, None)
    assert p.calls("src.pkg.repo.fetch.attempt") == ["os.path.join"]
    assert "client.get(url).read" in p.calls("src.pkg.repo.fetch")


def test_classes_methods_bases(parse):
    p = parse("python", "src/pkg/repo.py", SOURCE)
    repo = p["src.pkg.repo.Repo"]
    assert repo.kind == "class"
    assert repo.bases == ("Base", "mixins.Loggable")
    assert repo.docstring == "A repository."
    init = p["src.pkg.repo.Repo.__init__"]
    assert (init.kind, init.class_name, init.parent) == ("method", "Repo", repo.id)
    assert p.calls(init.id) == ["super().__init__", "super", "self._load"]
    assert p["src.pkg.repo.Repo.name"].decorators == ("property",)
    assert p["src.pkg.repo.Repo.name#2"].decorators == ("name.setter",)
    assert [x.name for x in p["src.pkg.repo.Repo.parse"].parameters] == ["text", "/", "*", "strict"]
    validate = p["src.pkg.repo.Repo.Config.validate"]
    assert (validate.kind, validate.class_name) == ("method", "Config")


def test_imports(parse):
    p = parse("python", "src/pkg/repo.py", SOURCE)
    assert p.imports == [
        Import("os", line=2),
        Import("a.b", alias="c", line=2),
        Import("pkg.mod", "y", "z", level=2, line=3),
        Import("pkg.mod", "w", level=2, line=3),
        Import("", "sibling", level=1, line=4),
        Import("m", "*", line=5),
    ]


def test_module_code_becomes_chunks(parse):
    p = parse("python", "src/pkg/repo.py", SOURCE)
    chunks = [s for s in p.result.symbols if s.kind == "chunk"]
    assert [(c.id, c.start_line, c.end_line) for c in chunks] == [
        ("src.pkg.repo.<module>", 1, 5),
        ("src.pkg.repo.<module>#2", 49, 50),
    ]


# click's shell_completion.py and flask's globals.py, cut down.
NAMES = '''
import typing as t

_SOURCE_BASH = """\\
%(complete_func)s() {
    local IFS=$'\\n'
}
"""
_app_ctx_err_msg: str = "Working outside of application context."
current_app = LocalProxy(_cv_app, "app", unbound_message=_app_ctx_err_msg)
a, b = 1, 2
os.environ["X"] = "1"
__all__ = ["current_app"]


def get_completion_class(shell):
    LOCAL = 1
    return _available_shells.get(shell)


get_completion_class = cached(get_completion_class)


class Shell:
    NAME = "bash"
'''


def test_module_names_are_constants_and_variables(parse):
    p = parse("python", "src/click/shell_completion.py", NAMES)
    kinds = {s.id: s.kind for s in p.result.symbols if s.kind != "chunk"}
    m = "src.click.shell_completion"
    assert kinds == {
        f"{m}._SOURCE_BASH": "constant",
        f"{m}._app_ctx_err_msg": "variable",
        f"{m}.current_app": "variable",
        f"{m}.__all__": "variable",
        f"{m}.get_completion_class": "function",
        # Rebinding a function's name never takes the function's id.
        f"{m}.get_completion_class#2": "variable",
        f"{m}.Shell": "class",
    }
    bash = p[f"{m}._SOURCE_BASH"]
    assert (bash.start_line, bash.end_line, bash.signature) == (3, 7, '_SOURCE_BASH = """\\')
    assert p.calls(f"{m}.current_app") == ["LocalProxy"]
    assert p[f"{m}._app_ctx_err_msg"].signature.startswith("_app_ctx_err_msg: str = ")
    # What binds no one plain name stays in a chunk; so do the lines between definitions.
    chunks = [(s.start_line, s.end_line) for s in p.result.symbols if s.kind == "chunk"]
    assert chunks == [(1, 1), (10, 11)]


def test_package_init_is_the_package(parse):
    p = parse("python", "pkg/__init__.py", "def f():\n    pass\n")
    assert p.ids == ["pkg.f"]


RECURSIVE = """
def apply(func, n):
    g = func
    if n:
        return apply(g, n - 1)
    g()
    return func()


def greet():
    pass


def run():
    apply(greet, 3)
"""


def test_values_through_a_cycle_of_calls(parse):
    # apply passes its own parameter on to itself: while apply's callers are read for ``func``,
    # ``g`` (= func) is asked for again, inside the cycle, and finds nothing there; the calls
    # ``g()`` and ``func()`` still get what run passes (values are memoised per file, and what a
    # cycle cut short is not kept).
    p = parse("python", "m.py", RECURSIVE)
    assert p.calls("m.apply") == ["apply", "(g = greet)", "(func = greet)"]

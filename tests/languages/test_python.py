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
        ("src.pkg.repo.<module>", 1, 7),
        ("src.pkg.repo.<module>#2", 49, 50),
    ]


def test_package_init_is_the_package(parse):
    p = parse("python", "pkg/__init__.py", "def f():\n    pass\n")
    assert p.ids == ["pkg.f"]

"""The command line as a user runs it: real processes, real repositories."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import click
import pytest
from click.testing import CliRunner

from codebot.serve.cli import main

SAMPLE = {
    "shop/orders.py": '''
"""Orders."""
from .payments import charge


class OrderService:
    """Places orders."""

    def place(self, order_id: int, express: bool = False) -> bool:
        """Place an order and charge for it."""
        return charge(order_id)
''',
    "shop/payments.py": "def charge(order_id):\n    return True\n",
    "README.md": "# Shop\n\nA small shop.\n",
}


def run(*args: str, cwd=None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "codebot.serve.cli", *args], capture_output=True, text=True, cwd=cwd
    )


def test_parse_json_follows_the_schema(make_repo, validate):
    repo = make_repo(SAMPLE)
    out = run("parse", str(repo), "--json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    validate(data, "parse.schema.json")
    for f in data["files"]:
        for symbol in f["symbols"]:
            validate(symbol, "symbol.schema.json")
    place = next(
        s
        for f in data["files"]
        for s in f["symbols"]
        if s["id"] == "shop.orders.OrderService.place"
    )
    assert place["parameters"][1:] == [
        {"name": "order_id", "type": "int", "default": None},
        {"name": "express", "type": "bool", "default": "False"},
    ]
    assert place["calls"] == [{"name": "charge", "line": 11}]
    assert data["counts"]["files"] == 3


def test_parse_text_lists_symbols_and_summarises_on_stderr(make_repo):
    repo = make_repo({**SAMPLE, "logo.png": b"\x89PNG\x00\x00"})
    out = run("parse", ".", cwd=repo)
    assert out.returncode == 0
    assert "shop/orders.py:6-11  class     shop.orders.OrderService" in out.stdout
    assert "3 files" in out.stderr
    assert "skipped logo.png: binary" in out.stderr


def test_missing_path_is_a_usage_error(tmp_path):
    out = run("parse", str(tmp_path / "nope"))
    assert out.returncode == 2
    assert "does not exist" in out.stderr


def test_unknown_setting_is_an_error_naming_the_key(make_repo):
    repo = make_repo({"a.py": "x = 1\n", ".codebot.toml": "max_file_byte = 10\n"})
    out = run("parse", str(repo))
    assert out.returncode == 1
    assert "unknown setting 'max_file_byte'" in out.stderr
    assert ".codebot.toml" in out.stderr


def _commands(group: click.Group, prefix=()):
    for name, cmd in group.commands.items():
        yield (*prefix, name)
        if isinstance(cmd, click.Group):
            yield from _commands(cmd, (*prefix, name))


@pytest.mark.parametrize("command", [(), *_commands(main)])
def test_every_command_has_help(command):
    result = CliRunner().invoke(main, [*command, "--help"])
    assert result.exit_code == 0
    assert "Usage:" in result.output
    cmd = main
    for name in command:
        cmd = cmd.commands[name]
    assert cmd.help, f"{' '.join(command)} has no help text"


def test_cli_import_stays_light():
    code = (
        "import sys, codebot.serve.cli; heavy = [m for m in ('tree_sitter', 'numpy', 'networkx', 'httpx',"
        " 'pygit2', 'tantivy', 'usearch', 'onnxruntime', 'tqdm') if m in sys.modules]; print(heavy)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_index_opens_the_repository_once(make_repo, monkeypatch):
    """The workspace is found once at the edge: nothing below opens the repository again."""
    import pygit2

    opened = []

    class Counting(pygit2.Repository):
        def __init__(self, *args, **kwargs):
            opened.append(args)
            super().__init__(*args, **kwargs)

    repo = make_repo(SAMPLE)
    (repo / "shop/payments.py").write_text("def charge(order_id):\n    return False\n")  # dirty
    monkeypatch.setattr(pygit2, "Repository", Counting)
    monkeypatch.chdir(repo)
    result = CliRunner().invoke(main, ["index", "--embedder", "none"])
    assert result.exit_code == 0, result.output
    assert len(opened) == 1


# Every command that reads an index, with the arguments it needs before [PATH].
READERS = [
    ("status",),
    ("search", "charge"),
    ("find", "charge"),
    ("show", "charge"),
    ("callers", "charge"),
    ("callees", "OrderService.place"),
    ("chain", "OrderService.place"),
    ("entrypoints",),
    ("stats",),
    ("map",),
    ("context", "charge"),
    ("graph", "export"),
    ("impact", "HEAD"),
    ("update",),
    ("pack", "-o", "{tmp}"),
]


@pytest.fixture(scope="module")
def indexed(tmp_path_factory):
    from codebot.core.config import Config
    from codebot.index.build import build_index

    from .conftest import git, write_files

    repo = tmp_path_factory.mktemp("readers") / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    write_files(repo, SAMPLE)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "initial")
    build_index(repo, Config(embedder="none"))
    return repo


@pytest.mark.parametrize("args", READERS, ids=lambda a: " ".join(a[:2]))
def test_every_index_reading_command_takes_a_path(args, indexed, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # elsewhere: no repository, no index here
    args = [a.replace("{tmp}", str(tmp_path)) for a in args]
    result = CliRunner().invoke(main, [*args, str(indexed)])
    assert result.exit_code == 0, result.output
    if args[0] not in ("status", "stats", "update", "pack", "impact"):
        assert "shop" in result.output  # answered from the index at PATH


def test_search_with_batch_takes_a_path_alone(indexed, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "q.txt").write_text("charge\n")
    result = CliRunner().invoke(main, ["search", "--batch", "q.txt", str(indexed)])
    assert result.exit_code == 0, result.output
    assert json.loads(result.output.splitlines()[0])["query"] == "charge"


def test_an_ambiguous_name_lists_the_symbols_it_names(make_repo, monkeypatch):
    from codebot.core.config import Config
    from codebot.index.build import build_index

    repo = make_repo({**SAMPLE, "shop/refunds.py": "def charge(order_id):\n    return 0\n"})
    build_index(repo, Config(embedder="none"))
    out = run("show", "charge", str(repo))
    assert out.returncode == 1
    assert "'charge' names 2 symbols; give one id:" in out.stderr
    assert "  shop.payments.charge  shop/payments.py:1-2" in out.stderr


def test_an_overload_set_is_one_symbol(make_repo):
    """click's `Context.invoke`: two @overload stubs, then the implementation (issue 21)."""
    from codebot.core.config import Config
    from codebot.index.build import build_index

    code = (
        "from typing import overload\n\n\n"
        "class Context:\n"
        "    @overload\n    def invoke(self, cb: int) -> int: ...\n"
        "    @overload\n    def invoke(self, cb: str) -> str: ...\n"
        "    def invoke(self, cb):\n        return self.forward(cb)\n\n"
        "    def forward(self, cb):\n        return cb\n\n\n"
        "class Command:\n    def main(self, ctx: Context):\n        return ctx.invoke(1)\n"
    )
    repo = make_repo({"core.py": code})
    build_index(repo, Config(embedder="none"))
    found = run("find", "Context.invoke", str(repo))
    assert found.returncode == 0, found.stderr
    for sid in ("core.Context.invoke ", "core.Context.invoke#2", "core.Context.invoke#3"):
        assert sid in found.stdout
    shown = run("show", "Context.invoke", str(repo))
    assert shown.returncode == 0, shown.stderr
    assert "return self.forward(cb)" in shown.stdout and "..." not in shown.stdout
    assert "an overload set of 3: shown its implementation" in shown.stdout
    chain = run("chain", "Command.main", "--depth", "3", str(repo))
    assert (
        "Context.invoke  core.py:9\n    └── Context.forward" in chain.stdout
    )  # the implementation
    callers = run("callers", "core.Context.invoke", str(repo))
    assert "Command.main" in callers.stdout, callers.stdout


def test_java_overloads_are_all_found_and_callers_land_on_the_member(make_repo):
    """gson's `TypeToken.get(Type)` and `get(Class<T>)` (issue 21): `find` lists both, `show`
    asks which, and each member's callers are the calls its arguments fit."""
    from codebot.core.config import Config
    from codebot.index.build import build_index

    token = (
        "package com.google.gson.reflect;\n"
        "import java.lang.reflect.Type;\n"
        "public class TypeToken<T> {\n"
        "    public static TypeToken<?> get(Type type) { return null; }\n"
        "    public static <T> TypeToken<T> get(Class<T> type) { return null; }\n"
        "}\n"
    )
    gson = (
        "package com.google.gson;\n"
        "import com.google.gson.reflect.TypeToken;\n"
        "import java.lang.reflect.Type;\n"
        "public final class Gson {\n"
        "    public Object fromJson(String json, Class<?> classOfT) {\n"
        "        return TypeToken.get(classOfT);\n"
        "    }\n"
        "    public Object fromJson(String json, Type typeOfT) {\n"
        "        return TypeToken.get(typeOfT);\n"
        "    }\n"
        "}\n"
    )
    repo = make_repo(
        {
            "src/main/java/com/google/gson/reflect/TypeToken.java": token,
            "src/main/java/com/google/gson/Gson.java": gson,
        }
    )
    build_index(repo, Config(embedder="none"))
    found = run("find", "TypeToken.get", str(repo))
    assert found.returncode == 0, found.stderr
    assert "TypeToken.TypeToken.get  public static TypeToken<?> get(Type type)" in found.stdout
    assert "TypeToken.TypeToken.get#2  public static <T> TypeToken<T> get(Class<T>" in found.stdout
    shown = run("show", "TypeToken.get", str(repo))
    assert shown.returncode != 0 and "names 2 symbols" in shown.stderr
    m = "src.main.java.com.google.gson.reflect.TypeToken.TypeToken"
    by_type = run("callers", f"{m}.get", str(repo))
    by_class = run("callers", f"{m}.get#2", str(repo))
    assert "Gson.java:9" in by_type.stdout and "Gson.java:6" not in by_type.stdout
    assert "Gson.java:6" in by_class.stdout and "Gson.java:9" not in by_class.stdout


def test_callers_of_a_decorator_list_who_applies_it(make_repo):
    from codebot.core.config import Config
    from codebot.index.build import build_index

    from .test_resolve import SCAFFOLD

    repo = make_repo({p: textwrap.dedent(c).lstrip("\n") for p, c in SCAFFOLD.items()})
    build_index(repo, Config(embedder="none"))
    callers = run("callers", "setupmethod", str(repo))
    assert callers.returncode == 0, callers.stderr
    assert "flask.app.App " in callers.stdout and "(decorates)" in callers.stdout
    callees = run("callees", "add_template_filter", str(repo))
    assert "setupmethod" not in callees.stdout


def _stderr_on_a_terminal(*args: str) -> str:
    """Run codebot with its stderr on a pseudo-terminal; what it wrote there."""
    import fcntl
    import pty
    import struct
    import termios

    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 100, 0, 0))  # 24x100
    subprocess.run(
        [sys.executable, "-m", "codebot", *args], stderr=slave, stdout=subprocess.DEVNULL
    )
    os.close(slave)
    data = b""
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:  # EIO: the terminal's other end is closed and drained
            break
        if not chunk:
            break
        data += chunk
    os.close(master)
    return data.decode(errors="replace")


def test_progress_bars_on_a_terminal_only_and_quiet_silences_them(make_repo):
    repo = make_repo(SAMPLE)
    shown = _stderr_on_a_terminal("index", "--embedder", "none", str(repo))
    assert "parsing" in shown and "3/3" in shown and "file/s" in shown  # count, rate (tqdm)
    quiet = _stderr_on_a_terminal("--quiet", "index", "--embedder", "none", str(repo))
    assert "indexed 3 files" not in quiet  # the report goes to stdout
    assert "file/s" not in quiet and "3/3" not in quiet
    piped = run("index", "--embedder", "none", str(repo))  # stderr is a pipe: no bar
    assert piped.returncode == 0 and "file/s" not in piped.stderr


# click's shell_completion.py, cut down: module-level names are symbols (issue 21).
COMPLETION = {
    "src/click/shell_completion.py": '''
import os

_SOURCE_BASH = """\\
%(complete_func)s() {
    local IFS=$'\\\\n'
    COMPREPLY=()
}
"""
_available_shells = {"bash": "BashComplete"}


def get_completion_class(shell):
    """Look up a registered completion class."""
    return _available_shells.get(shell)


get_completion_class = cached(get_completion_class)
''',
}


def test_module_level_names_are_found_shown_and_searched(make_repo, validate):
    from codebot.core.config import Config
    from codebot.index.build import build_index

    repo = make_repo(COMPLETION)
    build_index(repo, Config(embedder="none"))
    found = run("find", "_SOURCE_BASH", str(repo), "--json")
    assert found.returncode == 0, found.stderr
    [bash] = json.loads(found.stdout)
    validate(bash, "symbol.schema.json")
    assert (bash["id"], bash["kind"]) == ("src.click.shell_completion._SOURCE_BASH", "constant")
    assert (bash["start_line"], bash["end_line"]) == (4, 9)
    shown = run("show", "_SOURCE_BASH", str(repo))
    assert shown.returncode == 0, shown.stderr
    assert "COMPREPLY=()" in shown.stdout and "def get_completion_class" not in shown.stdout
    # A near miss suggests the constant.
    missed = run("find", "SOURCE_BASH", str(repo))
    assert missed.returncode == 1
    assert "did you mean: _SOURCE_BASH" in missed.stderr
    # A function rebound at module level: find lists both, show picks the definition.
    both = run("find", "get_completion_class", str(repo))
    assert both.stdout.splitlines()[0].endswith("def get_completion_class(shell):")
    assert "variable  src.click.shell_completion.get_completion_class#2" in both.stdout
    shown = run("show", "get_completion_class", str(repo))
    assert shown.returncode == 0, shown.stderr
    assert "Look up a registered completion class." in shown.stdout
    # Search returns the constant once: its text is no chunk's any more.
    hits = run("search", "complete_func COMPREPLY", str(repo), "--json")
    assert hits.returncode == 0, hits.stderr
    results = json.loads(hits.stdout)["results"]
    assert results[0]["id"] == "src.click.shell_completion._SOURCE_BASH"
    chunks = [(h["start_line"], h["end_line"]) for h in results if h["kind"] == "chunk"]
    assert chunks == [(2, 2)]  # `import os`

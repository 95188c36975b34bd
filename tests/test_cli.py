"""The command line as a user runs it: real processes, real repositories."""

from __future__ import annotations

import json
import subprocess
import sys

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
        " 'pygit2', 'tantivy', 'usearch', 'onnxruntime') if m in sys.modules]; print(heavy)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"

"""``codebot mcp``: a real MCP session over stdio, driven by the SDK's own client.

Each test starts ``python -m codebot mcp`` as a subprocess on small real repositories, as an agent's
host would, and checks what a model would read: tool names and schemas, answers with path:line,
tool errors it can act on, and answers that follow edits and commits without a restart.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
from mcp import ClientSession, StdioServerParameters, stdio_client

from codebot.core.config import Config
from codebot.git.workspace import Workspace
from codebot.index.build import build_index
from codebot.index.store import read_manifest
from codebot.index.update import update_index

from .conftest import git, write_files

ORDERS = '''\
"""Orders: validate, then charge."""

from shop.payment import charge


def validate_order(order_id):
    """Reject an order id that is not positive."""
    if order_id <= 0:
        raise ValueError(order_id)
    return True


def place_order(order_id, amount):
    """Validate an order and charge the customer for it."""
    validate_order(order_id)
    return charge(order_id, amount)
'''
PAYMENT = '''\
def charge(order_id, amount):
    """Charge the card on file for an order."""
    return round_amount(amount) > 0


def round_amount(amount):
    return round(amount, 2)
'''
CLI = """\
from shop.orders import place_order


def main():
    return place_order(1, 9.99)
"""
SHOP = {
    "shop/__init__.py": "",
    "shop/orders.py": ORDERS,
    "shop/payment.py": PAYMENT,
    "shop/cli.py": CLI,
    "shop/tools.py": "def main():\n    return 0\n",  # a second main: an ambiguous name
}
TOOLS = {
    "search_code",
    "find_symbol",
    "get_code",
    "callers",
    "callees",
    "call_chain",
    "repo_map",
    "index_status",
    "impact",
}
KEYWORDS = Config(embedder="none")  # keyword-only indexes: fast, and the server keeps them so

Steps = Callable[[ClientSession], Awaitable[Any]]


def _child_env() -> dict[str, str]:
    """What the sandbox set (git identity, HOME, caches): the client passes on only a few."""
    keep = ("GIT_", "XDG_", "HOME", "CODEBOT_")
    return {k: v for k, v in os.environ.items() if k.startswith(keep)}


def session(repos: list[Path], steps: Steps, *args: str) -> Any:
    """Start ``codebot mcp --repo ...`` and run ``steps`` in an initialised client session."""
    repo_args = [a for r in repos for a in ("--repo", str(r))]
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "codebot", "mcp", *repo_args, *args],
        env=_child_env(),
        cwd=str(repos[0]),
    )

    async def run() -> Any:
        with anyio.fail_after(120):
            async with stdio_client(params) as (read, write):
                async with ClientSession(read, write) as s:
                    await s.initialize()
                    return await steps(s)

    return asyncio.run(run())


async def call(s: ClientSession, tool: str, **arguments: Any) -> tuple[bool, str]:
    """(is_error, text) of one tool call."""
    result = await s.call_tool(tool, arguments)
    text = "".join(getattr(c, "text", "") for c in result.content)
    return bool(result.is_error), text


async def ok(s: ClientSession, tool: str, **arguments: Any) -> str:
    error, text = await call(s, tool, **arguments)
    assert not error, f"{tool}({arguments}) failed: {text}"
    return text


async def fails(s: ClientSession, tool: str, **arguments: Any) -> str:
    error, text = await call(s, tool, **arguments)
    assert error, f"{tool}({arguments}) should be a tool error, answered: {text}"
    return text


def shop(make_repo, name: str = "repo") -> Path:
    repo = make_repo(SHOP, name=name)
    build_index(repo, KEYWORDS)
    return repo


# --- the tools and their schemas ------------------------------------------------------------------


def test_tools_are_listed_with_bounded_schemas(make_repo) -> None:
    repo = shop(make_repo)

    async def steps(s: ClientSession) -> list:
        return (await s.list_tools()).tools

    tools = {t.name: t for t in session([repo], steps)}
    assert set(tools) == TOOLS
    for t in tools.values():
        assert t.description and len(t.description) > 80, t.name
        assert t.annotations is not None and t.annotations.read_only_hint is True
        props = t.input_schema["properties"]
        assert "repo" in props, t.name
    search = tools["search_code"].input_schema
    assert search["required"] == ["query"]
    assert search["properties"]["query"]["minLength"] == 1
    assert (search["properties"]["k"]["minimum"], search["properties"]["k"]["maximum"]) == (1, 100)
    assert search["properties"]["format"]["enum"] == ["tree", "list", "markdown", "json"]
    assert search["properties"]["tokens"]["anyOf"][0]["minimum"] == 100
    assert tools["find_symbol"].input_schema["required"] == ["name"]
    for name, most in (("callers", 10), ("callees", 10), ("call_chain", 20)):
        schema = tools[name].input_schema
        assert schema["required"] == ["id"]
        depth = schema["properties"]["depth"]
        assert (depth["minimum"], depth["maximum"]) == (1, most)
    assert tools["index_status"].input_schema.get("required", []) == []


# --- every tool on a real repository --------------------------------------------------------------


def test_every_tool_answers_with_locations(make_repo) -> None:
    repo = shop(make_repo)

    async def steps(s: ClientSession) -> dict[str, str]:
        out = {
            "tree": await ok(s, "search_code", query="charge the customer for an order"),
            "list": await ok(s, "search_code", query="place_order", format="list", k=3),
            "json": await ok(s, "search_code", query="validate order", format="json"),
            "markdown": await ok(s, "search_code", query="validate order", format="markdown"),
            "packed": await ok(s, "search_code", query="place order", tokens=400),
            "find": await ok(s, "find_symbol", name="place_order"),
            "code": await ok(s, "get_code", id="shop.orders.place_order"),
            "callers": await ok(s, "callers", id="charge"),
            "callees": await ok(s, "callees", id="shop.orders.place_order"),
            "deep": await ok(s, "callers", id="round_amount", depth=3),
            "chain": await ok(s, "call_chain", id="shop.cli.main", depth=3),
            "map": await ok(s, "repo_map", tokens=200),
            "focus": await ok(s, "repo_map", tokens=200, focus="shop/payment.py"),
            "status": await ok(s, "index_status"),
        }
        out["again"] = await ok(s, "search_code", query="charge the customer for an order")
        return out

    out = session([repo], steps)
    assert "shop/orders.py:13-16  function  shop.orders.place_order" in out["tree"]
    assert out["again"] == out["tree"]  # deterministic
    lines = out["list"].splitlines()
    assert len(lines) <= 3 and "shop/orders.py:13-16" in lines[0]
    doc = json.loads(out["json"])
    assert doc["query"] == "validate order" and doc["hits"][0]["path"] == "shop/orders.py"
    assert out["markdown"].startswith("### codebot: `validate order`")
    assert "def place_order(order_id, amount):" in out["packed"]  # the code itself
    assert "shop/orders.py:13-16" in out["packed"]
    assert out["find"].startswith("shop/orders.py:13-16  function  shop.orders.place_order")
    assert out["code"] == "# shop/orders.py:13-16  function shop.orders.place_order\n" + (
        "".join(ORDERS.splitlines(keepends=True)[12:16])
    )
    assert out["callers"] == (
        "1  shop.orders.place_order  shop/orders.py:13  call at shop/orders.py:16\n"
    )
    assert (
        "shop.orders.validate_order  shop/orders.py:6  call at shop/orders.py:15"
        in (out["callees"])
    )
    assert "shop.payment.charge  shop/payment.py:1  call at shop/orders.py:16" in out["callees"]
    assert "3  shop.cli.main  shop/cli.py:4" in out["deep"]
    assert out["chain"].splitlines()[0] == "main  shop/cli.py:4"
    assert "round_amount  shop/payment.py:6" in out["chain"]
    assert "shop/orders.py:" in out["map"] and "13│ def place_order" in out["map"]
    assert out["focus"].splitlines()[1] == "shop/payment.py:"
    status = out["status"]
    assert f"commit    {git(repo, 'rev-parse', 'HEAD')}\n" in status and "HEAD is at" not in status
    assert "keywords only" in status and "work tree clean" in status


# --- freshness: edits, commits, new generations ---------------------------------------------------


def test_edits_and_commits_are_seen_by_the_next_call(make_repo) -> None:
    repo = shop(make_repo)
    refund = (
        PAYMENT + '\n\ndef refund_order(order_id):\n    """Give the money back."""\n    return 0\n'
    )

    async def steps(s: ClientSession) -> dict[str, str]:
        out = {"before": await ok(s, "search_code", query="refund_order", format="list")}
        write_files(repo, {"shop/payment.py": refund})  # an agent's edit, not committed
        out["edited"] = await ok(s, "search_code", query="refund_order", format="list")
        out["code"] = await ok(s, "get_code", id="refund_order")
        out["dirty"] = await ok(s, "index_status")
        git(repo, "commit", "-qam", "refunds")
        out["committed"] = await ok(s, "search_code", query="refund_order", format="list")
        for _ in range(100):  # the update answers for HEAD first, then settles BM25
            out["clean"] = await ok(s, "index_status")
            if "one running" not in out["clean"]:
                break
            await anyio.sleep(0.1)
        write_files(repo, {"shop/payment.py": PAYMENT})  # deleted again, uncommitted
        out["gone"] = await fails(s, "get_code", id="refund_order")
        return out

    out = session([repo], steps, "--update-wait", "60")
    assert "shop.payment.refund_order" not in out["before"]
    assert "shop/payment.py:10-12  function  shop.payment.refund_order" in out["edited"]
    assert out["code"].startswith("# shop/payment.py:10-12  function shop.payment.refund_order\n")
    assert "work tree 1 file(s) differ" in out["dirty"] and "shop/payment.py" in out["dirty"]
    assert "shop/payment.py:10-12  function  shop.payment.refund_order" in out["committed"]
    head = git(repo, "rev-parse", "HEAD")
    assert read_manifest(Workspace.at(repo).index_dir).commit == head  # updated to HEAD
    assert (
        f"commit    {head}\n" in out["clean"]
        and "HEAD is at" not in out["clean"]
        and "work tree clean" in out["clean"]
    )
    base = git(repo, "rev-parse", "HEAD~1")
    assert f"updates   last: updated {base[:10]} -> {head[:10]} in " in out["clean"]
    assert "no symbol named 'refund_order'" in out["gone"]


def test_a_new_generation_written_by_another_process_is_picked_up(make_repo) -> None:
    """A hook's update replaces the generation the server has open, then prunes it."""
    repo = shop(make_repo)
    index_dir = Workspace.at(repo).index_dir

    def commit_and_update(n: int) -> None:
        write_files(repo, {"shop/payment.py": PAYMENT + f"\n\ndef fee_{n}():\n    return {n}\n"})
        git(repo, "commit", "-qam", f"fee {n}")
        update_index(repo, KEYWORDS)

    async def steps(s: ClientSession) -> tuple[str, ...]:
        first = await ok(s, "find_symbol", name="charge")
        commit_and_update(1)  # a new generation; the one the server has open is still there
        assert (index_dir / "gen-1").is_dir()
        second = await ok(s, "find_symbol", name="fee_1")
        commit_and_update(2)
        commit_and_update(3)  # now the first generation is deleted
        assert not (index_dir / "gen-1").exists()
        return first, second, await ok(s, "get_code", id="fee_3"), await ok(s, "index_status")

    first, second, fee, status = session([repo], steps)
    assert first.startswith("shop/payment.py:1-3  function  shop.payment.charge")
    assert second.startswith("shop/payment.py:10-11  function  shop.payment.fee_1")
    assert fee.startswith("# shop/payment.py:10-11  function shop.payment.fee_3\ndef fee_3():")
    assert f"({read_manifest(index_dir).generation})" in status


# --- errors a model can act on --------------------------------------------------------------------


def test_bad_arguments_are_tool_errors_and_the_session_goes_on(make_repo) -> None:
    repo = shop(make_repo)

    async def steps(s: ClientSession) -> dict[str, str]:
        out: dict[str, str] = {}
        for key, tool, args in [
            ("unknown_id", "get_code", {"id": "shop.orders.no_such_thing"}),
            ("unknown_callers", "callers", {"id": "nowhere_at_all_xyz"}),
            ("negative_depth", "callers", {"id": "charge", "depth": -1}),
            ("deep_chain", "call_chain", {"id": "charge", "depth": 99}),
            ("huge_k", "search_code", {"query": "charge", "k": 10**6}),
            ("empty_query", "search_code", {"query": ""}),
            ("blank_query", "search_code", {"query": "   "}),
            ("bad_format", "search_code", {"query": "charge", "format": "yaml"}),
            ("tiny_budget", "search_code", {"query": "charge", "tokens": 5}),
            ("suggest", "find_symbol", {"name": "place_ordr"}),
            ("ambiguous", "get_code", {"id": "main"}),
            ("unknown_repo", "search_code", {"query": "charge", "repo": "elsewhere"}),
            ("missing", "get_code", {}),
            ("unknown_tool", "impact_of_everything", {}),
        ]:
            out[key] = await fails(s, tool, **args)
            await ok(s, "find_symbol", name="charge")  # still serving after each
        return out

    out = session([repo], steps)
    assert "no symbol named 'shop.orders.no_such_thing'" in out["unknown_id"]
    assert "no close name; use search_code" in out["unknown_callers"]
    assert (
        "depth" in out["negative_depth"] and "greater than or equal to 1" in out["negative_depth"]
    )
    assert "less than or equal to 20" in out["deep_chain"]
    assert "k" in out["huge_k"] and "less than or equal to 100" in out["huge_k"]
    assert "at least 1 character" in out["empty_query"]
    assert "the query is empty" in out["blank_query"]
    assert "'tree', 'list', 'markdown' or 'json'" in out["bad_format"]
    assert "greater than or equal to 100" in out["tiny_budget"]
    # A miss names the nearest names as suggestions, and never answers with one of them.
    assert "suggestions, NOT matches" in out["suggest"] and "place_order" in out["suggest"]
    assert "shop/orders.py" not in out["suggest"]
    assert "'main' names 2 symbols; call again with one of these ids" in out["ambiguous"]
    assert "shop.cli.main  shop/cli.py:4-5" in out["ambiguous"]
    assert (
        "no served repository 'elsewhere'" in out["unknown_repo"]
        and str(repo) in (out["unknown_repo"])
    )
    assert "id" in out["missing"]
    assert "Unknown tool" in out["unknown_tool"]


def test_no_index_says_how_to_build_one_and_picks_it_up_without_a_restart(make_repo) -> None:
    repo = make_repo(SHOP)

    async def steps(s: ClientSession) -> tuple[str, str, str]:
        missing = await fails(s, "search_code", query="charge")
        status = await ok(s, "index_status")
        build_index(repo, KEYWORDS)  # what the agent (or its user) runs in a shell
        return missing, status, await ok(s, "find_symbol", name="charge")

    missing, status, found = session([repo], steps)
    assert "no codebot index" in missing and f"codebot index --embedder none {repo}" in missing
    assert "index     none: no codebot index" in status
    assert found.startswith("shop/payment.py:1-3")


def test_several_repositories_are_served_at_once(make_repo) -> None:
    first = shop(make_repo, name="alpha")
    second = make_repo({"lib/strings.py": "def slugify(text):\n    return text.lower()\n"}, "beta")
    build_index(second, KEYWORDS)

    async def steps(s: ClientSession) -> dict[str, str]:
        return {
            "default": await ok(s, "find_symbol", name="charge"),
            "by_name": await ok(s, "find_symbol", name="slugify", repo="beta"),
            "by_path": await ok(s, "get_code", id="slugify", repo=str(second)),
            "other": await fails(s, "find_symbol", name="slugify"),
            "status": await ok(s, "index_status"),
            "one": await ok(s, "index_status", repo="beta"),
        }

    out = session([first, second], steps)
    assert out["default"].startswith("shop/payment.py:1-3")
    assert out["by_name"].startswith("lib/strings.py:1-2  function  lib.strings.slugify")
    assert out["by_path"].startswith("# lib/strings.py:1-2")
    assert "no symbol named 'slugify'" in out["other"]
    assert (
        f"repo      alpha  {first}" in out["status"]
        and f"repo      beta  {second}" in (out["status"])
    )
    assert "alpha" not in out["one"]


def test_search_over_every_served_repository(make_repo, validate) -> None:
    first = shop(make_repo, name="alpha")
    second = make_repo(
        {
            "lib/strings.go": "package lib\n\n// Slugify lowers a title into a URL slug.\n"
            "func Slugify(title string) string {\n\treturn strings.ToLower(title)\n}\n"
        },
        "beta",
    )
    build_index(second, Config(embedder="builtin"))  # another embedder than alpha's (none)
    third = make_repo({"x.py": "def x():\n    return 1\n"}, "gamma")  # never indexed

    async def steps(s: ClientSession) -> dict[str, str]:
        return {
            "slug": await ok(s, "search_code", query="slugify a title", repo="*", format="list"),
            "charge": await ok(s, "search_code", query="charge the card", repo="*"),
            "json": await ok(s, "search_code", query="validate order", repo="*", format="json"),
            "tokens": await fails(s, "search_code", query="charge", repo="*", tokens=500),
            "one": await ok(s, "search_code", query="slugify a title", repo="beta"),
        }

    out = session([first, second, third], steps)
    lines = out["slug"].splitlines()
    assert lines[0].startswith("skipped gamma: no codebot index for ")
    assert lines[1].split()[1:4] == ["beta", "lib/strings.go:4-6", "function"]
    assert out["charge"].splitlines()[0].startswith("skipped gamma")
    assert "ranked:" in out["charge"]
    ranked = out["charge"].split("\nranked:\n")[1].splitlines()
    assert ranked[0].split()[1:3] == ["alpha", "shop/payment.py:1-3"]
    doc = json.loads(out["json"])
    validate(doc, "search-result.schema.json")
    assert doc["results"][0]["repo"] == "alpha" and doc["results"][0]["name"] == "validate_order"
    assert [r["embedder"] for r in doc["repos"]] == [None, "builtin"]
    assert [s["repo"] for s in doc["skipped"]] == ["gamma"]
    assert "repo=<that name>" in out["tokens"]
    assert "alpha" not in out["one"] and "lib/strings.go:4-6" in out["one"]


# --- the command around it ------------------------------------------------------------------------


def test_help_and_hooks_never_import_the_sdk(tmp_path: Path) -> None:
    # In an empty directory: the hook finds no repository there and does nothing (here, it would
    # start an update of this checkout's index in the background).
    code = (
        "import sys\n"
        "from click.testing import CliRunner\n"
        "from codebot.serve.cli import main\n"
        "for args in (['--help'], ['mcp', '--help'], ['hook', 'post-commit']):\n"
        "    CliRunner().invoke(main, args)\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('mcp', 'pydantic')))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=tmp_path
    )
    assert out.stdout.strip() == "[]"


def test_without_the_sdk_the_command_says_what_to_install(tmp_path: Path) -> None:
    fake = tmp_path / "site" / "mcp"
    fake.mkdir(parents=True)
    (fake / "__init__.py").write_text("raise ImportError('no MCP here', name='mcp')\n")
    env = {**os.environ, "PYTHONPATH": str(tmp_path / "site")}
    out = subprocess.run(
        [sys.executable, "-m", "codebot", "mcp"],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
    )
    assert out.returncode == 1
    assert "pip install 'codebot[mcp]'" in out.stderr and out.stdout == ""


def test_impact_names_what_a_commit_touches(make_repo) -> None:
    repo = shop(make_repo)
    payment = repo / "shop/payment.py"
    payment.write_text(payment.read_text().replace("return", "return  ", 1))
    git(repo, "commit", "-qam", "touch payment")

    async def steps(s: ClientSession) -> dict[str, str]:
        return {
            "impact": await ok(s, "impact", base="HEAD~1"),
            "bad": await fails(s, "impact", base="no-such-branch"),
        }

    out = session([repo], steps)
    # The compact form: ids, counts and path:line, no comment markup, no graph.
    assert "modified shop.payment.charge shop/payment.py:1" in out["impact"]
    assert "###" not in out["impact"] and "mermaid" not in out["impact"]
    assert "names no commit" in out["bad"]

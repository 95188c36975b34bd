"""codebot impact: what a range of commits touches, from views of both ends of the range."""

from __future__ import annotations

import json

from click.testing import CliRunner

from codebot.core.config import Config
from codebot.index.build import build_index
from codebot.index.store import read_manifest
from codebot.query.impact import (
    impact,
    impact_compact,
    impact_compact_text,
    impact_markdown,
    impact_text,
    parse_range,
)
from codebot.query.tokens import token_counter
from codebot.serve.cli import main

from .conftest import git, write_files

CHAIN = "".join(f"def f{i}(x):\n    return f{i + 1}(x)\n\n\n" for i in range(12)) + (
    "def f12(x):\n    return x\n"
)
FILES = {
    "shop/prices.py": (
        "def price(item):\n    return item.cost\n\n\n"
        "def discount(items):\n    return 0\n\n\n"
        "def legacy_rate():\n    return 1\n"
    ),
    "shop/cart.py": (
        "from shop.prices import price, discount\n\n\n"
        "class Cart:\n"
        "    def __init__(self, items):\n        self.items = items\n\n"
        "    def total(self):\n"
        "        return sum(price(i) for i in self.items) - discount(self.items)\n\n\n"
        "def checkout(items):\n    return Cart(items).total()\n"
    ),
    "shop/report.py": "from shop.prices import legacy_rate\n\n\ndef report():\n    return legacy_rate()\n",
    "shop/util.py": "def helper():\n    return 2\n",
    "shop/hooks.py": (
        "def on_save(x):\n    return x\n\n\n"
        "def register(callbacks):\n    callbacks.append(on_save)\n"
    ),
    "shop/shapes.py": (
        "class Square:\n    def area(self):\n        return 4\n\n\n"
        "class Circle:\n    def area(self):\n        return 3\n\n\n"
        "def measure(shape):\n    return shape.area()\n"
    ),
    "shop/chain.py": CHAIN,
    "docs/guide.md": "# Guide\n\nHow to shop.\n",
    "tests/test_cart.py": (
        "from shop.cart import checkout\nfrom shop.chain import f0\nfrom shop.hooks import register\n"
        "from shop.shapes import measure\n\n\n"
        "def test_checkout():\n    assert checkout([]) == 0\n\n\n"
        "def test_chain():\n    assert f0(1) == 1\n\n\n"
        "def test_register():\n    register([])\n\n\n"
        "def test_measure():\n    assert measure(object()) is None\n"
    ),
}


def commit(repo, message):
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", message)
    return git(repo, "rev-parse", "HEAD")


def edit(repo, path, old, new):
    text = (repo / path).read_text()
    assert old in text, (path, old)
    (repo / path).write_text(text.replace(old, new, 1))


def changed_repo(make_repo):
    repo = make_repo(FILES)
    base = git(repo, "rev-parse", "HEAD")
    build_index(repo, Config(embedder="none"))  # indexed at the base: the head is derived
    edit(repo, "shop/prices.py", "return 0", "return len(items) // 10")  # modified: discount
    edit(repo, "shop/prices.py", "def price(item):", "def price(item, rate=1):")  # signature
    edit(repo, "shop/prices.py", "\n\n\ndef legacy_rate():\n    return 1\n", "\n")  # deleted
    edit(repo, "shop/cart.py", "        self.items = items\n", "        self.items = list(items)\n")
    edit(repo, "shop/cart.py", "class Cart:\n", "class Cart:\n    currency = 'EUR'\n\n")
    edit(
        repo, "shop/cart.py", "from shop.prices", "import decimal\nfrom shop.prices"
    )  # module code
    edit(repo, "shop/hooks.py", "return x", "return x or None")  # reached as a value only
    edit(repo, "shop/shapes.py", "return 4", "return 16")  # called on a value of unknown type
    edit(repo, "shop/chain.py", "def f12(x):\n    return x", "def f12(x):\n    return x * 1")
    edit(repo, "docs/guide.md", "How to shop.", "How to shop, and pay.")
    git(repo, "mv", "shop/util.py", "shop/helpers.py")  # renamed (moved unchanged)
    write_files(repo, {"shop/tax.py": "def vat(x):\n    return x * 0.2\n"})  # added, unused
    head = commit(repo, "change prices")
    return repo, base, head


def by_id(doc):
    return {e["id"]: e for e in doc["definitions"]}


def test_changes_are_counted_as_a_reader_counts_them(make_repo, validate):
    repo, base, head = changed_repo(make_repo)
    doc = impact(repo, Config(), base, head)
    validate(doc, "impact.schema.json")
    assert (doc["base"], doc["head"]) == (base, head)
    entries = by_id(doc)
    changes = {i: e["change"] for i, e in entries.items()}
    assert changes == {
        "shop.prices.discount": "modified",
        "shop.prices.price": "modified",
        "shop.prices.legacy_rate": "deleted",
        "shop.cart.Cart": "modified",  # its own lines: the class attribute
        "shop.cart.Cart.__init__": "modified",
        "shop.hooks.on_save": "modified",
        "shop.shapes.Square.area": "modified",
        "shop.chain.f12": "modified",
        "shop.helpers.helper": "renamed",
        "shop.tax.vat": "added",
    }
    # Cart.total did not change: not listed, although the class around it did.
    assert doc["summary"] == {
        "added": 1, "modified": 7, "deleted": 1, "renamed": 1, "signature_changed": 1,
        "lines_added": sum(f["lines_added"] for f in doc["files"]),
        "lines_removed": sum(f["lines_removed"] for f in doc["files"]),
    }  # fmt: skip
    price = entries["shop.prices.price"]
    assert price["signature"]["parameters_added"] == ["rate"]
    assert (price["lines_added"], price["lines_removed"]) == (1, 1)
    assert (
        entries["shop.cart.Cart"]["lines_added"],
        entries["shop.cart.Cart"]["lines_removed"],
    ) == (1, 0)  # currency = 'EUR'; the blank line after it changes no definition
    moved = entries["shop.helpers.helper"]
    assert moved["from"] == "shop.util.helper" and moved["lines_added"] == 0
    files = {f["path"]: f for f in doc["files"]}
    assert files["docs/guide.md"] == {
        "path": "docs/guide.md", "status": "M", "code": False, "lines_added": 1, "lines_removed": 1,
    }  # fmt: skip
    assert files["shop/cart.py"]["other_lines"] == 1  # import decimal: counted, not a definition
    assert not any(e["path"].endswith(".md") for e in doc["definitions"])
    # The committed index was not moved to the head: impact works on throwaway views.
    assert read_manifest(repo / ".git" / "codebot").commit == base


def test_test_reach_is_whole_and_said_only_when_known(make_repo):
    repo, base, head = changed_repo(make_repo)
    entries = by_id(impact(repo, Config(), base, head))
    # Thirteen calls deep: no fixed depth stops the walk.
    f12 = entries["shop.chain.f12"]
    assert f12["test_reach"] == "tested" and [t["id"] for t in f12["tests"]] == [
        "tests.test_cart.test_chain"
    ]
    assert f12["callers_total"] == 13  # f0..f11 and the test
    # Constructing the class reaches its constructor; a test of a member reaches the class.
    for sid in ("shop.cart.Cart.__init__", "shop.cart.Cart", "shop.prices.discount"):
        assert [t["id"] for t in entries[sid]["tests"]] == ["tests.test_cart.test_checkout"], sid
    assert [c["id"] for c in entries["shop.cart.Cart.__init__"]["callers"]][:1] == [
        "shop.cart.checkout"
    ]
    # Nothing names vat: "No test reaches this" is known.
    assert entries["shop.tax.vat"]["test_reach"] == "untested"
    # on_save is passed as a value by register, which a test calls: not known to be untested.
    on_save = entries["shop.hooks.on_save"]
    assert on_save["test_reach"] == "unknown" and on_save["named_by_tested_code"] == 1
    # shape.area() is ambiguous (Square or Circle): the call stays unresolved and is counted.
    area = entries["shop.shapes.Square.area"]
    assert area["test_reach"] == "unknown" and area["unresolved_calls"] == 1
    assert "no test found (1 calls into it unresolved)" in impact_text(
        {**impact(repo, Config(), base, head)}
    )


def test_removed_code_still_named_is_listed_with_lines(make_repo):
    repo, base, head = changed_repo(make_repo)
    legacy = by_id(impact(repo, Config(), base, head))["shop.prices.legacy_rate"]
    assert legacy["still_calling"] == [
        {"id": "shop.report.report", "path": "shop/report.py", "line": 5}
    ]
    assert legacy["imports"] == [{"path": "shop/report.py", "line": 1}]


def test_a_renamed_function_is_one_change_and_its_old_callers_are_named(make_repo):
    repo = make_repo(
        {
            "lib.py": "def old_name(x):\n    return x + 1\n",
            "use.py": "from lib import old_name\n\n\ndef use():\n    return old_name(1)\n",
        }
    )
    base = git(repo, "rev-parse", "HEAD")
    build_index(repo, Config(embedder="none"))
    (repo / "lib.py").write_text("def new_name(x):\n    return x + 1\n")
    head = commit(repo, "rename")
    doc = impact(repo, Config(), base, head)
    [entry] = doc["definitions"]
    assert (entry["change"], entry["id"], entry["from"]) == (
        "renamed",
        "lib.new_name",
        "lib.old_name",
    )
    assert (entry["lines_added"], entry["lines_removed"]) == (1, 1)
    assert entry["still_calling"] == [{"id": "use.use", "path": "use.py", "line": 5}]
    assert entry["imports"] == [{"path": "use.py", "line": 1}]
    assert doc["summary"]["renamed"] == 1 and doc["summary"]["added"] == 0


def test_overload_signatures_are_a_change_of_their_set(make_repo):
    repo = make_repo(
        {
            "conv.py": "def conv(x):\n    return x\n",
            "tests/test_conv.py": "from conv import conv\n\n\ndef test_conv():\n    conv(1)\n",
        }
    )
    base = git(repo, "rev-parse", "HEAD")
    build_index(repo, Config(embedder="none"))
    (repo / "conv.py").write_text(
        "import typing as t\n\n\n"
        "@t.overload\ndef conv(x: int) -> int: ...\n\n\n"
        "@t.overload\ndef conv(x: str) -> str: ...\n\n\n"
        "def conv(x):\n    return x\n"
    )
    head = commit(repo, "overloads")
    doc = impact(repo, Config(), base, head)
    assert [(e["change"], e["id"]) for e in doc["definitions"]] == [("modified", "conv.conv#3")]
    entry = doc["definitions"][0]
    assert entry["overloads_changed"] == 2 and entry["lines_added"] == 4
    assert [t["id"] for t in entry["tests"]] == ["tests.test_conv.test_conv"]


def test_markdown_sorts_by_risk_escapes_links_and_fits_the_limit(make_repo):
    repo, base, head = changed_repo(make_repo)
    doc = impact(repo, Config(), base, head)
    text = impact_markdown(doc, link=f"https://github.com/o/r/blob/{head}")
    assert "**1 removed or moved definition(s) still named:**" in text
    assert (
        f"[`shop/report.py:5`](https://github.com/o/r/blob/{head}/shop/report.py#L5) calls it"
        in text
    )
    assert "**No test reaches this.**" in text and "No test found (" in text
    assert "| definition | change | lines | callers | entry points | tests |" in text
    assert "Other files: `docs/guide.md` (+1 -1)" in text
    assert "```mermaid" in text and '["Cart.__init__<br/>shop/cart.py:' in doc["mermaid"]
    risks = [e["callers_total"] + 5 * e["entry_points_total"] for e in doc["definitions"]][1:]
    assert doc["definitions"][0]["id"] == "shop.prices.legacy_rate"  # still called: first
    assert risks == sorted(risks, reverse=True)  # the rest: by callers and entry points
    short = impact_markdown(doc, limit=600)
    assert len(short) <= 600 and "cut to fit" in short
    # Whatever the code holds stays text: in code spans (backticks fenced), escaped in HTML.
    doc["definitions"][0]["id"] = "evil<script>`x`"
    hostile = impact_markdown(doc)
    assert "`` evil<script>`x` ``" in hostile
    summaries = [line for line in hostile.splitlines() if line.startswith("<details><summary>")]
    assert any("&lt;script&gt;" in line for line in summaries)
    assert not any("<script>" in line for line in summaries)


def test_compact_form_is_short_and_valid(make_repo, validate):
    repo, base, head = changed_repo(make_repo)
    doc = impact(repo, Config(), base, head)
    compact = impact_compact(doc)
    validate(compact, "impact-compact.schema.json")
    text = impact_compact_text(doc)
    assert len(doc["definitions"]) == 10
    assert token_counter().count(text) < 1_500
    assert "mermaid" not in text and "flowchart" not in text
    assert "deleted shop.prices.legacy_rate shop/prices.py:9" in text
    assert "still calling: shop/report.py:5" in text and "NO TEST" in text


def test_cli_impact_formats(make_repo, monkeypatch, validate):
    repo, base, head = changed_repo(make_repo)
    monkeypatch.chdir(repo)
    runner = CliRunner()
    text = runner.invoke(main, ["impact", f"{base}..{head}"])
    assert text.exit_code == 0, text.output
    assert "no test reaches this" in text.output and "1 still calling it" in text.output
    data = runner.invoke(main, ["impact", base, "--json"])  # BASE alone: BASE..HEAD
    validate(json.loads(data.output), "impact.schema.json")
    compact = runner.invoke(main, ["impact", base, "--format", "compact", "--json"])
    validate(json.loads(compact.output), "impact-compact.schema.json")
    short = runner.invoke(main, ["impact", base, "--format", "compact"])
    assert short.output.splitlines()[0].startswith(f"{base[:10]}..{head[:10]}: 7 modified")
    md = runner.invoke(main, ["impact", base, "--markdown"])
    assert md.output.startswith("\n### codebot impact")
    bad = runner.invoke(main, ["impact", "nope..HEAD"])
    assert bad.exit_code == 1 and "names no commit" in bad.output


def test_parse_range():
    assert parse_range("a..b") == ("a", "b")
    assert parse_range("a...b") == ("a", "b")
    assert parse_range("main") == ("main", "HEAD")
    assert parse_range("..b") == ("HEAD", "b")


def test_a_test_reaching_only_through_a_branch_may_reach(make_repo, validate):
    """A test whose every path has a call made only under a condition "may reach" the code; one
    reaching it through straight-line calls "reaches" it. Neither is called untested."""
    repo = make_repo(
        {
            "app/core.py": (
                "def audit(x):\n    return x\n\n\n"
                "def warn(x):\n    return x\n\n\n"
                "def log_each(xs):\n    return xs\n\n\n"
                "def run(cmd, deprecated=False):\n"
                "    audit(cmd)\n"
                "    if deprecated:\n"
                "        warn(cmd)\n"
                "    for c in cmd:\n"
                "        log_each(c)\n"
                "    return cmd\n"
            ),
            "tests/test_core.py": (
                "from app.core import run\n\n\ndef test_run():\n    assert run('a') == 'a'\n"
            ),
        }
    )
    base = git(repo, "rev-parse", "HEAD")
    build_index(repo, Config(embedder="none"))
    for name in ("audit", "warn"):
        edit(
            repo, "app/core.py", f"def {name}(x):\n    return x", f"def {name}(x):\n    return [x]"
        )
    edit(
        repo,
        "app/core.py",
        "def log_each(xs):\n    return xs",
        "def log_each(xs):\n    return [xs]",
    )
    head = commit(repo, "change the helpers")
    doc = impact(repo, Config(), base, head)
    validate(doc, "impact.schema.json")
    entries = by_id(doc)
    audit, warn, each = (entries[f"app.core.{n}"] for n in ("audit", "warn", "log_each"))
    assert audit["test_reach"] == "tested"
    assert [t["id"] for t in audit["tests"]] == ["tests.test_core.test_run"]
    assert audit["may_tests_total"] == 0
    for e in (warn, each):  # under `if deprecated:`, in a loop body that may run zero times
        assert e["test_reach"] == "conditional", e["id"]
        assert e["tests"] == [] and e["tests_total"] == 0
        assert [t["id"] for t in e["may_tests"]] == ["tests.test_core.test_run"]
        assert e["may_tests_total"] == 1
    assert "reached only through conditional calls by 1 test" in impact_text(doc)
    md = impact_markdown(doc)
    assert "No test surely reaches this" in md and "No test reaches this" not in md
    compact = impact_compact(doc)
    validate(compact, "impact-compact.schema.json")
    row = next(d for d in compact["definitions"] if d["id"] == "app.core.warn")
    assert (row["tests"], row["may_tests"], row["some_may_tests"]) == (
        0,
        1,
        ["tests.test_core.test_run"],
    )
    assert "may reach it: tests.test_core.test_run" in impact_compact_text(doc)

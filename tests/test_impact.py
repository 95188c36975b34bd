"""codebot impact: what a range of commits touches, from views of both ends of the range."""

from __future__ import annotations

import json

from click.testing import CliRunner

from codebot.core.config import Config
from codebot.index.build import build_index
from codebot.index.store import read_manifest
from codebot.query.impact import impact, impact_markdown, parse_range
from codebot.serve.cli import main

from .conftest import git, write_files

FILES = {
    "shop/cart.py": (
        "from shop.prices import price, discount\n\n\n"
        "def total(items):\n    return sum(price(i) for i in items) - discount(items)\n\n\n"
        "def checkout(items):\n    return total(items)\n"
    ),
    "shop/prices.py": (
        "def price(item):\n    return item.cost\n\n\n"
        "def discount(items):\n    return 0\n\n\n"
        "def legacy_rate():\n    return 1\n"
    ),
    "shop/report.py": "from shop.prices import legacy_rate\n\n\ndef report():\n    return legacy_rate()\n",
    "shop/util.py": "def helper():\n    return 2\n",
    "tests/test_cart.py": (
        "from shop.cart import checkout\n\n\ndef test_checkout():\n    assert checkout([]) == 0\n"
    ),
}


def commit(repo, message):
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", message)
    return git(repo, "rev-parse", "HEAD")


def changed_repo(make_repo):
    repo = make_repo(FILES)
    base = git(repo, "rev-parse", "HEAD")
    build_index(repo, Config(embedder="none"))  # indexed at the base: the head is derived
    prices = (repo / "shop/prices.py").read_text()
    prices = prices.replace("return 0", "return len(items) // 10")  # modified: discount
    prices = prices.replace("def legacy_rate():\n    return 1\n", "")  # deleted, still called
    (repo / "shop/prices.py").write_text(prices)
    git(repo, "mv", "shop/util.py", "shop/helpers.py")  # renamed (moved unchanged)
    write_files(repo, {"shop/tax.py": "def vat(x):\n    return x * 0.2\n"})  # added, untested
    head = commit(repo, "change prices")
    return repo, base, head


def by_id(doc):
    return {e["id"]: e for e in doc["symbols"]}


def test_impact_lists_changes_callers_tests_and_orphans(make_repo, validate):
    repo, base, head = changed_repo(make_repo)
    doc = impact(repo, Config(), base, head)
    validate(doc, "impact.schema.json")
    assert (doc["base"], doc["head"]) == (base, head)
    entries = by_id(doc)
    discount = entries["shop.prices.discount"]
    assert discount["change"] == "modified"
    assert [(c["id"], c["depth"]) for c in discount["callers"]] == [
        ("shop.cart.total", 1),
        ("shop.cart.checkout", 2),
        ("tests.test_cart.test_checkout", 3),
    ]
    assert discount["callers"][0]["resolution"] == "exact"
    assert discount["tested"] and discount["tests"][0]["id"] == "tests.test_cart.test_checkout"
    legacy = entries["shop.prices.legacy_rate"]
    assert legacy["change"] == "deleted"
    assert [c["id"] for c in legacy["orphaned_callers"]] == ["shop.report.report"]
    moved = entries["shop.helpers.helper"]
    assert moved["change"] == "renamed" and moved["from"] == "shop.util.helper"
    vat = entries["shop.tax.vat"]
    assert vat["change"] == "added" and not vat["tested"]
    assert doc["summary"] == {"added": 1, "modified": 1, "deleted": 1, "renamed": 1}
    assert "flowchart LR" in doc["mermaid"] and "discount" in doc["mermaid"]
    # The committed index was not moved to the head: impact works on throwaway views.
    assert read_manifest(repo / ".git" / "codebot").commit == base


def test_markdown_escapes_links_and_fits_the_limit(make_repo):
    repo, base, head = changed_repo(make_repo)
    doc = impact(repo, Config(), base, head)
    text = impact_markdown(doc, link=f"https://github.com/o/r/blob/{head}")
    assert "**1 deleted definition(s) still called:**" in text
    assert f"[`shop/report.py:4`](https://github.com/o/r/blob/{head}/shop/report.py#L4)" in text
    assert "**No test reaches this.**" in text
    assert "```mermaid" in text
    short = impact_markdown(doc, limit=600)
    assert len(short) <= 600 and "cut to fit" in short
    # Whatever the code holds stays text: in code spans (backticks fenced), escaped in HTML.
    doc["symbols"][0]["id"] = "evil<script>`x`"
    hostile = impact_markdown(doc)
    assert "`` evil<script>`x` ``" in hostile
    summaries = [line for line in hostile.splitlines() if line.startswith("<details><summary>")]
    assert any("&lt;script&gt;" in line for line in summaries)
    assert not any("<script>" in line for line in summaries)


def test_cli_impact_text_json_markdown(make_repo, monkeypatch, validate):
    repo, base, head = changed_repo(make_repo)
    monkeypatch.chdir(repo)
    runner = CliRunner()
    text = runner.invoke(main, ["impact", f"{base}..{head}"])
    assert text.exit_code == 0, text.output
    assert "no test reaches this" in text.output and "1 still calling it" in text.output
    data = runner.invoke(main, ["impact", base, "--json"])  # BASE alone: BASE..HEAD
    validate(json.loads(data.output), "impact.schema.json")
    md = runner.invoke(main, ["impact", base, "--markdown"])
    assert md.output.startswith("\n### codebot impact")
    bad = runner.invoke(main, ["impact", "nope..HEAD"])
    assert bad.exit_code == 1 and "names no commit" in bad.output


def test_parse_range():
    assert parse_range("a..b") == ("a", "b")
    assert parse_range("a...b") == ("a", "b")
    assert parse_range("main") == ("main", "HEAD")
    assert parse_range("..b") == ("HEAD", "b")

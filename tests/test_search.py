"""Search as users run it: a small real repository in several languages, questions and names."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from codebot.core.config import Config
from codebot.core.errors import CodebotError, NotFound
from codebot.index.build import build_index
from codebot.index.overlay import open_index
from codebot.query.search import Searcher

from .fakes import HashingEmbedder

REPO = {
    "shop/cart.py": '''
"""The shopping cart."""


class Cart:
    """Items a customer is about to buy."""

    def __init__(self):
        self.items = []

    def add_item(self, product, quantity=1):
        """Put a product in the cart."""
        self.items.append((product, quantity))

    def total_price(self):
        """Sum of price times quantity over every item in the cart."""
        return sum(p.price * q for p, q in self.items)
''',
    "shop/payment.go": """
package shop

// ChargeCard charges a credit card through the payment gateway and returns the receipt id.
func ChargeCard(card string, amountCents int) (string, error) {
	return gateway.Charge(card, amountCents)
}
""",
    "web/src/login.ts": """
/** Check a user's password against the stored bcrypt hash. */
export async function verifyPassword(user: User, password: string): Promise<boolean> {
  return bcrypt.compare(password, user.passwordHash);
}

export class SessionStore {
  /** Remove expired sessions from the store. */
  purgeExpired(now: Date): number {
    return this.sessions.deleteWhere((s) => s.expires < now);
  }
}
""",
    "shop/Inventory.java": """
package shop;

public class Inventory {
    /** Decrease the stock level of a product after an order ships. */
    public void reserveStock(String sku, int count) {
        warehouse.decrement(sku, count);
    }
}
""",
    "tests/test_cart.py": """
from shop.cart import Cart


def test_total_price():
    cart = Cart()
    assert cart.total_price() == 0
""",
    "README.md": "# Shop\\n\\nA demo shop: cart, payments, inventory and logins.\\n",
}


@pytest.fixture(scope="module")
def shop(tmp_path_factory):
    from .conftest import git, write_files

    repo = tmp_path_factory.mktemp("shop")
    git(repo, "init", "-q", "-b", "main")
    write_files(repo, {k: v.lstrip("\n") for k, v in REPO.items()})
    git(repo, "add", "-A")
    git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "shop")
    return repo


@pytest.fixture(scope="module")
def searcher(shop):
    embedder = HashingEmbedder()
    build_index(shop, Config(), embedder=embedder)
    return Searcher(open_index(shop, Config()), Config(), embedder=embedder)


@pytest.mark.parametrize("mode", ["hybrid", "bm25", "vector"])
@pytest.mark.parametrize(
    "query,expected",
    [
        ("how is the cart total computed", "shop.cart.Cart.total_price"),
        ("charge a credit card", "shop.payment.ChargeCard"),
        ("verify password hash", "web.src.login.verifyPassword"),
        ("remove expired sessions", "web.src.login.SessionStore.purgeExpired"),
        ("reserve stock for an order", "shop.Inventory.Inventory.reserveStock"),
    ],
)
def test_a_known_question_finds_the_known_function_in_the_top_3(searcher, query, expected, mode):
    ids = [h.id for h in searcher.search(query, k=3, mode=mode)]
    assert expected in ids


def test_names_rank_their_definition_first(searcher):
    assert searcher.search("total_price", k=1)[0].id == "shop.cart.Cart.total_price"
    assert searcher.search("ChargeCard", k=1)[0].id == "shop.payment.ChargeCard"
    assert (
        searcher.search("SessionStore.purgeExpired", k=1)[0].id
        == "web.src.login.SessionStore.purgeExpired"
    )


def test_source_outranks_its_test(searcher):
    ids = [h.id for h in searcher.search("cart total price", k=5, mode="bm25")]
    assert ids.index("shop.cart.Cart.total_price") < ids.index("tests.test_cart.test_total_price")


@pytest.mark.parametrize(
    "query",
    ["foo(bar", "a:b", '"unclosed', "[a-z]+*?", "ünïcödé ☃", "", "   ", "AND OR NOT", "-x +y"],
)
def test_any_text_is_a_valid_query(searcher, query):
    for mode in ("hybrid", "bm25", "vector"):
        assert isinstance(searcher.search(query, k=5, mode=mode), list)


def test_exact_lookup_and_its_miss(searcher):
    assert [s.id for s in searcher.find("shop.cart.Cart.add_item")] == ["shop.cart.Cart.add_item"]
    assert [s.id for s in searcher.find("Cart.add_item")] == ["shop.cart.Cart.add_item"]
    assert [s.id for s in searcher.find("add_item")] == ["shop.cart.Cart.add_item"]
    with pytest.raises(NotFound) as info:
        searcher.find("add_itme")
    assert "add_item" in info.value.suggestions
    assert "did you mean: add_item" in str(info.value)
    with pytest.raises(NotFound) as info:
        searcher.find("zzzzqqq")
    assert info.value.suggestions == []


def test_code_comes_from_the_indexed_file(searcher):
    hit = searcher.search("ChargeCard", k=1, with_code=True)[0]
    assert hit.code.startswith("// ChargeCard charges") or hit.code.startswith("func ChargeCard")
    assert "gateway.Charge(card, amountCents)" in hit.code


def test_unknown_mode_and_vectors_missing_are_clear_errors(shop, tmp_path):
    build_index(shop, Config(embedder="none", index_dir=str(tmp_path / "lex")))
    lexical = Searcher(open_index(shop, Config(index_dir=str(tmp_path / "lex"))))
    with pytest.raises(CodebotError, match="no vectors"):
        lexical.search("cart", mode="vector")
    with pytest.raises(CodebotError, match="unknown search mode"):
        lexical.search("cart", mode="fuzzy")
    assert lexical.search("charge card", k=1)[0].id == "shop.payment.ChargeCard"


def run(*args, cwd):
    return subprocess.run(
        [sys.executable, "-m", "codebot.serve.cli", *args], cwd=cwd, capture_output=True, text=True
    )


def test_cli_end_to_end_with_the_builtin_embedder(shop, tmp_path, validate):
    index_dir = str(tmp_path / "builtin")
    out = run("index", "--index-dir", index_dir, "--json", cwd=shop)
    assert out.returncode == 0, out.stderr
    built = json.loads(out.stdout)
    validate(built["manifest"], "manifest.schema.json")
    assert built["manifest"]["embedder"]["provider"] == "builtin"
    assert built["manifest"]["counts"]["vectors"] == built["manifest"]["counts"]["symbols"]

    out = run(
        "search",
        "how do I charge a credit card",
        "--json",
        "-k",
        "3",
        "--index-dir",
        index_dir,
        cwd=shop,
    )
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    validate(data, "search-result.schema.json")
    assert "shop.payment.ChargeCard" in [r["id"] for r in data["results"]]

    batch = '{"query": "verify password hash"}\nremove expired sessions\n'
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "codebot.serve.cli",
            "search",
            "--batch",
            "-",
            "-k",
            "3",
            "--code",
            "--index-dir",
            index_dir,
        ],
        cwd=shop,
        input=batch,
        capture_output=True,
        text=True,
    )
    assert out.returncode == 0, out.stderr
    lines = [json.loads(line) for line in out.stdout.splitlines()]
    assert [line["query"] for line in lines] == ["verify password hash", "remove expired sessions"]
    for line in lines:
        validate(line, "search-result.schema.json")
        assert all("code" in r for r in line["results"])
    assert lines[0]["results"][0]["id"] == "web.src.login.verifyPassword"

    again = json.loads(run("index", "--index-dir", index_dir, "--json", cwd=shop).stdout)
    assert again["embedded"] == 0  # everything came from the vector cache


def test_cli_find_show_status_and_errors(shop, tmp_path):
    index_dir = str(tmp_path / "lex")
    assert run("index", "--embedder", "none", "--index-dir", index_dir, cwd=shop).returncode == 0
    out = run("find", "Cart", "--index-dir", index_dir, cwd=shop)
    assert out.stdout.startswith("shop/cart.py:4-16  class     shop.cart.Cart")
    out = run("show", "Cart.total_price", "--index-dir", index_dir, cwd=shop)
    assert out.stdout.splitlines()[0] == "# shop/cart.py:14-16  shop.cart.Cart.total_price"
    assert "return sum(p.price * q for p, q in self.items)" in out.stdout
    out = run("find", "Cartt", "--index-dir", index_dir, cwd=shop)
    assert out.returncode == 1 and "did you mean: Cart" in out.stderr
    out = run("status", "--index-dir", index_dir, cwd=shop)
    assert "embedder  none (keywords only)" in out.stdout
    assert "contents  6 files" in out.stdout
    out = run("search", "x", "--index-dir", str(tmp_path / "nothing"), cwd=shop)
    assert out.returncode == 1 and "codebot index" in out.stderr
    out = run("search", cwd=shop)
    assert out.returncode == 2 and "QUERY" in out.stderr

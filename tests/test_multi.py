"""Several repositories searched at once (``codebot search --repo A --repo B``, query.multi).

Three small real repositories in three languages, each with its own git history and index: two
embedded with the built-in model, one keyword-only. A query about one of them must find that
one first, every hit says which repository it comes from, the query is embedded once for the two
indexes that share a model, and a repository without an index or with a damaged one is reported
while the others answer.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from codebot.core.config import Config
from codebot.core.errors import CodebotError
from codebot.index.build import build_index
from codebot.index.store import read_manifest
from codebot.query.multi import MultiSearcher, confidences, merge, open_members, searcher_over
from codebot.serve.cli import main

from .conftest import git, write_files

PAYMENTS = {  # Python
    "payments/cards.py": '''\
"""Card payments through the gateway."""


class CardGateway:
    """Talks to the card processor."""

    def charge_card(self, card_number, amount_cents):
        """Charge a credit card and return the receipt id."""
        return self.post("/charges", card_number, amount_cents)

    def refund_charge(self, receipt_id):
        """Refund a charge made earlier, by its receipt id."""
        return self.post("/refunds", receipt_id)


def format_receipt(receipt_id, amount_cents):
    """The receipt line printed for a customer."""
    return f"{receipt_id}: {amount_cents / 100:.2f}"
''',
}
STORAGE = {  # Go
    "cache/lru.go": """\
package cache

// LRU keeps the most recently used entries and evicts the least recently used one when full.
type LRU struct {
	capacity int
	order    []string
	entries  map[string][]byte
}

// Get returns a cached entry and marks it as recently used.
func (c *LRU) Get(key string) ([]byte, bool) {
	value, ok := c.entries[key]
	if ok {
		c.touch(key)
	}
	return value, ok
}

// Evict removes the least recently used entry from the cache.
func (c *LRU) Evict() {
	oldest := c.order[0]
	c.order = c.order[1:]
	delete(c.entries, oldest)
}

func (c *LRU) touch(key string) {
	c.order = append(c.order, key)
}
""",
}
WEBUI = {  # TypeScript
    "src/session.ts": """\
/** Check a user's password against the stored bcrypt hash. */
export async function verifyPassword(user: User, password: string): Promise<boolean> {
  return bcrypt.compare(password, user.passwordHash);
}

export class SessionStore {
  /** Remove expired login sessions from the store. */
  purgeExpired(now: Date): number {
    return this.sessions.deleteWhere((s) => s.expires < now);
  }

  /** Start a login session for a user whose password checked out. */
  open(user: User): Session {
    return this.sessions.insert({ user, expires: later() });
  }
}
""",
}


def _repo(root: Path, name: str, files: dict[str, str]) -> Path:
    repo = root / name
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    write_files(repo, files)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", f"{name}: first")
    return repo


@pytest.fixture(scope="module")
def repos(tmp_path_factory) -> dict[str, Path]:
    """payments and storage with the built-in model's vectors, webui keyword-only."""
    from .conftest import sandbox

    mp = pytest.MonkeyPatch()
    sandbox(mp, tmp_path_factory.mktemp("home"))
    try:
        root = tmp_path_factory.mktemp("multi")
        out = {
            "payments": _repo(root, "payments", PAYMENTS),
            "storage": _repo(root, "storage", STORAGE),
            "webui": _repo(root, "webui", WEBUI),
        }
        build_index(out["payments"], Config(embedder="builtin"))
        build_index(out["storage"], Config(embedder="builtin"))
        build_index(out["webui"], Config(embedder="none"))
    finally:
        mp.undo()
    return out


def test_each_query_is_answered_by_its_repository_first(repos) -> None:
    multi = searcher_over(list(repos.values()))
    for query, repo, symbol in [
        ("charge a credit card", "payments", "payments.cards.CardGateway.charge_card"),
        ("evict the least recently used cache entry", "storage", "cache.lru.LRU.Evict"),
        ("check the user's password", "webui", "src.session.verifyPassword"),
    ]:
        hits = multi.search(query, k=6)
        assert (hits[0].repo, hits[0].id) == (repo, symbol), [(h.repo, h.id) for h in hits]
        # The best repository's hits come before the weaker repositories' best ones.
        assert [h.repo for h in hits[:2]] == [repo, repo]
        assert all(h.repo in repos for h in hits)


def test_each_index_keeps_its_own_commit_and_embedder(repos) -> None:
    answer = searcher_over(list(repos.values())).answer("receipt", k=3)
    described = {m["repo"]: m for m in answer.members}
    for name, path in repos.items():
        assert described[name]["commit"] == git(path, "rev-parse", "HEAD")
        assert described[name]["path"] == str(path.resolve())
    assert described["payments"]["embedder"] == described["storage"]["embedder"] == "builtin"
    assert described["webui"]["embedder"] is None
    assert answer.skipped == []


def test_the_query_is_embedded_once_per_model(repos) -> None:
    members = open_members(list(repos.values()))
    shared = {id(m.searcher.embedder()) for m in members if m.searcher.has_vectors}
    assert len(shared) == 1  # payments and storage: one model, one embedder
    embedder = next(m.searcher.embedder() for m in members if m.searcher.has_vectors)
    multi = MultiSearcher(members)
    multi.answer("refund a charge", k=5)
    assert embedder.computed == 1  # two indexes, ranking and evidence: one embedding
    multi.answer("refund a charge", k=5, graph=True)
    multi.answer("receipt line", k=5)
    assert embedder.computed == 2


def test_confidence_follows_the_evidence_and_drops_what_one_repo_lacks() -> None:
    assert confidences(
        {"a": {"words": 10.0, "cosine": 0.8}, "b": {"words": 5.0, "cosine": 0.4}}
    ) == {
        "a": 1.0,
        "b": pytest.approx(0.25),
    }
    # b has no vectors: the cosines of a and c are left out, the words alone decide.
    assert confidences(
        {
            "a": {"words": 4.0, "cosine": 0.9},
            "b": {"words": 8.0},
            "c": {"words": 0.0, "cosine": 1.0},
        }
    ) == {"a": pytest.approx(0.25), "b": 1.0, "c": 1e-6}


def test_the_naive_merge_interleaves_what_the_calibrated_one_separates(repos) -> None:
    members = open_members(list(repos.values()))
    query = "charge a credit card"
    ranked = {m.name: m.searcher.search(query, k=6) for m in members}
    evidence = {m.name: m.searcher.evidence(query) for m in members}
    for m in members:  # as MultiSearcher does: mixed models, so cosines are not compared
        evidence[m.name].pop("cosine", None)
    raw = [h.repo for h in merge(ranked, 6, "raw")]
    calibrated = [h.repo for h in merge(ranked, 6, "calibrated", confidences(evidence))]
    assert calibrated == [h.repo for h in searcher_over(list(repos.values())).search(query, k=6)]
    assert calibrated.count("payments") > raw.count("payments")
    assert {"storage", "webui"} & set(raw[:3])  # raw: every repository's best near the top


def test_a_missing_or_damaged_index_is_reported_and_the_others_answer(repos, tmp_path) -> None:
    bare = _repo(tmp_path, "bare", {"tools/slug.py": "def slugify(text):\n    return text\n"})
    broken = tmp_path / "broken"
    shutil.copytree(repos["webui"], broken)
    manifest = read_manifest(broken / ".git" / "codebot")
    (broken / ".git" / "codebot" / manifest.generation / "lexical" / "meta.json").unlink()

    answer = searcher_over([repos["payments"], bare, broken]).answer("charge a card", k=5)
    assert {h.repo for h in answer.hits} == {"payments"}
    reasons = {s["repo"]: s["reason"] for s in answer.skipped}
    assert set(reasons) == {"bare", "broken"}
    assert "no index" in reasons["bare"] and "codebot index" in reasons["bare"]
    assert "meta.json" in reasons["broken"]
    assert all("\n" not in line for line in answer.skipped_lines())

    with pytest.raises(CodebotError, match="no repository could answer: bare: .*; broken: "):
        searcher_over([bare, broken]).answer("charge a card")


def test_two_repositories_of_one_name_are_labelled_by_path(repos, tmp_path) -> None:
    other = tmp_path / "elsewhere"
    other.mkdir()
    twin = _repo(other, "payments", {"pay.py": "def pay_invoice(invoice):\n    return invoice\n"})
    build_index(twin, Config(embedder="none"))
    hits = searcher_over([repos["payments"], twin]).search("pay the invoice", k=3)
    assert hits[0].repo == str(twin.resolve()) and hits[0].id == "pay.pay_invoice"


# --- the command ----------------------------------------------------------------------------------


def _search(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, ["search", *args])
    return result.exit_code, result.stdout, result.stderr


def _repo_args(*paths: Path) -> list[str]:
    return [a for p in paths for a in ("--repo", str(p))]


def test_cli_lists_one_ranking_labelled_by_repository(repos) -> None:
    code, out, err = _search(*_repo_args(*repos.values()), "--no-graph", "evict cache entry")
    assert code == 0, err
    first = out.splitlines()[0].split()
    assert first[1:] == ["storage", "cache/lru.go:20-24", "method", "cache.lru.LRU.Evict"]
    assert {line.split()[1] for line in out.splitlines()} <= set(repos)


def test_cli_json_follows_the_schema_with_each_result_s_repository(repos, validate) -> None:
    for flags in (["--json"], ["--format", "json"]):
        code, out, err = _search(*_repo_args(*repos.values()), *flags, "-k", "4", "login session")
        assert code == 0, err
        doc = json.loads(out)
        validate(doc, "search-result.schema.json")
        assert doc["results"][0]["repo"] == "webui"
        assert [r["repo"] for r in doc["repos"]] == ["payments", "storage", "webui"]
        assert len(doc["results"]) == 4 and doc["skipped"] == []


def test_cli_batch_and_tree_over_several_repositories(repos, tmp_path, validate) -> None:
    queries = tmp_path / "q.txt"
    queries.write_text("refund a charge\n" + json.dumps({"query": "evict"}) + "\n")
    code, out, err = _search(*_repo_args(*repos.values()), "--batch", str(queries))
    assert code == 0, err
    docs = [json.loads(line) for line in out.splitlines()]
    for doc in docs:
        validate(doc, "search-result.schema.json")
    assert [d["results"][0]["repo"] for d in docs] == ["payments", "storage"]

    code, out, err = _search(*_repo_args(*repos.values()), "--format", "tree", "charge a card")
    assert code == 0, err
    assert "payments:" in out.splitlines() and "ranked:" in out.splitlines()


def test_cli_reports_a_repository_it_skips_and_fails_when_none_answers(repos, tmp_path) -> None:
    bare = _repo(tmp_path, "bare", {"a.py": "def a():\n    return 1\n"})
    code, out, err = _search(*_repo_args(repos["storage"], bare), "evict")
    assert code == 0 and out.split()[1] == "storage"
    assert err.count("codebot: skipped bare: ") == 1 and len(err.strip().splitlines()) == 1

    code, _, err = _search(*_repo_args(bare), "evict")
    assert code == 1 and "no repository could answer" in err

    code, _, err = _search(*_repo_args(bare), "evict", str(repos["storage"]))
    assert code == 2 and "name every repository with --repo" in err

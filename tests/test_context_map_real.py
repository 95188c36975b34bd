"""``context`` and ``map`` on a real repository: click's own source (the installed package, a
dependency of codebot), with a test module and a documentation page beside it, as a checkout has."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import click
import pytest

from codebot.core.config import Config
from codebot.core.model import is_overload_stub
from codebot.index.build import build_index
from codebot.index.overlay import open_index
from codebot.query.context import asked_roles, context_items, pack_context
from codebot.query.repomap import render_map, repo_map, signature_line
from codebot.query.search import Searcher
from codebot.query.tokens import token_counter

TEST_MODULE = """
import click
from click.testing import CliRunner


def test_envvar_sets_option_value(monkeypatch):
    @click.command()
    @click.option("--name", envvar="APP_NAME")
    def cli(name):
        click.echo(name)

    monkeypatch.setenv("APP_NAME", "from-environment")
    result = CliRunner().invoke(cli, [])
    assert result.output == "from-environment\\n"


def test_auto_envvar_prefix_maps_environment_variables_to_options():
    @click.command(context_settings={"auto_envvar_prefix": "APP"})
    @click.option("--port")
    def cli(port):
        click.echo(port)

    result = CliRunner().invoke(cli, [], env={"APP_PORT": "8080"})
    assert result.output == "8080\\n"
"""

DOC_PAGE = """# Values from environment variables

Options can read their values from environment variables. Give an option
`envvar="NAME"` to map one environment variable to it, or give the context an
`auto_envvar_prefix` and every option is mapped to the environment variable
named by the prefix and the option name in upper case: with the prefix `APP`,
`--port` reads `APP_PORT`. Environment variables are only read when the
option was not given on the command line.
"""


@pytest.fixture(scope="module")
def click_repo(tmp_path_factory: pytest.TempPathFactory):
    root = tmp_path_factory.mktemp("click-checkout")
    shutil.copytree(
        Path(click.__file__).parent, root / "src" / "click", ignore=shutil.ignore_patterns("*.pyc")
    )
    (root / "tests").mkdir()
    (root / "tests" / "test_options.py").write_text(TEST_MODULE)
    (root / "docs").mkdir()
    (root / "docs" / "options.md").write_text(DOC_PAGE)
    env = {
        **os.environ,
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CONFIG_GLOBAL": str(root / ".gitconfig-none"),
        "GIT_AUTHOR_NAME": "Codebot Test",
        "GIT_AUTHOR_EMAIL": "test@codebot.invalid",
        "GIT_COMMITTER_NAME": "Codebot Test",
        "GIT_COMMITTER_EMAIL": "test@codebot.invalid",
    }
    for args in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-q", "-m", "click"]):
        subprocess.run(["git", *args], cwd=root, check=True, env=env, capture_output=True)
    config = Config(embedder="none", index_dir=str(root.parent / (root.name + "-idx")))
    build_index(root, config)
    return Searcher(open_index(root, config), config)


QUESTION = "how are environment variables mapped to options"


def test_context_spends_the_budget_on_code_before_tests_and_docs(click_repo):
    searcher = click_repo
    counter = token_counter("wordpiece")
    answer = searcher.answer(QUESTION, k=10, mode="bm25")
    ranked_roles = [h.symbol.role for h in answer.hits]
    # The ranking itself puts the documentation page or the test among the first hits, ahead of
    # code: the case the packer is for.
    first_aside = next(i for i, r in enumerate(ranked_roles) if r in ("docs", "test"))
    assert "source" in ranked_roles[first_aside + 1 :], ranked_roles

    packed = pack_context(searcher.index, answer, 2000, counter)
    roles = [searcher.index.symbols[searcher.index.by_id[i["id"]]].role for i in packed.items]
    assert roles and roles[0] == "source"
    # Every code item comes before every test and documentation item.
    aside = [i for i, r in enumerate(roles) if r in ("docs", "test", "example")]
    assert not aside or all(r == "source" for r in roles[: aside[0]])
    assert all(r in ("docs", "test", "example") for r in roles[aside[0] :]) if aside else True
    # The code the old order left as a signature is shown in full now.
    assert packed.tokens <= 2000
    full_source = [i for i, r in zip(packed.items, roles) if r == "source" and i["shown"] == "full"]
    assert len(full_source) >= 3

    # Asked for, tests and documentation keep their rank among the code (a budget that reaches
    # the first of them: the ranking puts it 6th to 8th).
    asked = pack_context(searcher.index, answer, 4000, counter, include=("tests", "docs"))
    asked_roles_list = [
        searcher.index.symbols[searcher.index.by_id[i["id"]]].role for i in asked.items
    ]
    assert asked_roles_list.index(ranked_roles[first_aside]) < len(asked_roles_list) - 1
    assert asked_roles_list[: first_aside + 1] == ranked_roles[: first_aside + 1]


def test_a_question_about_tests_or_docs_asks_for_them(click_repo):
    assert asked_roles("how is the progress bar tested") == {"test"}
    assert asked_roles("where are the docs for shell completion") == {"docs"}
    assert asked_roles("how is a missing required option reported") == set()
    assert asked_roles("parse options", include=("examples",)) == {"example"}
    answer = click_repo.answer("which tests cover environment variables for options", mode="bm25")
    items = context_items(answer)
    roles = [s.role for s, _ in items]
    # Asked for tests: a test keeps its place among the hits instead of going to the end.
    hit_roles = [h.symbol.role for h in answer.hits]
    assert "test" in hit_roles
    assert roles.index("test") == hit_roles.index("test")


def test_map_nests_methods_shows_central_classes_and_no_comments_or_stubs(click_repo):
    index = click_repo.index
    counter = token_counter("wordpiece")
    m = repo_map(index, 1024, counter)
    assert m.tokens == counter.count(m.text) <= 1024
    lines = m.text.splitlines()
    shown = {line.split("│ ", 1)[1].strip() for line in lines if "│ " in line}
    # The central classes of click, by their own rank and their members'.
    for name in ("Context", "Command", "Group", "Parameter", "Option"):
        assert any(s.startswith(f"class {name}") for s in shown), (name, m.text)
    # A method is printed under its class: the nearest line above it with less indent is the
    # class's own line.
    for i, line in enumerate(lines):
        if "│     def " in line:
            above = next(ln for ln in reversed(lines[:i]) if "│ " in ln and "│     " not in ln)
            assert "class " in above, (line, above)
    # Overload stubs are left out (click's Context.invoke, lookup_default ... are overload sets).
    stubs = [s for s in index.symbols if is_overload_stub(s)]
    assert stubs
    full = repo_map(index, 100_000, counter)
    assert not any(index.symbols[r].id in {s.id for s in stubs} for r in full.rows)
    # No comment is printed as part of a signature, even where the source has one in its header.
    commented = [
        s
        for s in index.symbols
        if s.language == "python" and s.kind in ("function", "method") and "#" in s.signature
    ]
    assert commented, "click has signatures with comments: the check below must bite"
    for s in commented:
        assert "#" not in signature_line(index, s).replace('"#"', "").replace("'#'", ""), s.id
    assert "#" not in "".join(
        ln.split("│ ", 1)[1] for ln in full.text.splitlines() if "│ " in ln and '"#' not in ln
    )


def test_map_budget_stays_exact_with_class_lines(click_repo):
    index = click_repo.index
    counter = token_counter("wordpiece")
    for budget in (40, 200, 700, 3000):
        m = repo_map(index, budget, counter)
        assert m.tokens == counter.count(m.text) <= budget
        from codebot.query.repomap import rank_symbols

        more = render_map(index, rank_symbols(index)[: m.symbols + 1])
        assert counter.count(more) > budget


def test_the_call_trees_never_put_another_definition_above_a_named_one(click_repo):
    """What ``codebot search Class.method`` prints is the answer, after the graph stage: its
    evidence (a community's boost) lifted, on click, ``Argument.get_help_record`` above the
    ``Parameter.get_help_record`` asked for, and ``Group.group`` above ``Group.invoke``."""
    searcher = click_repo
    asked, wrong = set(), []
    for s in searcher.index.symbols:
        if s.kind == "method" and s.class_name and "#" not in s.id:
            query = f"{s.class_name}.{s.name}"
            if query in asked:
                continue
            asked.add(query)
            top = searcher.answer(query, k=10, mode="bm25").hits[0]
            if top.id.split("#")[0] != s.id:
                wrong.append(f"{query} -> {top.id}")
    assert len(asked) > 200 and not wrong, wrong


def test_a_long_body_is_cut_to_its_signature_and_the_lines_the_question_names(click_repo):
    """At a small budget a long function shows its signature and the lines that share the
    question's words, so that the hits after it get room; with budget to spare, it is whole."""
    from codebot.query.context import EXCERPT_SHARE, excerpt

    searcher = click_repo
    counter = token_counter("wordpiece")
    answer = searcher.answer(QUESTION, k=10, mode="bm25")
    index = searcher.index
    small = pack_context(index, answer, 500, counter)
    assert small.tokens <= 500
    cut = [i for i in small.items if i["shown"] == "excerpt"]
    assert cut, [(i["id"], i["shown"]) for i in small.items]
    for item in cut:
        s = index.symbols[index.by_id[item["id"]]]
        body = index.code(s, outline=True).splitlines()
        lines = [n for a, b in item["lines"] for n in range(a, b + 1)]
        assert s.start_line <= lines[0] and lines[-1] <= s.end_line and len(lines) < len(body)
        assert body[lines[0] - s.start_line].lstrip().startswith(("def ", "class ", "@"))
        assert f"`{s.id}`  {s.path}:{s.start_line}-{s.end_line}" in small.text
    # More items than whole bodies alone would have left room for.
    whole = sum(1 for i in small.items if i["shown"] == "full")
    assert whole + len(cut) >= 3

    # The excerpt of one long function: its signature first, then only lines that share a word
    # with the question (environment, variables, options, mapped), a `...` for each gap.
    s = index.symbols[index.by_id["src.click.core.Option.resolve_envvar_value"]]
    code = index.code(s)
    text, ranges = excerpt(s, code, QUESTION, 120, counter)
    lines = text.splitlines()
    assert lines[0].strip().startswith("def resolve_envvar_value(")
    assert ranges[0][0] == s.start_line and counter.count(text) <= 120 + 4
    assert "..." in lines and len(lines) < len(code.splitlines())
    words = ("envir", "varia", "mappe", "optio")
    past = [x for x in lines[1:] if x.strip() != "..." and not x.strip().startswith(("self", ")"))]
    assert past and all(any(w in x.lower() for w in words) for x in past), lines

    # With budget to spare every excerpt became the whole body.
    big = pack_context(index, answer, 20000, counter)
    assert all(i["shown"] == "full" for i in big.items)
    assert 0 < EXCERPT_SHARE < 1

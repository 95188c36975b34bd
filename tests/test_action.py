"""The GitHub Action: its metadata, and its entry steps run with the environment GitHub sets,
against a local server that answers GitHub's REST API."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from codebot.serve.action import MARKER
from codebot.serve.cli import main

from .conftest import git
from .fake_github import FakeServer

ACTION = Path(__file__).resolve().parent.parent / "action"
FILES = {
    "shop/prices.py": (
        "def price(item):\n    return item.cost\n\n\ndef legacy_rate():\n    return 1\n"
    ),
    "shop/cart.py": (
        "from shop.prices import price, legacy_rate\n\n\n"
        "def total(items):\n    return sum(price(i) for i in items) * legacy_rate()\n"
    ),
    "tests/test_cart.py": (
        "from shop.cart import total\n\n\ndef test_total():\n    assert total([]) == 0\n"
    ),
}


@pytest.fixture
def github():
    server = FakeServer()
    yield server
    server.close()


def pull_request(make_repo, tmp_path, fork: bool = False):
    """A repository whose pull request deletes a function that is still called."""
    repo = make_repo(FILES)
    base = git(repo, "rev-parse", "HEAD")
    (repo / "shop/prices.py").write_text("def price(item):\n    return item.cost * 2\n")
    git(repo, "commit", "-qam", "drop legacy_rate")
    head = git(repo, "rev-parse", "HEAD")
    event = {
        "number": 7,
        "pull_request": {
            "number": 7,
            "base": {"sha": base, "repo": {"full_name": "acme/shop"}},
            "head": {
                "sha": head,
                "repo": {"full_name": "someone/shop" if fork else "acme/shop", "fork": fork},
            },
        },
    }
    event_path = tmp_path / "event.json"
    event_path.write_text(json.dumps(event))
    return repo, base, head, event_path


def action_env(github, tmp_path, event_path, sha: str, name: str = "pull_request") -> dict:
    summary, output = tmp_path / "summary.md", tmp_path / "output.txt"
    summary.touch()
    output.touch()
    return {
        "GITHUB_EVENT_NAME": name,
        "GITHUB_EVENT_PATH": str(event_path),
        "GITHUB_REPOSITORY": "acme/shop",
        "GITHUB_API_URL": github.url,
        "GITHUB_SERVER_URL": "https://github.com",
        "GITHUB_SHA": sha,
        "GITHUB_TOKEN": "ghs_secret_token_value",
        "GITHUB_STEP_SUMMARY": str(summary),
        "GITHUB_OUTPUT": str(output),
        "CODEBOT_EMBEDDER": "none",
        "CODEBOT_ARTIFACTS": "",
    }


def run(repo: Path, env: dict, *args: str):
    import os

    old = os.getcwd()
    try:
        os.chdir(repo)
        return CliRunner().invoke(main, ["action", *args], env=env)
    finally:
        os.chdir(old)


def outputs(path: Path) -> dict[str, str]:
    """Parse GITHUB_OUTPUT as the runner does (name<<DELIM ... DELIM)."""
    text, out = path.read_text(), {}
    for m in re.finditer(r"^([\w-]+)<<(\S+)\n(.*?)\n\2$", text, re.S | re.M):
        out[m.group(1)] = m.group(3)
    return out


def test_pr_comment_is_created_then_edited_in_place(make_repo, tmp_path, github, validate):
    repo, base, head, event = pull_request(make_repo, tmp_path)
    env = action_env(github, tmp_path, event, head)
    first = run(repo, env, "pr", "--json")
    assert first.exit_code == 0, first.output
    result = json.loads(first.output)
    assert result["comment"] == "created" and result["impact"]["deleted"] == 1
    [comment] = github.comments[7]
    body = comment["body"]
    assert body.startswith(MARKER)
    # The deleted function is still called: its caller is named, linked at the head.
    assert "**1 removed or moved definition(s) still named:**" in body
    assert f"(https://github.com/acme/shop/blob/{head}/shop/cart.py#L4)" in body
    # Summary, outputs and the JSON report beside them.
    assert "still named" in (tmp_path / "summary.md").read_text()
    out = outputs(tmp_path / "output.txt")
    assert out["report"] == body
    validate(json.loads(Path(out["report-json"]).read_text()), "impact.schema.json")

    second = run(repo, env, "pr", "--json")
    assert json.loads(second.output)["comment"] == "updated"
    assert len(github.comments[7]) == 1  # one comment, edited in place
    assert any(r.method == "PATCH" for r in github.requests)
    # The token went into headers only, never into what the job printed.
    assert "ghs_secret_token_value" not in first.output + second.output
    assert "ghs_secret_token_value" not in (tmp_path / "summary.md").read_text()


def test_comment_found_among_many_pages(make_repo, tmp_path, github):
    repo, base, head, event = pull_request(make_repo, tmp_path)
    github.page_size = 2
    github.comments[7] = [{"id": 1000 + i, "body": f"review {i}"} for i in range(5)]
    env = action_env(github, tmp_path, event, head)
    assert json.loads(run(repo, env, "pr", "--json").output)["comment"] == "created"
    assert json.loads(run(repo, env, "pr", "--json").output)["comment"] == "updated"
    assert sum(MARKER in c["body"] for c in github.comments[7]) == 1


def test_fork_gets_the_summary_and_no_comment(make_repo, tmp_path, github):
    repo, base, head, event = pull_request(make_repo, tmp_path, fork=True)
    env = action_env(github, tmp_path, event, head)
    result = run(repo, env, "pr")
    assert result.exit_code == 0, result.output
    assert "comment skipped (the pull request comes from a fork" in result.output
    assert not github.comments.get(7)
    summary = (tmp_path / "summary.md").read_text()
    assert "still named" in summary and "fork" in summary


def test_read_only_token_skips_the_comment_and_succeeds(make_repo, tmp_path, github):
    repo, base, head, event = pull_request(make_repo, tmp_path)
    github.read_only = True
    env = action_env(github, tmp_path, event, head)
    result = run(repo, env, "pr")
    assert result.exit_code == 0, result.output
    assert "comment skipped (the token may not comment" in result.output


def test_base_missing_from_a_shallow_checkout_says_fetch_depth(make_repo, tmp_path, github):
    repo, base, head, event = pull_request(make_repo, tmp_path)
    data = json.loads(event.read_text())
    data["pull_request"]["base"]["sha"] = "0" * 40
    event.write_text(json.dumps(data))
    result = run(repo, action_env(github, tmp_path, event, head), "pr")
    assert result.exit_code == 1 and "fetch-depth: 0" in result.output


def test_publish_on_push(make_repo, tmp_path, github):
    repo = make_repo(FILES)
    sha = git(repo, "rev-parse", "HEAD")
    event = tmp_path / "push.json"
    event.write_text(json.dumps({"ref": "refs/heads/main", "after": sha}))
    env = {
        **action_env(github, tmp_path, event, sha, "push"),
        "CODEBOT_ARTIFACTS": "github:acme/shop",
    }
    result = run(repo, env, "publish", "--json")
    assert result.exit_code == 0, result.output
    assert github.asset_names() == [f"codebot-index-v2-{sha}.tar.gz"]
    assert outputs(tmp_path / "output.txt")["artifact"]


def test_outside_actions_it_says_what_to_run_instead(tmp_path):
    result = CliRunner().invoke(main, ["action", "pr"], env={"GITHUB_REPOSITORY": ""})
    assert result.exit_code == 1 and "codebot impact" in result.output


# --- the metadata ---------------------------------------------------------------------------------


def test_action_metadata_is_valid_and_injection_safe():
    meta = yaml.safe_load((ACTION / "action.yml").read_text())
    assert {"name", "description", "runs"} <= set(meta)
    assert meta["runs"]["using"] == "composite"
    assert meta["branding"]["color"] in {
        "white", "black", "yellow", "blue", "green", "orange", "red", "purple", "gray-dark",
    }  # fmt: skip
    inputs = meta["inputs"]
    assert all("description" in spec for spec in inputs.values())
    text = (ACTION / "action.yml").read_text()
    used = set(re.findall(r"inputs\.([\w-]+)", text))
    assert used <= set(inputs), f"undeclared inputs: {used - set(inputs)}"
    step_ids = {s.get("id") for s in meta["runs"]["steps"]}
    for out in meta["outputs"].values():
        assert re.fullmatch(r"\$\{\{ steps\.([\w-]+)\.outputs\.[\w-]+ \}\}", out["value"])
        assert re.search(r"steps\.([\w-]+)", out["value"]).group(1) in step_ids
    for step in meta["runs"]["steps"]:
        if "run" in step:
            assert step.get("shell") == "bash"  # required on every run step of a composite
            assert "${{" not in step["run"], "inputs reach scripts through env, never inline"


def test_example_workflows_use_pull_request_and_least_permissions():
    publish = yaml.safe_load((ACTION / "examples/publish.yml").read_text())
    pr = yaml.safe_load((ACTION / "examples/pr-context.yml").read_text())
    assert publish["permissions"] == {"contents": "write"}
    assert pr["permissions"] == {
        "contents": "read",
        "pull-requests": "write",
        "issues": "write",
    }
    triggers = pr[True] if True in pr else pr["on"]  # YAML 1.1 reads `on` as True
    assert "pull_request" in triggers and "pull_request_target" not in triggers
    for workflow in (publish, pr):
        steps = next(iter(workflow["jobs"].values()))["steps"]
        assert steps[0]["uses"].startswith("actions/checkout@")
        assert steps[0]["with"]["fetch-depth"] == 0


def test_the_pull_requests_own_settings_choose_nothing(make_repo, tmp_path, github):
    """A fork's first commit adds a .codebot.toml that would send GITHUB_TOKEN to its server:
    the job reads the base commit's settings, so nothing is sent and the job still runs."""
    repo, base, _, event = pull_request(make_repo, tmp_path, fork=True)
    (repo / ".codebot.toml").write_text(
        f'embedder = "openai-compatible:{github.url}/v1#m"\n'
        'embed_api_key_env = "GITHUB_TOKEN"\nignore = ["shop/"]\n'
    )
    git(repo, "add", ".codebot.toml")
    git(repo, "commit", "-qm", "settings")
    head = git(repo, "rev-parse", "HEAD")
    data = json.loads(event.read_text())
    data["pull_request"]["head"]["sha"] = head
    event.write_text(json.dumps(data))
    env = action_env(github, tmp_path, event, head)
    del env["CODEBOT_EMBEDDER"]  # the settings files decide
    (repo / ".codebot.toml").unlink()  # the checkout a workflow would have: files of the head
    git(repo, "checkout", "-q", "--", ".codebot.toml")
    result = run(repo, env, "pr", "--json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["impact"]["deleted"] == 1  # shop/ was not ignored
    assert not any("/v1/embeddings" in r.path for r in github.requests)
    assert "ghs_secret_token_value" not in (tmp_path / "summary.md").read_text()


def test_publish_precise_without_node_publishes_and_says_what_is_missing(
    make_repo, tmp_path, github, monkeypatch
):
    import shutil

    repo = make_repo(FILES)
    sha = git(repo, "rev-parse", "HEAD")
    event = tmp_path / "push.json"
    event.write_text(json.dumps({"ref": "refs/heads/main", "after": sha}))
    env = {
        **action_env(github, tmp_path, event, sha, "push"),
        "CODEBOT_ARTIFACTS": "github:acme/shop",
    }
    bare = tmp_path / "bin"
    bare.mkdir()
    (bare / "git").symlink_to(shutil.which("git"))
    monkeypatch.setenv("PATH", str(bare))  # no node, no indexer
    result = run(repo, env, "publish", "--precise", "--json")
    assert result.exit_code == 0, result.output
    assert github.asset_names() == [f"codebot-index-v2-{sha}.tar.gz"]
    summary = (tmp_path / "summary.md").read_text()
    assert "no precise edges (scip-python: needs Node.js" in summary
    assert "npm install -g @sourcegraph/scip-python" in summary

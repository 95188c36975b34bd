"""The GitHub Action's two jobs (``action/action.yml`` runs them as ``codebot action ...``).

``publish`` (on push to the default branch): pull the nearest published index, bring it to the
pushed commit, publish it. ``pr`` (on pull_request): get an index (pull, or build), run
``impact`` on base..head, write the report to the job summary and the step outputs, and keep one
comment on the pull request up to date: created once, then edited in place (a hidden marker finds
it). A pull request from a fork gets a read-only token: the job still succeeds, writes the
summary, and says why no comment was posted.

Everything comes from the environment GitHub sets, read by the CLI into :class:`ActionEnv` (the
library never reads the environment itself).
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from codebot.core.config import Config, load_config, repository_settings
from codebot.core.errors import CodebotError
from codebot.git.workspace import Workspace

__all__ = [
    "ActionEnv",
    "MARKER",
    "base_config",
    "pr_context",
    "pr_text",
    "precise_edges",
    "publish_index",
    "publish_text",
]

MARKER = "<!-- codebot-impact -->"


@dataclass
class ActionEnv:
    event_name: str
    event: dict[str, Any]
    repository: str  # owner/repo
    api_url: str
    server_url: str
    sha: str
    token: str | None = None
    summary: Path | None = None  # GITHUB_STEP_SUMMARY
    output: Path | None = None  # GITHUB_OUTPUT
    notes: list[str] = field(default_factory=list)

    @classmethod
    def from_environ(cls, env: Mapping[str, str]) -> ActionEnv:
        missing = [k for k in ("GITHUB_REPOSITORY", "GITHUB_SHA") if not env.get(k)]
        if missing:
            raise CodebotError(
                f"{', '.join(missing)} not set: `codebot action` runs inside GitHub Actions "
                "(run `codebot impact` or `codebot publish` locally instead)"
            )
        event: dict[str, Any] = {}
        if env.get("GITHUB_EVENT_PATH"):
            try:
                event = json.loads(Path(env["GITHUB_EVENT_PATH"]).read_text())
            except (OSError, ValueError) as exc:
                raise CodebotError(f"{env['GITHUB_EVENT_PATH']}: unreadable event: {exc}") from exc
        return cls(
            event_name=env.get("GITHUB_EVENT_NAME", ""),
            event=event,
            repository=env["GITHUB_REPOSITORY"],
            api_url=env.get("GITHUB_API_URL", "https://api.github.com"),
            server_url=env.get("GITHUB_SERVER_URL", "https://github.com"),
            sha=env["GITHUB_SHA"],
            token=env.get("GITHUB_TOKEN") or env.get("GH_TOKEN") or None,
            summary=Path(env["GITHUB_STEP_SUMMARY"]) if env.get("GITHUB_STEP_SUMMARY") else None,
            output=Path(env["GITHUB_OUTPUT"]) if env.get("GITHUB_OUTPUT") else None,
        )

    def configure(self, config: Config) -> Config:
        """The config with this run's GitHub API (GitHub Enterprise Server has its own)."""
        return replace(config, github_api_url=self.api_url)

    def github(self):
        from codebot.share.github import GitHub

        owner, repo = self.repository.split("/", 1)
        return GitHub(owner, repo, self.api_url, self.token)

    def write_summary(self, text: str) -> None:
        if self.summary is not None:
            with open(self.summary, "a", encoding="utf-8") as f:
                f.write(text.rstrip("\n") + "\n")

    def set_output(self, name: str, value: str) -> None:
        """A step output; multi-line values use a delimiter no line of the value can be."""
        if self.output is None:
            return
        delimiter = f"codebot_{secrets.token_hex(8)}"
        with open(self.output, "a", encoding="utf-8") as f:
            f.write(f"{name}<<{delimiter}\n{value}\n{delimiter}\n")


def _prepare_index(
    path: Workspace | str | Path, config: Config, env: ActionEnv, commit: str
) -> str:
    """Bring the index to ``commit``: from the nearest published artifact when a store is
    configured, else built here. Returns what happened, for the summary."""
    from codebot.index.update import update_index

    note = ""
    if config.artifacts:
        from codebot.core.errors import ArtifactError, RemoteError
        from codebot.share.sync import pull

        try:
            pulled = pull(path, config, token=env.token, update=False)
            note = f"pulled {pulled.asset} from {pulled.source}; " if pulled.asset else ""
        except (ArtifactError, RemoteError) as exc:
            note = f"no artifact pulled ({exc}); "
    report = update_index(path, config, to=commit)
    return f"{note}index {report.action} at {commit[:12]}"


def base_config(ws: Workspace, env: ActionEnv, flags: dict[str, Any] | None = None) -> Config:
    """The settings of a pull request's job, from its base commit: the head is whatever the
    pull request's author wrote (a fork's first commit may add a .codebot.toml), so its files
    choose nothing here. Without a pull request event or its base commit: the checkout's."""
    pr = env.event.get("pull_request") or {}
    base = (pr.get("base") or {}).get("sha")
    repo = ws.repo
    if not isinstance(base, str) or repo is None or not repo.has_commit(base):
        return load_config(ws.root, flags)

    def read(name: str) -> bytes | None:
        blob = repo.blob_at(base, name)
        return repo.blob(blob) if blob is not None else None

    found = repository_settings(read, f"{ws.root} at {base[:12]}")
    return load_config(ws.root, flags, repository=found or ({}, "base commit"))


def pr_context(
    where: Workspace | str | Path,
    config: Config,
    env: ActionEnv,
    depth: int = 3,
    comment: bool = True,
) -> dict[str, Any]:
    """The pull request job; returns what it did (``comment``: created, updated or skipped)."""
    from codebot.query.impact import impact, impact_markdown

    config = env.configure(config)
    pr = env.event.get("pull_request")
    if not pr:
        raise CodebotError(
            f"`codebot action pr` needs a pull_request event, not {env.event_name or 'none'!r}"
        )
    base, head, number = pr["base"]["sha"], pr["head"]["sha"], int(pr["number"])
    ws = Workspace.of(where, config.index_dir)
    repo = ws.repo
    if repo is None:
        raise CodebotError(f"{ws.root}: not a git checkout (add actions/checkout before codebot)")
    for sha, end in ((base, "base"), (head, "head")):
        if not repo.has_commit(sha):
            raise CodebotError(
                f"the {end} commit {sha[:12]} is not in the checkout: use actions/checkout "
                "with fetch-depth: 0"
            )
    prepared = _prepare_index(ws, config, env, base)
    doc = impact(ws, config, base, head, depth)
    link = f"{env.server_url.rstrip('/')}/{env.repository}/blob/{head}"
    body = impact_markdown(doc, link, marker=MARKER)
    result: dict[str, Any] = {"base": base, "head": head, "index": prepared}
    result["comment"], result["reason"] = (
        _comment(env, number, body, pr) if comment else ("skipped", "comment: false")
    )
    footer = f"\n_{prepared}; comment {result['comment']}"
    footer += f": {result['reason']}_" if result["reason"] else "_"
    env.write_summary(body + footer)
    env.set_output("report", body)
    if env.summary is not None:  # the JSON beside the summary, for later steps
        report_path = env.summary.parent / "codebot-impact.json"
        report_path.write_text(json.dumps(doc, indent=1))
        env.set_output("report-json", str(report_path))
    result["impact"] = doc["summary"]
    return result


def _comment(env: ActionEnv, number: int, body: str, pr: dict[str, Any]) -> tuple[str, str]:
    """Create or edit the one codebot comment; (what happened, why it was skipped)."""
    from codebot.core.errors import RemoteError

    head_repo = (pr["head"].get("repo") or {}).get("full_name")
    if head_repo != pr["base"]["repo"]["full_name"]:
        return "skipped", (
            "the pull request comes from a fork, whose token is read-only; the report is in "
            "this job's summary"
        )
    if not env.token:
        return "skipped", "no token: pass github-token (pull-requests: write) to the action"
    github = env.github()
    try:
        ours = next((c for c in github.comments(number) if MARKER in (c.get("body") or "")), None)
        if ours is None:
            github.create_comment(number, body)
            return "created", ""
        github.update_comment(ours["id"], body)
        return "updated", ""
    except RemoteError as exc:
        if "HTTP 403" in str(exc) or "HTTP 404" in str(exc):
            return "skipped", f"the token may not comment ({exc})"
        raise
    finally:
        github.close()


def publish_index(
    path: Workspace | str | Path,
    config: Config,
    env: ActionEnv,
    target: str | None = None,
    precise: bool = False,
) -> dict[str, Any]:
    """The push job: the index of the pushed commit, published to ``target`` (default: the
    ``artifacts`` setting, else this repository's GitHub Releases). ``precise``: run the SCIP
    indexers first and merge their edges (without them, the index is published as it is)."""
    from codebot.share.sync import publish

    config = env.configure(config)
    target = target or config.artifacts or "github"
    prepared = _prepare_index(path, config, env, env.sha)
    if precise:
        prepared += "; " + precise_edges(Workspace.of(path, config.index_dir))
    report = publish(path, config, target, token=env.token)
    env.write_summary(
        f"codebot: {prepared}; published {report.artifact.get('asset', '')} to {report.target}"
        + (f" (pruned {len(report.pruned)} old artifacts)" if report.pruned else "")
    )
    env.set_output("artifact", report.location)
    return {"index": prepared, **report.to_dict()}


def precise_edges(ws: Workspace) -> str:
    """Run the SCIP indexers of the index's languages and merge their edges; what happened, in
    a line (what is missing, or a failed indexer, is said and the job goes on)."""
    import sys
    import tempfile

    from codebot.core.errors import PreciseError
    from codebot.graph.scip import read_scip
    from codebot.index.precise import apply_precise
    from codebot.index.store import read_index
    from codebot.serve.indexers import run_indexers

    said: list[str] = []

    def say(line: str) -> None:
        said.append(line)
        print(line, file=sys.stderr)

    try:
        with tempfile.TemporaryDirectory(prefix="codebot-scip-") as tmp:
            languages = {f.language for f in read_index(ws).files()}
            paths = run_indexers(ws.root, languages, "auto", Path(tmp), say,
                                 echo=lambda line: print(line, file=sys.stderr))  # fmt: skip
            report = apply_precise(ws, [read_scip(p) for p in paths])
    except PreciseError as exc:
        missing = "; ".join(line for line in said if not line.startswith("running "))
        return f"no precise edges ({missing + '; ' if missing else ''}{exc})"
    d = report.to_dict()
    return (
        f"{d['merged']['edges']} precise edges from {', '.join(report.tools)} "
        f"({d['mapped_share']:.1%} of references mapped)"
    )


def pr_text(result: dict[str, Any]) -> str:
    """What ``codebot action pr`` did, in one line."""
    s = result["impact"]
    why = f" ({result['reason']})" if result["reason"] else ""
    return (
        f"impact {result['base'][:10]}..{result['head'][:10]}: {s['modified']} modified, "
        f"{s['added']} added, {s['deleted']} deleted, {s['renamed']} renamed; "
        f"{result['index']}; comment {result['comment']}{why}\n"
    )


def publish_text(result: dict[str, Any]) -> str:
    """What ``codebot action publish`` did, in one line."""
    return f"{result['index']}; published to {result['target']}: {result['location']}\n"

"""Sharing the index: ``pull`` (the nearest ancestor's artifact, installed, then updated to HEAD),
``publish`` (pack and upload, prune the oldest) and ``init`` (the set-up of a new clone).

    HEAD ─first parent─► ... ─► C (has an artifact) ── download ─► verify ─► install (atomic)
                                                                             │
    HEAD ◄──────────────── incremental update (git diff C..HEAD) ◄───────────┘

The artifact format and its checks are ``artifacts``; the stores are ``remote``.
"""

from __future__ import annotations

import re
import shutil
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from codebot.core.config import Config, user_config_path
from codebot.core.errors import ArtifactError, CodebotError, ConfigError, NoArtifact, RemoteError
from codebot.core.http import redact
from codebot.git.repo import short_commit
from codebot.git.workspace import Workspace
from codebot.index.store import FORMAT_VERSION, claim, read_manifest
from codebot.parse.files import Selector
from codebot.share.artifacts import install, pack, same_setup
from codebot.share.remote import (
    Progress,
    Transfer,
    asset_name,
    commit_of,
    known_formats,
)
from codebot.share.s3 import S3Options
from codebot.share.stores import open_remote

__all__ = [
    "PullReport",
    "PublishReport",
    "InitReport",
    "pull",
    "publish",
    "init",
    "save_setting",
    "pull_text",
]


@dataclass
class PullReport:
    action: str  # pulled, kept (no artifact nearer to HEAD than the local index) or up-to-date
    source: str
    head: str
    commit: str | None  # the commit of the index installed (or kept)
    asset: str | None
    bytes: int = 0
    behind: int = 0  # first-parent commits from that commit to HEAD (-1: not on that line)
    note: str = ""
    seconds: float = 0.0
    timings: dict[str, float] = field(default_factory=dict)
    update: dict[str, Any] | None = None

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["timings"] = {k: round(v, 3) for k, v in self.timings.items()}
        data["seconds"] = round(self.seconds, 3)
        return data

    def to_text(self) -> str:
        return pull_text(self.to_dict())


def pull_text(p: dict[str, Any]) -> str:
    """A pull report (as a dict: an init report holds one) in one line."""
    if p["action"] == "pulled":
        behind = f", {p['behind']} commit(s) behind HEAD" if p["behind"] > 0 else ""
        t = p["timings"]
        text = (
            f"pulled {p['asset']} ({p['bytes'] / 1e6:.1f} MB{behind}) from {p['source']}: "
            f"downloaded in {t.get('download', 0):.1f}s, installed in {t.get('install', 0):.1f}s"
        )
    else:
        text = p["note"]
    if p["update"]:
        text += f"; {p['update']['action']} at {short_commit(p['update']['commit'])}"
    return text + "\n"


def pull(
    where: Workspace | str | Path,
    config: Config,
    source: str | None = None,
    *,
    token: str | None = None,
    transfer: Transfer | None = None,
    progress: Progress | None = None,
    parse_progress=None,
    embedder=None,
    update: bool = True,
    wait: float = 0.0,
) -> PullReport:
    """Install the artifact of the nearest first-parent ancestor of HEAD (at most
    ``config.pull_depth`` commits back) that has one, then update the index to HEAD.

    ``source``: a store (see ``stores.open_remote``; default ``config.artifacts``) or an
    artifact file. No download when the index in place is as near to HEAD as any artifact.
    ``progress``: (bytes, total) of the download; ``parse_progress``: the update's.
    """
    started = time.perf_counter()
    ws = Workspace.of(where, config.index_dir)
    root, index_dir, subtree, repo = ws.root, ws.index_dir, ws.subtree, ws.repo
    head = repo.head_commit() if repo is not None else None
    if repo is None or head is None:
        raise ArtifactError(
            f"{root}: pull needs a git repository with a commit (it looks by commit)"
        )
    chain = repo.first_parents(head, config.pull_depth)
    spec = _resolve(source or config.artifacts, root)
    timings: dict[str, float] = {}
    if spec and not _is_store(spec) and Path(spec).is_file():
        manifest = install(ws, config, Path(spec), embedder=embedder, wait=wait)
        report = PullReport("pulled", f"file {spec}", head, manifest.commit, Path(spec).name)
        report.bytes = Path(spec).stat().st_size
        timings["install"] = time.perf_counter() - started
    else:
        current = _usable_commit(index_dir, root, repo, subtree, config, embedder)
        newer = chain[: chain.index(current)] if current in chain else chain
        remote = _open(spec, repo, config, token, transfer)
        try:
            report = _fetch(
                remote, newer, chain, current, ws, config, embedder, wait, progress, timings
            )
        finally:
            remote.close()
        report.head = head
    if report.commit in chain:
        report.behind = chain.index(report.commit)
    elif report.commit is not None:
        report.behind = -1
    if update:
        from codebot.index.update import update_index

        t = time.perf_counter()
        updated = update_index(ws, config, wait=wait, progress=parse_progress, embedder=embedder)
        report.update = updated.to_dict()
        timings["update"] = time.perf_counter() - t
    report.timings, report.seconds = timings, time.perf_counter() - started
    return report


def _fetch(remote, newer, chain, current, ws, config, embedder, wait, progress, timings):
    """Download and install the first of ``newer`` (commits, newest first) the store holds."""
    where = remote.describe()
    if not newer:
        return PullReport("up-to-date", where, "", current, None, note="the index is at HEAD")
    listed = remote.names()
    wanted = [asset_name(c) for c in newer]
    claim(ws.index_dir)  # before anything is written there: it must be codebot's
    downloads = ws.downloads_dir
    shutil.rmtree(downloads, ignore_errors=True)  # never resume another run's half file
    try:
        for name in wanted if listed is None else [n for n in wanted if n in listed]:
            part = downloads / f"{name}.part"
            t = time.perf_counter()
            found = remote.download(name, part, progress)
            timings["download"] = timings.get("download", 0.0) + time.perf_counter() - t
            if found:
                t = time.perf_counter()
                manifest = install(ws, config, part, commit_of(name)[1], embedder, wait)
                timings["install"] = time.perf_counter() - t
                return PullReport("pulled", where, "", manifest.commit, name, part.stat().st_size)
    finally:
        shutil.rmtree(downloads, ignore_errors=True)
    return _nothing_newer(remote, listed, chain, current)


def _nothing_newer(remote, listed, chain, current) -> PullReport:
    """Keep the local index (it is updated next), or say why there is nothing to pull."""
    other = known_formats(sorted(listed or ()), chain) - {FORMAT_VERSION}
    newest = max(other, default=0)
    upgrade = f"it holds artifacts of index format {newest}: upgrade codebot"
    if current is not None:
        note = f"no artifact newer than the local index (at {current[:12]}): updating it"
        if newest > FORMAT_VERSION:
            note += f"; {upgrade}"
        return PullReport("kept", remote.describe(), "", current, None, note=note)
    looked = f"HEAD and its first parents down to {chain[-1][:12]} ({len(chain)} commits)"
    hint = "build locally: codebot index"
    if newest > FORMAT_VERSION:
        hint = upgrade
    elif other:
        hint = f"it holds only older formats {sorted(other)}; {hint}"
    where = remote.describe() + remote.why_empty()
    raise NoArtifact(f"no artifact in {where} for {looked}; {hint}")


def _is_store(spec: str) -> bool:
    return spec == "github" or spec.startswith(
        ("github:", "http://", "https://", "file://", "s3://")
    )


def _resolve(spec: str | None, root: Path) -> str | None:
    """A directory or file named by a relative path is the repository's (the CLI makes a path
    given on the command line absolute first)."""
    if spec and not _is_store(spec) and not Path(spec).expanduser().is_absolute():
        return str(root / spec)
    return spec


def _open(spec: str | None, repo, config: Config, token: str | None, transfer: Transfer | None):
    return open_remote(
        spec,
        origin=repo.remote_url() if repo is not None else None,
        token=token,
        release=config.artifact_release,
        api_url=config.github_api_url,
        transfer=transfer or Transfer(timeout=float(config.artifact_timeout)),
        s3=S3Options(
            config.s3_endpoint_url,
            config.s3_region,
            config.s3_profile,
            config.s3_multipart_threshold,
        ),
    )


def _usable_commit(index_dir: Path, root: Path, repo, subtree: str, config: Config, embedder):
    """The commit of the index in place if an update can start from it, else None."""
    try:
        manifest = read_manifest(index_dir)
        if manifest.commit is None or not repo.has_commit(manifest.commit):
            return None
        info = {"root": manifest.root, "embedder": manifest.embedder, "manifest": vars(manifest)}
        same_setup(info, config, embedder, subtree, Selector(root, repo, config, manifest.commit))
    except CodebotError:
        return None
    return manifest.commit


@dataclass
class PublishReport:
    target: str
    location: str
    pruned: list[str]
    artifact: dict[str, Any]

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def to_text(self) -> str:
        a = self.artifact
        text = f"published {a['asset']} ({a['bytes'] / 1e6:.1f} MB) to {self.target}\n"
        if self.pruned:
            text += f"pruned {len(self.pruned)} older artifact(s)\n"
        return text


def publish(
    where: Workspace | str | Path,
    config: Config,
    target: str | None = None,
    *,
    token: str | None = None,
    transfer: Transfer | None = None,
    keep: int | None = None,
    progress: Progress | None = None,
    wait: float = 0.0,
) -> PublishReport:
    """Pack the committed index and store it at ``target`` (default ``config.artifacts``), then
    delete all but the newest ``keep`` artifacts there (default ``config.artifact_keep``)."""
    ws = Workspace.of(where, config.index_dir)
    root, index_dir, repo = ws.root, ws.index_dir, ws.repo
    remote = _open(_resolve(target or config.artifacts, root), repo, config, token, transfer)
    try:
        claim(index_dir)
        with tempfile.TemporaryDirectory(dir=index_dir, prefix="publish-") as tmp:
            packed = pack(ws, config, Path(tmp), wait=wait)
            location = remote.upload(Path(packed.path), packed.asset, progress)
        pruned = remote.prune(config.artifact_keep if keep is None else keep)
        artifact = packed.to_dict()
        artifact.pop("path")  # a temporary file, gone by now
        return PublishReport(remote.describe(), location, pruned, artifact)
    finally:
        remote.close()


@dataclass
class InitReport:
    config: str | None  # the settings file written, if any
    hooks: dict[str, Any] | None
    pull: dict[str, Any] | None
    built: str | None  # why the index was built (or updated) locally instead of pulled
    update: dict[str, Any] | None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def to_text(self) -> str:
        lines = []
        if self.config:
            lines.append(f"settings written to {self.config}\n")
        if self.hooks:
            lines.append(f"hooks installed in {self.hooks['hooks_dir']}\n")
        if self.pull:
            lines.append(pull_text(self.pull))
        else:
            u = self.update or {}
            commit = short_commit(u.get("commit"))
            lines.append(f"built locally ({self.built}): {u.get('action')} at {commit}\n")
        return "".join(lines)


def init(
    where: Workspace | str | Path,
    config: Config,
    source: str | None = None,
    *,
    save: bool = False,
    hooks: bool = True,
    pull_first: bool = True,
    token: str | None = None,
    transfer: Transfer | None = None,
    progress: Progress | None = None,
    parse_progress=None,
    embedder=None,
    wait: float = 0.0,
) -> InitReport:
    """Set a clone up: save ``source`` as the artifact store (``save``), install the git hooks,
    then pull; with no store, no artifact or an unsuitable one, build the index locally (an
    index already there is updated instead)."""
    ws = Workspace.of(where, config.index_dir)
    root = ws.root
    written = save_setting(root, "artifacts", source) if save and source else None
    written_path = str(written) if written else None
    installed = None
    if hooks:
        from codebot.git.hooks import install as install_hooks

        installed = install_hooks(ws.root).to_dict()
    spec = source or config.artifacts
    reason = "--no-pull" if spec else "no artifact store is configured (the artifacts setting)"
    if spec and pull_first:
        try:
            pulled = pull(
                ws, config, spec, token=token, transfer=transfer, progress=progress,
                parse_progress=parse_progress, embedder=embedder, wait=wait,
            )  # fmt: skip
            return InitReport(written_path, installed, pulled.to_dict(), None, None)
        except (ArtifactError, RemoteError) as exc:
            reason = str(exc)
    from codebot.index.update import update_index

    updated = update_index(ws, config, wait=wait, progress=parse_progress, embedder=embedder)
    return InitReport(written_path, installed, None, reason, updated.to_dict())


def save_setting(root: Path, key: str, value: str) -> Path | None:
    """Add ``key = value`` to the repository's .codebot.toml (created if need be); None when it
    says so already. Never rewrites a setting, nor a file with tables: those are for a person."""
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover
        import tomli as tomllib

    if "://" in value and redact(value) != value:  # no password or signature in a committed file
        raise ConfigError(
            f"{redact(value)!r} carries credentials (user:password@, or a query string such as "
            f"a signature): codebot will not write them into {root / '.codebot.toml'}; save "
            f"the URL without them, or keep it in your own {user_config_path()}"
        )
    dedicated, pyproject = root / ".codebot.toml", root / "pyproject.toml"
    if not dedicated.exists() and pyproject.is_file():
        if "codebot" in tomllib.loads(pyproject.read_text(encoding="utf-8")).get("tool", {}):
            raise ConfigError(
                f"{pyproject} holds the settings ([tool.codebot]): add {key} = {value!r} there"
            )
    text = dedicated.read_text(encoding="utf-8") if dedicated.exists() else ""
    current = tomllib.loads(text).get(key)
    if current == value:
        return None
    line = f'{key} = "{_toml_escape(value)}"\n'
    if current is not None:
        raise ConfigError(f"{dedicated} already sets {key} = {current!r}; edit it by hand")
    if re.search(r"^\s*\[", text, re.M):
        raise ConfigError(f"{dedicated} has tables: add {line.strip()} by hand")
    dedicated.write_text(text + ("\n" if text and not text.endswith("\n") else "") + line)
    return dedicated


def _toml_escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"')

"""``codebot hook NAME``: what the git hooks run. The foreground half decides whether HEAD moved
and starts the background half, which brings the index to HEAD (after a checkout into a new
clone, pulling an artifact first) and logs each outcome to update.log (``git.hooks.run_hook``).

Only the standard library and ``codebot.git.hooks`` load before the update is in the background:
git waits for the foreground half.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from codebot.core.config import Config

__all__ = ["github_token", "run_git_hook"]


def github_token(environ: Mapping[str, str] = os.environ) -> str | None:
    """GitHub's token, from the environment: it goes into a request header and nowhere else."""
    return environ.get("GITHUB_TOKEN") or environ.get("GH_TOKEN") or None


def run_git_hook(name: str, args: Sequence[str], detached: bool) -> str | None:
    """Run the hook ``name`` with git's ``args``: start the update in the background, or (when
    ``detached``) be that background. Never raises: a hook must not fail git; what went wrong
    comes back as a line for stderr (the background's errors go to the log)."""
    from codebot.git import hooks  # nothing heavy before the update is in the background

    try:
        if not args and os.environ.get("PRE_COMMIT") == "1":
            args = hooks.pre_commit_args(name, os.environ)
        git_dir = hooks.git_dir_at(os.getcwd(), os.environ.get("GIT_DIR"))
        if not hooks.wants_update(name, args, git_dir):
            return None
        if not detached:
            hooks.spawn_detached(hooks.detached_command(sys.executable, name, args))
            return None
        _update_in_background(name)
    except Exception as exc:  # noqa: BLE001 - a hook never fails git: say why, still exit 0
        return f"codebot hook {name}: index not updated: {exc!r}"
    return None


def _update_in_background(name: str) -> None:
    from codebot.core.config import load_config
    from codebot.core.errors import CodebotError
    from codebot.git.hooks import run_hook
    from codebot.git.workspace import Workspace

    try:
        os.setsid()  # out of the terminal's session: closing it does not stop the update
    except OSError:
        pass  # already a session leader (spawned detached)
    ws = Workspace.at(".")
    config: Config | None = None
    try:
        config = load_config(ws.root)
        ws = ws.with_index_dir(config.index_dir)
    except CodebotError:  # a bad setting: log where the index would be; the update logs the error
        pass

    def job() -> str:
        from codebot.index.update import update_index

        # Loaded once above; after a bad setting, loading it again raises its error into the log.
        cfg = config if config is not None else load_config(ws.root)
        here = Workspace.at(".", cfg.index_dir)  # each run anew: HEAD and git's index moved
        pulled = _pull_into_new_clone(here, cfg) if name == "post-checkout" else ""
        # The changed symbols' vectors, and any a killed embedder left, from the background
        # embedder (one at a time): the hook's update holds the lock for keywords + graph only.
        r = update_index(here, cfg, vectors_later=True)
        if r.manifest.vectors_pending or r.manifest.vectors_behind:
            from codebot.index.background import start_background

            start_background(here)
        return f"{pulled}{r.action} {(r.base_commit or '-')[:12]} -> {(r.commit or '-')[:12]}"

    run_hook(name, ws.index_dir, job)


def _pull_into_new_clone(ws, config: Config) -> str:
    """A checkout with no index yet (a new clone) pulls one first, when artifacts are configured
    and pull_on_clone allows; what happened opens the log line."""
    from codebot.core.errors import CodebotError
    from codebot.index.store import read_manifest

    if not (config.artifacts and config.pull_on_clone):
        return ""
    try:
        read_manifest(ws.index_dir)
        return ""
    except CodebotError:  # no index here yet (a new clone): pull one
        pass
    from codebot.share.sync import pull

    try:
        r = pull(ws, config, token=github_token(), update=False)
    except CodebotError as exc:  # no artifact, or none that suits: the update builds instead
        return f"no pull ({exc}); "
    return f"pulled {r.asset} from {r.source}; " if r.asset else ""

"""Is the index already at HEAD? Answered from a few small files, before anything heavy loads.

A no-op ``codebot update`` is what every editor save, hook and agent turn may run: it should
cost about a Python start. The full answer opens the repository (pygit2), loads the settings
(TOML) and compares the settings an index depends on (``build.settings_of``: the ignore files at
the commit, size and chunk limits); this module answers "nothing changed" from:

    HEAD's commit           git/refs.py: .git/HEAD, loose refs, packed-refs
    manifest.json           the index's commit, subtree, settings, counts, vectors owed
    fresh.json (the stamp)  written by the last full update: the commit, subtree and settings
                            it checked, and what they were derived from (the stat of every
                            configuration file, the CODEBOT_* variables, codebot's version)

Nothing changed when HEAD, the manifest and the stamp name one commit and subtree, the stamp's
inputs are the same files and variables (so the settings are the manifest's), no settle is due,
and no vector is owed (then the full path starts the embedder). Anything else, or anything
unreadable, is "don't know": the caller takes the full path, which writes the stamp again.
Only the standard library is imported here.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from codebot.core import __version__
from codebot.git.refs import GitHead, read_head

__all__ = [
    "CARRIED",
    "SETTLE_SHARE",
    "STAMP",
    "config_inputs",
    "quick_noop",
    "settle_due",
    "unsettled_symbols",
    "write_stamp",
]

STAMP = "fresh.json"
# The settle schedule (ARCHITECTURE.md, "The update invariant"; index.update applies it): the
# keyword index is rewritten and communities detected again once the symbols changed, removed
# or added since the last settle exceed SETTLE_SHARE of the index.
SETTLE_SHARE = 0.1
CARRIED = "carried_symbols"  # manifest count: symbols changed or added since the last settle
_REPO_FILES = (".codebot.toml", "pyproject.toml")  # where a repository's settings live


def unsettled_symbols(counts: Mapping[str, int]) -> int:
    """How many symbols changed since the index was last built or settled (0: settled)."""
    return max(counts.get("lexical_deleted", 0), counts.get(CARRIED, 0))


def settle_due(counts: Mapping[str, int], force: bool = False) -> bool:
    """Whether the changes since the last settle exceed SETTLE_SHARE of the symbols
    (``force``: any change at all)."""
    pending = unsettled_symbols(counts)
    return pending > 0 and (force or pending > SETTLE_SHARE * counts.get("symbols", 0))


def _user_config(environ: Mapping[str, str]) -> Path:
    """The user's configuration file (``core.config.user_config_path``, without its imports)."""
    base = environ.get("XDG_CONFIG_HOME") or str(
        Path(environ.get("HOME") or Path.home()) / ".config"
    )
    return Path(base) / "codebot" / "config.toml"


def _stat(path: Path) -> list[int] | None:
    try:
        st = path.stat()
    except OSError:
        return None
    return [st.st_size, st.st_mtime_ns, st.st_ino]


def config_inputs(root: Path, environ: Mapping[str, str] | None = None) -> dict[str, Any]:
    """What the settings of ``root`` are derived from, cheaply comparable: every configuration
    file's size, modification time and inode (None when absent), the ``CODEBOT_*`` variables,
    and codebot's version (another codebot may read settings, or write indexes, otherwise)."""
    env = os.environ if environ is None else environ
    files = [_user_config(env), *(root / name for name in _REPO_FILES)]
    return {
        "files": {str(p): _stat(p) for p in files},
        "env": sorted([k, v] for k, v in env.items() if k.startswith("CODEBOT_")),
        "codebot": __version__,
    }


def write_stamp(index_dir: Path, manifest: Any, inputs: dict[str, Any]) -> None:
    """Record that ``manifest``'s commit, subtree and settings were checked against the settings
    ``inputs`` gave (a full update has just done so). Best effort: without it, the next no-op
    update takes the full path."""
    stamp = {
        "commit": manifest.commit,
        "root": manifest.root,
        "settings": manifest.settings,
        "format_version": manifest.format_version,
        "inputs": inputs,
    }
    tmp = index_dir / f".{STAMP}.{os.getpid()}.tmp"
    try:
        tmp.write_text(json.dumps(stamp))
        os.replace(tmp, index_dir / STAMP)
    except OSError:
        tmp.unlink(missing_ok=True)


def _index_dir(head: GitHead, environ: Mapping[str, str]) -> Path | None:
    """Where the index lives (Workspace's rule): the user's ``index_dir`` setting (a variable,
    or their configuration file), else ``<common git dir>/codebot``. None: unreadable."""
    if environ.get("CODEBOT_INDEX_DIR"):
        return Path(environ["CODEBOT_INDEX_DIR"]).expanduser().resolve()
    user = _user_config(environ)
    if user.is_file():
        try:
            import tomllib
        except ImportError:  # Python 3.10: leave it to the full path
            return None
        try:
            chosen = tomllib.loads(user.read_text(encoding="utf-8")).get("index_dir")
        except (OSError, ValueError):
            return None
        if chosen:
            return Path(chosen).expanduser().resolve() if isinstance(chosen, str) else None
    return head.common / "codebot"


def _read_json(path: Path) -> dict[str, Any] | None:
    try:
        data = json.loads(path.read_bytes())
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def quick_noop(path: str | Path = ".", environ: Mapping[str, str] | None = None) -> str | None:
    """HEAD's commit when the index of ``path`` is surely up to date with it and nothing is
    owed (see the module's text); None when only the full update can tell."""
    env = os.environ if environ is None else environ
    target = Path(path).resolve()
    head = read_head(target)
    if head is None or not target.is_dir():
        return None
    index_dir = _index_dir(head, env)
    if index_dir is None:
        return None
    manifest = _read_json(index_dir / "manifest.json")
    stamp = _read_json(index_dir / STAMP)
    if manifest is None or stamp is None:
        return None
    try:
        sub = target.relative_to(head.workdir).as_posix()
    except ValueError:
        return None
    sub = "" if sub == "." else sub
    counts = manifest.get("counts")
    same = (
        manifest.get("commit") == stamp.get("commit") == head.commit
        and manifest.get("root") == stamp.get("root") == sub
        and manifest.get("settings") == stamp.get("settings")
        and manifest.get("format_version") == stamp.get("format_version")
        and stamp.get("inputs") == config_inputs(head.workdir, env)
        and not manifest.get("vectors_pending")
        and not manifest.get("vectors_behind")
        and not manifest.get("overlay")
        and isinstance(counts, dict)
        and not settle_due(counts)
    )
    return head.commit if same else None

"""Configuration, resolved once at the edge into a frozen :class:`Config`.

Precedence, highest first: command-line flags, ``CODEBOT_*`` environment variables, ``[tool.codebot]``
in ``pyproject.toml`` or a ``.codebot.toml`` at the repository root, then the defaults below.
Library code receives a ``Config`` and never reads the environment itself.
"""

from __future__ import annotations

import dataclasses
import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

from codebot.core.errors import ConfigError

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

__all__ = ["Config", "load_config"]


@dataclass(frozen=True)
class Config:
    #: Files larger than this many bytes are skipped (and reported).
    max_file_bytes: int = 1_000_000
    #: Extra gitignore-style patterns to leave out, on top of .gitignore and .codebotignore.
    ignore: tuple[str, ...] = ()
    #: Index vendored code (vendor/, third_party/, node_modules/...) instead of skipping it.
    include_vendor: bool = False
    #: Index generated and minified files instead of skipping them.
    include_generated: bool = False
    #: Size bounds of the chunks made of code outside definitions.
    chunk_max_chars: int = 1500
    chunk_max_lines: int = 60
    #: The embedding model: "builtin" (shipped, offline), "none" (keywords only), or a provider:
    #: model2vec:<dir or owner/name>, sentence-transformers:<dir or owner/name>,
    #: openai-compatible:<base_url>#<model>, voyage:<model> (see codebot.embed).
    embedder: str = "builtin"
    #: CPU threads for local models (0: min(4, CPU count)).
    embed_threads: int = 0
    #: Texts per request or forward pass; requests in flight at once (hosted providers).
    embed_batch_size: int = 32
    embed_concurrency: int = 4
    #: Seconds an embedding request may wait for the server.
    embed_timeout: int = 60
    #: The environment variable holding the embedding API key (default OPENAI_API_KEY or
    #: VOYAGE_API_KEY). The key itself is never a setting.
    embed_api_key_env: str | None = None
    #: May a hub model id missing from the local Hugging Face cache be downloaded? Within
    #: download_timeout seconds; when it cannot be had: "stop", or "builtin" (said once).
    allow_download: bool = False
    download_timeout: int = 10
    on_download_failure: str = "stop"
    #: Reranking after fusion: "none", cross-encoder:<dir or owner/name> (codebot[st]),
    #: voyage:<model>, or cohere-compatible:<url>#<model> (Cohere, Jina). Applied to the top
    #: rerank_top hits within rerank_budget_ms (else skipped, and said).
    reranker: str = "none"
    rerank_top: int = 20
    rerank_budget_ms: int = 2000
    rerank_api_key_env: str | None = None
    #: `codebot ask`: an OpenAI-compatible chat endpoint (base URL, e.g.
    #: http://localhost:11434/v1), its model, the variable holding its key (default
    #: OPENAI_API_KEY), and the context budget in tokens.
    chat_url: str | None = None
    chat_model: str | None = None
    chat_api_key_env: str | None = None
    ask_tokens: int = 6000
    #: Where the index lives; by default inside the repository's git directory.
    index_dir: str | None = None
    #: Where index artifacts are published and pulled from: "github" (the origin's releases),
    #: "github:OWNER/REPO", an http(s) URL template with {commit} or {name}, or a directory.
    artifacts: str | None = None
    #: The GitHub release (tag) that holds the artifacts: one per index stream.
    artifact_release: str = "codebot-index"
    #: How many artifacts publish keeps in a release or a directory (older ones are deleted).
    artifact_keep: int = 30
    #: How many first-parent commits back from HEAD pull looks for an artifact.
    pull_depth: int = 100
    #: Seconds a download or upload may go without progress before it is retried.
    artifact_timeout: int = 30
    #: Whether the post-checkout hook pulls an artifact when there is no index yet (a new clone).
    pull_on_clone: bool = True
    #: The GitHub REST API (GitHub Enterprise: https://HOST/api/v3).
    github_api_url: str = "https://api.github.com"

    def replace(self, **changes: Any) -> Config:
        return dataclasses.replace(self, **changes)


_FIELDS = {f.name: f for f in fields(Config)}


def _coerce(key: str, value: Any, source: str) -> Any:
    """Turn a raw value (a TOML value, or an environment string) into the field's type."""
    default = _FIELDS[key].default
    kind = type(default) if default is not None else str
    if kind is bool:
        if isinstance(value, bool):
            return value
        if isinstance(value, str) and value.lower() in (
            "1",
            "true",
            "yes",
            "on",
            "0",
            "false",
            "no",
            "off",
        ):
            return value.lower() in ("1", "true", "yes", "on")
    elif kind is int:
        if isinstance(value, int) and not isinstance(value, bool):
            return value
        if isinstance(value, str) and value.strip().lstrip("-").isdigit():
            return int(value)
    elif kind is tuple:
        if isinstance(value, str):
            return tuple(v.strip() for v in value.split(",") if v.strip())
        if isinstance(value, list) and all(isinstance(v, str) for v in value):
            return tuple(value)
    elif isinstance(value, str):
        return value
    expected = {bool: "true or false", int: "an integer", tuple: "a list of strings"}.get(
        kind, "a string"
    )
    raise ConfigError(f"{source}: {key} must be {expected}, got {value!r}")


def _merge(settings: dict[str, Any], raw: Mapping[str, Any], source: str) -> None:
    for key, value in raw.items():
        name = key.replace("-", "_")
        if name not in _FIELDS:
            valid = ", ".join(sorted(_FIELDS))
            raise ConfigError(f"{source}: unknown setting {key!r} (valid settings: {valid})")
        if value is not None:
            settings[name] = _coerce(name, value, source)


def _file_settings(root: Path) -> tuple[dict[str, Any], str] | None:
    dedicated = root / ".codebot.toml"
    if dedicated.is_file():
        return _read_toml(dedicated), str(dedicated)
    pyproject = root / "pyproject.toml"
    if pyproject.is_file():
        section = _read_toml(pyproject).get("tool", {}).get("codebot")
        if section is not None:
            return section, f"{pyproject} [tool.codebot]"
    return None


def _read_toml(path: Path) -> dict[str, Any]:
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read configuration: {exc}") from exc


def load_config(
    root: str | Path | None = None,
    flags: Mapping[str, Any] | None = None,
    environ: Mapping[str, str] | None = None,
) -> Config:
    """Resolve the configuration for the repository at ``root``.

    ``flags`` holds command-line values (None means "not given"); ``environ`` defaults to
    ``os.environ`` and is read for ``CODEBOT_<SETTING>`` variables.
    """
    settings: dict[str, Any] = {}
    if root is not None:
        found = _file_settings(Path(root))
        if found is not None:
            _merge(settings, found[0], found[1])
    env = os.environ if environ is None else environ
    from_env = {
        k[8:].lower(): v
        for k, v in env.items()
        if k.startswith("CODEBOT_") and k[8:].lower() in _FIELDS
    }
    _merge(settings, from_env, "environment")
    if flags:
        _merge(settings, flags, "command line")
    return Config(**settings)

"""Configuration, resolved once at the edge into a frozen :class:`Config`.

Precedence, highest first: command-line flags, ``CODEBOT_*`` environment variables, the
repository's ``.codebot.toml`` (or ``[tool.codebot]`` in its ``pyproject.toml``), the user's own
``~/.config/codebot/config.toml`` (``$XDG_CONFIG_HOME`` respected), then the defaults below.
Library code receives a ``Config`` and never reads the environment itself.

Trust: files in a repository are written by whoever can open a pull request, so they never
choose which secret is sent or where, nor a path outside the repository. The settings in
:data:`USER_ONLY`, and a hosted embedder or reranker (which sends code and an API key to a
server), come only from the user: flags, the environment, or the user's configuration file. A
repository file that sets one is refused with a message that names the key and the file. For an
``s3://`` store a repository may name the bucket and prefix (``artifacts``), never the endpoint,
region or profile: AWS credentials are signed for and sent only to the service the user chose.
Every value is checked for its type and range when it is loaded.
"""

from __future__ import annotations

import dataclasses
import os
import re
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

from codebot.core.errors import ConfigError

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

__all__ = ["Config", "USER_ONLY", "load_config", "repository_settings", "user_config_path"]


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
    #: Processes that parse files during `index` and large updates (0: one per CPU, as free
    #: memory allows; one on two CPUs or fewer, and for a small tree). The index is the same
    #: whatever it is.
    jobs: int = 0
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
    #: "github:OWNER/REPO", an http(s) URL template with {commit} or {name}, s3://BUCKET/PREFIX
    #: (codebot[s3]), or a directory.
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
    #: s3:// stores: the service when it is not AWS (MinIO, R2, GCS: https://HOST), the region,
    #: and the profile of ~/.aws/config whose credentials are used (default: boto3's own chain,
    #: AWS_PROFILE, AWS_ENDPOINT_URL_S3 and AWS_REGION included). The user's settings only.
    s3_endpoint_url: str | None = None
    s3_region: str | None = None
    s3_profile: str | None = None
    #: Artifacts of this many bytes or more are uploaded in parts of this size, one part in
    #: memory at a time (5 MiB, S3's smallest part, to 1 GiB).
    s3_multipart_threshold: int = 64 * 1024 * 1024

    def replace(self, **changes: Any) -> Config:
        return dataclasses.replace(self, **changes)


_FIELDS = {f.name: f for f in fields(Config)}

#: Settings that choose a secret, a host it goes to, a download, or a path outside the
#: repository: never from a file in the repository (see the module docstring).
USER_ONLY = frozenset(
    {
        "embed_api_key_env",
        "rerank_api_key_env",
        "chat_api_key_env",
        "chat_url",
        "github_api_url",
        "s3_endpoint_url",
        "s3_region",
        "s3_profile",
        "index_dir",
        "allow_download",
    }
)
# Provider strings that send code and an API key to a server (codebot.embed, query.rerank).
_HOSTED = ("openai-compatible:", "voyage:", "cohere-compatible:")
# Allowed ranges: a chunk bound of 0 never ends, keeping 0 artifacts deletes the one just made.
_RANGES: dict[str, tuple[int, int]] = {
    "max_file_bytes": (1, 1 << 31),
    "chunk_max_chars": (100, 1_000_000),
    "chunk_max_lines": (5, 100_000),
    "embed_threads": (0, 1024),
    "jobs": (0, 1024),
    "embed_batch_size": (1, 4096),
    "embed_concurrency": (1, 256),
    "embed_timeout": (1, 3600),
    "download_timeout": (1, 3600),
    "rerank_top": (1, 1000),
    "rerank_budget_ms": (0, 600_000),
    "ask_tokens": (100, 1_000_000),
    "artifact_keep": (1, 100_000),
    "pull_depth": (1, 100_000),
    "artifact_timeout": (1, 3600),
    "s3_multipart_threshold": (5 * 1024 * 1024, 1024**3),
}
_CHOICES = {"on_download_failure": ("stop", "builtin")}
_INTEGER = re.compile(r"[+-]?[0-9]{1,18}")  # ASCII digits only: int() also takes "²" and "١"
_ENDPOINT = re.compile(r"https?://[^\s/?#@]+(/[^\s?#@]*)?")
_RELEASE_TAG = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}")


def _coerce(key: str, value: Any, source: str) -> Any:
    """Turn a raw value (a TOML value, or an environment string) into the field's type, within
    its range."""
    value = _typed(key, value, source)
    if key in _RANGES and not _RANGES[key][0] <= value <= _RANGES[key][1]:
        low, high = _RANGES[key]
        raise ConfigError(f"{source}: {key} must be between {low:,} and {high:,}, got {value!r}")
    if key in _CHOICES and value not in _CHOICES[key]:
        raise ConfigError(
            f"{source}: {key} must be one of {', '.join(_CHOICES[key])}, got {value!r}"
        )
    if key == "artifact_release" and not _RELEASE_TAG.fullmatch(value):
        raise ConfigError(f"{source}: artifact_release must be a tag name (letters, digits, . _ -)")
    if key == "s3_endpoint_url" and not _ENDPOINT.fullmatch(value):
        raise ConfigError(
            f"{source}: s3_endpoint_url must be http(s)://HOST[:PORT][/PATH], without user info "
            f"or a query (credentials come from AWS's own chain), got {value!r}"
        )
    if key == "ignore":
        _check_patterns(value, source)
    if isinstance(value, str) and "\x00" in value:
        raise ConfigError(f"{source}: {key} contains a NUL character")
    return value


def _typed(key: str, value: Any, source: str) -> Any:
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
        if isinstance(value, str) and _INTEGER.fullmatch(value.strip()):
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


def _check_patterns(patterns: tuple[str, ...], source: str) -> None:
    import pathspec

    for pattern in patterns:
        try:
            pathspec.GitIgnoreSpec.from_lines([pattern])
        except Exception as exc:  # noqa: BLE001 - pathspec raises several kinds for a bad pattern
            raise ConfigError(f"{source}: ignore pattern {pattern!r} is not valid: {exc}") from None


def _merge(
    settings: dict[str, Any], raw: Mapping[str, Any], source: str, repository: bool = False
) -> None:
    """Add ``raw`` (from ``source``) to ``settings``; ``repository``: it comes from a file in
    the repository, which may not choose secrets, hosts or outside paths."""
    if not isinstance(raw, Mapping):
        raise ConfigError(f"{source}: settings must be a table of key = value, not {raw!r}")
    for key, value in raw.items():
        name = str(key).replace("-", "_")
        if name not in _FIELDS:
            valid = ", ".join(sorted(_FIELDS))
            raise ConfigError(f"{source}: unknown setting {key!r} (valid settings: {valid})")
        if value is None:
            continue
        value = _coerce(name, value, source)
        if repository:
            _refuse_from_repository(name, value, source)
        settings[name] = value


def _refuse_from_repository(name: str, value: Any, source: str) -> None:
    where = f"CODEBOT_{name.upper()}, a command-line flag, or {user_config_path()}"
    if name in USER_ONLY:
        raise ConfigError(
            f"{source}: {name} may not be set in a repository's files (they would choose a "
            f"secret, a server it is sent to, or a path outside the repository for whoever "
            f"runs codebot here); set it yourself: {where}"
        )
    if name in ("embedder", "reranker") and str(value).startswith(_HOSTED):
        raise ConfigError(
            f"{source}: {name} = {value!r} would send your code and an API key to a server; "
            f"a repository's files may not choose that. Set it yourself: {where}"
        )


def repository_settings(
    read: Callable[[str], bytes | None], where: str
) -> tuple[dict[str, Any], str] | None:
    """The settings a repository's files hold, and which file they come from: ``read(name)``
    gives a file's bytes at the repository's root (None when absent); ``where`` names the root
    in messages. The Action reads them from the base commit this way, never from the head."""
    dedicated = read(".codebot.toml")
    if dedicated is not None:
        name = f"{where}/.codebot.toml"
        return _parse_toml(dedicated, name), name
    pyproject = read("pyproject.toml")
    if pyproject is not None:
        tool = _parse_toml(pyproject, f"{where}/pyproject.toml").get("tool")
        section = tool.get("codebot") if isinstance(tool, dict) else None
        if section is not None:
            return section, f"{where}/pyproject.toml [tool.codebot]"
    return None


def user_config_path(environ: Mapping[str, str] | None = None) -> Path:
    """The user's own configuration file: ``$XDG_CONFIG_HOME/codebot/config.toml``, by default
    ``~/.config/codebot/config.toml``."""
    env = os.environ if environ is None else environ
    base = env.get("XDG_CONFIG_HOME") or str(Path(env.get("HOME") or Path.home()) / ".config")
    return Path(base) / "codebot" / "config.toml"


def _read_file(path: Path) -> bytes | None:
    try:
        return path.read_bytes() if path.is_file() else None
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read configuration: {exc.strerror or exc}") from exc


def _parse_toml(data: bytes, name: str) -> dict[str, Any]:
    try:
        return tomllib.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"{name}: cannot read configuration: {exc}") from exc
    except RecursionError:
        raise ConfigError(f"{name}: cannot read configuration: nested too deeply") from None


def load_config(
    root: str | Path | None = None,
    flags: Mapping[str, Any] | None = None,
    environ: Mapping[str, str] | None = None,
    repository: tuple[dict[str, Any], str] | None = None,
) -> Config:
    """Resolve the configuration for the repository at ``root``.

    ``flags`` holds command-line values (None means "not given"); ``environ`` defaults to
    ``os.environ`` and is read for ``CODEBOT_<SETTING>`` variables and the user's configuration
    file. ``repository``: the repository's settings read elsewhere (see
    :func:`repository_settings`) instead of from the files at ``root``.
    """
    settings: dict[str, Any] = {}
    env = os.environ if environ is None else environ
    user_file = user_config_path(env)
    user_data = _read_file(user_file)
    if user_data is not None:
        _merge(settings, _parse_toml(user_data, str(user_file)), str(user_file))
        if settings.get("index_dir") and not Path(settings["index_dir"]).expanduser().is_absolute():
            raise ConfigError(f"{user_file}: index_dir must be an absolute path")
    if repository is None and root is not None:
        base = Path(root)
        repository = repository_settings(lambda name: _read_file(base / name), str(base))
    if repository is not None:
        _merge(settings, repository[0], repository[1], repository=True)
    from_env = {
        k[8:].lower(): v
        for k, v in env.items()
        if k.startswith("CODEBOT_") and k[8:].lower() in _FIELDS
    }
    _merge(settings, from_env, "environment")
    if flags:
        _merge(settings, flags, "command line")
    if settings.get("index_dir"):  # a flag or variable: from where codebot was started, once
        settings["index_dir"] = str(Path(settings["index_dir"]).expanduser().resolve())
    return Config(**settings)

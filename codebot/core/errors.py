"""Errors codebot raises on purpose. The CLI prints their message and exits 1; the MCP server
turns them into a tool error. Anything else that escapes is a bug (exit 3, with a log).

CodebotError
 ├── ConfigError            a bad setting: names the key and where it came from
 │    ├── UnknownEmbedder   a provider string that names no provider (a ValueError too)
 │    └── NoChatEndpoint    `ask` with no chat endpoint configured
 ├── GitError               a repository that cannot be opened or read
 ├── StoreError             an index that is missing, unreadable or for another codebot
 │    ├── IndexBusy         another process holds the index's write lock
 │    ├── DamagedIndex      a file of the index is truncated, missing or corrupt: rebuild
 │    │    └── GenerationGone  removed by a newer one as it was opened (read the manifest again)
 │    └── InvalidTable      a table from elsewhere (an artifact) this codebot would not write
 ├── EmbedderError          a model that cannot be loaded or run
 │    └── ModelUnavailable  a hub model neither on disk nor downloadable now
 ├── HttpError              a server that cannot be reached, refuses us or keeps failing
 │    ├── ServiceError      a model service (embeddings, rerank, chat) that failed
 │    └── RemoteError       an artifact store (GitHub, a URL, a directory) that failed
 ├── ArtifactError          a shared index archive that is corrupt, hostile or off our history
 │    ├── IncompatibleArtifact  sound, but made for another codebot, model or settings
 │    └── NoArtifact        none of the commits looked at has an artifact
 ├── PreciseError           a SCIP index that cannot be read, or an indexer that failed
 ├── NotFound               an exact symbol lookup missed (with the closest names)
 ├── Ambiguous              a name that must be one symbol names several (all listed)
 └── EvalError              a query set that cannot be read

Third-party errors (msgpack, Tantivy, usearch, numpy, pygit2, httpx) are translated where they
happen into the most specific class here, chained with ``from exc``; every message says what to
do about it.
"""

from __future__ import annotations

from pathlib import Path

__all__ = [
    "Ambiguous",
    "ArtifactError",
    "CodebotError",
    "ConfigError",
    "DamagedIndex",
    "EmbedderError",
    "EvalError",
    "GenerationGone",
    "GitError",
    "HttpError",
    "IncompatibleArtifact",
    "IndexBusy",
    "InvalidTable",
    "ModelUnavailable",
    "NoArtifact",
    "NoChatEndpoint",
    "NotFound",
    "PreciseError",
    "RemoteError",
    "ServiceError",
    "StoreError",
    "UnknownEmbedder",
]


class CodebotError(Exception):
    """Base of every error codebot means to raise: the message says what to do about it."""


class ConfigError(CodebotError):
    """A bad setting: the message names the key and where it came from."""


class UnknownEmbedder(ConfigError, ValueError):
    """A provider string that names no provider (a ValueError too, as in earlier releases)."""


class NoChatEndpoint(ConfigError):
    """`ask` with no chat endpoint configured: the message says how to configure one."""


class GitError(CodebotError):
    """A repository that cannot be opened or read."""


class StoreError(CodebotError):
    """An index that is missing, unreadable, or written by an incompatible codebot."""


class IndexBusy(StoreError):
    """Another process is writing the index (a build or an update holds the lock)."""


class DamagedIndex(StoreError):
    """A file of the index that is truncated, missing or corrupt: ``path`` names it."""

    def __init__(self, path: Path | str, why: object) -> None:
        super().__init__(f"{path}: the index is damaged ({why}); rebuild it with: codebot index")
        self.path = Path(path)


class GenerationGone(DamagedIndex):
    """The generation was removed as it was being opened: a writer moved on (read again)."""


class InvalidTable(StoreError):
    """A table of a generation that this codebot would not have written (see index.validate)."""


class EmbedderError(CodebotError):
    """A model that cannot be loaded or run: missing, corrupt, or the wrong version."""


class ModelUnavailable(EmbedderError):
    """A hub model that is neither on disk nor downloadable now (offline, or downloads off)."""


class HttpError(CodebotError):
    """A server that cannot be reached, refuses us, or keeps failing. The message names the
    call and never holds a secret (see ``core.http.scrub``)."""


class ServiceError(HttpError):
    """A model service that refused, failed or did not answer; never shows the API key."""


class RemoteError(HttpError):
    """An artifact store that cannot be reached, refuses us, or keeps failing."""


class ArtifactError(CodebotError):
    """An artifact that is corrupt, hostile, or for another line of history: never installed."""


class IncompatibleArtifact(ArtifactError):
    """A sound artifact made for another codebot, embedder, settings or subtree."""


class NoArtifact(ArtifactError):
    """None of the commits pull looked at has an artifact."""


class PreciseError(CodebotError):
    """A SCIP index that is unreadable, damaged or hostile, or an indexer that failed to run."""


class NotFound(CodebotError):
    """An exact lookup missed. ``suggestions`` are the closest names, never a substitute."""

    def __init__(self, name: str, suggestions: list[str]) -> None:
        hint = f"; did you mean: {', '.join(suggestions)}" if suggestions else ""
        super().__init__(f"no symbol named {name!r}{hint}")
        self.name = name
        self.suggestions = suggestions


class Ambiguous(CodebotError):
    """A name that must be one symbol names several: ``matches`` are all of them (symbols with
    ``id``, ``path``, ``start_line`` and ``end_line``)."""

    LISTED = 20  # matches the message lists; the rest are counted

    def __init__(self, name: str, matches: list) -> None:
        self.name = name
        self.matches = matches
        super().__init__(f"{name!r} names {len(matches)} symbols; give one id:\n{self.listing()}")

    def listing(self) -> str:
        lines = [
            f"  {s.id}  {s.path}:{s.start_line}-{s.end_line}" for s in self.matches[: self.LISTED]
        ]
        if len(self.matches) > self.LISTED:
            lines.append(f"  ... and {len(self.matches) - self.LISTED} more")
        return "\n".join(lines)


class EvalError(CodebotError):
    """A query set that cannot be read: the message names the file and the line or record."""

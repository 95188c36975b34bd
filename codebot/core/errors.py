"""Errors codebot raises on purpose. The CLI prints their message and exits 1.

CodebotError
 ├── ConfigError       a bad setting: names the key and where it came from
 ├── GitError          a repository that cannot be opened or read
 ├── ParseError        a file that cannot be read at all (a broken file is skipped, not raised)
 ├── StoreError        an index that is missing, locked, or written by an incompatible version
 │    ├── StaleIndexError   the index describes another commit than the one asked for
 │    └── IndexBusy         another process holds the index's write lock
 └── SchemaError       output that does not match its JSON Schema
"""

from __future__ import annotations

__all__ = [
    "CodebotError",
    "ConfigError",
    "GitError",
    "IndexBusy",
    "StoreError",
]


class CodebotError(Exception):
    """Base of every error codebot means to raise: the message says what to do about it."""


class ConfigError(CodebotError):
    pass


class GitError(CodebotError):
    pass


class ParseError(CodebotError):
    pass


class StoreError(CodebotError):
    pass


class StaleIndexError(StoreError):
    pass


class IndexBusy(StoreError):
    """Another process is writing the index (a build or an update holds the lock)."""


class SchemaError(CodebotError):
    pass

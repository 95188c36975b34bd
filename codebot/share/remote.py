"""Where index artifacts live: GitHub Releases (``github``), any HTTP(S) URL template, or a
directory; :func:`codebot.share.stores.open_remote` picks one from a setting.

Every transport does four things with artifacts named by :func:`asset_name`: say which names it
holds (``names``; None when it cannot list, as a URL template cannot), fetch one into a file
(``download``; False when it is not there), store one (``upload``) and delete the oldest
(``prune``). HTTP goes through :class:`~codebot.core.http.HttpClient` (timeouts, retries,
``Retry-After`` and rate limits, resumed downloads, secrets scrubbed from messages).

Secrets: a token goes into an ``Authorization`` header and nowhere else (httpx drops it when a
redirect leaves the host: GitHub sends asset downloads to another host); URLs are shown without
their user info and query string, where basic auth and S3 presigned URLs carry theirs.
"""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Sequence
from pathlib import Path
from typing import Protocol

from codebot.core.errors import RemoteError
from codebot.core.http import HttpClient, HttpSettings, Progress, file_body, redact
from codebot.index.store import FORMAT_VERSION

__all__ = [
    "Transfer",
    "Remote",
    "DirectoryRemote",
    "UrlRemote",
    "asset_name",
    "commit_of",
    "redact",
    "Progress",
    "known_formats",
]

# Named by index format and commit: a codebot looks only for the format it reads.
ASSET_RE = re.compile(r"^codebot-index-v(\d+)-([0-9a-f]{40,64})\.tar\.gz$")

#: How patient a transfer is (see HttpSettings): 30 s without a byte, 4 retries from 1 s, and
#: a rate-limit reset up to 5 minutes away waited for.
Transfer = HttpSettings


def asset_name(commit: str, format_version: int = FORMAT_VERSION) -> str:
    return f"codebot-index-v{format_version}-{commit}.tar.gz"


def commit_of(name: str) -> tuple[int, str] | None:
    """(index format, commit) of an artifact's name; None for any other file."""
    m = ASSET_RE.match(name)
    return (int(m.group(1)), m.group(2)) if m else None


# --- transports ------------------------------------------------------------------------------


class Remote(Protocol):
    def describe(self) -> str: ...

    def names(self) -> set[str] | None: ...

    def download(self, name: str, dest: Path, progress: Progress | None = None) -> bool: ...

    def upload(self, path: Path, name: str, progress: Progress | None = None) -> str: ...

    def prune(self, keep: int) -> list[str]: ...

    def why_empty(self) -> str: ...

    def close(self) -> None: ...


class DirectoryRemote:
    """A directory: a shared drive, a CI cache, a mounted bucket."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def describe(self) -> str:
        return f"directory {self.path}"

    def names(self) -> set[str] | None:
        try:
            return {p.name for p in self.path.iterdir() if commit_of(p.name)}
        except FileNotFoundError:
            return set()
        except OSError as exc:
            raise RemoteError(f"{self.describe()}: cannot list it: {exc}") from exc

    def download(self, name: str, dest: Path, progress: Progress | None = None) -> bool:
        source = self.path / name
        if not source.is_file():
            return False
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, dest)
        return True

    def upload(self, path: Path, name: str, progress: Progress | None = None) -> str:
        self.path.mkdir(parents=True, exist_ok=True)
        final = self.path / name
        tmp = self.path / f".{name}.{os.getpid()}.tmp"  # readers never see half a file
        shutil.copyfile(path, tmp)
        os.replace(tmp, final)
        return str(final)

    def prune(self, keep: int) -> list[str]:
        ours = [p for p in self.path.iterdir() if commit_of(p.name)]
        ours.sort(key=lambda p: p.stat().st_mtime_ns, reverse=True)
        for p in ours[keep:]:
            p.unlink(missing_ok=True)
        return sorted(p.name for p in ours[keep:])

    def why_empty(self) -> str:
        return "" if self.path.is_dir() else " (the directory does not exist)"

    def close(self) -> None:
        pass


class UrlRemote:
    """Any HTTP(S) server with GET and PUT at a URL per artifact: ``{commit}`` and ``{name}`` in
    the template are replaced (GitLab generic packages, Artifactory, S3 presigned URLs...)."""

    def __init__(self, template: str, http: HttpClient) -> None:
        self.template, self.http = template, http

    def describe(self) -> str:
        return f"URL {redact(self.template)}"

    def _url(self, name: str) -> str:
        _, commit = commit_of(name) or (0, "")
        return self.template.replace("{commit}", commit).replace("{name}", name)

    def names(self) -> set[str] | None:
        return None  # a URL template cannot be listed: pull asks for each commit in turn

    def download(self, name: str, dest: Path, progress: Progress | None = None) -> bool:
        url = self._url(name)
        return self.http.download(url, dest, f"GET {redact(url)}", progress=progress)

    def upload(self, path: Path, name: str, progress: Progress | None = None) -> str:
        url = self._url(name)
        what = f"PUT {redact(url)}"
        headers = {
            "Content-Type": "application/octet-stream",
            "Content-Length": str(path.stat().st_size),
        }
        r = self.http.request("PUT", url, what, file_body(path, progress), headers=headers)
        if r.status_code not in (200, 201, 204):
            raise self.http.fail(f"{what}: {self.http.status_text(r)}")
        return redact(url)

    def prune(self, keep: int) -> list[str]:
        return []  # nothing to list: expire old artifacts with the server's own rules

    def why_empty(self) -> str:
        return ""

    def close(self) -> None:
        self.http.close()


def known_formats(names: Sequence[str], commits: Sequence[str]) -> set[int]:
    """Index formats the store holds for these commits (to say "upgrade codebot")."""
    wanted = set(commits)
    return {f for f, c in filter(None, map(commit_of, names)) if c in wanted}

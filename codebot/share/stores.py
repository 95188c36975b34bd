"""Which artifact store a setting names: ``github``, ``github:OWNER/REPO``, a URL template,
``s3://BUCKET/PREFIX`` or a directory (see ``remote`` for the generic stores, ``github`` for
GitHub's and ``s3`` for S3-compatible buckets).

Its own module so that ``github`` may build on ``remote`` without ``remote`` reaching back.
"""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import urlsplit

from codebot.core.errors import RemoteError
from codebot.core.http import HttpClient
from codebot.share.github import GitHub, GitHubRemote, github_repo_of
from codebot.share.remote import (
    DirectoryRemote,
    Remote,
    Transfer,
    UrlRemote,
    redact,
)
from codebot.share.s3 import S3Options, S3Remote

__all__ = ["open_remote"]


def open_remote(
    spec: str | None,
    *,
    origin: str | None = None,
    token: str | None = None,
    release: str = "codebot-index",
    api_url: str = "https://api.github.com",
    transfer: Transfer | None = None,
    s3: S3Options | None = None,
) -> Remote:
    """The transport ``spec`` names: ``github`` (``origin``'s repository), ``github:OWNER/REPO``,
    an http(s) URL template, ``s3://BUCKET/PREFIX``, ``file://PATH`` or a directory path.
    ``token``: GitHub's only; ``s3``: the endpoint, region and profile of an s3:// store."""
    transfer = transfer or Transfer()
    if not spec:
        raise RemoteError(
            'no artifact store is configured: set artifacts = "github" (or a URL template, '
            "s3://BUCKET/PREFIX, or a directory) in .codebot.toml, or pass --from / --to"
        )
    if spec == "github" or spec.startswith("github:"):
        m = re.fullmatch(r"([\w.-]+)/([\w.-]+)", spec[7:])
        found = (m.group(1), m.group(2)) if m else None
        if spec == "github":
            if origin is None:
                raise RemoteError(
                    'artifacts = "github" needs an origin remote: use github:OWNER/REPO'
                )
            found = github_repo_of(origin)
        if found is None:
            raise RemoteError(f"{spec!r}: cannot tell the GitHub repository; use github:OWNER/REPO")
        return GitHubRemote(GitHub(*found, api_url, token, transfer), release)
    if spec.startswith(("http://", "https://")):
        if "{commit}" not in spec and "{name}" not in spec:
            raise RemoteError(
                f"{redact(spec)}: a URL template needs {{commit}} or {{name}} in it, e.g. "
                "https://host/index/{commit}.tar.gz"
            )
        parts = urlsplit(spec)
        secrets = [parts.password or "", parts.query]
        return UrlRemote(spec, HttpClient(transfer, secrets=secrets, error=RemoteError))
    if spec.startswith("s3://"):
        return S3Remote(spec, s3, transfer)
    path = Path(spec.removeprefix("file://")).expanduser()
    return DirectoryRemote(path)

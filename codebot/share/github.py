"""GitHub's REST API: every call codebot makes to it, in one place.

Two uses: the release that holds index artifacts (``codebot publish``/``pull`` through
:class:`GitHubRemote`), and the one comment ``codebot action pr`` keeps on a pull request. Calls go
through :class:`~codebot.core.http.HttpClient`: timeouts, retries with backoff on 5xx, ``Retry-After`` and
the secondary rate limit (a 403 or 429 with ``retry-after`` / ``x-ratelimit-remaining: 0``), and
every error says which call failed and why. Lists follow the ``Link: rel="next"`` pages.

The token goes into the ``Authorization`` header and nowhere else (see ``remote``).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from codebot.core.errors import RemoteError
from codebot.core.http import HttpClient, Progress, file_body, redact
from codebot.share.remote import Transfer, commit_of

__all__ = ["GitHub", "GitHubRemote", "github_repo_of"]

API_URL = "https://api.github.com"
UPLOADS_ORIGIN = "https://uploads.github.com"
MAX_PAGES = 100  # of 100 items: 10,000 assets or comments, far beyond what codebot keeps


def _origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc.rpartition('@')[2]}".lower()


def github_repo_of(url: str) -> tuple[str, str] | None:
    """(owner, repo) of a GitHub remote URL: https, ssh or scp-like (git@host:owner/repo.git)."""
    m = re.search(r"[:/]([^/:]+)/([^/]+?)(?:\.git)?/?$", url.strip())
    return (m.group(1), m.group(2)) if m else None


class GitHub:
    """One repository's REST API."""

    def __init__(
        self,
        owner: str,
        repo: str,
        api_url: str = API_URL,
        token: str | None = None,
        transfer: Transfer | None = None,
    ) -> None:
        self.owner, self.repo = owner, repo
        self.api = f"{api_url.rstrip('/')}/repos/{owner}/{repo}"
        headers = {"Accept": "application/vnd.github+json", "X-GitHub-Api-Version": "2022-11-28"}
        if token:
            headers["Authorization"] = f"Bearer {token}"
        self.authenticated = bool(token)
        self.origins = {_origin(self.api)}
        if _origin(self.api) == _origin(API_URL):
            self.origins.add(UPLOADS_ORIGIN)  # github.com takes uploads on a host of its own
        self.http = HttpClient(
            transfer or Transfer(), headers, secrets=[token or ""], error=RemoteError
        )

    def describe(self) -> str:
        return f"GitHub {self.owner}/{self.repo}"

    def close(self) -> None:
        self.http.close()

    def call(self, method: str, url: str, what: str, ok=(200,), **kw):
        """The response of one call (``url`` absolute, or relative to the repository's API);
        a RemoteError naming the call, the status and a hint when it is not one of ``ok``.

        The token goes only to the API's own origin (and github.com's upload host): an absolute
        URL a server handed us (a next page, an ``upload_url``) elsewhere is refused."""
        if not url.startswith("http"):
            url = f"{self.api}/{url.lstrip('/')}"
        elif _origin(url) not in self.origins:
            raise self.http.fail(
                f"{self.describe()}: {what}: refused to follow {redact(url)!r}, which is not on "
                f"the API's host ({', '.join(sorted(self.origins))})"
            )
        r = self.http.request(method, url, f"{self.describe()}: {what}", **kw)
        if r.status_code not in ok:
            status = self.http.status_text(r)
            raise self.http.fail(f"{self.describe()}: {what}: {status}{_hint(r.status_code)}")
        return r

    def pages(self, url: str, what: str) -> Iterator[dict[str, Any]]:
        """Every item of a listing, page by page, at most MAX_PAGES pages."""
        next_url: str | None = url
        for _ in range(MAX_PAGES):
            r = self.call("GET", next_url, what)
            items = r.json()
            if not isinstance(items, list):
                raise self.http.fail(f"{self.describe()}: {what}: the answer is not a list")
            yield from items
            next_url = r.links.get("next", {}).get("url")
            if not next_url:
                return
        raise self.http.fail(
            f"{self.describe()}: {what}: more than {MAX_PAGES} pages; stopped there (a server "
            "that never ends its list)"
        )

    # --- releases: index artifacts ----------------------------------------------------------------

    def release(self, tag: str) -> dict[str, Any] | None:
        r = self.call("GET", f"releases/tags/{tag}", f"find release {tag}", ok=(200, 404))
        return r.json() if r.status_code == 200 else None

    def create_release(self, tag: str) -> dict[str, Any]:
        body = {
            "tag_name": tag,
            "name": f"codebot index ({tag})",
            "body": "Index artifacts for `codebot pull`, one per commit, published by "
            "`codebot publish`.",
            "draft": False,
            "prerelease": True,
            "make_latest": "false",  # never the project's "latest release"
        }
        r = self.call("POST", "releases", f"create release {tag}", (201, 422), json=body)
        if r.status_code == 422:  # another job created it a moment ago
            found = self.release(tag)
            if found is None:
                status = self.http.status_text(r)
                raise self.http.fail(f"{self.describe()}: create release {tag}: {status}")
            return found
        return r.json()

    def assets(self, release: dict[str, Any]) -> dict[str, dict[str, Any]]:
        url = f"releases/{release['id']}/assets?per_page=100"
        return {a["name"]: a for a in self.pages(url, "list release assets")}

    def download_asset(self, asset: dict[str, Any], dest: Path, progress: Progress | None) -> bool:
        url = f"{self.api}/releases/assets/{asset['id']}"
        what = f"{self.describe()}: download {asset['name']}"
        headers = {"Accept": "application/octet-stream"}
        return self.http.download(url, dest, what, headers, progress)

    def upload_asset(
        self, release: dict[str, Any], path: Path, name: str, progress: Progress | None
    ) -> dict[str, Any] | None:
        """The new asset, or None when the name is taken (HTTP 422)."""
        upload_url = re.sub(r"\{[^}]*\}$", "", release["upload_url"])
        headers = {
            "Content-Type": "application/octet-stream",
            "Content-Length": str(path.stat().st_size),
        }
        r = self.call(
            "POST",
            upload_url,
            f"upload {name}",
            (201, 422),
            body=file_body(path, progress),
            params={"name": name},
            headers=headers,
        )
        return r.json() if r.status_code == 201 else None

    def delete_asset(self, asset: dict[str, Any]) -> None:
        url = f"releases/assets/{asset['id']}"
        self.call("DELETE", url, f"delete {asset['name']}", ok=(204, 404))

    # --- pull request comments ----------------------------------------------------------------------

    def comments(self, number: int) -> Iterator[dict[str, Any]]:
        return self.pages(f"issues/{number}/comments?per_page=100", f"list comments of #{number}")

    def create_comment(self, number: int, body: str) -> dict[str, Any]:
        what = f"comment on #{number}"
        return self.call(
            "POST", f"issues/{number}/comments", what, (201,), json={"body": body}
        ).json()

    def update_comment(self, comment_id: int, body: str) -> dict[str, Any]:
        what = f"edit comment {comment_id}"
        return self.call("PATCH", f"issues/comments/{comment_id}", what, json={"body": body}).json()


def _hint(status: int) -> str:
    if status == 401:
        return " (the token in GITHUB_TOKEN or GH_TOKEN was refused)"
    if status == 403:
        return (
            " (the token may lack permission: publishing needs contents: write, commenting "
            "pull-requests: write; a pull request from a fork gets a read-only token)"
        )
    if status == 404:
        return " (no such repository, or a private one: set GITHUB_TOKEN or GH_TOKEN)"
    return ""


class GitHubRemote:
    """Index artifacts as the assets of one release (the index stream's tag)."""

    def __init__(self, github: GitHub, tag: str) -> None:
        self.github, self.tag = github, tag
        self._assets: dict[str, dict[str, Any]] | None = None
        self._no_release = False

    def describe(self) -> str:
        return f"{self.github.describe()} release {self.tag}"

    def why_empty(self) -> str:
        if not self._no_release:
            return ""
        private = (
            ""
            if self.github.authenticated
            else "; a private repository needs GITHUB_TOKEN or GH_TOKEN"
        )
        return f" (no such release, or no such repository{private})"

    def _release(self, create: bool = False) -> dict[str, Any] | None:
        release = self.github.release(self.tag)
        if release is None:
            self._no_release = True
            if create:
                release = self.github.create_release(self.tag)
        return release

    def _list(self, release: dict[str, Any]) -> dict[str, dict[str, Any]]:
        self._assets = self.github.assets(release)
        return self._assets

    def names(self) -> set[str] | None:
        release = self._release()
        return set(self._list(release)) if release else set()

    def download(self, name: str, dest: Path, progress: Progress | None = None) -> bool:
        if self._assets is None:
            self.names()
        asset = (self._assets or {}).get(name)
        return asset is not None and self.github.download_asset(asset, dest, progress)

    def upload(self, path: Path, name: str, progress: Progress | None = None) -> str:
        release = self._release(create=True)
        assert release is not None
        for _ in range(2):
            existing = self._list(release).get(name)
            if existing is not None:  # same name (or a failed upload's "starter"): replace it
                self.github.delete_asset(existing)
            asset = self.github.upload_asset(release, path, name, progress)
            if asset is not None:
                return asset.get("browser_download_url") or name
        raise RemoteError(f"{self.describe()}: upload {name}: the name stays taken (HTTP 422)")

    def prune(self, keep: int) -> list[str]:
        release = self._release()
        if release is None:
            return []
        ours = [a for a in self._list(release).values() if commit_of(a["name"])]
        ours.sort(key=lambda a: (a.get("created_at", ""), a["id"]), reverse=True)
        for asset in ours[keep:]:
            self.github.delete_asset(asset)
        return sorted(a["name"] for a in ours[keep:])

    def close(self) -> None:
        self.github.close()

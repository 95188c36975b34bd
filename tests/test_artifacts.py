"""Index artifacts: pack, publish, pull and init against a real HTTP server on 127.0.0.1 (the
Releases API subset codebot uses, and plain GET/PUT), real git repositories and real indexes.

Every fault (a broken or stalled download, a bad status, a rate limit, a corrupt, newer or hostile
artifact) must end in a clear error and leave the index in place exactly as it was.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import os
import shutil
import subprocess
import sys
import tarfile
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from codebot.core.config import load_config
from codebot.core.errors import (
    ArtifactError,
    ConfigError,
    IncompatibleArtifact,
    NoArtifact,
    RemoteError,
)
from codebot.git.workspace import Workspace
from codebot.index.build import build_index
from codebot.index.overlay import open_index
from codebot.index.store import FORMAT_VERSION, read_manifest, verify
from codebot.index.update import update_index
from codebot.query.search import Searcher
from codebot.serve.cli import main
from codebot.share.artifacts import Limits, install, pack, read_artifact
from codebot.share.github import github_repo_of
from codebot.share.remote import Transfer, asset_name, redact
from codebot.share.sync import init, publish, pull, save_setting

from .conftest import git, write_files
from .fake_github import FakeServer, Fault
from .fakes import HashingEmbedder

FILES = {
    ".codebot.toml": 'embedder = "none"\n',
    "shop/cart.py": (
        "from shop.prices import price_of\n\n\n"
        "def cart_total(items):\n"
        '    """Sum the prices of the items in a cart."""\n'
        "    return sum(price_of(i) for i in items)\n"
    ),
    "shop/prices.py": "def price_of(item):\n    return item.price * (1 - item.discount)\n",
}
TOKEN = "ghp_s3cr3tT0kenThatMustNeverShow"
QUICK = Transfer(timeout=2.0, retries=2, backoff=0.01, max_wait=5.0)


@pytest.fixture
def server():
    fake = FakeServer()
    yield fake
    fake.close()


def commit(repo: Path, files: dict[str, str], message: str) -> str:
    write_files(repo, files)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", message)
    return git(repo, "rev-parse", "HEAD")


def config_of(repo: Path, **flags):
    return load_config(repo, flags)


def index_dir(repo: Path) -> Path:
    return repo / ".git" / "codebot"


def snapshot(repo: Path) -> tuple[bytes, list[str]]:
    """What must not change when a pull fails: the manifest and the generations on disk."""
    d = index_dir(repo)
    return (d / "manifest.json").read_bytes(), sorted(p.name for p in d.glob("gen-*"))


def assert_untouched(repo: Path, before: tuple[bytes, list[str]]) -> None:
    assert snapshot(repo) == before  # no new generation, not even a gen-N.tmp left behind
    assert not (index_dir(repo) / "downloads").exists()
    manifest = read_manifest(index_dir(repo))
    assert verify(index_dir(repo), manifest) == []


@pytest.fixture
def history(make_repo, tmp_path):
    """A repository with three commits (c0 -> c1 -> c2), an artifact of c1 packed, and a clone
    at c2 whose own index describes c0: a pull must install c1's artifact and update it to c2."""
    repo = make_repo(FILES)
    c0 = git(repo, "rev-parse", "HEAD")
    c1 = commit(repo, {"shop/tax.py": "def vat(amount):\n    return amount * 0.2\n"}, "tax")
    build_index(repo, config_of(repo))
    artifact = pack(repo, config_of(repo), tmp_path)
    c2 = commit(
        repo, {"shop/ship.py": "def shipping_cost(weight):\n    return 5 + weight\n"}, "ship"
    )
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(repo), str(clone))
    update_index(clone, config_of(clone), to=c0)
    return {
        "repo": repo,
        "clone": clone,
        "c0": c0,
        "c1": c1,
        "c2": c2,
        "artifact": Path(artifact.path),
        "bytes": Path(artifact.path).read_bytes(),
    }


def serve_github(server: FakeServer, h: dict, data: bytes | None = None) -> None:
    server.add_asset(asset_name(h["c1"]), h["bytes"] if data is None else data)


def pull_github(h: dict, server: FakeServer, transfer: Transfer = QUICK, **kw):
    config = config_of(h["clone"], github_api_url=server.url)
    return pull(h["clone"], config, "github:acme/shop", transfer=transfer, **kw)


def fresh_clone(history: dict, name: str) -> Path:
    """Another clone of the repository, at c2, with no index."""
    path = history["clone"].parent / name
    git(path.parent, "clone", "-q", str(history["repo"]), str(path))
    return path


def members_of(data: bytes) -> list[tuple[tarfile.TarInfo, bytes]]:
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:
        return [(m, tar.extractfile(m).read()) for m in tar.getmembers()]


def repack(members: list[tuple[tarfile.TarInfo, bytes | None]]) -> bytes:
    """An archive of these members, as given (links and devices included)."""
    raw = io.BytesIO()
    with (
        gzip.GzipFile(fileobj=raw, mode="wb", mtime=0) as gz,
        tarfile.open(fileobj=gz, mode="w|", format=tarfile.PAX_FORMAT) as tar,
    ):
        for info, body in members:
            if body is not None and len(body) != info.size:  # a header that lies about its size
                tar.fileobj.write(info.tobuf(tar.format, tar.encoding, tar.errors))
                tar.fileobj.write(body + b"\0" * (-len(body) % 512))
                continue
            tar.addfile(info, io.BytesIO(body) if body is not None else None)
    return raw.getvalue()


def edit_info(data: bytes, change) -> bytes:
    """The artifact with artifact.json changed by ``change(info)``."""
    members = members_of(data)
    info = json.loads(members[0][1])
    change(info)
    body = json.dumps(info).encode()
    head = tarfile.TarInfo("artifact.json")
    head.size = len(body)
    return repack([(head, body), *members[1:]])


# --- the format ----------------------------------------------------------------------------------


def test_artifact_holds_the_generation_and_a_manifest_that_follows_the_schema(
    make_repo, tmp_path, validate
):
    repo = make_repo(FILES)
    embedder = HashingEmbedder()
    build_index(repo, config_of(repo), embedder=embedder)
    report = pack(repo, config_of(repo), tmp_path)
    validate(report.to_dict(), "pack-report.schema.json")
    manifest = read_manifest(index_dir(repo))
    assert report.asset == f"codebot-index-v{FORMAT_VERSION}-{manifest.commit}.tar.gz"
    members = members_of(Path(report.path).read_bytes())
    assert members[0][0].name == "artifact.json"
    info = json.loads(members[0][1])
    validate(info, "artifact.schema.json")
    assert info["commit"] == manifest.commit and info["embedder"] == manifest.embedder
    assert info["embedder"]["name"] == "test-hashing"
    assert sorted(m.name for m, _ in members[1:]) == sorted(
        f"index/{rel}" for rel in manifest.checksums
    )
    assert not any("cache" in m.name for m, _ in members)  # the vector cache stays home
    # One index packs to the same bytes every time.
    again = pack(repo, config_of(repo), tmp_path / "again.tar.gz")
    assert again.sha256 == report.sha256


def test_pack_refuses_an_index_of_no_commit(make_repo, tmp_path):
    repo = make_repo(FILES, commit=False)
    build_index(repo, config_of(repo))
    with pytest.raises(ArtifactError, match="no commit"):
        pack(repo, config_of(repo), tmp_path)


def test_round_trip_with_vectors_answers_like_the_source(make_repo, tmp_path):
    repo = make_repo(FILES)
    embedder = HashingEmbedder()
    build_index(repo, config_of(repo), embedder=embedder)
    artifact = pack(repo, config_of(repo), tmp_path)
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(repo), str(clone))
    report = pull(clone, config_of(clone), artifact.path, embedder=embedder)
    assert report.action == "pulled" and report.update["action"] == "up-to-date"
    a = Searcher(open_index(repo, config_of(repo)), embedder=embedder)
    b = Searcher(open_index(clone, config_of(clone)), embedder=embedder)
    for mode in ("hybrid", "vector", "bm25"):
        assert [h.symbol.id for h in a.search("sum of cart prices", mode=mode)] == [
            h.symbol.id for h in b.search("sum of cart prices", mode=mode)
        ]


# --- the round trip through GitHub, by the CLI ---------------------------------------------------


def run(args: list[str], cwd: Path, env: dict[str, str] | None = None):
    old = os.getcwd()
    os.chdir(cwd)
    try:
        return CliRunner().invoke(main, args, env=env, catch_exceptions=False)
    finally:
        os.chdir(old)


def test_publish_clone_pull_query_through_github(make_repo, tmp_path, server, validate):
    repo = make_repo(FILES)
    git(repo, "remote", "add", "origin", "https://github.com/acme/shop.git")
    run(["index"], repo)
    env = {"CODEBOT_GITHUB_API_URL": server.url, "GITHUB_TOKEN": TOKEN}
    server.token = TOKEN
    out = run(["publish", "--to", "github", "--json"], repo, env)
    assert out.exit_code == 0, out.output
    published = json.loads(out.output)
    validate(published, "publish-report.schema.json")
    assert published["target"] == "GitHub acme/shop release codebot-index"
    assert server.asset_names() == [published["artifact"]["asset"]]
    # A new commit upstream; a fresh clone of it pulls the artifact of its parent, then updates.
    head = commit(repo, {"shop/ship.py": "def shipping_cost(weight):\n    return 5\n"}, "ship")
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(repo), str(clone))
    server.token = None  # a public repository: no token needed to read
    out = run(["pull", "--from", "github:acme/shop", "--json"], clone, {**env, "GITHUB_TOKEN": ""})
    assert out.exit_code == 0, out.output
    pulled = json.loads(out.output)
    validate(pulled, "pull-report.schema.json")
    assert pulled["action"] == "pulled" and pulled["behind"] == 1
    assert pulled["update"]["action"] == "updated" and pulled["update"]["commit"] == head
    out = run(["search", "shipping cost", "-k", "1"], clone)
    assert "shop.ship.shipping_cost" in out.output
    out = run(["search", "cart total", "-k", "1"], clone)
    assert "shop.cart.cart_total" in out.output
    # The token went to the API, never to the storage host the download was redirected to.
    storage = [r for r in server.requests if r.path.startswith("/storage/")]
    assert storage and all("Authorization" not in r.headers for r in storage)
    assert any(r.headers.get("Authorization") == f"Bearer {TOKEN}" for r in server.requests)


def test_pull_at_head_downloads_nothing(history, server):
    serve_github(server, history)
    pull(history["clone"], config_of(history["clone"]), str(history["artifact"]))  # now at c2
    server.requests.clear()
    report = pull_github(history, server)
    assert report.action == "up-to-date" and server.requests == []


def test_pull_keeps_a_local_index_nearer_to_head(history, server):
    update_index(history["clone"], config_of(history["clone"]))  # the clone's index: c2
    serve_github(server, history)
    report = pull_github(history, server)
    assert report.action in ("up-to-date", "kept")
    assert not any(r.path.startswith("/storage/") for r in server.requests)


def test_pull_follows_asset_pagination(history, server):
    server.page_size = 1
    for n in range(3):
        server.add_asset(f"codebot-index-v{FORMAT_VERSION}-{n:040x}.tar.gz", b"x")
    serve_github(server, history)
    report = pull_github(history, server)
    assert report.action == "pulled" and report.commit == history["c1"]
    assert report.update["commit"] == history["c2"]


def test_pagination_never_leaves_the_api_host_nor_goes_on_forever(history, server):
    """A next link elsewhere would get the token; an endless one would never stop (issue 15)."""
    for n in range(3):
        server.add_asset(f"codebot-index-v{FORMAT_VERSION}-{n:040x}.tar.gz", b"x")
    serve_github(server, history)
    server.page_size = 1
    server.link_base = f"http://localhost:{server.port}"  # another host, the same server
    with pytest.raises(RemoteError, match="refused to follow") as err:
        pull_github(history, server, token=TOKEN)
    assert TOKEN not in str(err.value)
    assert not any(r.headers.get("Host", "").startswith("localhost") for r in server.requests)

    server.link_base, server.endless = None, True
    server.requests.clear()
    with pytest.raises(RemoteError, match="more than 100 pages"):
        pull_github(history, server, token=TOKEN)
    assert len(server.requests) < 110


def test_an_upload_url_on_another_host_gets_no_token(history, server):
    repo = history["repo"]
    server.upload_base = f"http://localhost:{server.port}"
    config = config_of(repo, github_api_url=server.url)
    with pytest.raises(RemoteError, match="refused to follow"):
        publish(repo, config, "github:acme/shop", token=TOKEN, transfer=QUICK)
    assert not any(r.path.startswith("/uploads/") for r in server.requests)


# --- faults: each a clear error, the index in place untouched ------------------------------------


def test_a_broken_download_resumes_with_a_range_request(history, server):
    serve_github(server, history)
    server.faults.append(Fault("/storage/", truncate=len(history["bytes"]) // 2))
    report = pull_github(history, server)
    assert report.action == "pulled"
    ranges = [r.headers.get("Range") for r in server.requests if r.path.startswith("/storage/")]
    assert ranges == [None, f"bytes={len(history['bytes']) // 2}-"]


def test_a_download_that_keeps_breaking_fails_cleanly(history, server):
    serve_github(server, history)
    server.faults.append(Fault("/storage/", truncate=100, times=99))
    before = snapshot(history["clone"])
    with pytest.raises(RemoteError, match="broke off.*gave up after 3 tries"):
        pull_github(history, server)
    assert_untouched(history["clone"], before)


def test_a_truncated_artifact_is_refused(history, server):
    serve_github(server, history, history["bytes"][: len(history["bytes"]) * 2 // 3])
    before = snapshot(history["clone"])
    # Cut inside a member's data, gzip or tar says so; cut where the stream happens to end
    # cleanly (the sizes decide), the members artifact.json lists and the tar lacks say so.
    with pytest.raises(ArtifactError, match="truncated or corrupt|incomplete: .* missing"):
        pull_github(history, server)
    assert_untouched(history["clone"], before)


def test_a_checksum_mismatch_is_refused(history, server):
    members = members_of(history["bytes"])
    i = next(n for n, (m, _) in enumerate(members) if m.name == "index/symbols.msgpack")
    info, body = members[i]
    members[i] = (info, body[:-1] + bytes([body[-1] ^ 1]))  # one bit, same size
    serve_github(server, history, repack(members))
    before = snapshot(history["clone"])
    with pytest.raises(ArtifactError, match="checksum mismatch in 'index/symbols.msgpack'"):
        pull_github(history, server)
    assert_untouched(history["clone"], before)


@pytest.mark.parametrize("field", ["index", "artifact"])
def test_an_artifact_of_a_newer_format_says_upgrade(history, server, field):
    def newer(info):
        if field == "index":
            info["manifest"]["format_version"] = FORMAT_VERSION + 1
        else:
            info["artifact_format"] += 1

    serve_github(server, history, edit_info(history["bytes"], newer))
    before = snapshot(history["clone"])
    with pytest.raises(IncompatibleArtifact, match="upgrade codebot"):
        pull_github(history, server)
    assert_untouched(history["clone"], before)


def test_only_newer_format_artifacts_in_the_store_says_upgrade(history, server):
    name = asset_name(history["c1"], FORMAT_VERSION + 1)
    server.add_asset(name, history["bytes"])
    upgrade = f"index format {FORMAT_VERSION + 1}: upgrade codebot"
    assert upgrade in pull_github(history, server).note  # the clone's own index is kept
    fresh = fresh_clone(history, "fresh")
    config = config_of(fresh, github_api_url=server.url)
    with pytest.raises(NoArtifact, match=upgrade):
        pull(fresh, config, "github:acme/shop", transfer=QUICK)


def test_an_artifact_of_another_line_of_history_is_refused(history, tmp_path, server):
    repo = history["repo"]
    git(repo, "checkout", "-q", "-b", "side", history["c0"])
    side = commit(repo, {"shop/side.py": "def side():\n    return 1\n"}, "side")
    update_index(repo, config_of(repo))
    stray = pack(repo, config_of(repo), tmp_path / "side.tar.gz")
    before = snapshot(history["clone"])
    git(history["clone"], "fetch", "-q", "origin", "side")  # the clone has the commit, off HEAD
    with pytest.raises(ArtifactError, match=f"{side[:12]}, which is not an ancestor of HEAD"):
        pull(history["clone"], config_of(history["clone"]), stray.path)
    assert_untouched(history["clone"], before)
    # Published under the name of an ancestor: the name and the content disagree.
    serve_github(server, history, Path(stray.path).read_bytes())
    with pytest.raises(ArtifactError, match="mislabelled"):
        pull_github(history, server)
    assert_untouched(history["clone"], before)


def test_no_release_at_all_is_no_artifact(history, server):
    before = snapshot(history["clone"])
    report = pull_github(history, server)  # the clone's own index (c0) is updated instead
    assert report.action == "kept" and "no artifact newer" in report.note
    fresh = fresh_clone(history, "fresh")
    config = config_of(fresh, github_api_url=server.url)
    with pytest.raises(NoArtifact, match="no artifact in GitHub acme/shop.*build locally"):
        pull(fresh, config, "github:acme/shop", transfer=QUICK)
    assert before  # (the fixture's clone was updated by the first pull: that one succeeded)


def test_404_on_a_private_repository_names_the_token(history, server):
    server.token = TOKEN
    fresh = fresh_clone(history, "fresh")
    config = config_of(fresh, github_api_url=server.url)
    with pytest.raises(NoArtifact, match="private repository needs GITHUB_TOKEN or GH_TOKEN"):
        pull(fresh, config, "github:acme/shop", transfer=QUICK)  # GitHub: 404 without a token
    serve_github(server, history)
    server.faults.append(Fault("/releases/tags/", status=401, body=b'{"message": "Bad"}'))
    with pytest.raises(RemoteError, match="HTTP 401.*GITHUB_TOKEN or GH_TOKEN") as err:
        pull_github(history, server)
    assert TOKEN not in str(err.value)


def test_500_is_retried_then_reported(history, server):
    serve_github(server, history)
    server.faults.append(Fault("/assets", status=500))
    assert pull_github(history, server).action == "pulled"  # once: retried
    before = snapshot(history["clone"])
    server.faults.append(Fault("/releases/tags/", status=500, times=99))
    update_index(history["clone"], config_of(history["clone"]), to=history["c0"])
    before = snapshot(history["clone"])
    with pytest.raises(RemoteError, match="HTTP 500 \\(gave up after 3 tries\\)"):
        pull_github(history, server)
    assert_untouched(history["clone"], before)


def test_403_rate_limit_waits_for_retry_after(history, server):
    serve_github(server, history)
    limit = {"Retry-After": "1", "x-ratelimit-remaining": "0"}
    server.faults.append(Fault("/releases/tags/", status=403, headers=limit))
    started = time.monotonic()
    assert pull_github(history, server).action == "pulled"
    assert time.monotonic() - started >= 1.0


def test_403_rate_limit_longer_than_we_wait_fails_at_once(history, server):
    serve_github(server, history)
    limit = {"Retry-After": "3600"}
    server.faults.append(Fault("/releases/tags/", status=403, headers=limit, times=9))
    before = snapshot(history["clone"])
    started = time.monotonic()
    with pytest.raises(RemoteError, match="rate limited \\(403\\).*3600s.*try again later"):
        pull_github(history, server)
    assert time.monotonic() - started < 2
    assert_untouched(history["clone"], before)


def test_403_without_a_rate_limit_is_forbidden(history, server):
    serve_github(server, history)
    body = b'{"message": "Resource not accessible by integration"}'
    server.faults.append(Fault("/releases/tags/", status=403, body=body))
    with pytest.raises(RemoteError, match="not accessible by integration.*lack permission"):
        pull_github(history, server)


def test_a_stalling_server_times_out(history, server):
    serve_github(server, history)
    server.faults.append(Fault("/storage/", stall=3.0, times=9))
    before = snapshot(history["clone"])
    started = time.monotonic()
    with pytest.raises(RemoteError, match="no answer within the timeout.*gave up after 2 tries"):
        pull_github(history, server, Transfer(timeout=0.3, retries=1, backoff=0.01))
    assert time.monotonic() - started < 2.5
    assert_untouched(history["clone"], before)


# --- hostile archives ----------------------------------------------------------------------------


def _entry(name: str, body: bytes = b"", kind=tarfile.REGTYPE, link: str = "", size=None):
    """A member; ``size``: what its header claims, whatever the body."""
    info = tarfile.TarInfo(name)
    info.type, info.linkname = kind, link
    info.size = len(body) if size is None else size
    return info, (body if kind == tarfile.REGTYPE else None)


TERABYTE = 1 << 40
ZERO = {"sha256": "0" * 64, "size": 0}


def with_members(data: bytes, extra: list, listed: dict | None = None) -> bytes:
    """The artifact ``data`` with ``extra`` members first and ``listed`` added to artifact.json."""
    members = members_of(data)
    info = json.loads(members[0][1])
    info["members"].update(listed or {})
    info["manifest"]["checksums"].update({k: v["sha256"] for k, v in (listed or {}).items()})
    body = json.dumps(info).encode()
    head = tarfile.TarInfo("artifact.json")
    head.size = len(body)
    return repack([(head, body), *extra, *members[1:]])


def _hostile(history: dict, extra: list, listed: dict | None = None) -> bytes:
    return with_members(history["bytes"], extra, listed)


HOSTILE_MEMBERS = [
    ([_entry("index/../../evil.py", b"x")], None, "could escape"),
    ([_entry("/tmp/evil.py", b"x")], None, "lies outside index/"),
    ([_entry("evil.py", b"x")], None, "lies outside index/"),
    ([_entry("index/evil", kind=tarfile.SYMTYPE, link="/etc/passwd")], None, "symbolic link"),
    ([_entry("index/evil", kind=tarfile.LNKTYPE, link="index/keys.u64")], None, "hard link"),
    ([_entry("index/evil", kind=tarfile.CHRTYPE)], None, "character device"),
    ([_entry("index/evil", kind=tarfile.FIFOTYPE)], None, "FIFO"),
    ([_entry("index/evil.py", b"x")], None, "not listed in artifact.json"),
    (
        [_entry("index/lexical/evil", b"x" * 10)],
        {"lexical/evil": ZERO},
        "is 10 bytes, artifact.json says 0",
    ),
    # Headers that claim a terabyte: refused before a byte of it is read.
    ([_entry("index/big", b"x", size=TERABYTE)], None, "not listed"),
    (
        [_entry("index/lexical/big", b"x", size=TERABYTE)],
        {"lexical/big": ZERO},
        f"is {TERABYTE} bytes",
    ),
]


@pytest.mark.parametrize("extra, listed, message", HOSTILE_MEMBERS)
def test_hostile_members_are_refused(history, server, tmp_path, extra, listed, message):
    data = _hostile(history, extra, listed)
    serve_github(server, history, data)
    before = snapshot(history["clone"])
    with pytest.raises(ArtifactError, match=message or ""):
        pull_github(history, server)
    assert_untouched(history["clone"], before)
    assert not (tmp_path / "evil.py").exists() and not Path("/tmp/evil.py").exists()


def test_a_decompression_bomb_is_capped_before_unpacking(history, tmp_path):
    big = b"\0" * (3 << 20)  # 3 MiB of zeros: a few KiB compressed
    data = _hostile(
        history,
        [_entry("index/bomb", big)],
        {"bomb": {"sha256": hashlib.sha256(big).hexdigest(), "size": len(big)}},
    )
    assert len(data) < len(big) // 50
    bomb = tmp_path / "bomb.tar.gz"
    bomb.write_bytes(data)
    before = snapshot(history["clone"])
    config = config_of(history["clone"])
    with pytest.raises(ArtifactError, match="add up to 31[0-9]{5} bytes, over the cap of 1048576"):
        install(history["clone"], config, bomb, limits=Limits(total_bytes=1 << 20))
    with pytest.raises(ArtifactError, match="members, over the cap of 5"):
        many = {f"m{n}": ZERO for n in range(20)}
        (tmp_path / "many.tar.gz").write_bytes(_hostile(history, [], many))
        install(history["clone"], config, tmp_path / "many.tar.gz", limits=Limits(members=5))
    assert_untouched(history["clone"], before)


@pytest.mark.parametrize(
    "path", ["/etc/passwd", "../x", "a/../../x", "a//b", "./a", "a\\b", "c:x", "a\x00b", ""]
)
def test_listed_paths_that_could_escape_are_refused(history, tmp_path, path):
    data = edit_info(history["bytes"], lambda info: info["members"].update({path: ZERO}))
    with pytest.raises(ArtifactError, match="could escape"):
        read_artifact_bytes(data, tmp_path)


def read_artifact_bytes(data: bytes, tmp_path: Path):
    f = tmp_path / "a.tar.gz"
    f.write_bytes(data)
    dest = tmp_path / "dest"
    dest.mkdir(exist_ok=True)
    return read_artifact(f, dest)


def test_artifact_json_must_come_first(history, tmp_path):
    members = members_of(history["bytes"])
    data = repack([*members[1:], members[0]])
    with pytest.raises(ArtifactError, match="not a codebot artifact"):
        read_artifact_bytes(data, tmp_path)


def test_a_missing_member_is_refused(history, tmp_path):
    data = repack(members_of(history["bytes"])[:-1])
    with pytest.raises(ArtifactError, match="incomplete"):
        read_artifact_bytes(data, tmp_path)


def test_a_table_that_does_not_match_its_counts_is_refused(history, tmp_path):
    def fewer(info):
        info["manifest"]["counts"]["files"] -= 1
        info["counts"] = info["manifest"]["counts"]

    (tmp_path / "a.tar.gz").write_bytes(edit_info(history["bytes"], fewer))
    before = snapshot(history["clone"])
    with pytest.raises(ArtifactError, match=r"files.msgpack: \d+ rows, the manifest counts \d+"):
        install(history["clone"], config_of(history["clone"]), tmp_path / "a.tar.gz")
    assert_untouched(history["clone"], before)


# --- embedder and settings: never mixed ----------------------------------------------------------


def test_another_embedder_is_refused(make_repo, tmp_path):
    repo = make_repo(FILES)
    build_index(repo, config_of(repo), embedder=HashingEmbedder())
    artifact = pack(repo, config_of(repo), tmp_path)
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(repo), str(clone))
    with pytest.raises(IncompatibleArtifact, match="test-hashing .*never mixed"):
        pull(clone, config_of(clone), artifact.path)  # this clone indexes keywords only
    with pytest.raises(IncompatibleArtifact, match="never mixed"):
        pull(clone, config_of(clone), artifact.path, embedder=HashingEmbedder(dimension=64))
    assert not (index_dir(clone) / "manifest.json").exists()


def test_other_settings_are_refused_naming_them(history):
    config = config_of(history["clone"], max_file_bytes=1234)
    with pytest.raises(IncompatibleArtifact, match="max_file_bytes: 1000000 there, 1234 here"):
        pull(history["clone"], config, str(history["artifact"]))


# --- the other stores ----------------------------------------------------------------------------


def test_url_template_put_then_get_walking_back(history, server):
    repo, clone = history["repo"], history["clone"]
    template = f"{server.url}/files/{{name}}?X-Amz-Signature=secret"
    update_index(repo, config_of(repo), to=history["c1"])
    out = publish(repo, config_of(repo), template, transfer=QUICK)
    assert out.location == f"{server.url}/files/{asset_name(history['c1'])}"  # no query string
    assert "secret" not in out.target + out.location
    report = pull(clone, config_of(clone), template, transfer=QUICK)
    assert report.action == "pulled" and report.commit == history["c1"]
    gets = [p for p in server.paths("GET") if p.startswith("/files/")]
    assert [p.split("/")[2].split("?")[0] for p in gets] == [
        asset_name(history["c2"]),  # 404: walked back to its parent
        asset_name(history["c1"]),
    ]


def test_a_server_that_ignores_ranges_is_read_again_from_the_start(history, server):
    repo, clone = history["repo"], history["clone"]
    update_index(repo, config_of(repo), to=history["c1"])
    template = f"{server.url}/files/{{commit}}.tar.gz"
    publish(repo, config_of(repo), template, transfer=QUICK)
    server.ranges = False
    server.faults.append(Fault(f"/files/{history['c1']}", truncate=1000))
    assert pull(clone, config_of(clone), template, transfer=QUICK).action == "pulled"
    gets = [r.headers.get("Range") for r in server.requests if r.method == "GET"][-2:]
    assert gets == [None, "bytes=1000-"]  # asked to resume, was sent the whole file: read it


def test_url_template_needs_a_placeholder(history, server):
    with pytest.raises(RemoteError, match="needs \\{commit\\} or \\{name\\}"):
        pull(history["clone"], config_of(history["clone"]), f"{server.url}/files/index.tar.gz")


def test_directory_store_publishes_prunes_and_pulls(history, tmp_path):
    repo, store = history["repo"], tmp_path / "store"
    for rev in (history["c0"], history["c1"], history["c2"]):
        update_index(repo, config_of(repo), to=rev)
        report = publish(repo, config_of(repo), str(store), keep=2)
        time.sleep(0.01)  # distinct modification times
    assert report.pruned == [asset_name(history["c0"])]
    assert sorted(p.name for p in store.iterdir()) == sorted(
        asset_name(c) for c in (history["c1"], history["c2"])
    )
    pulled = pull(history["clone"], config_of(history["clone"]), str(store))
    assert pulled.commit == history["c2"] and pulled.behind == 0


def test_github_publish_replaces_and_prunes(history, server):
    repo = history["repo"]
    config = config_of(repo, github_api_url=server.url)
    for rev in (history["c0"], history["c1"], history["c2"], history["c2"]):
        update_index(repo, config_of(repo), to=rev)
        report = publish(repo, config, "github:acme/shop", token=TOKEN, keep=2, transfer=QUICK)
    assert server.asset_names() == [asset_name(history["c1"]), asset_name(history["c2"])]
    assert report.pruned == []
    created = [r for r in server.requests if r.method == "POST" and r.path.endswith("/releases")]
    assert len(created) == 1  # the release, on the first publish


def test_github_repository_from_the_origin_url():
    assert github_repo_of("https://github.com/acme/shop.git") == ("acme", "shop")
    assert github_repo_of("git@github.com:acme/shop.git") == ("acme", "shop")
    assert github_repo_of("ssh://git@github.com/acme/shop") == ("acme", "shop")
    assert redact("https://user:pw@host:8080/a/b?sig=1#x") == "https://host:8080/a/b"


def test_tokens_never_show(history, server, tmp_path):
    repo = history["repo"]
    server.token = "something-else"
    config = config_of(repo, github_api_url=server.url)
    with pytest.raises(RemoteError) as err:
        publish(repo, config, "github:acme/shop", token=TOKEN, transfer=QUICK)
    assert TOKEN not in str(err.value) and "HTTP 404" in str(err.value)
    env = {"CODEBOT_GITHUB_API_URL": server.url, "GITHUB_TOKEN": TOKEN}
    out = run(["publish", "--to", "github:acme/shop"], repo, env)
    assert out.exit_code == 1 and TOKEN not in out.output and "codebot: error:" in out.output


# --- init and the post-checkout hook -------------------------------------------------------------


def test_init_pulls_or_builds_locally(history, tmp_path, validate):
    fresh = tmp_path / "fresh"
    git(tmp_path, "clone", "-q", str(history["repo"]), str(fresh))
    store = tmp_path / "store"
    out = run(["init", "--from", str(store), "--save", "--json"], fresh)
    assert out.exit_code == 0, out.output
    report = json.loads(out.output)
    validate(report, "init-report.schema.json")
    assert report["pull"] is None and "no artifact in directory" in report["built"]
    assert report["update"]["action"] == "rebuilt" and report["hooks"]["hooks"]
    assert (fresh / ".codebot.toml").read_text().endswith(f'artifacts = "{store}"\n')
    assert load_config(fresh).artifacts == str(store)
    # Once there is an artifact, init in another clone pulls it.
    publish(history["repo"], config_of(history["repo"]), str(store))
    other = tmp_path / "other"
    git(tmp_path, "clone", "-q", str(history["repo"]), str(other))
    out = run(["init", "--from", str(store), "--no-hooks", "--json"], other)
    report = json.loads(out.output)
    validate(report, "init-report.schema.json")
    assert report["pull"]["action"] == "pulled" and report["hooks"] is None


def test_save_setting_never_rewrites(tmp_path):
    assert save_setting(tmp_path, "artifacts", "github") == tmp_path / ".codebot.toml"
    assert save_setting(tmp_path, "artifacts", "github") is None
    with pytest.raises(ConfigError, match="already sets artifacts = 'github'"):
        save_setting(tmp_path, "artifacts", "/elsewhere")
    other = tmp_path / "p"
    other.mkdir()
    (other / "pyproject.toml").write_text("[tool.codebot]\nembedder = 'none'\n")
    with pytest.raises(ConfigError, match=r"\[tool.codebot\]"):
        save_setting(other, "artifacts", "github")


@pytest.mark.parametrize(
    "store", ["https://ci:hunter2@cache.example/idx/{name}", "https://h/idx/{name}?sig=s3cr3t"]
)
def test_save_setting_never_writes_credentials(tmp_path, store):
    with pytest.raises(ConfigError, match="carries credentials") as info:
        save_setting(tmp_path, "artifacts", store)
    assert "hunter2" not in str(info.value) and "s3cr3t" not in str(info.value)
    assert not (tmp_path / ".codebot.toml").exists()
    assert save_setting(tmp_path, "artifacts", "github:acme/shop") == tmp_path / ".codebot.toml"


def test_init_without_a_store_builds(make_repo):
    repo = make_repo(FILES)
    report = init(repo, config_of(repo), hooks=False)
    assert report.pull is None and "no artifact store" in report.built
    assert read_manifest(index_dir(repo)).commit == git(repo, "rev-parse", "HEAD")


def test_post_checkout_pulls_into_a_new_clone(history, tmp_path):
    store = tmp_path / "store"
    update_index(history["repo"], config_of(history["repo"]), to=history["c1"])
    publish(history["repo"], config_of(history["repo"]), str(store))
    fresh = tmp_path / "fresh"
    git(tmp_path, "clone", "-q", str(history["repo"]), str(fresh))
    env = {**os.environ, "CODEBOT_ARTIFACTS": str(store)}
    zeros = "0" * 40
    subprocess.run(
        [
            sys.executable,
            "-m",
            "codebot",
            "hook",
            "post-checkout",
            zeros,
            "HEAD",
            "1",
            "--detached",
        ],
        cwd=fresh,
        env=env,
        check=True,
        timeout=120,
    )
    log = (index_dir(fresh) / "update.log").read_text()
    assert f"pulled {asset_name(history['c1'])}" in log, log
    assert read_manifest(index_dir(fresh)).commit == history["c2"]


# --- config --------------------------------------------------------------------------------------


def test_a_relative_store_is_the_repositorys(history):
    repo, clone = history["repo"], history["clone"]
    publish(repo, config_of(repo, artifacts="ci-cache"))
    assert (repo / "ci-cache" / asset_name(history["c1"])).is_file()
    (clone / "ci-cache").mkdir()
    shutil.copy(repo / "ci-cache" / asset_name(history["c1"]), clone / "ci-cache")
    assert pull(clone, config_of(clone, artifacts="ci-cache")).commit == history["c1"]


def test_artifact_settings_come_from_file_and_environment(tmp_path):
    (tmp_path / ".codebot.toml").write_text('artifacts = "github"\npull_depth = 7\n')
    config = load_config(tmp_path, environ={"CODEBOT_ARTIFACT_KEEP": "3"})
    assert (config.artifacts, config.pull_depth, config.artifact_keep) == ("github", 7, 3)
    assert config.pull_on_clone and config.artifact_release == "codebot-index"
    assert Workspace.at(tmp_path, config.index_dir).index_dir == tmp_path / ".codebot"


def test_pack_into_a_new_directory_named_with_a_trailing_slash(make_repo):
    repo = make_repo(FILES)
    build_index(repo, config_of(repo))
    out = run(["pack", "-o", "newdir/"], repo)
    assert out.exit_code == 0, out.output
    made = repo / "newdir" / asset_name(git(repo, "rev-parse", "HEAD"))
    assert made.is_file() and str(made) in out.output  # where it went, said in full
    out = run(["pack", "-o", "deeper/still/", "--json"], repo)
    assert json.loads(out.output)["path"] == str(repo / "deeper" / "still" / made.name)

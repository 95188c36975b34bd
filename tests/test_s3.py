"""s3:// artifact stores against a real S3-compatible server on 127.0.0.1 (moto's, in a process of
its own, behind a recording proxy that can cut a connection or answer an S3 error): publish, a
fresh clone's pull and a search; multipart uploads; a download cut part-way that resumes with a
range GET; prune; every failure a one-line error without secrets; and what a repository's
settings may and may not choose.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

boto3 = pytest.importorskip("boto3")
pytest.importorskip("moto")

from codebot.core.config import Config, load_config  # noqa: E402
from codebot.core.errors import ConfigError, NoArtifact, RemoteError  # noqa: E402
from codebot.index.build import build_index  # noqa: E402
from codebot.index.store import FORMAT_VERSION, read_manifest  # noqa: E402
from codebot.share.remote import Transfer, asset_name  # noqa: E402
from codebot.share.s3 import S3Options, S3Remote, parse_s3_url  # noqa: E402
from codebot.share.sync import publish, pull  # noqa: E402

from .conftest import git  # noqa: E402
from .fake_s3 import Answer, Cut, MotoProcess, Proxy  # noqa: E402
from .test_artifacts import FILES, commit, fresh_clone, run  # noqa: E402

SECRET = "s3cr3tK3yThatMustNeverShowUp/+abc"
QUICK = Transfer(timeout=5.0, retries=2, backoff=0.01, max_wait=5.0)


@pytest.fixture
def history(make_repo, tmp_path):
    """A repository at c2 whose index describes c1, and a clone of it at c2 with no index."""
    repo = make_repo(FILES)
    c1 = commit(repo, {"shop/tax.py": "def vat(amount):\n    return amount * 0.2\n"}, "tax")
    build_index(repo, load_config(repo))
    c2 = commit(
        repo, {"shop/ship.py": "def shipping_cost(weight):\n    return 5 + weight\n"}, "ship"
    )
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(repo), str(clone))
    return {"repo": repo, "clone": clone, "c1": c1, "c2": c2}


@pytest.fixture(scope="module")
def moto():
    server = MotoProcess()
    yield server
    server.close()


@pytest.fixture
def s3(moto, monkeypatch, tmp_path):
    """A proxy over moto, AWS credentials in the environment only (no ~/.aws), a new bucket."""
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "AKIAEXAMPLETESTKEY")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", SECRET)
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "no-aws-config"))
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "no-aws-credentials"))
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")
    for var in ("AWS_PROFILE", "AWS_SESSION_TOKEN", "AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_S3"):
        monkeypatch.delenv(var, raising=False)
    proxy = Proxy(moto.url)
    bucket = f"codebot-{uuid.uuid4().hex[:12]}"
    direct = boto3.client(
        "s3",
        endpoint_url=moto.url,
        region_name="us-east-1",
        aws_access_key_id="AKIAEXAMPLETESTKEY",
        aws_secret_access_key=SECRET,
    )
    direct.create_bucket(Bucket=bucket)
    yield {"proxy": proxy, "bucket": bucket, "direct": direct, "url": proxy.url}
    proxy.close()


def options(s3: dict, **kw) -> S3Options:
    return S3Options(endpoint_url=s3["url"], **kw)


def config_for(repo: Path, s3: dict, **changes) -> Config:
    """The settings a user gives on the command line (range-checked), then library-only values
    (a part size below S3's 5 MiB, which only moto here accepts)."""
    config = load_config(repo, {"s3_endpoint_url": s3["url"]})
    return config.replace(**changes) if changes else config


def requests_of(s3: dict, method: str, *, query: str = "", suffix: str = "") -> list:
    return [
        r
        for r in s3["proxy"].requests
        if r.method == method and query in r.query and r.path.endswith(suffix)
    ]


# --- the round trip, by the CLI -------------------------------------------------------------


def test_publish_clone_pull_search_through_s3(make_repo, tmp_path, s3, validate):
    """The repository names the bucket; the endpoint is the user's (an environment variable)."""
    spec = f"s3://{s3['bucket']}/team/shop"
    repo = make_repo({**FILES, ".codebot.toml": f'embedder = "none"\nartifacts = "{spec}"\n'})
    run(["index"], repo)
    env = {"CODEBOT_S3_ENDPOINT_URL": s3["url"]}
    out = run(["publish", "--json"], repo, env)
    assert out.exit_code == 0, out.output
    published = json.loads(out.output)
    validate(published, "publish-report.schema.json")
    asset = published["artifact"]["asset"]
    assert published["location"] == f"s3://{s3['bucket']}/team/shop/{asset}"
    assert published["target"] == f"{spec} at {s3['url']}"
    stored = s3["direct"].head_object(Bucket=s3["bucket"], Key=f"team/shop/{asset}")
    assert stored["Metadata"]["sha256"] == published["artifact"]["sha256"]
    # Path-style requests to the endpoint the user chose: the bucket is never part of a host.
    assert all(r.path.startswith(f"/{s3['bucket']}") for r in s3["proxy"].requests)
    assert all(r.headers["Host"] == s3["url"][7:] for r in s3["proxy"].requests)

    head = commit(repo, {"shop/ship.py": "def shipping_cost(weight):\n    return 5\n"}, "ship")
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(repo), str(clone))
    out = run(["pull", "--json", "--s3-endpoint-url", s3["url"]], clone)
    assert out.exit_code == 0, out.output
    pulled = json.loads(out.output)
    validate(pulled, "pull-report.schema.json")
    assert pulled["action"] == "pulled" and pulled["asset"] == asset and pulled["behind"] == 1
    assert pulled["update"]["action"] == "updated" and pulled["update"]["commit"] == head
    assert "shop.ship.shipping_cost" in run(["search", "shipping cost", "-k", "1"], clone).output
    assert "shop.cart.cart_total" in run(["search", "cart total", "-k", "1"], clone).output
    assert requests_of(s3, "GET", query="list-type=2")  # found by listing, as the others are


# --- multipart, resumed downloads, prune ----------------------------------------------------


def test_a_large_artifact_is_uploaded_in_parts_and_pulled_back(history, s3):
    repo = history["repo"]
    part = 1024  # moto here takes parts from 1 KiB (fake_s3.MIN_PART); AWS from 5 MiB
    config = config_for(repo, s3, s3_multipart_threshold=part)
    spec = f"s3://{s3['bucket']}/big"
    report = publish(repo, config, spec, transfer=QUICK)
    name = report.artifact["asset"]
    assert report.artifact["bytes"] > 3 * part  # several parts
    assert len(requests_of(s3, "POST", query="uploads")) == 1  # CreateMultipartUpload
    parts = requests_of(s3, "PUT", query="partNumber=")
    assert len(parts) == -(-report.artifact["bytes"] // part)
    assert len(requests_of(s3, "POST", query="uploadId=")) == 1  # CompleteMultipartUpload
    assert not requests_of(s3, "PUT", query="", suffix=name) or all(
        "partNumber=" in r.query for r in requests_of(s3, "PUT", suffix=name)
    )
    stored = s3["direct"].get_object(Bucket=s3["bucket"], Key=f"big/{name}")["Body"].read()
    assert len(stored) == report.artifact["bytes"]
    # Below the threshold: one PUT.
    s3["proxy"].requests.clear()
    publish(repo, config_for(repo, s3), spec, transfer=QUICK)
    assert not requests_of(s3, "POST") and len(requests_of(s3, "PUT", suffix=name)) == 1

    clone = fresh_clone(history, "clone2")
    pulled = pull(clone, config_for(clone, s3), spec, transfer=QUICK)
    assert (
        pulled.action == "pulled" and pulled.commit == read_manifest(repo / ".git/codebot").commit
    )


def test_a_download_cut_part_way_resumes_with_a_range_get(history, s3):
    repo = history["repo"]
    spec = f"s3://{s3['bucket']}/resume"
    report = publish(repo, config_for(repo, s3), spec, transfer=QUICK)
    name, size = report.artifact["asset"], report.artifact["bytes"]
    half = size // 2
    s3["proxy"].cuts.append(Cut(name, after=half))
    s3["proxy"].requests.clear()
    clone = fresh_clone(history, "clone2")
    pulled = pull(clone, config_for(clone, s3), spec, transfer=QUICK)
    assert pulled.action == "pulled" and pulled.bytes == size
    gets = requests_of(s3, "GET", suffix=name)
    assert len(gets) == 2
    assert "Range" not in gets[0].headers
    assert gets[1].headers["Range"] == f"bytes={half}-"  # on from what is on disk
    assert gets[1].headers["If-Match"] == gets[0].headers["If-Match"]  # the same object
    assert pulled.update["commit"] == history["c2"]


def test_a_download_that_keeps_breaking_fails_cleanly(history, s3):
    repo = history["repo"]
    spec = f"s3://{s3['bucket']}/broken"
    name = publish(repo, config_for(repo, s3), spec, transfer=QUICK).artifact["asset"]
    s3["proxy"].cuts.append(Cut(name, after=100, times=10))
    clone = fresh_clone(history, "clone2")
    with pytest.raises(RemoteError, match=f"download {name}") as err:
        pull(clone, config_for(clone, s3), spec, transfer=QUICK)
    assert "\n" not in str(err.value) and SECRET not in str(err.value)
    assert not (clone / ".git" / "codebot" / "downloads").exists()
    assert len(requests_of(s3, "GET", suffix=name)) == QUICK.retries + 1


def test_an_object_replaced_with_other_bytes_is_refused(history, s3):
    """The sha256 it was published with is checked: bytes changed in the store are refused."""
    repo = history["repo"]
    spec = f"s3://{s3['bucket']}/changed"
    name = publish(repo, config_for(repo, s3), spec, transfer=QUICK).artifact["asset"]
    key = f"changed/{name}"
    stored = s3["direct"].get_object(Bucket=s3["bucket"], Key=key)
    meta, data = stored["Metadata"], bytearray(stored["Body"].read())
    data[len(data) // 2] ^= 0xFF
    s3["direct"].put_object(Bucket=s3["bucket"], Key=key, Body=bytes(data), Metadata=meta)
    clone = fresh_clone(history, "clone2")
    with pytest.raises(RemoteError, match="sha256 is not the one it was published with"):
        pull(clone, config_for(clone, s3), spec, transfer=QUICK)


def test_prune_keeps_the_newest(s3, tmp_path):
    remote = S3Remote(f"s3://{s3['bucket']}/p", options(s3), QUICK)
    names = [asset_name(f"{n:040x}") for n in range(3)]
    for name in names:
        path = tmp_path / name
        path.write_bytes(b"artifact " + name.encode())
        assert remote.upload(path, name) == f"s3://{s3['bucket']}/p/{name}"
        time.sleep(1.1)  # S3 dates objects to the second
    s3["direct"].put_object(Bucket=s3["bucket"], Key="p/notes.txt", Body=b"not ours")
    assert remote.names() == set(names)
    assert remote.prune(2) == [names[0]]
    keys = {o["Key"] for o in s3["direct"].list_objects_v2(Bucket=s3["bucket"])["Contents"]}
    assert keys == {f"p/{names[1]}", f"p/{names[2]}", "p/notes.txt"}
    remote.close()


def test_no_artifact_under_the_prefix(history, s3):
    clone = fresh_clone(history, "clone2")
    spec = f"s3://{s3['bucket']}/empty"
    with pytest.raises(NoArtifact, match=f"no artifact in {spec}"):
        pull(clone, config_for(clone, s3), spec, transfer=QUICK, update=False)


# --- failures: one line, what to do, no secret --------------------------------------------------


def test_a_missing_bucket_says_so(history, s3):
    spec = f"s3://no-such-{s3['bucket']}/x"
    with pytest.raises(RemoteError, match="no such bucket at http://127.0.0.1"):
        pull(history["clone"], config_for(history["clone"], s3), spec, transfer=QUICK)


def test_access_denied_is_one_line_without_the_secret(history, s3):
    s3["proxy"].answers.append(Answer("/", 403, "AccessDenied", f"denied for key {SECRET}"))
    clone = history["clone"]
    env = {"CODEBOT_S3_ENDPOINT_URL": s3["url"]}
    out = run(["pull", "--from", f"s3://{s3['bucket']}/x"], clone, env)
    assert out.exit_code == 1, out.output
    lines = out.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("codebot: error: s3://")
    assert "access denied" in lines[0] and "s3:GetObject" in lines[0]
    assert SECRET not in out.output and "Traceback" not in out.output
    with pytest.raises(RemoteError, match="access denied") as err:
        publish(history["repo"], config_for(history["repo"], s3), f"s3://{s3['bucket']}/x")
    assert SECRET not in str(err.value) and "***" in str(err.value)


def test_refused_credentials_are_named(history, s3):
    s3["proxy"].answers.append(Answer("/", 403, "InvalidAccessKeyId", "no such key"))
    with pytest.raises(RemoteError, match="credentials were refused"):
        pull(history["clone"], config_for(history["clone"], s3), f"s3://{s3['bucket']}/x")


def test_no_credentials_says_where_they_come_from(history, s3, monkeypatch):
    monkeypatch.delenv("AWS_ACCESS_KEY_ID")
    monkeypatch.delenv("AWS_SECRET_ACCESS_KEY")
    with pytest.raises(RemoteError, match="no AWS credentials found: set AWS_ACCESS_KEY_ID"):
        pull(history["clone"], config_for(history["clone"], s3), f"s3://{s3['bucket']}/x")
    assert s3["proxy"].requests == []  # nothing was sent


def test_credentials_from_a_profile_of_the_aws_config(history, s3, monkeypatch, tmp_path):
    monkeypatch.delenv("AWS_ACCESS_KEY_ID")
    monkeypatch.delenv("AWS_SECRET_ACCESS_KEY")
    creds = tmp_path / "aws-credentials"
    creds.write_text(
        f"[ci]\naws_access_key_id = AKIAPROFILEKEY\naws_secret_access_key = {SECRET}\n"
    )
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(creds))
    repo, spec = history["repo"], f"s3://{s3['bucket']}/prof"
    with pytest.raises(RemoteError, match="no AWS profile 'other'"):
        publish(
            repo, load_config(repo, {"s3_endpoint_url": s3["url"], "s3_profile": "other"}), spec
        )
    config = load_config(repo, {"s3_endpoint_url": s3["url"], "s3_profile": "ci"})
    publish(repo, config, spec, transfer=QUICK)
    signed = [r.headers.get("Authorization", "") for r in s3["proxy"].requests]
    assert signed and all("Credential=AKIAPROFILEKEY/" in a for a in signed)


def test_an_endpoint_nobody_listens_on(history, s3):
    from .fake_s3 import free_port

    dead = f"http://127.0.0.1:{free_port()}"
    config = load_config(history["clone"], {"s3_endpoint_url": dead})
    quick = Transfer(timeout=1.0, retries=0, backoff=0.01)
    with pytest.raises(RemoteError, match=f"cannot reach {dead}"):
        pull(history["clone"], config, f"s3://{s3['bucket']}/x", transfer=quick)


def test_without_boto3_the_error_names_the_extra(history, s3):
    code = (
        "import sys; sys.modules['boto3'] = None\n"
        "from codebot.serve.cli import main\n"
        f"main(['pull', '--from', 's3://{s3['bucket']}/x'])\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=history["clone"], capture_output=True, text=True
    )
    assert out.returncode == 1
    assert out.stderr.strip().splitlines() == [
        "codebot: error: s3:// artifact stores need boto3: pip install 'codebot[s3]'"
    ]


# --- trust: what a repository's files may choose -------------------------------------------------


@pytest.mark.parametrize(
    "line",
    [
        's3_endpoint_url = "https://attacker.example"',
        's3_profile = "production"',
        's3_region = "eu-west-1"',
    ],
)
def test_a_repository_may_not_choose_where_credentials_go(make_repo, line):
    repo = make_repo({**FILES, ".codebot.toml": f'artifacts = "s3://bucket/x"\n{line}\n'})
    key = line.split(" ")[0]
    with pytest.raises(ConfigError, match=f"{key} may not be set in a repository"):
        load_config(repo)


def test_a_repository_may_name_the_bucket(make_repo, monkeypatch):
    repo = make_repo({**FILES, ".codebot.toml": 'artifacts = "s3://team-index/shop"\n'})
    monkeypatch.setenv("CODEBOT_S3_ENDPOINT_URL", "https://minio.internal:9000")
    config = load_config(repo)
    assert config.artifacts == "s3://team-index/shop"
    assert config.s3_endpoint_url == "https://minio.internal:9000"


@pytest.mark.parametrize(
    "spec",
    [
        "s3://user:pass@bucket/x",  # credentials in the URL
        "s3://evil.example:443/x",  # a port: a host, not a bucket
        "s3://Bucket/x",  # not an S3 bucket name
        "s3://b/x",
        "s3://bucket/x?endpoint=https://evil.example",
        "s3://bucket/../x",
    ],
)
def test_an_s3_url_names_a_bucket_and_a_prefix_only(spec):
    with pytest.raises(RemoteError):
        parse_s3_url(spec)


def test_bucket_and_prefix_of_a_url():
    assert parse_s3_url("s3://team-index") == ("team-index", "")
    assert parse_s3_url("s3://team.index/a/b/") == ("team.index", "a/b")


@pytest.mark.parametrize(
    "value", ["https://key:secret@minio.internal", "https://minio?X-Amz-Signature=1", "minio:9000"]
)
def test_an_endpoint_is_a_plain_url(tmp_path, value):
    with pytest.raises(ConfigError, match="s3_endpoint_url must be"):
        load_config(tmp_path, {"s3_endpoint_url": value})


def test_the_multipart_threshold_respects_the_minimum_part(tmp_path):
    with pytest.raises(ConfigError, match="s3_multipart_threshold must be between"):
        load_config(tmp_path, {"s3_multipart_threshold": 4096})
    assert load_config(tmp_path, {"s3_multipart_threshold": 8 << 20}).s3_multipart_threshold == (
        8 << 20
    )


def test_listing_ignores_other_formats_and_files(s3, tmp_path):
    remote = S3Remote(f"s3://{s3['bucket']}", options(s3), QUICK)
    other = f"codebot-index-v{FORMAT_VERSION + 1}-{'a' * 40}.tar.gz"
    for key in (other, "readme.txt", f"nested/{asset_name('b' * 40)}"):
        s3["direct"].put_object(Bucket=s3["bucket"], Key=key, Body=b"x")
    assert remote.names() == {other}  # format told apart by pull; nested keys are not ours
    remote.close()
    assert os.environ["AWS_SECRET_ACCESS_KEY"] == SECRET

"""Index artifacts in an S3-compatible bucket: ``s3://BUCKET/PREFIX`` (AWS S3, MinIO, Cloudflare
R2, Google Cloud Storage's XML interface...), through boto3 (the extra: ``codebot[s3]``),
imported only when such a store is opened.

Credentials come from boto3's own chain and nowhere else: ``AWS_ACCESS_KEY_ID`` /
``AWS_SECRET_ACCESS_KEY`` / ``AWS_SESSION_TOKEN``, ``AWS_PROFILE``, ``~/.aws/credentials`` and
``~/.aws/config`` (SSO, assumed roles, credential processes), then the instance's role. The
endpoint (another service than AWS), the region and the profile are the user's settings
(``s3_endpoint_url``, ``s3_region``, ``s3_profile``: flags, ``CODEBOT_*`` variables or the
user's configuration file, never a repository's, see ``core.config.USER_ONLY``); boto3's own
``AWS_ENDPOINT_URL_S3`` and ``AWS_REGION`` work too. A repository's files may name the bucket
and prefix: the signed requests still go only to the endpoint the user chose, and the bucket
name is checked against S3's naming rules so that it can never name another host.

Each artifact is one object, ``PREFIX/codebot-index-v<format>-<commit>.tar.gz``, stored with its
sha256 in the object's metadata. Uploads of ``multipart_threshold`` bytes or more go in parts of
that size (an upload that fails is aborted, so no parts are left to pay for). Downloads stream
into the file and, when the connection breaks or stalls, go on from the bytes already on disk
with a range GET on the same version of the object (``If-Match`` its ETag); the whole file is
then checked against the size and the sha256 the object was stored with.

Every failure is a :class:`~codebot.core.errors.RemoteError` in one line: no such bucket, access
denied, no credentials, credentials refused, an endpoint that cannot be reached; secrets are
scrubbed from it.
"""

from __future__ import annotations

import hashlib
import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from codebot.core.errors import RemoteError
from codebot.core.http import Progress, redact, scrub
from codebot.share.remote import Transfer, commit_of

__all__ = ["S3Options", "S3Remote", "parse_s3_url", "MIN_PART_BYTES"]

#: S3 refuses parts smaller than this (the last part excepted); MinIO and R2 likewise.
MIN_PART_BYTES = 5 * 1024 * 1024
MAX_PARTS = 10_000  # S3's limit on the parts of one upload
CHUNK = 1 << 20
SHA256_KEY = "sha256"  # user metadata: x-amz-meta-sha256
# S3's bucket naming rules (3-63 characters, lower-case letters, digits, dots and hyphens,
# beginning and ending with a letter or digit): nothing that could name another host or path.
_BUCKET = re.compile(r"[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]")
_PREFIX = re.compile(r"[A-Za-z0-9!_.*'()/-]{0,512}")
_EXTRA = "s3:// artifact stores need boto3: pip install 'codebot[s3]'"


@dataclass(frozen=True)
class S3Options:
    """The user's choices for an S3 store (see the module docstring); None: boto3's default."""

    endpoint_url: str | None = None
    region: str | None = None
    profile: str | None = None
    multipart_threshold: int = 64 * 1024 * 1024


def parse_s3_url(spec: str) -> tuple[str, str]:
    """(bucket, prefix) of ``s3://BUCKET[/PREFIX]``; the prefix without its slashes at the
    ends. Refuses anything else: user info, a port, a query or a fragment."""
    rest = spec[len("s3://") :] if spec.startswith("s3://") else None
    if rest is None:
        raise RemoteError(f"{redact(spec)!r} is not an s3://BUCKET/PREFIX URL")
    bucket, _, prefix = rest.partition("/")
    prefix = prefix.strip("/")
    if not _BUCKET.fullmatch(bucket) or ".." in bucket:
        raise RemoteError(
            f"{redact(spec)!r}: {bucket!r} is not an S3 bucket name (3-63 lower-case letters, "
            "digits, dots and hyphens); write s3://BUCKET/PREFIX, and set the endpoint with "
            "s3_endpoint_url, never in the URL"
        )
    if not _PREFIX.fullmatch(prefix) or "//" in prefix or ".." in prefix.split("/"):
        raise RemoteError(
            f"{redact(spec)!r}: the prefix may hold letters, digits and ! _ . * ' ( ) - / only"
        )
    return bucket, prefix


class S3Remote:
    """Artifacts as the objects of one bucket under one prefix."""

    def __init__(
        self, spec: str, options: S3Options | None = None, transfer: Transfer | None = None
    ) -> None:
        self.bucket, self.prefix = parse_s3_url(spec)
        self.options = options or S3Options()
        self.transfer = transfer or Transfer()
        self._client: Any = None
        self._secrets: list[str] = []

    # --- the client, made on first use -----------------------------------------------------------

    @property
    def client(self) -> Any:
        if self._client is None:
            self._client = self._connect()
        return self._client

    def _connect(self) -> Any:
        try:
            import boto3
            import botocore.config
            import botocore.exceptions as bx
        except ImportError as exc:
            raise RemoteError(_EXTRA) from exc
        o, t = self.options, self.transfer
        try:
            session = boto3.session.Session(profile_name=o.profile, region_name=o.region)
            credentials = session.get_credentials()
        except bx.ProfileNotFound as exc:
            raise RemoteError(
                f"{self.describe()}: no AWS profile {o.profile!r} in ~/.aws/config or "
                "~/.aws/credentials (the s3_profile setting, or AWS_PROFILE)"
            ) from exc
        except bx.BotoCoreError as exc:
            raise RemoteError(f"{self.describe()}: {self._clean(str(exc))}") from exc
        if credentials is None:
            raise RemoteError(self._no_credentials())
        frozen = credentials.get_frozen_credentials()
        self._secrets = [s for s in (frozen.secret_key, frozen.token) if s]
        config = botocore.config.Config(
            connect_timeout=t.timeout,
            read_timeout=t.timeout,
            retries={"max_attempts": t.retries + 1, "mode": "standard"},
            # A custom endpoint (MinIO, R2, GCS) is addressed by path: the bucket never becomes
            # part of the host name, whatever a repository's setting names it.
            s3={"addressing_style": "path" if o.endpoint_url else "auto"},
            # Checksums only where the operation needs them: not every S3-compatible service
            # accepts the newer CRC trailers.
            request_checksum_calculation="when_required",
            response_checksum_validation="when_required",
        )
        return session.client("s3", endpoint_url=o.endpoint_url, config=config)

    def _no_credentials(self) -> str:
        profile = f" (profile {self.options.profile!r} has none)" if self.options.profile else ""
        return (
            f"{self.describe()}: no AWS credentials found{profile}: set AWS_ACCESS_KEY_ID and "
            "AWS_SECRET_ACCESS_KEY, or AWS_PROFILE / s3_profile for a profile of ~/.aws/config"
        )

    def _clean(self, text: str) -> str:
        return scrub(text, self._secrets).splitlines()[0] if text else text

    def _fail(self, what: str, exc: Exception) -> RemoteError:
        """One line that says what failed and what to do about it."""
        import botocore.exceptions as bx

        where = self.describe()
        if isinstance(exc, bx.NoCredentialsError):
            return RemoteError(self._no_credentials())
        if isinstance(exc, bx.ClientError):
            err = exc.response.get("Error", {})
            code = str(err.get("Code", ""))
            status = exc.response.get("ResponseMetadata", {}).get("HTTPStatusCode")
            message = self._clean(str(err.get("Message") or code or exc))
            if code == "NoSuchBucket" or (code == "404" and what == "list"):
                hint = "no such bucket"
                if self.options.endpoint_url:
                    hint += f" at {redact(self.options.endpoint_url)}"
                return RemoteError(f"{where}: {what}: {hint} (create it, or fix the name)")
            if code in ("InvalidAccessKeyId", "SignatureDoesNotMatch", "ExpiredToken"):
                return RemoteError(
                    f"{where}: {what}: the credentials were refused ({code}): check "
                    "AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY or the profile, and that "
                    "s3_endpoint_url names the service they belong to"
                )
            if code in ("AccessDenied", "403", "AllAccessDisabled") or status == 403:
                return RemoteError(
                    f"{where}: {what}: access denied ({message}): the credentials in use need "
                    "s3:ListBucket, s3:GetObject, and for publish s3:PutObject and "
                    "s3:DeleteObject on the bucket"
                )
            return RemoteError(f"{where}: {what}: {code or status}: {message}")
        if isinstance(exc, bx.EndpointConnectionError):
            endpoint = redact(self.options.endpoint_url or "AWS S3")
            return RemoteError(f"{where}: {what}: cannot reach {endpoint}")
        return RemoteError(f"{where}: {what}: {self._clean(str(exc)) or type(exc).__name__}")

    def _call(self, what: str, fn: Callable[..., Any], **kw: Any) -> Any:
        import botocore.exceptions as bx

        try:
            return fn(**kw)
        except (bx.BotoCoreError, bx.ClientError) as exc:
            raise self._fail(what, exc) from None

    # --- the Remote protocol -----------------------------------------------------------------

    def describe(self) -> str:
        where = f"s3://{self.bucket}/{self.prefix}".rstrip("/")
        if self.options.endpoint_url:
            where += f" at {redact(self.options.endpoint_url)}"
        return where

    def key(self, name: str) -> str:
        return f"{self.prefix}/{name}" if self.prefix else name

    def _list(self) -> dict[str, dict[str, Any]]:
        """Every artifact under the prefix: name -> the listing's entry (Key, LastModified...)."""
        start = self.key("codebot-index-v")
        found: dict[str, dict[str, Any]] = {}
        token: str | None = None
        while True:
            kw: dict[str, Any] = {"Bucket": self.bucket, "Prefix": start}
            if token:
                kw["ContinuationToken"] = token
            page = self._call("list", self.client.list_objects_v2, **kw)
            for entry in page.get("Contents", ()):
                name = entry["Key"][len(self.key("")) :]
                if commit_of(name):
                    found[name] = entry
            token = page.get("NextContinuationToken") if page.get("IsTruncated") else None
            if not token:
                return found

    def names(self) -> set[str] | None:
        return set(self._list())

    def download(self, name: str, dest: Path, progress: Progress | None = None) -> bool:
        """Fetch the object into ``dest``; False when there is none. Resumes from the bytes in
        ``dest`` after a broken connection (see the module docstring)."""
        import botocore.exceptions as bx

        key = self.key(name)
        try:
            head = self.client.head_object(Bucket=self.bucket, Key=key)
        except bx.ClientError as exc:
            if exc.response.get("Error", {}).get("Code") in ("404", "NoSuchKey"):
                return False
            raise self._fail(f"download {name}", exc) from None
        except bx.BotoCoreError as exc:
            raise self._fail(f"download {name}", exc) from None
        size, etag = int(head["ContentLength"]), head["ETag"]
        expected = (head.get("Metadata") or {}).get(SHA256_KEY)
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.touch()
        failures = 0
        while True:
            have = dest.stat().st_size if dest.exists() else 0
            if have > size:  # not this object's bytes: start over
                dest.unlink()
                have = 0
            if have == size:
                break
            try:
                self._receive(key, etag, dest, have, size, progress)
            except (bx.BotoCoreError, bx.ClientError, OSError) as exc:
                changed = isinstance(exc, bx.ClientError) and exc.response.get("Error", {}).get(
                    "Code"
                ) in ("PreconditionFailed", "412")
                if changed:
                    raise RemoteError(
                        f"{self.describe()}: download {name}: the object changed while it was "
                        "being downloaded (published again); pull again"
                    ) from None
                if isinstance(exc, bx.ClientError) or failures >= self.transfer.retries:
                    raise self._fail(f"download {name}", exc) from None
                failures += 1
                time.sleep(min(self.transfer.backoff * 2 ** (failures - 1), 30.0))
        if expected and _sha256(dest) != expected:
            dest.unlink()
            raise RemoteError(
                f"{self.describe()}: download {name}: the file's sha256 is not the one it was "
                "published with (corrupted in transit or in the store); pull again"
            )
        return True

    def _receive(
        self, key: str, etag: str, dest: Path, have: int, size: int, progress: Progress | None
    ) -> None:
        kw: dict[str, Any] = {"Bucket": self.bucket, "Key": key, "IfMatch": etag}
        if have:
            kw["Range"] = f"bytes={have}-"
        response = self.client.get_object(**kw)
        body = response["Body"]
        try:
            with dest.open("ab") as out:
                done = have
                for chunk in body.iter_chunks(CHUNK):
                    out.write(chunk)
                    done += len(chunk)
                    if progress:
                        progress(done, size)
        finally:
            body.close()

    def upload(self, path: Path, name: str, progress: Progress | None = None) -> str:
        """Store the file as one object: one PUT below ``multipart_threshold`` bytes, else a
        multipart upload in parts of that size (aborted if any part fails)."""
        key, total = self.key(name), path.stat().st_size
        what = f"upload {name}"
        extra = {"Metadata": {SHA256_KEY: _sha256(path)}, "ContentType": "application/gzip"}
        threshold = max(self.options.multipart_threshold, 1)
        with path.open("rb") as f:
            if total < threshold:
                self._call(
                    what, self.client.put_object, Bucket=self.bucket, Key=key, Body=f, **extra
                )
                if progress:
                    progress(total, total)
            else:
                part = max(threshold, -(-total // MAX_PARTS))
                self._multipart(f, key, total, part, extra, what, progress)
        return f"s3://{self.bucket}/{key}"

    def _multipart(self, f, key, total, part, extra, what, progress) -> None:
        started = self._call(
            what, self.client.create_multipart_upload, Bucket=self.bucket, Key=key, **extra
        )
        upload_id = started["UploadId"]
        ids = {"Bucket": self.bucket, "Key": key, "UploadId": upload_id}
        try:
            parts, sent = [], 0
            for number in range(1, -(-total // part) + 1):
                data = f.read(part)
                answer = self._call(
                    f"{what}: part {number}",
                    self.client.upload_part,
                    PartNumber=number,
                    Body=data,
                    **ids,
                )
                parts.append({"PartNumber": number, "ETag": answer["ETag"]})
                sent += len(data)
                if progress:
                    progress(sent, total)
            self._call(
                what,
                self.client.complete_multipart_upload,
                MultipartUpload={"Parts": parts},
                **ids,
            )
        except BaseException:
            try:  # no orphan parts left to be billed for
                self.client.abort_multipart_upload(**ids)
            except Exception:  # noqa: BLE001 - the first failure is the one to report
                pass
            raise

    def prune(self, keep: int) -> list[str]:
        """Delete all but the newest ``keep`` artifacts under the prefix."""
        listed = self._list()
        ours = sorted(listed.items(), key=lambda kv: (kv[1]["LastModified"], kv[0]), reverse=True)
        old = [name for name, _ in ours[keep:]]
        for start in range(0, len(old), 1000):  # DeleteObjects takes 1,000 keys at a time
            batch = [{"Key": self.key(n)} for n in old[start : start + 1000]]
            answer = self._call(
                "prune",
                self.client.delete_objects,
                Bucket=self.bucket,
                Delete={"Objects": batch, "Quiet": True},
            )
            if answer.get("Errors"):
                first = answer["Errors"][0]
                raise RemoteError(
                    f"{self.describe()}: prune: {first.get('Key')}: {first.get('Code')} "
                    f"{self._clean(str(first.get('Message', '')))}"
                )
        return sorted(old)

    def why_empty(self) -> str:
        return ""

    def close(self) -> None:
        if self._client is not None:
            self._client.close()


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        while chunk := f.read(CHUNK):
            h.update(chunk)
    return h.hexdigest()

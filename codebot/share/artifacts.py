"""Index artifacts: an index built once (in CI) carried to every clone, which catches up to HEAD
with an incremental update instead of embedding everything again (issue 7).

An artifact is one gzip-compressed tar, named by index format and commit
(``codebot-index-v2-<commit>.tar.gz``, see ``remote.asset_name``)::

    artifact.json      first member: the artifact format, the codebot that made it, the commit,
                       the embedder, counts, sha256 and size of every other member, and the index
                       manifest as it was (schemas/artifact.schema.json)
    index/<file>       the files of one generation; never the vector cache (a by-product keyed by
                       text, rebuilt as needed)

Reading one trusts nothing until it is checked, and checks the cheap things first: artifact.json
must come first and be small; its format, the index format, the commit (an ancestor of HEAD),
the embedder and the settings must suit this clone, and every manifest field codebot reads later
must have its type (``validate.check_manifest``), before any of the index is unpacked. The
members must be the files of a generation and no others, each within a size the manifest's
counts allow (``validate.check_sizes``: keys.u64 8 bytes a symbol; symbols.msgpack 1 MiB + 4 KiB
a symbol; files.msgpack 1 MiB + 1 KiB a symbol + 64 KiB a file; graph.msgpack 1 MiB + 4 KiB a
symbol; lexical/ 16 MiB + 16 KiB a symbol; vectors.usearch 1 MiB + (8 x dimension + 256) a
symbol), with counts no larger than the commit's files and bytes of code; an extended tar header
over 64 KiB is refused before tarfile reads it into memory. Then every member must be a regular
file at a path under ``index/`` without ``..``, listed in artifact.json, of the listed size and
sha256. Last, every table is checked row by row and against git (``validate.check_generation``):
each file's path and blob are those of the artifact's commit, each symbol lies within its
file's lines. The keyword and vector indexes are checked by size only: a store that can publish
a hostile Tantivy or usearch file is a store to trust with your code.

Installing unpacks into a new generation directory under the write lock and makes it current by
the same rename and manifest swap as a build: queries keep answering from the old index until
then, and any failure leaves it exactly as it was.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import os
import re
import tarfile
import time
import zlib
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from codebot.core import __version__
from codebot.core.config import Config
from codebot.core.errors import ArtifactError, IncompatibleArtifact, InvalidTable
from codebot.git.repo import short_commit
from codebot.git.workspace import Workspace
from codebot.index.embedding import chosen, comparable, record
from codebot.index.store import FORMAT_VERSION, Manifest, lock_for_writing, read_manifest
from codebot.index.validate import check_generation, check_manifest, check_sizes
from codebot.index.writer import GenerationWriter
from codebot.parse.files import Selector
from codebot.share.remote import asset_name

__all__ = [
    "ARTIFACT_FORMAT",
    "Limits",
    "pack",
    "write_artifact",
    "read_artifact",
    "install",
    "local_embedder",
    "same_setup",
]

ARTIFACT_FORMAT = 1
ARTIFACT_JSON = "artifact.json"
PREFIX = "index/"
CHUNK = 1 << 20
_HEX = re.compile(r"^[0-9a-f]{40,64}$")
_SHA256 = re.compile(r"^[0-9a-f]{64}$")


@dataclass(frozen=True)
class Limits:
    """Caps on what an artifact may declare: an archive over them is refused before unpacking."""

    manifest_bytes: int = 16 << 20
    members: int = 10_000
    total_bytes: int = 16 << 30
    header_bytes: int = 64 << 10  # a pax or GNU long-name header (codebot's own are < 1 KiB)


# --- writing -------------------------------------------------------------------------------------


@dataclass
class PackReport:
    path: str
    asset: str
    commit: str
    bytes: int
    sha256: str
    members: int
    symbols: int
    seconds: float

    def to_dict(self) -> dict[str, Any]:
        per_1k = self.bytes * 1000 / self.symbols if self.symbols else None
        return {**asdict(self), "bytes_per_1k_symbols": round(per_1k) if per_1k else None}

    def to_text(self) -> str:
        return (
            f"packed {self.symbols} symbols at {short_commit(self.commit)}: {self.path} "
            f"({self.bytes / 1e6:.1f} MB)\n"
        )


def pack(
    where: Workspace | str | Path,
    config: Config,
    output: str | Path | None = None,
    wait: float = 0.0,
) -> PackReport:
    """Write the committed index of ``path`` as one artifact file: ``output`` (a file, or a
    directory to put it in; default: the current directory), named by format and commit."""
    started = time.perf_counter()
    index_dir = Workspace.of(where, config.index_dir).index_dir
    with lock_for_writing(index_dir, wait=wait):  # no update prunes the generation meanwhile
        manifest = read_manifest(index_dir)
        if manifest.commit is None or manifest.overlay is not None:
            raise ArtifactError(
                f"{index_dir}: the index describes no commit (built outside git, or on a branch "
                "with no commit yet): there is nothing to name an artifact by"
            )
        name = asset_name(manifest.commit)
        out = Path(output) if output is not None else Path.cwd()
        if output is not None and str(output).endswith(("/", os.sep)):
            try:  # "newdir/": a directory, made if need be
                out.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise ArtifactError(f"{output}: cannot make the directory: {exc}") from exc
        if out.is_dir():
            out = out / name
        out = out.absolute()
        write_artifact(index_dir, manifest, out)
    return PackReport(
        str(out),
        name,
        manifest.commit,
        out.stat().st_size,
        _sha256_file(out),
        len(manifest.checksums),
        manifest.counts.get("symbols", 0),
        round(time.perf_counter() - started, 3),
    )


def write_artifact(index_dir: Path, manifest: Manifest, out: Path) -> dict[str, Any]:
    """Pack the generation ``manifest`` names into ``out`` (written whole, then renamed);
    returns artifact.json. Every file is checked against the manifest as it is read."""
    gen = index_dir / manifest.generation
    members = {
        rel: {"sha256": digest, "size": (gen / rel).stat().st_size}
        for rel, digest in sorted(manifest.checksums.items())
    }
    info = {
        "artifact_format": ARTIFACT_FORMAT,
        "codebot_version": __version__,
        "commit": manifest.commit,
        "root": manifest.root,
        "embedder": manifest.embedder,
        "counts": manifest.counts,
        "members": members,
        "manifest": manifest.to_dict(),
    }
    data = json.dumps(info, indent=1, sort_keys=True).encode()
    tmp = out.with_name(f".{out.name}.{os.getpid()}.tmp")
    try:
        # Our own GzipFile, for a fixed header (mtime 0): one index always packs to the same bytes.
        with (
            open(tmp, "wb") as raw,
            gzip.GzipFile(filename="", mode="wb", fileobj=raw, compresslevel=6, mtime=0) as gz,
            tarfile.open(fileobj=gz, mode="w|", format=tarfile.PAX_FORMAT) as tar,
        ):
            _add(tar, ARTIFACT_JSON, io.BytesIO(data), len(data))
            for rel, member in members.items():
                with open(gen / rel, "rb") as f:
                    reader = _HashingReader(f)
                    _add(tar, PREFIX + rel, reader, member["size"])
                if reader.hash.hexdigest() != member["sha256"]:
                    raise ArtifactError(
                        f"{gen / rel}: does not match the index manifest's checksum; the index "
                        "is damaged: rebuild it with codebot index"
                    )
        os.replace(tmp, out)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return info


def _add(tar: tarfile.TarFile, name: str, f, size: int) -> None:
    info = tarfile.TarInfo(name)
    info.size, info.mode, info.mtime = size, 0o644, 0
    tar.addfile(info, f)


class _HashingReader:
    def __init__(self, f) -> None:
        self.f, self.hash = f, hashlib.sha256()

    def read(self, n: int = -1) -> bytes:
        data = self.f.read(n)
        self.hash.update(data)
        return data


def _sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while block := f.read(CHUNK):
            h.update(block)
    return h.hexdigest()


# --- reading -------------------------------------------------------------------------------------


def read_artifact(
    file: Path,
    dest: Path,
    check: Callable[[dict[str, Any]], None] | None = None,
    limits: Limits = Limits(),
) -> dict[str, Any]:
    """Unpack the artifact ``file`` into the empty directory ``dest``, verifying everything (see
    the module docstring); returns its artifact.json. ``check`` vets artifact.json before any of
    the index is unpacked: it raises to refuse the artifact."""
    bounded = type("_Bounded", (_BoundedInfo,), {"cap": limits.header_bytes})
    try:
        with tarfile.open(file, mode="r|gz", tarinfo=bounded) as tar:
            first = tar.next()
            if first is None or first.name != ARTIFACT_JSON or first.type != tarfile.REGTYPE:
                raise ArtifactError(f"{file.name}: not a codebot artifact (no artifact.json first)")
            if first.size > limits.manifest_bytes:
                raise ArtifactError(
                    f"{file.name}: refused: artifact.json is {first.size} bytes, over the cap of "
                    f"{limits.manifest_bytes}"
                )
            source = tar.extractfile(first)
            assert source is not None
            info = _parse_info(source.read(first.size), limits)
            if check is not None:
                check(info)
            _unpack_members(tar, info["members"], dest)
    except (tarfile.TarError, EOFError, zlib.error, gzip.BadGzipFile, RecursionError) as exc:
        raise ArtifactError(
            f"{file.name}: the artifact is truncated or corrupt ({exc}); nothing was installed"
        ) from exc
    return info


class _BoundedInfo(tarfile.TarInfo):
    """A tar header that refuses, before reading it, an extended header (pax, GNU long name)
    over ``cap`` bytes: tarfile reads one whole into memory (a 512 MiB pax header in a 1.7 MB
    artifact took 1.6 GB). Sparse members, which codebot never writes, are refused too: their
    maps are read into memory from the data as well."""

    cap = 64 << 10
    _EXTENDED = (
        tarfile.XHDTYPE,
        tarfile.XGLTYPE,
        tarfile.SOLARIS_XHDTYPE,
        tarfile.GNUTYPE_LONGNAME,
        tarfile.GNUTYPE_LONGLINK,
    )

    def _proc_member(self, tarfile_):  # tarfile's hook for every header, nested ones included
        if self.type in self._EXTENDED and self.size > self.cap:
            raise ArtifactError(
                f"refused: an extended tar header of {self.size} bytes, over the cap of {self.cap}"
            )
        if self.type == tarfile.GNUTYPE_SPARSE:
            raise ArtifactError("refused: a sparse tar member; only regular files are unpacked")
        return super()._proc_member(tarfile_)

    def _proc_gnusparse_10(self, next_, pax_headers, tarfile_):  # its map is read from the data
        raise ArtifactError("refused: a sparse tar member; only regular files are unpacked")


def _parse_info(data: bytes, limits: Limits) -> dict[str, Any]:
    """artifact.json, its structure checked and its format one this codebot reads."""
    try:
        info = json.loads(data)
    except (ValueError, RecursionError) as exc:
        raise ArtifactError(f"artifact.json is not JSON ({exc!s:.200})") from exc
    if not isinstance(info, dict) or not isinstance(info.get("artifact_format"), int):
        raise ArtifactError("artifact.json has no artifact_format: not a codebot artifact")
    made_by = f"codebot {info.get('codebot_version')}"
    if info["artifact_format"] > ARTIFACT_FORMAT:
        raise IncompatibleArtifact(
            f"the artifact has format {info['artifact_format']} (made by {made_by}); this codebot "
            f"reads format {ARTIFACT_FORMAT} and older: upgrade codebot"
        )
    manifest, members = info.get("manifest"), info.get("members")
    if not isinstance(manifest, dict) or not isinstance(members, dict):
        raise ArtifactError("artifact.json lacks the index manifest or the member list")
    version = manifest.get("format_version")
    if version != FORMAT_VERSION:
        newer = isinstance(version, int) and version > FORMAT_VERSION
        hint = (
            "upgrade codebot"
            if newer
            else "publish a new one with this codebot, or build locally: codebot index"
        )
        raise IncompatibleArtifact(
            f"the artifact holds an index of format {version} (made by {made_by}); this codebot "
            f"reads format {FORMAT_VERSION}: {hint}"
        )
    if not isinstance(info.get("commit"), str) or not _HEX.match(info["commit"]):
        raise ArtifactError(f"artifact.json names no valid commit ({info.get('commit')!r:.80})")
    try:
        check_manifest(manifest, "artifact.json: manifest")
    except InvalidTable as exc:
        raise ArtifactError(f"refused: {exc}") from exc
    for key in ("root", "embedder", "counts"):
        if info.get(key) != manifest[key]:
            raise ArtifactError(f"artifact.json: its {key!r} and the index manifest's disagree")
    if len(members) > limits.members:
        raise ArtifactError(f"refused: {len(members)} members, over the cap of {limits.members}")
    total = 0
    for rel, member in members.items():
        _check_path(rel)
        if not (
            isinstance(member, dict)
            and isinstance(member.get("size"), int)
            and member["size"] >= 0
            and isinstance(member.get("sha256"), str)
            and _SHA256.match(member["sha256"])
        ):
            raise ArtifactError(f"artifact.json: member {rel!r} lacks a valid size and sha256")
        total += member["size"]
    if total > limits.total_bytes:
        raise ArtifactError(
            f"refused: the members add up to {total} bytes, over the cap of {limits.total_bytes}"
        )
    checksums = {rel: m["sha256"] for rel, m in members.items()}
    if manifest.get("checksums") != checksums or manifest.get("commit") != info["commit"]:
        raise ArtifactError("artifact.json: the member list and the index manifest disagree")
    try:
        check_sizes(_manifest_of(info), {rel: m["size"] for rel, m in members.items()})
    except InvalidTable as exc:
        raise ArtifactError(f"refused: {exc}") from exc
    return info


def _manifest_of(info: dict[str, Any]) -> Manifest:
    """The index manifest of a checked artifact.json (see check_manifest)."""
    fields = Manifest.__dataclass_fields__
    return Manifest(**{k: v for k, v in info["manifest"].items() if k in fields})


def _check_path(rel: str) -> None:
    """Refuse any path that is not plainly relative: absolute, ``..``, ``.``, empty parts,
    backslashes, drive letters, NUL."""
    parts = rel.split("/") if isinstance(rel, str) else [""]
    rel = rel if isinstance(rel, str) else ""
    if (
        not rel
        or rel.startswith("/")
        or any(c in rel for c in "\\:\x00")
        or any(p in ("", ".", "..") for p in parts)
    ):
        raise ArtifactError(f"refused: the path {rel!r} could escape the index directory")


_KINDS = {
    tarfile.SYMTYPE: "symbolic link",
    tarfile.LNKTYPE: "hard link",
    tarfile.CHRTYPE: "character device",
    tarfile.BLKTYPE: "block device",
    tarfile.FIFOTYPE: "FIFO",
    tarfile.DIRTYPE: "directory",
}


def _unpack_members(tar: tarfile.TarFile, members: dict[str, dict], dest: Path) -> None:
    seen: set[str] = set()
    while (member := tar.next()) is not None:  # iterating the TarFile would start over
        name = member.name
        if not name.startswith(PREFIX):
            raise ArtifactError(f"refused: the member {name!r} lies outside {PREFIX}")
        rel = name[len(PREFIX) :]
        _check_path(rel)
        if member.type not in (tarfile.REGTYPE, tarfile.AREGTYPE):
            kind = _KINDS.get(member.type, f"special member (type {member.type!r})")
            raise ArtifactError(f"refused: {name!r} is a {kind}; only regular files are unpacked")
        if rel not in members:
            raise ArtifactError(f"refused: {name!r} is not listed in artifact.json")
        if rel in seen:
            raise ArtifactError(f"refused: {name!r} appears twice")
        want = members[rel]
        if member.size != want["size"]:
            raise ArtifactError(
                f"refused: {name!r} is {member.size} bytes, artifact.json says {want['size']}"
            )
        source = tar.extractfile(member)
        assert source is not None
        _extract(source, dest / rel, want["size"], want["sha256"], name)
        seen.add(rel)
    missing = sorted(set(members) - seen)
    if missing:
        raise ArtifactError(
            f"the artifact is incomplete: {len(missing)} listed member(s) missing, e.g. "
            f"{missing[0]!r}"
        )


def _extract(source, target: Path, size: int, sha256: str, name: str) -> None:
    """Copy exactly ``size`` bytes into a new file (never through a link), checking the hash."""
    target.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644)
    digest, left = hashlib.sha256(), size
    with os.fdopen(fd, "wb") as out:
        while left:
            chunk = source.read(min(CHUNK, left))
            if not chunk:
                raise ArtifactError(f"{name!r} ends early: the artifact is truncated")
            digest.update(chunk)
            out.write(chunk)
            left -= len(chunk)
    if digest.hexdigest() != sha256:
        raise ArtifactError(
            f"checksum mismatch in {name!r} (sha256 {digest.hexdigest()[:12]}..., artifact.json "
            f"says {sha256[:12]}...): the artifact is corrupt; nothing was installed"
        )


def _check_tables(gen: Path, manifest: Manifest, repo, tree: dict[str, tuple[int, str]]) -> None:
    """Every table, every row (``validate.check_generation``), against the artifact's commit in
    this clone's git: each file's path and blob, each symbol within its file's lines."""
    try:
        check_generation(gen, manifest, tree, repo.blob)
    except InvalidTable as exc:
        raise ArtifactError(f"refused: the artifact's {exc}") from exc


def _tree_of(repo, commit: str, subtree: str) -> dict[str, tuple[int, str]]:
    """{path: (mode, blob)} of the commit's files in the subtree."""
    return {
        path: (mode, blob)
        for path, mode, blob in repo.commit_files(commit)
        if not subtree or path == subtree or path.startswith(subtree + "/")
    }


def _check_counts(info: dict[str, Any], repo, tree: dict[str, tuple[int, str]]) -> None:
    """Counts no index of the commit could have (the tables are held to them once read, and the
    size of each member to them before: see validate.check_sizes)."""
    counts = info["manifest"]["counts"]
    files = [blob for mode, blob in tree.values() if mode in (0o100644, 0o100755)]
    if counts["files"] > len(files):
        raise ArtifactError(
            f"refused: the artifact counts {counts['files']} files; its commit has {len(files)}"
        )
    if counts["symbols"] > 0:  # a symbol takes a byte of some file at least
        total = sum(repo.blob_size(blob) for blob in files)
        if counts["symbols"] > total:
            raise ArtifactError(
                f"refused: the artifact counts {counts['symbols']} symbols in {total} bytes of code"
            )


# --- installing ----------------------------------------------------------------------------------


def install(
    where: Workspace | str | Path,
    config: Config,
    file: Path,
    expect_commit: str | None = None,
    embedder=None,
    wait: float = 0.0,
    limits: Limits = Limits(),
) -> Manifest:
    """Make the artifact ``file`` the index of ``path``, atomically, after every check (see the
    module docstring). ``expect_commit``: the commit its name promised."""
    ws = Workspace.of(where, config.index_dir)
    root, index_dir, subtree, repo = ws.root, ws.index_dir, ws.subtree, ws.repo
    if repo is None or repo.head_commit() is None:
        raise ArtifactError(f"{root}: artifacts are installed in a git repository with a commit")
    head = repo.head_commit()

    def suits(info: dict[str, Any]) -> None:
        commit = info["commit"]
        if expect_commit is not None and commit != expect_commit:
            raise ArtifactError(
                f"refused: the artifact named for commit {expect_commit[:12]} holds the index "
                f"of {commit[:12]} (mislabelled or tampered with)"
            )
        if not repo.has_commit(commit):
            raise ArtifactError(
                f"refused: the artifact is for commit {commit[:12]}, which this clone does not "
                "have (a shallow clone? git fetch --unshallow)"
            )
        if commit != head and not repo.descends_from(head, commit):
            raise ArtifactError(
                f"refused: the artifact is for commit {commit[:12]}, which is not an ancestor of "
                f"HEAD ({head[:12]}): it indexes another line of history"
            )
        same_setup(info, config, embedder, subtree, Selector(root, repo, config, commit))
        tree.update(_tree_of(repo, commit, subtree))
        _check_counts(info, repo, tree)

    tree: dict[str, tuple[int, str]] = {}
    with lock_for_writing(index_dir, wait=wait), GenerationWriter(index_dir) as writer:
        info = read_artifact(file, writer.dir, suits, limits)
        manifest = _manifest_of(info)
        _check_tables(writer.dir, manifest, repo, tree)
        manifest.overlay = None
        if manifest.embedder is not None:  # the same model, as this clone loads it
            manifest.embedder = local_embedder(config, embedder)
        return writer.commit(manifest, known=dict(manifest.checksums))


def local_embedder(config: Config, embedder=None) -> dict[str, Any] | None:
    """The embedder this clone would index with, as a manifest records it (provider string and
    identity), without loading a model when it can; None for keywords only."""
    if embedder is not None:
        return record(embedder, config)
    if config.embedder == "none":
        return None
    if config.embedder == "builtin":
        from codebot.embed.builtin import MODEL_DIR

        meta = json.loads((MODEL_DIR / "model.json").read_text(encoding="utf-8"))
        return {
            "provider": "builtin",
            "name": meta["name"],
            "dimension": meta["dimension"],
            "weights_sha256": meta["files"]["model.onnx"]["sha256"],
            "max_tokens": meta["max_tokens"],
        }
    return record(chosen(config), config)


def _describe_embedder(e: dict[str, Any] | None) -> str:
    if e is None:
        return "none (keywords only)"
    return (
        f"{e.get('name')} ({e.get('dimension')} dims, weights {str(e.get('weights_sha256'))[:12]})"
    )


def same_setup(
    info: dict[str, Any], config: Config, embedder, subtree: str, selector: Selector
) -> None:
    """Refuse an artifact this clone would not have built: another subtree, embedder or
    settings. An update would throw such an index away and rebuild; mixing vectors of two
    models would give wrong answers without a word."""
    from codebot.index.build import settings_of

    if info.get("root") != subtree:
        raise IncompatibleArtifact(
            f"the artifact indexes {info.get('root') or 'the whole repository'!r}, this index "
            f"{subtree or 'the whole repository'!r}"
        )
    mine = local_embedder(config, embedder)
    if comparable(info.get("embedder")) != comparable(mine):
        raise IncompatibleArtifact(
            f"the artifact's vectors come from the embedder {_describe_embedder(info.get('embedder'))},"
            f" this clone's is {_describe_embedder(mine)}: vectors of two models are never mixed. "
            "Use the publisher's embedder setting, or build locally: codebot index"
        )
    theirs, ours = info["manifest"].get("settings") or {}, settings_of(config, selector)
    differ = sorted(k for k in set(theirs) | set(ours) if theirs.get(k) != ours.get(k))
    if differ:
        shown = ", ".join(f"{k}: {theirs.get(k)!r} there, {ours.get(k)!r} here" for k in differ)
        raise IncompatibleArtifact(
            f"the artifact was built under other settings ({shown}); an update would rebuild it "
            "from scratch. Use the publisher's settings (.codebot.toml, CODEBOT_* variables), "
            "or build locally: codebot index"
        )

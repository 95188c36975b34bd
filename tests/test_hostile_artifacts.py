"""Hostile artifacts, pulled through the real CLI from a directory store: each must be refused
(exit 1) with a message that names the problem, never crash (exit 3, a traceback), and leave the
index in place exactly as it was.

An artifact's contents are not trusted past their checksums (a publisher can write any bytes and
checksum them): every table is checked row by row, and against the clone's own git, before it
is installed; sizes are bounded before anything is read.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import shutil
import subprocess
import sys
import tarfile
import zlib
from pathlib import Path

import msgpack
import pytest

from codebot.core.model import Symbol
from codebot.index.build import build_index
from codebot.index.store import read_manifest
from codebot.index.tables import load_files
from codebot.index.update import update_index
from codebot.index.validate import SYMBOL_TYPES
from codebot.share.artifacts import pack
from codebot.share.remote import asset_name

from .conftest import git, sandbox, write_files
from .test_artifacts import (
    FILES,
    HOSTILE_MEMBERS,
    _entry,
    assert_untouched,
    config_of,
    index_dir,
    members_of,
    repack,
    run,
    snapshot,
    with_members,
)

GIB = 1 << 30


def _commit(repo: Path, files: dict[str, str], message: str) -> str:
    write_files(repo, files)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", message)
    return git(repo, "rev-parse", "HEAD")


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    """Built once: a repository c0 -> c1 -> c2, artifacts of c1 and c2, and a clone at c2 whose
    own index describes c0 (the index every refused pull must leave as it was)."""
    base = tmp_path_factory.mktemp("hostile")
    with pytest.MonkeyPatch.context() as mp:
        sandbox(mp, base / "home")
        repo = base / "repo"
        repo.mkdir()
        git(repo, "init", "-q", "-b", "main")
        c0 = _commit(repo, FILES, "initial")
        c1 = _commit(repo, {"shop/tax.py": "def vat(amount):\n    return amount * 0.2\n"}, "tax")
        build_index(repo, config_of(repo))
        a1 = Path(pack(repo, config_of(repo), base / "a1.tar.gz").path).read_bytes()
        c2 = _commit(repo, {"shop/ship.py": "def ship(weight):\n    return 5 + weight\n"}, "s")
        update_index(repo, config_of(repo))
        a2 = Path(pack(repo, config_of(repo), base / "a2.tar.gz").path).read_bytes()
        clone = base / "clone"
        git(base, "clone", "-q", str(repo), str(clone))
        update_index(clone, config_of(clone), to=c0)
    return {"c0": c0, "c1": c1, "c2": c2, "a1": a1, "a2": a2, "clone": clone}


@pytest.fixture
def clone(world, tmp_path) -> Path:
    """A fresh copy of the world's clone (its index at c0)."""
    path = tmp_path / "clone"
    shutil.copytree(world["clone"], path, symlinks=True)
    return path


def pull_refused(
    clone: Path, data: bytes, message: str | tuple[str, ...], commit: str, tmp_path: Path
) -> str:
    """Pull ``data`` (published as ``commit``'s artifact in a directory store) by the CLI:
    refused, with ``message`` (or one of several) in what it says, no crash, the index
    untouched."""
    store = tmp_path / "store"
    store.mkdir(exist_ok=True)
    (store / asset_name(commit)).write_bytes(data)
    before = snapshot(clone)
    out = run(["pull", "--from", str(store)], clone)
    assert out.exit_code == 1, out.output  # 0: installed; 3: crashed
    assert "Traceback" not in out.output and "internal error" not in out.output
    messages = message if isinstance(message, tuple) else (message,)
    assert "codebot: error:" in out.output and any(m in out.output for m in messages), out.output
    assert_untouched(clone, before)
    return out.output


# --- editing an artifact: a member replaced, its checksums made to match -------------------------


def retable(data: bytes, rel: str, body: bytes) -> bytes:
    """The artifact with ``index/<rel>`` replaced by ``body``, listed with its true size and
    sha256 (a hostile publisher checksums what it ships)."""
    members = members_of(data)
    info = json.loads(members[0][1])
    digest = hashlib.sha256(body).hexdigest()
    info["members"][rel] = {"sha256": digest, "size": len(body)}
    info["manifest"]["checksums"][rel] = digest
    out = []
    for m, b in members[1:]:
        if m.name == "index/" + rel:
            m = tarfile.TarInfo(m.name)
            m.size, b = len(body), body
        out.append((m, b))
    head = json.dumps(info).encode()
    first = tarfile.TarInfo("artifact.json")
    first.size = len(head)
    return repack([(first, head), *out])


def table(data: bytes, rel: str):
    body = dict((m.name, b) for m, b in members_of(data))["index/" + rel]
    return msgpack.unpackb(body, raw=False) if rel.endswith(".msgpack") else body


def edit_table(data: bytes, rel: str, change) -> bytes:
    value = table(data, rel)
    value = change(value) or value
    return retable(data, rel, msgpack.packb(value, use_bin_type=True))


FIELDS = list(Symbol.__dataclass_fields__)


def edit_symbol(field: str, value, row: int = 0):
    def change(t):
        t["rows"][row][FIELDS.index(field)] = value

    return change


def test_the_validator_knows_every_field_of_a_symbol():
    assert list(SYMBOL_TYPES) == FIELDS


# --- item 1: every table, every row, and git -------------------------------------------------------


def _symbols_cases():
    def reorder(t):
        t["fields"] = t["fields"][::-1]

    def short(t):
        t["rows"][0] = t["rows"][0][:-1]

    def duplicate(t):
        t["rows"][1][0] = t["rows"][0][0]

    def orphan(t):
        t["rows"][0][FIELDS.index("parent")] = "no.such.symbol"

    return [
        ("reordered fields", reorder, "symbols.msgpack: fields"),
        ("short row", short, "symbols.msgpack: row 0 is not a row of 18 fields"),
        ("start as text", edit_symbol("start_line", "1"), "row 0: start_line has the wrong type"),
        ("start as bool", edit_symbol("start_line", True), "row 0: start_line has the wrong type"),
        ("line zero", edit_symbol("start_line", 0), "row 0: lines 0-"),
        ("end before start", edit_symbol("end_line", -3), "row 0: lines 1--3"),
        ("id as int", edit_symbol("id", 7), "row 0: id has the wrong type"),
        ("calls of triples", edit_symbol("calls", [["f", 1, 2]]), "row 0: calls has the wrong"),
        ("params not rows", edit_symbol("parameters", ["x"]), "row 0: parameters has the wrong"),
        ("docstring as map", edit_symbol("docstring", {"a": 1}), "row 0: docstring has the wro"),
        ("duplicate id", duplicate, "row 1: id"),
        ("dangling parent", orphan, "row 0: parent 'no.such.symbol' is no symbol"),
        ("absolute path", edit_symbol("path", "/etc/passwd"), "path '/etc/passwd' is absolute"),
        ("dotdot path", edit_symbol("path", "a/../../x.py"), "has an empty, '.' or '..' part"),
        ("git path", edit_symbol("path", ".git/config"), "lies under .git"),
        ("newline path", edit_symbol("path", "a\nb.py"), "holds a NUL or line break"),
        ("past the file's end", edit_symbol("end_line", 999), "ends on line 999 of"),
    ]


@pytest.mark.parametrize(
    "change, message", [c[1:] for c in _symbols_cases()], ids=[c[0] for c in _symbols_cases()]
)
def test_a_hostile_symbol_table_is_refused(world, clone, tmp_path, change, message):
    data = edit_table(world["a1"], "symbols.msgpack", change)
    pull_refused(clone, data, message, world["c1"], tmp_path)


def _files_cases():
    def swap_blobs(rows):  # each file claims another's content: real objects, wrong paths
        rows[0][1], rows[1][1] = rows[1][1], rows[0][1]

    def unknown_path(rows):
        rows[0][0] = "shop/nowhere.py"

    def foreign_symbol(rows):
        with_symbols = [r for r in rows if r[4]]
        with_symbols[0][4].append(with_symbols[1][4][0])

    def missing_symbol(rows):
        next(r for r in rows if r[4])[4].append("no.such.symbol")

    def dropped_symbol(rows):
        next(r for r in rows if r[4])[4].pop()

    def arity(rows):
        rows[0].append("extra")

    def bad_import(rows):
        rows[0][6] = [["os", None, None, -1, 0]]

    def blob_not_hex(rows):
        rows[0][1] = "zz" * 20

    def dotdot(rows):
        rows[0][0] = "../outside.py"

    def twice(rows):
        rows[1][0] = rows[0][0]

    return [
        ("swapped blobs", swap_blobs, "in the artifact's commit"),
        ("path not in the commit", unknown_path, "'shop/nowhere.py' is no file of the artifact"),
        ("another file's symbol", foreign_symbol, "lies in"),
        ("symbol not in the table", missing_symbol, "'no.such.symbol' is not in the table"),
        ("symbol in no file", dropped_symbol, "is listed by no file"),
        ("long row", arity, "files.msgpack: row 0 is not a row of 8 fields"),
        ("negative import level", bad_import, "files.msgpack: row 0: imports has the wrong type"),
        ("blob not hex", blob_not_hex, "is not a git object id"),
        ("dotdot path", dotdot, "'../outside.py' has an empty, '.' or '..' part"),
        ("a path twice", twice, "appears twice"),
    ]


_FILE_CASE_IDS = [
    "swapped-blobs",
    "path-not-in-commit",
    "foreign-symbol",
    "missing-symbol",
    "dropped-symbol",
    "long-row",
    "bad-import",
    "blob-not-hex",
    "dotdot",
    "twice",
]


@pytest.mark.parametrize("case", range(len(_FILE_CASE_IDS)), ids=_FILE_CASE_IDS)
def test_a_hostile_file_table_is_refused(world, clone, tmp_path, case):
    _, change, message = _files_cases()[case]
    data = edit_table(world["a1"], "files.msgpack", change)
    pull_refused(clone, data, message, world["c1"], tmp_path)


def test_keys_must_be_the_keys_of_their_symbols(world, clone, tmp_path):
    keys = bytearray(table(world["a1"], "keys.u64"))
    keys[8], keys[9] = keys[9], keys[8]  # row 1's key, one byte swapped
    data = retable(world["a1"], "keys.u64", bytes(keys))
    pull_refused(
        clone, data, "keys.u64: row 1: not the key of its symbol's id", world["c1"], tmp_path
    )


def _graph_cases():
    def far_edge(g):
        dst = bytearray(g["dst"])
        dst[0:4] = (10**6).to_bytes(4, "little")
        g["dst"] = bytes(dst)

    def kind_code(g):
        g["kind"] = bytes([250]) * len(g["kind"])

    def nodes(g):
        g["symbols"] += 1

    def entry_point(g):
        g["entry_points"] = (10**6).to_bytes(4, "little")

    def garbage(g):
        return {"format": g["format"], "symbols": "many"}

    return [
        ("edge out of range", far_edge, "graph.msgpack: does not load"),
        ("kind code", kind_code, "edge kind or resolution code out of range"),
        ("node count", nodes, "graph.msgpack: does not load"),
        ("entry point out of range", entry_point, "entry_points: a row outside"),
        ("garbage", garbage, "graph.msgpack: does not load"),
    ]


@pytest.mark.parametrize(
    "change, message", [c[1:] for c in _graph_cases()], ids=[c[0] for c in _graph_cases()]
)
def test_a_hostile_graph_is_refused(world, clone, tmp_path, change, message):
    data = edit_table(world["a1"], "graph.msgpack", change)
    pull_refused(clone, data, message, world["c1"], tmp_path)


def test_update_after_a_refused_pull_does_not_call_a_broken_index_up_to_date(
    world, clone, tmp_path
):
    """An artifact of HEAD whose file table claims another blob for a file: refused, so the
    update that follows brings the clone's own index (c0) to HEAD, not the broken one."""

    def swap(rows):
        rows[0][1], rows[1][1] = rows[1][1], rows[0][1]

    data = edit_table(world["a2"], "files.msgpack", swap)
    pull_refused(clone, data, "in the artifact's commit", world["c2"], tmp_path)
    out = run(["update", "--json"], clone)
    assert out.exit_code == 0, out.output
    report = json.loads(out.output)
    assert report["action"] != "up-to-date" and report["commit"] == world["c2"]
    manifest = read_manifest(index_dir(clone))
    entries = load_files(index_dir(clone) / manifest.generation)
    for e in entries:  # the index now says what git says
        assert git(clone, "rev-parse", f"HEAD:{e.path}") == e.blob


# --- item 1: the manifest fields used later ------------------------------------------------------


def _info_edit(change):
    def edit(data: bytes) -> bytes:
        members = members_of(data)
        info = json.loads(members[0][1])
        change(info)
        head = tarfile.TarInfo("artifact.json")
        body = json.dumps(info).encode() if not isinstance(info, bytes) else info
        head.size = len(body)
        return repack([(head, body), *members[1:]])

    return edit


def _both(key, value):
    def change(info):
        info["manifest"][key] = value
        if key in ("root", "embedder", "counts"):
            info[key] = value

    return change


def _manifest_pop(key):
    def change(info):
        del info["manifest"][key]

    return change


def _member(field, value):
    def change(info):
        info["members"]["symbols.msgpack"][field] = value

    return change


def _set(key, value):
    def change(info):
        info[key] = value

    return change


def _count(key, value):
    def change(info):
        info["manifest"]["counts"][key] = value
        info["counts"] = info["manifest"]["counts"]

    return change


MALFORMED = [
    ("format as text", _set("artifact_format", "1"), "no artifact_format"),
    ("commit as int", _set("commit", 12), "names no valid commit"),
    ("manifest a list", _set("manifest", []), "lacks the index manifest or the member list"),
    ("members a list", _set("members", []), "lacks the index manifest or the member list"),
    ("no root", _manifest_pop("root"), "manifest: lacks 'root'"),
    ("no counts", _manifest_pop("counts"), "manifest: lacks 'counts'"),
    ("negative size", _member("size", -1), "lacks a valid size and sha256"),
    ("size as text", _member("size", "10"), "lacks a valid size and sha256"),
    ("sha256 not hex", _member("sha256", "z" * 64), "lacks a valid size and sha256"),
    ("root as int", _both("root", 5), "'root' has the wrong type"),
    ("root absolute", _both("root", "/etc"), "'root' '/etc' is absolute"),
    ("embedder a list", _both("embedder", []), "'embedder' has the wrong type"),
    ("embedder no dimension", _both("embedder", {"provider": "x"}), "lacks a provider string"),
    ("settings a list", _both("settings", []), "'settings' has the wrong type"),
    ("skipped of ints", _both("skipped", [1]), "skipped[0] is not a path and a reason"),
    ("generation a path", _both("generation", "../../x"), "'generation' is not a generation"),
    ("count as text", _count("symbols", "12"), "counts['symbols'] is not a count"),
    ("count as bool", _count("files", True), "counts['files'] is not a count"),
    ("count negative", _count("edges", -1), "counts['edges'] is not a count"),
    ("no symbol count", _manifest_pop("counts"), "lacks 'counts'"),
    ("counts disagree", _set("counts", {"files": 1}), "'counts' and the index"),
    ("overlay", _both("overlay", {"from": "x"}), "'overlay' has the wrong type"),
]


@pytest.mark.parametrize(
    "change, message", [m[1:] for m in MALFORMED], ids=[m[0] for m in MALFORMED]
)
def test_malformed_artifact_json_is_refused(world, clone, tmp_path, change, message):
    pull_refused(clone, _info_edit(change)(world["a1"]), message, world["c1"], tmp_path)


@pytest.mark.parametrize(
    "body, message",
    [(b"{not json", "artifact.json is not JSON"), (b"[" * 100_000, "artifact.json is not JSON")],
    ids=["not-json", "nested-too-deep"],
)
def test_artifact_json_that_is_not_json_is_refused(world, clone, tmp_path, body, message):
    members = members_of(world["a1"])
    head = tarfile.TarInfo("artifact.json")
    head.size = len(body)
    pull_refused(clone, repack([(head, body), *members[1:]]), message, world["c1"], tmp_path)


def test_pull_from_a_file_by_python_m_codebot_exits_1(world, clone, tmp_path):
    """The real entry point, in its own process: a refusal is exit 1 and one line, no trace."""
    bad = tmp_path / "bad.tar.gz"
    bad.write_bytes(_info_edit(_both("settings", []))(world["a1"]))
    before = snapshot(clone)
    out = subprocess.run(
        [sys.executable, "-m", "codebot", "pull", "--from", str(bad)],
        cwd=clone,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 1, out.stderr
    assert "Traceback" not in out.stderr and "'settings' has the wrong type" in out.stderr
    assert_untouched(clone, before)


# --- item 2: resources ---------------------------------------------------------------------------


def _listed(size: int) -> dict:
    return {"sha256": "0" * 64, "size": size}


@pytest.mark.parametrize(
    "rel, size, message",
    [
        ("bomb", GIB, "'bomb' is no file of a generation"),
        ("lexical/sub/x", 1, "'lexical/sub/x' is no file of a generation"),
        ("vectors.usearch", 1, "'vectors.usearch' is no file of a generation"),  # no embedder
        ("lexical/huge.store", GIB, "lexical/: 1073"),
        ("symbols.msgpack", GIB, "symbols.msgpack: 1073741824 bytes, over the"),
        ("keys.u64", 8, "keys.u64: 8 bytes, want 8 per symbol"),
    ],
)
def test_member_sizes_are_bounded_by_the_counts_before_reading(
    world, clone, tmp_path, rel, size, message
):
    """The rule (validate.check_sizes): only a generation's own files, each table within a
    generous bound per symbol and per file of the manifest's counts; keys.u64 exactly 8 bytes a
    symbol. A header claiming a gibibyte is refused from artifact.json, before a byte is read."""
    data = with_members(
        world["a1"], [_entry("index/" + rel, b"x", size=size)], {rel: _listed(size)}
    )
    pull_refused(clone, data, message, world["c1"], tmp_path)


def test_counts_beyond_the_commit_are_refused(world, clone, tmp_path):
    data = _info_edit(_count("files", 10_000))(world["a1"])
    pull_refused(clone, data, "counts 10000 files; its commit has", world["c1"], tmp_path)

    def inflate(info):
        _count("symbols", 10**9)(info)
        info["members"]["keys.u64"]["size"] = 8 * 10**9  # sizes that agree with the counts

    data = _info_edit(inflate)(world["a1"])
    pull_refused(clone, data, "1000000000 symbols in", world["c1"], tmp_path)


def _bomb(data: bytes, header_bytes: int, kind: bytes = tarfile.XHDTYPE) -> bytes:
    """The artifact with an extended header of ``header_bytes`` zeros after artifact.json,
    compressed as it streams (a 256 MiB header is about 250 KB)."""
    members = members_of(data)
    raw_head = io.BytesIO()
    with tarfile.open(fileobj=raw_head, mode="w", format=tarfile.PAX_FORMAT) as tar:
        tar.addfile(members[0][0], io.BytesIO(members[0][1]))
    first = raw_head.getvalue()[: 512 + (-(-len(members[0][1]) // 512)) * 512]
    header = tarfile.TarInfo("././@PaxHeader")
    header.type, header.size = kind, header_bytes
    rest = io.BytesIO()
    with tarfile.open(fileobj=rest, mode="w", format=tarfile.USTAR_FORMAT) as tar:
        for m, b in members[1:]:
            tar.addfile(m, io.BytesIO(b))
    out = io.BytesIO()
    z = zlib.compressobj(6, zlib.DEFLATED, -zlib.MAX_WBITS)
    crc, size = 0, 0

    def put(chunk: bytes) -> None:
        nonlocal crc, size
        crc, size = zlib.crc32(chunk, crc), size + len(chunk)
        out.write(z.compress(chunk))

    out.write(b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff")
    put(first)
    put(header.tobuf(tarfile.USTAR_FORMAT))
    zeros = b"\0" * (1 << 20)
    for _ in range(header_bytes >> 20):
        put(zeros)
    put(rest.getvalue())
    out.write(z.flush())
    out.write(crc.to_bytes(4, "little") + (size & 0xFFFFFFFF).to_bytes(4, "little"))
    return out.getvalue()


@pytest.mark.parametrize("kind", [tarfile.XHDTYPE, tarfile.GNUTYPE_LONGNAME], ids=["pax", "gnu"])
def test_a_huge_extended_header_is_refused(world, clone, tmp_path, kind):
    data = _bomb(world["a1"], 8 << 20, kind)
    assert gzip.decompress(data)  # a well-formed archive, only its header is hostile
    pull_refused(clone, data, "extended tar header of 8388608 bytes", world["c1"], tmp_path)


def test_a_pax_header_bomb_is_refused_in_little_memory(world, clone, tmp_path):
    """256 MiB of pax header in a few hundred KB: refused before it is read (tarfile would hold
    it whole: 1.6 GB for 512 MiB). Peak memory measured in a process of its own."""
    bomb = tmp_path / "bomb.tar.gz"
    bomb.write_bytes(_bomb(world["a1"], 256 << 20))
    assert bomb.stat().st_size < 2 << 20
    script = (
        "import resource, sys\n"
        "from pathlib import Path\n"
        "import msgpack, numpy\n"
        "from codebot.core.config import load_config\n"
        "from codebot.share.artifacts import ArtifactError, install\n"
        "clone = Path(sys.argv[1]); config = load_config(clone)\n"
        "before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss\n"
        "try:\n"
        "    install(clone, config, Path(sys.argv[2]))\n"
        "    print('installed')\n"
        "except ArtifactError as exc:\n"
        "    print('refused', exc)\n"
        "after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss\n"
        "print((after - before) // 1024)\n"  # KiB on Linux -> MiB
    )
    before = snapshot(clone)
    out = subprocess.run(
        [sys.executable, "-c", script, str(clone), str(bomb)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    lines = out.stdout.splitlines()
    assert out.returncode == 0 and lines[0].startswith("refused"), out.stdout + out.stderr
    assert "extended tar header of 268435456 bytes" in lines[0]
    assert int(lines[-1]) < 48, f"peak memory grew by {lines[-1]} MiB"
    assert_untouched(clone, before)


# --- the existing hostile cases, through the CLI ---------------------------------------------------


@pytest.mark.parametrize("extra, listed, message", HOSTILE_MEMBERS)
def test_hostile_members_by_the_cli(world, clone, tmp_path, extra, listed, message):
    data = with_members(world["a1"], extra, listed)
    pull_refused(clone, data, message, world["c1"], tmp_path)
    assert not (tmp_path / "evil.py").exists()


def test_corrupt_archives_by_the_cli(world, clone, tmp_path):
    members = members_of(world["a1"])
    i = next(n for n, (m, _) in enumerate(members) if m.name == "index/symbols.msgpack")
    flipped = list(members)
    flipped[i] = (members[i][0], members[i][1][:-1] + bytes([members[i][1][-1] ^ 1]))
    for data, message in [
        # Cut inside a member, gzip or tar says so; where the stream happens to end cleanly
        # (the members' sizes decide), the members artifact.json lists and the tar lacks do.
        (world["a1"][: len(world["a1"]) * 2 // 3], ("truncated or corrupt", "incomplete")),
        (repack(flipped), "checksum mismatch in 'index/symbols.msgpack'"),
        (repack([*members[1:], members[0]]), "not a codebot artifact"),
        (repack(members[:-1]), "incomplete"),
        (b"not a gzip file at all", "truncated or corrupt"),
    ]:
        pull_refused(clone, data, message, world["c1"], tmp_path)


def test_a_sound_artifact_still_installs(world, clone, tmp_path):
    """The checks refuse what is wrong, not what is right (the same path as the cases above)."""
    store = tmp_path / "store"
    store.mkdir()
    (store / asset_name(world["c1"])).write_bytes(world["a1"])
    out = run(["pull", "--from", str(store), "--json"], clone)
    assert out.exit_code == 0, out.output
    report = json.loads(out.output)
    assert report["action"] == "pulled" and report["update"]["commit"] == world["c2"]

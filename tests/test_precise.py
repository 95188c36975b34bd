"""Precise edges (issue 19): the SCIP reader on well-formed and hostile bytes, the mapping and
merge on a real repository with a SCIP index written through the schema by this file, the
freshness rule across a commit, and (when Node.js and scip-python are installed) the real
indexer on a real small repository."""

from __future__ import annotations

import json
import os
import random
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from codebot.core.errors import PreciseError
from codebot.graph.scip import descriptor_name, parse_scip
from codebot.serve.cli import main
from tests.conftest import git

# --- a SCIP writer, from scip.proto's field numbers -------------------------------------------


def _varint(n: int) -> bytes:
    n &= (1 << 64) - 1
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        out.append(b | (0x80 if n else 0))
        if not n:
            return bytes(out)


def _len(num: int, payload: bytes) -> bytes:
    return _varint(num << 3 | 2) + _varint(len(payload)) + payload


def _int(num: int, n: int) -> bytes:
    return _varint(num << 3) + _varint(n)


def occurrence(symbol: str, rng: list[int], roles: int = 0, enclosing=None) -> bytes:
    out = _len(1, b"".join(_varint(v) for v in rng)) + _len(2, symbol.encode())
    if roles:
        out += _int(3, roles)
    if enclosing:
        out += _len(7, b"".join(_varint(v) for v in enclosing))
    return out


def document(path: str, occurrences: list[bytes], symbols: list[tuple[str, int, str]] = ()):
    out = _len(4, b"python") + _len(1, path.encode())
    out += b"".join(_len(2, o) for o in occurrences)
    for sym, kind, display in symbols:
        out += _len(3, _len(1, sym.encode()) + _int(5, kind) + _len(6, display.encode()))
    return out


def scip_index(documents: list[bytes], tool: str = "test-writer") -> bytes:
    meta = _len(2, _len(1, tool.encode()) + _len(2, b"1.0")) + _len(3, b"file:///repo")
    return _len(1, meta) + b"".join(_len(2, d) for d in documents)


PKG = "scip-python python repo 0.1 "


def sym(descriptors: str) -> str:
    return PKG + descriptors


def at(text: str, needle: str, nth: int = 0) -> list[int]:
    """The 0-based [line, start, end] of the nth ``needle`` (an identifier) in ``text``."""
    pos = -1
    for _ in range(nth + 1):
        pos = text.index(needle, pos + 1)
    line = text.count("\n", 0, pos)
    col = pos - (text.rfind("\n", 0, pos) + 1)
    return [line, col, col + len(needle)]


# --- the reader ---------------------------------------------------------------------------------


def test_reader_reads_the_fields_we_use():
    blob = scip_index(
        [
            document(
                "pkg/a.py",
                [
                    occurrence(sym("pkg/a/f()."), [0, 4, 5], roles=1, enclosing=[0, 0, 1, 10]),
                    occurrence(sym("pkg/a/f()."), [3, 2, 3, 3]),
                    occurrence("local 0", [4, 0, 1]),
                ],
                [(sym("pkg/a/f()."), 17, "f")],
            )
        ]
    )
    index = parse_scip(blob)
    assert (index.tool, index.version, index.project_root) == ("test-writer", "1.0", "file:///repo")
    (doc,) = index.documents
    assert doc.path == "pkg/a.py" and doc.language == "python"
    first, second, local = doc.occurrences
    assert first.is_definition and (first.start_line, first.start_char, first.end_char) == (0, 4, 5)
    assert first.enclosing == (0, 1)
    assert not second.is_definition and (second.start_line, second.end_line) == (3, 3)
    assert local.symbol == "local 0"
    assert doc.kinds == {sym("pkg/a/f()."): 17} and doc.display[sym("pkg/a/f().")] == "f"


@pytest.mark.parametrize(
    "symbol, expected",
    [
        (sym("pkg/mod/Box#process()."), ("process", "().")),
        (sym("pkg/mod/Box#"), ("Box", "#")),
        (sym("pkg/mod/"), ("mod", "/")),
        (sym("pkg/mod/CONST."), ("CONST", ".")),
        (sym("pkg/mod/f().(x)"), ("x", "()")),
        ("scip-typescript npm @trpc/server 11.0.0 src/`router.ts`/createRouter().",
         ("createRouter", "().")),
        ("scip-typescript npm pkg 1.0 src/`a.ts`/", ("a.ts", "/")),
        ("local 4", ("", "")),
        ("scip-python python", ("", "")),
    ],
)  # fmt: skip
def test_descriptor_name(symbol, expected):
    assert descriptor_name(symbol) == expected


def test_damaged_and_hostile_files_are_errors_not_hangs():
    good = scip_index([document("a.py", [occurrence(sym("a/f()."), [0, 4, 5], roles=1)])])
    for cut in range(1, len(good)):  # every truncation: an error or a shorter index, quickly
        try:
            parse_scip(good[:cut])
        except PreciseError as exc:
            assert "not a readable SCIP index" in str(exc)
    hostile = [
        _varint(2 << 3 | 2) + _varint(1 << 40),  # a document of a terabyte
        _varint(2 << 3 | 3),  # a group: not in the schema
        b"\xff" * 11,  # a varint that never ends
        _len(2, _len(1, b"/etc/passwd")),  # an absolute path
        _len(2, _len(1, b"a/../../b")),
        _len(2, _len(1, b"\xff\xfe")),  # not UTF-8
        _len(2, _len(1, b"a.py") + _len(2, _len(1, b"\x01\x02") + _len(2, b"s"))),  # bad range
    ]
    for blob in hostile:
        with pytest.raises(PreciseError):
            parse_scip(blob)
    rng = random.Random(19)
    for _ in range(300):  # random damage: never anything but an index or a PreciseError
        data = bytearray(good)
        for _ in range(rng.randint(1, 4)):
            data[rng.randrange(len(data))] = rng.randrange(256)
        try:
            parse_scip(bytes(data))
        except PreciseError:
            pass


# --- mapping, merging and freshness on a real repository ----------------------------------------

UTIL = """\
def helper(x):
    return x + 1


class Box:
    def __init__(self, v):
        self.v = v

    def process(self):
        return helper(self.v)
"""

APP = """\
from pkg.util import Box, helper


class A:
    def save(self):
        return 1


class B:
    def save(self):
        return 2


def run(items):
    b = Box(1)
    total = helper(2)
    return b.process() + total


def store(x):
    return x.save()


def drain(queue):
    return queue.process()


def main():
    return run([])
"""


def precise_index(util: str, app: str) -> bytes:
    """What a type checker says about UTIL and APP: definitions, and the references of each
    call (``x.save()`` is B's; ``queue.process()`` is a library's)."""
    d = 1  # SymbolRole.Definition
    u = [
        occurrence(sym("pkg/util/helper()."), at(util, "helper"), d),
        occurrence(sym("pkg/util/Box#"), at(util, "Box"), d),
        occurrence(sym("pkg/util/Box#__init__()."), at(util, "__init__"), d),
        occurrence(sym("pkg/util/Box#process()."), at(util, "process"), d),
        occurrence(sym("pkg/util/helper()."), at(util, "helper", 1)),
    ]
    a = [
        occurrence(sym("pkg/util/Box#"), at(app, "Box"), 2),  # an import
        occurrence(sym("pkg/app/A#"), at(app, "A"), d),
        occurrence(sym("pkg/app/A#save()."), at(app, "save"), d),
        occurrence(sym("pkg/app/B#"), at(app, "B:"), d),
        occurrence(sym("pkg/app/B#save()."), at(app, "save", 1), d),
        occurrence(sym("pkg/app/run()."), at(app, "run"), d),
        occurrence(sym("pkg/util/Box#"), at(app, "Box", 1)),
        occurrence(sym("pkg/util/helper()."), at(app, "helper", 1)),
        occurrence(sym("pkg/util/Box#process()."), at(app, "process")),
        occurrence(sym("pkg/app/store()."), at(app, "store"), d),
        occurrence(sym("pkg/app/B#save()."), at(app, "save", 2)),
        occurrence(sym("pkg/app/drain()."), at(app, "drain"), d),
        occurrence("scip-python python stdlib 3.11 queue/Queue#process().", at(app, "process", 1)),
        occurrence(sym("pkg/app/main()."), at(app, "main"), d),
        occurrence(sym("pkg/app/run()."), at(app, "run([])")[:2] + [at(app, "run([])")[1] + 3]),
    ]
    return scip_index([document("pkg/util.py", u), document("pkg/app.py", a)])


def invoke(*args: str) -> str:
    result = CliRunner().invoke(main, list(args))
    assert result.exit_code == 0, result.output
    return result.stdout


def callers(repo: Path, sid: str) -> dict[str, str]:
    doc = json.loads(invoke("callers", sid, "--json", str(repo)))
    return {n["id"]: n["resolution"] for n in doc["results"]}


@pytest.fixture
def indexed(make_repo, tmp_path):
    repo = make_repo({"pkg/__init__.py": "", "pkg/util.py": UTIL, "pkg/app.py": APP})
    invoke("index", "--embedder", "none", str(repo))
    scip = tmp_path / "index.scip"
    scip.write_bytes(precise_index(UTIL, APP))
    return repo, scip


def test_precise_edges_replace_add_and_drop(indexed, validate):
    repo, scip = indexed
    before = {sid: callers(repo, sid) for sid in ("pkg.util.helper", "pkg.app.B.save",
                                                 "pkg.util.Box.process")}  # fmt: skip
    assert before["pkg.util.helper"]["pkg.app.run"] == "exact"
    assert "pkg.app.store" not in before["pkg.app.B.save"]  # ambiguous: A.save or B.save
    assert before["pkg.util.Box.process"].get("pkg.app.drain") == "unique_name"

    report = json.loads(invoke("precise", "--scip", str(scip), "--json", str(repo)))
    validate(report, "precise.schema.json")
    assert report["mapped_share"] == 1.0 and report["documents"] == 2
    assert report["merged"]["dropped"] == 1 and report["merged"]["new"] == 1
    assert callers(repo, "pkg.util.helper") == {"pkg.app.run": "precise",
                                                "pkg.util.Box.process": "precise"}  # fmt: skip
    assert callers(repo, "pkg.app.B.save") == {"pkg.app.store": "precise"}  # new
    assert callers(repo, "pkg.app.A.save") == {}
    # a library's method, says the type checker: the unique-name guess is dropped
    assert callers(repo, "pkg.util.Box.process") == {"pkg.app.run": "precise"}
    assert callers(repo, "pkg.util.Box.__init__") == {"pkg.app.run": "precise"}

    stats = json.loads(invoke("stats", "--json", str(repo)))
    validate(stats, "stats.schema.json")
    assert stats["edges"]["by_kind"]["calls"]["precise"] == 6
    assert stats["precise"]["stale_files"] == 0 and stats["precise"]["fresh_files"] == 2
    status = json.loads(invoke("status", "--json", str(repo)))
    validate(status, "status.schema.json")
    assert "precise   at " in invoke("status", str(repo))


def test_a_commit_never_serves_a_changed_definition_as_precise(indexed):
    repo, scip = indexed
    invoke("precise", "--scip", str(scip), str(repo))
    (repo / "pkg/util.py").write_text("# moved down a line\n" + UTIL.replace("x + 1", "x + 2"))
    git(repo, "commit", "-qam", "util changes")
    invoke("update", str(repo))
    # util.py changed: its callers' and callees' edges are the heuristic ones again
    assert callers(repo, "pkg.util.helper") == {"pkg.app.run": "exact",
                                                "pkg.util.Box.process": "exact"}  # fmt: skip
    assert callers(repo, "pkg.util.Box.process")["pkg.app.run"] == "exact"
    # app.py did not change, nor did B: still precise
    assert callers(repo, "pkg.app.B.save") == {"pkg.app.store": "precise"}
    # the pull request report: the changed helper's callers are heuristic, their callers
    # (unchanged code on both ends) precise
    report = invoke("impact", "HEAD~1..HEAD", "--markdown", str(repo))
    assert "1 of 3 caller edges are precise" in report
    assert "- `run` `pkg/app.py:14` line 16\n" in report
    assert "  - `main` `pkg/app.py:28` line 29 (precise)\n" in report
    text = invoke("stats", str(repo))
    head = git(repo, "rev-parse", "HEAD~1")[:12]
    assert f"precise at {head}, 1 files heuristic since" in text
    assert f"precise   at {head}, 1 files heuristic since" in invoke("status", str(repo))


def test_a_changed_work_tree_file_is_left_out(indexed):
    repo, scip = indexed
    (repo / "pkg/util.py").write_text(UTIL + "\n# edited, not committed\n")
    report = json.loads(invoke("precise", "--scip", str(scip), "--json", str(repo)))
    assert report["documents"] == 1 and report["mapping"]["documents_changed"] == 1


def test_without_an_indexer_the_command_says_what_is_missing(indexed, monkeypatch, tmp_path):
    repo, _ = indexed
    empty = tmp_path / "bin"
    empty.mkdir()
    (empty / "git").symlink_to(shutil.which("git"))
    monkeypatch.setenv("PATH", str(empty))
    result = CliRunner().invoke(main, ["precise", str(repo)])
    assert result.exit_code == 1
    assert "scip-python: needs Node.js" in result.output
    assert "npm install -g @sourcegraph/scip-python" in result.output
    assert callers(repo, "pkg.util.helper")["pkg.app.run"] == "exact"  # all as before


def test_a_damaged_scip_file_changes_nothing(indexed, tmp_path):
    repo, scip = indexed
    bad = tmp_path / "bad.scip"
    bad.write_bytes(scip.read_bytes()[:-7])
    result = CliRunner().invoke(main, ["precise", "--scip", str(bad), str(repo)])
    assert result.exit_code == 1 and "not a readable SCIP index" in result.output
    assert callers(repo, "pkg.util.helper")["pkg.app.run"] == "exact"


# --- the real indexer, where it is installed ----------------------------------------------------


def _scip_python() -> str | None:
    found = shutil.which("scip-python")
    local = Path("/work/scip-node/node_modules/.bin/scip-python")
    if found is None and local.exists():
        found = str(local)
    return found if found and shutil.which("node") else None


@pytest.mark.skipif(_scip_python() is None, reason="Node.js and scip-python are not installed")
def test_real_scip_python_index(indexed, monkeypatch):
    repo, _ = indexed
    bin_dir = str(Path(_scip_python()).parent)
    monkeypatch.setenv("PATH", bin_dir + os.pathsep + os.environ["PATH"])
    report = json.loads(invoke("precise", "--indexer", "python", "--json", str(repo)))
    assert report["tools"] and report["tools"][0].startswith("scip-python")
    assert report["callable_mapped_share"] >= 0.95
    assert callers(repo, "pkg.util.helper") == {"pkg.app.run": "precise",
                                                "pkg.util.Box.process": "precise"}  # fmt: skip
    assert callers(repo, "pkg.util.Box.process").get("pkg.app.run") == "precise"


# --- the artifact carries them ------------------------------------------------------------------


def test_an_artifact_with_precise_edges_answers_callers_without_node(indexed, tmp_path,
                                                                     monkeypatch):  # fmt: skip
    repo, scip = indexed
    invoke("precise", "--scip", str(scip), str(repo))
    store = tmp_path / "store"
    invoke("publish", "--to", str(store), str(repo))
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(repo), str(clone))
    empty = tmp_path / "nonode"
    empty.mkdir()
    (empty / "git").symlink_to(shutil.which("git"))
    monkeypatch.setenv("PATH", str(empty))  # no node, no indexer in the clone
    monkeypatch.setenv("CODEBOT_EMBEDDER", "none")  # the publisher's setting
    invoke("pull", "--from", str(store), str(clone))
    assert callers(clone, "pkg.util.helper") == {"pkg.app.run": "precise",
                                                 "pkg.util.Box.process": "precise"}  # fmt: skip
    assert json.loads(invoke("stats", "--json", str(clone)))["precise"]["edges"] == 6


@pytest.mark.parametrize(
    "damage, message",
    [
        (lambda p: p.sites.update({"no.such.symbol": [(1, "f", "")]}), "is no symbol"),
        (lambda p: p.sites["pkg.app.run"].append((3, "f", "no.such")), "out of the index"),
        (lambda p: p.files.update({"../etc/passwd": "0" * 40}), "is no file of the index"),
        (lambda p: p.files.update({"pkg/app.py": "zz"}), "is no blob id"),
    ],
)
def test_a_hostile_precise_table_is_refused(indexed, damage, message):
    from codebot.core.errors import InvalidTable
    from codebot.graph.precise import PRECISE_FILE, pack_precise, read_precise
    from codebot.index.store import read_manifest
    from codebot.index.validate import check_generation

    repo, scip = indexed
    invoke("precise", "--scip", str(scip), str(repo))
    manifest = read_manifest(repo / ".git" / "codebot")
    gen = repo / ".git" / "codebot" / manifest.generation
    check_generation(gen, manifest)  # as written: sound
    p = read_precise(gen / PRECISE_FILE)
    damage(p)
    (gen / PRECISE_FILE).unlink()
    (gen / PRECISE_FILE).write_bytes(pack_precise(p))
    with pytest.raises(InvalidTable, match=message):
        check_generation(gen, manifest)


@pytest.mark.skipif(not (shutil.which("node") and shutil.which("npm")), reason="no Node.js")
def test_npm_exec_only_with_the_users_consent(tmp_path, monkeypatch):
    from codebot.serve.indexers import find_indexers, npm_exec_allowed

    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for tool in ("node", "npm"):
        (bin_dir / tool).symlink_to(shutil.which(tool))
    monkeypatch.setenv("PATH", str(bin_dir))  # node and npm, no indexer
    found, missing = find_indexers(["python", "typescript"])
    assert found == [] and len(missing) == 2
    assert missing[0] == (
        "scip-python: not on PATH; install it with: npm install -g @sourcegraph/scip-python "
        "(or let codebot fetch it: codebot precise --npm-exec)"
    )
    found, missing = find_indexers(["python"], npm_exec=True)
    assert missing == [] and found[0][1][:3] == ["npm", "exec", "--yes"]
    assert "--package=@sourcegraph/scip-python" in found[0][1]
    assert npm_exec_allowed({"CODEBOT_PRECISE_NPM_EXEC": "1"})
    assert not npm_exec_allowed({})


def test_the_oracle_verdicts(indexed):
    from codebot.git.workspace import Workspace
    from codebot.graph.precise import judge_edges, map_scip
    from codebot.graph.resolve import resolve
    from codebot.graph.scip import read_scip
    from codebot.index.store import read_index
    from codebot.index.tables import file_result

    repo, scip = indexed
    index = read_index(Workspace.at(repo))
    table, by_id = index.symbols, index.by_id
    files = [file_result(e, [table[by_id[s]] for s in e.symbols]) for e in index.files()]
    edges = resolve(files).edges
    verdicts, oracle = judge_edges(edges, files, map_scip(read_scip(scip), files))
    got = {(e.src, e.dst): v for e, v in zip(edges, verdicts) if e.kind == "calls"}
    assert got[("pkg.app.run", "pkg.util.helper")] == "confirmed"
    assert got[("pkg.app.run", "pkg.util.Box.__init__")] == "confirmed"
    assert got[("pkg.app.drain", "pkg.util.Box.process")] == "contradicted"
    assert ("pkg.app.store", "pkg.app.B.save") in oracle - set(got)  # the heuristics missed it
    assert {v for (src, _), v in got.items() if src == "pkg.util.Box.process"} == {"confirmed"}


def test_a_scip_index_of_another_repository_is_refused(indexed, tmp_path):
    repo, _ = indexed
    other = tmp_path / "other.scip"
    other.write_bytes(scip_index([document("lib/elsewhere.py", [])]))
    result = CliRunner().invoke(main, ["precise", "--scip", str(other), str(repo)])
    assert result.exit_code == 1 and "covers none of the indexed files" in result.output
    assert callers(repo, "pkg.util.helper")["pkg.app.run"] == "exact"

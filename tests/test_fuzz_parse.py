"""Hostile and broken source files never crash indexing: each is skipped or kept in part, and
reported with its path and the reason (issue "Hardening", items 5 and 9, and its fuzz test).

The fuzz corpus is generated here, seeded: for each of the 15 grammars, real snippets from
``tests/languages/test_<lang>.py`` turned into random bytes, truncations, invalid UTF-8 inside
strings and identifiers, thousands of open brackets and a huge single line; plus file names that
are not UTF-8. It goes through the real pipeline (``build_index`` on a git repository and on a
plain directory, and the CLI).
"""

from __future__ import annotations

import ast
import os
import random
import re
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from codebot.core.config import Config
from codebot.index.build import build_index
from codebot.languages import GRAMMAR_LANGUAGES
from codebot.parse import extract, guard
from codebot.parse.extract import parse_file, parse_source
from codebot.parse.files import MAX_LINE_BYTES, Selector, SourceFile, content_skip_reason
from codebot.parse.guard import ParseRefused

from .conftest import git

LANGUAGES_DIR = Path(__file__).resolve().parent / "languages"
EXTENSION = {
    "python": "py",
    "javascript": "js",
    "typescript": "ts",
    "tsx": "tsx",
    "go": "go",
    "rust": "rs",
    "java": "java",
    "c": "c",
    "cpp": "cpp",
    "csharp": "cs",
    "ruby": "rb",
    "php": "php",
    "kotlin": "kt",
    "swift": "swift",
    "scala": "scala",
    "lua": "lua",
    "elixir": "ex",
    "shell": "sh",
    "haskell": "hs",
    "zig": "zig",
}
NONE = Config(embedder="none")


def snippets(language: str) -> list[bytes]:
    """The code snippets of a language's tests: string constants that look like source."""
    tree = ast.parse((LANGUAGES_DIR / f"test_{language}.py").read_text())
    found = {
        node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and node.value.count("\n") >= 2
        and len(node.value) > 60
    }
    return [s.encode() for s in sorted(found)]


_STRING = re.compile(rb"\"[^\"\n]{1,80}\"|'[^'\n]{1,80}'")
_IDENT = re.compile(rb"[A-Za-z_][A-Za-z0-9_]{2,}")
_BAD_UTF8 = (b"\xe9", b"\xff", b"\xc3", b"\xed\xa0\x80", b"\xf0\x9f")


def inject_invalid_utf8(rnd: random.Random, code: bytes) -> bytes:
    """Invalid UTF-8 put inside string literals and identifiers (where predicates look)."""
    spots = [m.start() + 1 for m in _STRING.finditer(code)]
    spots += [m.start() + rnd.randrange(1, len(m.group())) for m in _IDENT.finditer(code)]
    rnd.shuffle(spots)
    out = bytearray(code)
    for pos in sorted(spots[:12], reverse=True):
        out[pos:pos] = rnd.choice(_BAD_UTF8)
    return bytes(out)


def corpus(seed: int = 20260101) -> tuple[dict[str, bytes], set[str]]:
    """{path: bytes} over every grammar, and the paths that must come back with a problem."""
    rnd = random.Random(seed)
    files: dict[str, bytes] = {}
    problems: set[str] = set()
    for language in GRAMMAR_LANGUAGES:
        found = snippets(language)
        assert found, language
        code = max(found, key=len)
        other = rnd.choice(found)

        def add(name: str, data: bytes, problem: bool = True, prefix=f"{language}/") -> None:
            path = f"{prefix}{name}.{EXTENSION[prefix[:-1]]}"
            files[path] = data
            if problem:
                problems.add(path)

        add("random_bytes", bytes(rnd.randrange(1, 256) for _ in range(3000)))
        first_line = b"<?php\n" if language == "php" else b""  # else PHP's is all HTML
        noise = bytes(rnd.choice(b"{}()[]<>;:=.,'\"ab1 \n\t") for _ in range(3000))
        add("random_text", first_line + noise)
        for i in range(2):  # a cut may still be valid code: no problem required
            add(f"truncated{i}", code[: rnd.randrange(1, len(code))], problem=False)
        add("invalid_utf8", inject_invalid_utf8(rnd, code))
        add("invalid_utf8_b", inject_invalid_utf8(rnd, other))
        add("deep_parens", code + b"(" * 3000)
        add("deep_mixed", code + b"".join(rnd.choice((b"(", b"[", b"{")) for _ in range(3000)))
        add("huge_line", code.replace(b"\n", b" ") * (MAX_LINE_BYTES // len(code) + 2))
    return files, problems


BAD_NAMES = [b"caf\xe9.py", b"n\xffame.go", b"dir\xe9/inner.rs"]


def write_corpus(root: Path, files: dict[str, bytes]) -> None:
    for rel, data in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    for name in BAD_NAMES:
        path = os.path.join(os.fsencode(root), name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(b"def f():\n    return 1\n")


def check_report(report, files: dict[str, bytes], problems: set[str]) -> None:
    parse = report.parse
    skipped = {s.path: s.reason for s in parse.skipped}
    issues: dict[str, list[str]] = {}
    for f in parse.files:
        for issue in f.issues:
            assert issue.path == f.path and issue.reason
            issues.setdefault(f.path, []).append(issue.reason)
    assert all(reason for reason in skipped.values())
    unreported = sorted(p for p in problems if p not in skipped and p not in issues)
    assert not unreported, unreported
    parsed = {f.path for f in parse.files}
    assert parsed | set(skipped) >= set(files)  # every file accounted for
    # File names that are not UTF-8: skipped, named printably, with the reason.
    assert skipped.get("caf\\xe9.py") == "file name is not UTF-8"
    assert skipped.get("n\\xffame.go") == "file name is not UTF-8"
    assert any(p.startswith("dir\\xe9") and "not UTF-8" in r for p, r in skipped.items())
    for language in GRAMMAR_LANGUAGES:
        assert "invalid UTF-8" in " ".join(issues[f"{language}/invalid_utf8.{EXTENSION[language]}"])
        assert skipped[f"{language}/huge_line.{EXTENSION[language]}"]


@pytest.fixture(scope="module")
def fuzz_files() -> tuple[dict[str, bytes], set[str]]:
    return corpus()


def test_corpus_is_seeded_and_covers_every_grammar(fuzz_files):
    files, problems = fuzz_files
    assert corpus() == (files, problems)
    assert {p.split("/")[0] for p in files} == set(GRAMMAR_LANGUAGES)
    assert len(files) == 9 * len(GRAMMAR_LANGUAGES)


def test_fuzz_corpus_indexes_in_git(tmp_path: Path, fuzz_files):
    files, problems = fuzz_files
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    write_corpus(repo, files)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "hostile files")
    report = build_index(repo, NONE)
    check_report(report, files, problems)


def test_fuzz_corpus_indexes_in_a_plain_directory_and_the_cli(tmp_path: Path, fuzz_files):
    files, problems = fuzz_files
    root = tmp_path / "plain"
    write_corpus(root, files)
    check_report(build_index(root, NONE), files, problems)
    other = tmp_path / "cli"
    write_corpus(other, files)
    run = subprocess.run(
        [sys.executable, "-m", "codebot", "index", str(other), "--embedder", "none"],
        capture_output=True,
        text=True,
        errors="replace",
        timeout=120,
    )
    assert run.returncode in (0, 1), run.stderr
    assert "Traceback" not in run.stdout + run.stderr
    assert "internal error" not in run.stdout + run.stderr


# --- one test per failure found -------------------------------------------------------------------

# Invalid UTF-8 inside nodes that a query predicate (#match?, #eq?) reads: tree-sitter raised
# SystemError (wrapping UnicodeDecodeError) out of QueryCursor.captures, or (Kotlin) the file
# fell back to line chunks.
PREDICATE_CASES = {
    "java": (b'class A { void f() { ob\xe9j.g(); "caf\xe9".length(); } }', "A.f"),
    "csharp": (b'class A { void F() { G\xe9(); "caf\xe9".X(); } }\nrecord caf\xe9 {}', "A.F"),
    "kotlin": (b"class A { fun f() { g\xe9() } }\nenum class X\xe9 {}", "A.f"),
}


@pytest.mark.parametrize("language", sorted(PREDICATE_CASES))
def test_invalid_utf8_under_a_query_predicate(language: str):
    data, method = PREDICATE_CASES[language]
    r = parse_source(f"x.{EXTENSION[language]}", data, language, module="")
    reasons = [i.reason for i in r.issues]
    assert any("invalid UTF-8" in reason for reason in reasons), reasons
    assert not any("parser failed" in reason for reason in reasons), reasons
    assert method in {s.id for s in r.symbols}
    # The file's hash is the real bytes'; text shown from the file keeps the real bytes.
    assert r.content_hash == extract.blob_id(data)
    if language == "csharp":
        record = next(s for s in r.symbols if s.signature.startswith("record"))
        assert record.signature == "record caf\ufffd"


def test_tree_sitter_bytes_keeps_length_and_valid_text():
    data = b'a = "caf\xe9" + \xff\xfe + "\xc3\xa9" + "\xed\xa0\x80"\n'
    fixed = extract.tree_sitter_bytes(data)
    assert len(fixed) == len(data)
    assert fixed == b'a = "caf?" + ?? + "\xc3\xa9" + "???"\n'
    fixed.decode("utf-8")
    assert extract.tree_sitter_bytes(b"plain") == b"plain"


def test_any_exception_inside_the_parser_is_an_issue(monkeypatch: pytest.MonkeyPatch):
    def boom(*_args, **_kwargs):
        raise SystemError("<class 'UnicodeDecodeError'> returned a result with an exception set")

    monkeypatch.setattr(extract, "_extract", boom)
    r = parse_source("a.java", b"class A {}\n", "java")
    assert "parser failed (SystemError" in r.issues[-1].reason
    assert [s.kind for s in r.symbols] == ["chunk"]


def test_an_exception_outside_the_guard_skips_the_file(monkeypatch: pytest.MonkeyPatch, tmp_path):
    def boom(*_args, **_kwargs):
        raise MemoryError("out of memory")

    monkeypatch.setattr(extract, "parse_source", boom)
    (tmp_path / "a.py").write_bytes(b"x = 1\n")
    source = SourceFile("a.py", tmp_path / "a.py", "python", "source")
    selector = Selector(tmp_path, None, NONE)
    result, _ = parse_file(selector, source, NONE, "a", extract._DEFAULT_LIMITS)
    assert result.path == "a.py" and result.reason == "parser failed (MemoryError: out of memory)"


@pytest.mark.parametrize("kind", ["git", "plain"])
def test_a_file_name_that_is_not_utf8_is_skipped(tmp_path: Path, kind: str):
    root = tmp_path / "r"
    root.mkdir()
    (root / "ok.py").write_text("def f():\n    return 1\n")
    for name in (b"caf\xe9.py", b"n\xffame.txt"):
        with open(os.path.join(os.fsencode(root), name), "wb") as f:
            f.write(b"def g():\n    return 2\n")
    if kind == "git":
        git(root, "init", "-q", "-b", "main")
        git(root, "add", "-A")
        git(root, "commit", "-q", "-m", "names")
    report = build_index(root, NONE)
    assert [f.path for f in report.parse.files] == ["ok.py"]
    assert {(s.path, s.reason) for s in report.parse.skipped} == {
        ("caf\\xe9.py", "file name is not UTF-8"),
        ("n\\xffame.txt", "file name is not UTF-8"),
    }


def test_a_directory_name_that_is_not_utf8_is_skipped(tmp_path: Path):
    os.makedirs(os.path.join(os.fsencode(tmp_path), b"d\xe9", b"sub"))
    with open(os.path.join(os.fsencode(tmp_path), b"d\xe9", b"sub", b"a.py"), "wb") as f:
        f.write(b"x = 1\n")
    (tmp_path / "ok.py").write_text("y = 2\n")
    report = build_index(tmp_path, NONE)
    assert [(s.path, s.reason) for s in report.parse.skipped] == [
        ("d\\xe9/", "directory name is not UTF-8")
    ]


def test_a_bracket_flood_is_refused_quickly():
    # 200,000 unclosed brackets: the query alone took 45 s before; now refused before parsing.
    with pytest.raises(ParseRefused, match=r"brackets nested 200,000 deep"):
        parse_source("flood.py", b"(" * 200_000, "python")
    # 200,000 stray closing ones nest nothing, but make one ERROR node as wide: refused before
    # the query runs.
    with pytest.raises(ParseRefused, match=r"syntax error spans 200,000 tokens"):
        parse_source("flood.py", b")" * 200_000, "python")


@pytest.mark.parametrize("language", ["python", "java", "typescript"])
def test_deep_nesting_is_refused_before_parsing(language: str):
    # 50,000 nested calls: 13-45 s in the query before (quadratic in the depth).
    data = b"f(" * 50_000 + b")" * 50_000 + b"\n"
    with pytest.raises(ParseRefused, match=r"brackets nested 50,000 deep \(over 5,000\)"):
        parse_source(f"deep.{EXTENSION[language]}", data, language)
    # Stray closing brackets do not hide an opening run after them.
    assert guard.bracket_depth(b")" * 9000 + b"(" * 6000) == 6000
    assert guard.bracket_depth(b"f(a[1], {b: (c)})\n" * 1000) == 3


def test_a_parse_over_the_time_bound_is_stopped(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(extract, "MAX_PARSE_SECONDS", 0.0)
    data = b"def f(x):\n    return g(x) + 1\n" * 4000  # over the unwatched size: interrupted
    with pytest.raises(ParseRefused, match="parse took longer than 0 s"):
        parse_source("slow.py", data, "python")
    # The parser is usable again: a halted parse must not resume on the next file.
    monkeypatch.setattr(extract, "MAX_PARSE_SECONDS", 5.0)
    assert [s.id for s in parse_source("ok.py", b"def h():\n    pass\n", "python").symbols] == [
        "ok.h"
    ]


def test_a_refused_file_is_skipped_with_the_reason(tmp_path: Path):
    (tmp_path / "flood.js").write_bytes(b"var x = " + b")\n" * 60_000)
    (tmp_path / "ok.js").write_bytes(b"function f() { return 1 }\n")
    report = build_index(tmp_path, NONE)
    assert [f.path for f in report.parse.files] == ["ok.js"]
    (skipped,) = report.parse.skipped
    assert skipped.path == "flood.js" and "syntax error spans" in skipped.reason


def test_a_huge_line_is_skipped_even_with_generated_files_included():
    data = b"x = 1\n" + b"a=1;" * (MAX_LINE_BYTES // 4 + 10) + b"\ny = 2\n"
    config = Config(include_generated=True)
    assert content_skip_reason(data, config).startswith(f"line 2 is {MAX_LINE_BYTES + 40:,} bytes")
    assert content_skip_reason(b"x = 1\n" * 50_000, config) is None


def test_the_biggest_stdlib_files_stay_within_the_bounds():
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    paths = [stdlib / "_pydecimal.py", stdlib / "typing.py", stdlib / "pydoc_data" / "topics.py"]
    paths = [p for p in paths if p.is_file()]
    if not paths:
        pytest.skip("no standard library sources here")
    for path in paths:
        data = path.read_bytes()
        assert content_skip_reason(data, Config()) is None
        assert parse_source(path.name, data, "python").symbols

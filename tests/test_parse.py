"""The parse engine on bad and unusual input: nothing crashes, problems are reported."""

from __future__ import annotations

import pytest

from codebot.parse.chunks import ChunkLimits
from codebot.parse.extract import module_id, parse_source


def ids(result):
    return [s.id for s in result.symbols]


def test_module_id_rule():
    assert module_id("src/pkg/mod.py") == "src.pkg.mod"
    assert module_id("pkg/__init__.py") == "pkg"
    assert module_id("cmd/server/main.go") == "cmd.server.main"
    assert module_id("lib/a.test.js") == "lib.a.test"


def test_syntax_error_keeps_valid_definitions_and_reports_the_range():
    code = b"def good(a):\n    return a\n\ndef broken(:\n    pass\n\ndef after():\n    return good(1)\n"
    r = parse_source("m.py", code, "python")
    assert "m.good" in ids(r) and "m.after" in ids(r)
    assert r.issues and all(i.path == "m.py" for i in r.issues)
    assert [i.line for i in r.issues] == [4]
    assert r.issues[0].reason.startswith(("syntax error", "missing"))
    assert [c.name for c in next(s for s in r.symbols if s.id == "m.after").calls] == ["good"]


def test_invalid_utf8_is_reported_and_still_parsed():
    code = b"def caf\xe9():\n    pass\n\ndef ok():\n    pass\n"
    r = parse_source("m.py", code, "python")
    assert "m.ok" in ids(r)
    assert any("invalid UTF-8" in i.reason for i in r.issues)


def test_bom_crlf_and_tabs_keep_line_numbers():
    code = "\ufeffimport os\r\n\r\nclass A:\r\n\tdef f(self):\r\n\t\treturn 1\r\n\ndef g():\n    pass\n"
    r = parse_source("m.py", code.encode("utf-8"), "python")
    spans = {s.id: (s.start_line, s.end_line) for s in r.symbols}
    assert spans["m.A"] == (3, 5)
    assert spans["m.A.f"] == (4, 5)
    assert spans["m.g"] == (7, 8)
    assert not r.issues


def test_empty_file_and_comment_only_file():
    assert parse_source("e.py", b"", "python").symbols == []
    r = parse_source("c.py", b"# just a note\n# and another\n", "python")
    assert [(s.kind, s.start_line, s.end_line) for s in r.symbols] == [("chunk", 1, 2)]


def test_fifty_thousand_lines():
    code = "".join(f"def f{i}(x):\n    return g(x)\n\n\n" for i in range(12_500)).encode()
    r = parse_source("big.py", code, "python")
    functions = [s for s in r.symbols if s.kind == "function"]
    assert len(functions) == 12_500
    assert functions[-1].start_line == 49_997


def test_deeply_nested_code_does_not_crash():
    depth = 400
    body = "".join("    " * i + "if x:\n" for i in range(depth)) + "    " * depth + "call()\n"
    r = parse_source(
        "deep.py",
        ("def f(x):\n" + "".join("    " + line + "\n" for line in body.splitlines())).encode(),
        "python",
    )
    assert "deep.f" in ids(r)
    nested = "x = " + "[" * 3000 + "]" * 3000 + "\n"
    r = parse_source("brackets.py", nested.encode(), "python")
    assert r.symbols and r.symbols[0].kind == "variable"
    assert r.symbols[0].signature == "x = " + "[" * 395 + "…"


def test_language_without_grammar_becomes_line_chunks():
    text = "\n".join(f"line {i}" for i in range(1, 131)) + "\n"
    r = parse_source("notes/todo.txt", text.encode(), "text", limits=ChunkLimits(max_lines=60))
    assert [(s.id, s.start_line, s.end_line) for s in r.symbols] == [
        ("notes.todo.<module>", 1, 60),
        ("notes.todo.<module>#2", 61, 120),
        ("notes.todo.<module>#3", 121, 130),
    ]
    assert all(s.kind == "chunk" and s.language == "text" for s in r.symbols)


def test_oversized_module_code_is_split_and_small_pieces_merged():
    constants = "".join(f"NAME[{i}] = {i}\n" for i in range(400))  # ~5.6 KB of loose statements
    code = f"import os\n\n{constants}\ndef f():\n    pass\n\nprint(1)\n".encode()
    r = parse_source("conf.py", code, "python", limits=ChunkLimits(max_chars=1000))
    chunks = [s for s in r.symbols if s.kind == "chunk"]
    assert len(chunks) >= 6
    body_lines = code.decode().splitlines()
    for c in chunks:
        text = "\n".join(body_lines[c.start_line - 1 : c.end_line])
        assert len(text) <= 1100
        assert "def f" not in text
    # Every line outside the function is in exactly one chunk: nothing is unsearchable.
    covered = sorted(line for c in chunks for line in range(c.start_line, c.end_line + 1))
    expected = [
        i + 1 for i, line in enumerate(body_lines) if line.strip() and not (404 <= i + 1 <= 405)
    ]
    assert [n for n in covered if body_lines[n - 1].strip()] == expected


def test_content_hash_depends_only_on_the_symbol_text():
    a = parse_source("m.py", b"def f():\n    return 1\n", "python").symbols[0]
    b = parse_source("other.py", b"\n\n# moved\ndef f():\n    return 1\n", "python").symbols
    f = next(s for s in b if s.name == "f")
    assert a.content_hash == f.content_hash
    c = parse_source("m.py", b"def f():\n    return 2\n", "python").symbols[0]
    assert c.content_hash != a.content_hash


def test_a_broken_query_is_a_bug_not_a_bad_file(tmp_path):
    from tree_sitter import QueryError

    from codebot.languages.base import LanguageSpec

    bad = tmp_path / "bad.scm"
    bad.write_text("(function_definition nme: (identifier) @name) @definition.function\n")
    spec = LanguageSpec(name="python", grammar="python", query_path=bad)
    import codebot.languages as languages

    languages._loaded["python-broken"] = spec
    try:
        with pytest.raises(QueryError):
            parse_source("m.py", b"def f():\n    pass\n", "python-broken")
    finally:
        del languages._loaded["python-broken"]

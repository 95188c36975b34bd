"""Languages: which file is in which language, and how to read its definitions.

Each supported language is a module ``codebot/languages/<name>.py`` that defines ``SPEC``, a
:class:`LanguageSpec`, next to a query file ``<name>.scm`` written for the pinned grammars of
tree-sitter-language-pack 0.13 (grammars that share node types share query files too: JavaScript,
TypeScript and TSX are built from ``ecmascript.scm``, their own file, and ``jsx.scm``). Modules are
imported on first use, so a run over a Python-only repository never loads the Swift query.

The query file uses these capture names (the engine in ``codebot.parse.extract`` knows nothing else):

``@definition.<kind>`` + ``@name``
    a symbol; ``<kind>`` is one of function, method, class, struct, interface, trait, enum, module.
    A function nested directly in a type becomes a method of it.
``@definition.constant`` / ``@definition.variable`` + ``@name``
    a name bound outside any function: at module level, or a type's static constant (Java's
    ``static final``, Ruby's ``CONSTANT``). A variable named in ALL_CAPS is a constant, unless
    captured as ``@definition.variable.mutable`` (Rust's ``static mut``). One
    inside a function's body, one that holds a definition, or one that is also an ``@import``
    makes no symbol. Its id never takes a definition's: ``f = wrap(f)`` after ``def f`` is ``f#2``.
``@scope.namespace`` + ``@name``
    a named nesting that is not a symbol (a C++ namespace, a Rust inline ``mod``): it prefixes the
    ids of what it contains.
``@scope.value`` + ``@name``
    a binding whose value may hold definitions (JavaScript's ``const api = { get() {} }``): a
    namespace when it holds one, else a ``@definition.variable``.
``@scope.type`` + ``@name``
    a nesting that adds members to a type defined elsewhere (a Rust ``impl``, a Swift
    ``extension``): it prefixes ids, and the functions directly inside it are methods of that type.
``@call``
    the callee expression of a call, recorded as written.
``@call.expr``
    a whole call whose callee has no node of its own; the ``@call`` that is its direct child is
    recorded from the start of this node (Java: ``this.repo.save``).
``@import``
    an import statement, turned into :class:`~codebot.core.model.Import` by ``SPEC.imports``.

The query runs once per file with ``captures`` (cheaper than ``matches``), so captures are paired by
position: a definition's name is the first not-yet-used ``@name`` inside it. When two patterns
capture the same node, the capture that appears first in the query wins.

Everything else (parameters, docstrings, decorators, bases…) comes from per-language hooks with
defaults in :mod:`codebot.languages.base`.
"""

from __future__ import annotations

import importlib
import os
import re

from codebot.languages.base import LanguageSpec

__all__ = ["LanguageSpec", "GRAMMAR_LANGUAGES", "language_for_path", "get_spec"]

# The languages parsed with a grammar: name -> module. Explicit, so `grep` finds them all.
GRAMMAR_LANGUAGES: dict[str, str] = {
    "python": "codebot.languages.python",
    "javascript": "codebot.languages.javascript",
    "typescript": "codebot.languages.typescript",
    "tsx": "codebot.languages.tsx",
    "go": "codebot.languages.go",
    "rust": "codebot.languages.rust",
    "java": "codebot.languages.java",
    "c": "codebot.languages.c",
    "cpp": "codebot.languages.cpp",
    "csharp": "codebot.languages.csharp",
    "ruby": "codebot.languages.ruby",
    "php": "codebot.languages.php",
    "kotlin": "codebot.languages.kotlin",
    "swift": "codebot.languages.swift",
    "scala": "codebot.languages.scala",
    "lua": "codebot.languages.lua",
    "elixir": "codebot.languages.elixir",
    "shell": "codebot.languages.bash",
    "haskell": "codebot.languages.haskell",
    "zig": "codebot.languages.zig",
}

_EXTENSIONS: dict[str, str] = {
    ".py": "python",
    ".pyi": "python",
    ".pyw": "python",
    ".js": "javascript",
    ".mjs": "javascript",
    ".cjs": "javascript",
    ".jsx": "javascript",
    ".ts": "typescript",
    ".mts": "typescript",
    ".cts": "typescript",
    ".tsx": "tsx",
    ".go": "go",
    ".rs": "rust",
    ".java": "java",
    ".c": "c",
    ".h": "c",
    ".cc": "cpp",
    ".cpp": "cpp",
    ".cxx": "cpp",
    ".c++": "cpp",
    ".hh": "cpp",
    ".hpp": "cpp",
    ".hxx": "cpp",
    ".h++": "cpp",
    ".ipp": "cpp",
    ".tpp": "cpp",
    ".cu": "cpp",
    ".cuh": "cpp",
    ".cs": "csharp",
    ".rb": "ruby",
    ".rake": "ruby",
    ".gemspec": "ruby",
    ".php": "php",
    ".kt": "kotlin",
    ".kts": "kotlin",
    ".swift": "swift",
    ".scala": "scala",
    ".sc": "scala",
    # Text without a grammar here: indexed as line chunks, under a name that tells what it is.
    ".md": "markdown",
    ".markdown": "markdown",
    ".rst": "rst",
    ".txt": "text",
    ".json": "json",
    ".yaml": "yaml",
    ".yml": "yaml",
    ".toml": "toml",
    ".ini": "ini",
    ".cfg": "ini",
    ".xml": "xml",
    ".html": "html",
    ".htm": "html",
    ".css": "css",
    ".scss": "css",
    ".sql": "sql",
    ".sh": "shell",
    ".bash": "shell",
    ".zsh": "shell",
    ".lua": "lua",
    ".r": "r",
    ".jl": "julia",
    ".ex": "elixir",
    ".exs": "elixir",
    ".erl": "erlang",
    ".hs": "haskell",
    ".ml": "ocaml",
    ".dart": "dart",
    ".zig": "zig",
    ".vue": "vue",
    ".svelte": "svelte",
    ".proto": "protobuf",
    ".gradle": "groovy",
    ".groovy": "groovy",
    ".pl": "perl",
    ".pm": "perl",
    ".m": "objc",
    ".mm": "objc",
}
_FILENAMES: dict[str, str] = {
    "Makefile": "make",
    "Dockerfile": "dockerfile",
    "Rakefile": "ruby",
    "Gemfile": "ruby",
    "CMakeLists.txt": "cmake",
    "BUILD": "starlark",
    "WORKSPACE": "starlark",
}
_SHEBANGS = {"python": "python", "node": "javascript", "ruby": "ruby", "php": "php"}


def language_for_path(path: str, head: bytes = b"") -> str:
    """The language of a file, from its name, or its shebang line when the name says nothing.

    Returns ``"text"`` for anything unrecognised: such a file is still indexed, as line chunks.
    """
    base = os.path.basename(path)
    if base in _FILENAMES:
        return _FILENAMES[base]
    ext = os.path.splitext(base)[1].lower()
    if ext == ".h" and head and _looks_like_cpp(head):
        return "cpp"
    if ext in _EXTENSIONS:
        return _EXTENSIONS[ext]
    if head.startswith(b"#!"):
        line = head.split(b"\n", 1)[0].decode("latin-1")
        for word, lang in _SHEBANGS.items():
            if word in line:
                return lang
        if "sh" in line.rsplit("/", 1)[-1]:
            return "shell"
    return "text"


# C++ written as code, not in a comment: a namespace or class opened, a template, an access
# label, a qualified name (`std::string`, `absl::StrCat`).
_CPP_CODE = re.compile(
    rb"^[ \t]*(?:namespace(?:[ \t]+\w+(?:::\w+)*)?[ \t]*\{|template[ \t]*<|class[ \t]+\w+"
    rb"[^;()\n]*\{|(?:public|private|protected)[ \t]*:(?!:))|^[^/*\n]*\b\w+::~?\w",
    re.M,
)


def _looks_like_cpp(head: bytes) -> bool:
    # A .h file is C unless it plainly uses C++ constructs; the C++ grammar parses C well anyway.
    return _CPP_CODE.search(head) is not None


_loaded: dict[str, LanguageSpec] = {}


def get_spec(language: str) -> LanguageSpec | None:
    """The spec of a language parsed with a grammar, or None for a text-only language."""
    spec = _loaded.get(language)
    if spec is None and language in GRAMMAR_LANGUAGES:
        spec = importlib.import_module(GRAMMAR_LANGUAGES[language]).SPEC
        _loaded[language] = spec
    return spec

"""What a query says about the answer it wants, read before ranking: the definition a qualified
name names (``Group.invoke``, ``flask/app.py:Flask.run``, ``app.Flask``, ``Sinatra::Base``),
whether it asks for tests or documentation, and the words a file's path may share with it.

:class:`~codebot.query.search.Searcher` turns these into ranking signals; each is measured on
its own in ``benchmarks/rank_ablation.py``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from codebot.index.text import STOPWORDS, split_identifier

__all__ = [
    "QualifiedName",
    "asks_for_docs",
    "asks_for_tests",
    "code_tokens",
    "path_keywords",
    "path_match_ratio",
    "qualified_name",
]

# Separators of a qualified name across languages: Python/Java/Go/JS ".", Ruby/Rust/C++ "::",
# PHP "\" and "->", Java docs "#".
_SEPARATORS = re.compile(r"::|->|\\|\.|#")
_IDENT = re.compile(r"[A-Za-z_$][\w$]*")
# The name itself may also be a Ruby predicate or bang method (``empty?``, ``compile!``), a
# setter (``name=``) or an operator (``<=>``, ``[]``).
_LAST = re.compile(r"[A-Za-z_$][\w$]*[?!=]?|[^\w\s]+")
# The suffix of a symbol id that numbers a second definition of a name (``f#2``).
_DUPLICATE = re.compile(r"#\d+$")
# Source file extensions: "flask/app.py" and "app.py" are paths, "flask.app" is a module.
_EXTENSIONS = frozenset(
    "py pyi js jsx mjs cjs ts tsx go rs java c h cc cpp cxx hpp hh cs rb php kt kts swift scala "
    "hs zig lua ex exs erl clj ml mli sh dart m mm pl pm r jl vue svelte".split()
)

_DOC_WORDS = frozenset(
    "doc docs docstring docstrings documentation documented readme changelog changes history "
    "example examples tutorial tutorials guide guides markdown".split()
)
_TEST_WORDS = frozenset(
    "test tests tested testing spec specs fixture fixtures mock mocks conftest pytest".split()
)


@dataclass(frozen=True, slots=True)
class QualifiedName:
    """A name with its qualifiers: ``names`` outermost first (``("Group", "invoke")``) and the
    file it is in when the query said (``path``, as written: a suffix of the symbol's path)."""

    names: tuple[str, ...]
    path: str | None = None

    def matches(self, symbol_id: str, symbol_path: str) -> int:
        """How well a symbol fits: 2 when its id ends with the names (``...core.Group.invoke``),
        1 when the qualifiers appear in its id in order but not together (``Monolog\\Logger``
        against ``src.Monolog.Logger.Logger``), 0 when it is another symbol."""
        if self.path is not None and not _path_ends_with(symbol_path, self.path):
            return 0
        parts = _DUPLICATE.sub("", symbol_id).split(".")
        names = self.names
        if not parts or parts[-1] != names[-1]:
            return 0
        if tuple(parts[-len(names) :]) == names:
            return 2
        # The qualifiers in order among the id's earlier parts (a subsequence).
        at = 0
        for part in parts[:-1]:
            if at < len(names) - 1 and part == names[at]:
                at += 1
        return 1 if at == len(names) - 1 else 0


def _path_ends_with(path: str, suffix: str) -> bool:
    suffix = suffix.strip("/")
    return path == suffix or path.endswith("/" + suffix)


def qualified_name(query: str) -> QualifiedName | None:
    """The qualified name a query is, or None for a question or a bare name.

    ``Group.invoke``, ``click.core.Group.invoke``, ``Sinatra::Base``, ``Monolog\\Logger``,
    ``Context.invoke()``, ``flask/app.py:Flask.run`` (a path, then the name in that file) and
    ``flask.app:Flask`` (a module, then the name) are qualified; ``invoke`` is not.
    """
    q = query.strip()
    if not q or any(c.isspace() for c in q):
        return None
    q = q.removesuffix("()")
    path: str | None = None
    head, colon, rest = q.replace("::", "\0").partition(":")
    if colon:
        head, rest = head.replace("\0", "::"), rest.replace("\0", "::")
        if "/" in head or head.rpartition(".")[2].lower() in _EXTENSIONS:
            path = head
        else:
            rest = f"{head}.{rest}"
        q = rest
    if "/" in q:
        return None
    names = tuple(n for n in _SEPARATORS.split(q) if n)
    if not names or not _LAST.fullmatch(names[-1]):
        return None
    if not all(_IDENT.fullmatch(n) for n in names[:-1]):
        return None
    if len(names) < 2 and path is None:
        return None
    return QualifiedName(names, path)


def _words(query: str) -> set[str]:
    return {w.lower() for w in re.findall(r"[A-Za-z]+", query)}


def asks_for_docs(query: str) -> bool:
    """The question is about documentation, examples or the changelog themselves."""
    return not _DOC_WORDS.isdisjoint(_words(query))


def asks_for_tests(query: str) -> bool:
    """The question is about tests (where a behaviour is tested, a fixture, a mock)."""
    return not _TEST_WORDS.isdisjoint(_words(query))


def path_keywords(query: str) -> frozenset[str]:
    """The words of a question a file's name could share: lowercased, three letters or more,
    stopwords left out."""
    return frozenset(
        w
        for word in re.findall(r"[A-Za-z_][A-Za-z0-9_]*", query)
        for w in [word.lower()]
        if len(w) > 2 and w not in STOPWORDS
    )


@lru_cache(maxsize=65536)
def _path_parts(path: str) -> frozenset[str]:
    """The words of a file's name (without extension) and of its folder."""
    *dirs, name = path.split("/")
    stem = name.split(".", 1)[0]
    parts = set(split_identifier(stem))
    if dirs:
        parts.update(split_identifier(dirs[-1]))
    return frozenset(parts)


def _related(word: str, part: str) -> bool:
    """Two forms of one word: equal, or the shorter (three letters or more) begins the longer,
    or they share a stem of four letters or more that leaves at most two letters of the shorter
    (``route`` and ``routing``, ``dependency`` and ``dependencies``)."""
    if word == part:
        return True
    short, long = (word, part) if len(word) <= len(part) else (part, word)
    if len(short) < 3:
        return False
    if long.startswith(short):
        return True
    common = 0
    for a, b in zip(short, long):
        if a != b:
            break
        common += 1
    return common >= 4 and common >= len(short) - 2


@lru_cache(maxsize=65536)
def _path_stems(path: str) -> frozenset[str]:
    """The first three letters of each word of a file's name and folder."""
    return frozenset(p[:3] for p in _path_parts(path))


def path_match_ratio(
    keywords: frozenset[str], path: str, weights: dict[str, float] | None = None
) -> float:
    """The share of ``keywords`` that a file's name or folder carries (see :func:`_related`),
    each word counting its weight in ``weights`` (default: 1 each)."""
    if not keywords:
        return 0.0
    # Two forms of one word share their first three letters: most paths share none with the
    # question and are done with one set operation.
    stems = _path_stems(path)
    if all(word[:3] not in stems for word in keywords):
        return 0.0
    parts = _path_parts(path)
    n = 0.0
    for word in keywords:
        if word in parts or (
            word[:3] in stems and any(p[:3] == word[:3] and _related(word, p) for p in parts)
        ):
            n += 1.0 if weights is None else weights.get(word, 1.0)
    total = len(keywords) if weights is None else sum(weights.get(w, 1.0) for w in keywords)
    return n / total if total > 0 else 0.0


_BACKTICKS = re.compile(r"`([^`]+)`")
_TOKEN = re.compile(r"[A-Za-z_$][\w$]*")


def _written_as_code(word: str) -> bool:
    """An identifier no prose word looks like: an underscore inside it (``find_app``), a capital
    after a lower-case letter (``routePattern``, ``RoutePattern``), or both kinds of letter and
    a digit (``sha256Hash``). ``HTTP``, ``Flask`` and ``redirect`` are words."""
    core = word.strip("_$")
    if "_" in core:
        return True
    return bool(re.search(r"[a-z][A-Z]", core))


def code_tokens(query: str) -> frozenset[str]:
    """The names a question (or a commit message) writes as code, case kept: each part of a
    dotted name (``middleware.RedirectSlashes``, ``r.text``), a name called (``cancel()``), a
    name in backticks, an identifier no prose word looks like (``super_len``,
    ``reverseMethodMap``). Empty for a query that is itself one name (see ``is_symbol_like``)."""
    q = query.strip()
    if not q or not any(c.isspace() for c in q):
        return frozenset()
    found: set[str] = set()
    for quoted in _BACKTICKS.findall(q):
        found.update(_TOKEN.findall(quoted))
    for m in re.finditer(r"[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+(\(\))?", q):
        # A dotted name: ``utils.super_len``, ``Context.RoutePattern()``; not a sentence's end
        # (no letter right after the dot).
        found.update(m.group(0).removesuffix("()").split("."))
    for m in re.finditer(r"([A-Za-z_$][\w$]*)\(\)", q):
        found.add(m.group(1))
    for word in _TOKEN.findall(q):
        if _written_as_code(word):
            found.add(word)
    return frozenset(w for w in found if len(w) > 1)

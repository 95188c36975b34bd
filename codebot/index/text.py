"""Text for the two indexes: identifier-split words for BM25, a compact document for embeddings.

Tantivy's tokenizers cannot emit overlapping tokens (``HTTPServer`` -> ``http``, ``server`` and
``httpserver``), so identifiers are split here, in Python, the same way for documents and queries.
"""

from __future__ import annotations

import re

from codebot.core.model import Symbol

__all__ = [
    "STOPWORDS",
    "embedding_text",
    "is_symbol_like",
    "lexical_fields",
    "query_words",
    "split_identifier",
]

_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|[0-9]+")
# Camel-case humps, acronyms and digit runs: YOLOv11Detector -> YOLO, v, 11, Detector.
_PART = re.compile(r"[A-Z]+(?=[a-z][0-9])|[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")

# Words that carry no meaning in a question about code ("how are routes registered").
STOPWORDS = frozenset(
    "a an and are as at be by can do does for from how i in is it of on or the this to what when "
    "which who why with should would could we you my our there "
    "get gets".split()
)


def split_identifier(word: str) -> list[str]:
    """``getHTTPResponse_code`` -> ``['get', 'http', 'response', 'code']``."""
    return [p.lower() for p in _PART.findall(word)]


# word -> the tokens it stands for beyond its own lowercase pieces. Identifiers repeat endlessly
# in code, so each is split once per process.
_EXTRA: dict[str, tuple[str, ...]] = {}


def _extra(word: str) -> tuple[str, ...]:
    found = _EXTRA.get(word)
    if found is None:
        if len(_EXTRA) > 1_000_000:
            _EXTRA.clear()
        parts = split_identifier(word)
        whole = word.replace("_", "").lower()
        if len(parts) > 1 or (parts and parts[0] != whole):
            found = (whole, *parts)
        else:
            found = ()
        _EXTRA[word] = found
    return found


def words(text: str) -> list[str]:
    """Every identifier as a whole (underscores dropped) and as its parts, lowercased."""
    out: list[str] = []
    for word in _WORD.findall(text):
        extra = _extra(word)
        if extra:
            out.extend(extra)
        else:
            out.append(word.lower())
    return out


def query_words(query: str) -> list[str]:
    """The words of a query for BM25: stopwords dropped unless nothing else is left."""
    all_words = words(query)
    kept = [w for w in all_words if w not in STOPWORDS]
    return kept or all_words


def is_symbol_like(query: str) -> bool:
    """A query that names code (``parse_query``, ``Repo.open``, ``HTTPServer``), not a question."""
    q = query.strip()
    if not q or " " in q:
        return False
    return bool(re.fullmatch(r"[A-Za-z_][\w.:\\/#-]*(\(\))?", q)) and (
        "_" in q or "." in q or "::" in q or q != q.lower() or len(q) > 2
    )


def lexical_fields(symbol: Symbol, code: str) -> dict[str, str]:
    """What BM25 sees of a symbol, field by field."""
    owner = symbol.class_name or ""
    return {
        "name": " ".join(words(f"{symbol.name} {owner}")),
        "path": " ".join(words(symbol.path)),
        "doc": " ".join(words(symbol.docstring or "")) + " " + (symbol.docstring or ""),
        "code": code,
        "parts": code,
    }


def embedding_text(symbol: Symbol, code: str, max_chars: int = 1500) -> str:
    """What the embedder sees: where the symbol is, what it is called, then its code."""
    head = symbol.path
    if symbol.class_name:
        head += f" {symbol.class_name}"
    body = code if len(code) <= max_chars else code[:max_chars]
    if symbol.docstring and symbol.docstring not in body:
        body = f"{symbol.docstring}\n{body}"
    return f"{head}\n{body}"

"""BM25 over symbols with Tantivy: name, path, docstring and code as separately boosted fields.

Text arrives already split into words (see ``text.py``), so the query is only bare words and can
never be a syntax error, whatever the user typed.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

FIELDS = ("name", "path", "doc", "code", "parts")
BOOSTS = {"name": 2.0, "path": 1.5, "doc": 2.0, "code": 1.0, "parts": 0.5}
# "code" and "parts" both get the raw code: Tantivy splits it, in Rust, at punctuation (code) and
# at camel-case humps too (parts: getUserName -> get user name). Its regex has no lookahead, so
# an acronym before a word splits badly (HTTPServer -> https erver); names and docstrings, which
# matter more, are split exactly in Python (text.py).
_CAMEL = r"[A-Z]?[a-z]+|[A-Z]+|[0-9]+"
_HEAP = 64 * 1024 * 1024  # per writer; Tantivy wants at least 15 MB a thread


def _schema():
    import tantivy

    b = tantivy.SchemaBuilder()
    b.add_text_field("id", stored=True, tokenizer_name="raw")  # raw: delete-by-term needs it
    b.add_unsigned_field("row", stored=True, indexed=False)
    for name in FIELDS:
        b.add_text_field(
            name, stored=False, tokenizer_name="camel" if name == "parts" else "en_stem"
        )
    return b.build()


def _register(index) -> None:
    """Custom tokenizers live in the process, not the index: register them at every open."""
    import tantivy

    analyzer = (
        tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.regex(_CAMEL))
        .filter(tantivy.Filter.lowercase())
        .filter(tantivy.Filter.stemmer("english"))
        .build()
    )
    index.register_tokenizer("camel", analyzer)


def build_lexical(directory: Path, docs: Iterable[tuple[int, str, dict[str, str]]]) -> int:
    """Write a new index of ``(row, id, fields)`` documents into ``directory``; returns the count."""
    import tantivy

    directory.mkdir(parents=True, exist_ok=True)
    index = tantivy.Index(_schema(), path=str(directory))
    _register(index)
    writer = index.writer(heap_size=_HEAP, num_threads=2)
    count = 0
    for row, symbol_id, fields in docs:
        writer.add_document(tantivy.Document(id=symbol_id, row=row, **fields))
        count += 1
    writer.commit()
    writer.wait_merging_threads()
    return count


class LexicalIndex:
    def __init__(self, directory: Path) -> None:
        import tantivy

        self._index = tantivy.Index.open(str(directory))
        _register(self._index)
        self._searcher = self._index.searcher()

    def search(self, words: list[str], limit: int) -> list[tuple[int, float]]:
        """(row, score) of the best ``limit`` documents for these words, best first."""
        if not words:
            return []
        query = self._index.parse_query(" ".join(words), list(FIELDS), field_boosts=BOOSTS)
        hits = self._searcher.search(query, limit).hits
        return [(self._searcher.doc(addr)["row"][0], score) for score, addr in hits]

"""BM25 over symbols with Tantivy: name, path, docstring and code as separately boosted fields.

Text arrives already split into words (see ``text.py``), so the query is only bare words and can
never be a syntax error, whatever the user typed. Tantivy reports a missing or corrupt file of the
index (``meta.json``, a segment) as a ValueError: it becomes a DamagedIndex naming that file.
"""

from __future__ import annotations

import os
import re
import tempfile
from pathlib import Path

from codebot.core.errors import DamagedIndex
from codebot.index.store import link_or_copy

__all__ = [
    "LexicalIndex",
    "LexicalWriter",
]

FIELDS = ("name", "path", "doc", "code", "parts")
BOOSTS = {"name": 2.0, "path": 1.5, "doc": 2.0, "code": 1.0, "parts": 0.5}
# "code" and "parts" both get the raw code: Tantivy splits it, in Rust, at punctuation (code) and
# at camel-case humps too (parts: getUserName -> get user name). Its regex has no lookahead, so
# an acronym before a word splits badly (HTTPServer -> https erver); names and docstrings, which
# matter more, are split exactly in Python (text.py).
_CAMEL = r"[A-Z]?[a-z]+|[A-Z]+|[0-9]+"
_HEAP = 128 * 1024 * 1024  # for all its threads; Tantivy wants at least 15 MB a thread
# The file a Tantivy error names: meta.json, .managed.json, or a segment's <uuid>.<ext>.
_TANTIVY_FILE = re.compile(r"[/\"]([\w.-]+\.(?:json|fast|fieldnorm|idx|pos|store|term|del))\"")


def _schema():
    import tantivy

    b = tantivy.SchemaBuilder()
    b.add_text_field("id", stored=True, tokenizer_name="raw")  # raw: delete-by-term needs it
    b.add_unsigned_field("key", stored=True, indexed=False)  # store.symbol_key: rows move
    for name in FIELDS:
        b.add_text_field(
            name, stored=False, tokenizer_name="camel" if name == "parts" else "en_stem"
        )
    return b.build()


def _damaged(directory: Path, exc: Exception) -> DamagedIndex:
    """Tantivy's ValueError about a file of the index, as a DamagedIndex naming the file where
    Tantivy's message does (``meta.json``, a segment file), else the directory."""
    why = " ".join(str(exc).split())
    named = _TANTIVY_FILE.search(why)
    if len(why) > 300:  # Tantivy quotes a whole corrupt meta.json
        why = why[:300] + "..."
    path = directory / named.group(1) if named else directory
    return DamagedIndex(path, f"Tantivy cannot read the keyword index: {why}")


def _register(index) -> None:
    """Custom tokenizers live in the process, not the index: register them at every open."""
    import tantivy

    analyzer = (
        tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.regex(_CAMEL))
        .filter(tantivy.Filter.lowercase())
        .build()
    )
    index.register_tokenizer("camel", analyzer)


class LexicalWriter:
    """Writes a new index, or (``base``) the next version of an existing one.

    Tantivy tokenizes and indexes in its own threads, without the GIL, so documents fed while
    files are still being parsed are indexed on the other core meanwhile. An update starts from
    hard links to the base's files: Tantivy never changes a file it wrote (deletions go to new
    ``.del`` files, ``meta.json`` is replaced by a rename), so the base stays intact for the
    readers that still use it, and an update copies nothing.
    """

    def __init__(self, directory: Path, base: Path | None = None, threads: int = 1) -> None:
        import tantivy

        directory.mkdir(parents=True, exist_ok=True)
        self._tantivy = tantivy
        self._base = base
        if base is None:
            index = tantivy.Index(_schema(), path=str(directory))
        else:
            for f in base.iterdir():
                if not f.name.startswith(".tantivy-"):  # lock files belong to their directory
                    link_or_copy(f, directory / f.name)
            try:
                index = tantivy.Index.open(str(directory))
            except ValueError as exc:
                raise _damaged(base, exc) from exc
        _register(index)
        # One indexing thread while a build parses on the other core; a rewrite from stored
        # texts has both cores to itself (2 threads: 1.9 s against 2.9 s for 13k symbols).
        self._writer = index.writer(heap_size=_HEAP, num_threads=threads)
        self.count = 0

    def add(self, key: int, symbol_id: str, fields: dict[str, str]) -> None:
        self._writer.add_document(self._tantivy.Document(id=symbol_id, key=key, **fields))
        self.count += 1

    def delete(self, symbol_id: str) -> None:
        self._writer.delete_documents_by_term("id", symbol_id)

    def close(self) -> int:
        try:
            self._writer.commit()
            self._writer.wait_merging_threads()
        except ValueError as exc:
            if self._base is None:  # nothing was read: not a damaged index
                raise
            raise _damaged(self._base, exc) from exc
        return self.count


def _cannot_lock(exc: ValueError) -> bool:
    """Tantivy's answer to a directory it may not write its lock file in."""
    text = str(exc)
    return "Lockfile" in text and (
        "os error 30" in text or "os error 13" in text or "code: 30" in text or "code: 13" in text
    )


class LexicalIndex:
    def __init__(self, directory: Path) -> None:
        import tantivy

        self._directory = directory
        self._shadow: tempfile.TemporaryDirectory | None = None
        try:
            try:
                self._index = tantivy.Index.open(str(directory))
            except ValueError as exc:
                if not _cannot_lock(exc):
                    raise
                self._index = tantivy.Index.open(self._shadow_of(directory))
            _register(self._index)
            self._searcher = self._index.searcher()
        except ValueError as exc:
            raise _damaged(directory, exc) from exc

    def _shadow_of(self, directory: Path) -> str:
        """A writable directory of links to ``directory``'s files: Tantivy takes a lock file
        even to read, which a read-only index (a shared mount, a read-only disk) cannot give."""
        self._shadow = tempfile.TemporaryDirectory(prefix="codebot-lexical-")
        for f in directory.iterdir():
            if not f.name.startswith(".tantivy-"):
                os.symlink(f.resolve(), os.path.join(self._shadow.name, f.name))
        return self._shadow.name

    def __len__(self) -> int:
        return self._searcher.num_docs

    def doc_counts(self, words: list[str]) -> list[int]:
        """How many documents hold each word (in any field): the corpus's own statistics, which
        ``query.multi`` compares across indexes."""
        out = []
        for word in words:
            query = self._index.parse_query(word, list(FIELDS))
            try:
                out.append(self._searcher.search(query, 1, count=True).count)
            except ValueError as exc:
                raise _damaged(self._directory, exc) from exc
        return out

    def search(self, words: list[str], limit: int) -> list[tuple[int, float]]:
        """(key, score) of the best ``limit`` documents for these words, best first."""
        if not words:
            return []
        query = self._index.parse_query(" ".join(words), list(FIELDS), field_boosts=BOOSTS)
        try:
            hits = self._searcher.search(query, limit).hits
            return [(self._searcher.doc(addr)["key"][0], score) for score, addr in hits]
        except ValueError as exc:
            raise _damaged(self._directory, exc) from exc

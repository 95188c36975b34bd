"""Search: BM25 and vectors, fused with weighted Reciprocal Rank Fusion, then code-aware reranking.

    query ──► lexical (Tantivy) ──┐
          └─► vector (usearch) ───┴─► weighted RRF ──► rerank (name match, role, file) ──► hits
    (and when one is configured, a reranking model reorders the top N: see codebot.query.rerank)

A query that names code (``parse_query``, ``Repo.open``) leans on BM25; a question leans on the
vectors. Exact lookup by name (:meth:`Searcher.find`) bypasses ranking altogether.
"""

from __future__ import annotations

import difflib
import math
import re
from dataclasses import dataclass

from codebot.core.config import Config
from codebot.core.errors import CodebotError, NotFound, StoreError
from codebot.core.model import FUNCTION_KINDS, TYPE_KINDS, VALUE_KINDS, Symbol, is_overload_stub
from codebot.index.store import Index
from codebot.index.text import is_symbol_like, query_words, split_identifier
from codebot.query.answer import Answer, AnswerNode
from codebot.query.signals import (
    QualifiedName,
    asks_for_docs,
    asks_for_tests,
    code_tokens,
    path_keywords,
    path_match_ratio,
    qualified_name,
)

__all__ = [
    "Answer",
    "AnswerNode",
    "DEFAULT_SIGNALS",
    "Hit",
    "MODES",
    "SIGNALS",
    "Searcher",
    "is_declaration",
]

MODES = ("hybrid", "bm25", "vector")
_CANDIDATES = 100  # how deep each retriever looks before fusion
_TIE_MARGIN = 16  # vector hits read past the cut, to order the ties at it (see ranked)
_RRF_K = (
    10  # small k: the top of each list counts most (semble benchmark: 0.853 -> 0.864 with k=10)
)
# RRF weights (lexical, vector): a name leans on keywords, a question on meaning.
# With the signals below, keywords alone rank names best (semble benchmark, symbol queries:
# BM25 0.981, fusion at (2, 1) 0.979, at (1, 0.001) 0.981): the vectors only order BM25's ties
# and answer when keywords find nothing (a misspelt name).
_SYMBOL_WEIGHTS = (1.0, 0.001)
_QUESTION_WEIGHTS = (1.0, 2.0)
# A question that writes code (see signals.code_tokens): on 175 commit messages the keywords
# found the named functions (BM25 function hit@5 1.00 on messages naming them, hybrid 0.93).
_CODE_WEIGHTS = (1.0, 1.0)
_CODE_NAME_BOOST = 3.0  # a definition whose name the question writes as code (case kept)
_SAME_FILE_DECAY = 0.5
_COHERENCE_TOP = 20
_VALUE_WEIGHT = 0.5  # values: a constant answers a question less often than a function
_CHUNK_WEIGHT = 0.85  # code between definitions: searchable, but a definition answers better
_COHERENCE_BOOST = 0.1  # per further strong candidate in the same file, up to three

# Multipliers by role: a question about behaviour wants the code that implements it, not its tests.
_ROLE_WEIGHT = {
    "source": 1.0,
    "test": 0.7,
    "example": 0.75,
    "docs": 0.8,
    "config": 0.8,
    "vendor": 0.5,
    "generated": 0.5,
}

# The ranking signals on top of fusion, each measured alone on the semble benchmark
# (benchmarks/rank_ablation.py; the table is in benchmarks/RESULTS.md):
#   qualified   a qualified name (Group.invoke, flask/app.py:Flask.run) puts its definition first
#   impl_first  implementation before @overload stubs, .pyi/.d.ts declarations and tests
#   docs        documentation, examples and changelogs demoted unless the question asks for them
#   paths       a question's words in a file's name or folder lift that file's candidates
#   files       a file's summed candidate score lifts its best candidate (the hub file)
#   centrality  (not on by default: it lowered the benchmark) for questions, the call graph's
#               PageRank lifts central definitions
#   declarations  a declaration (an interface's method spec, an abstract method, a bodiless
#               interface member) weighs half, and never ranks above an implementation of its name
#   focus       for a question, a file holding most of the strong candidates' score keeps more
#               of its members (the same-file decay weakens with the file's share)
#   tokens      a question (a commit message) that writes names as code (``super_len``,
#               ``Context.RoutePattern()``, ``reverseMethodMap``): those names' definitions
#               count more, and keywords weigh as much as the vectors in fusion
#   values      for a question, a constant or a variable weighs less than code that runs
#   members     for a question, a class never ranks above its own method among the strong
#               candidates: the method does what is asked, the class only holds it
SIGNALS = (
    "qualified",
    "impl_first",
    "docs",
    "paths",
    "files",
    "centrality",
    "declarations",
    "focus",
    "tokens",
    "values",
    "members",
)
DEFAULT_SIGNALS = frozenset(SIGNALS) - {"centrality", "members", "focus", "values"}
_BARE_NAME = re.compile(r"[A-Za-z_$][\w$]*")
_STUB_WEIGHT = 0.5  # an @overload signature or a declaration file: the implementation answers
_DEMOTED_WEIGHT = 0.3  # tests for a question not about tests; docs for one not about docs
_PATH_BOOST = 1.0  # times the best fused score, times the share of the question's words matched
_PATH_MIN_RATIO = 0.1
# A question's word counts toward a file's name by how rare it is in the index's text (its
# inverse document frequency, to this power; 0: every word alike). "requests" in a question
# about chi's throttle middleware is in every file and says little; "throttle" says where.
_PATH_IDF = 1.0
_FILE_BOOST = 0.3  # times the best score, times the file's share of the best file's sum
_FILE_TOP = 40  # the file sums count this many best candidates (in a small index, all would be)
_CENTRALITY_BOOST = 0.3
# A name several definitions answer equally (phoenix's `Channel`: `Phoenix.Channel` and the mix
# task `Mix.Tasks.Phx.Gen.Channel`) puts the one nested least deep in its file first (1), not the
# one the retrievers happened to score higher (0).
_SHALLOW_FIRST = 1


@dataclass(frozen=True, slots=True)
class Hit:
    symbol: Symbol
    score: float
    code: str | None = None
    why: str = "hit"  # hit, neighbour or bridge (see answer.WHY): how the graph stage found it

    # The fields tools read most, at the top level (evaluate and render use these).
    @property
    def id(self) -> str:
        return self.symbol.id

    @property
    def path(self) -> str:
        return self.symbol.path

    @property
    def start_line(self) -> int:
        return self.symbol.start_line

    @property
    def end_line(self) -> int:
        return self.symbol.end_line

    def to_dict(self) -> dict:
        s = self.symbol
        out = {**s.ref(), "score": round(self.score, 6)}
        if s.signature:
            out["signature"] = s.signature
        if self.code is not None:
            out["code"] = self.code
        return out


class Searcher:
    """Answers queries over one index. Retrievers and the embedder load on first use."""

    def __init__(
        self,
        index: Index,
        config: Config | None = None,
        embedder=None,
        signals: frozenset[str] | None = None,
    ) -> None:
        """``signals``: the ranking signals to apply (default: :data:`DEFAULT_SIGNALS`; the
        ablation benchmark switches each of :data:`SIGNALS` on and off)."""
        self.index = index
        self.config = config or Config()
        self._embedder = embedder
        self.signals = DEFAULT_SIGNALS if signals is None else frozenset(signals)
        if unknown := self.signals - set(SIGNALS):
            raise CodebotError(f"unknown ranking signal(s): {', '.join(sorted(unknown))}")
        self._lexical = None
        self._vectors = None
        self._reranking = None
        self._doc_counts: dict[str, int] = {}  # word -> documents holding it (see _rarity)

    # --- retrievers -------------------------------------------------------------------------------

    @property
    def has_vectors(self) -> bool:
        return self.index.manifest.embedder is not None

    def mode_note(self, mode: str) -> str | None:
        """What a user asking for ``mode`` should hear when the index cannot serve it yet: its
        vectors are still being computed (see index.background), so the answer is keywords
        and the call graph. Hybrid ranking resumes by itself once they are committed."""
        if mode == "bm25" or not self.index.manifest.vectors_pending:
            return None
        return (
            "codebot: vectors are still being computed (codebot status): answered with keywords "
            "and the call graph (bm25); hybrid ranking starts once they are in"
        )

    def _lexical_index(self):
        if self._lexical is None:
            from codebot.index.lexical import LexicalIndex

            self._lexical = LexicalIndex(self.index.gen_dir / "lexical")
        return self._lexical

    def _vector_index(self):
        if self._vectors is None:
            from codebot.index.vector import EXACT_FILE, VectorIndex

            manifest = self.index.manifest
            self._vectors = VectorIndex(
                self.index.gen_dir / "vectors.usearch",
                manifest.vectors_behind,
                exact=EXACT_FILE in manifest.checksums,
            )
        return self._vectors

    def embedder(self):
        """The embedder the index was built with; refuses to mix in vectors of another model."""
        if self._embedder is None:
            from codebot.index.embedding import load_recorded

            self._embedder = load_recorded(self.index.manifest.embedder, self.config)
        return self._embedder

    # --- search -----------------------------------------------------------------------------------

    def search(
        self, query: str, k: int = 10, mode: str = "hybrid", with_code: bool = False
    ) -> list[Hit]:
        """The ``k`` best symbols for ``query``. Any text is a valid query."""
        symbols = self.index.symbols
        hits = [Hit(symbols[row], score) for row, score in self.ranked(query, mode)[:k]]
        return self._with_code(hits) if with_code else hits

    def answer(
        self,
        query: str,
        k: int = 10,
        mode: str = "hybrid",
        graph: bool = True,
        seeds: int = 8,
        with_code: bool = False,
    ) -> Answer:
        """The flat ranked list and, with ``graph``, the call trees that connect the best hits.

        ``seeds`` is how many of the top hits the graph stage starts from. Without ``graph`` (or
        for an index without a call graph) this is :meth:`search` wrapped in an :class:`Answer`.
        """
        ranked = self.ranked(query, mode)
        symbols = self.index.symbols
        code_graph = None
        if graph:
            try:
                code_graph = self.index.graph
            except StoreError:  # an index from before the graph: still answer, flat
                code_graph = None
        if code_graph is None:
            hits = [Hit(symbols[row], score) for row, score in ranked[:k]]
            return Answer(query, self._with_code(hits) if with_code else hits)
        from codebot.query.graph_stage import graph_stage

        staged = graph_stage(
            self.index, code_graph, query, ranked, k, seeds, lambda q: self.ranked(q, mode)
        )
        flat = staged.flat
        if "qualified" in self.signals and (named := self._named_rows(query, {})):
            # The graph's evidence reorders hits, never ahead of the definition a name names.
            order = {row: i for i, (row, _) in enumerate(ranked)}
            pinned = sorted((r for r in named if r in order), key=order.__getitem__)[:k]
            top = max((score for _, score, _ in flat), default=1.0)
            head = [
                (row, top * (1.0 + 0.01 * (len(pinned) - i)), "hit") for i, row in enumerate(pinned)
            ]
            chosen = set(pinned)
            flat = (head + [item for item in flat if item[0] not in chosen])[:k]
        hits = [Hit(symbols[row], score, why=why) for row, score, why in flat]
        return Answer(query, self._with_code(hits) if with_code else hits, staged.trees)

    def _with_code(self, hits: list[Hit]) -> list[Hit]:
        return [Hit(h.symbol, h.score, self.index.code(h.symbol), h.why) for h in hits]

    def ranked(self, query: str, mode: str = "hybrid") -> list[tuple[int, float]]:
        """Every candidate row for ``query`` with its final score, best first (before the cut)."""
        if mode not in MODES:
            raise CodebotError(f"unknown search mode {mode!r}; choose one of {', '.join(MODES)}")
        if mode == "vector" and self.index.manifest.vectors_pending:
            raise CodebotError(
                "this index's vectors are still being computed (codebot status shows how far); "
                "search with --mode bm25 or hybrid meanwhile, or finish them with: codebot embed"
            )
        if mode == "vector" and not self.has_vectors:
            raise CodebotError("this index has no vectors (built with --embedder none)")
        symbol_like = is_symbol_like(query)
        weights = _SYMBOL_WEIGHTS if symbol_like else _QUESTION_WEIGHTS
        if not symbol_like and "tokens" in self.signals and self._written_names(query):
            weights = _CODE_WEIGHTS  # a question that writes code: its names are keywords
        rankings: list[tuple[float, list[tuple[int, float]]]] = []
        if mode in ("hybrid", "bm25"):
            lexical = self._lexical_index().search(query_words(query), _CANDIDATES)
            rankings.append((weights[0], self._by_row(lexical)))
        if mode in ("hybrid", "vector") and self.has_vectors:
            vector = self.embedder().embed_queries([query])[0]
            # Vectors at an equal distance come back in no fixed order: read a little deeper
            # than the cut so that the ties at it are ordered by row, in an updated index as
            # in a fresh build.
            nearest = self._nearest(vector)
            rankings.append(
                (
                    weights[1],
                    self._by_row(nearest)[:_CANDIDATES],
                )
            )
        fused: dict[int, float] = {}
        for weight, ranking in rankings:
            for rank, (row, _) in enumerate(ranking):
                fused[row] = fused.get(row, 0.0) + weight / (_RRF_K + rank + 1)
        ranked = self._rerank(query, fused, symbol_like, lexical=mode != "vector")
        if self.config.reranker != "none":  # a model reorders the top (see codebot.query.rerank)
            ranked = self.reranking().apply(query, ranked)
        return ranked

    def evidence(self, query: str, mode: str = "hybrid") -> dict[str, float]:
        """What the index's own statistics say about ``query``, before any ranking: ``words``,
        how much of the corpus is about the query's words (the sum over them of
        log(1 + 1000 * documents holding the word / documents)), and, with vectors, ``cosine``,
        the best cosine similarity. ``query.multi`` compares them across indexes."""
        out: dict[str, float] = {}
        if mode in ("hybrid", "bm25"):
            lexical = self._lexical_index()
            docs = max(len(lexical), 1)
            counts = lexical.doc_counts(sorted(set(query_words(query))))
            out["words"] = sum(math.log1p(1000 * n / docs) for n in counts)
        if mode in ("hybrid", "vector") and self.has_vectors:
            vector = self.embedder().embed_queries([query])[0]
            top = self._vector_index().search(vector, 1)
            out["cosine"] = float(top[0][1]) if top else 0.0
        return out

    def _nearest(self, vector) -> list[tuple[int, float]]:
        """The vector hits down to the cut and past every tie at it: read deeper while the last
        hit read still ties with the one at the cut (vectors that share no word with the query
        all tie at one similarity under a hashing embedder)."""
        index = self._vector_index()
        limit = _CANDIDATES + _TIE_MARGIN
        nearest = index.search(vector, limit)
        while (
            len(nearest) == limit
            and len(nearest) > _CANDIDATES
            and nearest[-1][1] == nearest[_CANDIDATES - 1][1]
        ):
            limit *= 2
            nearest = index.search(vector, limit)
        return nearest

    def reranking(self):
        """The configured reranking stage (loaded once); its ``notes`` say when it was skipped."""
        if self._reranking is None:
            from codebot.query.rerank import RerankStage

            self._reranking = RerankStage.from_config(self.index, self.config)
        return self._reranking

    def _by_row(self, hits: list[tuple[int, float]]) -> list[tuple[int, float]]:
        """Retriever hits (symbol key, score) as (row, score), best first, equal scores in row
        order: an index updated in place and one built afresh then rank alike."""
        rows = self.index.rows_of_keys([key for key, _ in hits])
        out = [(row, score) for row, (_, score) in zip(rows, hits) if row is not None]
        out.sort(key=lambda item: (-item[1], item[0]))
        return out

    def _rerank(
        self, query: str, fused: dict[int, float], symbol_like: bool, lexical: bool = True
    ) -> list[tuple[int, float]]:
        """Code-aware signals on top of fusion: the definition named in the query, the role of the
        file, and files with several strong candidates (the answer is often a file's worth).
        The signals of :data:`SIGNALS` apply when ``self.signals`` has them."""
        symbols = self.index.symbols
        made = {row: symbols[row] for row in fused}  # each candidate's Symbol, made once
        on = self.signals
        terms = {w.lower() for w in query.replace(".", " ").replace("::", " ").split()}
        parts = set(query_words(query))
        # File coherence counts only strong candidates: in a small index every symbol is a
        # candidate, and big files would win for being big.
        per_file: dict[str, int] = {}
        for row in sorted(fused, key=fused.__getitem__, reverse=True)[:_COHERENCE_TOP]:
            per_file[made[row].path] = per_file.get(made[row].path, 0) + 1
        top = max(fused.values(), default=0.0)
        written = self._written_names(query) if "tokens" in on and not symbol_like else set()
        values = "values" in on and not symbol_like
        tests_asked = "impl_first" in on and asks_for_tests(query)
        docs_asked = "docs" in on and asks_for_docs(query)
        keywords = path_keywords(query) if "paths" in on and not symbol_like else frozenset()
        # path -> the share of the question's words its name carries
        ratios = self._path_ratios(keywords, {s.path for s in made.values()}) if keywords else {}
        central = self._centrality(fused) if "centrality" in on and not symbol_like else {}
        scored: dict[int, float] = {}
        weights: dict[int, float] = {}
        for row, score in fused.items():
            s = made[row]
            name = s.name.lower()
            if (
                name in terms
                or query.strip().endswith(s.id)
                or (s.class_name and f"{s.class_name}.{s.name}".lower() in terms)
            ):
                score *= 3.0 if symbol_like else _CODE_NAME_BOOST if s.name in written else 1.5
            elif parts and set(split_identifier(s.name)) <= parts and len(name) > 3:
                score *= 1.3
            if s.kind == "chunk":
                score *= _CHUNK_WEIGHT
            elif values and s.kind in VALUE_KINDS:
                score *= _VALUE_WEIGHT
            score *= 1.0 + _COHERENCE_BOOST * min(max(per_file.get(s.path, 0) - 1, 0), 3)
            if central:
                score *= 1.0 + _CENTRALITY_BOOST * central.get(row, 0.0)
            if ratios.get(s.path, 0.0) >= _PATH_MIN_RATIO:
                score += top * _PATH_BOOST * ratios[s.path]
            scored[row] = score
            weights[row] = self._role_weight(s, on, tests_asked, docs_asked)
        # The file lift sums keyword evidence: over vectors alone (``lexical`` False) a file of
        # many near-identical functions would outweigh the one function that answers.
        if "files" in on and lexical and scored:
            _lift_files(scored, made)
        final = {row: score * weights[row] for row, score in scored.items()}
        declared = self._declarations(made) if "declarations" in on else set()
        for row in declared:
            final[row] *= _STUB_WEIGHT
        if "members" in on and not symbol_like:
            _members_above_classes(final, made, fused)
        out = list(final.items())
        out.sort(key=lambda item: (-item[1], item[0]))
        # Spread the answer over files: each further hit from a file already listed counts half.
        # A flat top-10 of one file's helpers hides the other files the question touches
        # (measured on the semble benchmark, BM25 only: NDCG@10 0.763 -> 0.813). A class does
        # not use up its file: the method the question is about may come right after it.
        decay = _file_decays(out, made) if "focus" in on and not symbol_like else {}
        seen: dict[str, int] = {}
        spread = []
        for row, score in out:
            s = made[row]
            n = seen.get(s.path, 0)
            if s.kind not in TYPE_KINDS:
                seen[s.path] = n + 1
            spread.append((row, score * decay.get(s.path, _SAME_FILE_DECAY) ** n))
        if declared:
            _declarations_below(spread, made, declared)
        spread.sort(key=lambda item: (-item[1], item[0]))
        if "qualified" in on:
            spread = self._qualified_first(query, spread, fused)
        return spread

    @staticmethod
    def _role_weight(s: Symbol, on: frozenset[str], tests_asked: bool, docs_asked: bool) -> float:
        """What a symbol's role and form are worth to a question about code."""
        weight = _ROLE_WEIGHT.get(s.role, 1.0)
        if "impl_first" in on:
            if s.role == "test":
                weight = 1.0 if tests_asked else _DEMOTED_WEIGHT
            if is_overload_stub(s) or s.path.endswith((".pyi", ".d.ts")):
                weight *= _STUB_WEIGHT
        if "docs" in on and s.role in ("docs", "example"):
            weight = 1.0 if docs_asked else _DEMOTED_WEIGHT
        return weight

    def _path_ratios(self, keywords: frozenset[str], paths: set[str]) -> dict[str, float]:
        """Per candidate file, the share of the question's words its name or folder carries,
        each word weighted by its rarity (:meth:`_rarity`); the rarity is read only when some
        file carries a word at all."""
        plain = {path: path_match_ratio(keywords, path) for path in paths}
        if not _PATH_IDF or not any(plain.values()):
            return plain
        rarity = self._rarity(keywords)
        if rarity is None:
            return plain
        return {
            path: path_match_ratio(keywords, path, rarity) if ratio else 0.0
            for path, ratio in plain.items()
        }

    def _rarity(self, words: frozenset[str]) -> dict[str, float] | None:
        """Each word's inverse document frequency in the keyword index (to the power
        :data:`_PATH_IDF`), counted once per word for this searcher; None without a keyword
        index."""
        cache = self._doc_counts
        try:
            lexical = self._lexical_index()
            missing = sorted(w for w in words if w not in cache)
            if missing:
                cache.update(zip(missing, lexical.doc_counts(missing)))
            docs = max(len(lexical), 1)
        except (StoreError, OSError, ValueError):
            return None
        return {w: math.log1p(docs / (1 + cache[w])) ** _PATH_IDF for w in words}

    def _written_names(self, query: str) -> set[str]:
        """The names a question writes as code (see :func:`code_tokens`) that name definitions
        of this index: ``super_len`` does, a product's name (``WebSocket``, ``tRPC``) most often
        does not."""
        by_name = self.index.by_name
        return {t for t in code_tokens(query) if t in by_name}

    def _declarations(self, made: dict[int, Symbol]) -> set[int]:
        """The candidates that declare without implementing (see :func:`is_declaration`)."""
        index = self.index
        kinds: dict[str, str | None] = {}  # parent id -> its kind
        out = set()
        for row, s in made.items():
            if s.kind != "method" or s.parent is None:
                continue
            if s.parent not in kinds:
                parent = index.by_id.get(s.parent)
                kinds[s.parent] = None if parent is None else index.symbols[parent].kind
            if is_declaration(s, kinds[s.parent]):
                out.add(row)
        return out

    def _centrality(self, fused: dict[int, float]) -> dict[int, float]:
        """Each candidate's PageRank in the call graph over the candidates'
        highest, as a square root in [0, 1]; empty for an index without a graph."""
        try:
            pagerank = self.index.graph.pagerank
        except StoreError:
            return {}
        rows = list(fused)
        if not rows or len(pagerank) != len(self.index.symbols):
            return {}
        values = pagerank[rows]
        most = float(values.max())
        if most <= 0:
            return {}
        return dict(zip(rows, ((values / most) ** 0.5).tolist()))

    def _qualified_first(
        self, query: str, ranked: list[tuple[int, float]], fused: dict[int, float]
    ) -> list[tuple[int, float]]:
        """A query that is a qualified name puts the definitions it names first, found by name
        even when neither retriever returned them: the implementation, then declarations and
        tests, each group in its fused order."""
        first = self._named_rows(query, fused)
        if not first:
            return ranked
        best = ranked[0][1] if ranked else 1.0
        chosen = set(first)
        head = [(row, best * (1.0 + 0.01 * (len(first) - i))) for i, row in enumerate(first)]
        return head + [(row, score) for row, score in ranked if row not in chosen]

    def _named_rows(self, query: str, fused: dict[int, float]) -> list[int]:
        """The rows of the definitions a query that is a qualified name names, best first
        (empty for any other query)."""
        qualified = qualified_name(query)
        if qualified is None:
            # A bare name written as code is written (``Session``, ``parse_query``: capitals or
            # an underscore, not a plain word) names its definitions, case and all.
            name = query.strip().removesuffix("()")
            if not _BARE_NAME.fullmatch(name) or name.lower() == name.replace("_", ""):
                return []
            qualified = QualifiedName((name,))
        symbols = self.index.symbols
        found = []
        for row in self.index.by_name.get(qualified.names[-1], []):
            s = symbols[row]
            if s.kind == "chunk":
                continue
            fit = qualified.matches(s.id, s.path)
            if fit:
                stub = is_overload_stub(s) or s.path.endswith((".pyi", ".d.ts"))
                # Nesting within the file: the path's depth is no measure (zod's `v3/types.ts`
                # is shallower than the `v4/classic/schemas.ts` it was replaced by).
                depth = s.id.count(".") - s.path.count("/") if _SHALLOW_FIRST else 0
                found.append(
                    (
                        -fit,
                        stub,
                        s.role != "source",
                        s.kind == "chunk",
                        depth,
                        -fused.get(row, 0.0),
                        row,
                    )
                )
        found.sort()
        return [key[-1] for key in found]

    # --- exact lookup -----------------------------------------------------------------------------

    def _overload_sets(self, found: list[Symbol]) -> list[Symbol]:
        """``found`` with every member of the overload sets it names: a name reaches the set's
        first definition (``f``); its other members are ``f#2``, ``f#3``... (Python: a set with
        ``@overload`` signatures; Java, Kotlin, C#...: methods and constructors of one name)."""
        index = self.index
        out: list[Symbol] = []
        for s in found:
            out.append(s)
            if "#" in s.id or s.kind not in FUNCTION_KINDS:
                continue
            members, n = [s], 2
            while (row := index.by_id.get(f"{s.id}#{n}")) is not None:
                members.append(index.symbols[row])
                n += 1
            if len(members) > 1 and (
                s.language != "python" or any(is_overload_stub(m) for m in members)
            ):
                out += [m for m in members[1:] if m not in found]
        return out

    def find(self, name: str) -> list[Symbol]:
        """Symbols whose id is ``name``, whose id ends with ``.name``, or whose short name is it.

        A miss raises :class:`NotFound` with the closest names as suggestions.
        """
        index = self.index
        name = name.strip()
        row = index.by_id.get(name)
        if row is not None:
            return self._overload_sets([index.symbols[row]])
        found = [index.symbols[r] for r in index.by_name.get(name, [])]
        ids = index.symbols.column("id")
        if not found and "." in name:
            suffix = "." + name
            found = [index.symbols[row] for row, sid in enumerate(ids) if sid.endswith(suffix)]
        if found:
            found = self._overload_sets(found)
            return sorted(
                found,
                key=lambda s: (s.kind == "chunk", s.kind in VALUE_KINDS, s.path, s.start_line),
            )
        kinds = index.symbols.column("kind")
        pool = list(index.by_name) + [sid for sid, kind in zip(ids, kinds) if kind != "chunk"]
        raise NotFound(name, difflib.get_close_matches(name, pool, n=5, cutoff=0.6))


def _lift_files(scored: dict[int, float], made: dict[int, Symbol]) -> None:
    """Each file's best candidate gains in proportion to the summed score of the file's best
    candidates: a subsystem's central file holds many of them (in place)."""
    sums: dict[str, float] = {}
    best: dict[str, int] = {}
    items = sorted(scored.items(), key=lambda item: (-item[1], item[0]))
    for row, score in items[:_FILE_TOP] if _FILE_TOP else items:
        path = made[row].path
        sums[path] = sums.get(path, 0.0) + score
        if path not in best:  # the items come best first
            best[path] = row
    most = max(sums.values())
    if most <= 0:
        return
    unit = items[0][1] * _FILE_BOOST
    for path, row in best.items():
        scored[row] += unit * sums[path] / most


def is_declaration(s: Symbol, parent_kind: str | None) -> bool:
    """A method that declares without implementing: an interface's method spec (Go, TypeScript,
    and a one-line bodiless member elsewhere) and an ``@abstractmethod``.
    ``parent_kind`` is the kind of the definition around ``s``."""
    if s.kind != "method":
        return False
    if parent_kind == "interface":
        if s.language in ("go", "typescript"):
            return True  # their interfaces hold no bodies
        return s.start_line == s.end_line and not s.signature.rstrip().endswith(("{", "}", "="))
    if s.language == "python":
        return any(d.split("(", 1)[0].endswith("abstractmethod") for d in s.decorators)
    return False


def _declarations_below(
    ranked: list[tuple[int, float]], made: dict[int, Symbol], declared: set[int]
) -> None:
    """Each declaration ranks just below the best implementation of its name among the
    candidates, if that is below it (in place, in the final scores): a reader wants the code
    that runs, then the contract it fulfils."""
    best: dict[str, float] = {}  # name -> the best implementation's final score
    for row, score in ranked:
        s = made[row]
        if row not in declared and s.kind in FUNCTION_KINDS and score > best.get(s.name, 0.0):
            best[s.name] = score
    for i, (row, score) in enumerate(ranked):
        implemented = best.get(made[row].name) if row in declared else None
        if implemented is not None and score >= implemented:
            ranked[i] = (row, implemented * 0.99)


def _file_decays(out: list[tuple[int, float]], made: dict[int, Symbol]) -> dict[str, float]:
    """Per file among the strong candidates, the same-file decay weakened by the file's share
    of their summed score: ``_SAME_FILE_DECAY ** (1 - share)`` (a file with every strong
    candidate keeps them all; one with a tenth of the score decays almost as before)."""
    sums: dict[str, float] = {}
    for row, score in out[:_COHERENCE_TOP]:
        path = made[row].path
        sums[path] = sums.get(path, 0.0) + score
    total = sum(sums.values())
    if total <= 0:
        return {}
    return {path: _SAME_FILE_DECAY ** (1.0 - part / total) for path, part in sums.items()}


def _members_above_classes(
    final: dict[int, float], made: dict[int, Symbol], fused: dict[int, float]
) -> None:
    """A class (a type) among the candidates whose own method is among the strong candidates
    ranks just below that method (in place): a question about what happens wants the method
    that does it before the class that holds it."""
    strong = sorted(fused, key=fused.__getitem__, reverse=True)[:_COHERENCE_TOP]
    best: dict[str, float] = {}  # class id -> its best strong method's score
    for row in strong:
        s = made[row]
        if s.parent is not None and s.kind in FUNCTION_KINDS:
            best[s.parent] = max(best.get(s.parent, 0.0), final[row])
    if not best:
        return
    for row, score in final.items():
        s = made[row]
        if s.kind in TYPE_KINDS and (member := best.get(s.id)) is not None and score >= member:
            final[row] = member * 0.99

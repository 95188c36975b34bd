"""Search over several repositories at once: one ranked list, each hit labelled by repository.

    query ─► repo A: Searcher (its own BM25 corpus, its own embedder) ─► ranked, ÷ A's best ─┐
          ├► repo B: ...                                                ─► ranked, ÷ B's best ─┼─► × confidence ─► one list
          └► evidence: each repo's share of the query's words, best cosine ─► confidence ───────┘

Scores of two indexes are not comparable raw: a fused score is a sum of reciprocal ranks times
code-aware multipliers, so every repository's best hit scores about the same whatever the query,
and a raw merge interleaves the repositories whether they answer or not. Each repository is
therefore ranked by its own searcher (fusion, signals and graph stage exactly as alone), its
scores are divided by its best one (1.0 at the top), and the lists are interleaved by that
normalised score times the repository's **confidence**: how strongly the query's own evidence
points at it, relative to the best repository (``Searcher.evidence``):

- words: how much of its corpus is about the query's words (the sum over the words of
  log(1 + 1000 * share of its symbols holding the word)). A share, not a count nor a raw BM25
  score: both grow with the corpus, and a small repository would lose every query to a big one
  (raw BM25 tried as evidence: the merge fell from 0.818 to 0.496 NDCG@10 on express + gin +
  sinatra, express being 157 symbols beside gin's 1983);
- cosine: the best cosine similarity, only when every repository that has vectors was embedded
  by one model (cosines of two models are not on one scale); otherwise the words alone.

Each evidence is divided by its maximum over the repositories, the kinds are averaged, and the
mean is raised to :data:`SHARPNESS`, so that a repository with clearly weaker evidence falls
behind the best one's top hits rather than interleaving with them. Measured on the semble
benchmark (``benchmarks/multirepo.py``, figures in ``benchmarks/RESULTS.md``).

Each repository keeps its own commit and embedder; the query is embedded once per embedder
(:class:`SharedEmbedder`). A repository whose index is missing or damaged is reported in
``skipped`` (one line each) and the others answer; only when none can answer is it an error.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from codebot.core.config import Config
from codebot.core.errors import CodebotError
from codebot.query.answer import Answer
from codebot.query.search import MODES, Hit, Searcher

__all__ = [
    "EVIDENCE",
    "MERGES",
    "SHARPNESS",
    "Member",
    "MultiAnswer",
    "MultiHit",
    "MultiSearcher",
    "SharedEmbedder",
    "confidences",
    "merge",
    "open_member",
    "open_members",
    "searcher_over",
    "shared_embedder",
]

MERGES = ("calibrated", "normalised", "raw")
SHARPNESS = 2.0  # confidence ** SHARPNESS: see the module docstring and benchmarks/RESULTS.md
EVIDENCE = ("words", "cosine")  # what Searcher.evidence reports, weighed alike


class SharedEmbedder:
    """One embedder serving every index recorded with it: a query is embedded once, whatever the
    number of repositories that share the model. Loaded on first use; ``computed`` counts the
    queries actually sent to the model."""

    def __init__(self, recorded: dict[str, Any], config: Config) -> None:
        self.recorded = recorded
        self._config = config
        self._inner: Any = None
        self._memo: dict[tuple[str, ...], Any] = {}
        self._lock = threading.RLock()
        self.computed = 0

    def _model(self) -> Any:
        with self._lock:
            if self._inner is None:
                from codebot.index.embedding import load_recorded

                self._inner = load_recorded(self.recorded, self._config)
            return self._inner

    @property
    def identity(self) -> Any:
        return self._model().identity

    def embed_documents(self, texts: Sequence[str]) -> Any:
        return self._model().embed_documents(texts)

    def embed_queries(self, texts: Sequence[str]) -> Any:
        key = tuple(texts)
        with self._lock:
            if key not in self._memo:
                if len(self._memo) >= 64:  # a server answers many queries: keep the recent ones
                    self._memo.pop(next(iter(self._memo)))
                self._memo[key] = self._model().embed_queries(list(texts))
                self.computed += len(texts)
            return self._memo[key]

    def __getattr__(self, name: str) -> Any:  # anything else a provider offers
        if name.startswith("_"):  # not this object's own state (copy, pickle...)
            raise AttributeError(name)
        return getattr(self._model(), name)


def shared_embedder(
    shared: dict[str, SharedEmbedder], recorded: dict[str, Any], config: Config
) -> tuple[str, SharedEmbedder]:
    """The model key of an index's ``recorded`` embedder and the one :class:`SharedEmbedder`
    for that model in ``shared`` (made on first need)."""
    from codebot.index.embedding import comparable

    key = repr(sorted((comparable(recorded) or {}).items()))
    return key, shared.setdefault(key, SharedEmbedder(recorded, config))


@dataclass
class Member:
    """One repository of the set: its label, where it is, and the searcher over its index (None
    when it cannot answer: ``error`` says why, in one line)."""

    name: str
    path: Path
    searcher: Searcher | None = None
    error: str | None = None
    model: str | None = None  # what makes its vectors comparable (None: no vectors)

    def describe(self) -> dict[str, Any]:
        """What the index answering for this repository describes: its commit and embedder."""
        out: dict[str, Any] = {"repo": self.name, "path": str(self.path)}
        if self.searcher is not None:
            m = self.searcher.index.manifest
            out["commit"] = m.commit
            out["embedder"] = (m.embedder or {}).get("provider")
        return out


@dataclass(frozen=True, slots=True)
class MultiHit:
    """A hit of one repository, with the score it was merged by."""

    repo: str
    hit: Hit
    score: float

    @property
    def symbol(self):
        return self.hit.symbol

    @property
    def id(self) -> str:
        return self.hit.id

    @property
    def path(self) -> str:
        return self.hit.path

    @property
    def start_line(self) -> int:
        return self.hit.start_line

    @property
    def end_line(self) -> int:
        return self.hit.end_line

    @property
    def why(self) -> str:
        return self.hit.why

    @property
    def code(self) -> str | None:
        return self.hit.code

    def to_dict(self) -> dict[str, Any]:
        out = {"repo": self.repo, **self.hit.to_dict(), "score": round(self.score, 6)}
        if self.why != "hit":  # brought in by the graph stage
            out["why"] = self.why
        return out


@dataclass
class MultiAnswer:
    """One ranked list over several repositories; the call trees stay per repository."""

    query: str
    hits: list[MultiHit]
    members: list[dict[str, Any]]  # Member.describe() of each repository that answered
    skipped: list[dict[str, str]] = field(default_factory=list)  # {"repo", "reason"}
    trees: dict[str, Answer] = field(default_factory=dict)  # repo -> its answer with trees

    def to_dict(self) -> dict[str, Any]:
        """``schemas/search-result.schema.json`` with its ``repos`` and ``skipped``."""
        return {
            "query": self.query,
            "repos": self.members,
            "skipped": self.skipped,
            "results": [h.to_dict() for h in self.hits],
        }

    def skipped_lines(self) -> list[str]:
        return [f"codebot: skipped {s['repo']}: {s['reason']}" for s in self.skipped]

    def list_lines(self, with_code: bool = False) -> list[str]:
        """The merged hits, one a line: score, repository, path:lines, kind, id (and why)."""
        width = max((len(h.repo) for h in self.hits), default=0)
        out = []
        for h in self.hits:
            s = h.symbol
            tag = "" if h.why == "hit" else f"  [{h.why}]"
            out.append(
                f"{h.score:7.4f}  {h.repo:<{width}}  {s.path}:{s.start_line}-{s.end_line}  "
                f"{s.kind:<9} {s.id}{tag}"
            )
            if with_code and h.code is not None:
                out.append("".join("    " + ln for ln in h.code.splitlines(keepends=True)).rstrip())
        return out

    def markdown_text(self) -> str:
        """For a PR description or a prompt: the merged hits as a table with their repository."""
        lines = [f"### codebot: `{self.query}`", ""]
        if not self.hits:
            return "\n".join([*lines, "_no results_"]) + "\n"
        lines += ["| # | repo | symbol | where | why | score |", "|---|---|---|---|---|---|"]
        for i, h in enumerate(self.hits, 1):
            s = h.symbol
            where = f"`{s.path}:{s.start_line}-{s.end_line}`"
            lines.append(f"| {i} | {h.repo} | `{s.id}` | {where} | {h.why} | {h.score:.4f} |")
        return "\n".join(lines) + "\n"

    def render(self, fmt: str, with_code: bool = False) -> str:
        """The answer as text: ``list`` (default), ``tree``, ``markdown`` or ``json``."""
        import json

        if fmt == "json":
            return json.dumps(self.to_dict(), indent=2, ensure_ascii=False) + "\n"
        if fmt == "markdown":
            return self.markdown_text()
        lines = self.tree_lines() if fmt == "tree" else self.list_lines(with_code)
        return "\n".join(lines) + ("\n" if lines else "")

    def tree_lines(self) -> list[str]:
        """Each repository's call trees under its name (best repository first), then the list."""
        from codebot.query.render import tree_lines

        out: list[str] = []
        order = list(dict.fromkeys(h.repo for h in self.hits))
        for repo in order:
            answer = self.trees.get(repo)
            if answer is None or not answer.trees:
                continue
            trees = tree_lines(Answer(answer.query, [], answer.trees))  # the hits: below
            out += [f"{repo}:", *("  " + ln if ln else ln for ln in trees), ""]
        if out:
            out.append("ranked:")
        return out + self.list_lines()


def confidences(
    evidence: dict[str, dict[str, float]], sharpness: float = SHARPNESS
) -> dict[str, float]:
    """Each repository's confidence in (0, 1] for one query, from its own statistics
    (``Searcher.evidence``): each kind divided by its maximum over the repositories, the kinds
    averaged, the mean raised to ``sharpness``. A kind some repository lacks (vectors) is left
    out for all; a repository with no evidence at all still ranks, last."""
    kinds = [k for k in EVIDENCE if evidence and all(k in e for e in evidence.values())]
    best = {k: max(e[k] for e in evidence.values()) for k in kinds}
    kinds = [k for k in kinds if best[k] > 0]
    out: dict[str, float] = {}
    for repo, e in evidence.items():
        mean = sum(max(e[k], 0.0) / best[k] for k in kinds) / len(kinds) if kinds else 1.0
        out[repo] = max(mean**sharpness, 1e-6)
    return out


def merge(
    ranked: dict[str, list[Hit]],
    k: int,
    how: str = "calibrated",
    confidence: dict[str, float] | None = None,
) -> list[MultiHit]:
    """The ``k`` best hits over the repositories' own rankings (each best first).

    ``raw``: by the scores as the searchers gave them (the naive merge, for comparison);
    ``normalised``: each repository's scores divided by its best, then interleaved;
    ``calibrated``: normalised, times the repository's ``confidence`` (see :func:`confidences`).
    Ties go to the repository listed first, then to the better rank.
    """
    if how not in MERGES:
        raise CodebotError(f"unknown merge {how!r}; choose one of {', '.join(MERGES)}")
    pool: list[tuple[float, int, int, MultiHit]] = []
    for order, (repo, hits) in enumerate(ranked.items()):
        if not hits:
            continue
        top = max(h.score for h in hits)
        scale = 1.0
        if how != "raw":
            scale = 1.0 / top if top > 0 else 1.0
        if how == "calibrated":
            scale *= (confidence or {}).get(repo, 1.0)
        for rank, h in enumerate(hits):
            pool.append((-(h.score * scale), order, rank, MultiHit(repo, h, h.score * scale)))
    pool.sort(key=lambda item: item[:3])
    return [item[3] for item in pool[:k]]


def _label(paths: list[Path]) -> list[str]:
    """Each repository's label: its directory name, or its path where two names collide."""
    names = [p.name or str(p) for p in paths]
    return [n if names.count(n) == 1 else str(p) for n, p in zip(names, paths)]


def open_member(
    name: str, where: str | Path, config: Config, shared: dict[str, SharedEmbedder]
) -> Member:
    """The member for the repository (or directory) ``where``, reading its index under
    ``config`` as its work tree sees it; ``error`` set when the index is missing or damaged.
    ``shared`` holds one :class:`SharedEmbedder` per model, filled as members need them."""
    from codebot.git.workspace import Workspace
    from codebot.index.overlay import open_index
    from codebot.index.store import read_manifest

    member = Member(name, Path(where).resolve())
    try:
        ws = Workspace.at(where, config.index_dir)
        recorded = read_manifest(ws.index_dir).embedder
        embedder = None
        if recorded is not None:
            member.model, embedder = shared_embedder(shared, recorded, config)
        member.searcher = Searcher(open_index(ws, config, embedder=embedder), config, embedder)
    except CodebotError as exc:
        member.error = _one_line(exc)
    return member


def open_members(paths: Sequence[str | Path], **flags: Any) -> list[Member]:
    """A member per path (labelled by its directory name), each with the settings of its own
    root and ``flags`` on top (see :func:`open_member`)."""
    from codebot.core.config import load_config
    from codebot.git.workspace import Workspace

    resolved = [Path(p).resolve() for p in paths]
    shared: dict[str, SharedEmbedder] = {}
    members = []
    for name, path in zip(_label(resolved), resolved):
        try:
            config = load_config(Workspace.at(path).root, flags)
        except CodebotError as exc:
            members.append(Member(name, path, error=_one_line(exc)))
            continue
        members.append(open_member(name, path, config, shared))
    return members


def _one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    return text if len(text) <= 300 else text[:297] + "..."


class MultiSearcher:
    """Answers queries over several repositories' indexes (see the module docstring)."""

    def __init__(self, members: list[Member], merge: str = "calibrated") -> None:
        if merge not in MERGES:
            raise CodebotError(f"unknown merge {merge!r}; choose one of {', '.join(MERGES)}")
        self.members = members
        self.how = merge

    def mode_notes(self, mode: str) -> list[str]:
        """Each repository's ``Searcher.mode_note``, labelled."""
        out = []
        for m in self.members:
            if m.searcher is not None and (note := m.searcher.mode_note(mode)):
                out.append(f"{m.name}: {note}")
        return out

    def answer(
        self,
        query: str,
        k: int = 10,
        mode: str = "hybrid",
        graph: bool = False,
        with_code: bool = False,
    ) -> MultiAnswer:
        """The ``k`` best hits over every repository that can answer, labelled by repository.

        Each repository answers as it would alone (``graph``: with its graph stage, whose trees
        are kept per repository); ``vector`` mode leaves out the repositories without vectors
        (reported in ``skipped``). Raises CodebotError when no repository could answer.
        """
        if mode not in MODES:
            raise CodebotError(f"unknown search mode {mode!r}; choose one of {', '.join(MODES)}")
        ranked: dict[str, list[Hit]] = {}
        evidence: dict[str, dict[str, float]] = {}
        trees: dict[str, Answer] = {}
        skipped = [{"repo": m.name, "reason": m.error} for m in self.members if m.error]
        answered: list[Member] = []
        for m in self.members:
            if m.searcher is None:
                continue
            try:
                if graph:
                    one = m.searcher.answer(query, k=k, mode=mode, graph=True, with_code=with_code)
                    hits, trees[m.name] = one.hits, one
                else:
                    hits = m.searcher.search(query, k=k, mode=mode, with_code=with_code)
                evidence[m.name] = m.searcher.evidence(query, mode)
            except CodebotError as exc:
                skipped.append({"repo": m.name, "reason": _one_line(exc)})
                continue
            ranked[m.name] = hits
            answered.append(m)
        if len({m.model for m in answered if m.model is not None}) > 1:
            for e in evidence.values():  # cosines of two models are not on one scale
                e.pop("cosine", None)
        if not answered:
            reasons = "; ".join(f"{s['repo']}: {s['reason']}" for s in skipped)
            raise CodebotError(f"no repository could answer: {reasons}")
        conf = confidences(evidence) if self.how == "calibrated" else None
        return MultiAnswer(
            query,
            merge(ranked, k, self.how, conf),
            [m.describe() for m in answered],
            skipped,
            trees,
        )

    def search(self, query: str, k: int = 10, mode: str = "hybrid") -> list[MultiHit]:
        """The flat merged ranking (no graph stage)."""
        return self.answer(query, k=k, mode=mode).hits


def searcher_over(
    paths: Sequence[str | Path], merge: str = "calibrated", **flags: Any
) -> MultiSearcher:
    """A :class:`MultiSearcher` over the repositories at ``paths``."""
    return MultiSearcher(open_members(paths, **flags), merge)

"""Search quality on a labelled query set: NDCG@10, Recall@5/10 and MRR@10, per category.

The metric is the one the semble benchmark publishes, so codebot's figures compare with its table:

- the targets of a query are ``relevant`` + ``secondary``, with equal (binary) weight;
- a result covers a target when its path ends with the target's path (on a ``/`` boundary) and, if
  the target has lines, the line spans overlap; a symbol-id target is covered by that exact id;
- each target counts once, at the rank of its first covering result;
- the ideal DCG has ``min(10, number of targets)`` ones.

Two query-set formats are read, told apart by their first character: codebot's JSONL (one
``{"query", "expected", "category"?}`` object a line, ``schemas/eval-queries.schema.json``) and
semble's annotation files (a JSON list of ``{query, relevant, secondary, category}``).
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Protocol

from codebot.core.errors import EvalError

__all__ = [
    "K",
    "EvalQuery",
    "EvalReport",
    "Metrics",
    "QueryResult",
    "ResultLike",
    "Target",
    "evaluate",
    "load_queries",
    "parse_target",
    "percentile",
]

K = 10  # NDCG, recall and MRR are cut here; recall is also given at 5

# File extensions that make a bare string (no "/") a path rather than a dotted symbol id:
# "Core.hs" is a file, "flask.app.Flask" is a symbol. Write {"path": ...} for anything else.
_PATH_SUFFIXES = frozenset(
    "py pyi js jsx mjs cjs ts tsx go rs java c h cc cpp cxx hpp hh cs rb php kt kts swift scala "
    "sc hs lhs zig lua ex exs erl clj ml mli sh bash zsh fish vim el r jl dart m mm pl pm sql "
    "md rst txt json toml yaml yml xml html css scss vue svelte gradle cmake mk".split()
)


class ResultLike(Protocol):
    """What ``evaluate`` needs of a search result (codebot's ``Hit`` has these and more)."""

    @property
    def id(self) -> str: ...
    @property
    def path(self) -> str: ...
    @property
    def start_line(self) -> int: ...
    @property
    def end_line(self) -> int: ...


def _norm(path: str) -> str:
    path = path.replace("\\", "/")
    return path[2:] if path.startswith("./") else path


@dataclass(frozen=True, slots=True)
class Target:
    """A file (``path``), a line range of one (``path`` + lines), or a symbol (``symbol`` id)."""

    path: str | None = None
    start_line: int | None = None
    end_line: int | None = None
    symbol: str | None = None

    def covered_by(self, r: ResultLike) -> bool:
        if self.symbol is not None:
            return r.id == self.symbol
        assert self.path is not None
        rp, tp = _norm(r.path), _norm(self.path)
        # A "/" boundary, as semble does: "app.py" must not match "myapp.py".
        if rp != tp and not rp.endswith("/" + tp):
            return False
        if self.start_line is None or self.end_line is None:
            return True
        return not (r.end_line < self.start_line or r.start_line > self.end_line)

    def to_dict(self) -> dict[str, Any]:
        if self.symbol is not None:
            return {"symbol": self.symbol}
        if self.start_line is None:
            return {"path": self.path}
        return {"path": self.path, "start_line": self.start_line, "end_line": self.end_line}

    def __str__(self) -> str:
        if self.symbol is not None:
            return self.symbol
        return (
            self.path
            if self.start_line is None
            else f"{self.path}:{self.start_line}-{self.end_line}"
        )


@dataclass(frozen=True, slots=True)
class EvalQuery:
    query: str
    relevant: tuple[Target, ...]
    secondary: tuple[Target, ...] = ()
    category: str | None = None

    @property
    def targets(self) -> tuple[Target, ...]:
        return self.relevant + self.secondary


# ---------------------------------------------------------------------------------------- loading


def parse_target(raw: Any) -> Target:
    """A target as written in a query set; raises ValueError with a short reason."""
    if isinstance(raw, str):
        if not raw.strip():
            raise ValueError("empty target")
        last = raw.rsplit("/", 1)[-1]
        suffix = last.rsplit(".", 1)[-1].lower() if "." in last else ""
        return Target(path=raw) if "/" in raw or suffix in _PATH_SUFFIXES else Target(symbol=raw)
    if not isinstance(raw, dict):
        raise ValueError(f"a target is a string or an object, not {type(raw).__name__}")
    unknown = set(raw) - {"path", "start_line", "end_line", "symbol"}
    if unknown:
        raise ValueError(f"unknown target key(s): {', '.join(sorted(unknown))}")
    if "symbol" in raw:
        if set(raw) != {"symbol"} or not isinstance(raw["symbol"], str) or not raw["symbol"]:
            raise ValueError('a symbol target is {"symbol": "<id>"} and nothing else')
        return Target(symbol=raw["symbol"])
    path, start, end = raw.get("path"), raw.get("start_line"), raw.get("end_line")
    if not isinstance(path, str) or not path:
        raise ValueError("target has no 'path'")
    if (start is None) != (end is None):
        raise ValueError("give both start_line and end_line, or neither")
    if start is not None:
        if not all(isinstance(v, int) and not isinstance(v, bool) and v >= 1 for v in (start, end)):
            raise ValueError("start_line and end_line must be integers >= 1")
        if start > end:
            raise ValueError(f"start_line {start} is after end_line {end}")
    return Target(path=path, start_line=start, end_line=end)


def _targets(raw: Any, key: str) -> tuple[Target, ...]:
    if not isinstance(raw, list):
        raise ValueError(f"'{key}' must be a list")
    out = []
    for i, item in enumerate(raw):
        try:
            out.append(parse_target(item))
        except ValueError as exc:
            raise ValueError(f"'{key}'[{i}]: {exc}") from None
    return tuple(out)


def _query(rec: Any, allowed: set[str], required: tuple[str, ...]) -> EvalQuery:
    if not isinstance(rec, dict):
        raise ValueError(f"expected an object, got {type(rec).__name__}")
    unknown = set(rec) - allowed
    if unknown:
        raise ValueError(f"unknown key(s): {', '.join(sorted(unknown))}")
    for key in required:
        if key not in rec:
            raise ValueError(f"missing '{key}'")
    query, category = rec["query"], rec.get("category")
    if not isinstance(query, str) or not query.strip():
        raise ValueError("'query' must be a non-empty string")
    if category is not None and not isinstance(category, str):
        raise ValueError("'category' must be a string")
    if "expected" in rec:
        relevant, secondary = _targets(rec["expected"], "expected"), ()
    else:
        relevant = _targets(rec["relevant"], "relevant")
        secondary = _targets(rec.get("secondary", []), "secondary")
    if not relevant + secondary:
        raise ValueError("no targets: a query needs at least one expected result")
    return EvalQuery(query, relevant, secondary, category or None)


def load_queries(path: str | Path) -> list[EvalQuery]:
    """Read a query set, JSONL or semble's JSON list; EvalError names the file and line/record."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise EvalError(f"{path}: cannot read query set: {exc}") from exc
    queries: list[EvalQuery] = []
    if text.lstrip().startswith("["):
        try:
            records = json.loads(text)
        except json.JSONDecodeError as exc:
            raise EvalError(f"{path}:{exc.lineno}: invalid JSON: {exc.msg}") from exc
        allowed = {"query", "relevant", "secondary", "category", "seed", "related"}
        for i, rec in enumerate(records):
            try:
                queries.append(_query(rec, allowed, ("query", "relevant")))
            except ValueError as exc:
                q = f" ({rec['query']!r})" if isinstance(rec, dict) and "query" in rec else ""
                raise EvalError(f"{path}: record {i}{q}: {exc}") from None
    else:
        for lineno, line in enumerate(text.splitlines(), 1):
            if not line.strip():
                continue
            try:
                rec = json.loads(line)
            except json.JSONDecodeError as exc:
                raise EvalError(f"{path}:{lineno}: invalid JSON: {exc.msg}") from exc
            try:
                queries.append(
                    _query(rec, {"query", "expected", "category"}, ("query", "expected"))
                )
            except ValueError as exc:
                raise EvalError(f"{path}:{lineno}: {exc}") from None
    if not queries:
        raise EvalError(f"{path}: no queries")
    return queries


# ---------------------------------------------------------------------------------------- metrics


def _dcg(ranks: Iterable[int]) -> float:
    return sum(1 / math.log2(r + 1) for r in ranks)


def percentile(values: Sequence[float], q: float) -> float:
    """The q-th percentile (0..100), linear between closest ranks; 0.0 for no values."""
    if not values:
        return 0.0
    s = sorted(values)
    pos = (len(s) - 1) * q / 100
    lo = math.floor(pos)
    hi = min(lo + 1, len(s) - 1)
    return s[lo] + (s[hi] - s[lo]) * (pos - lo)


@dataclass(frozen=True, slots=True)
class QueryResult:
    query: EvalQuery
    ranks: tuple[int | None, ...]  # per target: 1-based rank of its first covering result
    counted: tuple[bool, ...]  # per target: in the denominator (indexed, or found anyway)
    returned: tuple[ResultLike, ...]  # what search returned, in order
    ms: float

    @property
    def n_targets(self) -> int:
        return sum(self.counted)

    def _found(self, k: int) -> list[int]:
        return [r for r in self.ranks if r is not None and r <= k]

    @property
    def ndcg10(self) -> float:
        if not self.n_targets:
            return 0.0
        # A set: two targets first covered by the same result fill one position, as in semble.
        return _dcg(sorted(set(self._found(K)))) / _dcg(range(1, min(K, self.n_targets) + 1))

    def recall(self, k: int) -> float:
        return len(self._found(k)) / self.n_targets if self.n_targets else 0.0

    @property
    def rr10(self) -> float:
        found = self._found(K)
        return 1 / min(found) if found else 0.0

    @property
    def hit(self) -> bool:
        return bool(self._found(K))

    def to_dict(self, returned: int = K) -> dict[str, Any]:
        q = self.query
        return {
            "query": q.query,
            "category": q.category,
            "ndcg10": self.ndcg10,
            "recall5": self.recall(5),
            "recall10": self.recall(K),
            "rr10": self.rr10,
            "ms": self.ms,
            "targets": [
                {
                    **t.to_dict(),
                    "secondary": i >= len(q.relevant),
                    "rank": rank,
                    "counted": counted,
                }
                for i, (t, rank, counted) in enumerate(zip(q.targets, self.ranks, self.counted))
            ],
            "returned": [_result_dict(r) for r in self.returned[:returned]],
        }


def _result_dict(r: ResultLike) -> dict[str, Any]:
    return {"id": r.id, "path": r.path, "start_line": r.start_line, "end_line": r.end_line}


@dataclass(frozen=True, slots=True)
class Metrics:
    """Means over a group of queries; latency percentiles in milliseconds."""

    queries: int
    ndcg10: float
    recall5: float
    recall10: float
    mrr10: float
    misses: int
    p50_ms: float
    p95_ms: float

    @classmethod
    def of(cls, results: Sequence[QueryResult]) -> Metrics:
        n = len(results) or 1

        def mean(xs: Iterable[float]) -> float:
            return sum(xs) / n

        ms = [r.ms for r in results]
        return cls(
            queries=len(results),
            ndcg10=mean(r.ndcg10 for r in results),
            recall5=mean(r.recall(5) for r in results),
            recall10=mean(r.recall(K) for r in results),
            mrr10=mean(r.rr10 for r in results),
            misses=sum(not r.hit for r in results),
            p50_ms=percentile(ms, 50),
            p95_ms=percentile(ms, 95),
        )

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class EvalReport:
    results: list[QueryResult]
    overall: Metrics = field(init=False)
    by_category: dict[str, Metrics] = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "overall", Metrics.of(self.results))
        groups: dict[str, list[QueryResult]] = {}
        for r in self.results:
            if r.query.category:
                groups.setdefault(r.query.category, []).append(r)
        object.__setattr__(
            self, "by_category", {c: Metrics.of(g) for c, g in sorted(groups.items())}
        )

    @property
    def misses(self) -> list[QueryResult]:
        """Queries with no target covered in the top 10."""
        return [r for r in self.results if not r.hit]

    def to_dict(self, returned: int = K) -> dict[str, Any]:
        """The JSON form (schemas/eval-report.schema.json); ``returned`` caps results per query."""
        return {
            "k": K,
            "overall": self.overall.to_dict(),
            "by_category": {c: m.to_dict() for c, m in self.by_category.items()},
            "queries": [r.to_dict(returned) for r in self.results],
            "misses": [
                {
                    "query": r.query.query,
                    "category": r.query.category,
                    "targets": [t.to_dict() for t in r.query.targets],
                    "returned": [_result_dict(x) for x in r.returned[:3]],
                }
                for r in self.misses
            ],
        }

    def format_text(self, max_misses: int = 10) -> str:
        head = f"{'':<14} {'queries':>7} {'NDCG@10':>7} {'R@5':>5} {'R@10':>5} {'MRR@10':>6} {'misses':>6} {'p50 ms':>7} {'p95 ms':>7}"

        def row(name: str, m: Metrics) -> str:
            return (
                f"{name:<14} {m.queries:>7} {m.ndcg10:>7.3f} {m.recall5:>5.2f} {m.recall10:>5.2f} "
                f"{m.mrr10:>6.3f} {m.misses:>6} {m.p50_ms:>7.1f} {m.p95_ms:>7.1f}"
            )

        lines = [head, row("all", self.overall)]
        lines += [row(c, m) for c, m in self.by_category.items()]
        misses = self.misses
        if misses:
            lines.append(f"\nmisses ({len(misses)}, nothing expected in the top {K}):")
            for r in misses[:max_misses]:
                got = ", ".join(f"{x.path}:{x.start_line}" for x in r.returned[:3]) or "nothing"
                want = ", ".join(str(t) for t in r.query.targets)
                lines.append(f"  {r.query.query!r}\n    expected {want}\n    got      {got}")
            if len(misses) > max_misses:
                lines.append(f"  ... and {len(misses) - max_misses} more")
        return "\n".join(lines)


def evaluate(
    queries: Sequence[EvalQuery],
    search: Callable[[str], Sequence[ResultLike]],
    *,
    indexed: Callable[[Target], bool] | None = None,
) -> EvalReport:
    """Run every query through ``search`` (timed) and score what it returns.

    ``indexed`` says whether a target exists in the index at all; semble leaves targets the index
    cannot contain out of the ideal DCG and recall denominators, and so do we when it is given.
    A target that is found anyway always counts.
    """
    results = []
    for q in queries:
        started = time.perf_counter()
        returned = tuple(search(q.query))
        ms = (time.perf_counter() - started) * 1000
        ranks = tuple(
            next((i for i, r in enumerate(returned, 1) if t.covered_by(r)), None) for t in q.targets
        )
        counted = tuple(
            rank is not None or indexed is None or indexed(t) for t, rank in zip(q.targets, ranks)
        )
        results.append(QueryResult(q, ranks, counted, returned, ms))
    return EvalReport(results)

"""Token efficiency, semble's method: recall of the relevant code within N tokens of returned context.

    python benchmarks/token_efficiency.py --index-root /tmp/lead/semble-idx [--repo NAME ...]
        [--mode hybrid] [--graph] [--context] [--out benchmarks/results/token-efficiency-<date>.json]

For each annotated query the results are read in rank order and their code counted in tokens,
cumulatively; a result is "returned" at budget B when the running total, itself included, is at most
B. Recall at B is the fraction of the query's relevant targets (``relevant``, not ``secondary``)
covered by a returned result, averaged over all queries pooled (semble reports n_queries=1251 over
its repositories, one mean). semble counts with tiktoken's cl100k_base; when tiktoken is not
installed this counts with the built-in model's WordPiece tokenizer, which splits code finer (more
tokens for the same text), so our figures are, if anything, pessimistic. The counter used is in
the output. Indexes are opened from ``--index-root/<repo>`` as benchmarks/semble.py builds them.

``--context`` measures what ``codebot context --tokens B`` returns instead: the answer (``DEPTH``
hits) packed by :func:`codebot.query.context.pack_context` into B tokens, once per budget, and a
target is covered when an item of the packed text shown in full covers it, or the lines an
excerpt shows of it (a long body at first shows its signature and the lines that share words
with the question; a signature alone does not count). The packer puts code before tests and documentation and, where a body does not
fit, shows its signature and goes on to the next: the figure is what an agent reading codebot's
context gets for B tokens, text, headers and paths included.
"""

from __future__ import annotations

import argparse
import datetime
import json
import sys
import time
from pathlib import Path
from statistics import mean

from codebot.core.config import Config
from codebot.index.overlay import open_index
from codebot.query.evaluate import load_queries
from codebot.query.search import Searcher
from codebot.query.tokens import token_counter

sys.path.insert(0, str(Path(__file__).resolve().parent))

from semble import checkout_prefix  # noqa: E402

HERE = Path(__file__).resolve().parent
SEMBLE = Path("/work/shared/bench/semble")
BUDGETS = (500, 1000, 2000, 4000, 8000)
DEPTH = 100  # results read per query: far more than 8k tokens' worth


class _Located:
    """A hit with its path relative to the checkout, as annotations give paths."""

    def __init__(self, hit, prefix: str) -> None:
        self.id, self.path = hit.id, prefix + hit.path
        self.start_line, self.end_line = hit.start_line, hit.end_line


def run_repo(
    entry: dict, index_root: Path, mode: str, graph: bool, counter, context: bool = False
) -> list[list[float]]:
    """Per query, recall at each budget."""
    checkout = Path(entry["path"])
    target_dir = checkout / (entry.get("benchmark_root") or "")
    config = Config(index_dir=str(index_root / entry["name"]))
    index = open_index(target_dir, config)
    prefix = checkout_prefix(index, checkout)
    searcher = Searcher(index, config)
    out = []
    for q in load_queries(SEMBLE / "annotations" / f"{entry['name']}.json"):
        targets = q.relevant or q.targets
        answer = searcher.answer(q.query, k=DEPTH, mode=mode, graph=graph)
        if context:
            out.append(_packed_recall(index, answer, targets, prefix, counter))
            continue
        hits = answer.hits
        used, found_at = 0, {}  # target index -> tokens spent when first covered
        for h in hits:
            s = h.symbol
            # What an agent reads: the location line and the code, as `codebot context` prints.
            used += counter.count(
                f"# {s.path}:{s.start_line}-{s.end_line}\n{index.code(s, outline=True)}"
            )
            if used > BUDGETS[-1]:
                break
            r = _Located(h, prefix)
            for i, t in enumerate(targets):
                if i not in found_at and t.covered_by(r):
                    found_at[i] = used
        out.append(
            [sum(1 for v in found_at.values() if v <= b) / max(len(targets), 1) for b in BUDGETS]
        )
    return out


class _Item:
    """A packed item, located as annotations give paths."""

    def __init__(self, item: dict, prefix: str, lines: list[int] | None = None) -> None:
        self.id, self.path = item["id"], prefix + item["path"]
        self.start_line, self.end_line = lines or (item["start_line"], item["end_line"])


def _shown(item: dict, prefix: str) -> list[_Item]:
    """What a packed item shows: the whole symbol, or each stretch of lines of an excerpt."""
    if item["shown"] == "full":
        return [_Item(item, prefix)]
    if item["shown"] == "excerpt":
        return [_Item(item, prefix, r) for r in item["lines"]]
    return []


class _Memo:
    """The counter with its counts remembered: the packer counts the same sections at every
    budget (the figures are the counter's own; only the time changes)."""

    def __init__(self, counter) -> None:
        self.name, self._counter, self._seen = counter.name, counter, {}

    def count(self, text: str) -> int:
        n = self._seen.get(text)
        if n is None:
            n = self._seen[text] = self._counter.count(text)
        return n


def _packed_recall(index, answer, targets, prefix: str, counter) -> list[float]:
    """Per budget, the share of ``targets`` covered by what ``pack_context`` shows of an item:
    the whole of it, or the lines of its excerpt (a signature alone covers nothing)."""
    from codebot.query.context import pack_context

    counter = _Memo(counter)
    out = []
    for b in BUDGETS:
        packed = pack_context(index, answer, b, counter, "text")
        items = [shown for i in packed.items for shown in _shown(i, prefix)]
        covered = sum(1 for t in targets if any(t.covered_by(i) for i in items))
        out.append(covered / max(len(targets), 1))
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repos-dir", type=Path, default=Path("/work/bench-repos"))
    ap.add_argument("--index-root", type=Path, required=True, help="indexes from semble.py")
    ap.add_argument("--repo", action="append", default=[])
    ap.add_argument("--mode", default="hybrid", choices=["hybrid", "bm25", "vector"])
    ap.add_argument("--graph", action="store_true", help="rank with the graph stage on")
    ap.add_argument("--context", action="store_true", help="what `codebot context` packs")
    ap.add_argument("--out", type=Path)
    args = ap.parse_args(argv)

    entries = json.loads((args.repos_dir / "manifest.json").read_text())
    entries = [e for e in entries if (args.index_root / e["name"]).is_dir() and e.get("ok")]
    if args.repo:
        entries = [e for e in entries if e["name"] in args.repo]
    counter = token_counter()
    theirs_file = sorted((SEMBLE / "results").glob("token-efficiency-*.json"))[-1]
    theirs = json.loads(theirs_file.read_text())["recall_at_budget"]["semble"]
    how = "codebot context" if args.context else "ranked results"
    print(
        f"{len(entries)} repositories, mode {args.mode}, graph {args.graph}, {how}, {counter.name}"
    )
    started = time.perf_counter()
    rows, pooled = [], []
    for e in entries:
        per_query = run_repo(e, args.index_root, args.mode, args.graph, counter, args.context)
        pooled += per_query
        recall = [round(mean(col), 4) for col in zip(*per_query)]
        rows.append({"repo": e["name"], "queries": len(per_query), "recall": recall})
        print(f"{e['name']:<14} {len(per_query):4d}  " + "  ".join(f"{r:.3f}" for r in recall))
    ours = {str(b): round(mean(col), 4) for b, col in zip(BUDGETS, zip(*pooled))}
    print(f"\n{'budget':<8} {'codebot':>8} {'semble':>8}   ({len(pooled)} queries)")
    for b in BUDGETS:
        print(f"{b:<8} {ours[str(b)]:>8.3f} {theirs[str(b)]:>8.3f}")
    result = {
        "benchmark": "token-efficiency",
        "date": datetime.date.today().isoformat(),
        "tokenizer": counter.name,
        "semble_tokenizer": "cl100k_base",
        "mode": args.mode,
        "graph": args.graph,
        "measured": how,
        "budgets": list(BUDGETS),
        "n_queries": len(pooled),
        "recall_at_budget": {"codebot": ours, "semble": {str(b): theirs[str(b)] for b in BUDGETS}},
        "repos": rows,
        "seconds": round(time.perf_counter() - started, 1),
    }
    out = args.out or HERE / "results" / f"token-efficiency-{result['date']}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=1) + "\n")
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Counting tokens for the budgets of ``codebot context`` and ``codebot map``.

Best available counter first:

1. ``tiktoken``'s ``cl100k_base`` when importable and its encoding loads (LLM tokens, and what
   semble's token-efficiency benchmark counts with);
2. the WordPiece tokenizer shipped with the built-in embedder (``tokenizers`` is a dependency), a
   real tokenizer that splits code a little finer than cl100k, so budgets err on the safe side;
3. a documented estimate: one token per four characters, rounded up (OpenAI's rule of thumb for
   English; code averages about 3-4 characters a token, so it may undercount by a quarter).

Budgets are enforced by counting the *rendered* text with the same counter, so whatever the
counter, the output never exceeds the budget by its own measure.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache

__all__ = ["TokenCounter", "token_counter", "fit_text"]


@dataclass(frozen=True)
class TokenCounter:
    name: str  # "tiktoken:cl100k_base", "minilm-l6-v2-wordpiece" or "chars/4"
    _count: Callable[[str], int]

    def count(self, text: str) -> int:
        return self._count(text) if text else 0


def _tiktoken() -> TokenCounter | None:
    try:
        import tiktoken

        enc = tiktoken.get_encoding("cl100k_base")
    except Exception:  # not installed, or its encoding file cannot be fetched offline
        return None
    return TokenCounter("tiktoken:cl100k_base", lambda t: len(enc.encode(t, disallowed_special=())))


def _wordpiece() -> TokenCounter | None:
    try:
        from tokenizers import Tokenizer

        from codebot.embed.builtin import MODEL_DIR

        tok = Tokenizer.from_file(str(MODEL_DIR / "tokenizer.json"))
        tok.no_padding()
        tok.no_truncation()  # the embedder truncates at 128; a budget needs the whole count
    except Exception:
        return None
    return TokenCounter(
        "minilm-l6-v2-wordpiece", lambda t: len(tok.encode(t, add_special_tokens=False).ids)
    )


def _chars() -> TokenCounter:
    return TokenCounter("chars/4", lambda t: math.ceil(len(t) / 4))


@lru_cache(maxsize=4)
def token_counter(prefer: str | None = None) -> TokenCounter:
    """The best counter installed; ``prefer`` ("tiktoken", "wordpiece", "chars") forces one
    when it is available (tests and benchmarks pin it)."""
    makers = {"tiktoken": _tiktoken, "wordpiece": _wordpiece, "chars": _chars}
    order = [prefer] if prefer in makers else []
    order += [m for m in ("tiktoken", "wordpiece", "chars") if m not in order]
    for name in order:
        counter = makers[name]()
        if counter is not None:
            return counter
    return _chars()  # pragma: no cover - chars always works


def fit_text(text: str, budget: int, counter: TokenCounter) -> str:
    """The longest prefix of ``text``, cut at a line if possible, that fits ``budget`` tokens.

    The last resort of the packers: a binary search over lengths, so it holds for any counter
    (prefixes of a text never count more tokens than the text, for all three counters).
    """
    if counter.count(text) <= budget:
        return text
    lo, hi = 0, len(text)  # invariant: text[:lo] fits, text[:hi] does not
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if counter.count(text[:mid]) <= budget:
            lo = mid
        else:
            hi = mid
    cut = text[:lo]
    nl = cut.rfind("\n")
    if nl > 0 and counter.count(cut[: nl + 1]) <= budget:
        return cut[: nl + 1]  # a whole last line reads better than half of one
    return cut

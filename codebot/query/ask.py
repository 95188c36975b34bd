"""``codebot ask``: answer a question about the code with an LLM, from the code that answers it.

    question ──► search + graph stage ──► context packed to a token budget (as `codebot context`)
             ──► an OpenAI-compatible chat endpoint (streamed) ──► the answer, citing path:line
             ──► the citations checked against the context that was sent

The endpoint is any server speaking OpenAI's chat completions: OpenAI, Ollama, vLLM, LM Studio,
llama.cpp's server... (``chat_url`` is its base URL, ``chat_model`` the model; the key, if it
needs one, is read from ``$OPENAI_API_KEY`` or the variable ``chat_api_key_env`` names). Without
an endpoint nothing is sent: :class:`NoChatEndpoint` says how to configure one, after the context
that would have been sent is written, so it can still be pasted into a chat by hand.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from codebot.core.errors import NoChatEndpoint

if TYPE_CHECKING:
    from codebot.core.config import Config
    from codebot.core.services import ServiceClient
    from codebot.query.context import Packed
    from codebot.query.search import Searcher
    from codebot.query.tokens import TokenCounter

__all__ = [
    "AskResult",
    "Citation",
    "ask",
    "build_messages",
    "find_citations",
    "sources_text",
]

SYSTEM_PROMPT = """You answer questions about a codebase. You are given the question and the \
relevant code, each section headed by its file path and line range (path:start-end).
Answer from that code only; when it is not enough, say what is missing.
Cite the code you rely on as path:line (for example `src/app/models.py:42`), using the line \
numbers in the section headers. Be concise."""

# `path/to/file.ext:12` or `:12-30`; a path has a dot-extension and no spaces.
_CITATION = re.compile(r"(?<![\w/.-])((?:[\w.-]+/)*[\w.-]+\.[A-Za-z0-9]+):(\d+)(?:-(\d+))?")


@dataclass(frozen=True)
class Citation:
    path: str
    line: int
    #: The context item the line falls in (its id), or None: the model cited code it was not sent.
    symbol: str | None

    def to_dict(self) -> dict[str, Any]:
        return {"path": self.path, "line": self.line, "symbol": self.symbol}


@dataclass
class AskResult:
    question: str
    model: str | None
    answer: str
    context: Packed
    citations: list[Citation] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "question": self.question,
            "model": self.model,
            "answer": self.answer,
            "citations": [c.to_dict() for c in self.citations],
            "context": self.context.to_dict(),
        }


def build_messages(question: str, context: str) -> list[dict[str, str]]:
    return [
        {"role": "system", "content": SYSTEM_PROMPT},
        {"role": "user", "content": f"{context.rstrip()}\n\n## Question\n{question}"},
    ]


def find_citations(answer: str, items: list[dict[str, Any]]) -> list[Citation]:
    """Every ``path:line`` in the answer, once, matched to the context item it falls in.

    A path matches an item's path exactly or as a "/"-suffix of it (models shorten paths)."""
    out: list[Citation] = []
    seen: set[tuple[str, int]] = set()
    for m in _CITATION.finditer(answer):
        path, line = m.group(1), int(m.group(2))
        if (path, line) in seen:
            continue
        seen.add((path, line))
        symbol, span = None, 0
        for item in items:  # the innermost (shortest) item holding the line
            p = item["path"]
            if (p == path or p.endswith("/" + path)) and item["start_line"] <= line <= item[
                "end_line"
            ]:
                if symbol is None or (item["end_line"] - item["start_line"]) < span:
                    symbol, span = item["id"], item["end_line"] - item["start_line"]
        out.append(Citation(path, line, symbol))
    return out


def sources_text(result: AskResult) -> str:
    """The footer under an answer: what it cited, checked against the context that was sent."""
    items = {item["id"]: item for item in result.context.items}
    lines = []
    for c in result.citations:
        if c.symbol is None:
            lines.append(f"  {c.path}:{c.line}  (not in the context sent: check it)")
        else:
            item = items[c.symbol]
            lines.append(f"  {item['path']}:{item['start_line']}-{item['end_line']}  {c.symbol}")
    if lines:
        return "\n\nSources cited:\n" + "\n".join(dict.fromkeys(lines)) + "\n"
    sent = [
        f"  {i['path']}:{i['start_line']}-{i['end_line']}  {i['id']}" for i in result.context.items
    ]
    return "\n\nThe answer cites no path:line; the context held:\n" + "\n".join(sent[:10]) + "\n"


def ask(
    searcher: Searcher,
    question: str,
    config: Config,
    write: Callable[[str], None],
    counter: TokenCounter,
    budget: int | None = None,
    k: int = 10,
    dry_run: bool = False,
    transport: Any = None,
) -> AskResult:
    """Retrieve, pack, send, stream: each piece of the answer goes to ``write`` as it arrives.

    ``dry_run`` writes the messages that would be sent instead (as JSON), and sends nothing.
    Without an endpoint, writes the packed context and raises :class:`NoChatEndpoint`."""
    from codebot.query.context import pack_context

    answer = searcher.answer(question, k=k, mode="hybrid", graph=True)
    packed = pack_context(searcher.index, answer, budget or config.ask_tokens, counter)
    messages = build_messages(question, packed.text)
    if dry_run:
        write(json.dumps({"model": config.chat_model, "messages": messages}, indent=2) + "\n")
        return AskResult(question, config.chat_model, "", packed)
    if not config.chat_url or not config.chat_model:
        write(packed.text)
        raise NoChatEndpoint(
            "no chat endpoint to ask: the context above is what would have been sent. Configure "
            "an OpenAI-compatible one with chat_url and chat_model in .codebot.toml (or "
            "CODEBOT_CHAT_URL / CODEBOT_CHAT_MODEL, or --chat-url / --chat-model), e.g. "
            "chat_url = 'http://localhost:11434/v1' and chat_model = 'qwen2.5-coder:7b' for "
            "Ollama; a key is read from $OPENAI_API_KEY, or the variable chat_api_key_env names"
        )
    parts: list[str] = []
    for piece in stream_chat(config, messages, transport):
        parts.append(piece)
        write(piece)
    text = "".join(parts)
    return AskResult(question, config.chat_model, text, packed, find_citations(text, packed.items))


def stream_chat(
    config: Config, messages: list[dict[str, str]], transport: Any = None
) -> Iterator[str]:
    """The answer's text, piece by piece, from ``{chat_url}/chat/completions`` (SSE)."""
    from codebot.core.services import ServiceClient, api_key, check_url, service_settings

    assert config.chat_url and config.chat_model
    base = str(check_url(config.chat_url, "chat_url")).rstrip("/")
    service = "the chat endpoint"
    key = api_key(service, config.chat_api_key_env, "OPENAI_API_KEY", "chat_api_key_env", False)
    # Generous: a local model may read a 6,000-token prompt for a while before the first token.
    settings = service_settings(max(float(config.embed_timeout), 120.0), retries=2, concurrency=1)
    client = ServiceClient(service, key, settings, transport)
    payload = {"model": config.chat_model, "messages": messages, "stream": True, "temperature": 0.1}
    url = f"{base}/chat/completions"
    whole: list[str] = []  # a server that ignores "stream" answers with one JSON document
    try:
        for line in client.stream_lines(url, payload):
            line = line.strip()
            if not line or line.startswith(":"):
                continue
            if not line.startswith("data:"):
                whole.append(line)
                continue
            data = line[5:].strip()
            if data == "[DONE]":
                break
            piece = _delta(data, client)
            if piece:
                yield piece
        if whole:
            yield _message("".join(whole), client)
    finally:
        client.close()


def _delta(data: str, client: ServiceClient) -> str:
    try:
        event = json.loads(data)
    except ValueError as exc:
        text = client.excerpt(data, 200)
        raise client.fail(f"{client.service} sent an event that is not JSON: {text!r}") from exc
    if isinstance(event, dict) and event.get("error"):
        text = client.excerpt(str(event["error"]))
        raise client.fail(f"{client.service} reported an error: {text}")
    try:
        return event["choices"][0].get("delta", {}).get("content") or ""
    except (KeyError, IndexError, TypeError, AttributeError):
        return ""  # role-only, usage-only and keep-alive events carry no text


def _message(body: str, client: ServiceClient) -> str:
    try:
        return json.loads(body)["choices"][0]["message"]["content"] or ""
    except (ValueError, KeyError, IndexError, TypeError) as exc:
        text = client.excerpt(body, 200)
        raise client.fail(
            f"{client.service} answered neither a stream nor a chat completion: {text!r}"
        ) from exc

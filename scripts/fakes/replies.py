"""What the fake LLM answers: scripted replies and the exact bytes of their wire formats.

A `Reply` is a plain value; `sse_events` turns one into the `data:` events of an OpenAI-compatible
`chat/completions` stream (OpenRouter's flavour adds `: OPENROUTER PROCESSING` comments, a `provider`
field and `cost` in the usage chunk), and `error_body` gives the JSON body of a scripted HTTP error.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from typing import Any, Literal

Flavor = Literal["openrouter", "ollama"]
# `empty_stream`: a 200 stream closed before its first event (llama-cpp-python's answer to a prompt over its
# window); `drop`: the stream starts, then the server goes away mid-reply (the connection closes uncleanly).
ReplyKind = Literal["text", "tool_calls", "http_error", "stream_error", "empty_stream", "drop"]

ERROR_MESSAGES = {
    400: "Invalid request",
    401: "No auth credentials found",
    402: "Insufficient credits. Add more using https://openrouter.ai/credits",
    403: "Your chosen model requires moderation and your input was flagged",
    408: "Request timed out",
    429: "Rate limit exceeded: free-models-per-min. Try again later.",
    500: "Internal Server Error",
    502: "Provider returned error",
    503: "No available provider for this model",
}
DAILY_FREE_LIMIT = "Rate limit exceeded: free-models-per-day. Add 10 credits to unlock 1000 free model requests per day"
StreamErrorShape = Literal["top", "choice", "bare"]


@dataclass(frozen=True)
class ToolCall:
    name: str
    arguments: dict[str, Any]
    call_id: str = "call_1"
    raw_arguments: str | None = None  # sent instead of `arguments` as JSON (a call cut off mid-arguments)

    @property
    def arguments_text(self) -> str:
        return json.dumps(self.arguments) if self.raw_arguments is None else self.raw_arguments


@dataclass(frozen=True)
class Reply:
    """One scripted answer to one `chat/completions` request."""

    kind: ReplyKind
    content: str = ""  # the assistant text (streamed in `chunk_chars` pieces)
    tool_calls: tuple[ToolCall, ...] = ()
    status: int = 200
    message: str = ""
    retry_after: int | None = None
    delay_s: float = 0.0  # pause between content chunks (a slow stream, for Stop tests)
    chunk_chars: int = 4  # characters of text per delta
    usage: dict[str, Any] = field(default_factory=dict)
    reasoning: str = ""  # streamed first as `delta.reasoning` + `delta.reasoning_details` (see reasoning_details)
    finish: str | None = None  # the finish_reason to end with (default: "stop" or "tool_calls")
    error_shape: StreamErrorShape = "top"  # where a stream_error says so (see stream_error)
    body: dict[str, Any] | None = None  # an http_error's whole JSON body (another server's shape)

    def with_reasoning(self, reasoning: str) -> Reply:
        """The same reply, thought through first (a reasoning model, Gemini-3-like blocks)."""
        return replace(self, reasoning=reasoning)

    @staticmethod
    def text(content: str, *, delay_s: float = 0.0, chunk_chars: int = 4) -> Reply:
        return Reply("text", content=content, delay_s=delay_s, chunk_chars=chunk_chars)

    @staticmethod
    def slow(content: str = "tick " * 400, delay_s: float = 0.05) -> Reply:
        return Reply("text", content=content, delay_s=delay_s, chunk_chars=5)

    @staticmethod
    def tool_call(name: str, arguments: dict[str, Any], *, text: str = "", call_id: str = "call_1") -> Reply:
        return Reply("tool_calls", content=text, tool_calls=(ToolCall(name, arguments, call_id),))

    @staticmethod
    def tool_calls_reply(*calls: ToolCall, text: str = "") -> Reply:
        return Reply("tool_calls", content=text, tool_calls=calls)

    @staticmethod
    def error(status: int, message: str | None = None, *, retry_after: int | None = None) -> Reply:
        return Reply("http_error", status=status, message=message or ERROR_MESSAGES.get(status, "Error"),
                     retry_after=retry_after)

    @staticmethod
    def stream_error(message: str = "Provider disconnected unexpectedly", *, text: str = "Partial ",
                     shape: StreamErrorShape = "top") -> Reply:
        """A 200 stream that starts normally and then fails: `top`, OpenRouter's mid-stream error (a
        top-level `error` object with `finish_reason: "error"`); `choice`, the error object nested in the
        choice; `bare`, `finish_reason: "error"` and no error object at all."""
        return Reply("stream_error", content=text, message=message, error_shape=shape)

    @staticmethod
    def cut_off(content: str) -> Reply:
        """A reply that reached the length limit (`finish_reason: "length"`)."""
        return Reply("text", content=content, finish="length")

    @staticmethod
    def cut_call(name: str, partial_arguments: str, *, text: str = "", call_id: str = "call_1") -> Reply:
        """A reply that reached the length limit inside a call's arguments (`{"path`)."""
        call = ToolCall(name, {}, call_id, raw_arguments=partial_arguments)
        return Reply("tool_calls", content=text, tool_calls=(call,), finish="length")

    @staticmethod
    def empty_stream() -> Reply:
        """A 200 event stream that closes without a single event (llama-cpp-python over its window)."""
        return Reply("empty_stream")

    @staticmethod
    def drop(text: str = "The answer begins ", *, delay_s: float = 0.0) -> Reply:
        """Streams `text`, then the server goes away: the connection closes in the middle of the reply."""
        return Reply("drop", content=text, delay_s=delay_s)

    @staticmethod
    def overflow(asked: int, n_ctx: int) -> Reply:
        """llama-server's HTTP 400 for a prompt over its window (`exceed_context_size_error`)."""
        from .llamacpp import OVERFLOW, overflow_body

        return Reply("http_error", status=400, message=OVERFLOW.format(asked=asked, n_ctx=n_ctx),
                     body=overflow_body(asked, n_ctx))

    @staticmethod
    def filtered(content: str) -> Reply:
        """A reply stopped by the provider's content filter (`finish_reason: "content_filter"`)."""
        return Reply("text", content=content, finish="content_filter")

    @staticmethod
    def daily_quota() -> Reply:
        """OpenRouter's 429 once the day's `:free` model requests are used up."""
        return Reply.error(429, DAILY_FREE_LIMIT)


def error_body(reply: Reply) -> dict[str, Any]:
    """OpenRouter's error JSON: `{"error": {"code", "message", "metadata"?}}` (or the reply's own `body`)."""
    if reply.body is not None:
        return reply.body
    error: dict[str, Any] = {"code": reply.status, "message": reply.message}
    if reply.status == 429 and "per-day" in reply.message:
        midnight = (int(time.time()) // 86400 + 1) * 86400
        error["metadata"] = {"headers": {"X-RateLimit-Limit": "50", "X-RateLimit-Remaining": "0",
                                         "X-RateLimit-Reset": str(midnight * 1000)}, "provider_name": None}
    elif reply.status == 429:
        reset = (int(time.time()) + 60) * 1000
        error["metadata"] = {"headers": {"X-RateLimit-Limit": "20", "X-RateLimit-Remaining": "0",
                                         "X-RateLimit-Reset": str(reset)}}
    elif reply.status == 403:
        error["metadata"] = {"reasons": ["harassment"], "flagged_input": "…", "provider_name": "OpenAI",
                             "model_slug": "openai/gpt-4o-mini"}
    return {"error": error}


def split_text(text: str, size: int) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)] or [""]


class ChunkMaker:
    """Builds `chat.completion.chunk` objects for one response."""

    def __init__(self, flavor: Flavor, model: str, generation: int) -> None:
        self.flavor = flavor
        self.model = model
        self.id = f"gen-{generation:08d}" if flavor == "openrouter" else f"chatcmpl-{generation}"
        self.created = int(time.time())

    def chunk(self, delta: dict[str, Any], finish: str | None = None, **extra: Any) -> dict[str, Any]:
        choice: dict[str, Any] = {"index": 0, "delta": delta, "finish_reason": finish}
        out: dict[str, Any] = {"id": self.id, "object": "chat.completion.chunk", "created": self.created,
                               "model": self.model}
        if self.flavor == "openrouter":
            out["provider"] = "FakeProvider"
            choice["native_finish_reason"] = finish
            choice["logprobs"] = None
        else:
            out["system_fingerprint"] = "fp_ollama"
        out["choices"] = [choice]
        out.update(extra)
        return out


def usage_for(reply: Reply, flavor: Flavor, prompt_chars: int) -> dict[str, Any]:
    completion = max(1, len(reply.content) // 4) + 8 * len(reply.tool_calls)
    prompt = max(1, prompt_chars // 4)
    usage: dict[str, Any] = {"prompt_tokens": prompt, "completion_tokens": completion,
                             "total_tokens": prompt + completion}
    if flavor == "openrouter":
        usage["cost"] = round(prompt * 1.5e-7 + completion * 6e-7, 10)
        usage["prompt_tokens_details"] = {"cached_tokens": 0}
        usage["completion_tokens_details"] = {"reasoning_tokens": 0}
    usage.update(reply.usage)
    return usage


REASONING_FORMAT = "google-gemini-v1"


def reasoning_details(reply: Reply, generation: str) -> list[dict[str, Any]]:
    """The blocks a reply's reasoning becomes once merged: the text (index 0) and, when it calls a
    tool, an encrypted thought signature for the call (index 1), as OpenRouter sends Gemini 3's."""
    blocks: list[dict[str, Any]] = [
        {"type": "reasoning.text", "text": reply.reasoning, "format": REASONING_FORMAT, "index": 0}
    ]
    if reply.tool_calls:
        signature = hashlib.sha256(f"{generation}:{reply.reasoning}".encode()).hexdigest()
        blocks.append({"type": "reasoning.encrypted", "data": f"sig-{signature}", "id": reply.tool_calls[0].call_id,
                       "format": REASONING_FORMAT, "index": 1})
    return blocks


def reasoning_deltas(maker: ChunkMaker, reply: Reply) -> Iterator[dict[str, Any]]:
    """`delta.reasoning` text with its `reasoning_details` piece; the encrypted block last, in two halves."""
    for piece in split_text(reply.reasoning, 6):
        detail = {"type": "reasoning.text", "text": piece, "format": REASONING_FORMAT, "index": 0}
        yield maker.chunk({"role": "assistant", "content": "", "reasoning": piece, "reasoning_details": [detail]})
    for block in reasoning_details(reply, maker.id)[1:]:
        data = block["data"]
        yield maker.chunk({"content": "", "reasoning": None,
                           "reasoning_details": [{**block, "data": data[: len(data) // 2]}]})
        rest = {"type": block["type"], "data": data[len(data) // 2:], "format": REASONING_FORMAT,
                "index": block["index"]}
        yield maker.chunk({"content": "", "reasoning_details": [rest]})


def tool_call_deltas(maker: ChunkMaker, calls: tuple[ToolCall, ...]) -> Iterator[dict[str, Any]]:
    """A head delta per call (id, name, empty arguments), then its arguments in small fragments."""
    for index, call in enumerate(calls):
        head = {"index": index, "id": call.call_id, "type": "function",
                "function": {"name": call.name, "arguments": ""}}
        yield maker.chunk({"role": "assistant", "content": None, "tool_calls": [head]})
        for piece in split_text(call.arguments_text, 7):
            yield maker.chunk({"tool_calls": [{"index": index, "function": {"arguments": piece}}]})


def stream_chunks(reply: Reply, maker: ChunkMaker, usage: dict[str, Any] | None) -> Iterator[dict[str, Any]]:
    """The JSON objects of a stream, in order (without the final `[DONE]`)."""
    if reply.reasoning:
        yield from reasoning_deltas(maker, reply)
    if reply.content:
        first = True
        for piece in split_text(reply.content, reply.chunk_chars):
            delta = {"role": "assistant", "content": piece} if first else {"content": piece}
            first = False
            yield maker.chunk(delta)
    if reply.kind in ("empty_stream", "drop"):
        return
    if reply.kind == "stream_error":
        error = {"code": "server_error", "message": reply.message}  # OpenRouter's documented mid-stream shape
        if reply.error_shape == "top":
            yield maker.chunk({"content": ""}, "error", error=error)
        elif reply.error_shape == "choice":
            chunk = maker.chunk({"content": ""}, "error")
            chunk["choices"][0]["error"] = error
            yield chunk
        else:
            yield maker.chunk({"content": ""}, "error")
        return
    yield from tool_call_deltas(maker, reply.tool_calls)
    yield maker.chunk({}, reply.finish or ("tool_calls" if reply.tool_calls else "stop"))
    if usage is not None:
        yield maker.chunk({}, None, usage=usage) if maker.flavor == "openrouter" else {
            **maker.chunk({}), "choices": [], "usage": usage}


def ollama_lines(reply: Reply, model: str, prompt_tokens: int, think: bool) -> Iterator[dict[str, Any]]:
    """The NDJSON objects of Ollama's `/api/chat` stream: `message.thinking` (only when `think` was
    asked), `message.content` pieces, tool calls as whole objects (arguments an object), then the
    `done: true` line with `done_reason` and the token counts; a stream error is an `{"error"}` line."""
    created = "2025-10-02T14:31:05.511208Z"

    def line(message: dict[str, Any]) -> dict[str, Any]:
        return {"model": model, "created_at": created, "message": {"role": "assistant", "content": "", **message},
                "done": False}

    if reply.reasoning and think:
        for piece in split_text(reply.reasoning, 6):
            yield line({"thinking": piece})
    for piece in split_text(reply.content, reply.chunk_chars) if reply.content else []:
        yield line({"content": piece})
    if reply.kind in ("empty_stream", "drop"):
        return
    if reply.kind == "stream_error":
        yield {"error": reply.message}
        return
    if reply.tool_calls:
        yield line({"tool_calls": [{"id": c.call_id, "function": {"index": i, "name": c.name, "arguments": c.arguments}}
                                   for i, c in enumerate(reply.tool_calls)]})
    completion = max(1, len(reply.content) // 4) + 8 * len(reply.tool_calls)
    yield {"model": model, "created_at": created, "message": {"role": "assistant", "content": ""}, "done": True,
           "done_reason": reply.finish or "stop", "total_duration": 885095291, "load_duration": 3753500,
           "prompt_eval_count": prompt_tokens, "prompt_eval_duration": 328493000, "eval_count": completion,
           "eval_duration": 552222000}


def completion_json(reply: Reply, maker: ChunkMaker, usage: dict[str, Any]) -> dict[str, Any]:
    """The non-streaming `chat.completion` for a reply."""
    message: dict[str, Any] = {"role": "assistant", "content": reply.content or None}
    if reply.tool_calls:
        message["tool_calls"] = [
            {"id": c.call_id, "type": "function", "function": {"name": c.name, "arguments": c.arguments_text}}
            for c in reply.tool_calls
        ]
    finish = "tool_calls" if reply.tool_calls else "stop"
    return {"id": maker.id, "object": "chat.completion", "created": maker.created, "model": maker.model,
            "choices": [{"index": 0, "message": message, "finish_reason": finish}], "usage": usage}

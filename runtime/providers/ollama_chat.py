"""Ollama's native chat: ``POST {base}/api/chat``, streamed as NDJSON (one JSON object per line).

Unlike its OpenAI-compatible ``/v1`` endpoint, the native one takes ``options.num_ctx`` (the context
window: without it Ollama uses its own small default and silently drops the start of the prompt),
``keep_alive`` and ``think``. Each line carries ``message`` (``content``, ``thinking``, and
``tool_calls`` as whole objects with ``arguments`` as a JSON object), the last one ``done: true``
with ``done_reason`` and the token counts (``prompt_eval_count``, ``eval_count``); a failure is a
line ``{"error": "..."}``. Messages go back the same way: assistant ``thinking`` and ``tool_calls``,
tool results as ``{"role": "tool", "tool_name", "content"}``, a user's images as ``images`` (base64).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from typing import Any

from runtime.chat.arguments import wire_arguments
from runtime.chat.messages import AssistantMessage, ChatMessage, ToolCall, ToolResultMessage, UserMessage
from runtime.errors import HostHttpError, HostRequestError, ProviderError
from runtime.host.http import HttpClient
from runtime.providers.base import Finished, ReasoningDelta, StreamEvent, TextDelta, UsageReport
from runtime.providers.failures import Hints, from_host_failure, from_status, streamed_object
from runtime.providers.retry import RetryPolicy, Sleep, with_retries

KEEP_ALIVE = "30m"  # keep the model loaded between the rounds of a turn


def ollama_message(message: ChatMessage) -> dict[str, Any]:
    if isinstance(message, ToolResultMessage):
        return {"role": "tool", "tool_name": message.name, "content": message.content}
    if isinstance(message, UserMessage) and message.images:  # base64 without the data: prefix
        return {"role": "user", "content": message.content, "images": [i.data for i in message.images]}
    if not isinstance(message, AssistantMessage):
        return {"role": message.role, "content": message.content}
    wire: dict[str, Any] = {"role": "assistant", "content": message.content}
    if message.reasoning:
        wire["thinking"] = message.reasoning
    if message.tool_calls:
        wire["tool_calls"] = [
            {"id": c.id, "function": {"name": c.name, "arguments": _arguments(c.arguments)}} for c in message.tool_calls
        ]
    return wire


def _arguments(text: str) -> Any:
    """An object, as Ollama's Go decoder demands: a call's malformed or cut-off arguments go back as ``{}``
    (the call was not run, and its result says why: ``agent.unusable``)."""
    return json.loads(wire_arguments(text))


@dataclass(frozen=True)
class ChatOptions:
    num_ctx: int
    think: bool | None  # None: leave it to Ollama (a model without the thinking capability)


def build_chat_request(
    messages: Sequence[ChatMessage], tools: list[dict[str, Any]], model: str, options: ChatOptions
) -> dict[str, Any]:
    body: dict[str, Any] = {
        "model": model,
        "messages": [ollama_message(m) for m in messages],
        "stream": True,
        "options": {"num_ctx": options.num_ctx},
        "keep_alive": KEEP_ALIVE,
    }
    if tools:
        body["tools"] = tools
    if options.think is not None:
        body["think"] = options.think
    return body


class LineAccumulator:
    """Folds ``/api/chat`` lines into events; ``finish()`` gives the ``Finished``."""

    def __init__(self, hints: Hints) -> None:
        self._hints = hints
        self._text: list[str] = []
        self._thinking: list[str] = []
        self._calls: list[ToolCall] = []
        self.done_reason: str | None = None
        self.done = False

    def feed(self, line: dict[str, Any]) -> list[StreamEvent]:
        if line.get("error"):
            raise ProviderError(
                "provider_error",
                f"{self._hints.name} reported an error while answering: {line['error']}. "
                "The text so far is kept; try again, or choose another model.",
                provider=self._hints.name,
            )
        events: list[StreamEvent] = []
        raw_message = line.get("message")
        message: dict[str, Any] = raw_message if isinstance(raw_message, dict) else {}
        thinking, content = message.get("thinking"), message.get("content")
        if isinstance(thinking, str) and thinking:
            self._thinking.append(thinking)
            events.append(ReasoningDelta(thinking))
        if isinstance(content, str) and content:
            self._text.append(content)
            events.append(TextDelta(content))
        for raw in message.get("tool_calls") or []:
            function = raw.get("function") if isinstance(raw, dict) else None
            if isinstance(function, dict) and function.get("name"):
                arguments = function.get("arguments")
                text = arguments if isinstance(arguments, str) else json.dumps(arguments or {})
                call_id = str(raw.get("id") or f"call_{len(self._calls) + 1}")
                self._calls.append(ToolCall(call_id, str(function["name"]), text))
        if line.get("done"):
            self.done = True
            self.done_reason = str(line.get("done_reason") or "stop")
            prompt, completion = int(line.get("prompt_eval_count") or 0), int(line.get("eval_count") or 0)
            events.append(UsageReport(prompt, completion, prompt + completion, None))
        return events

    def finish(self) -> Finished:
        reason = "tool_calls" if self._calls and self.done_reason == "stop" else self.done_reason
        return Finished(reason, "".join(self._text), tuple(self._calls), "".join(self._thinking))


class OllamaChat:
    def __init__(
        self,
        http: HttpClient,
        url: str,
        hints: Hints,
        retry: RetryPolicy | None = None,
        sleep: Sleep = asyncio.sleep,
    ) -> None:
        self._http = http
        self.url = url
        self.hints = hints
        self._retry = retry or RetryPolicy()
        self._sleep = sleep

    def stream(
        self, messages: Sequence[ChatMessage], tools: list[dict[str, Any]], model: str, options: ChatOptions
    ) -> AsyncIterator[StreamEvent]:
        body = json.dumps(build_chat_request(messages, tools, model, options))
        return with_retries(lambda: self._once(body), self._retry, self._sleep, self.hints.name)

    async def _once(self, body: str) -> AsyncIterator[StreamEvent]:
        headers = {"Content-Type": "application/json", "Accept": "application/x-ndjson"}
        acc = LineAccumulator(self.hints)
        answering = False  # the 200 head arrived: a failure from here on is a reply dropped midway
        try:
            response = await self._http.open(
                "POST", self.url, headers=headers, body=body, auth="provider", timeout_s=300.0
            )
            if response.status != 200:
                raise from_status(response.status, await response.read(1_000_000), self.hints)
            answering = True
            pending = b""
            try:
                async for data in response.iter_bytes():
                    *lines, pending = (pending + data).split(b"\n")
                    for raw in lines:
                        if raw.strip():
                            for event in acc.feed(streamed_object(raw, self.hints, "line")):
                                yield event
                if pending.strip():
                    for event in acc.feed(streamed_object(pending, self.hints, "line")):
                        yield event
            finally:
                response.close()
        except (HostHttpError, HostRequestError) as exc:
            raise from_host_failure(exc, self.hints, after_head=answering) from exc
        if not acc.done:
            name = self.hints.name
            raise ProviderError("server", f"{name}'s answer ended before it was complete. Try again.", provider=name)
        yield acc.finish()

"""OpenAI-compatible ``chat/completions`` with SSE: request building, delta accumulation, retries.

Both OpenRouter and Ollama (``/v1``) speak this. Text deltas stream out as they come; tool-call
fragments are accumulated by ``index``; reasoning (``delta.reasoning``) streams out like text and
its structured blocks (``delta.reasoning_details``) are merged by ``index`` (``providers.reasoning``);
usage (with OpenRouter's ``cost``) arrives in the last chunk; a 200 response may still carry
``{"error": {...}}`` mid-stream.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from runtime.chat.messages import ChatMessage, ToolCall, wire_messages
from runtime.errors import HostHttpError, HostRequestError, ProviderError
from runtime.host.http import Auth, HttpClient
from runtime.providers.base import Finished, ReasoningDelta, StreamEvent, TextDelta, UsageReport
from runtime.providers.failures import Hints, from_host_failure, from_status, from_stream_error, streamed_object
from runtime.providers.overflow import empty_stream
from runtime.providers.reasoning import DetailsMerger
from runtime.providers.retry import RetryPolicy, Sleep, with_retries
from runtime.providers.sse import SSEParser

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class ChatEndpoint:
    url: str
    hints: Hints
    headers: dict[str, str] = field(default_factory=dict)
    auth: Auth = "provider"
    timeout_s: float = 300.0
    on_refusal: Callable[[int, bytes], None] | None = None  # sees a refused request's status and body first


def build_request(
    messages: Sequence[ChatMessage], tools: list[dict[str, Any]], model: str, extra: dict[str, Any] | None = None
) -> dict[str, Any]:
    body: dict[str, Any] = {
        "model": model,
        "messages": wire_messages(list(messages)),
        "stream": True,
        "stream_options": {"include_usage": True},
    }
    if tools:
        body["tools"] = tools
    body.update(extra or {})
    return body


@dataclass
class _PendingCall:
    id: str = ""
    name: str = ""
    arguments: list[str] = field(default_factory=list)


class DeltaAccumulator:
    """Folds ``chat.completion.chunk`` objects into events; ``finish()`` gives the ``Finished``."""

    def __init__(self, hints: Hints) -> None:
        self._hints = hints
        self._text: list[str] = []
        self._reasoning: list[str] = []
        self._details = DetailsMerger()
        self._calls: dict[int, _PendingCall] = {}
        self.finish_reason: str | None = None
        self.done = False

    def feed(self, chunk: dict[str, Any]) -> list[StreamEvent]:
        if chunk.get("error"):
            raise from_stream_error(chunk["error"], self._hints)
        events: list[StreamEvent] = []
        for choice in chunk.get("choices") or []:
            if isinstance(choice, dict):
                events.extend(self._delta(choice.get("delta") or {}))
                self._ending(choice)
        usage = chunk.get("usage")
        if isinstance(usage, dict):
            events.append(_usage(usage))
        return events

    def _delta(self, delta: dict[str, Any]) -> list[StreamEvent]:
        events: list[StreamEvent] = []
        thought = delta.get("reasoning")
        if isinstance(thought, str) and thought:
            self._reasoning.append(thought)
            events.append(ReasoningDelta(thought))
        self._details.add(delta.get("reasoning_details"))
        text = delta.get("content")
        if isinstance(text, str) and text:
            self._text.append(text)
            events.append(TextDelta(text))
        for fragment in delta.get("tool_calls") or []:
            self._add_fragment(fragment)
        return events

    def _ending(self, choice: dict[str, Any]) -> None:
        if choice.get("error"):  # an error nested in the choice (some upstream providers)
            raise from_stream_error(choice["error"], self._hints)
        if not choice.get("finish_reason"):
            return
        self.finish_reason = str(choice["finish_reason"])
        if self.finish_reason == "error":  # ended in error, and nothing says which
            raise ProviderError(
                "provider_error",
                f"{self._hints.name} ended the reply with an error and did not say why. "
                "The text so far is kept; try again, or choose another model.",
                provider=self._hints.name,
            )

    def _add_fragment(self, fragment: dict[str, Any]) -> None:
        index = fragment.get("index", len(self._calls))
        call = self._calls.setdefault(int(index), _PendingCall())
        if fragment.get("id"):
            call.id = str(fragment["id"])
        function = fragment.get("function") or {}
        if function.get("name") and not call.name:
            call.name = str(function["name"])
        if isinstance(function.get("arguments"), str):
            call.arguments.append(function["arguments"])

    def finish(self) -> Finished:
        calls = tuple(
            ToolCall(c.id or f"call_{i}", c.name, "".join(c.arguments) or "{}") for i, c in sorted(self._calls.items())
        )
        return Finished(
            self.finish_reason, "".join(self._text), calls, "".join(self._reasoning), self._details.blocks()
        )


def _usage(usage: dict[str, Any]) -> UsageReport:
    prompt = int(usage.get("prompt_tokens") or 0)
    completion = int(usage.get("completion_tokens") or 0)
    cost = usage.get("cost")
    return UsageReport(
        prompt_tokens=prompt,
        completion_tokens=completion,
        total_tokens=int(usage.get("total_tokens") or prompt + completion),
        cost=float(cost) if isinstance(cost, int | float) and not isinstance(cost, bool) else None,
    )


class OpenAICompatChat:
    """Streams one chat completion from ``endpoint``, retrying before any output was produced."""

    def __init__(
        self, http: HttpClient, endpoint: ChatEndpoint, retry: RetryPolicy | None = None, sleep: Sleep = asyncio.sleep
    ) -> None:
        self._http = http
        self.endpoint = endpoint
        self._retry = retry or RetryPolicy()
        self._sleep = sleep

    async def stream(
        self,
        messages: Sequence[ChatMessage],
        tools: list[dict[str, Any]],
        model: str,
        extra: dict[str, Any] | None = None,
    ) -> AsyncIterator[StreamEvent]:
        body = json.dumps(build_request(messages, tools, model, extra))
        async for event in with_retries(lambda: self._once(body), self._retry, self._sleep, self.endpoint.hints.name):
            yield event

    async def _once(self, body: str) -> AsyncIterator[StreamEvent]:
        ep = self.endpoint
        headers = {"Content-Type": "application/json", "Accept": "text/event-stream", **ep.headers}
        answering = False  # the 200 head arrived: a failure from here on is a reply dropped midway
        events = 0
        try:
            response = await self._http.open(
                "POST", ep.url, headers=headers, body=body, auth=ep.auth, timeout_s=ep.timeout_s
            )
            if response.status != 200:
                raw = await response.read(1_000_000)
                if ep.on_refusal is not None:
                    ep.on_refusal(response.status, raw)
                raise from_status(response.status, raw, ep.hints, response.headers.get("retry-after"))
            answering = True
            parser = SSEParser()
            acc = DeltaAccumulator(ep.hints)
            try:
                async for data in response.iter_bytes():
                    for sse in parser.feed(data):
                        events += 1
                        if sse.data.strip() == "[DONE]":
                            acc.done = True
                            continue
                        for event in acc.feed(streamed_object(sse.data, ep.hints, "stream event")):
                            yield event
            finally:
                response.close()
        except (HostHttpError, HostRequestError) as exc:
            raise from_host_failure(exc, ep.hints, after_head=answering) from exc
        if events == 0:  # llama-cpp-python's answer to a prompt over its window
            raise empty_stream(ep.hints.name)
        if not acc.done and acc.finish_reason is None:
            raise ProviderError(
                "server",
                f"{ep.hints.name}'s response stream ended before it was complete. Try again.",
                provider=ep.hints.name,
            )
        yield acc.finish()

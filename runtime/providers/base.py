"""What a model provider is: a Protocol, its stream events and its model descriptions (plain values)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from runtime.chat.messages import ChatMessage, ToolCall
from runtime.host.constants import ReasoningEffort


@dataclass(frozen=True)
class TextDelta:
    text: str
    kind: Literal["text"] = "text"


@dataclass(frozen=True)
class ReasoningDelta:
    """A piece of the model's reasoning (OpenRouter ``delta.reasoning``, Ollama ``message.thinking``)."""

    text: str
    kind: Literal["reasoning"] = "reasoning"


@dataclass(frozen=True)
class Retrying:
    """The provider waits ``delay_s`` before trying the request again (nothing was produced yet)."""

    delay_s: float
    code: str
    message: str
    kind: Literal["retrying"] = "retrying"


@dataclass(frozen=True)
class ProviderNotice:
    """Something about this request the person should know once (e.g. the model cannot use tools)."""

    code: str
    text: str
    kind: Literal["provider_notice"] = "provider_notice"


@dataclass(frozen=True)
class UsageReport:
    prompt_tokens: int
    completion_tokens: int
    total_tokens: int
    cost: float | None = None
    kind: Literal["usage"] = "usage"


@dataclass(frozen=True)
class Finished:
    """The model's response is complete: its whole text, the tool calls it asked for, its reasoning.

    ``reasoning_details`` are the provider's structured reasoning blocks exactly as received (merged
    by ``index`` across chunks): they go back unchanged with this message on every later request.
    """

    finish_reason: str | None
    text: str
    tool_calls: tuple[ToolCall, ...] = ()
    reasoning: str = ""
    reasoning_details: tuple[dict[str, Any], ...] = ()
    kind: Literal["finish"] = "finish"


StreamEvent = TextDelta | ReasoningDelta | Retrying | ProviderNotice | UsageReport | Finished


@dataclass(frozen=True)
class ModelInfo:
    id: str
    name: str
    context_length: int | None = None
    prompt_price: float | None = None  # USD per token
    completion_price: float | None = None
    tools: bool | None = None
    reasoning: bool | None = None
    vision: bool | None = None

    def as_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "name": self.name or self.id,
            "context_length": self.context_length,
            "prompt_price": self.prompt_price,
            "completion_price": self.completion_price,
            "tools": self.tools,
            "reasoning": self.reasoning,
            "vision": self.vision,
        }


@dataclass(frozen=True)
class ProviderEndpoint:
    """The provider the host chose: its kind and base URL (never the key: ``has_key`` says one is set)."""

    kind: str
    base_url: str
    has_key: bool = False
    page_origin: str | None = None
    reasoning: ReasoningEffort = "auto"
    context_length: int | None = None  # the context window asked for (Ollama's num_ctx); None: the default
    max_output: int | None = None  # the most tokens one answer may take (``max_tokens``); None: the provider's default


class Provider(Protocol):
    kind: str

    def stream_chat(
        self, messages: Sequence[ChatMessage], tools: list[dict[str, Any]], model: str
    ) -> AsyncIterator[StreamEvent]:
        """Stream one response; ends with exactly one ``Finished``. Raises ``ProviderError``."""
        ...

    async def list_models(self) -> list[ModelInfo]: ...

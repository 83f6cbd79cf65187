"""Every way a reply ends is said: errors in any of their stream shapes, moderation, a used-up daily
quota (not retried), a retry wait (announced), and replies cut off or filtered (kept and marked)."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from runtime.chat.messages import AssistantMessage, ChatMessage, UserMessage
from runtime.errors import ProviderError
from runtime.providers.base import Finished, ProviderEndpoint, Retrying, StreamEvent, TextDelta
from runtime.providers.failures import Hints, from_status
from runtime.providers.openai_compat import DeltaAccumulator, OpenAICompatChat
from runtime.providers.refusals import daily_quota
from runtime.providers.registry import builtin_providers
from runtime.providers.retry import RetryPolicy
from tests.support.framehost import FrameHost, HttpReply
from tests.support.scripted import says
from tests.unit.runtime.test_loop import Rig, _rig

OPENROUTER = Hints("OpenRouter", "https://openrouter.ai/api/v1", refusals=True)
OLLAMA = Hints("Ollama", "http://localhost:11434")
HELLO: list[ChatMessage] = [UserMessage("hi")]


def _chunk(delta: dict[str, Any], finish: str | None = None, **choice: Any) -> dict[str, Any]:
    return {"id": "gen-1", "choices": [{"index": 0, "delta": delta, "finish_reason": finish, **choice}]}


@pytest.mark.parametrize(
    ("last", "phrases"),
    [
        pytest.param(
            {**_chunk({"content": ""}, "error"), "error": {"code": 502, "message": "Provider returned error"}},
            ["Provider returned error"],
            id="top-level error object",
        ),
        pytest.param(
            _chunk({"content": ""}, "error", error={"code": "server_error", "message": "upstream reset"}),
            ["upstream reset"],
            id="error nested in the choice",
        ),
        pytest.param(
            _chunk({"content": ""}, "error"), ["did not say why", "text so far is kept"], id="bare finish error"
        ),
    ],
)
def test_an_error_in_any_shape_ends_the_stream_with_an_error(last: dict[str, Any], phrases: list[str]) -> None:
    acc = DeltaAccumulator(OPENROUTER)
    assert acc.feed(_chunk({"role": "assistant", "content": "Partial"})) == [TextDelta("Partial")]
    with pytest.raises(ProviderError) as err:
        acc.feed(last)
    assert all(p in err.value.message for p in phrases)


@pytest.mark.parametrize("reason", ["length", "content_filter", "stop"])
def test_other_endings_finish_normally_and_keep_their_reason(reason: str) -> None:
    acc = DeltaAccumulator(OPENROUTER)
    acc.feed(_chunk({"content": "Once upon"}))
    acc.feed(_chunk({}, reason))
    assert acc.finish() == Finished(reason, "Once upon")


def test_403_from_openrouter_is_a_moderation_refusal() -> None:
    body = {
        "error": {
            "code": 403,
            "message": "Your chosen model requires moderation and your input was flagged",
            "metadata": {"reasons": ["harassment"], "flagged_input": "…", "provider_name": "OpenAI"},
        }
    }
    error = from_status(403, json.dumps(body), OPENROUTER)
    assert (error.code, error.retryable) == ("refused", False)
    assert error.message.startswith("The provider refused this request (moderation) (flagged: harassment).")
    assert from_status(403, "Forbidden", OLLAMA).code == "auth"  # elsewhere a 403 is about access


def _quota_body(message: str, reset_in_s: float, remaining: str = "0") -> str:
    reset_ms = int((time.time() + reset_in_s) * 1000)
    headers = {"X-RateLimit-Limit": "50", "X-RateLimit-Remaining": remaining, "X-RateLimit-Reset": str(reset_ms)}
    return json.dumps({"error": {"code": 429, "message": message, "metadata": {"headers": headers}}})


@pytest.mark.parametrize(
    ("body", "code"),
    [
        pytest.param(
            _quota_body("Rate limit exceeded: free-models-per-day. Add 10 credits", 5 * 3600), "quota", id="per-day"
        ),
        pytest.param(_quota_body("Rate limit exceeded", 8 * 3600), "quota", id="none left until hours away"),
        pytest.param(_quota_body("Rate limit exceeded: free-models-per-min.", 40), "rate_limited", id="per-minute"),
        pytest.param(_quota_body("Rate limit exceeded", 8 * 3600, remaining="3"), "rate_limited", id="some left"),
        pytest.param("Too Many Requests", "rate_limited", id="plain text"),
    ],
)
def test_a_used_up_daily_free_quota_is_explained_not_retried(body: str, code: str) -> None:
    error = from_status(429, body, OPENROUTER, "30")
    assert error.code == code
    assert error.retryable is (code == "rate_limited")
    if code == "quota":
        assert "daily limit of free-model requests" in error.message and "resets at" in error.message
        assert "openrouter.ai/settings/credits" in error.message


def test_daily_quota_reset_time_is_said_in_utc() -> None:
    now = 1_767_225_600.0  # 2026-01-01T00:00:00Z
    body = json.dumps(
        {
            "error": {
                "message": "free-models-per-day",
                "metadata": {
                    "headers": {"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": str(int((now + 3600 * 5.5) * 1000))}
                },
            }
        }
    )
    error = daily_quota(body, "OpenRouter", now)
    assert error is not None and "It resets at 05:30 UTC." in error.message


class Sleeps(list[float]):
    async def __call__(self, seconds: float) -> None:
        self.append(seconds)


async def test_a_retry_is_announced_before_the_wait(host: FrameHost) -> None:
    stream = (Path(__file__).resolve().parents[2] / "fixtures" / "streams" / "openrouter_text.sse").read_bytes()
    replies = [
        HttpReply.json(429, {"error": {"code": 429, "message": "slow down"}}, {"retry-after": "7"}),
        HttpReply.sse(stream),
    ]
    host.responder = lambda request: replies.pop(0)
    provider: Any = builtin_providers().create(
        ProviderEndpoint("openrouter", "https://openrouter.ai/api/v1", True), host.http()
    )
    sleeps = Sleeps()
    provider.chat = OpenAICompatChat(provider.chat._http, provider.chat.endpoint, RetryPolicy(), sleep=sleeps)
    events: list[StreamEvent] = [e async for e in provider.stream_chat(HELLO, [], "m")]
    assert isinstance(events[0], Retrying) and (events[0].delay_s, events[0].code) == (7.0, "rate_limited")
    assert sleeps == [7.0]
    assert isinstance(events[-1], Finished)


async def test_a_daily_quota_is_asked_once(host: FrameHost) -> None:
    host.responder = lambda request: HttpReply(
        429,
        {"content-type": "application/json"},
        (_quota_body("Rate limit exceeded: free-models-per-day", 3600).encode(),),
    )
    provider = builtin_providers().create(
        ProviderEndpoint("openrouter", "https://openrouter.ai/api/v1", True), host.http()
    )
    with pytest.raises(ProviderError) as err:
        await asyncio.wait_for(anext(aiter(provider.stream_chat(HELLO, [], "m:free"))), 5)
    assert err.value.code == "quota"
    assert len(host.requests) == 1


@pytest.fixture
async def rig(tmp_path: Path) -> AsyncIterator[Rig]:
    r = await _rig(tmp_path)
    yield r
    await r.host.close()
    await asyncio.wait_for(r.task, 5)


@pytest.mark.parametrize("reason", ["length", "content_filter"])
async def test_a_reply_that_ended_early_is_kept_marked_and_said(rig: Rig, reason: str) -> None:
    steps = says("Once upon a")
    steps[-1] = Finished(reason, "Once upon a")
    rig.provider.rounds = [steps]
    assert (await rig.turn("tell a story"))["reason"] == "stop"
    (ending,) = rig.host.events("reply_finished")
    assert (ending["finish_reason"], ending["turn_id"]) == (reason, "t1")
    assert rig.conversation.sessions.history[-1] == AssistantMessage("Once upon a", finish_reason=reason)
    view = rig.conversation.sessions.view()["messages"][-1]
    assert (view["text"], view["finish_reason"]) == ("Once upon a", reason)


async def test_a_retry_wait_is_a_notice_in_the_chat(rig: Rig) -> None:
    rig.provider.rounds = [[Retrying(12.0, "rate_limited", "slow down"), *says("Hi")]]
    await rig.turn("hi")
    (notice,) = [e for e in rig.host.events("notice") if e["code"] == "retrying"]
    assert notice["text"] == "Rate limited, retrying in 12 s…"

"""The loop with a reasoning model: reasoning shown live, kept with its reply, sent back on every later
request (across a reload and compaction)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from runtime.chat.history import model_view
from runtime.chat.messages import AssistantMessage, SystemMessage, UserMessage
from runtime.errors import ProviderError
from runtime.providers.base import Finished, ReasoningDelta, TextDelta, UsageReport
from runtime.store.values import StoredMessage
from tests.support.scripted import Step, call, says
from tests.unit.runtime.test_loop import Rig, _rig

DETAILS = ({"type": "reasoning.encrypted", "data": "sig-abc", "id": "c1", "format": "google-gemini-v1", "index": 0},)


def thinks(thought: str, text: str, *calls: object) -> list[Step]:
    steps: list[Step] = [ReasoningDelta(thought[:3]), ReasoningDelta(thought[3:]), *says(text, *calls)]  # type: ignore[arg-type]
    finished = steps[-1]
    assert isinstance(finished, Finished)
    steps[-1] = Finished(finished.finish_reason, finished.text, finished.tool_calls, thought, DETAILS)
    return steps


@pytest.fixture
async def rig(tmp_path: Path) -> AsyncIterator[Rig]:
    r = await _rig(tmp_path)
    yield r
    await r.host.close()
    await asyncio.wait_for(r.task, 5)


async def test_reasoning_streams_before_the_reply_and_goes_back_with_its_tool_call(rig: Rig) -> None:
    rig.provider.rounds = [thinks("Need k1.", "Looking.", call("lookup", {"key": "k1"})), says("It is value-of-k1.")]
    assert (await rig.turn("what is k1?"))["reason"] == "stop"
    kinds = rig.kinds()
    assert kinds[:4] == ["turn_started", "reasoning_delta", "reasoning_delta", "text_delta"]
    assert "".join(e["text"] for e in rig.host.events("reasoning_delta")) == "Need k1."
    sent = rig.provider.calls[1][0][2]
    assert sent == AssistantMessage("Looking.", (call("lookup", {"key": "k1"}),), "Need k1.", DETAILS)
    # The next turn (and after a reload: the history is read back from the store) sends them again.
    stored = rig.conversation.sessions.history[1]
    assert isinstance(stored, AssistantMessage) and stored.reasoning_details == DETAILS
    rig.provider.rounds = [says("Sure.")]
    await rig.turn("thanks", "t2")
    again = [m for m in rig.provider.calls[2][0] if isinstance(m, AssistantMessage) and m.tool_calls]
    assert again[0].reasoning_details == DETAILS
    view = rig.conversation.sessions.view()["messages"]
    assert [(m["role"], m["reasoning"]) for m in view][:2] == [("user", ""), ("assistant", "Need k1.")]


async def test_reasoning_of_a_reply_cut_short_is_kept(rig: Rig) -> None:
    rig.provider.rounds = [[ReasoningDelta("Thinking hard"), TextDelta("Part"), ProviderError("server", "boom")]]
    await rig.turn("go")
    last = rig.conversation.sessions.history[-1]
    assert last == AssistantMessage("Part", reasoning="Thinking hard")


async def test_usage_only_reply_has_no_reasoning(rig: Rig) -> None:
    rig.provider.rounds = [[UsageReport(1, 1, 2), Finished("stop", "ok")]]
    await rig.turn("go")
    assert rig.host.events("reasoning_delta") == []
    assert rig.conversation.sessions.history[-1] == AssistantMessage("ok")


def test_compaction_keeps_the_blocks_of_the_messages_it_keeps() -> None:
    calls = ({"id": "c1", "type": "function", "function": {"name": "lookup", "arguments": "{}"}},)
    context = [
        StoredMessage("s", 5, "system", "Earlier: the user asked about k1.", kind="summary", meta={"covers_to_seq": 4}),
        StoredMessage("s", 6, "user", "go on"),
        StoredMessage("s", 7, "assistant", "", tool_calls=calls, reasoning="r", reasoning_details=DETAILS),
        StoredMessage("s", 8, "tool", "v", tool_call_id="c1", name="lookup"),
    ]
    view = model_view("You are an agent.", context)
    assert isinstance(view[0], SystemMessage) and "Earlier: the user asked" in view[0].content
    assert view[1] == UserMessage("go on")
    assert isinstance(view[2], AssistantMessage) and view[2].reasoning_details == DETAILS

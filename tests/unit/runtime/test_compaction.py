"""Long conversations are summarized, not failed: a small context window and a scripted provider that
answers the summarizing request (the one without tools) with a summary."""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from runtime.agent.context import TRIGGER
from runtime.chat.history import INTERRUPTED_RESULT, estimate_tokens, model_view
from runtime.chat.messages import AssistantMessage, ChatMessage, SystemMessage, ToolResultMessage, UserMessage
from runtime.providers.base import Finished, StreamEvent
from runtime.store.values import StoredMessage
from tests.support.rigs import StateRig
from tests.support.scripted import ScriptedProvider, call, says

SUMMARY = "SUMMARY: the user described topics 0 to 2."


class SummarizingProvider(ScriptedProvider):
    def __init__(self) -> None:
        super().__init__()
        self.summary_requests: list[list[ChatMessage]] = []
        self.summary = SUMMARY

    async def stream_chat(
        self, messages: Sequence[ChatMessage], tools: list[dict[str, Any]], model: str
    ) -> AsyncIterator[StreamEvent]:
        if not tools:  # the summarizing request
            self.summary_requests.append(list(messages))
            yield Finished("stop", self.summary)
            return
        async for event in super().stream_chat(messages, tools, model):
            yield event


@pytest.fixture
async def rig(tmp_path: Path) -> AsyncIterator[StateRig]:
    r = StateRig(tmp_path, tmp_path / "state", provider=SummarizingProvider())
    await r.start()
    yield r
    await r.stop()


def _topic(n: int) -> str:
    return f"Topic {n}: " + " ".join(f"word{n}-{i}" for i in range(300))


async def test_old_turns_are_summarized_when_the_window_fills(rig: StateRig) -> None:
    provider = rig.provider
    assert isinstance(provider, SummarizingProvider)
    provider.context_length = 4000
    await rig.result("list_models")  # the runtime learns the model's context length from the list
    provider.rounds = [says("Noted.")]
    for n in range(6):
        assert (await rig.turn(_topic(n), f"t{n}"))["reason"] == "stop"
    assert provider.summary_requests, "no summary was asked for"
    (notice, *_) = rig.events("notice")
    assert notice["code"] == "compacted"
    quoted = provider.summary_requests[0][1].content
    assert "Topic 0:" in quoted and "Summarize the conversation so far" in quoted
    last = provider.calls[-1][0]
    assert isinstance(last[0], SystemMessage) and SUMMARY in last[0].content
    sent_users = [m.content for m in last if isinstance(m, UserMessage)]
    assert not any(text.startswith("Topic 0:") for text in sent_users)
    assert sent_users[-2:] == [_topic(4), _topic(5)]  # the latest turns stay verbatim
    view = await rig.result("session_current")
    users = [m["text"] for m in view["messages"] if m["role"] == "user"]
    assert users == [_topic(n) for n in range(6)]  # the originals stay in the store
    assert any(m["role"] == "summary" and m["text"] == SUMMARY for m in view["messages"])


async def test_activated_skill_bodies_stay_verbatim(rig: StateRig) -> None:
    skill = rig.workspace / ".agents" / "skills" / "tea"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: tea\ndescription: Brew tea.\n---\nSTEEP FOR FOUR MINUTES\n")
    provider = rig.provider
    provider.context_length = 4000
    await rig.result("list_models")
    provider.rounds = [says("", call("activate_skill", {"name": "tea"}, "s1")), says("Skill on.")]
    await rig.turn("use the tea skill", "t0")
    provider.rounds = [says("Noted.")]
    for n in range(1, 7):
        await rig.turn(_topic(n), f"t{n}")
    assert isinstance(provider, SummarizingProvider) and provider.summary_requests
    system = provider.calls[-1][0][0]
    assert "STEEP FOR FOUR MINUTES" in system.content and SUMMARY in system.content


def _stored(seq: int, role: Any, content: str, **fields: Any) -> StoredMessage:
    return StoredMessage("s", seq, role, content, **fields)


@pytest.mark.parametrize(
    ("context", "roles", "check"),
    [
        pytest.param(
            [
                _stored(1, "user", "a", turn_id="t1"),
                _stored(2, "assistant", "", turn_id="t1", tool_calls=({"id": "x", "function": {"name": "f"}},)),
                _stored(3, "user", "b", turn_id="t2"),
            ],
            ["system", "user", "assistant", "tool", "user"],
            lambda out: out[3] == ToolResultMessage("x", "f", INTERRUPTED_RESULT, False),
            id="a call without result is closed before the next message",
        ),
        pytest.param(
            [
                _stored(1, "user", "a", turn_id="t1"),
                _stored(2, "assistant", "", turn_id="t1", status="interrupted"),
            ],
            ["system", "user"],
            lambda out: True,
            id="an empty interrupted reply is left out",
        ),
        pytest.param(
            [
                _stored(9, "system", "S", kind="summary", meta={"covers_to_seq": 4}),
                _stored(3, "tool", "BODY", tool_call_id="s1", name="activate_skill"),
                _stored(5, "tool", "stray", tool_call_id="zz", name="lookup"),
                _stored(6, "user", "hi", turn_id="t3"),
            ],
            ["system", "user"],
            lambda out: "S" in out[0].content and "BODY" in out[0].content and "stray" not in out[0].content,
            id="a summary and an orphaned skill body join the system message",
        ),
    ],
)
def test_model_view(context: list[StoredMessage], roles: list[str], check: Any) -> None:
    out = model_view("SYSTEM", context)
    assert [m.role for m in out] == roles
    assert check(out)


# --- when the turns compaction keeps are too big themselves -------------------------------------

WINDOW = 6000
HUGE = "START " + "lorem ipsum " * 50_000 + " END"  # ~600,000 characters: ~25 × the window


def _request_tokens(rig: StateRig, index: int = -1) -> int:
    messages, tools, _ = rig.provider.calls[index]
    return estimate_tokens(messages, tools)


async def _window(rig: StateRig, tokens: int) -> None:
    rig.provider.context_length = tokens
    await rig.result("list_models")


async def test_a_huge_reply_in_the_current_turn_is_cut_in_what_the_model_reads(rig: StateRig) -> None:
    await _window(rig, WINDOW)
    rig.provider.rounds = [says(HUGE, call("lookup", {"key": "a"}, "c1")), says("", call("lookup", {"key": "b"}, "c2")),
                           says("Done.")]
    assert (await rig.turn("write a lot, then look two keys up", "t1"))["reason"] == "stop"
    assert len(rig.provider.calls) == 3
    for index in (1, 2):  # both later rounds fit, each with the reply cut
        assert _request_tokens(rig, index) <= TRIGGER * WINDOW
        reply = next(m for m in rig.provider.calls[index][0] if isinstance(m, AssistantMessage) and m.tool_calls)
        assert reply.content.startswith("START ") and reply.content.endswith(" END")
        assert "characters cut here to fit the model's context window" in reply.content
    [trimmed] = [e for e in rig.events("notice") if e["code"] == "trimmed"]  # one notice for the turn
    assert "shortened" in trimmed["text"] and "the full text stays in the session" in trimmed["text"]
    view = await rig.result("session_current")
    assert HUGE in [m["text"] for m in view["messages"] if m["role"] == "assistant"]  # the store keeps it whole


async def test_a_huge_earlier_reply_is_summarized_with_all_but_the_current_turn(rig: StateRig) -> None:
    provider = rig.provider
    assert isinstance(provider, SummarizingProvider)
    await _window(rig, WINDOW)
    provider.rounds = [says(HUGE)]
    await rig.turn("write a lot", "t1")
    provider.rounds = [says("Sure.")]
    assert (await rig.turn("now something short", "t2"))["reason"] == "stop"
    assert provider.summary_requests, "the previous turn should be summarized"
    assert estimate_tokens(provider.summary_requests[0], []) <= WINDOW
    assert _request_tokens(rig) <= TRIGGER * WINDOW
    sent = provider.calls[-1][0]
    assert [m.content for m in sent if isinstance(m, UserMessage)] == ["now something short"]
    assert [e["code"] for e in rig.events("notice")] == ["compacted"]


async def test_a_prompt_too_big_for_the_window_is_not_sent_and_says_how_to_raise_it(rig: StateRig) -> None:
    await _window(rig, 300)  # less than twice what even the compact system prompt takes
    rig.provider.rounds = [says("never")]
    assert (await rig.turn("hello", "t1"))["reason"] == "error"
    assert not rig.provider.calls
    [error] = rig.events("error")
    assert "context window (300 tokens) is too small for Tidepool's prompt and tools" in error["message"]
    assert "a new chat cannot help" in error["message"] and "Start a new chat" not in error["message"]
    assert "llama-server -c 4096" in error["message"] and "--n_ctx 4096" in error["message"]
    assert "Settings → Advanced → Context window" in error["message"]
    assert not error["retryable"]
    view = await rig.result("session_current")
    assert [m["text"] for m in view["messages"] if m["role"] == "user"] == ["hello"]  # nothing is lost


async def test_a_conversation_that_cannot_fit_is_not_sent_and_says_what_to_do(rig: StateRig) -> None:
    await _window(rig, WINDOW)
    huge_key = "k" * (WINDOW * 8)  # tool call arguments are never cut: the next round cannot fit
    rig.provider.rounds = [says("", call("lookup", {"key": huge_key}, "c1")), says("never")]
    assert (await rig.turn("look it up", "t1"))["reason"] == "error"
    assert len(rig.provider.calls) == 1
    [error] = rig.events("error")
    assert f"does not fit the context window of scripted/model ({WINDOW:,} tokens)" in error["message"]
    assert "Start a new chat, or choose a model with a larger context window" in error["message"]
    assert not error["retryable"]


async def test_a_summary_far_longer_than_asked_is_cut_before_it_joins_the_system_message(rig: StateRig) -> None:
    provider = rig.provider
    assert isinstance(provider, SummarizingProvider)
    await _window(rig, WINDOW)
    provider.summary = "SUMMARY " + HUGE  # a summarizer that echoes what it was given
    provider.rounds = [says(HUGE)]
    await rig.turn("write a lot", "t1")
    provider.rounds = [says("Sure.")]
    assert (await rig.turn("now something short", "t2"))["reason"] == "stop"
    system = provider.calls[-1][0][0]
    assert isinstance(system, SystemMessage) and "the rest of the summary is cut" in system.content
    assert _request_tokens(rig) <= TRIGGER * WINDOW

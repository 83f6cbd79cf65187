"""Tool calls cut off at the length limit, or with arguments that are not a JSON object, never run and
never poison the chat: in history their arguments are ``{}`` (both wires), their result says what went
wrong, and a stored conversation that already holds invalid arguments is repaired when it is sent."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from runtime.agent.unusable import CUT_OFF, screen
from runtime.chat.messages import AssistantMessage, ToolCall, ToolResultMessage, UserMessage, to_wire
from runtime.providers.base import Finished, TextDelta
from runtime.providers.ollama_chat import ollama_message
from scripts.fakes.llamacpp import invalid_arguments_refusal
from tests.support.scripted import call, says
from tests.unit.runtime.test_loop import Rig, _rig

CUT = '{"path": "notes.md", "text": "The first li'


@pytest.fixture
async def rig(tmp_path: Path) -> AsyncIterator[Rig]:
    r = await _rig(tmp_path, mode="full-auto")
    yield r
    await r.host.close()
    await asyncio.wait_for(r.task, 5)


@pytest.mark.parametrize(
    ("calls", "finish", "refused", "says_"),
    [
        pytest.param([call("save_note", CUT)], "length", {"c1"}, CUT_OFF, id="length inside the last call"),
        pytest.param(
            [call("lookup", {"key": "a"}), call("save_note", '{"path', "c2")],
            "length",
            {"c2"},
            CUT_OFF,
            id="complete first call, cut second",
        ),
        pytest.param([call("lookup", '{"key": "a"')], "tool_calls", {"c1"}, "not valid JSON", id="malformed"),
        pytest.param(
            [call("lookup", "[1, 2]")], "tool_calls", {"c1"}, "JSON list, and they must be a JSON object", id="a list"
        ),
        pytest.param([call("lookup", {"key": "a"})], "length", set(), "", id="complete call at length"),
        pytest.param([call("lookup", "")], "tool_calls", set(), "", id="empty arguments are {}"),
    ],
)
def test_unusable_calls_are_refused_with_a_reason_and_kept_as_empty_objects(
    calls: list[ToolCall], finish: str, refused: set[str], says_: str
) -> None:
    screened = screen(calls, finish)
    assert set(screened.refused) == refused
    for kept, original in zip(screened.calls, calls, strict=True):
        assert kept.id == original.id and kept.name == original.name
        assert json.loads(kept.arguments or "{}") == (
            {} if kept.id in refused else json.loads(original.arguments or "{}")
        )
        if kept.id in refused:
            assert says_ in screened.refused[kept.id]
            assert original.arguments[:20] in screened.refused[kept.id]  # the model sees what it wrote


@pytest.mark.parametrize("raw", ['{"path', "not json", "[1]", '"a string"', ""])
def test_invalid_stored_arguments_go_out_as_an_empty_object_on_both_wires(raw: str) -> None:
    message = AssistantMessage("", (ToolCall("c1", "write_file", raw),))
    wire = to_wire(message)
    assert wire["tool_calls"][0]["function"]["arguments"] == "{}"
    assert invalid_arguments_refusal({"messages": [wire]}) is None  # what llama.cpp would accept
    assert ollama_message(message)["tool_calls"][0]["function"]["arguments"] == {}


def test_valid_arguments_go_out_exactly_as_the_model_wrote_them() -> None:
    raw = '{"path":  "a.md", "text": "x"}'
    wire = to_wire(AssistantMessage("", (ToolCall("c1", "write_file", raw),)))
    assert wire["tool_calls"][0]["function"]["arguments"] == raw


async def test_a_call_cut_off_at_length_is_not_run_and_the_next_turn_sends_valid_history(rig: Rig) -> None:
    rig.provider.rounds = [
        [TextDelta("Writing it."), Finished("length", "Writing it.", (call("save_note", CUT),))],
        says("I will write it in two parts."),
    ]
    assert (await rig.turn("write notes.md"))["reason"] == "stop"  # no second round: the person decides
    assert not (rig.workspace / "notes.md").exists()
    assert rig.host.events("tool_started") == []
    (finished,) = rig.host.events("tool_finished")
    assert (finished["status"], finished["arguments"]) == ("error", {})
    assert finished["result"].startswith(CUT_OFF) and "length" in finished["result"]
    assert [e["finish_reason"] for e in rig.host.events("reply_finished")] == ["length"]
    assert len(rig.provider.calls) == 1

    assert (await rig.turn("Continue exactly where you stopped."))["reason"] == "stop"
    sent = rig.provider.calls[1][0]
    cut = next(m for m in sent if isinstance(m, AssistantMessage) and m.tool_calls)
    assert cut.tool_calls[0].arguments == "{}"
    result = next(m for m in sent if isinstance(m, ToolResultMessage))
    assert result.call_id == "c1" and result.content.startswith(CUT_OFF) and not result.ok
    assert sent[-1] == UserMessage("Continue exactly where you stopped.")


async def test_malformed_arguments_are_not_run_and_the_model_is_told_in_the_next_round(rig: Rig) -> None:
    rig.provider.rounds = [says("", call("lookup", '{"key": "k1"')), says("Sorry, again.")]
    assert (await rig.turn("look k1 up"))["reason"] == "stop"
    second = rig.provider.calls[1][0]
    result = second[-1]
    assert isinstance(result, ToolResultMessage) and "not valid JSON" in result.content
    assert '{"key": "k1"' in result.content
    assistant = second[-2]
    assert isinstance(assistant, AssistantMessage) and assistant.tool_calls[0].arguments == "{}"

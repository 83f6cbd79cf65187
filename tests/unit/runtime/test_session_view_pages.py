"""A long session opens with its last messages (``session_current``'s ``shown``, 50 by default) and
says how many come before; the UI asks for the earlier ones a page at a time (``before``: the first seq it
shows), or for more with a larger ``shown`` (0: all)."""

from __future__ import annotations

import pytest

from runtime.persist.display import SHOWN_MESSAGES
from tests.support.rigs import StateRig
from tests.support.scripted import call, says


async def _turns(rig: StateRig, count: int) -> None:
    rig.provider.rounds = [says(f"answer {i}") for i in range(1, count + 1)]
    for i in range(1, count + 1):
        await rig.turn(f"question {i}", f"t{i}")


async def test_the_view_shows_the_last_messages_and_counts_the_earlier_ones(rig: StateRig) -> None:
    await _turns(rig, 4)
    view = await rig.result("session_current", shown=3)
    assert [m["text"] for m in view["messages"]] == ["answer 3", "question 4", "answer 4"]
    assert view["earlier"] == 5
    everything = await rig.result("session_current", shown=0)
    assert len(everything["messages"]) == 8 and everything["earlier"] == 0
    assert (await rig.result("session_current"))["earlier"] == max(0, 8 - SHOWN_MESSAGES)


async def test_earlier_pages_end_where_the_shown_messages_begin(rig: StateRig) -> None:
    await _turns(rig, 6)
    last = await rig.result("session_current", shown=4)
    assert [m["text"] for m in last["messages"]] == ["question 5", "answer 5", "question 6", "answer 6"]
    page = await rig.result("session_current", shown=3, before=last["messages"][0]["seq"])
    assert [m["text"] for m in page["messages"]] == ["answer 3", "question 4", "answer 4"]
    assert page["earlier"] == 5
    rest = await rig.result("session_current", shown=200, before=page["messages"][0]["seq"])
    assert [m["text"] for m in rest["messages"]] == ["question 1", "answer 1", "question 2", "answer 2", "question 3"]
    assert rest["earlier"] == 0
    assert (await rig.result("session_current", shown=3, before=1))["messages"] == []


async def test_a_page_keeps_tool_results_with_their_call(rig: StateRig) -> None:
    rig.provider.rounds = [says("Looking.", call("lookup", {"key": "k1"}, "c1")), says("found it"), says("plain")]
    await rig.turn("write", "t1")
    await rig.turn("again", "t2")
    last = await rig.result("session_current", shown=2)
    page = await rig.result("session_current", shown=2, before=last["messages"][0]["seq"])
    calls = [c for m in page["messages"] for c in m["tool_calls"]]
    assert [(c["call_id"], c["result"] is not None) for c in calls] == [("c1", True)]
    assert all(m["role"] != "tool" for m in page["messages"])


@pytest.mark.parametrize("before", [0, -4, "7", True])
async def test_a_bad_before_is_refused(rig: StateRig, before: object) -> None:
    reply = await rig.request("session_current", shown=3, before=before)
    assert not reply["ok"] and reply["error"]["code"] == "bad_params"


@pytest.mark.parametrize("shown", [-1, "3", True])
async def test_a_bad_count_is_refused(rig: StateRig, shown: object) -> None:
    reply = await rig.request("session_current", shown=shown)
    assert not reply["ok"] and reply["error"]["code"] == "bad_params"

"""A long session opens with its last messages (``session_current``'s ``shown``, 50 by default) and
says how many come before; the UI asks for the earlier ones a page at a time (``before``: the first seq it
shows), or for more with a larger ``shown`` (0: all). Below a search's hit it asks for the later ones a page at
a time (``after``: the last seq it shows), each saying how many come after it (``later``)."""

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
    assert view["earlier"] == 5 and view["later"] == 0
    everything = await rig.result("session_current", shown=0)
    assert len(everything["messages"]) == 8 and everything["earlier"] == 0
    assert (await rig.result("session_current"))["earlier"] == max(0, 8 - SHOWN_MESSAGES)


async def test_earlier_pages_end_where_the_shown_messages_begin(rig: StateRig) -> None:
    await _turns(rig, 6)
    last = await rig.result("session_current", shown=4)
    assert [m["text"] for m in last["messages"]] == ["question 5", "answer 5", "question 6", "answer 6"]
    page = await rig.result("session_current", shown=3, before=last["messages"][0]["seq"])
    assert [m["text"] for m in page["messages"]] == ["answer 3", "question 4", "answer 4"]
    assert page["earlier"] == 5 and page["later"] == 4
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


async def test_later_pages_go_on_from_the_last_message_shown_to_the_latest(rig: StateRig) -> None:
    await _turns(rig, 5)
    hit = await rig.result("session_current", shown=3, before=6)  # up to "question 3" (seq 5), as a hit is shown
    assert [m["text"] for m in hit["messages"]] == ["question 2", "answer 2", "question 3"]
    assert (hit["earlier"], hit["later"]) == (2, 5)
    seen = [m["text"] for m in hit["messages"]]
    after = hit["messages"][-1]["seq"]
    pages = []
    while True:
        page = await rig.result("session_current", shown=2, after=after)
        pages.append((len(page["messages"]), page["earlier"], page["later"]))
        if not page["messages"]:
            break
        seen += [m["text"] for m in page["messages"]]
        after = page["messages"][-1]["seq"]
    assert seen[3:] == ["answer 3", "question 4", "answer 4", "question 5", "answer 5"]
    assert pages == [(2, 5, 3), (2, 7, 1), (1, 9, 0), (0, 10, 0)]
    everything = await rig.result("session_current", shown=0, after=0)
    assert len(everything["messages"]) == 10 and (everything["earlier"], everything["later"]) == (0, 0)


async def test_a_later_page_keeps_tool_results_with_their_call(rig: StateRig) -> None:
    rig.provider.rounds = [says("plain"), says("Looking.", call("lookup", {"key": "k1"}, "c1")), says("found it")]
    await rig.turn("first", "t1")
    await rig.turn("write", "t2")
    first = await rig.result("session_current", shown=2, before=3)
    page = await rig.result("session_current", shown=2, after=first["messages"][-1]["seq"])
    assert [m["text"] for m in page["messages"]] == ["write", "Looking."]
    calls = [c for m in page["messages"] for c in m["tool_calls"]]
    assert [(c["call_id"], c["result"] is not None) for c in calls] == [("c1", True)]
    assert page["later"] == 1 and all(m["role"] != "tool" for m in page["messages"])


async def test_a_page_up_to_a_call_holds_its_results(rig: StateRig) -> None:
    """A search's hit is shown up to its message (``before``: its seq + 1): a call it made keeps its result."""
    rig.provider.rounds = [says("Looking.", call("lookup", {"key": "k1"}, "c1")), says("found it"), says("plain")]
    await rig.turn("write", "t1")
    await rig.turn("again", "t2")
    everything = await rig.result("session_current", shown=0)
    looking = next(m["seq"] for m in everything["messages"] if m["text"] == "Looking.")
    page = await rig.result("session_current", shown=2, before=looking + 1)
    assert [m["text"] for m in page["messages"]] == ["write", "Looking."]
    assert [(c["call_id"], c["result"] is not None) for c in page["messages"][-1]["tool_calls"]] == [("c1", True)]
    assert page["later"] == 3  # "found it", "again", "plain"
    rest = await rig.result("session_current", shown=5, after=page["messages"][-1]["seq"])
    assert [m["text"] for m in rest["messages"]] == ["found it", "again", "plain"] and rest["later"] == 0


async def test_before_and_after_together_are_refused(rig: StateRig) -> None:
    reply = await rig.request("session_current", shown=3, before=5, after=1)
    assert not reply["ok"] and reply["error"]["code"] == "bad_params"


@pytest.mark.parametrize("after", [-1, "7", True])
async def test_a_bad_after_is_refused(rig: StateRig, after: object) -> None:
    reply = await rig.request("session_current", shown=3, after=after)
    assert not reply["ok"] and reply["error"]["code"] == "bad_params"


@pytest.mark.parametrize("before", [0, -4, "7", True])
async def test_a_bad_before_is_refused(rig: StateRig, before: object) -> None:
    reply = await rig.request("session_current", shown=3, before=before)
    assert not reply["ok"] and reply["error"]["code"] == "bad_params"


@pytest.mark.parametrize("shown", [-1, "3", True])
async def test_a_bad_count_is_refused(rig: StateRig, shown: object) -> None:
    reply = await rig.request("session_current", shown=shown)
    assert not reply["ok"] and reply["error"]["code"] == "bad_params"

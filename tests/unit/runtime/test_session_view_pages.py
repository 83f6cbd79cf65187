"""A long session opens with its last messages (``session_current``'s ``shown``, 200 by default) and
says how many come before; the UI asks for more with a larger ``shown`` (0: all)."""

from __future__ import annotations

import pytest

from runtime.persist.display import SHOWN_MESSAGES
from tests.support.rigs import StateRig
from tests.support.scripted import says


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


@pytest.mark.parametrize("shown", [-1, "3", True])
async def test_a_bad_count_is_refused(rig: StateRig, shown: object) -> None:
    reply = await rig.request("session_current", shown=shown)
    assert not reply["ok"] and reply["error"]["code"] == "bad_params"

"""Editing a sent message or regenerating a reply (``user_message.replaces_turn``): the model sees the
conversation up to that turn, then the new message; the replaced turns stay stored as an earlier
branch and leave the session view."""

from __future__ import annotations

from runtime.chat.messages import AssistantMessage, UserMessage
from tests.support.rigs import StateRig
from tests.support.scripted import says


async def _two_turns(rig: StateRig) -> None:
    rig.provider.rounds = [says("Paris."), says("About 2 million.")]
    await rig.turn("Capital of France?", "t1")
    await rig.turn("How many people live there?", "t2")


async def _replace(rig: StateRig, text: str, turn_id: str, replaces: str) -> None:
    rig.host.send({"type": "user_message", "text": text, "turn_id": turn_id, "replaces_turn": replaces})
    assert (await rig.finished(turn_id))["reason"] == "stop"


async def test_an_edited_message_replaces_its_turn_and_the_later_ones(rig: StateRig) -> None:
    await _two_turns(rig)
    rig.provider.rounds = [says("Rome.")]
    await _replace(rig, "Capital of Italy?", "t3", "t1")
    sent = rig.provider.calls[-1][0]
    assert [(m.role, m.content) for m in sent[1:]] == [("user", "Capital of Italy?")]
    view = await rig.result("session_current")
    assert [m["text"] for m in view["messages"]] == ["Capital of Italy?", "Rome."]
    assert rig.conversation is not None and rig.conversation.sessions.history == [
        UserMessage("Capital of Italy?"),
        AssistantMessage("Rome."),
    ]


async def test_regenerating_asks_again_with_the_same_message_and_keeps_the_old_reply(rig: StateRig) -> None:
    await _two_turns(rig)
    rig.provider.rounds = [says("Roughly 2.1 million.")]
    await _replace(rig, "How many people live there?", "t3", "t2")
    sent = rig.provider.calls[-1][0]
    assert [m.content for m in sent[1:]] == ["Capital of France?", "Paris.", "How many people live there?"]
    view = await rig.result("session_current")
    assert [m["text"] for m in view["messages"]] == [
        "Capital of France?",
        "Paris.",
        "How many people live there?",
        "Roughly 2.1 million.",
    ]
    await rig.restart()  # the earlier branch is stored, not only hidden in memory
    assert rig.conversation is not None
    store = await rig.conversation.state.store()
    sid = rig.conversation.state.session_id
    assert sid is not None
    kept = [m.content for m in store.list_messages(sid, earlier_branches=True) if m.kind == "superseded"]
    assert kept == ["How many people live there?", "About 2 million."]
    assert [m["text"] for m in (await rig.result("session_current"))["messages"]][-1] == "Roughly 2.1 million."

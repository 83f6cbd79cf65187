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


# -- the versions in the view, switching them, forks (session_branch, session_fork) -------------------


def _user(view: dict[str, object], n: int) -> dict[str, object]:
    users = [m for m in view["messages"] if m["role"] == "user"]  # type: ignore[attr-defined]
    return users[n]  # type: ignore[no-any-return]


async def test_edits_show_as_versions_and_the_next_turn_continues_the_one_in_view(rig: StateRig) -> None:
    await _two_turns(rig)
    rig.provider.rounds = [says("Roughly 2.1 million."), says("Rome."), says("In Lazio.")]
    await _replace(rig, "How many people live there?", "t3", "t2")  # a regenerate
    await _replace(rig, "Capital of Italy?", "t4", "t1")  # an edit of the first message
    view = await rig.result("session_current")
    first = _user(view, 0)
    assert first["branch"] == {"index": 2, "count": 2, "prev": 1, "next": None}
    shown = await rig.result("session_branch", seq=1)
    assert [m["text"] for m in shown["messages"]] == [
        "Capital of France?",
        "Paris.",
        "How many people live there?",
        "Roughly 2.1 million.",
    ], "the later turns last in view under that version (the regenerated reply)"
    reply = shown["messages"][-1]
    assert reply["branch"]["index"] == 2 and reply["branch"]["count"] == 2, "a regenerate: on the reply"
    assert "branch" not in _user(shown, 1)
    await rig.turn("Which region?", "t5")
    sent = rig.provider.calls[-1][0]
    assert [m.content for m in sent[1:]] == [
        "Capital of France?",
        "Paris.",
        "How many people live there?",
        "Roughly 2.1 million.",
        "Which region?",
    ]
    await rig.restart()  # the branch in view is kept
    again = await rig.result("session_current")
    assert [m["text"] for m in again["messages"]][-2:] == ["Which region?", "In Lazio."]
    assert _user(again, 0)["branch"]["index"] == 1  # type: ignore[index]


async def test_a_fork_opens_a_new_session_and_leaves_the_original(rig: StateRig) -> None:
    await _two_turns(rig)
    before = await rig.result("session_current")
    answer = before["messages"][1]
    forked = await rig.result("session_fork", seq=answer["seq"])
    assert forked["session"]["id"] != before["session"]["id"]
    assert forked["session"]["title"] == "Fork of Capital of France?"
    assert [m["text"] for m in forked["messages"]] == ["Capital of France?", "Paris."]
    opened = await rig.result("session_open", session_id=before["session"]["id"])
    assert [m["text"] for m in opened["messages"]] == [m["text"] for m in before["messages"]]


async def test_versions_cannot_change_for_a_message_that_is_not_there(rig: StateRig) -> None:
    await _two_turns(rig)
    reply = await rig.request("session_branch", seq=999)
    assert not reply["ok"] and reply["error"]["code"] == "not_found", reply
    reply = await rig.request("session_fork", seq=0)
    assert not reply["ok"] and reply["error"]["code"] == "bad_params", reply

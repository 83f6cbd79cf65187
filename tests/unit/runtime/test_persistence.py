"""Sessions kept in the state database: every step stored and saved (flushes awaited), restarts that
bring back the conversation, an interrupted turn, a pending approval, a damaged save, memories."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from runtime.chat.messages import AssistantMessage, ToolResultMessage, UserMessage
from runtime.providers.base import TextDelta
from runtime.store import Store
from tests.support.rigs import StateRig
from tests.support.scripted import Pause, call, says


def _state_flushes(rig: StateRig) -> list[dict[str, Any]]:
    return [f for f in rig.host.flushes if f["what"] == "state"]


async def test_a_turn_is_stored_and_comes_back_after_a_restart(rig: StateRig) -> None:
    rig.provider.rounds = [says("Looking.", call("lookup", {"key": "k1"}, "c1")), says("It is value-of-k1.")]
    assert (await rig.turn("what is k1?", "t1"))["reason"] == "stop"
    (opened,) = rig.events("session_opened")
    await rig.restart()
    (again,) = rig.events("session_opened")
    assert again["session_id"] == opened["session_id"] and again["resumed_turn"] is None
    assert again["title"] == "what is k1?"
    # The event carries the view the page shows (it does not ask session_current): the stored turn.
    assert [(m["role"], m["text"]) for m in again["view"]["messages"]] == [
        ("user", "what is k1?"),
        ("assistant", "Looking."),
        ("assistant", "It is value-of-k1."),
    ]
    assert again["view"]["session"]["id"] == opened["session_id"] and again["view"]["running_turn"] is None
    assert rig.conversation is not None and rig.conversation.sessions.history == [
        UserMessage("what is k1?"),
        AssistantMessage("Looking.", (call("lookup", {"key": "k1"}, "c1"),)),
        ToolResultMessage("c1", "lookup", "value-of-k1", True),
        AssistantMessage("It is value-of-k1."),
    ]
    view = await rig.result("session_current")
    user, asked, answer = view["messages"]
    assert (user["role"], user["status"], user["text"]) == ("user", "complete", "what is k1?")
    (tool_call,) = asked["tool_calls"]
    assert (tool_call["name"], tool_call["status"], tool_call["result"], tool_call["arguments"]) == (
        "lookup",
        "ok",
        "value-of-k1",
        {"key": "k1"},
    )
    assert isinstance(tool_call["duration_ms"], int) and tool_call["decision"] is None
    assert answer["text"] == "It is value-of-k1." and view["pending_approvals"] == []
    rig.provider.rounds = [says("Still k1.")]
    assert (await rig.turn("and now?", "t2"))["reason"] == "stop"
    sent = rig.provider.calls[-1][0]
    assert [m.role for m in sent] == ["system", "user", "assistant", "tool", "assistant", "user"]


async def test_the_session_keeps_the_model_it_talks_to(rig: StateRig) -> None:
    """Noted each turn (read once per session, then only when it changes)."""
    assert rig.conversation is not None
    conversation = rig.conversation

    def stored_model() -> str | None:
        opened, sid = conversation.state.opened, conversation.state.session_id
        assert opened is not None and sid is not None
        return opened.store.get_session(sid).model

    rig.provider.rounds = [says("One.")]
    await rig.turn("first", "t1")
    assert stored_model() == "scripted/model"
    provider = {"kind": "scripted", "base_url": "", "has_key": False}
    rig.host.send({"type": "config", "provider": provider, "model": "scripted/other", "permission_mode": "ask"})
    rig.provider.rounds = [says("Two.")]
    await rig.turn("second", "t2")
    assert stored_model() == "scripted/other"
    rig.host.send({"type": "config", "provider": provider, "model": "scripted/model", "permission_mode": "ask"})
    rig.provider.rounds = [says("Three.")]
    await rig.turn("third", "t3")
    assert stored_model() == "scripted/model"  # back to the first: noted again


async def test_the_model_call_does_not_wait_for_the_user_message_save(rig: StateRig) -> None:
    held: list[dict[str, Any]] = []

    def hold(request: dict[str, Any]) -> dict[str, Any] | None:
        held.append(request)
        return None

    rig.host.flush_responder = hold
    rig.provider.rounds = [says("Hi.")]
    rig.host.send({"type": "user_message", "text": "hello", "turn_id": "t1"})
    await rig.host.wait_for(lambda: held)
    await rig.host.wait_for(lambda: rig.provider.calls)  # the request goes out while the save is in flight
    assert not rig.events("turn_finished")  # ... but the turn's end waits behind that save
    first = _state_flushes(rig)[0]  # the new session, at boot: a fresh database has nothing to rotate
    assert (first["paths"], first["rotate"], held[0]["paths"]) == (["current.sqlite"], False, ["current.sqlite"])
    rig.host.flush_responder = lambda request: {"ok": True, "result": {}}
    rig.host.send({"type": "reply", "id": held[0]["id"], "ok": True, "result": {}})
    assert (await rig.finished("t1"))["reason"] == "stop"
    assert all(f["rotate"] for f in _state_flushes(rig)[1:])
    received = rig.host.received
    last_flush = max(i for i, m in enumerate(received) if m["type"] == "flush_request")
    finished = next(i for i, m in enumerate(received) if m["type"] == "event" and m["event"]["kind"] == "turn_finished")
    assert last_flush < finished  # the turn's end is saved before the UI hears of it


@pytest.mark.parametrize(
    ("error", "code", "phrase"),
    [
        pytest.param({"code": "quota_exceeded", "message": "QuotaExceededError"}, "storage_full", "Storage is full"),
        pytest.param({"code": "io", "message": "disk on fire"}, "storage_failed", "disk on fire"),
    ],
)
async def test_a_failed_save_is_an_error_event_once(
    rig: StateRig, error: dict[str, Any], code: str, phrase: str
) -> None:
    rig.host.flush_responder = lambda request: {"ok": False, "error": error}
    rig.provider.rounds = [says("One."), says("Two.")]
    assert (await rig.turn("first", "t1"))["reason"] == "stop"
    assert (await rig.turn("second", "t2"))["reason"] == "stop"
    errors = [e for e in rig.events("error") if e["code"] == code]
    assert len(errors) == 1, rig.events("error")
    assert phrase in errors[0]["message"] and "Nothing was lost in this tab" in errors[0]["message"]
    # every turn still asked, after the failures: its message and its end (one save, or two when the
    # message's save went out before the reply arrived)
    received = rig.host.received
    for turn_id in ("t1", "t2"):
        started, finished = (_event_at(received, kind, turn_id) for kind in ("turn_started", "turn_finished"))
        assert any(m["type"] == "flush_request" for m in received[started:finished]), turn_id


def _event_at(received: list[dict[str, Any]], kind: str, turn_id: str) -> int:
    return next(
        i
        for i, m in enumerate(received)
        if m["type"] == "event" and m["event"]["kind"] == kind and m["event"].get("turn_id") == turn_id
    )


async def test_a_host_without_the_flush_capability_is_not_waited_for(tmp_path: Path) -> None:
    rig = await StateRig(tmp_path, tmp_path / "state", capabilities=("http",)).start()
    try:
        rig.host.flush_responder = lambda request: None
        rig.provider.rounds = [says("Hi.")]
        assert (await rig.turn("hello", "t1"))["reason"] == "stop"
        assert _state_flushes(rig)
    finally:
        await rig.stop()


async def test_workspace_changes_are_flushed_before_the_call_finishes(rig: StateRig) -> None:
    rig.provider.rounds = [says("", call("save_note", {"path": "n.md", "text": "hi"}, "c1")), says("Saved.")]
    rig.host.send({"type": "user_message", "text": "save", "turn_id": "t1"})
    await rig.host.wait_for(lambda: rig.events("approval_needed"))
    rig.host.send({"type": "approval", "call_id": "c1", "decision": "allow"})
    assert (await rig.finished("t1"))["reason"] == "stop"
    received = rig.host.received
    flush = next(i for i, m in enumerate(received) if m["type"] == "flush_request" and m["what"] == "workspace")
    done = next(i for i, m in enumerate(received) if m["type"] == "event" and m["event"]["kind"] == "tool_finished")
    shown = [p for p in received[flush]["paths"] if not p.startswith(".agent/checkpoints/")]  # its undo goes too
    assert shown == ["n.md"] and flush < done


async def test_a_turn_cut_off_by_a_reload_is_marked_interrupted(rig: StateRig) -> None:
    rig.provider.rounds = [[TextDelta("Half an ans"), Pause()]]
    rig.host.send({"type": "user_message", "text": "tell me everything", "turn_id": "t1"})
    await rig.host.wait_for(lambda: rig.events("text_delta"))
    await rig.restart()
    assert rig.events("session_opened")[0]["resumed_turn"] is None
    view = await rig.result("session_current")
    (user,) = view["messages"]
    assert (user["text"], user["status"], view["running_turn"]) == ("tell me everything", "interrupted", None)
    rig.provider.rounds = [says("Short answer.")]
    assert (await rig.turn("shorter please", "t2"))["reason"] == "stop"
    assert [m.role for m in rig.provider.calls[-1][0]] == ["system", "user", "user"]


async def test_a_call_running_at_the_reload_gets_an_interrupted_result(rig: StateRig) -> None:
    store = rig.conversation.state.opened.store if rig.conversation and rig.conversation.state.opened else None
    assert store is not None and rig.conversation is not None
    sid = rig.conversation.state.session_id or ""
    store.append_message(sid, "user", "do two things", turn_id="t0", status="streaming")
    calls = [{"id": i, "type": "function", "function": {"name": "lookup", "arguments": "{}"}} for i in ("a", "b")]
    store.append_message(sid, "assistant", "", turn_id="t0", tool_calls=calls)
    store.append_message(sid, "tool", "value-of-x", turn_id="t0", tool_call_id="a", name="lookup")
    store.ledger_append(sid, "b", "lookup", {}, turn_id="t0")
    await rig.restart()
    assert store is not None and rig.conversation is not None
    view = await rig.result("session_current")
    assert [c["status"] for c in view["messages"][1]["tool_calls"]] == ["interrupted", "error"]
    rig.provider.rounds = [says("ok")]
    assert (await rig.turn("again", "t1"))["reason"] == "stop"
    sent = rig.provider.calls[-1][0]
    assert [m.role for m in sent] == ["system", "user", "assistant", "tool", "tool", "user"]
    assert isinstance(sent[4], ToolResultMessage) and "interrupted" in sent[4].content and not sent[4].ok


@pytest.mark.parametrize(
    ("decision", "status", "written"),
    [
        pytest.param("allow", "ok", True, id="allowed after the reload"),
        pytest.param("deny", "denied", False, id="denied"),
    ],
)
async def test_a_pending_approval_survives_a_restart(rig: StateRig, decision: str, status: str, written: bool) -> None:
    note = call("save_note", {"path": "n.md", "text": "hello"}, "c1")
    rig.provider.rounds = [says("Let me save.", note), says("Done.")]
    rig.host.send({"type": "user_message", "text": "save a note", "turn_id": "t1"})
    await rig.host.wait_for(lambda: rig.events("approval_needed"))
    await rig.restart(configure=False)  # the approval is re-emitted before any config arrives
    (opened,) = rig.events("session_opened")
    assert opened["resumed_turn"] == "t1"
    assert [p["call_id"] for p in opened["view"]["pending_approvals"]] == ["c1"]
    assert opened["view"]["running_turn"] == "t1"  # it resumes right after the event
    (ask,) = await rig.host.wait_for(lambda: rig.events("approval_needed"))
    assert (ask["call_id"], ask["turn_id"], ask["name"], ask["arguments"]) == (
        "c1",
        "t1",
        "save_note",
        {"path": "n.md", "text": "hello"},
    )
    view = await rig.result("session_current")
    assert [p["call_id"] for p in view["pending_approvals"]] == ["c1"] and view["running_turn"] == "t1"
    assert view["messages"][0]["status"] == "streaming"
    rig.host.send(
        {
            "type": "config",
            "provider": {"kind": "scripted", "base_url": "", "has_key": False},
            "model": "scripted/model",
        }
    )
    rig.host.send({"type": "approval", "call_id": "c1", "decision": decision})
    assert (await rig.finished("t1"))["reason"] == "stop"
    assert (rig.workspace / "n.md").exists() == written
    (done,) = rig.events("tool_finished")
    assert done["status"] == status
    last = rig.provider.calls[-1][0]
    assert isinstance(last[-1], ToolResultMessage) and last[-1].call_id == "c1"
    view = await rig.result("session_current")
    assert view["pending_approvals"] == [] and view["messages"][0]["status"] == "complete"
    assert view["messages"][1]["tool_calls"][0]["decision"] == decision


async def test_a_damaged_save_falls_back_to_the_previous_one(tmp_path: Path) -> None:
    state = tmp_path / "state"
    state.mkdir()
    with Store(state / "previous.sqlite") as good:
        kept = good.create_session("kept from before")
        good.memory_save("likes tea")
    (state / "current.sqlite").write_bytes(b"SQLite format 3\x00" + b"\xff" * 4000)
    (state / "saved_at.json").write_text('{"previous": "2026-11-28T10:00:00Z"}')
    rig = await StateRig(tmp_path, state).start()
    try:
        (notice,) = rig.events("notice")
        assert notice["code"] == "state_previous" and "2026-11-28 10:00" in notice["text"]
        assert rig.events("session_opened")[0]["session_id"] == kept.id
        assert [m["text"] for m in (await rig.result("memory_list"))["memories"]] == ["likes tea"]
        rig.provider.rounds = [says("ok")]
        await rig.turn("hi", "t1")
        assert _state_flushes(rig)[0]["rotate"] is False  # the damaged file must not push out the good one
    finally:
        await rig.stop()


async def test_memory_tools_run_without_asking_and_pinned_memories_reach_the_prompt(rig: StateRig) -> None:
    rig.provider.rounds = [says("", call("memory_save", {"text": "The user's cat is Miso"}, "m1")), says("Noted.")]
    assert (await rig.turn("remember my cat is Miso", "t1"))["reason"] == "stop"
    assert rig.events("approval_needed") == []
    ((memory,),) = [(await rig.result("memory_list"))["memories"]]
    assert memory["text"] == "The user's cat is Miso" and not memory["pinned"]
    await rig.result("memory_update", id=memory["id"], pinned=True)
    rig.provider.rounds = [says("Miso!")]
    await rig.turn("what is my cat called?", "t2")
    system = rig.provider.calls[-1][0][0]
    assert (
        system.role == "system" and "Pinned memories" in system.content and "The user's cat is Miso" in system.content
    )


async def test_saves_asked_for_during_a_save_share_the_next_one() -> None:
    from runtime.host.rpc import Rpc
    from runtime.persist.flusher import Flusher
    from tests.support.framehost import FrameHost

    host = FrameHost()
    held: list[dict[str, Any]] = []
    host.flush_responder = lambda request: held.append(request)  # type: ignore[func-returns-value]
    rpc = Rpc(host.transport)

    async def pump() -> None:
        async for message in host.transport.messages():
            rpc.dispatch(message)

    pumping = asyncio.get_running_loop().create_task(pump())
    flusher = Flusher(rpc, lambda event: None, awaited=lambda: True)
    flusher.enable_state(rotate_first=True)
    try:
        saves = [asyncio.ensure_future(flusher.state()) for _ in range(2)]  # both asked before it starts
        await host.wait_for(lambda: held)
        saves += [asyncio.ensure_future(flusher.state()) for _ in range(3)]  # asked while it is in flight
        for _ in range(2):
            await asyncio.sleep(0.01)
            for request in held:
                host.send({"type": "reply", "id": request["id"], "ok": True, "result": {}})
            held.clear()
        assert await asyncio.wait_for(asyncio.gather(*saves), 5) == [True] * 5
        assert len(host.flushes) == 2  # the first save for the first two, then one for the three that waited
    finally:
        pumping.cancel()
        await host.close()


@pytest.mark.parametrize(
    ("expected", "early", "kept"),
    [
        pytest.param(frozenset({"c1"}), True, True, id="an expected call keeps an early answer"),
        pytest.param(frozenset(), False, False, id="an unexpected answer is refused"),
    ],
)
async def test_an_answer_may_arrive_before_a_resumed_call_waits(
    expected: frozenset[str], early: bool, kept: bool
) -> None:
    from runtime.agent.approvals import Approvals

    approvals = Approvals()
    approvals.expect(expected)
    assert approvals.resolve("c1", "deny") is early
    waiting = asyncio.ensure_future(approvals.wait("c1"))
    await asyncio.sleep(0)
    assert waiting.done() is kept
    if not kept:
        assert approvals.resolve("c1", "allow")
    assert await asyncio.wait_for(waiting, 1) == ("deny" if kept else "allow")


async def test_a_database_from_a_newer_tidepool_is_left_alone(tmp_path: Path) -> None:
    import sqlite3

    state = tmp_path / "state"
    state.mkdir()
    conn = sqlite3.connect(state / "current.sqlite")
    conn.execute("PRAGMA user_version = 999")
    conn.close()
    before = (state / "current.sqlite").read_bytes()
    rig = await StateRig(tmp_path, state).start()
    try:
        (notice,) = rig.events("notice")
        assert notice["code"] == "state_memory" and "not be saved" in notice["text"]
        rig.provider.rounds = [says("ok")]
        assert (await rig.turn("hi", "t1"))["reason"] == "stop"
        assert _state_flushes(rig) == [] and (state / "current.sqlite").read_bytes() == before
        assert len((await rig.result("session_current"))["messages"]) == 2  # kept in memory for this run
    finally:
        await rig.stop()

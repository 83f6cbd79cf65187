"""The next turn's request prepared before Send (``runtime.conversation.prepared``), through a real session
over frames: a turn sent with the prepared part sends byte for byte what a turn built afresh sends, and a
change to any input of the request (the stored conversation, a memory, the settings, the workspace's map,
AGENTS.md, a skill, the tools, the session) throws it away, so the turn after the change sees the change."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest

from runtime.chat.history import estimate_tokens, model_view
from runtime.chat.messages import SystemMessage
from runtime.prompts import workspace_map as workspace_map_module
from runtime.providers.openai_compat import build_request
from runtime.tools.base import tool
from tests.support.rigs import StateRig
from tests.support.scripted import says


def _turns(rig: StateRig):  # type: ignore[no-untyped-def]
    assert rig.conversation is not None
    return rig.conversation.turns


def _body(rig: StateRig) -> bytes:
    messages, tools, model = rig.provider.calls[-1]
    return json.dumps(build_request(messages, tools, model)).encode()


async def _prepared(rig: StateRig) -> None:
    await asyncio.sleep(0.2)  # the runtime prepares on its own once idle
    assert await _turns(rig).preparer.prepare() is not None
    assert _turns(rig).preparer.current()


async def _start(tmp_path: Path, name: str) -> StateRig:
    workspace = tmp_path / name / "ws"
    workspace.mkdir(parents=True)
    (workspace / "notes.md").write_text("hello")
    rig = await StateRig(workspace, tmp_path / name / "state").start()
    rig.provider.rounds = [says("Sure.")]
    return rig


async def test_the_prepared_request_is_what_a_fresh_build_sends(tmp_path: Path) -> None:
    prepared, fresh = await _start(tmp_path, "a"), await _start(tmp_path, "b")
    try:
        for rig in (prepared, fresh):
            await rig.turn("What is in notes.md?", "t1")
            await _prepared(rig)
        _turns(fresh).preparer.drop()  # this one builds the request as a turn always did
        used = [_turns(rig).preparer.used for rig in (prepared, fresh)]
        for rig in (prepared, fresh):
            await rig.turn("And then?", "t2")
        assert [_turns(rig).preparer.used for rig in (prepared, fresh)] == [used[0] + 1, used[1]]
        assert len(prepared.provider.calls[-1][0]) == 4  # system, the first exchange, the new message
        assert _body(prepared) == _body(fresh)
    finally:
        await prepared.stop()
        await fresh.stop()


@tool("read")
def extra_tool(key: str) -> str:
    """Another tool."""
    return key


def _changes(rig: StateRig) -> dict[str, Callable[[], Awaitable[object]]]:
    ws = rig.workspace
    conversation = rig.conversation
    assert conversation is not None

    async def write(path: str, text: str) -> None:
        (ws / path).parent.mkdir(parents=True, exist_ok=True)
        (ws / path).write_text(text)

    async def config(mode: str) -> None:
        rig.host.send(
            {
                "type": "config",
                "provider": {"kind": "scripted", "base_url": "", "has_key": False},
                "model": "scripted/model",
                "permission_mode": mode,
            }
        )
        await rig.host.wait_for(lambda: conversation.configuration.settings.permission_mode == mode)

    async def register() -> None:
        conversation.tools.register(extra_tool)

    skill = "---\nname: tidy\ndescription: Tidy the notes.\n---\nTidy them.\n"
    return {
        "a stored message": lambda: rig.turn("Another question", "t9"),
        "a pinned memory": lambda: rig.result("memory_save", text="The user likes tea.", pinned=True),
        "the permission mode": lambda: config("auto-edit"),
        "a new file in the map": lambda: write("todo.txt", "x"),
        "AGENTS.md written": lambda: write("AGENTS.md", "Answer in French."),
        "AGENTS.md rewritten, same size": lambda: write("AGENTS.md", "Answer in German"),
        "a skill installed": lambda: write(".agents/skills/tidy/SKILL.md", skill),
        "a tool registered": register,
        "a new session": lambda: rig.result("session_new"),
    }


async def test_each_input_of_the_request_invalidates_it(rig: StateRig) -> None:
    rig.provider.rounds = [says("Fine.")]
    (rig.workspace / "AGENTS.md").write_text("Answer in English")
    for what, change in _changes(rig).items():
        await _prepared(rig)
        await asyncio.sleep(0.01)  # a rewrite of the same size is told apart by its time
        await change()
        assert not _turns(rig).preparer.current(), f"{what} did not invalidate the prepared request"


async def test_a_turn_after_a_change_sends_the_change(rig: StateRig) -> None:
    rig.provider.rounds = [says("Fine.")]
    await rig.turn("Hello", "t1")
    await _prepared(rig)
    (rig.workspace / "AGENTS.md").write_text("Always answer in haiku.")
    used = _turns(rig).preparer.used
    await rig.turn("Hello again", "t2")
    assert _turns(rig).preparer.used == used  # out of date: built afresh
    system = rig.provider.calls[-1][0][0]
    assert isinstance(system, SystemMessage) and "Always answer in haiku." in system.content
    used = _turns(rig).preparer.used
    await _prepared(rig)  # prepared again after the turn: used by the next one
    await rig.turn("And once more", "t3")
    assert _turns(rig).preparer.used == used + 1


async def test_nothing_is_prepared_for_a_context_over_the_window_and_the_gauge_counts_it_all(rig: StateRig) -> None:
    rig.provider.rounds = [says("Fine.")]
    await rig.turn("Hello", "t1")
    await _prepared(rig)
    state = rig.conversation.state  # type: ignore[union-attr]
    store, sid = state.opened.store, state.session_id or ""  # type: ignore[union-attr]

    def whole() -> int:  # the gauge's figure, from the view held whole
        plan = _turns(rig).prompt_plan()
        view = model_view(plan.text, store.context_messages(sid))
        return estimate_tokens(view, plan.tools.openai_tools(rig.workspace))

    fits = await rig.result("context_usage")  # counted from the prepared request
    assert fits["used"] == whole() < fits["compact_at"]
    rig.host.send({"type": "config", "context_length": 8192})
    for n in range(60):  # about 9,000 tokens: over the 8,192-token window's trigger
        store.append_message(sid, "user" if n % 2 == 0 else "assistant", f"{n}: " + "word " * 110)
    await asyncio.sleep(0.2)
    assert await _turns(rig).preparer.prepare() is None and not _turns(rig).preparer.current()
    over = await rig.result("context_usage")  # counted a batch at a time
    assert over["limit"] == 8192 and over["used"] == whole() > over["compact_at"]


async def test_a_turn_built_afresh_reads_the_workspace_map_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On a workspace listed on demand, the walk that lists what the map reads is the one the prompt shows:
    the map is not walked again for the prompt (nor once more for a compact one)."""
    store, workspace = tmp_path / "store", tmp_path / "ws"
    (store / "docs").mkdir(parents=True)
    (store / "notes.md").write_text("hello")
    workspace.mkdir()
    capabilities = ("http", "flush", "workspace_fetch")
    rig = await StateRig(workspace, tmp_path / "state", capabilities=capabilities, storage=store).start()
    rig.provider.rounds = [says("Sure."), says("Then this.")]
    try:
        await rig.turn("What is in notes.md?", "t1")
        await asyncio.sleep(0.2)  # idle: prepared (with walks of its own)
        entries, root = workspace_map_module._entries, workspace.resolve()
        calls_at_scans: list[int] = []

        def counted(folder: Path) -> tuple[list[str], list[str], list[str]]:
            if folder.resolve() == root:
                calls_at_scans.append(len(rig.provider.calls))
            return entries(folder)

        monkeypatch.setattr(workspace_map_module, "_entries", counted)
        before = len(rig.provider.calls)
        _turns(rig).preparer.drop()  # built afresh, as an edit or a regenerate is
        await rig.turn("And then?", "t2")
        assert calls_at_scans.count(before) == 1, calls_at_scans
        prompt = rig.provider.calls[before][0][0].content
        assert "notes.md" in prompt and "docs/" in prompt
    finally:
        await rig.stop()


async def test_a_change_during_a_prepare_prepares_once_more_after_it() -> None:
    """What changes while a prepare is under way may have been read before it changed: one more follows (at
    once, unless a later change has its own time due, as an event's settling time)."""
    from runtime.conversation.prepared import Preparer

    keys, listing = iter(range(100)), asyncio.Event()
    started: list[float] = []

    async def listed() -> None:
        started.append(asyncio.get_running_loop().time())
        await listing.wait()

    preparer = Preparer(lambda: (next(keys),), lambda: None, listed, lambda: False, lambda: False)
    preparer.soon(0)
    await asyncio.sleep(0.02)
    assert len(started) == 1  # under way, waiting for its listing
    preparer.soon(0)  # a change meanwhile
    await asyncio.sleep(0.02)
    assert len(started) == 1
    listing.set()
    await asyncio.sleep(0.05)
    assert len(started) == 2  # prepared once more

    listing.clear()
    preparer.soon(0)
    await asyncio.sleep(0.02)
    preparer.soon(0)  # fires during this prepare: it asks for one more after it
    await asyncio.sleep(0.02)
    preparer.soon(0.3)  # and a later change with its own settling time
    listing.set()
    await asyncio.sleep(0.1)
    assert len(started) == 3  # not at once: the later change's time is due
    await asyncio.sleep(0.3)
    assert len(started) == 4
    preparer.close()

"""Delegation through a whole conversation: routing, narrowing, depth, loops, budgets, approvals, Stop,
background tasks and a reload while one runs. The provider answers each agent from its own script (it
tells them apart by the system prompt), so children running at once interleave as they would."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from runtime.agents.child import Budget
from runtime.agents.write_locks import WriteLocks
from runtime.chat.messages import ChatMessage, SystemMessage, ToolResultMessage
from runtime.providers.base import StreamEvent
from runtime.tools import delegate
from runtime.tools.base import ToolContext, tool
from runtime.tools.registry import Registry
from runtime.tools.traits import WorkspacePath
from tests.support import rigs
from tests.support.rigs import StateRig
from tests.support.scripted import Pause, ScriptedProvider, Step, call, says
from tests.unit.tools.support import FakeContext

PROFILES = {
    "reader": "---\nname: reader\ndescription: Looks things up.\ntools: lookup\n---\nYou look things up.\n",
    "writer": "---\nname: writer\ndescription: Saves notes.\ntools: lookup, save_note\n---\nYou save notes.\n",
    "careful": "---\nname: careful\ndescription: Read-only.\ntools: save_note\npermission-mode: read-only\n---\n",
    "boss": "---\nname: boss\ndescription: Hands work on.\ntools: delegate, lookup\n---\nDelegate.\n",
    "boss2": "---\nname: boss2\ndescription: Hands work on.\ntools: delegate\n---\nDelegate.\n",
    "looper": "---\nname: looper\ndescription: Never stops.\ntools: lookup\nmax-rounds: 3\n---\n",
    "bad": "---\nname: bad\ndescription: The closing line is missing.\n",
    "ghost": "---\nname: ghost\ndescription: Names a tool that is not there.\ntools: lookup, frobnicate\n---\n",
}


class RoutedProvider(ScriptedProvider):
    """Each agent's rounds from its own script: ``routes[name]`` (``"parent"``: the chat's own agent)."""

    def __init__(self) -> None:
        super().__init__()
        self.routes: dict[str, list[list[Step]]] = {}
        self.by_agent: dict[str, list[tuple[list[ChatMessage], list[dict[str, Any]]]]] = {}

    async def stream_chat(
        self, messages: Sequence[ChatMessage], tools: list[dict[str, Any]], model: str
    ) -> AsyncIterator[StreamEvent]:
        agent = _agent_of(messages)
        self.by_agent.setdefault(agent, []).append((list(messages), tools))
        script = self.routes[agent]
        self.rounds = [script.pop(0) if len(script) > 1 else script[0]]
        async for event in super().stream_chat(messages, tools, model):
            yield event


def _agent_of(messages: Sequence[ChatMessage]) -> str:
    system = messages[0]
    assert isinstance(system, SystemMessage)
    marker = "## You are the delegated agent '"
    if marker not in system.content:
        return "parent"
    return system.content.split(marker, 1)[1].split("'", 1)[0]


def _tools() -> Registry:
    return Registry([*rigs.registry(), *delegate.TOOLS])


@pytest.fixture
async def rig(tmp_path: Path) -> AsyncIterator[StateRig]:
    workspace = tmp_path / "ws"
    (workspace / ".agents" / "agents").mkdir(parents=True)
    for name, text in PROFILES.items():
        (workspace / ".agents" / "agents" / f"{name}.md").write_text(text)
    started = await StateRig(workspace, tmp_path / "state", provider=RoutedProvider(), tools=_tools).start()
    yield started
    await started.stop()


def routes(rig: StateRig) -> dict[str, list[list[Step]]]:
    assert isinstance(rig.provider, RoutedProvider)
    return rig.provider.routes


def seen(rig: StateRig, agent: str) -> list[tuple[list[ChatMessage], list[dict[str, Any]]]]:
    assert isinstance(rig.provider, RoutedProvider)
    return rig.provider.by_agent.get(agent, [])


def delegated(rig: StateRig, call_id: str = "d1") -> ToolResultMessage:
    """The result the parent's window got for its ``delegate`` call."""
    for messages, _ in seen(rig, "parent"):
        for m in messages:
            if isinstance(m, ToolResultMessage) and m.call_id == call_id:
                return m
    raise AssertionError(f"no result for {call_id}")


def names(tools: list[dict[str, Any]]) -> list[str]:
    return [t["function"]["name"] for t in tools]


async def test_a_child_gets_only_its_tools_and_the_parent_only_its_result(rig: StateRig) -> None:
    routes(rig)["parent"] = [says("", call("delegate", {"agent": "reader", "task": "find k"}, "d1")), says("Done.")]
    routes(rig)["reader"] = [
        says("", call("save_note", {"path": "x.md", "text": "no"}, "r1")),
        says("", call("lookup", {"key": "k"}, "r2")),
        says("k is value-of-k."),
    ]
    assert (await rig.turn("delegate it"))["reason"] == "stop"
    child_requests = seen(rig, "reader")
    assert [names(tools) for _, tools in child_requests] == [["lookup"]] * 3  # narrowed for the provider
    refused = next(m for m in child_requests[1][0] if isinstance(m, ToolResultMessage) and m.call_id == "r1")
    assert not refused.ok and "no tool 'save_note'" in refused.content  # and refused at lookup
    assert not (rig.workspace / "x.md").exists()
    result = delegated(rig)
    assert result.ok and "done" in result.content and "k is value-of-k." in result.content
    assert "Files changed: none" in result.content
    parent_messages = [m for messages, _ in seen(rig, "parent") for m in messages]
    assert not [m for m in parent_messages if getattr(m, "call_id", None) in ("r1", "r2")]  # stayed in the child
    assert not [m for m in parent_messages if "value-of-k" in str(m) and m != result]
    tasks = rig.events("agent_task")
    assert [(t["agent"], t["status"], t["turn_id"], t["call_id"]) for t in tasks] == [
        ("reader", "running", "t1", "d1"),
        ("reader", "done", "t1", "d1"),
    ]
    listed = await rig.result("sessions_list")
    assert tasks[0]["session_id"] not in [s["id"] for s in listed["sessions"]]  # not in the session list
    exported = await rig.result("session_export", session_id=tasks[0]["session_id"])
    assert "find k" in exported["text"] and "k is value-of-k." in exported["text"]  # but readable


@pytest.mark.parametrize(
    ("agent", "phrase"),
    [
        pytest.param("nobody", "There is no agent profile 'nobody'. Profiles: general, explore", id="unknown"),
        pytest.param(
            "bad",
            "The profile 'bad' cannot be used: The frontmatter cannot be read: The frontmatter has no closing",
            id="broken frontmatter",
        ),
    ],
)
async def test_bad_profiles_are_refused_with_the_reason(rig: StateRig, agent: str, phrase: str) -> None:
    routes(rig)["parent"] = [says("", call("delegate", {"agent": agent, "task": "x"}, "d1")), says("Ok.")]
    await rig.turn("go")
    result = delegated(rig)
    assert not result.ok and phrase in result.content
    assert not rig.events("agent_task") and not seen(rig, agent)


async def test_a_profile_naming_tools_that_do_not_exist_runs_without_them_and_says_so(rig: StateRig) -> None:
    routes(rig)["parent"] = [says("", call("delegate", {"agent": "ghost", "task": "x"}, "d1")), says("Ok.")]
    routes(rig)["ghost"] = [says("Done without it.")]
    await rig.turn("go")
    assert [names(tools) for _, tools in seen(rig, "ghost")] == [["lookup"]]
    result = delegated(rig)
    assert result.ok and "frobnicate is not a tool here; left out." in result.content


async def test_depth_limit_and_loops_are_refused(rig: StateRig) -> None:
    routes(rig)["parent"] = [says("", call("delegate", {"agent": "boss", "task": "a"}, "d1")), says("Ok.")]
    routes(rig)["boss"] = [
        says("", call("delegate", {"agent": "boss", "task": "again"}, "b1")),
        says("", call("delegate", {"agent": "boss2", "task": "deeper"}, "b2")),
        says("Boss done."),
    ]
    routes(rig)["boss2"] = [says("", call("delegate", {"agent": "reader", "task": "deepest"}, "c1")), says("B2.")]
    await rig.turn("go")
    boss_last = seen(rig, "boss")[-1][0]
    loop = next(m for m in boss_last if isinstance(m, ToolResultMessage) and m.call_id == "b1")
    assert not loop.ok and "boss → boss is a loop" in loop.content
    deep = next(m for m in seen(rig, "boss2")[-1][0] if isinstance(m, ToolResultMessage) and m.call_id == "c1")
    assert not deep.ok and "at most 2 levels deep" in deep.content
    assert not seen(rig, "reader")
    assert "Boss done." in delegated(rig).content
    assert [t["agent"] for t in rig.events("agent_task")] == ["boss", "boss"]  # the chat shows its own tasks


@pytest.mark.parametrize(
    ("chain", "refused"),
    [
        pytest.param({"parent": ("boss", "d1")}, "boss → boss is a loop", id="the-chat-to-its-own-profile"),
        pytest.param({"parent": ("boss2", "d1"), "boss2": ("boss", "c1")}, "boss → boss2 → boss", id="through-a-child"),
    ],
)
async def test_the_chats_own_profile_counts_in_the_loop_check(
    rig: StateRig, chain: dict[str, tuple[str, str]], refused: str
) -> None:
    assert (await rig.request("session_agent_set", agent="boss"))["ok"]  # the chat runs under boss
    for who, (agent, call_id) in chain.items():
        routes(rig)[who] = [says("", call("delegate", {"agent": agent, "task": "again"}, call_id)), says(f"{who} ok.")]
    await rig.turn("go")
    who, (agent, call_id) = list(chain.items())[-1]
    result = next(m for m in seen(rig, who)[-1][0] if isinstance(m, ToolResultMessage) and m.call_id == call_id)
    assert not result.ok and refused in result.content and "Do it here." in result.content
    assert not seen(rig, "boss")  # nothing ran as boss but the chat itself


async def test_a_child_that_never_stops_ends_at_its_rounds(rig: StateRig) -> None:
    routes(rig)["parent"] = [says("", call("delegate", {"agent": "looper", "task": "forever"}, "d1")), says("Ok.")]
    routes(rig)["looper"] = [says("Still going.", call("lookup", {"key": "k"}, "l1"))]
    await rig.turn("go")
    assert len(seen(rig, "looper")) == 3
    result = delegated(rig)
    assert not result.ok and "used all 3 of its rounds" in result.content and "What to do:" in result.content
    assert rig.events("agent_task")[-1]["status"] == "failed"


async def test_a_child_is_cut_at_its_token_budget(rig: StateRig) -> None:
    assert rig.conversation is not None
    rig.conversation.delegation.budget = Budget(rounds=8, tokens=40)
    routes(rig)["parent"] = [says("", call("delegate", {"agent": "reader", "task": "t"}, "d1")), says("Ok.")]
    routes(rig)["reader"] = [says("", call("lookup", {"key": "k"}, "l1"))]  # 15 tokens a round
    await rig.turn("go")
    assert len(seen(rig, "reader")) == 3
    result = delegated(rig)
    assert not result.ok and "over its budget of 40 tokens" in result.content


async def test_a_childs_approval_is_asked_in_the_parent_chat_naming_it(rig: StateRig) -> None:
    routes(rig)["parent"] = [says("", call("delegate", {"agent": "writer", "task": "save"}, "d1")), says("Ok.")]
    routes(rig)["writer"] = [says("", call("save_note", {"path": "n.md", "text": "hi"}, "w1")), says("Saved n.md.")]
    rig.host.send({"type": "user_message", "text": "go", "turn_id": "t1"})
    (ask,) = await rig.host.wait_for(lambda: rig.events("approval_needed"))
    assert (ask["agent"], ask["turn_id"], ask["name"], ask["call_id"]) == ("writer", "t1", "save_note", "w1")
    rig.host.send({"type": "approval", "call_id": "w1", "decision": "allow"})
    assert (await rig.finished("t1"))["reason"] == "stop"
    assert (rig.workspace / "n.md").read_text() == "hi"
    result = delegated(rig)
    assert result.ok and "Files changed: n.md." in result.content
    assert [e["call_id"] for e in rig.events("tool_finished")] == ["w1", "d1"]  # the asked call's card, then ours


async def test_a_child_never_runs_wider_than_its_profile_or_the_parent(rig: StateRig) -> None:
    routes(rig)["parent"] = [says("", call("delegate", {"agent": "careful", "task": "save"}, "d1")), says("Ok.")]
    routes(rig)["careful"] = [says("", call("save_note", {"path": "n.md", "text": "hi"}, "w1")), says("Could not.")]
    await rig.turn("go")
    assert not rig.events("approval_needed") and not (rig.workspace / "n.md").exists()
    denied = next(m for m in seen(rig, "careful")[1][0] if isinstance(m, ToolResultMessage))
    assert "not allowed" in denied.content


async def test_stop_stops_a_foreground_child(rig: StateRig) -> None:
    pause = Pause()
    routes(rig)["parent"] = [says("", call("delegate", {"agent": "reader", "task": "slow"}, "d1")), says("Ok.")]
    routes(rig)["reader"] = [[pause, *says("never")]]
    rig.host.send({"type": "user_message", "text": "go", "turn_id": "t1"})
    await rig.host.wait_for(lambda: seen(rig, "reader"))
    rig.host.send({"type": "abort_turn"})
    assert (await rig.finished("t1"))["reason"] == "aborted"
    await rig.host.wait_for(lambda: rig.events("agent_task")[-1]["status"] == "stopped")


async def test_background_children_run_while_the_parent_goes_on(rig: StateRig) -> None:
    gates = [Pause(), Pause()]
    routes(rig)["parent"] = [
        says(
            "",
            call("delegate", {"agent": "reader", "task": "one", "background": True}, "d1"),
            call("delegate", {"agent": "writer", "task": "two", "background": True}, "d2"),
        ),
        says("Started both."),
    ]
    routes(rig)["reader"] = [[gates[0], *says("Reader answer.")]]
    routes(rig)["writer"] = [[gates[1], *says("Writer answer.")]]
    assert (await rig.turn("go"))["reason"] == "stop"  # the parent's turn ended; both children still run
    running = [t for t in rig.events("agent_task") if t["status"] == "running"]
    assert [t["agent"] for t in running] == ["reader", "writer"] and all(t["background"] for t in running)
    first = delegated(rig, "d1")
    task_id = running[0]["task_id"]
    assert task_id in first.content and "task_result" in first.content
    routes(rig)["parent"] = [says("", call("task_result", {"task_id": task_id}, "q1")), says("Waiting.")]
    await rig.turn("how is it", "t2")
    assert "still running" in delegated(rig, "q1").content
    gates[1].gate.set()  # the second finishes first
    await rig.host.wait_for(lambda: [t["agent"] for t in rig.events("agent_task") if t["status"] == "done"])
    gates[0].gate.set()
    await rig.host.wait_for(lambda: len([t for t in rig.events("agent_task") if t["status"] == "done"]) == 2)
    routes(rig)["parent"] = [says("", call("task_result", {"task_id": task_id}, "q2")), says("Got it.")]
    await rig.turn("and now", "t3")
    got = delegated(rig, "q2")
    assert got.ok and "Reader answer." in got.content


async def test_a_reload_leaves_a_running_child_stopped(rig: StateRig) -> None:
    routes(rig)["parent"] = [
        says("", call("delegate", {"agent": "reader", "task": "long", "background": True}, "d1")),
        says("Started."),
    ]
    routes(rig)["reader"] = [[Pause(), *says("never")]]
    await rig.turn("go")
    await rig.host.wait_for(lambda: seen(rig, "reader"))
    task_id = rig.events("agent_task")[0]["task_id"]
    await rig.restart()
    routes(rig)["parent"] = [says("", call("task_result", {"task_id": task_id}, "q1")), says("Ok.")]
    await rig.turn("what happened", "t2")
    result = delegated(rig, "q1")
    assert not result.ok and "the page was reloaded" in result.content


async def test_stop_stops_background_children(rig: StateRig) -> None:
    routes(rig)["parent"] = [
        says("", call("delegate", {"agent": "reader", "task": "long", "background": True}, "d1")),
        says("", call("lookup", {"key": "k"}, "p2")),
        says("never"),
    ]
    routes(rig)["reader"] = [[Pause(), *says("never")]]
    parent_gate = Pause()
    routes(rig)["parent"][1] = [parent_gate, *routes(rig)["parent"][1]]
    rig.host.send({"type": "user_message", "text": "go", "turn_id": "t1"})
    await rig.host.wait_for(lambda: seen(rig, "reader") and len(seen(rig, "parent")) == 2)
    rig.host.send({"type": "abort_turn"})
    assert (await rig.finished("t1"))["reason"] == "aborted"
    await rig.host.wait_for(lambda: rig.events("agent_task")[-1]["status"] == "stopped")
    await asyncio.sleep(0)


async def test_childrens_writes_to_one_file_run_one_at_a_time(tmp_path: Path) -> None:
    order: list[str] = []

    @tool("write")
    async def slow_write(ctx: ToolContext, path: WorkspacePath, tag: str) -> str:
        """Write slowly."""
        order.append(f"{tag}+")
        await asyncio.sleep(0.01)
        order.append(f"{tag}-")
        return tag

    locked = WriteLocks().serialized(slow_write)
    ctx = FakeContext(tmp_path)
    await asyncio.gather(*(locked.call(ctx, {"path": "a.md", "tag": t}) for t in ("a1", "a2")))
    assert order == ["a1+", "a1-", "a2+", "a2-"]
    order.clear()
    await asyncio.gather(locked.call(ctx, {"path": "a.md", "tag": "a"}), locked.call(ctx, {"path": "b.md", "tag": "b"}))
    assert order == ["a+", "b+", "a-", "b-"]  # other files go on at once


async def test_a_background_childs_usage_counts_in_the_parents_usage(rig: StateRig) -> None:
    gate = Pause()
    routes(rig)["parent"] = [
        says("", call("delegate", {"agent": "reader", "task": "later", "background": True}, "d1")),
        says("Started."),
    ]
    routes(rig)["reader"] = [[gate, *says("", call("lookup", {"key": "k"}, "r1"))], says("k is value-of-k.")]
    await rig.turn("go")
    assert [e["turn_id"] for e in rig.events("usage")] == ["t1", "t1"]  # the parent's own two rounds
    gate.gate.set()  # the child runs after the parent's turn ended
    await rig.host.wait_for(lambda: rig.events("agent_task")[-1]["status"] == "done")
    usage = rig.events("usage")
    assert [e["turn_id"] for e in usage] == ["t1"] * 4  # and its two rounds, under the turn that delegated it
    assert sum(e["total_tokens"] for e in usage) == 60 and sum(e["cost"] for e in usage) == pytest.approx(0.004)
    store = rig.conversation.state.opened.store  # type: ignore[union-attr]
    (task,) = store.agent_tasks(store.list_sessions()[0].id)
    assert "tokens: 30, cost $0.0020" in (task.result or "")  # the delegate call's result names what it cost


async def test_the_chats_writes_and_a_background_childs_to_one_file_take_turns(tmp_path: Path) -> None:
    inside: list[str] = []
    overlapped: list[str] = []

    @tool("write")
    async def slow_note(ctx: ToolContext, path: WorkspacePath, text: str) -> str:
        """Write a note slowly."""
        if inside:
            overlapped.append(f"{text} while {inside[0]}")
        inside.append(text)
        await asyncio.sleep(0.5)
        (ctx.workspace / path).write_text(text)
        inside.remove(text)
        return "saved"

    workspace = tmp_path / "ws"
    (workspace / ".agents" / "agents").mkdir(parents=True)
    (workspace / ".agents" / "agents" / "noter.md").write_text(
        "---\nname: noter\ndescription: Notes.\ntools: slow_note\n---\n"
    )
    tools = lambda: Registry([*_tools(), slow_note])  # noqa: E731
    rig = await StateRig(workspace, tmp_path / "state", provider=RoutedProvider(), tools=tools).start()
    try:
        rig.host.send({"type": "config", "permission_mode": "full-auto"})
        routes(rig)["parent"] = [
            says("", call("delegate", {"agent": "noter", "task": "note", "background": True}, "d1")),
            says("", call("slow_note", {"path": "n.md", "text": "parent"}, "p1")),
            says("Saved."),
        ]
        routes(rig)["noter"] = [says("", call("slow_note", {"path": "n.md", "text": "child"}, "c1")), says("Done.")]
        await rig.turn("go")
        await rig.host.wait_for(lambda: rig.events("agent_task")[-1]["status"] == "done")
        assert (workspace / "n.md").read_text() in ("parent", "child")  # both ran: one of them last
        assert overlapped == []  # one write to n.md at a time, the chat's too
    finally:
        await rig.stop()

"""Tool calls as a hostile or sloppy model sends them: repeated ids, missing ids, arguments changed later.

Every call of a reply gets its own id, so each has its own approval card, its own decision and its own
result; "allow for this session" grants exactly the tool of the card it was pressed on; an approval
holds for the tool and arguments the card showed, never for a call that changed after it.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from runtime.agent.calls import unique_call_ids
from runtime.boot import BootConfig, boot
from runtime.chat.messages import ToolCall, ToolResultMessage
from runtime.host.http import HttpClient
from runtime.policy.hooks import HookCall, Hooks
from runtime.policy.permissions import Policy
from runtime.providers.base import ProviderEndpoint
from runtime.providers.registry import ProviderRegistry
from runtime.tools.base import ToolContext, tool
from runtime.tools.registry import Registry
from tests.support.framehost import FrameHost
from tests.support.scripted import ScriptedProvider, call, says


@tool("write")
def save_note(ctx: ToolContext, path: str, text: str) -> str:
    """Save a note in the workspace."""
    (ctx.workspace / path).write_text(text)
    return f"saved {path}"


@tool("execute")
def run_code(ctx: ToolContext, code: str) -> str:
    """Pretend to run code (records that it ran)."""
    (ctx.workspace / "ran.txt").write_text(code)
    return "ran"


class Rig:
    def __init__(self, host: FrameHost, provider: ScriptedProvider, task: asyncio.Task[None], workspace: Path):
        self.host, self.provider, self.task, self.workspace = host, provider, task, workspace

    async def asks(self, count: int) -> list[dict[str, Any]]:
        return await self.host.wait_for(lambda: (e := self.host.events("approval_needed"))[count - 1 :] and e)  # type: ignore[no-any-return]

    async def finished(self, turn_id: str) -> dict[str, Any]:
        def done() -> Any:
            return next((e for e in self.host.events("turn_finished") if e["turn_id"] == turn_id), None)

        return await self.host.wait_for(done)  # type: ignore[no-any-return]


async def start(workspace: Path, hooks: Hooks | None = None) -> Rig:
    provider = ScriptedProvider()
    providers = ProviderRegistry()

    def make(settings: ProviderEndpoint, http: HttpClient) -> ScriptedProvider:
        return provider

    providers.register("scripted", make)
    host = FrameHost()
    config = BootConfig(
        workspace=workspace,
        tools=lambda: Registry([save_note, run_code]),
        providers=lambda: providers,
        gate=lambda mode: Policy("ask"),
        hooks=lambda: hooks or Hooks(),
    )
    session = boot(config, host.transport)
    task = asyncio.get_running_loop().create_task(session.run())
    host.send({"type": "hello", "protocol": 1, "capabilities": []})
    host.send(
        {
            "type": "config",
            "provider": {"kind": "scripted", "base_url": "", "has_key": False},
            "model": "scripted/model",
            "permission_mode": "ask",
        }
    )
    await host.wait_for(lambda: host.events("ready"))
    return Rig(host, provider, task, workspace)


@pytest.fixture
async def rig(tmp_path: Path) -> AsyncIterator[Rig]:
    r = await start(tmp_path)
    yield r
    await r.host.close()
    await asyncio.wait_for(r.task, 5)


def test_repeated_and_missing_ids_are_replaced() -> None:
    calls = [
        ToolCall("dup", "a", "{}"),
        ToolCall("dup", "b", "{}"),
        ToolCall("", "c", "{}"),
        ToolCall("x", "d", "{}"),
        ToolCall("dup", "e", "{}"),
    ]
    fresh = lambda call_id: call_id or "call_new"  # noqa: E731 - what the ledger would say: "" is never kept
    unique = unique_call_ids(calls, fresh)
    ids = [c.id for c in unique]
    assert len(set(ids)) == len(ids) == 5
    assert (ids[0], ids[2], ids[3]) == ("dup", "call_new", "x")
    assert [c.name for c in unique] == ["a", "b", "c", "d", "e"]


async def test_one_id_for_two_calls_still_asks_twice_and_grants_the_right_tool(rig: Rig) -> None:
    rig.provider.rounds = [
        says("", call("save_note", {"path": "n.md", "text": "hi"}, "c1"), call("run_code", {"code": "boom"}, "c1")),
        says("Done."),
    ]
    rig.host.send({"type": "user_message", "text": "go", "turn_id": "t1"})
    (first,) = await rig.asks(1)
    assert (first["name"], first["arguments"]) == ("save_note", {"path": "n.md", "text": "hi"})
    rig.host.send({"type": "approval", "call_id": first["call_id"], "decision": "allow_session"})
    _, second = await rig.asks(2)
    assert second["call_id"] != first["call_id"]
    assert (second["name"], second["arguments"]) == ("run_code", {"code": "boom"})
    assert not (rig.workspace / "ran.txt").exists()  # the first answer did not run the second call
    rig.host.send({"type": "approval", "call_id": second["call_id"], "decision": "deny"})
    assert (await rig.finished("t1"))["reason"] == "stop"
    assert (rig.workspace / "n.md").exists() and not (rig.workspace / "ran.txt").exists()
    results = [m for m in rig.provider.calls[1][0] if isinstance(m, ToolResultMessage)]
    assert [(r.call_id, r.name, r.ok) for r in results] == [
        (first["call_id"], "save_note", True),
        (second["call_id"], "run_code", False),
    ]
    # the session grant is save_note's, the tool the card showed: run_code still asks
    rig.provider.rounds = [says("", call("run_code", {"code": "again"}, "c9")), says("ok")]
    rig.host.send({"type": "user_message", "text": "again", "turn_id": "t2"})
    await rig.asks(3)
    rig.host.send({"type": "abort_turn"})
    assert (await rig.finished("t2"))["reason"] == "aborted"


async def test_an_approval_does_not_cover_arguments_changed_after_it(tmp_path: Path) -> None:
    def swap(call: HookCall) -> HookCall:
        return HookCall(call.call_id, call.tool, {**call.arguments, "code": "something else"})

    r = await start(tmp_path, Hooks(pre=[swap]))
    try:
        r.provider.rounds = [says("", call("run_code", {"code": "print(1)"}, "c1")), says("ok")]
        r.host.send({"type": "user_message", "text": "go", "turn_id": "t1"})
        (ask,) = await r.asks(1)
        r.host.send({"type": "approval", "call_id": ask["call_id"], "decision": "allow"})
        await r.finished("t1")
        (done,) = r.host.events("tool_finished")
        assert (done["status"], done["ok"]) == ("denied", False)
        assert "changed after the user approved it" in done["result"]
        assert not (tmp_path / "ran.txt").exists()
    finally:
        await r.host.close()
        await asyncio.wait_for(r.task, 5)

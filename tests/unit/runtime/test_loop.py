"""The agent loop through a real Conversation: a scripted provider registered in the real provider registry,
tools registered in a real Registry, the host played over a real FeedTransport."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from runtime.agent.gate import Gate
from runtime.boot import BootConfig, boot
from runtime.chat.messages import AssistantMessage, ToolCall, ToolResultMessage, UserMessage
from runtime.conversation.conversation import Conversation
from runtime.errors import ProviderError
from runtime.host.http import HttpClient
from runtime.policy.hooks import Denied, HookCall, Hooks, default_hooks
from runtime.policy.permissions import Policy
from runtime.providers.base import Finished, ProviderEndpoint, TextDelta
from runtime.providers.registry import ProviderRegistry
from runtime.tools.base import ToolContext, ToolError, tool
from runtime.tools.registry import Registry
from runtime.tools.skills import activate_skill
from tests.support.framehost import FrameHost
from tests.support.gates import AllowReadsGate
from tests.support.rigs import Driver
from tests.support.scripted import Pause, ScriptedProvider, call, says


@tool("read")
def lookup(key: str) -> str:
    """Look a key up."""
    return f"value-of-{key}"


@tool("write")
def save_note(ctx: ToolContext, path: str, text: str) -> str:
    """Save a note in the workspace."""
    (ctx.workspace / path).write_text(text)
    return f"saved {path}"


@tool("read")
def explode() -> str:
    """Always crashes."""
    raise RuntimeError("kaboom")


@tool("read")
def refuse(what: str) -> str:
    """Fails the way tools fail on purpose."""
    raise ToolError(f"no such thing: {what}")


@tool("read")
def big() -> str:
    """Returns a lot."""
    return "line\n" * 10_000


@tool("read")
def leak() -> str:
    """Returns a secret-looking string."""
    return "the key is sk-or-v1-" + "0123456789abcdef" * 2  # made up; built so no key-shaped string is committed


@dataclass
class Rig(Driver):
    host: FrameHost
    provider: ScriptedProvider
    conversation: Conversation
    task: asyncio.Task[None]
    workspace: Path

    def kinds(self) -> list[str]:
        return [e["kind"] for e in self.host.events() if e["kind"] not in ("ready", "session_opened", "notice")]


async def _rig(
    tmp_path: Path,
    max_rounds: int = 12,
    configure: bool = True,
    gate: Callable[[str], Gate] = lambda mode: AllowReadsGate(),
    hooks: Callable[[], Hooks] = default_hooks,
    mode: str = "ask",
) -> Rig:
    provider = ScriptedProvider()
    providers = ProviderRegistry()

    def make(settings: ProviderEndpoint, http: HttpClient) -> ScriptedProvider:
        return provider

    providers.register("scripted", make)
    host = FrameHost()
    config = BootConfig(
        workspace=tmp_path,
        max_rounds=max_rounds,
        tools=lambda: Registry([lookup, save_note, explode, refuse, big, leak, activate_skill]),
        providers=lambda: providers,
        gate=gate,
        hooks=hooks,
    )
    conversation = boot(config, host.transport)
    task = asyncio.get_running_loop().create_task(conversation.run())
    host.send({"type": "hello", "protocol": 1, "capabilities": []})
    if configure:
        host.send(
            {
                "type": "config",
                "provider": {"kind": "scripted", "base_url": "", "has_key": False},
                "model": "scripted/model",
                "permission_mode": mode,
            }
        )
    await host.wait_for(lambda: host.events("ready"))
    return Rig(host, provider, conversation, task, tmp_path)


@pytest.fixture
async def rig(tmp_path: Path) -> AsyncIterator[Rig]:
    r = await _rig(tmp_path)
    yield r
    await r.host.close()
    await asyncio.wait_for(r.task, 5)


async def test_text_turn(rig: Rig) -> None:
    rig.provider.rounds = [says("Hello there")]
    assert (await rig.turn("hi"))["reason"] == "stop"
    assert rig.kinds() == ["turn_started", "text_delta", "text_delta", "usage", "turn_finished"]
    assert "".join(e["text"] for e in rig.host.events("text_delta")) == "Hello there"
    (usage,) = rig.host.events("usage")
    assert (usage["total_tokens"], usage["cost"], usage["turn_id"]) == (15, 0.001, "t1")
    assert rig.conversation.sessions.history == [UserMessage("hi"), AssistantMessage("Hello there")]
    messages, tools, model = rig.provider.calls[0]
    assert messages[0].role == "system" and "`save_note` (write)" in messages[0].content
    assert [t["function"]["name"] for t in tools] == [
        "lookup",
        "save_note",
        "explode",
        "refuse",
        "big",
        "leak",
    ]  # activate_skill is offered only when a skill is installed
    assert model == "scripted/model"


async def test_the_request_goes_out_before_the_message_is_stored(rig: Rig) -> None:
    """Time to first token: the message is stored while its request travels, and before the reply is."""
    stored_when_asked: list[list[object]] = []
    stream = rig.provider.stream_chat

    def watching(messages: Any, tools: Any, model: str) -> AsyncIterator[Any]:
        stored_when_asked.append(list(rig.conversation.sessions.history))
        return stream(messages, tools, model)

    rig.provider.stream_chat = watching  # type: ignore[method-assign]
    pause = Pause()
    rig.provider.rounds = [[pause, *says("Hi")]]
    rig.host.send({"type": "user_message", "text": "hello", "turn_id": "t1"})
    await rig.host.wait_for(lambda: rig.provider.calls)
    assert stored_when_asked == [[]]
    assert rig.provider.calls[0][0][-1] == UserMessage("hello")  # the request has it all the same
    async def stored() -> None:  # while the provider has not answered
        while rig.conversation.sessions.history != [UserMessage("hello")]:
            await asyncio.sleep(0.01)

    await asyncio.wait_for(stored(), 10)
    pause.gate.set()
    assert (await rig.finished("t1"))["reason"] == "stop"
    assert rig.conversation.sessions.history == [UserMessage("hello"), AssistantMessage("Hi")]


async def test_a_turn_that_fails_at_once_keeps_the_message(rig: Rig) -> None:
    rig.provider.rounds = [[ProviderError("server", "The provider is down.")]]
    assert (await rig.turn("are you there?"))["reason"] == "error"
    assert rig.conversation.sessions.history == [UserMessage("are you there?")]


async def test_tool_call_result_goes_back_to_the_model(rig: Rig) -> None:
    rig.provider.rounds = [says("Looking.", call("lookup", {"key": "k1"})), says("It is value-of-k1.")]
    assert (await rig.turn("what is k1?"))["reason"] == "stop"
    (finished,) = rig.host.events("tool_finished")
    assert (finished["name"], finished["ok"], finished["status"], finished["result"]) == (
        "lookup",
        True,
        "ok",
        "value-of-k1",
    )
    assert rig.host.events("tool_started")[0]["arguments"] == {"key": "k1"}
    assert len(rig.provider.calls) == 2
    second_messages, second_tools, _ = rig.provider.calls[1]
    assert second_messages[-1] == ToolResultMessage("c1", "lookup", "value-of-k1", True)
    assert second_tools == rig.provider.calls[0][1]  # tools on every request


@pytest.mark.parametrize(
    ("decision", "status", "written"),
    [
        pytest.param("allow", "ok", True, id="allow once"),
        pytest.param("allow_session", "ok", True, id="allow for the session"),
        pytest.param("deny", "denied", False, id="deny"),
    ],
)
async def test_approval(rig: Rig, decision: str, status: str, written: bool) -> None:
    rig.provider.rounds = [says("", call("save_note", {"path": "n.md", "text": "hello"})), says("Done.")]
    rig.host.send({"type": "user_message", "text": "save it", "turn_id": "t1"})
    (ask,) = await rig.host.wait_for(lambda: rig.host.events("approval_needed"))
    assert (ask["name"], ask["call_id"], ask["arguments"], ask["effect"]) == (
        "save_note",
        "c1",
        {"path": "n.md", "text": "hello"},
        "write",
    )
    assert not (rig.workspace / "n.md").exists()
    rig.host.send({"type": "approval", "call_id": "c1", "decision": decision})
    assert (await rig.finished("t1"))["reason"] == "stop"
    assert rig.host.events("tool_finished")[0]["status"] == status
    assert (rig.workspace / "n.md").exists() == written
    result = rig.provider.calls[1][0][-1]
    assert isinstance(result, ToolResultMessage)
    assert ("denied" in result.content) == (decision == "deny")
    # a session grant means the next call runs without asking
    rig.provider.rounds = [says("", call("save_note", {"path": "m.md", "text": "x"}, "c2")), says("ok")]
    rig.host.send({"type": "user_message", "text": "again", "turn_id": "t2"})
    if decision == "allow_session":
        await rig.finished("t2")
        assert len(rig.host.events("approval_needed")) == 1
    else:
        await rig.host.wait_for(lambda: len(rig.host.events("approval_needed")) == 2)
        rig.host.send({"type": "abort_turn"})
        assert (await rig.finished("t2"))["reason"] == "aborted"


@pytest.mark.parametrize(
    ("tool_call", "phrase"),
    [
        pytest.param(call("explode", {}), "RuntimeError: kaboom", id="a tool that raises"),
        pytest.param(call("refuse", {"what": "x"}), "Error: no such thing: x", id="a ToolError"),
        pytest.param(call("nope", {}), "there is no tool 'nope'", id="an unknown tool"),
        pytest.param(call("lookup", '{"key": '), "not valid JSON", id="arguments that are not JSON"),
        pytest.param(call("lookup", "[1]"), "must be a JSON object", id="arguments that are not an object"),
        pytest.param(call("lookup", {"wrong": 1}), "TypeError", id="arguments that do not fit"),
    ],
)
async def test_tool_failures_become_results(rig: Rig, tool_call: ToolCall, phrase: str) -> None:
    rig.provider.rounds = [says("", tool_call), says("Sorry.")]
    assert (await rig.turn("go"))["reason"] == "stop"
    (finished,) = rig.host.events("tool_finished")
    assert (finished["ok"], finished["status"]) == (False, "error")
    assert phrase in finished["result"]
    result = rig.provider.calls[1][0][-1]
    assert isinstance(result, ToolResultMessage) and phrase in result.content and not result.ok


async def test_abort_mid_stream_keeps_partial_text(rig: Rig) -> None:
    pause = Pause()
    rig.provider.rounds = [[TextDelta("Partial ans"), pause, TextDelta("never"), Finished("stop", "x")]]
    rig.host.send({"type": "user_message", "text": "long question", "turn_id": "t1"})
    await rig.host.wait_for(lambda: rig.host.events("text_delta"))
    rig.host.send({"type": "abort_turn"})
    assert (await rig.finished("t1"))["reason"] == "aborted"
    assert [e["text"] for e in rig.host.events("text_delta")] == ["Partial ans"]
    assert rig.conversation.sessions.history == [UserMessage("long question"), AssistantMessage("Partial ans")]
    rig.provider.rounds = [says("Fine.")]
    assert (await rig.turn("next", "t2"))["reason"] == "stop"
    assert rig.provider.calls[-1][0][1:] == [
        UserMessage("long question"),
        AssistantMessage("Partial ans"),
        UserMessage("next"),
    ]


async def test_abort_while_waiting_for_approval(rig: Rig) -> None:
    rig.provider.rounds = [says("Saving.", call("save_note", {"path": "n.md", "text": "t"}))]
    rig.host.send({"type": "user_message", "text": "save", "turn_id": "t1"})
    await rig.host.wait_for(lambda: rig.host.events("approval_needed"))
    rig.host.send({"type": "abort_turn"})
    assert (await rig.finished("t1"))["reason"] == "aborted"
    assert rig.conversation.approvals.pending() == []
    last = rig.conversation.sessions.history[-1]
    assert isinstance(last, ToolResultMessage) and last.call_id == "c1" and not last.ok  # the history stays valid


async def test_max_rounds(tmp_path: Path) -> None:
    r = await _rig(tmp_path, max_rounds=3)
    try:
        r.provider.rounds = [says("again", call("lookup", {"key": "k"}))]
        assert (await r.turn("loop forever"))["reason"] == "max_rounds"
        assert len(r.provider.calls) == 3
        assert len(r.host.events("tool_finished")) == 3
    finally:
        await r.host.close()
        await asyncio.wait_for(r.task, 5)


async def test_provider_error_ends_the_turn(rig: Rig) -> None:
    failure = ProviderError("credits", "Out of credits. Add credits at openrouter.ai/settings/credits.", status=402)
    rig.provider.rounds = [[TextDelta("Hm"), failure]]
    assert (await rig.turn("hi"))["reason"] == "error"
    (error,) = rig.host.events("error")
    assert (error["code"], error["turn_id"], error["retryable"]) == ("credits", "t1", False)
    assert "openrouter.ai/settings/credits" in error["message"]
    assert rig.conversation.sessions.history[-1] == AssistantMessage("Hm")


async def test_a_second_message_while_busy_is_refused(rig: Rig) -> None:
    pause = Pause()
    rig.provider.rounds = [[TextDelta("a"), pause, Finished("stop", "a")]]
    rig.host.send({"type": "user_message", "text": "one", "turn_id": "t1"})
    await rig.host.wait_for(lambda: rig.host.events("text_delta"))
    rig.host.send({"type": "user_message", "text": "two", "turn_id": "t2"})
    (busy,) = await rig.host.wait_for(lambda: rig.host.events("error"))
    assert (busy["code"], busy["turn_id"]) == ("busy", "t2")
    pause.gate.set()
    assert (await rig.finished("t1"))["reason"] == "stop"


async def test_not_configured(tmp_path: Path) -> None:
    r = await _rig(tmp_path, configure=False)
    try:
        assert (await r.turn("hi"))["reason"] == "error"
        (error,) = r.host.events("error")
        assert error["code"] == "not_configured" and "Settings" in error["message"]
    finally:
        await r.host.close()
        await asyncio.wait_for(r.task, 5)


async def test_list_models_and_ping(rig: Rig) -> None:
    rig.host.send({"type": "request", "id": "h1", "method": "list_models", "params": {}})
    rig.host.send({"type": "request", "id": "h2", "method": "ping"})
    rig.host.send({"type": "request", "id": "h3", "method": "teleport"})
    replies = await rig.host.wait_for(
        lambda: (r := [m for m in rig.host.received if m["type"] == "reply"]) and len(r) == 3 and r
    )
    by_id = {r["id"]: r for r in replies}
    assert by_id["h1"]["result"]["models"][0]["id"] == "scripted/model"
    assert by_id["h2"]["result"]["pong"] is True
    assert (by_id["h3"]["ok"], by_id["h3"]["error"]["code"]) == (False, "unknown_method")


async def _with_rig(tmp_path: Path, **options: Any) -> AsyncIterator[Rig]:
    r = await _rig(tmp_path, **options)
    try:
        yield r
    finally:
        await r.host.close()
        await asyncio.wait_for(r.task, 5)


async def test_read_only_mode_denies_without_asking(tmp_path: Path) -> None:
    async for r in _with_rig(tmp_path, gate=lambda mode: Policy("ask"), mode="read-only"):
        r.provider.rounds = [says("", call("save_note", {"path": "n.md", "text": "x"})), says("ok")]
        assert (await r.turn("write"))["reason"] == "stop"
        assert r.host.events("approval_needed") == [] and r.host.events("tool_started") == []
        (finished,) = r.host.events("tool_finished")
        assert finished["status"] == "denied" and "not allowed" in finished["result"]
        assert not (tmp_path / "n.md").exists()


async def test_the_same_failing_call_three_times_stops_the_turn(rig: Rig) -> None:
    failing = says("", call("refuse", {"what": "x"}))
    rig.provider.rounds = [failing, failing, failing, failing, says("I give up.")]
    assert (await rig.turn("go"))["reason"] == "error"
    results = [e["result"] for e in rig.host.events("tool_finished")]
    assert len(results) == 3  # no fourth try: the turn stopped
    assert "failed 3 times" not in results[1] and "failed 3 times" in results[2]
    assert len(rig.provider.calls) == 3
    (error,) = rig.host.events("error")
    assert error["code"] == "repeated_failure" and "refuse failed 3 times" in error["message"]


async def test_different_failing_calls_do_not_stop_the_turn(rig: Rig) -> None:
    rig.provider.rounds = [says("", call("refuse", {"what": str(n)})) for n in range(4)] + [says("Done.")]
    assert (await rig.turn("go"))["reason"] == "stop"
    assert len(rig.host.events("tool_finished")) == 4


async def test_a_big_result_is_spilled_to_a_file(rig: Rig) -> None:
    rig.provider.rounds = [says("", call("big", {})), says("ok")]
    assert (await rig.turn("go"))["reason"] == "stop"
    result = rig.provider.calls[1][0][-1]
    assert isinstance(result, ToolResultMessage) and ".agent/results/c1.txt" in result.content
    assert len(result.content) < 10_000
    assert (rig.workspace / ".agent" / "results" / "c1.txt").read_text() == "line\n" * 10_000
    flushes = [m for m in rig.host.received if m["type"] == "flush_request"]
    assert [f["paths"] for f in flushes] == [[".agent/results/c1.txt"]]


async def test_secrets_are_redacted_from_results(rig: Rig) -> None:
    rig.provider.rounds = [says("", call("leak", {})), says("ok")]
    await rig.turn("go")
    result = rig.provider.calls[1][0][-1]
    assert isinstance(result, ToolResultMessage)
    assert "[REDACTED]" in result.content and "sk-or-v1-0123" not in result.content


async def test_a_pre_hook_can_veto_a_call(tmp_path: Path) -> None:
    def veto(hooked: HookCall) -> Denied | None:
        return Denied("lookups are off today", "veto") if hooked.tool.name == "lookup" else None

    async for r in _with_rig(tmp_path, hooks=lambda: Hooks(pre=[veto])):
        r.provider.rounds = [says("", call("lookup", {"key": "k"})), says("ok")]
        await r.turn("go")
        (finished,) = r.host.events("tool_finished")
        assert finished["status"] == "denied" and "lookups are off today" in finished["result"]
        assert r.host.events("tool_started") == []


SKILL_MD = """---
name: pdf-tools
description: Split and merge PDF files.
---
# PDF tools

Always split PDFs with pypdf.
"""


@pytest.mark.parametrize(
    ("text", "activated"),
    [
        pytest.param("/pdf-tools split a.pdf", True, id="slash command activates the skill"),
        pytest.param("/pdf-toolsy split", False, id="only an exact name"),
        pytest.param("please /pdf-tools", False, id="only at the start"),
        pytest.param("/unknown do it", False, id="unknown skill is plain text"),
    ],
)
async def test_slash_skill(rig: Rig, text: str, activated: bool) -> None:
    folder = rig.workspace / ".agents" / "skills" / "pdf-tools"
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(SKILL_MD)
    (folder / "split.py").write_text("print('split')\n")
    rig.provider.rounds = [says("Done.")]
    assert (await rig.turn(text))["reason"] == "stop"
    messages = rig.provider.calls[0][0]
    assert "<name>pdf-tools</name>" in messages[0].content  # the catalog is in the system prompt
    assert messages[1] == UserMessage(text)
    results = [m for m in messages if isinstance(m, ToolResultMessage)]
    if activated:
        (result,) = results
        assert result.name == "activate_skill" and "Always split PDFs with pypdf." in result.content
        assert ".agents/skills/pdf-tools/split.py" in result.content
        assert [e["name"] for e in rig.host.events("tool_finished")] == ["activate_skill"]
    else:
        assert results == []

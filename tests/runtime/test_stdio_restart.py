"""``python -m runtime --state-dir X`` killed and started again: the session, its messages, the
memory and a pending approval are all there (the reference host confirms every flush at once)."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

from tests.support.stdio_host import ROOT, STREAMS, StdioHost, event_of_kind, sse_tool_call

CONFIG = {
    "type": "config",
    "provider": {"kind": "openrouter", "base_url": "https://openrouter.ai/api/v1", "has_key": True},
    "model": "openai/gpt-4o-mini",
    "permission_mode": "ask",
}


async def _start(workspace: Path, state: Path) -> StdioHost:
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "runtime",
        "--workspace",
        str(workspace),
        "--state-dir",
        str(state),
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.DEVNULL,
        cwd=ROOT,
    )
    host = StdioHost(proc)
    host.send({"type": "hello", "protocol": 1, "capabilities": ["http", "flush"]})
    host.send(CONFIG)
    await host.next(event_of_kind("ready"))
    return host


async def _kill(host: StdioHost) -> None:
    host.proc.kill()
    await asyncio.wait_for(host.proc.wait(), 10)


async def _call(host: StdioHost, rid: str, method: str, **params: object) -> dict[str, object]:
    host.send({"type": "request", "id": rid, "method": method, "params": params})
    reply = await host.next(lambda m: m["type"] == "reply" and m["id"] == rid)
    assert reply["ok"], reply
    return reply["result"]  # type: ignore[no-any-return]


async def test_a_restart_brings_back_sessions_memories_and_a_pending_approval(tmp_path: Path) -> None:
    workspace, state = tmp_path / "ws", tmp_path / "state"
    workspace.mkdir()
    text = (STREAMS / "openrouter_text.sse").read_bytes()
    host = await _start(workspace, state)
    try:
        first = (await host.next(event_of_kind("session_opened")))["event"]["session_id"]
        rounds = [sse_tool_call("call_m1", "memory_save", '{"text": "The user likes oolong tea"}'), text]
        host.responder = lambda request: (200, rounds.pop(0))
        host.send({"type": "user_message", "text": "remember: I like oolong", "turn_id": "t1"})
        assert (await host.next(event_of_kind("turn_finished"), 20))["event"]["reason"] == "stop"
        rounds = [sse_tool_call("call_w1", "write_file", '{"path": "tea.md", "content": "oolong"}'), text]
        host.send({"type": "user_message", "text": "write it down", "turn_id": "t2"})
        ask = (await host.next(event_of_kind("approval_needed"), 20))["event"]
        assert ask["call_id"] == "call_w1"
    finally:
        await _kill(host)

    host = await _start(workspace, state)
    try:
        opened = (await host.next(event_of_kind("session_opened")))["event"]
        assert (opened["session_id"], opened["resumed_turn"]) == (first, "t2")
        again = (await host.next(event_of_kind("approval_needed")))["event"]
        assert (again["call_id"], again["arguments"]) == ("call_w1", {"path": "tea.md", "content": "oolong"})
        memories = await _call(host, "h1", "memory_list")
        assert [m["text"] for m in memories["memories"]] == ["The user likes oolong tea"]  # type: ignore[index]
        sessions = await _call(host, "h2", "sessions_list")
        assert [s["id"] for s in sessions["sessions"]] == [first]  # type: ignore[index]
        rounds = [text]
        host.responder = lambda request: (200, rounds.pop(0))
        host.send({"type": "approval", "call_id": "call_w1", "decision": "allow"})
        assert (await host.next(event_of_kind("turn_finished"), 20))["event"]["reason"] == "stop"
        assert (workspace / "tea.md").read_text() == "oolong"
        request = await host.next(lambda m: m["type"] == "http_request")
        body = json.loads(request["body"])
        assert [m["role"] for m in body["messages"]] == [
            "system",
            "user",
            "assistant",
            "tool",
            "assistant",
            "user",
            "assistant",
            "tool",
        ]
        assert "The user likes oolong tea" not in body["messages"][0]["content"]  # not pinned
        view = await _call(host, "h3", "session_current")
        texts = [(m["role"], m["status"]) for m in view["messages"]]  # type: ignore[index]
        assert texts[0] == ("user", "complete") and texts[3] == ("user", "complete")
        host.proc.stdin.close()  # type: ignore[union-attr]
        assert await asyncio.wait_for(host.proc.wait(), 10) == 0
    finally:
        if host.proc.returncode is None:
            await _kill(host)

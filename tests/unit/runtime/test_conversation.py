"""The conversation's boundary in-process: handshake, bad input, host requests, and the tools' context."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from runtime.agent.tool_context import AgentToolContext
from runtime.boot import BootConfig, boot
from runtime.conversation.conversation import Conversation
from runtime.errors import HostHttpError, HostRequestError
from runtime.host.codec import encode
from runtime.host.rpc import Rpc
from runtime.tools.registry import Registry
from tests.support.framehost import FrameHost, HttpReply
from tests.support.gates import AllowReadsGate


@pytest.fixture
async def started(tmp_path: Path) -> AsyncIterator[tuple[FrameHost, Conversation, asyncio.Task[None]]]:
    host = FrameHost()
    config = BootConfig(workspace=tmp_path, tools=Registry, gate=lambda mode: AllowReadsGate())
    conversation = boot(config, host.transport)
    task = asyncio.get_running_loop().create_task(conversation.run())
    yield host, conversation, task
    await host.close()
    await asyncio.wait_for(task, 5)


def _errors(host: FrameHost) -> list[dict[str, Any]]:
    return [m for m in host.received if m["type"] == "error"]


def _ping_replied(host: FrameHost, rid: str) -> bool:
    return any(m["type"] == "reply" and m["id"] == rid and m["ok"] for m in host.received)


async def test_handshake(started: Any) -> None:
    host, _, _ = started
    host.send({"type": "hello", "protocol": 1, "capabilities": []})
    await host.wait_for(lambda: host.events("ready"))
    hello = host.received[0]
    assert (hello["type"], hello["protocol"]) == ("hello", 1)
    assert hello["agent"].startswith("tidepool-runtime/")


async def test_protocol_mismatch_stops(started: Any) -> None:
    host, _, task = started
    host.send({"type": "hello", "protocol": 99})
    await asyncio.wait_for(asyncio.shield(task), 5)
    (error,) = _errors(host)
    assert error["code"] == "protocol_mismatch" and "99" in error["message"]
    assert not host.events("ready")


async def test_messages_before_hello_are_refused(started: Any) -> None:
    host, _, _ = started
    host.send({"type": "request", "id": "h1", "method": "ping"})
    (error,) = await host.wait_for(lambda: _errors(host))
    assert (error["code"], error["id"]) == ("handshake_required", "h1")


@pytest.mark.parametrize(
    ("data", "code"),
    [
        pytest.param(
            encode({"type": "approval", "call_id": "c", "decision": "maybe", "id": "h9"}),
            "bad_message",
            id="a known type with a bad field",
        ),
        pytest.param(b"\x1eTP1:5:[1,2]\n", "bad_message", id="not an object"),
        pytest.param(b"\x1eTP1:6:{nope}\n", "bad_json", id="bad json"),
        pytest.param(b"\x1eTP1:999999999:", "frame_too_large", id="oversized frame"),
        pytest.param(b"\x1eTP1:2:{}X", "bad_terminator", id="bad terminator"),
    ],
)
async def test_bad_input_is_answered_and_survived(started: Any, data: bytes, code: str) -> None:
    host, _, _ = started
    host.send({"type": "hello", "protocol": 1})
    host.transport.received(b"stray print output\n")
    host.transport.received(data)
    (error,) = await host.wait_for(lambda: _errors(host))
    assert error["code"] == code
    if code != "frame_too_large":  # an oversized frame swallows what follows until its length is read
        host.send({"type": "request", "id": "h1", "method": "ping"})
        await host.wait_for(lambda: _ping_replied(host, "h1"))


async def test_unknown_type_is_skipped(started: Any) -> None:
    host, _, _ = started
    host.send({"type": "hello", "protocol": 1})
    host.send({"type": "from_the_future", "id": "x"})
    host.send({"type": "request", "id": "h1", "method": "ping"})
    await host.wait_for(lambda: _ping_replied(host, "h1"))
    assert _errors(host) == []


async def test_tool_context_fetch_and_host_request(tmp_path: Path) -> None:
    host = FrameHost(lambda request: HttpReply(200, {"Content-Type": "text/plain"}, (b"hel", b"lo")))
    http = host.http()
    ctx = AgentToolContext(tmp_path, Rpc(host.transport), http)
    try:
        response = await asyncio.wait_for(ctx.fetch("https://example.org/x"), 5)
        assert (response.status, response.body, response.headers["content-type"]) == (200, b"hello", "text/plain")
        assert host.requests[0]["auth"] == "none" and host.requests[0]["stream"] is False
        host.responder = lambda request: HttpReply(error="refused")
        with pytest.raises(HostHttpError) as info:
            await asyncio.wait_for(ctx.fetch("https://elsewhere.example/"), 5)
        assert info.value.kind == "refused"
        assert host.cancelled == []  # a request the host ended is not cancelled
    finally:
        await host.close()


async def test_host_request_timeout_sends_cancel(tmp_path: Path) -> None:
    host = FrameHost()
    rpc = Rpc(host.transport)
    ctx = AgentToolContext(tmp_path, rpc, host.http())
    try:
        with pytest.raises(HostRequestError) as info:
            await ctx.host_request("exec_request", {"code": "1", "timeout_s": 1, "files": {}}, timeout_s=0.05)
        assert info.value.code == "timeout"
        sent = [m for m in host.received if m["type"] == "exec_request"]
        assert host.cancelled == [sent[0]["id"]]
        assert rpc.pending() == []
    finally:
        await host.close()


@pytest.mark.parametrize(
    "reply",
    [
        pytest.param(HttpReply(silent=True), id="no head"),
        pytest.param(HttpReply(200, {}, (b"part",), hold=True), id="body stops"),
    ],
)
async def test_a_silent_host_times_out_and_is_cancelled(reply: HttpReply) -> None:
    host = FrameHost(lambda request: reply)
    http = host.http(grace_s=0.0)
    try:
        with pytest.raises(HostHttpError) as info:
            await asyncio.wait_for(http.fetch("https://example.org/slow", timeout_s=0.05), 5)
        assert info.value.kind == "timeout"
        assert host.cancelled == [host.requests[0]["id"]]
    finally:
        await host.close()


async def test_an_error_mid_body_is_not_cancelled(tmp_path: Path) -> None:
    host = FrameHost(lambda request: HttpReply(200, {}, (b"par",), hold=True))
    http = host.http()
    try:
        response = await asyncio.wait_for(http.open("GET", "https://example.org/"), 5)
        rid = host.requests[0]["id"]
        chunks = response.iter_bytes()
        assert await asyncio.wait_for(anext(chunks), 5) == b"par"
        host.send({"type": "http_error", "id": rid, "kind": "network", "message": "connection reset"})
        with pytest.raises(HostHttpError, match="connection reset"):
            await asyncio.wait_for(anext(chunks), 5)
        assert host.cancelled == []
    finally:
        await host.close()


async def test_a_malformed_answer_fails_the_request_at_once(started: Any) -> None:
    host, conversation, _ = started
    host.send({"type": "hello", "protocol": 1})
    host.responder = lambda request: HttpReply(silent=True)
    fetch = asyncio.ensure_future(conversation.http.fetch("https://example.org/", timeout_s=30))
    await host.wait_for(lambda: host.requests)
    host.send({"type": "http_head", "id": host.requests[0]["id"], "status": "two hundred", "headers": {}})
    with pytest.raises(HostHttpError, match="bad 'http_head' message"):
        await asyncio.wait_for(fetch, 5)



"""``python -m runtime`` as a real subprocess; the test plays the host over real pipes."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from runtime.host.codec import Decoder, Frame, encode
from tests.support.stdio_host import ROOT, STREAMS, Message, StdioHost, event_of_kind, sse_tool_call

MAX_FRAME = 65536

MODELS = {
    "data": [
        {
            "id": "openai/gpt-4o-mini",
            "name": "GPT-4o mini",
            "context_length": 128000,
            "pricing": {"prompt": "0.00000015", "completion": "0.0000006"},
            "supported_parameters": ["tools"],
        }
    ]
}


@pytest.fixture
async def host(tmp_path: Path) -> AsyncIterator[StdioHost]:
    (tmp_path / "notes.md").write_text("hello\n")
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "runtime",
        "--workspace",
        str(tmp_path),
        "--max-frame",
        str(MAX_FRAME),
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        cwd=ROOT,
    )
    h = StdioHost(proc)
    yield h
    if proc.returncode is None:
        proc.kill()
        await proc.wait()


async def _handshake(host: StdioHost) -> Message:
    host.send({"type": "hello", "protocol": 1, "capabilities": ["http"]})
    hello = await host.next(lambda m: m["type"] == "hello")
    assert hello["protocol"] == 1
    ready = await host.next(event_of_kind("ready"))
    host.send(
        {
            "type": "config",
            "provider": {"kind": "openrouter", "base_url": "https://openrouter.ai/api/v1", "has_key": True},
            "model": "openai/gpt-4o-mini",
            "permission_mode": "ask",
            "page_origin": "http://localhost:5173",
        }
    )
    return ready["event"]  # type: ignore[no-any-return]


async def test_a_session_over_real_pipes(host: StdioHost) -> None:
    ready = await _handshake(host)
    assert {"read_file", "write_file", "list_files"} <= {t["name"] for t in ready["tools"]}

    host.responder = lambda request: (200, json.dumps(MODELS).encode())
    host.send({"type": "request", "id": "h1", "method": "list_models", "params": {}})
    reply = await host.next(lambda m: m["type"] == "reply" and m["id"] == "h1")
    assert reply["ok"] and reply["result"]["models"][0]["id"] == "openai/gpt-4o-mini"
    request = await host.next(lambda m: m["type"] == "http_request")
    assert request["url"] == "https://openrouter.ai/api/v1/models" and request["auth"] == "provider"

    rounds = [sse_tool_call("call_1", "list_files", '{"path": "."}'), (STREAMS / "openrouter_text.sse").read_bytes()]
    host.responder = lambda request: (200, rounds.pop(0))
    host.send({"type": "user_message", "text": "What is here?", "turn_id": "t1"})
    finished = await host.next(event_of_kind("turn_finished"), timeout_s=20)
    assert finished["event"]["reason"] == "stop"
    tool = await host.next(event_of_kind("tool_finished"))
    assert tool["event"]["name"] == "list_files" and "notes.md" in tool["event"]["result"]
    deltas = []
    while any(event_of_kind("text_delta")(m) for m in host.received):
        deltas.append((await host.next(event_of_kind("text_delta")))["event"]["text"])
    assert "".join(deltas) == "Hello, **wörld** ☃!\n\nHow can I help?"
    usage = await host.next(event_of_kind("usage"))
    assert usage["event"]["cost"] == pytest.approx(0.0000684)
    chat = [m for m in host.received if m["type"] == "http_request"]
    assert len(chat) == 2 and json.loads(chat[1]["body"])["messages"][-1]["role"] == "tool"
    assert host.stray == b""

    host.proc.stdin.close()  # type: ignore[union-attr]
    assert await asyncio.wait_for(host.proc.wait(), 10) == 0


async def test_hi_is_answered_in_a_2048_token_window(host: StdioHost) -> None:
    await _handshake(host)
    host.send({"type": "config", "context_length": 2048})  # Settings → Advanced → Context window
    host.responder = lambda request: (200, (STREAMS / "openrouter_text.sse").read_bytes())
    host.send({"type": "user_message", "text": "Hi", "turn_id": "t1"})
    finished = await host.next(event_of_kind("turn_finished"), timeout_s=20)
    assert finished["event"]["reason"] == "stop"
    assert not any(event_of_kind("error")(m) for m in host.received)
    [chat] = [m for m in host.received if m["type"] == "http_request"]
    body = json.loads(chat["body"])
    system = body["messages"][0]["content"]
    assert "# Tools and permissions" not in system and "Permission mode: **ask**" in system
    assert {t["function"]["name"] for t in body["tools"]} == {
        "list_files",
        "read_file",
        "write_file",
        "edit_file",
        "run_python",
    }
    sent = len(json.dumps(body["messages"], ensure_ascii=False)) + len(json.dumps(body["tools"]))
    assert sent / 4 <= 0.35 * 2048, "the prompt and tools leave most of the window to the conversation"
    deltas = []
    while any(event_of_kind("text_delta")(m) for m in host.received):
        deltas.append((await host.next(event_of_kind("text_delta")))["event"]["text"])
    assert "".join(deltas) == "Hello, **wörld** ☃!\n\nHow can I help?"
    host.proc.stdin.close()  # type: ignore[union-attr]
    assert await asyncio.wait_for(host.proc.wait(), 10) == 0


async def test_garbage_and_oversized_frames_are_survived(host: StdioHost) -> None:
    await _handshake(host)
    host.send_bytes(b"garbage \x00\xff\xfe not a frame\n\x1eTP1:xx:")
    host.send_bytes(b"\x1eTP1:9:{notjson}\n")
    bad = await host.next(lambda m: m["type"] == "error" and m["code"] == "bad_json")
    assert "malformed" in bad["message"]
    big = encode({"type": "user_message", "text": "x" * (MAX_FRAME + 10)}, max_frame=10 * MAX_FRAME)
    for i in range(0, len(big), 4096):
        host.send_bytes(big[i : i + 4096])
    too_large = await host.next(lambda m: m["type"] == "error" and m["code"] == "frame_too_large")
    assert str(MAX_FRAME) in too_large["message"]
    host.send({"type": "request", "id": "h2", "method": "ping"})
    pong = await host.next(lambda m: m["type"] == "reply" and m["id"] == "h2")
    assert pong["ok"] and pong["result"]["pong"] is True
    assert not any(event_of_kind("turn_started")(m) for m in host.received)
    host.proc.stdin.close()  # type: ignore[union-attr]
    assert await asyncio.wait_for(host.proc.wait(), 10) == 0


async def test_protocol_mismatch_exits(host: StdioHost) -> None:
    host.send({"type": "hello", "protocol": 2})
    error = await host.next(lambda m: m["type"] == "error")
    assert error["code"] == "protocol_mismatch"
    assert await asyncio.wait_for(host.proc.wait(), 10) == 0


@pytest.mark.parametrize(
    ("frames", "types"),
    [
        pytest.param([], ["hello"], id="empty input"),
        pytest.param(
            [{"type": "hello", "protocol": 1}, {"type": "request", "id": "h1", "method": "ping"}],
            ["hello", "event", "event", "reply"],  # ready, session_opened, the ping's reply
            id="hello and ping",
        ),
    ],
)
def test_stdin_from_a_file(tmp_path: Path, frames: list[Message], types: list[str]) -> None:
    """Input from a regular file (not a pipe) is read to its end; the runtime then exits."""
    source = tmp_path / "in.bin"
    source.write_bytes(b"".join(encode(f) for f in frames))
    with source.open("rb") as stdin:
        proc = subprocess.run(
            [sys.executable, "-m", "runtime", "--workspace", str(tmp_path)],
            stdin=stdin,
            capture_output=True,
            timeout=20,
            cwd=ROOT,
        )
    assert proc.returncode == 0, proc.stderr.decode()[-2000:]
    items = list(Decoder().feed(proc.stdout))
    sent = [i.message["type"] for i in items if isinstance(i, Frame)]
    assert sorted(t for t in sent if t not in ("log", "flush_request")) == sorted(types)
    assert all(isinstance(i, Frame) for i in items)

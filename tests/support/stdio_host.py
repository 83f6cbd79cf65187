"""The host over real pipes, for ``python -m runtime`` as a subprocess: it writes frames to the
runtime's stdin (each body in odd-sized chunks, each frame itself in pieces), answers every
``http_request`` with ``responder``'s (status, body) and every ``flush_request`` at once, and
``next`` waits for the first received message a predicate accepts."""

from __future__ import annotations

import asyncio
import base64
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from runtime.host.codec import Decoder, Frame, encode

ROOT = Path(__file__).resolve().parents[2]
STREAMS = ROOT / "tests" / "fixtures" / "streams"
Message = dict[str, Any]


def sse_tool_call(call_id: str, name: str, args: str) -> bytes:
    chunks = [
        {
            "choices": [
                {
                    "index": 0,
                    "delta": {
                        "role": "assistant",
                        "content": None,
                        "tool_calls": [
                            {
                                "index": 0,
                                "id": call_id,
                                "type": "function",
                                "function": {"name": name, "arguments": args[:5]},
                            }
                        ],
                    },
                }
            ]
        },
        {"choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "function": {"arguments": args[5:]}}]}}]},
        {"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]},
    ]
    return b"".join(b"data: " + json.dumps(c).encode() + b"\n\n" for c in chunks) + b"data: [DONE]\n\n"


class StdioHost:
    def __init__(self, proc: asyncio.subprocess.Process) -> None:
        self.proc = proc
        self.decoder = Decoder()
        self.received: list[Message] = []
        self.stray = b""
        self.responder: Callable[[Message], tuple[int, bytes]] = lambda request: (404, b"{}")
        self.chunk_sizes = [1, 7, 3, 100, 13]

    def send_bytes(self, data: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(data)

    def send(self, message: Message) -> None:
        self.send_bytes(encode(message))

    async def next(self, predicate: Callable[[Message], bool], timeout_s: float = 10.0) -> Message:
        async def read() -> Message:
            while True:
                for message in self.received:
                    if predicate(message):
                        self.received.remove(message)
                        return message
                assert self.proc.stdout is not None
                data = await self.proc.stdout.read(65536)
                assert data, "the runtime closed stdout"
                for item in self.decoder.feed(data):
                    if isinstance(item, Frame):
                        await self._on_message(item.message)
                    else:
                        self.stray += repr(item).encode()

        return await asyncio.wait_for(read(), timeout_s)

    async def _on_message(self, message: Message) -> None:
        if message["type"] == "flush_request":  # the file is already on disk: confirm at once
            self.send({"type": "reply", "id": message["id"], "ok": True, "result": {}})
        if message["type"] != "http_request":
            self.received.append(message)
            return
        status, body = self.responder(message)
        rid = message["id"]
        self.send({"type": "http_head", "id": rid, "status": status, "headers": {"content-type": "x"}})
        i, n = 0, 0
        while i < len(body):  # the body in odd-sized chunks, each frame itself written in pieces
            size = self.chunk_sizes[n % len(self.chunk_sizes)]
            frame = encode({"type": "http_chunk", "id": rid, "data": base64.b64encode(body[i : i + size]).decode()})
            for j in range(0, len(frame), 11):
                self.send_bytes(frame[j : j + 11])
            i, n = i + size, n + 1
        self.send({"type": "http_end", "id": rid})
        self.received.append(message)


def event_of_kind(kind: str) -> Callable[[Message], bool]:
    return lambda m: m["type"] == "event" and m["event"]["kind"] == kind

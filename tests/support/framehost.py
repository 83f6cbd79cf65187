"""An in-process host for runtime tests: it plays the adapter over a real FeedTransport.

It decodes the frames the runtime writes, records them, and answers each ``http_request`` with a
scripted ``HttpReply`` (status, headers, body chunks) or a host failure, and each ``flush_request``
with ``flush_responder``'s reply (ok by default), the way the adapter would. With ``listing`` set (its
storage folder and the runtime's workspace) it answers ``workspace_fetch`` by listing from that storage.
"""

from __future__ import annotations

import asyncio
import base64
import itertools
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from runtime.host.http import HttpClient
from runtime.host.rpc import Rpc
from tests.support.listing_host import list_into
from tests.support.recording import Message, RecordingHost


@dataclass(frozen=True)
class HttpReply:
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    chunks: tuple[bytes, ...] = ()
    error: str | None = None  # an http_error kind instead of a response
    hold: bool = False  # send the head and chunks, then never end (until cancelled)
    silent: bool = False  # never answer at all
    fail_after: str | None = None  # after the head and chunks, an http_error of this kind (dropped midway)

    @staticmethod
    def json(status: int, body: Any, headers: dict[str, str] | None = None) -> HttpReply:
        import json

        return HttpReply(status, {"content-type": "application/json", **(headers or {})}, (json.dumps(body).encode(),))

    @staticmethod
    def sse(data: bytes, splits: list[int] | None = None) -> HttpReply:
        return HttpReply(200, {"content-type": "text/event-stream"}, tuple(split_at(data, splits or [])))


def split_at(data: bytes, cuts: list[int]) -> list[bytes]:
    points = [0, *sorted({c for c in cuts if 0 < c < len(data)}), len(data)]
    return [data[a:b] for a, b in itertools.pairwise(points)]


Responder = Callable[[Message], HttpReply]
# How the host answers a flush_request: a reply message (without "type"/"id"), or None for no answer.
FlushResponder = Callable[[Message], Message | None]


def flush_ok(request: Message) -> Message | None:
    return {"ok": True, "result": {}}


class FrameHost(RecordingHost):
    def __init__(self, responder: Responder | None = None) -> None:
        super().__init__()
        self.requests: list[Message] = []
        self.cancelled: list[str] = []
        self.flushes: list[Message] = []
        self.flush_responder: FlushResponder = flush_ok
        self.responder = responder or (lambda request: HttpReply(404))
        self.listing: tuple[Path, Path] | None = None  # (storage, workspace): answer workspace_fetch from it
        self.listed: list[Message] = []
        self._tasks: set[asyncio.Task[None]] = set()

    def on_message(self, message: Message) -> None:
        if message["type"] == "http_request":
            self.requests.append(message)
            task = asyncio.get_running_loop().create_task(self._answer(message))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)
        elif message["type"] == "cancel":
            self.cancelled.append(message["id"])
        elif message["type"] == "workspace_fetch" and self.listing is not None:
            self.listed.append(message)
            list_into(*self.listing, message["dirs"], message["depth"])
            reply = {"type": "reply", "id": message["id"], "ok": True, "result": {}}
            asyncio.get_running_loop().call_soon(self.send, reply)
        elif message["type"] == "flush_request":
            self.flushes.append(message)
            answer = self.flush_responder(message)
            if answer is not None:
                reply = {**answer, "type": "reply", "id": message["id"]}
                asyncio.get_running_loop().call_soon(self.send, reply)

    def answer(self, request: Message) -> None:
        """Answer ``request`` as if the runtime had sent it (what a host sends by itself: host/presend.py)."""
        task = asyncio.get_running_loop().create_task(self._answer(request))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _answer(self, request: Message) -> None:
        reply = self.responder(request)
        rid = request["id"]
        await asyncio.sleep(0)
        if reply.silent:
            return
        if reply.error:
            self.send({"type": "http_error", "id": rid, "kind": reply.error, "message": f"scripted {reply.error}"})
            return
        self.send({"type": "http_head", "id": rid, "status": reply.status, "headers": reply.headers})
        for chunk in reply.chunks:
            await asyncio.sleep(0)
            if rid in self.cancelled:
                return
            self.send({"type": "http_chunk", "id": rid, "data": base64.b64encode(chunk).decode()})
        if reply.fail_after:
            self.send({"type": "http_error", "id": rid, "kind": reply.fail_after, "message": "connection reset"})
        elif not reply.hold:
            self.send({"type": "http_end", "id": rid})

    def http(self, grace_s: float = 5.0) -> HttpClient:
        """An HTTP client whose requests this host answers (for provider tests without a session)."""
        rpc = Rpc(self.transport)
        self._pump = asyncio.get_running_loop().create_task(self._dispatch(rpc))
        return HttpClient(rpc, grace_s)

    async def _dispatch(self, rpc: Rpc) -> None:
        async for message in self.transport.messages():
            rpc.dispatch(message)

    async def close(self) -> None:
        for task in list(self._tasks):
            task.cancel()
        await super().close()

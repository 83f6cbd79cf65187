"""What every in-process test host shares: it records the frames the runtime writes, sends frames
to the runtime, and waits (without sleeping) until something it received makes a check true."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from runtime.host.codec import Decoder, Frame, encode
from runtime.host.transport import FeedTransport

Message = dict[str, Any]


class RecordingHost:
    timeout_s = 5.0  # how long ``wait_for`` waits unless told

    def __init__(self) -> None:
        self.transport = FeedTransport(self._from_runtime)
        self._decoder = Decoder()
        self.received: list[Message] = []
        self.changed = asyncio.Event()
        self.sent = 0  # frames sent to the runtime

    def send(self, message: Message) -> None:
        """host → runtime"""
        self.sent += 1
        self.transport.received(encode(message))

    def events(self, kind: str | None = None) -> list[Message]:
        out = [m["event"] for m in self.received if m["type"] == "event"]
        return [e for e in out if kind is None or e["kind"] == kind]

    async def wait_for(self, predicate: Callable[[], Any], timeout_s: float | None = None) -> Any:
        """The first true value of ``predicate``, checked after each frame the runtime writes."""

        async def loop() -> Any:
            while not (result := predicate()):
                self.changed.clear()
                await self.changed.wait()
            return result

        return await asyncio.wait_for(loop(), timeout_s or self.timeout_s)

    async def close(self) -> None:
        await self.transport.close()

    def _from_runtime(self, data: bytes) -> None:
        for item in self._decoder.feed(data):
            assert isinstance(item, Frame), f"the runtime wrote a non-frame: {item}"
            self.received.append(item.message)
            self.changed.set()
            self.on_message(item.message)

    def on_message(self, message: Message) -> None:
        """Answer a message the way the host in question would (nothing, here)."""

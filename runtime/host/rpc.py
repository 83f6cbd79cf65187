"""Requests to the host: ids, futures with timeouts, cancel by id, and routing of stream frames.

The runtime's request ids are ``r1``, ``r2``, …. A plain request (``call``) resolves with the first
message that names its id. A stream (``open_stream``) receives every message that names its id until
it is closed; ``http_head``/``http_chunk``/``http_end``/``http_error`` arrive that way.
"""

from __future__ import annotations

import asyncio
import itertools
import logging

from runtime.errors import HostRequestError
from runtime.host.codec import Message
from runtime.host.messages import RuntimeMessage, RuntimeRequest
from runtime.host.transport import Transport

log = logging.getLogger(__name__)

# Message types that answer a runtime request; everything else is the session's business.
RESPONSE_TYPES = frozenset(
    {"reply", "exec_result", "mcp_result", "http_head", "http_chunk", "http_end", "http_error", "error"}
)


class Stream:
    """Messages for one request id, in order."""

    def __init__(self, rpc: Rpc, request_id: str) -> None:
        self.id = request_id
        self._rpc = rpc
        self._queue: asyncio.Queue[Message] = asyncio.Queue()
        self.closed = False

    def put(self, message: Message) -> None:
        self._queue.put_nowait(message)

    async def next(self, timeout_s: float) -> Message:
        try:
            return await asyncio.wait_for(self._queue.get(), timeout_s)
        except TimeoutError:
            self.cancel()
            raise HostRequestError(
                "timeout", f"the host did not answer request {self.id} in {timeout_s:g} s", self.id
            ) from None

    def close(self) -> None:
        """Stop listening (the request is complete)."""
        self.closed = True
        self._rpc.forget(self.id)

    def cancel(self) -> None:
        """Tell the host to stop, and stop listening."""
        if not self.closed:
            self.close()
            self._rpc.send({"type": "cancel", "id": self.id})


class Rpc:
    def __init__(self, transport: Transport) -> None:
        self._transport = transport
        self._ids = itertools.count(1)
        self._streams: dict[str, Stream] = {}

    def new_id(self) -> str:
        return f"r{next(self._ids)}"

    def send(self, message: RuntimeMessage) -> None:
        self._transport.send(message)

    def open_stream(self, message: RuntimeRequest) -> Stream:
        """Send a request and return the stream of messages naming its ``id``."""
        stream = self.expect(message["id"])
        self.send(message)
        return stream

    def expect(self, request_id: str) -> Stream:
        """The stream of messages naming ``request_id``, a request the host sent for us (host/presend.py)."""
        stream = Stream(self, request_id)
        self._streams[request_id] = stream
        return stream

    async def call(self, message: RuntimeRequest, timeout_s: float) -> Message:
        """Send a request and wait for the first message naming its id; cancel it on timeout or abort."""
        stream = self.open_stream(message)
        try:
            reply = await stream.next(timeout_s)
        except asyncio.CancelledError:
            stream.cancel()
            raise
        stream.close()
        return reply

    def forget(self, request_id: str) -> None:
        self._streams.pop(request_id, None)

    def pending(self) -> list[str]:
        return list(self._streams)

    def dispatch(self, message: Message) -> bool:
        """Route a received message to the request it answers. ``False`` if it answers none."""
        request_id = message.get("id")
        if message.get("type") not in RESPONSE_TYPES or not isinstance(request_id, str):
            return False
        stream = self._streams.get(request_id)
        if stream is None:
            log.debug("a %r message for unknown or finished request %r", message.get("type"), request_id)
            return message.get("type") != "error"
        stream.put(message)
        return True

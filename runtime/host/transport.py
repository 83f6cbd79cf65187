"""Transports: only I/O. Send a message, receive messages, close.

``FrameTransport`` holds what every transport shares: the decoder, the queue of received messages
(answers to the runtime's own requests may skip it: ``answers``) and the policy for bad input (stray
bytes are logged; a malformed frame is logged and answered with an ``error`` message; nothing crashes).
``FeedTransport`` is pushed bytes by its owner (the Pyodide binding); ``StdioTransport`` reads and
writes real pipes under CPython.
"""

from __future__ import annotations

import asyncio
import logging
import os
import select
import stat
from collections.abc import AsyncIterator, Callable
from typing import Any, Protocol

from runtime.host.codec import DEFAULT_MAX_FRAME, Decoder, Frame, FrameTooLarge, Malformed, Message, Stray, encode
from runtime.host.messages import Error, RuntimeMessage

log = logging.getLogger(__name__)

_CLOSED = object()
_READ_CHUNK = 64 * 1024
_MALFORMED_CODES = {"too_large": "frame_too_large"}


class Transport(Protocol):
    answers: Callable[[Message], bool] | None
    heard: int  # frames taken in from the other side

    def send(self, message: RuntimeMessage) -> None: ...

    def messages(self) -> AsyncIterator[Message]: ...

    async def close(self) -> None: ...


class FrameTransport:
    """Decodes received bytes into messages; encodes sent messages and hands the bytes to ``_write``."""

    def __init__(self, max_frame: int = DEFAULT_MAX_FRAME) -> None:
        self.max_frame = max_frame
        self._decoder = Decoder(max_frame)
        self._queue: asyncio.Queue[Any] = asyncio.Queue()
        self.closed = False
        # Takes an answer to one of the runtime's own requests (an HTTP chunk, a reply) as it is decoded, when
        # nothing is queued before it (so the order stays): one task switch less for the first token.
        self.answers: Callable[[Message], bool] | None = None
        # Frames taken in from the other side: answers as taken, other messages as handed to the reader. An
        # offer says how many it was built after (host/presend.py), so the host can tell one that crossed its own.
        self.heard = 0

    def _write(self, data: bytes) -> None:
        raise NotImplementedError

    def send(self, message: RuntimeMessage) -> None:
        if self.closed:
            log.debug("dropping a %r message: transport closed", message.get("type"))
            return
        try:
            data = encode(message, self.max_frame)
        except FrameTooLarge as exc:
            log.error("not sending a %r message: %s", message.get("type"), exc)
            rid = message.get("id")
            error: Error = {"type": "error", "code": "frame_too_large", "message": str(exc)}
            error["id"] = rid if isinstance(rid, str) else None
            data = encode(error)
        self._write(data)

    def received(self, data: bytes) -> None:
        """Feed bytes from the other side, in any split."""
        for item in self._decoder.feed(data):
            if isinstance(item, Frame):
                if self.answers is not None and self._queue.empty() and self.answers(item.message):
                    self.heard += 1
                    continue
                self._queue.put_nowait(item.message)
            elif isinstance(item, Stray):
                log.warning("ignoring %d stray bytes outside frames: %r", len(item.data), item.data[:80])
            elif isinstance(item, Malformed):
                self.heard += 1
                self._malformed(item)

    def _malformed(self, item: Malformed) -> None:
        log.warning("malformed frame (%s): %s", item.code, item.detail)
        code = _MALFORMED_CODES.get(item.code, item.code)
        self.send({"type": "error", "code": code, "message": f"malformed frame: {item.detail}"})

    def end_of_input(self) -> None:
        self._queue.put_nowait(_CLOSED)

    async def messages(self) -> AsyncIterator[Message]:
        while True:
            item = await self._queue.get()
            if item is _CLOSED:
                return
            self.heard += 1
            yield item

    async def close(self) -> None:
        self.closed = True
        self.end_of_input()


class FeedTransport(FrameTransport):
    """Bytes are pushed in with ``received``; frames go out through the ``write`` callable."""

    def __init__(self, write: Callable[[bytes], None], max_frame: int = DEFAULT_MAX_FRAME) -> None:
        super().__init__(max_frame)
        self._out = write

    def _write(self, data: bytes) -> None:
        self._out(data)


class _ReadProtocol(asyncio.Protocol):
    def __init__(self, owner: StdioTransport) -> None:
        self._owner = owner

    def data_received(self, data: bytes) -> None:
        self._owner.received(data)

    def eof_received(self) -> bool | None:
        self._owner.end_of_input()
        return None

    def connection_lost(self, exc: Exception | None) -> None:
        self._owner.end_of_input()


class StdioTransport(FrameTransport):
    """Frames on real pipes (CPython): reads ``read_fd`` in chunks, writes ``write_fd``."""

    def __init__(self, read_fd: int, write_fd: int, max_frame: int = DEFAULT_MAX_FRAME) -> None:
        super().__init__(max_frame)
        self._read_fd = read_fd
        self._write_fd = write_fd
        self._pipes: list[asyncio.BaseTransport] = []
        self._reader: asyncio.Task[None] | None = None

    async def open(self) -> None:
        mode = os.fstat(self._read_fd).st_mode
        if not (stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode) or os.isatty(self._read_fd)):
            # a file or /dev/null: the event loop cannot watch it, and reading it does not block
            self._reader = asyncio.ensure_future(self._read_file())
            return
        loop = asyncio.get_running_loop()
        pipe = os.fdopen(self._read_fd, "rb", buffering=0, closefd=False)
        rpipe, _ = await loop.connect_read_pipe(lambda: _ReadProtocol(self), pipe)
        self._pipes.append(rpipe)

    async def _read_file(self) -> None:
        try:
            while data := os.read(self._read_fd, _READ_CHUNK):
                self.received(data)
                await asyncio.sleep(0)
        finally:
            self.end_of_input()

    def _write(self, data: bytes) -> None:
        view = memoryview(data)
        while view:
            try:
                n = os.write(self._write_fd, view)
            except BlockingIOError:  # a non-blocking descriptor (a shared tty): wait until writable
                select.select([], [self._write_fd], [], 1.0)
                continue
            view = view[n:]

    async def close(self) -> None:
        await super().close()
        for pipe in self._pipes:
            pipe.close()
        if self._reader:
            self._reader.cancel()

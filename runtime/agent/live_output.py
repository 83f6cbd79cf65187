"""A running tool's output as it comes: the host's ``exec_output`` frames → ``tool_output`` UI events.

While ``run_python`` waits for its ``exec_result``, the sandbox's stdout/stderr arrive as host
``exec_output`` frames naming the ``exec_request`` id. ``LiveOutput`` knows which call (and turn)
sent that request, and emits each piece as a ``tool_output`` event for that call's card. At most
``LIVE_OUTPUT_CHARS`` per request go to the UI (then one note that the rest is cut); the complete
output still comes with the result.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from runtime.host.messages import Event, ExecOutput

log = logging.getLogger(__name__)

LIVE_OUTPUT_CHARS = 64_000
CUT_NOTE = "\n… [more output; the whole of it comes with the result]\n"


@dataclass
class _Watch:
    turn_id: str
    call_id: str
    sent: int = 0


class LiveOutput:
    def __init__(self, emit: Callable[[Event], None] = lambda event: None) -> None:
        self.emit = emit
        self._current: tuple[str, str] | None = None
        self._requests: dict[str, _Watch] = {}

    @property
    def current(self) -> tuple[str, str] | None:
        """The running call's (turn id, call id), or None."""
        return self._current

    @contextmanager
    def calling(self, turn_id: str, call_id: str) -> Iterator[None]:
        """Requests sent while this call runs belong to it."""
        previous, self._current = self._current, (turn_id, call_id)
        try:
            yield
        finally:
            self._current = previous

    @contextmanager
    def request(self, request_id: str) -> Iterator[None]:
        """Output naming ``request_id`` is shown while this block runs (the request is in flight)."""
        if self._current is not None:
            self._requests[request_id] = _Watch(*self._current)
        try:
            yield
        finally:
            self._requests.pop(request_id, None)

    def output(self, message: ExecOutput) -> None:
        watch = self._requests.get(message["id"])
        if watch is None:
            log.debug("output for %r, which no running call waits for", message["id"])
            return
        room = LIVE_OUTPUT_CHARS - watch.sent
        if room <= 0:
            return
        text = message["text"]
        if len(text) > room:
            text = text[:room] + CUT_NOTE
        watch.sent += len(text)
        self.emit(
            {
                "kind": "tool_output",
                "turn_id": watch.turn_id,
                "call_id": watch.call_id,
                "stream": message["stream"],
                "text": text,
            }
        )

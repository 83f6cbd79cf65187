"""An incremental Server-Sent Events parser (the WHATWG event-stream rules that providers use).

Feed bytes in any split; complete events come out. Lines end with CRLF, LF or CR; ``:`` starts a
comment (``: OPENROUTER PROCESSING`` keep-alives), counted but not returned; several ``data:`` lines
make one event joined by newlines; a blank line dispatches. ``[DONE]`` is ordinary data here; the
chat parser gives it meaning.
"""

from __future__ import annotations

import codecs
from dataclasses import dataclass


@dataclass(frozen=True)
class SSEEvent:
    data: str
    event: str = "message"
    id: str | None = None


class SSEParser:
    def __init__(self, max_line: int = 8 * 1024 * 1024) -> None:
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._line = ""
        self._after_cr = False
        self._data: list[str] = []
        self._event = ""
        self._id: str | None = None
        self._first = True
        self.max_line = max_line
        self.comments = 0

    def feed(self, data: bytes) -> list[SSEEvent]:
        text = self._decoder.decode(data)
        if self._first and text:
            text = text.removeprefix("\ufeff")
            self._first = False
        return self._lines(text)

    def close(self) -> list[SSEEvent]:
        """End of stream: an event without its blank line is dropped, per the spec."""
        self._lines(self._decoder.decode(b"", final=True))
        return []

    def _lines(self, text: str) -> list[SSEEvent]:
        events: list[SSEEvent] = []
        start = 0
        for i, ch in enumerate(text):
            if ch == "\n" and self._after_cr and i == start:
                start = i + 1  # the LF of a CRLF split across reads, or right after the CR
                self._after_cr = False
                continue
            self._after_cr = False
            if ch in "\r\n":
                self._line += text[start:i]
                self._after_cr = ch == "\r"
                start = i + 1
                event = self._process(self._line)
                self._line = ""
                if event:
                    events.append(event)
        self._line += text[start:]
        if len(self._line) > self.max_line:
            raise ValueError(f"an event-stream line is over {self.max_line} characters")
        return events

    def _process(self, line: str) -> SSEEvent | None:
        if not line:
            return self._dispatch()
        if line.startswith(":"):
            self.comments += 1
            return None
        name, sep, value = line.partition(":")
        if sep and value.startswith(" "):
            value = value[1:]
        if name == "data":
            self._data.append(value)
        elif name == "event":
            self._event = value
        elif name == "id" and "\0" not in value:
            self._id = value
        return None

    def _dispatch(self) -> SSEEvent | None:
        if not self._data:
            self._event = ""
            return None
        event = SSEEvent("\n".join(self._data), self._event or "message", self._id)
        self._data = []
        self._event = ""
        return event

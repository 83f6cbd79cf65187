"""An incremental Server-Sent Events parser (the WHATWG event-stream rules that providers use).

Feed bytes in any split; complete events come out. Lines end with CRLF, LF or CR; ``:`` starts a
comment (``: OPENROUTER PROCESSING`` keep-alives), counted but not returned; several ``data:`` lines
make one event joined by newlines; a blank line dispatches. ``[DONE]`` is ordinary data here; the
chat parser gives it meaning.
"""

from __future__ import annotations

import codecs
import re
from dataclasses import dataclass

_LINE_END = re.compile(r"\r\n|\r|\n")


@dataclass(frozen=True)
class SSEEvent:
    data: str
    event: str = "message"
    id: str | None = None


class SSEParser:
    def __init__(self, max_line: int = 8 * 1024 * 1024) -> None:
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._pending: list[str] = []  # the current line so far, in pieces
        self._pending_chars = 0
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
        # Line ends are found with a regular expression, not a loop over characters: a reply of
        # megabytes arrives as a few long `data:` lines, and a per-character loop in Python is slow.
        events: list[SSEEvent] = []
        if not text:
            return events
        start = 1 if self._after_cr and text[0] == "\n" else 0  # the LF of a CRLF split across reads
        self._after_cr = False
        for end in _LINE_END.finditer(text, start):
            self._pending.append(text[start : end.start()])
            start = end.end()
            line = "".join(self._pending)
            self._pending.clear()
            self._pending_chars = 0
            event = self._process(line)
            if event:
                events.append(event)
        self._after_cr = text[-1] == "\r"
        if start < len(text):
            self._pending.append(text[start:])
            self._pending_chars += len(text) - start
            if self._pending_chars > self.max_line:
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

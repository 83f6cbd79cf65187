"""The frame codec: JSON messages in length-prefixed frames, tolerant of stray bytes.

Wire format (see docs/protocol.md)::

    \\x1eTP1:<length>:<payload>\\n

``<length>`` is the payload's byte count in ASCII decimal (no sign, no leading zeros,
at most 10 digits), ``<payload>`` is a UTF-8 JSON object with a string ``type``, nested at most
``MAX_DEPTH`` containers deep (deeper is ``bad_message``, never a ``RecursionError``).
Bytes outside frames are reported as stray output, never parsed as messages.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from runtime.host.constants import MAX_FRAME_BYTES

MAGIC = b"\x1eTP1:"
DEFAULT_MAX_FRAME = MAX_FRAME_BYTES
_MAX_DIGITS = 10
MAX_DEPTH = 100  # objects and arrays, the message itself counting as 1

Message = dict[str, Any]


def encode(message: Mapping[str, Any], max_frame: int = DEFAULT_MAX_FRAME) -> bytes:
    """Encode one message as a frame; raises ``FrameTooLarge`` over the limit."""
    if not isinstance(message.get("type"), str):
        raise ValueError("a message needs a string 'type'")
    payload = json.dumps(message, ensure_ascii=False, separators=(",", ":")).encode()
    if len(payload) > max_frame:
        raise FrameTooLarge(len(payload), max_frame)
    return b"%s%d:%s\n" % (MAGIC, len(payload), payload)


class FrameTooLarge(ValueError):
    def __init__(self, size: int, limit: int) -> None:
        super().__init__(f"frame of {size} bytes is over the limit of {limit}")
        self.size = size
        self.limit = limit


@dataclass(frozen=True)
class Frame:
    kind: Literal["message"]
    message: Message


@dataclass(frozen=True)
class Stray:
    """Bytes that were not part of any frame (a stray print, a partial write)."""

    kind: Literal["stray"]
    data: bytes


@dataclass(frozen=True)
class Malformed:
    """A frame that could not be used; ``code`` is one of the protocol error codes."""

    kind: Literal["malformed"]
    code: Literal["bad_header", "too_large", "bad_json", "bad_message", "bad_terminator"]
    detail: str


Item = Frame | Stray | Malformed


class Decoder:
    """Incremental decoder: ``feed`` bytes in any split, get items out in order.

    A frame over ``max_frame`` is skipped without being buffered and reported as
    ``Malformed("too_large")``.
    """

    def __init__(self, max_frame: int = DEFAULT_MAX_FRAME) -> None:
        self.max_frame = max_frame
        self._buf = bytearray()
        self._skip = 0  # bytes of an oversized payload still to discard

    def feed(self, data: bytes) -> Iterator[Item]:
        self._buf += data
        while True:
            item = self._next()
            if item is None:
                return
            yield item

    def _next(self) -> Item | None:
        buf = self._buf
        if self._skip:
            n = min(self._skip, len(buf))
            del buf[:n]
            self._skip -= n
            if self._skip:
                return None
        if not buf:
            return None
        start = buf.find(MAGIC)
        if start == -1:
            # Keep a tail that could be the beginning of MAGIC.
            keep = _partial_magic_suffix(buf)
            if keep == len(buf):
                return None
            stray = bytes(buf[: len(buf) - keep])
            del buf[: len(buf) - keep]
            return Stray("stray", stray)
        if start > 0:
            stray = bytes(buf[:start])
            del buf[:start]
            return Stray("stray", stray)
        return self._frame_at_start()

    def _frame_at_start(self) -> Item | None:
        buf = self._buf
        head = len(MAGIC)
        colon = buf.find(b":", head, head + _MAX_DIGITS + 1)
        if colon == -1:
            digits = bytes(buf[head : head + _MAX_DIGITS + 1])
            if (len(buf) - head <= _MAX_DIGITS and digits.isdigit()) or not digits:
                return None  # header not complete yet
            return self._bad_header(digits)
        digits = bytes(buf[head:colon])
        if not digits.isdigit() or (len(digits) > 1 and digits[0:1] == b"0"):
            return self._bad_header(digits)
        length = int(digits)
        body = colon + 1
        if length > self.max_frame:
            del buf[:body]
            self._skip = length + 1  # payload and terminator
            return Malformed("malformed", "too_large", f"frame of {length} bytes is over the limit of {self.max_frame}")
        end = body + length
        if len(buf) < end + 1:
            return None
        payload = bytes(buf[body:end])
        terminator = buf[end : end + 1]
        del buf[: end + 1]
        if terminator != b"\n":
            return Malformed("malformed", "bad_terminator", "frame not followed by a newline")
        return _parse(payload)

    def _bad_header(self, digits: bytes) -> Malformed:
        # Drop only the magic byte so a real frame right after is still found.
        del self._buf[:1]
        return Malformed("malformed", "bad_header", f"bad length {digits[:12]!r}")


def _parse(payload: bytes) -> Item:
    too_deep = Malformed("malformed", "bad_message", f"a message may nest at most {MAX_DEPTH} levels deep")
    try:
        message = json.loads(payload.decode("utf-8"))
    except RecursionError:
        return too_deep
    except (UnicodeDecodeError, ValueError) as exc:
        return Malformed("malformed", "bad_json", str(exc)[:200])
    if _depth(message) > MAX_DEPTH:
        return too_deep
    if not isinstance(message, dict) or not isinstance(message.get("type"), str):
        return Malformed("malformed", "bad_message", "a message must be a JSON object with a string 'type'")
    return Frame("message", message)


def _depth(value: object) -> int:
    """How many containers deep ``value`` nests (walked without recursion)."""
    deepest = 0
    stack: list[tuple[object, int]] = [(value, 1)]
    while stack:
        item, level = stack.pop()
        children = item.values() if isinstance(item, dict) else item if isinstance(item, list) else None
        if children is None:
            continue
        deepest = max(deepest, level)
        if deepest > MAX_DEPTH:
            return deepest
        stack.extend((child, level + 1) for child in children)
    return deepest


def _partial_magic_suffix(buf: bytearray) -> int:
    for n in range(min(len(MAGIC) - 1, len(buf)), 0, -1):
        if buf.endswith(MAGIC[:n]):
            return n
    return 0

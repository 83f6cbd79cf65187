"""Frames as an attacker writes them: nesting deep enough to exhaust the parser's stack.

A frame nested past ``MAX_DEPTH`` is a ``bad_message`` with an error reply; it never raises out of the
codec (``RecursionError``), and the frames after it in the same chunk are still delivered.
"""

from __future__ import annotations

import json

import pytest

from runtime.host.codec import MAX_DEPTH, Decoder, Frame, Malformed, encode
from runtime.host.transport import FeedTransport

HELLO = {"type": "hello", "protocol": 1}


def raw_frame(payload: bytes) -> bytes:
    return b"\x1eTP1:%d:%s\n" % (len(payload), payload)


def nested(depth: int) -> bytes:
    """A message whose value nests arrays until the whole is `depth` containers deep."""
    inner = depth - 1
    return b'{"type":"x","v":' + b"[" * inner + b"]" * inner + b"}"


@pytest.mark.parametrize("depth", [MAX_DEPTH + 1, 5_000, 200_000])
def test_too_deep_is_bad_message_and_later_frames_still_arrive(depth: int) -> None:
    items = list(Decoder().feed(raw_frame(nested(depth)) + encode(HELLO)))
    assert [type(i) for i in items] == [Malformed, Frame]
    first, second = items
    assert isinstance(first, Malformed) and first.code == "bad_message"
    assert "nest" in first.detail
    assert isinstance(second, Frame) and second.message == HELLO


def test_deep_objects_count_like_arrays() -> None:
    payload = b'{"type":"x","v":' + b'{"a":' * MAX_DEPTH + b"1" + b"}" * MAX_DEPTH + b"}"
    (item,) = Decoder().feed(raw_frame(payload))
    assert isinstance(item, Malformed) and item.code == "bad_message"


def test_exactly_max_depth_is_a_message() -> None:
    (item,) = Decoder().feed(raw_frame(nested(MAX_DEPTH)))
    assert isinstance(item, Frame)


async def test_the_transport_replies_with_an_error_and_keeps_going() -> None:
    sent: list[bytes] = []
    transport = FeedTransport(sent.append)
    transport.received(raw_frame(nested(200_000)) + encode(HELLO))
    await transport.close()
    received = [m async for m in transport.messages()]
    replies = [json.loads(d.split(b":", 2)[2]) for d in sent]
    assert received == [HELLO]
    assert [(r["type"], r["code"]) for r in replies] == [("error", "bad_message")]
    assert "nest" in replies[0]["message"]

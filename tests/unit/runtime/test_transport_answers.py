"""Answers to the runtime's own requests taken as they are decoded (``FrameTransport.answers``): an HTTP chunk
reaches its request without a turn of the message pump, but never ahead of a message received before it,
and a message that is not an answer (or a bad one) goes through the pump as before."""

from __future__ import annotations

import asyncio
from typing import Any

from runtime.host.codec import Message, encode
from runtime.host.rpc import Rpc
from runtime.host.transport import FeedTransport


def _frame(message: dict[str, Any]) -> bytes:
    return encode(message)  # type: ignore[arg-type]


def _answers(rpc: Rpc, taken: list[Message]):  # type: ignore[no-untyped-def]
    def answer(raw: Message) -> bool:
        if raw.get("type") != "http_chunk":
            return False
        taken.append(raw)
        return rpc.dispatch(raw)

    return answer


async def _next_queued(transport: FeedTransport) -> Message:
    messages = transport.messages()
    return await asyncio.wait_for(anext(messages), 1.0)


async def test_a_chunk_reaches_its_request_without_the_pump() -> None:
    transport = FeedTransport(lambda _: None)
    rpc = Rpc(transport)
    taken: list[Message] = []
    transport.answers = _answers(rpc, taken)
    stream = rpc.open_stream({"type": "http_request", "id": "r1", "method": "GET", "url": "http://127.0.0.1/"})  # type: ignore[typeddict-item]
    transport.received(_frame({"type": "http_chunk", "id": "r1", "data": "aGk="}))
    assert [m["id"] for m in taken] == ["r1"]
    assert (await stream.next(1.0))["data"] == "aGk="
    transport.received(_frame({"type": "abort_turn"}))  # not an answer: queued for the pump
    assert (await _next_queued(transport))["type"] == "abort_turn"


async def test_a_chunk_never_overtakes_a_message_received_before_it() -> None:
    transport = FeedTransport(lambda _: None)
    rpc = Rpc(transport)
    taken: list[Message] = []
    transport.answers = _answers(rpc, taken)
    rpc.open_stream({"type": "http_request", "id": "r1", "method": "GET", "url": "http://127.0.0.1/"})  # type: ignore[typeddict-item]
    transport.received(_frame({"type": "abort_turn"}) + _frame({"type": "http_chunk", "id": "r1", "data": "aGk="}))
    assert taken == []  # the abort waits in the queue: the chunk goes after it
    messages = transport.messages()
    first = await asyncio.wait_for(anext(messages), 1.0)
    second = await asyncio.wait_for(anext(messages), 1.0)
    assert [first["type"], second["type"]] == ["abort_turn", "http_chunk"]

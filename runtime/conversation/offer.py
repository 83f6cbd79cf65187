"""The offer: the first request a plain message would send now, built before Send (``host.presend``).

It is built from the request prepared before Send (``conversation.prepared``) by the code a turn runs:
the turn's ``ContextWindow`` makes the messages, with ``MARK`` as the person's text, and the provider's own
``stream_chat`` makes the request, on a client that keeps the request instead of sending it (``Capture``).
Nothing here knows a provider's wire format. The room is what the window's budget leaves for the text.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from runtime.agent.context import TRIGGER, ContextWindow, Pending, Ready
from runtime.chat.history import estimate_tokens
from runtime.chat.messages import UserMessage
from runtime.host.http import HttpClient
from runtime.host.messages import HttpRequest
from runtime.host.presend import MARK
from runtime.host.rpc import Rpc, Stream
from runtime.providers.base import Provider

MAX_OFFER_BYTES = 1 << 20  # a longer request is not offered: the provider's time to read it dwarfs the saving
CHARS_PER_TOKEN = 4  # as ``estimate_tokens`` counts


class _Captured(Exception):
    """Ends the dry run at its request."""


class _NoRoom(Exception):
    """The message would need the stored conversation compacted first: nothing to offer."""


class Capture(HttpClient):
    """A client that keeps the first request asked of it and sends nothing."""

    def __init__(self, rpc: Rpc) -> None:
        super().__init__(rpc)
        self.request: HttpRequest | None = None

    def _send(self, request: HttpRequest) -> Stream:
        self.request = request
        raise _Captured


@dataclass(frozen=True)
class OfferParts:
    """What the offer is built from: the turn's window and the provider (made for ``Capture``)."""

    window: ContextWindow
    system_prompt: str
    ready: Ready
    provider: Callable[[HttpClient], Provider]  # the configured provider, made anew on the given client


async def build_offer(parts: OfferParts, rpc: Rpc) -> tuple[HttpRequest, int] | None:
    """The request with ``MARK`` for the text and the room for the text (escaped characters), or None."""
    ready, window = parts.ready, parts.window
    try:
        pending = Pending(UserMessage(MARK), _no_room)
        messages = await window.messages(parts.system_prompt, ready.tools, pending, ready)
    except _NoRoom:
        return None
    limit = int(TRIGGER * window.context_tokens)
    room = (limit - estimate_tokens([*ready.view, UserMessage("")], ready.tools)) * CHARS_PER_TOKEN
    capture = Capture(rpc)
    provider = parts.provider(capture)
    if not getattr(provider, "offers_requests", False):  # one that does not build its request over HTTP
        return None
    chat = provider.stream_chat(messages, ready.tools, window.model)
    try:
        async for _ in chat:  # a notice before the request: the turn's own provider gives it
            pass
    except _Captured:
        pass
    finally:
        await _close(chat)
    request = capture.request
    if request is None or len(request["body"] or "") > MAX_OFFER_BYTES:
        return None
    return request, room


async def _no_room() -> None:
    raise _NoRoom


async def _close(chat: Any) -> None:
    close = getattr(chat, "aclose", None)
    if close is not None:
        await close()

"""The request that leaves at Send (time to first token).

While the runtime is idle it offers the host the first request a plain message would send now
(``http_offer``): its method, URL, headers, auth and time limit, and its body split where the person's
text goes (``conversation.offer`` builds it with the provider's own code). At Send the host puts the
text in, JSON-escaped as ``json.dumps`` escapes it, starts the request under the offer's id, and says so
in the ``user_message`` (``presend``). The turn builds its first request as always; when that is byte for
byte the one that left, the turn reads its answer (``Sent.take``), else it cancels it and sends its own.
What reaches the provider is therefore exactly what the turn would have sent, a little earlier.

An offer is used once. The host drops it when anything else happens first (docs/protocol.md); the runtime
offers again once it has prepared again, under the same id while nothing it was made of changed and it was not
used (a Send that crossed the offer made again still sends the turn's request). Two crossings would send a
request already out of date, which the byte check cancels only after the provider has it (and, for a paid
model, has billed its prompt): a host message that arrives while an offer is being built (that offer is not
sent: the message prepares it again), and one the host sent before an offer reached it (each offer says how
many of the host's frames the runtime had read, ``heard``; the host uses it only when it has sent no more).
"""

from __future__ import annotations

import json
import logging
from collections import Counter
from collections.abc import Callable
from contextvars import ContextVar
from dataclasses import dataclass, field

from runtime.host.messages import HttpRequest, OfferedRequest, PresendUse
from runtime.host.rpc import Rpc, Stream

log = logging.getLogger(__name__)

MARK = "\u2063tidepool-text\u2063"
"""Stands for the person's text while the offer's body is built; found again in the body by its escaped form."""
ESCAPED_MARK = json.dumps(MARK)[1:-1]
MAX_ROOM = 16_000  # the longest text sent at Send (a longer paste waits for the turn: its own time dwarfs this)
CAPABILITY = "presend"  # in the host's hello: it sends offers at Send

_SENT: ContextVar[Sent | None] = ContextVar("tidepool_presend", default=None)


def split_body(body: str) -> tuple[str, str] | None:
    """The body before and after the mark, or None unless it holds the mark once, escaped as ``json.dumps``
    escapes by default (every character outside printable ASCII: what the host's escaper does too)."""
    before, found, after = body.partition(ESCAPED_MARK)
    if not found or ESCAPED_MARK in after:
        return None
    return before, after


@dataclass
class Sent:
    """The request the host sent at Send; the turn's first request takes it or cancels it (``take``)."""

    request: HttpRequest
    stream: Stream
    taken: bool = False
    counts: Counter[str] = field(default_factory=Counter)  # the offers' (``Presends.counts``)

    def use_in_this_task(self) -> None:
        """The running task's first HTTP request (``HttpClient.open``) is matched against this one."""
        _SENT.set(self)

    def take(self, request: HttpRequest) -> Stream | None:
        """The stream of what left at Send when ``request`` is the same request byte for byte; else it is
        cancelled and None says: send ``request`` as usual. Only the first request asks."""
        if self.taken:
            return None
        self.taken = True
        if _same(self.request, request):
            self.counts["adopted"] += 1
            log.info("the request sent at Send is the turn's own (%d bytes)", len(request["body"] or ""))
            return self.stream
        self.counts["differed"] += 1
        log.info("the request sent at Send is not the turn's: it is cancelled")
        self.stream.cancel()
        return None

    def release(self) -> None:
        """The turn ended, or never started, without a request: stop what left at Send."""
        if not self.taken:
            self.taken = True
            self.counts["unused"] += 1
            self.stream.cancel()


def taken_for(request: HttpRequest) -> Stream | None:
    """For ``HttpClient.open``: the stream that already carries ``request``, when it left at Send."""
    sent = _SENT.get()
    return sent.take(request) if sent is not None else None


class Presends:
    """The one offer out at a time, and what the host sent with it."""

    def __init__(self, rpc: Rpc, heard: Callable[[], int]) -> None:
        self.rpc = rpc
        self._heard = heard  # the host's frames read so far (the transport's count)
        self.told = 0  # the host's messages handled, answers aside: an offer built across one is not sent
        self._offer: OfferedRequest | None = None
        # Listens for the offer's id from the moment it is out: the host may answer for it (a request its egress
        # rule refuses, a replay with no answer) before the message that names it has been read.
        self._stream: Stream | None = None
        self._built: tuple[tuple[object, object], HttpRequest, int] | None = None  # what the last offer was made of
        self.enabled = False  # the host sends offers at Send (its hello said ``presend``)
        self.counts: Counter[str] = Counter()  # offered, adopted, differed, unused, unknown (tests, benchmarks)

    def offer(self, request: HttpRequest, room: int, made_of: tuple[object, object]) -> bool:
        """Offer ``request`` (its body holds ``MARK`` where the text goes) for a text of up to ``room``
        escaped characters; False (and no offer out) when it cannot be offered. ``made_of``: the prepared
        request and the settings it was built from (``again``)."""
        parts = split_body(request["body"] or "") if self.enabled and room > 0 and request["stream"] else None
        if parts is None:
            self.withdraw()
            return False
        self._built = (made_of, request, room)
        self._drop()
        offer: OfferedRequest = {
            "id": self.rpc.new_id(),
            "method": request["method"],
            "url": request["url"],
            "headers": dict(request["headers"]),
            "auth": request["auth"],
            "timeout_s": request["timeout_s"],
            "before": parts[0],
            "after": parts[1],
            "room": min(room, MAX_ROOM),
            "heard": self._heard(),
        }
        self._stream = self.rpc.expect(offer["id"])
        self._send_offer(offer)
        return True

    def again(self, made_of: tuple[object, object]) -> bool:
        """Offer again what was last offered, when it was made of the same prepared request (the same object)
        and equal settings; False: it must be built. While that offer is out it goes again under its own id
        (only ``heard`` is new): a host that sent it at Send before this reached it sent the turn's request,
        not one to cancel. Once used or withdrawn, it goes under a new id."""
        built = self._built
        if built is None or built[0][0] is not made_of[0] or built[0][1] != made_of[1]:
            return False
        if self._offer is None:
            return self.offer(built[1], built[2], made_of)
        self._send_offer({**self._offer, "heard": self._heard()})
        return True

    def _send_offer(self, offer: OfferedRequest) -> None:
        self._offer = offer
        self.counts["offered"] += 1
        self.rpc.send({"type": "http_offer", "offer": offer})

    def withdraw(self) -> None:
        if self._offer is not None:
            self._drop()
            self.rpc.send({"type": "http_offer", "offer": None})

    def _drop(self) -> None:
        """Forget the offer out and stop listening for its id."""
        if self._stream is not None:
            self._stream.close()
        self._offer = self._stream = None

    def presented(self, use: PresendUse | None) -> Sent | None:
        """The user message arrived (``use``: what the host sent with it). The offer is spent either way."""
        offer, stream = self._offer, self._stream
        if use is None or offer is None or stream is None or offer["id"] != use["id"]:
            self._drop()
            if use is not None:  # withdrawn as the message crossed it: no turn takes it
                self.counts["unknown"] += 1
                self.rpc.send({"type": "cancel", "id": use["id"]})
            return None
        self._offer = self._stream = None
        request: HttpRequest = {
            "type": "http_request",
            "id": offer["id"],
            "method": offer["method"],
            "url": offer["url"],
            "headers": offer["headers"],
            "body": offer["before"] + use["text"] + offer["after"],
            "stream": True,
            "auth": offer["auth"],
            "timeout_s": offer["timeout_s"],
        }
        return Sent(request, stream, counts=self.counts)


def _same(sent: HttpRequest, request: HttpRequest) -> bool:
    keys = ("method", "url", "headers", "body", "stream", "auth", "timeout_s")
    return all(sent[k] == request[k] for k in keys)  # type: ignore[literal-required]

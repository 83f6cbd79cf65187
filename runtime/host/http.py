"""HTTP over frames: the runtime sends ``http_request``; the host answers head, chunks and an end.

``auth="provider"`` asks the host to add the provider's credentials (the runtime never sees them);
``auth="none"`` is a plain request under the host's egress rule. ``timeout_s`` bounds the wait for the
head and every wait between chunks. Cancelling the awaiting task, or leaving the body unread, sends
``cancel`` for the request.
"""

from __future__ import annotations

import base64
import binascii
import logging
from collections.abc import AsyncIterator
from dataclasses import dataclass

from runtime.errors import HostErrorKind, HostHttpError, HostRequestError
from runtime.host.codec import Message
from runtime.host.constants import HttpAuth
from runtime.host.messages import HttpRequest
from runtime.host.presend import taken_for
from runtime.host.rpc import Rpc, Stream

log = logging.getLogger(__name__)

Auth = HttpAuth
# The host enforces timeout_s itself; the runtime waits a little longer before giving up on it.
DEFAULT_GRACE_S = 5.0


@dataclass(frozen=True)
class Response:
    """A complete response (implements the tools' ``HttpResult``)."""

    status: int
    headers: dict[str, str]
    body: bytes

    def text(self) -> str:
        return self.body.decode("utf-8", errors="replace")


class StreamedResponse:
    """A response whose head has arrived; the body is read with ``iter_bytes`` (once)."""

    def __init__(
        self, stream: Stream, status: int, headers: dict[str, str], url: str, timeout_s: float, grace_s: float
    ) -> None:
        self._stream = stream
        self.status = status
        self.headers = headers
        self.url = url
        self._timeout_s = timeout_s
        self._grace_s = grace_s
        self.complete = False

    async def iter_bytes(self) -> AsyncIterator[bytes]:
        try:
            while True:
                message = await _next(self._stream, self._timeout_s, self._grace_s, self.url)
                match message.get("type"):
                    case "http_chunk":
                        yield _chunk_bytes(message, self.url)
                    case "http_end":
                        self.complete = True
                        self._stream.close()
                        return
                    case _:  # the host ended the request with an error: nothing to cancel
                        self._stream.close()
                        raise _failure(message, self.url)
        finally:
            self.close()

    async def read(self, max_bytes: int = 50_000_000) -> bytes:
        body = bytearray()
        async for chunk in self.iter_bytes():
            body += chunk
            if len(body) > max_bytes:
                self.close()
                raise HostHttpError("network", f"response from {self.url} is over {max_bytes} bytes", self.url)
        return bytes(body)

    def close(self) -> None:
        """Cancel the request unless its body was read to the end."""
        if not self.complete:
            self._stream.cancel()


class HttpClient:
    def __init__(self, rpc: Rpc, grace_s: float = DEFAULT_GRACE_S) -> None:
        self._rpc = rpc
        self.grace_s = grace_s

    async def open(
        self,
        method: str,
        url: str,
        *,
        headers: dict[str, str] | None = None,
        body: str | None = None,
        auth: Auth = "none",
        timeout_s: float = 60.0,
        stream: bool = True,
    ) -> StreamedResponse:
        """Send the request and wait for the head; raises ``HostHttpError`` if the host reports a failure."""
        request: HttpRequest = {
            "type": "http_request",
            "id": self._rpc.new_id(),
            "method": method,
            "url": url,
            "headers": headers or {},
            "body": body,
            "stream": stream,
            "auth": auth,
            "timeout_s": timeout_s,
        }
        handle = self._send(request)
        try:
            message = await _next(handle, timeout_s, self.grace_s, url)
        except BaseException:
            handle.cancel()
            raise
        if message.get("type") != "http_head":
            handle.close()
            raise _failure(message, url)
        headers_in = {str(k).lower(): str(v) for k, v in dict(message.get("headers") or {}).items()}
        return StreamedResponse(handle, int(message["status"]), headers_in, url, timeout_s, self.grace_s)

    def _send(self, request: HttpRequest) -> Stream:
        """The stream of ``request``'s answer: the one that left at Send already when it is that request."""
        return taken_for(request) or self._rpc.open_stream(request)

    async def fetch(
        self,
        url: str,
        *,
        method: str = "GET",
        headers: dict[str, str] | None = None,
        body: str | None = None,
        timeout_s: float = 30.0,
        max_bytes: int = 5_000_000,
        auth: Auth = "none",
    ) -> Response:
        """A whole (non-streamed) request: the body is read up to ``max_bytes``."""
        response = await self.open(
            method, url, headers=headers, body=body, auth=auth, timeout_s=timeout_s, stream=False
        )
        data = await response.read(max_bytes)
        return Response(response.status, response.headers, data)


async def _next(stream: Stream, timeout_s: float, grace_s: float, url: str) -> Message:
    try:
        return await stream.next(timeout_s + grace_s)
    except HostRequestError as exc:  # the host went quiet: a timeout like any other
        raise HostHttpError("timeout", f"no answer from the host in {timeout_s:g} s", url) from exc


def _chunk_bytes(message: Message, url: str) -> bytes:
    try:
        return base64.b64decode(str(message.get("data", "")), validate=True)
    except (binascii.Error, ValueError) as exc:
        raise HostHttpError("network", f"the host sent a chunk that is not base64: {exc}", url) from None


# http_error kinds kept as they are (any other is "network"); "replay": a replayed recording had no answer.
_ERROR_KINDS: dict[str, HostErrorKind] = {
    k: k for k in ("timeout", "refused", "aborted", "dropped", "unreachable", "cors", "replay")
}


def _failure(message: Message, url: str) -> HostHttpError:
    if message.get("type") == "http_error":
        kind = _ERROR_KINDS.get(str(message.get("kind")), "network")
        return HostHttpError(kind, str(message.get("message") or kind), url)
    text = str(message.get("message") or f"unexpected {message.get('type')!r} message")
    return HostHttpError("network", f"the host could not complete the request: {text}", url)

"""How the proxy passes an upstream body on without holding it whole.

A body whose length is unknown is read into memory up to `buffer_bytes` (the 5 MiB page limit): one that
ends there is answered whole, so a page over its limit still gets a clear 413 `too_large`. Any other body
(a declared length within the limit, or a wheel past 5 MiB) is streamed to the client in 64 KiB pieces as
it arrives, the client's pace holding the upstream back, so a fetch holds at most `buffer_bytes` plus a few
pieces whatever it serves. A streamed body that turns out larger than its limit (a decompressed body, an
upstream that ignores its own length) or that breaks off ends the connection mid-body: the client sees an
incomplete answer, never a complete-looking truncated one.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping

import aiohttp
from aiohttp import web

from .guard import ProxyRefused

log = logging.getLogger(__name__)

PIECE_BYTES = 64 * 1024


def too_large(limit: int) -> ProxyRefused:
    return ProxyRefused("too_large", f"the response is larger than {limit} bytes", status=413)


async def read_upto(resp: aiohttp.ClientResponse, most: int) -> tuple[bytearray, bool]:
    """Up to `most` + 1 bytes of the body, and whether the body ended within `most`."""
    held = bytearray()
    while len(held) <= most:
        piece = await resp.content.read(min(PIECE_BYTES, most + 1 - len(held)))
        if not piece:
            return held, True
        held += piece
    return held, False


async def relay(
    request: web.Request, resp: aiohttp.ClientResponse, limit: int, buffer_bytes: int, headers: Mapping[str, str]
) -> web.StreamResponse:
    """The answer to `request` with `resp`'s status and body (at most `limit` bytes) and `headers`.

    Raises ProxyRefused `too_large` while nothing has been sent; after that, a problem aborts the connection."""
    length = resp.content_length
    if length is not None and length > limit:
        raise too_large(limit)
    held = bytearray()
    if length is None:
        held, ended = await read_upto(resp, min(limit, buffer_bytes))
        if ended:
            return web.Response(status=resp.status, body=bytes(held), headers=headers)
        if limit <= buffer_bytes:
            raise too_large(limit)
    response = web.StreamResponse(status=resp.status, headers=headers)
    await response.prepare(request)
    try:
        await stream(response, resp, held, limit)
    except BaseException as exc:  # the status line is sent: the only honest answer left is a broken one
        log.info("proxy stream ended early: %s", type(exc).__name__)
        if request.transport is not None:
            request.transport.abort()
        if not isinstance(exc, Exception):
            raise
    return response


async def stream(response: web.StreamResponse, resp: aiohttp.ClientResponse, held: bytearray, limit: int) -> None:
    sent = len(held)
    view = memoryview(held)
    for at in range(0, sent, PIECE_BYTES):
        await response.write(bytes(view[at : at + PIECE_BYTES]))
    view.release()
    held.clear()
    async for piece in resp.content.iter_chunked(PIECE_BYTES):
        sent += len(piece)
        if sent > limit:
            raise too_large(limit)
        await response.write(piece)
    await response.write_eof()

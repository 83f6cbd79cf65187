"""Which request paths the server reads at all: a bad path is answered 400 before any route sees it.

A path is bad when its percent-encoding is malformed (`%zz`, a lone `%`) or does not decode to UTF-8
(`%ff`, the overlong `%c0%ae`), when it decodes to a NUL, another control character or a backslash, when
one of its segments is `.` or `..` (`/%2e%2e/`, `..%2f`), or when it is overlong (a segment over 255
bytes, the whole over 2048). The answer never repeats the path, and nothing about it is logged: a path
can carry what its sender should not get back into a log.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from urllib.parse import unquote_to_bytes

from aiohttp import web

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]

MAX_PATH_BYTES = 2048
MAX_SEGMENT_BYTES = 255  # a file name's limit on common file systems
MALFORMED_ESCAPE = "malformed percent-encoding"
HEX = frozenset("0123456789abcdefABCDEF")


def escapes_malformed(raw: str) -> bool:
    """Whether a `%` in `raw` is not followed by two hex digits."""
    at = raw.find("%")
    while at >= 0:
        if len(raw) < at + 3 or raw[at + 1] not in HEX or raw[at + 2] not in HEX:
            return True
        at = raw.find("%", at + 3)
    return False


def path_problem(raw_path: str) -> str | None:
    """Why the raw request target's path (query left out here) is not served, or None when it is fine."""
    raw = raw_path.split("?", 1)[0].split("#", 1)[0]
    if len(raw) > MAX_PATH_BYTES:
        return f"the path is longer than {MAX_PATH_BYTES} bytes"
    if escapes_malformed(raw):
        return MALFORMED_ESCAPE
    try:
        decoded = unquote_to_bytes(raw).decode("utf-8")
    except UnicodeDecodeError:
        return "the path's percent-encoding is not UTF-8"
    if any(ord(c) < 0x20 or ord(c) == 0x7F for c in decoded):
        return "the path holds a NUL or another control character"
    if "\\" in decoded:
        return "the path holds a backslash"
    segments = decoded.split("/")
    if any(s in (".", "..") for s in segments):
        return "the path has a '.' or '..' segment"
    if any(len(s.encode("utf-8")) > MAX_SEGMENT_BYTES for s in segments):
        return f"a part of the path is longer than {MAX_SEGMENT_BYTES} bytes"
    return None


@web.middleware
async def path_guard(request: web.Request, handler: Handler) -> web.StreamResponse:
    """400 `bad_path` for a path no file or route can have (see `path_problem`); the path is not echoed."""
    problem = path_problem(request.raw_path)
    if problem is not None:
        return web.json_response(
            {"error": "bad_path", "message": f"bad request path: {problem}"},
            status=400,
            headers={"Cache-Control": "no-store"},
        )
    return await handler(request)

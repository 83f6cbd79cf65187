"""The server under slow and heavy clients, over raw sockets: slow request bodies, unfinished request heads,
large wheels at once, and request paths no file can have.

- Eight POSTs that never finish their bodies hold no proxy slot: a ninth fetch is served, and each slow
  body is answered 408 `body_timeout` once its time is up.
- A connection that never finishes its request head (a slowloris client, trickling a byte now and then)
  is closed within the head timeout.
- Eight 40 MiB wheels fetched at once through the proxy are streamed: the server's peak memory grows by
  a small fraction of the 320 MiB that passed through it (it held each one whole before).
- A bad path is 400 `bad_path`, never 500, and the answer does not repeat it.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import aiohttp
import pytest
from aiohttp import web

from scripts.fakes.processes import serve_process_and_pid
from tests.server.conftest import serving

HEAD_TIMEOUT_S = 1.0
BODY_TIMEOUT_S = 1.5
MiB = 1024 * 1024
WHEEL_MIB = 40
PIECE = b"w" * MiB


@pytest.fixture(scope="module")
def loaded(dist: Path) -> Iterator[tuple[str, int]]:
    """serve.py with short head and body timeouts and 127.0.0.1 as a package index host; (URL, pid)."""
    args = ["--allow-private-host", "127.0.0.1", "--wheel-host", "127.0.0.1",
            "--head-timeout-s", str(HEAD_TIMEOUT_S), "--proxy-body-timeout-s", str(BODY_TIMEOUT_S)]
    with serve_process_and_pid(dist, *args) as served:
        yield served


async def wheel(request: web.Request) -> web.StreamResponse:
    """A WHEEL_MIB MiB wheel with its length declared, written a MiB at a time (the test holds one MiB)."""
    response = web.StreamResponse(headers={"Content-Type": "application/octet-stream"})
    response.content_length = WHEEL_MIB * MiB
    await response.prepare(request)
    for _ in range(WHEEL_MIB):
        await response.write(PIECE)
    return response


async def chunked_wheel(request: web.Request) -> web.StreamResponse:
    """The same wheel without a declared length (chunked)."""
    response = web.StreamResponse(headers={"Content-Type": "application/octet-stream"})
    await response.prepare(request)
    for _ in range(WHEEL_MIB):
        await response.write(PIECE)
    return response


async def page(request: web.Request) -> web.Response:
    return web.Response(text="a page")


@pytest.fixture
async def index() -> AsyncIterator[str]:
    app = web.Application()
    app.router.add_get("/packages/big/demo-1.0-py3-none-any.whl", wheel)
    app.router.add_get("/packages/chunked/demo-1.0-py3-none-any.whl", chunked_wheel)
    app.router.add_get("/page", page)
    async with serving(app) as base:
        yield base


def port_of(url: str) -> int:
    return int(url.rsplit(":", 1)[1])


async def raw_connection(url: str, head: bytes) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    reader, writer = await asyncio.open_connection("127.0.0.1", port_of(url))
    writer.write(head)
    await writer.drain()
    return reader, writer


async def test_eight_slow_bodies_hold_no_slot_and_time_out(loaded: tuple[str, int], index: str) -> None:
    server, _ = loaded
    head = (f"POST /api/proxy?url={index}/page HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            "Content-Type: text/plain\r\nContent-Length: 1000\r\n\r\nx").encode()
    slow = [await raw_connection(server, head) for _ in range(8)]
    started = time.monotonic()
    async with aiohttp.ClientSession() as client, client.get(f"{server}/api/proxy?url={index}/page") as r:
        assert (r.status, await r.text()) == (200, "a page")
    assert time.monotonic() - started < BODY_TIMEOUT_S, "the ninth fetch waited for the slow bodies"
    for reader, writer in slow:
        answer = await asyncio.wait_for(reader.read(4096), BODY_TIMEOUT_S + 5)
        assert answer.startswith(b"HTTP/1.1 408"), answer[:200]
        assert b'"body_timeout"' in answer
        writer.close()
    assert time.monotonic() - started < BODY_TIMEOUT_S + 5


async def test_unfinished_request_heads_are_closed_within_the_timeout(loaded: tuple[str, int]) -> None:
    server, _ = loaded
    conns = [await raw_connection(server, b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n") for _ in range(50)]
    started = time.monotonic()

    async def trickle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> float:
        """Send a header byte every 0.2 s until the server closes; when it did (seconds from the start)."""
        with_deadline = started + HEAD_TIMEOUT_S + 5
        while time.monotonic() < with_deadline:
            try:
                writer.write(b"X")
                await writer.drain()
                if await asyncio.wait_for(reader.read(1024), 0.2) == b"":
                    return time.monotonic() - started
            except TimeoutError:
                continue
            except ConnectionError:
                return time.monotonic() - started
        raise AssertionError("the unfinished head was still open")

    closed_after = await asyncio.gather(*(trickle(r, w) for r, w in conns))
    for _, writer in conns:
        writer.close()
    assert max(closed_after) < HEAD_TIMEOUT_S + 2, closed_after
    async with aiohttp.ClientSession() as client, client.get(f"{server}/") as response:
        assert response.status == 200  # the server itself is fine


def peak_and_now_kib(pid: int) -> tuple[int, int]:
    """The process's peak resident memory (VmHWM) and its current one (VmRSS), in KiB."""
    fields = dict(line.split(":", 1) for line in Path(f"/proc/{pid}/status").read_text().splitlines() if ":" in line)
    return int(fields["VmHWM"].split()[0]), int(fields["VmRSS"].split()[0])


@pytest.mark.parametrize("kind", ["big", "chunked"])
async def test_eight_large_wheels_at_once_are_streamed_not_held(loaded: tuple[str, int], index: str, kind: str) -> None:
    server, pid = loaded
    url = f"{index}/packages/{kind}/demo-1.0-py3-none-any.whl"
    timeout = aiohttp.ClientTimeout(total=60)
    async with aiohttp.ClientSession(timeout=timeout) as client:

        async def fetch() -> int:
            size = 0
            async with client.get(f"{server}/api/proxy", params={"url": url}) as response:
                assert response.status == 200, await response.text()
                async for piece in response.content.iter_chunked(MiB):
                    size += len(piece)
            return size

        await fetch()  # warm: code paths and buffers the server keeps anyway
        peak_before, _ = peak_and_now_kib(pid)
        sizes = await asyncio.gather(*(fetch() for _ in range(8)))
    assert sizes == [WHEEL_MIB * MiB] * 8
    peak_after, _ = peak_and_now_kib(pid)
    grown_mib = (peak_after - peak_before) / 1024
    print(f"peak RSS grew by {grown_mib:.1f} MiB for 8 x {WHEEL_MIB} MiB {kind} wheels at once")
    assert grown_mib < 64, f"the server's peak memory grew by {grown_mib:.0f} MiB for 8 x {WHEEL_MIB} MiB"


BAD_PATHS = [
    "/%00", "/a%00b/c", "/sandbox/%00", "/api/%00", "/%2e%2e/", "/%2e%2e/%2e%2e/etc/passwd", "/..%2f..%2fsecret.txt",
    "/assets/%2e%2e/index.html", "/%5c..%5csecret.txt", "/a\\b", "/%ff", "/%c0%ae%c0%ae/", "/%", "/%zz", "/%0d%0aX:1",
    "/%01", "/" + "a" * 300, "/" + "a/" * 1100,
]  # fmt: skip


@pytest.mark.parametrize("path", BAD_PATHS, ids=lambda p: p[:24])
async def test_a_bad_path_is_400_and_not_echoed(loaded: tuple[str, int], path: str) -> None:
    server, _ = loaded
    reader, writer = await raw_connection(server, f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
                                          .encode("latin-1"))
    answer = await asyncio.wait_for(reader.read(), 5)
    writer.close()
    status_line, _, rest = answer.partition(b"\r\n")
    assert status_line == b"HTTP/1.1 400 Bad Request", answer[:300]
    body = json.loads(rest.split(b"\r\n\r\n", 1)[1])
    assert body["error"] == "bad_path"
    assert path.strip("/")[:8] not in body["message"] and "secret" not in body["message"]


@pytest.mark.parametrize("path", ["/", "/index.html", "/assets/index-3f2a9c1b.js", "/sessions/abc%20def", "/%E2%9C%93"])
async def test_good_paths_are_still_served(loaded: tuple[str, int], path: str) -> None:
    server, _ = loaded
    reader, writer = await raw_connection(server, f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
                                          .encode())
    answer = await asyncio.wait_for(reader.read(), 5)
    writer.close()
    assert answer.startswith(b"HTTP/1.1 200"), answer[:300]

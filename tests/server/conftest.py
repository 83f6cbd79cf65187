"""Fixtures for the server tests: a small dist/, serve.py as a subprocess, an upstream on 127.0.0.1."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import aiohttp
import pytest
from aiohttp import web

from scripts.fakes.processes import serve_process

BIG = 6 * 1024 * 1024  # over the proxy's 5 MiB limit
PROXY_TIMEOUT_S = 3


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("dist")
    files = {
        "index.html": "<!doctype html><html><head><title>Tidepool</title></head><div id=app></div>",
        "assets/index-3f2a9c1b.js": "console.log('app')",
        "assets/index-77aa01ff.css": "body{margin:0}",
        "pyodide/pyodide.mjs": "export const loadPyodide = () => {}",
        "pyodide/pyodide.asm.wasm": "\0asm\x01\0\0\0",
        "pyodide/python_stdlib.zip": "PK",
        "wheels/jinja2-3.1.6-py3-none-any.whl": "PK",
        "wheels/manifest.json": '{"wheels": []}',
        "favicon.svg": "<svg xmlns='http://www.w3.org/2000/svg'/>",
        ".env": "SECRET=dotfile",
        ".git/config": "[core] dotfile",
        "assets/.hidden.js": "dotfile",
        "sandbox/bootstrap.js": "self.onmessage = () => {};\n",
    }
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    (root.parent / "secret.txt").write_text("outside dist")
    return root


@pytest.fixture(scope="module")
def server(dist: Path) -> Iterator[str]:
    """serve.py with only 127.0.0.1 allowed as a private host, a short proxy timeout."""
    with serve_process(dist, "--allow-private-host", "127.0.0.1", "--proxy-timeout-s", str(PROXY_TIMEOUT_S)) as url:
        yield url


async def echo(request: web.Request) -> web.Response:
    body = await request.read()
    response = web.json_response({"method": request.method, "headers": dict(request.headers),
                                  "body": body.decode(errors="replace")})
    response.set_cookie("upstream", "secret-cookie")
    return response


async def redirect(request: web.Request) -> web.Response:
    response = web.Response(status=int(request.query.get("status", "302")),
                            headers={"Location": request.query["to"]})
    response.set_cookie("hop", "1")
    return response


async def chain(request: web.Request) -> web.Response:
    left = int(request.match_info["n"])
    if left == 0:
        return web.Response(text="end of chain")
    raise web.HTTPFound(f"/chain/{left - 1}")


async def page(request: web.Request) -> web.Response:
    html = "<script src='/api/proxy?url=https://evil.example/x.js'></script>"
    return web.Response(text=html, content_type="text/html")


async def status(request: web.Request) -> web.Response:
    return web.Response(status=int(request.match_info["n"]), text="upstream says so", content_type="text/plain")


async def big(request: web.Request) -> web.Response:
    return web.Response(body=b"x" * BIG, content_type="application/octet-stream")


async def big_chunked(request: web.Request) -> web.StreamResponse:
    response = web.StreamResponse(headers={"Content-Type": "text/plain"})
    await response.prepare(request)
    for _ in range(BIG // 65536 + 1):
        await response.write(b"y" * 65536)
    await response.write_eof()
    return response


async def sized(request: web.Request) -> web.Response:
    """`?mib=N` MiB of bytes at any path (a package file on an index, `/packages/...`, or elsewhere)."""
    return web.Response(body=b"w" * int(float(request.query["mib"]) * 1024 * 1024),
                        content_type="application/octet-stream")


async def slow(request: web.Request) -> web.Response:
    await asyncio.sleep(PROXY_TIMEOUT_S * 4)
    return web.Response(text="too late")


@pytest.fixture
async def upstream() -> AsyncIterator[str]:
    """A real HTTP server on 127.0.0.1; its base URL."""
    app = web.Application()
    app.router.add_route("*", "/echo", echo)
    app.router.add_get("/redirect", redirect)
    app.router.add_get("/chain/{n}", chain)
    app.router.add_get("/status/{n}", status)
    app.router.add_get("/page.html", page)
    app.router.add_get("/big", big)
    app.router.add_get("/big-chunked", big_chunked)
    app.router.add_get("/slow", slow)
    app.router.add_get("/packages/{path:.*}", sized)
    app.router.add_get("/files/{path:.*}", sized)
    async with serving(app) as base:
        yield base


@contextlib.asynccontextmanager
async def serving(app: web.Application) -> AsyncIterator[str]:
    """``app`` served on a free port of 127.0.0.1 while the block runs; its base URL."""
    runner = web.AppRunner(app, shutdown_timeout=0.5)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    try:
        yield f"http://127.0.0.1:{runner.addresses[0][1]}"
    finally:
        await runner.cleanup()


@pytest.fixture
async def client() -> AsyncIterator[aiohttp.ClientSession]:
    timeout = aiohttp.ClientTimeout(total=PROXY_TIMEOUT_S * 3)
    async with aiohttp.ClientSession(timeout=timeout, cookie_jar=aiohttp.DummyCookieJar()) as session:
        yield session

"""Static files: MIME types, caching, security headers, CORS for the sandbox's imports, SPA fallback."""

from __future__ import annotations

import aiohttp
import pytest

CSP = (
    "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; worker-src 'self' blob:; "
    "connect-src 'self' https: http://localhost:* http://127.0.0.1:*; img-src 'self' data:; "
    "style-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'"
)
IMMUTABLE = "public, max-age=31536000, immutable"

FILES = [
    pytest.param("/", "text/html; charset=utf-8", "no-cache", False, id="root"),
    pytest.param("/index.html", "text/html; charset=utf-8", "no-cache", False, id="index"),
    pytest.param("/sessions/abc", "text/html; charset=utf-8", "no-cache", False, id="spa-fallback"),
    pytest.param("/assets/index-3f2a9c1b.js", "text/javascript; charset=utf-8", IMMUTABLE, False, id="hashed-js"),
    pytest.param("/assets/index-77aa01ff.css", "text/css; charset=utf-8", IMMUTABLE, False, id="hashed-css"),
    pytest.param("/pyodide/pyodide.mjs", "text/javascript; charset=utf-8", "no-cache", True, id="pyodide-mjs"),
    pytest.param("/pyodide/pyodide.asm.wasm", "application/wasm", "no-cache", True, id="wasm"),
    pytest.param("/pyodide/python_stdlib.zip", "application/octet-stream", "no-cache", True, id="zip"),
    pytest.param("/wheels/jinja2-3.1.6-py3-none-any.whl", "application/octet-stream", "no-cache", True, id="wheel"),
    pytest.param("/wheels/manifest.json", "application/json", "no-cache", True, id="manifest"),
    pytest.param("/favicon.svg", "image/svg+xml", "no-cache", False, id="svg"),
]


@pytest.mark.parametrize(("path", "content_type", "cache", "cors"), FILES)
async def test_static_headers(client: aiohttp.ClientSession, server: str, path: str, content_type: str, cache: str,
                              cors: bool) -> None:
    response = await client.get(server + path)
    await response.read()
    h = response.headers
    assert response.status == 200
    assert (h["Content-Type"], h["Cache-Control"]) == (content_type, cache)
    assert h.get("Access-Control-Allow-Origin") == ("*" if cors else None)
    assert h["X-Content-Type-Options"] == "nosniff"
    assert h["Referrer-Policy"] == "no-referrer"
    assert h["Cross-Origin-Opener-Policy"] == "same-origin"
    assert h["Content-Security-Policy"] == CSP  # HTML and worker scripts need it; elsewhere it is inert


MISSING = [
    pytest.param("/assets/gone-123.js", id="missing-file"),
    pytest.param("/api/nothing", id="unknown-api"),
    pytest.param("/%2e%2e/secret.txt", id="encoded-traversal"),
    pytest.param("/assets/..%2f..%2fsecret.txt", id="encoded-slash-traversal"),
]


@pytest.mark.parametrize("path", MISSING)
async def test_not_found(client: aiohttp.ClientSession, server: str, path: str) -> None:
    response = await client.get(server + path)
    body = await response.read()
    assert response.status in (400, 404)
    assert b"outside dist" not in body


async def test_html_fallback_serves_index(client: aiohttp.ClientSession, server: str) -> None:
    response = await client.get(server + "/settings/providers")
    assert "<title>Tidepool</title>" in await response.text()

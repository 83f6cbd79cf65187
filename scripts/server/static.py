"""Static files from `dist/`: exact MIME types, caching by kind, the security headers, SPA fallback.

Names with a part starting with `.` (dotfiles, `.git/`, `.env`) are never served. With a test
configuration (serve.py `--test-config`, for tests only), `index.html` carries it in a
`<meta name="tidepool-test-config">` tag: the only way anything but the person configures the app.
"""

from __future__ import annotations

import html
import json
import mimetypes
from pathlib import Path

from aiohttp import web

from .sandbox_policy import add_sandbox_routes

CSP = "; ".join(
    [
        "default-src 'self'",
        "script-src 'self' 'wasm-unsafe-eval'",
        "worker-src 'self' blob:",  # blob: for scripts/bench's bare-Pyodide baseline; the sandbox has its own policy
        "connect-src 'self' https: http://localhost:* http://127.0.0.1:*",
        "img-src 'self' data:",  # no blob: the chat's images are raster data: URLs (web/src/ui/images/safe-image.ts)
        "style-src 'self'",
        "object-src 'none'",
        "base-uri 'none'",
        "frame-ancestors 'none'",
    ]
)
SECURITY_HEADERS = {
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cross-Origin-Opener-Policy": "same-origin",
}
IMMUTABLE = "public, max-age=31536000, immutable"
NO_CACHE = "no-cache"
HASHED_PREFIX = "assets/"
# Served with Access-Control-Allow-Origin: * so the opaque-origin sandbox worker can import them.
SHARED_PREFIXES = ("pyodide/", "wheels/")

MIME_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".mjs": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".json": "application/json",
    ".map": "application/json",
    ".wasm": "application/wasm",
    ".whl": "application/octet-stream",
    ".zip": "application/octet-stream",
    ".tar": "application/octet-stream",
    ".svg": "image/svg+xml",
    ".png": "image/png",
    ".ico": "image/x-icon",
    ".txt": "text/plain; charset=utf-8",
    ".md": "text/markdown; charset=utf-8",
    ".woff2": "font/woff2",
    ".webmanifest": "application/manifest+json",
}

DIST = web.AppKey("dist", Path)
TEST_CONFIG = web.AppKey("test_config", str)
TEST_CONFIG_META = "tidepool-test-config"


def content_type(path: Path) -> str:
    known = MIME_TYPES.get(path.suffix.lower())
    if known:
        return known
    guessed, _ = mimetypes.guess_type(path.name)
    return guessed or "application/octet-stream"


def resolve_in(dist: Path, tail: str) -> Path | None:
    """The file under `dist` that `tail` names, or None (missing, a directory, or outside `dist`)."""
    try:
        candidate = (dist / tail).resolve()
        if not candidate.is_relative_to(dist) or not candidate.is_file():
            return None
    except (OSError, ValueError):  # paths.py refuses such names first; no name may answer 500
        return None
    return candidate


def with_test_config(page: str, config: str) -> str:
    """`index.html` with the test configuration (JSON) in a meta tag at the start of its head."""
    meta = f'<meta name="{TEST_CONFIG_META}" content="{html.escape(config, quote=True)}">'
    at = page.find("<head>")
    return f"{page[: at + 6]}{meta}{page[at + 6 :]}" if at >= 0 else meta + page


def file_response(path: Path, tail: str, test_config: str | None = None) -> web.StreamResponse:
    if test_config is not None and path.name == "index.html":
        page = with_test_config(path.read_text(encoding="utf-8"), test_config)
        return web.Response(text=page, headers={"Content-Type": MIME_TYPES[".html"], "Cache-Control": "no-store"})
    headers = {
        "Content-Type": content_type(path),
        "Cache-Control": IMMUTABLE if tail.startswith(HASHED_PREFIX) else NO_CACHE,
    }
    if tail.startswith(SHARED_PREFIXES):
        headers["Access-Control-Allow-Origin"] = "*"
    return web.FileResponse(path, headers=headers)


def not_found(message: str) -> web.Response:
    return web.json_response({"error": "not_found", "message": message}, status=404)


async def handle_static(request: web.Request) -> web.StreamResponse:
    dist = request.app[DIST]
    test_config = request.app.get(TEST_CONFIG)
    tail = request.match_info["tail"].lstrip("/")
    if tail == "api" or tail.startswith("api/"):
        return not_found(f"no API endpoint at /{tail}")
    if any(part.startswith(".") for part in tail.split("/")):
        return not_found(f"/{tail} is not served (names starting with a dot never are)")
    found = resolve_in(dist, tail or "index.html")
    if found is not None:
        return file_response(found, tail, test_config)
    last = tail.rsplit("/", 1)[-1]
    if "." in last:
        return not_found(f"no file at /{tail}")
    index = dist / "index.html"
    if not index.is_file():
        return not_found("dist/index.html is missing: run `npm run build`")
    return file_response(index, "index.html", test_config)


async def add_security_headers(request: web.Request, response: web.StreamResponse) -> None:
    """on_response_prepare: the headers every response gets, the app's CSP on any without its own.

    The CSP matters on HTML and on worker scripts alike: a worker's policy comes from its script's response,
    and a `data:` worker it starts inherits that policy; on other responses it is ignored. The sandbox's
    bootstrap worker brings a stricter policy of its own (sandbox_policy.py), which is kept.
    """
    for name, value in SECURITY_HEADERS.items():
        response.headers.setdefault(name, value)
    response.headers.setdefault("Content-Security-Policy", CSP)


def add_static_routes(app: web.Application, dist: Path, test_config: dict[str, object] | None = None) -> None:
    app[DIST] = dist.resolve()
    if test_config is not None:
        app[TEST_CONFIG] = json.dumps(test_config)
    app.on_response_prepare.append(add_security_headers)
    add_sandbox_routes(app, app[DIST])
    app.router.add_get("/{tail:.*}", handle_static)

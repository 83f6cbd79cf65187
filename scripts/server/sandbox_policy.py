"""`/sandbox/bootstrap.js`: the run_python sandbox's bootstrap worker, served with a strict CSP of its own.

The sandbox is a `data:` worker (opaque origin) that the bootstrap starts; a `data:` worker inherits the
policy of the worker that created it, so this policy is the sandbox's. It allows exactly what the sandbox
needs to boot Pyodide from the app: scripts from `/pyodide/`, connections to `/pyodide/` and
`/wheels/sandbox/` (the sandbox's own wheels), workers from `data:` (the sandbox itself, and any worker its
code starts, which inherits the same policy). Nothing else: no other host, port or path, no WebSocket.

`?network=1` (asked by the runner for a run approved with `network: true`) adds the app's `/api/proxy`,
so such a run reaches the web only through the proxy's rules. The policy names the app's origin as the
request reached it; paths make it narrower than `'self'` (which would let code reach every app route).
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from pathlib import Path

from aiohttp import web

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]

BOOTSTRAP_PATH = "/sandbox/bootstrap.js"
PROXY_PATH = "/api/proxy"
# A Host header that can stand in a policy as is (no spaces, semicolons or commas to add directives).
PLAIN_HOST = re.compile(r"^[A-Za-z0-9.-]+(:[0-9]{1,5})?$|^\[[0-9A-Fa-f:.]+\](:[0-9]{1,5})?$")


def sandbox_csp(origin: str, network: bool) -> str:
    """The sandbox's Content-Security-Policy for an app served at `origin` (scheme://host[:port])."""
    connect = [f"{origin}/pyodide/", f"{origin}/wheels/sandbox/"] + ([f"{origin}{PROXY_PATH}"] if network else [])
    return "; ".join(
        [
            "default-src 'none'",
            f"script-src {origin}/pyodide/ 'wasm-unsafe-eval'",
            "connect-src " + " ".join(connect),
            "worker-src data:",
            "base-uri 'none'",
            "form-action 'none'",
        ]
    )


def bootstrap_handler(dist: Path) -> Handler:
    """GET /sandbox/bootstrap.js: the script from `dist/`, with the sandbox's policy instead of the app's."""
    script = dist / BOOTSTRAP_PATH.lstrip("/")

    async def handle(request: web.Request) -> web.StreamResponse:
        if not script.is_file():
            return web.json_response({"error": "not_found", "message": "dist has no sandbox bootstrap"}, status=404)
        if not PLAIN_HOST.match(request.host):
            return web.json_response({"error": "bad_host", "message": "the Host header is not a host name"}, status=400)
        origin = f"{request.scheme}://{request.host}"
        headers = {
            "Content-Type": "text/javascript; charset=utf-8",
            "Cache-Control": "no-store",
            "Content-Security-Policy": sandbox_csp(origin, request.query.get("network") == "1"),
            "Cross-Origin-Resource-Policy": "same-origin",
        }
        return web.FileResponse(script, headers=headers)

    return handle


def add_sandbox_routes(app: web.Application, dist: Path) -> None:
    """Register the bootstrap route; call before the static catch-all."""
    app.router.add_get(BOOTSTRAP_PATH, bootstrap_handler(dist.resolve()))

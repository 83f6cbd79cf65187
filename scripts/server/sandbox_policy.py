"""`/sandbox/bootstrap.js`: the run_python sandbox's bootstrap worker, served with a strict CSP of its own.

The sandbox is a `data:` worker (opaque origin) that the bootstrap starts; a `data:` worker inherits the
policy of the worker that created it, so this policy is the sandbox's. It allows exactly what the sandbox
needs to boot Pyodide from the app: scripts from `/pyodide/`, connections to `/pyodide/` and
`/wheels/sandbox/` (the sandbox's own wheels), workers from `data:` (the sandbox itself, and any worker its
code starts, which inherits the same policy). Nothing else: no other host, port or path, no WebSocket.
Scripts may also come from `blob:` URLs the sandbox makes itself: offline, no service worker serves the
opaque-origin sandbox, so the host hands it Pyodide's modules as bytes (docs/offline.md). That gives code
in the sandbox nothing new: through Pyodide's `js` module it already calls any JavaScript API it has, and
what it can reach is still set by `connect-src` and `worker-src` (a `blob:` worker is still refused).

`?network=1` (asked by the runner for a run approved with `network: true`) adds the app's `/api/proxy`,
so such a run reaches the web only through the proxy's rules. The policy names the app's origin as the
request reached it; paths make it narrower than `'self'` (which would let code reach every app route).

The sandbox's requests carry `Origin: null`, like those of any sandboxed page or `data:` worker on any site
(measured in Chromium 156: our sandbox's fetch and XHR send `Origin: null`, `Sec-Fetch-Site: cross-site`,
`Sec-Fetch-Mode: cors`, `Sec-Fetch-Dest: empty` and no `Referer`, exactly what a `data:` worker started by
another site sends), so the proxy admits a `null` origin only with a grant, and the grant is what binds
it to one sandbox:

- The runner asks for it (`POST /api/sandbox/grants`, an `/api/` route: only the app's own pages; the
  sandbox's policy cannot reach it) for one network sandbox, hands it to that sandbox in `init`, and
  revokes it (`DELETE /api/sandbox/grants/<grant>`) when the sandbox ends. One grant per sandbox; at most
  MAX_GRANTS live at once (minting past that drops the oldest); each expires after GRANT_TTL_S at the latest.
- A `null`-origin request whose metadata shows it is not a sandbox's fetch or XHR (a `Sec-Fetch-Dest`
  other than `empty`, a `Sec-Fetch-Mode` other than `cors`, a `Referer` from another origin) is refused
  even with a grant.

Admitted responses carry `Access-Control-Allow-Origin: null` so the sandbox can read them; a `null`-origin
request without a valid grant is refused before the proxy fetches anything.
"""

from __future__ import annotations

import re
import secrets
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

from aiohttp import web

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]

BOOTSTRAP_PATH = "/sandbox/bootstrap.js"
PROXY_PATH = "/api/proxy"
GRANTS_PATH = "/api/sandbox/grants"
GRANT_TTL_S = 600.0
MAX_GRANTS = 8
GRANTS = web.AppKey("sandbox_network_grants", dict[str, float])  # token → expiry (time.monotonic()), oldest first
ADMITTED = web.RequestKey("sandbox_admitted", bool)
# A Host header that can stand in a policy as is (no spaces, semicolons or commas to add directives).
PLAIN_HOST = re.compile(r"^[A-Za-z0-9.-]+(:[0-9]{1,5})?$|^\[[0-9A-Fa-f:.]+\](:[0-9]{1,5})?$")


def sandbox_csp(origin: str, network: bool) -> str:
    """The sandbox's Content-Security-Policy for an app served at `origin` (scheme://host[:port])."""
    connect = [f"{origin}/pyodide/", f"{origin}/wheels/sandbox/"] + ([f"{origin}{PROXY_PATH}"] if network else [])
    return "; ".join(
        [
            "default-src 'none'",
            f"script-src {origin}/pyodide/ blob: 'wasm-unsafe-eval'",
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
        network = request.query.get("network") == "1"
        headers = {
            "Cache-Control": "no-store",
            "Content-Security-Policy": sandbox_csp(origin, network),
            "Cross-Origin-Resource-Policy": "same-origin",
        }
        text = script.read_text(encoding="utf-8")
        return web.Response(text=text, content_type="text/javascript", charset="utf-8", headers=headers)

    return handle


def mint_grant(app: web.Application) -> str:
    """A new network grant (the expired ones dropped, and the oldest past MAX_GRANTS - 1)."""
    grants = app[GRANTS]
    now = time.monotonic()
    for token in [t for t, expiry in grants.items() if expiry <= now]:
        del grants[token]
    while len(grants) >= MAX_GRANTS:
        del grants[next(iter(grants))]
    token = secrets.token_urlsafe(24)
    grants[token] = now + GRANT_TTL_S
    return token


async def handle_mint(request: web.Request) -> web.Response:
    """POST /api/sandbox/grants: a grant for one network sandbox (the access check let only our pages here)."""
    body = {"grant": mint_grant(request.app), "expires_in_s": GRANT_TTL_S}
    return web.json_response(body, status=201, headers={"Cache-Control": "no-store"})


async def handle_revoke(request: web.Request) -> web.Response:
    """DELETE /api/sandbox/grants/<grant>: the sandbox holding it has ended (204 whether or not it was live)."""
    request.app[GRANTS].pop(request.match_info["grant"], None)
    return web.Response(status=204, headers={"Cache-Control": "no-store"})


def not_a_sandbox_fetch(request: web.Request) -> str | None:
    """Why a `null`-origin request's fetch metadata shows it is no sandbox fetch or XHR, or None."""
    dest, mode = request.headers.get("Sec-Fetch-Dest"), request.headers.get("Sec-Fetch-Mode")
    if dest is not None and dest != "empty":
        return f"a request for a {dest} is not a sandbox's fetch"
    if mode is not None and mode != "cors":
        return f"a {mode} request is not a sandbox's fetch"
    referer = request.headers.get("Referer")
    if referer is not None and not referer.startswith(f"{request.scheme}://{request.host}/"):
        return "the request came from another site's page"
    return None


def granted(app: web.Application, token: str | None) -> bool:
    expiry = app[GRANTS].get(token or "")
    return expiry is not None and expiry > time.monotonic()


@web.middleware
async def admit_sandbox(request: web.Request, handler: Handler) -> web.StreamResponse:
    """/api/proxy from a `null` origin: only with a valid grant, and then readable by the sandbox."""
    if request.path != PROXY_PATH or request.headers.get("Origin") != "null":
        return await handler(request)
    foreign = not_a_sandbox_fetch(request)
    if foreign is not None or not granted(request.app, request.query.get("grant")):
        message = foreign or "code in the sandbox reaches the proxy only in a run approved with network=true"
        return web.json_response(
            {"error": "sandbox_not_allowed", "message": message},
            status=403,
            headers={"X-Proxy-Error": "sandbox_not_allowed", "Cache-Control": "no-store"},
        )
    request[ADMITTED] = True
    return await handler(request)


async def readable_by_the_sandbox(request: web.Request, response: web.StreamResponse) -> None:
    """on_response_prepare: an admitted sandbox request's answer (streamed or not) is readable by it."""
    if request.get(ADMITTED):
        response.headers["Access-Control-Allow-Origin"] = "null"
        response.headers["Access-Control-Expose-Headers"] = "X-Proxy-Final-Url, X-Proxy-Error"


def add_sandbox_routes(app: web.Application, dist: Path) -> None:
    """Register the bootstrap, the grants and the proxy's admission of the sandbox; call before the static catch-all."""
    app[GRANTS] = {}
    app.middlewares.append(admit_sandbox)
    app.on_response_prepare.append(readable_by_the_sandbox)
    app.router.add_get(BOOTSTRAP_PATH, bootstrap_handler(dist.resolve()))
    app.router.add_post(GRANTS_PATH, handle_mint)
    app.router.add_delete(GRANTS_PATH + "/{grant}", handle_revoke)

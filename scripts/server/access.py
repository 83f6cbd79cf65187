"""Who the server answers: only its own host names on every route, only its own pages on `/api/`.

- `Host`: every request must name a host this server serves: the loopback names, the `--host` it listens
  on (unless that is a wildcard) and any `--public-host`. A DNS-rebinding page (its own name resolving to
  127.0.0.1) sends its own name as `Host` and is refused with 421 before any route runs.
- `/api/` only: a request whose `Origin` is not this server's own (including the opaque `null`) or whose
  `Sec-Fetch-Site` says another site or origin sent it is refused with 403. Clients that send neither
  header (curl, scripts) are not browsers acting for another page and pass.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass

from aiohttp import web
from aiohttp.typedefs import Middleware
from yarl import URL

LOOPBACK_NAMES = frozenset({"localhost", "127.0.0.1", "::1"})
WILDCARDS = frozenset({"", "0.0.0.0", "::"})
SAME_ORIGIN_FETCH_SITES = frozenset({"same-origin", "none"})
SANDBOX_ADMITTED_PATH = "/api/proxy"

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


def host_name(value: str) -> str:
    """The host part of a `Host` header or host name: lower case, no port, no IPv6 brackets, no final dot."""
    value = value.strip().lower()
    if value.startswith("["):
        return value[1 : value.find("]")] if "]" in value else value
    if value.count(":") == 1:
        value = value.split(":", 1)[0]
    return value.rstrip(".")


def origin_key(scheme: str, host: str, port: int | None) -> tuple[str, str, int]:
    default = 443 if scheme == "https" else 80
    return scheme, host_name(host), port or default


@dataclass(frozen=True)
class HostPolicy:
    """The host names this server answers to."""

    names: frozenset[str] = LOOPBACK_NAMES

    @classmethod
    def of(cls, listen_host: str, public_hosts: Iterable[str] = ()) -> HostPolicy:
        extra = {host_name(h) for h in (listen_host, *public_hosts)} - WILDCARDS
        return cls(LOOPBACK_NAMES | extra)

    def serves(self, host_header: str | None) -> bool:
        return bool(host_header) and host_name(host_header or "") in self.names


def refusal(code: str, message: str, status: int) -> web.Response:
    return web.json_response({"error": code, "message": message}, status=status, headers={"Cache-Control": "no-store"})


def same_origin(request: web.Request, origin: str) -> bool:
    try:
        url = URL(origin)
    except ValueError:
        return False
    if url.scheme not in ("http", "https") or not url.host:
        return False
    own = origin_key(url.scheme, request.host, URL(f"{url.scheme}://{request.host}").explicit_port)
    return origin_key(url.scheme, url.host, url.explicit_port) == own


def api_refusal(request: web.Request) -> web.Response | None:
    """Why an `/api/` request from a browser must not be answered, or None.

    The opaque origin `null` asking `/api/proxy` is the sandbox: it is passed on to the sandbox admission
    (sandbox_policy.admit_sandbox), which answers it only with the grant of a run approved with network."""
    origin = request.headers.get("Origin")
    if origin == "null" and request.path == SANDBOX_ADMITTED_PATH:
        return None
    if origin is not None and not same_origin(request, origin):
        return refusal("foreign_origin", f"requests from {origin} are not served; this API is for this app only", 403)
    site = request.headers.get("Sec-Fetch-Site")
    if site is not None and site.lower() not in SAME_ORIGIN_FETCH_SITES:
        return refusal("foreign_origin", f"a {site} request is not served; this API is for this app only", 403)
    return None


def access_middleware(policy: HostPolicy) -> Middleware:
    @web.middleware
    async def check_access(request: web.Request, handler: Handler) -> web.StreamResponse:
        host = request.headers.get("Host")
        if not policy.serves(host):
            return refusal(
                "unknown_host",
                f"this server does not serve the host {host!r} (start it with --public-host NAME to add one)",
                421,
            )
        if request.path == "/api" or request.path.startswith("/api/"):
            refused = api_refusal(request)
            if refused is not None:
                return refused
        return await handler(request)

    return check_access

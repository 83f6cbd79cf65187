"""`/api/proxy?url=...`: fetch a public http(s) URL for the app (the `web_fetch` tool and skill imports).

Rules (DESIGN §7): http(s) only, on ports 80 and 443 unless a port (or the URL's host, with
`--allow-private-host`) is allowed; every address checked before connecting (see guard.py); redirects
followed here, at most `max_redirects`, each one re-checked; a total time limit and a body size limit
(5 MiB; 64 MiB for a wheel file, `/packages/…/*.whl`, from a package index host, which the sandbox's
package installs fetch through here);
at most `max_concurrent` upstream fetches at once (429 beyond); an upstream 1xx or upgrade answer is
refused; the caller's cookies and credentials are never forwarded and upstream `Set-Cookie` never comes
back. Who may call it at all is decided before this module (access.py).
The response carries the upstream status and content type plus `X-Proxy-Final-Url`. Errors of the
proxy itself are JSON `{error, message}` with an `X-Proxy-Error` header naming the code.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import logging
import re
from collections.abc import AsyncIterator
from dataclasses import dataclass, field

import aiohttp
from aiohttp import web
from yarl import URL

from .guard import AddressPolicy, GuardedResolver, ProxyRefused
from .relay import relay

log = logging.getLogger(__name__)

REDIRECT_STATUSES = frozenset({301, 302, 303, 307, 308})
FORWARDED_REQUEST_HEADERS = ("Accept", "Accept-Language", "Content-Type")
USER_AGENT = "Tidepool-proxy/0.1"
MiB = 1024 * 1024
# Where PyPI serves package files (https://files.pythonhosted.org/packages/<hash path>/<name>.whl).
PACKAGE_FILE_HOSTS = frozenset({"files.pythonhosted.org", "pypi.org"})
# Hosts like 2130706433 or 0x7f.1 that some resolvers read as IPv4 addresses: refused unless canonical.
NUMERIC_HOST = re.compile(r"^(0x[0-9a-f]*|[0-9]+)(\.(0x[0-9a-f]*|[0-9]+))*\.?$", re.IGNORECASE)


@dataclass(frozen=True)
class ProxyConfig:
    policy: AddressPolicy = field(default_factory=AddressPolicy)
    max_body_bytes: int = 5 * MiB
    max_wheel_bytes: int = 64 * MiB  # a wheel file from one of `wheel_hosts` (see `body_limit`)
    wheel_hosts: frozenset[str] = PACKAGE_FILE_HOSTS
    total_timeout_s: float = 20.0
    connect_timeout_s: float = 10.0
    max_redirects: int = 5
    max_concurrent: int = 8
    max_request_bytes: int = 1 * MiB  # a POST's body (aiohttp's own cap, `client_max_size`, is the same)
    body_timeout_s: float = 10.0  # a POST's body must arrive within this, before the fetch takes a slot
    allowed_ports: frozenset[int] = frozenset({80, 443})


PROXY_CONFIG = web.AppKey("proxy_config", ProxyConfig)
PROXY_SESSION = web.AppKey("proxy_session", aiohttp.ClientSession)
PROXY_SLOTS = web.AppKey("proxy_slots", asyncio.Semaphore)


# A proxied document is served from the app's origin: it must never run there (it could read the app's
# storage and use its keys), so every proxy response is a sandboxed, script-less download.
CONTAINMENT_HEADERS = {
    "Content-Security-Policy": "sandbox; default-src 'none'",
    "Content-Disposition": "attachment",
    "Cross-Origin-Resource-Policy": "same-origin",
    "Cache-Control": "no-store",
}


def error_response(code: str, message: str, status: int) -> web.Response:
    return web.json_response(
        {"error": code, "message": message},
        status=status,
        headers={**CONTAINMENT_HEADERS, "X-Proxy-Error": code},
    )


def is_ip_literal(host: str) -> bool:
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True


def checked_url(raw: str, config: ProxyConfig) -> URL:
    """Parse and check a target URL (scheme, port, credentials, IP literals); host names are checked at connect."""
    policy = config.policy
    try:
        url = URL(raw)
    except (ValueError, TypeError) as exc:
        raise ProxyRefused("bad_url", f"not a URL: {raw!r}", status=400) from exc
    if url.scheme not in ("http", "https"):
        raise ProxyRefused("bad_scheme", f"only http and https URLs can be fetched, not {url.scheme or 'none'}:", 400)
    if not url.host:
        raise ProxyRefused("bad_url", f"the URL has no host: {raw!r}", status=400)
    if url.user is not None or url.password is not None:
        raise ProxyRefused("bad_url", "URLs with credentials are not fetched", status=400)
    if NUMERIC_HOST.match(url.host) and not is_ip_literal(url.host):
        raise ProxyRefused("bad_url", f"{url.host} is not a canonical IP address", status=400)
    policy.check_literal(url.host)
    if url.port not in config.allowed_ports and not policy.allows_private(url.host):
        allowed = ", ".join(str(p) for p in sorted(config.allowed_ports))
        raise ProxyRefused("forbidden_port", f"port {url.port} is not fetched (only {allowed}; see --allow-port)", 403)
    return url


def body_limit(url: URL, config: ProxyConfig) -> int:
    """The body size limit for the answer from `url`: `max_wheel_bytes` for a wheel file (`.whl` under
    `/packages/`) on a package index host, `max_body_bytes` for everything else."""
    wheel = url.host in config.wheel_hosts and url.path.startswith("/packages/") and url.path.endswith(".whl")
    return config.max_wheel_bytes if wheel else config.max_body_bytes


def next_hop(url: URL, resp: aiohttp.ClientResponse, method: str) -> tuple[URL, str] | None:
    """Where a redirect points and the method to use there, or None when `resp` is not a redirect."""
    location = resp.headers.get("Location")
    if resp.status not in REDIRECT_STATUSES or not location:
        return None
    keep_method = resp.status in (307, 308) or method == "HEAD"
    return url.join(URL(location)), method if keep_method else "GET"


@contextlib.asynccontextmanager
async def upstream_answer(
    session: aiohttp.ClientSession, config: ProxyConfig, raw_url: str, method: str, body: bytes | None,
    headers: dict[str, str],
) -> AsyncIterator[tuple[aiohttp.ClientResponse, URL]]:
    """The final answer to `raw_url` (its body unread) and its URL, redirects followed and re-checked."""
    url = checked_url(raw_url, config)
    for _hop in range(config.max_redirects + 1):
        async with session.request(method, url, data=body, headers=headers, allow_redirects=False) as resp:
            if resp.status < 200 or resp.headers.get("Upgrade"):
                raise ProxyRefused("upstream_protocol", f"the upstream answered {resp.status} (an upgrade or interim "
                                   "answer), which the proxy does not pass on", status=502)
            hop = next_hop(url, resp, method)
            if hop is None:
                yield resp, url
                return
        url, new_method = checked_url(str(hop[0]), config), hop[1]
        if new_method != method:
            method, body = new_method, None
            headers = {k: v for k, v in headers.items() if k != "Content-Type"}
    raise ProxyRefused("too_many_redirects", f"more than {config.max_redirects} redirects", status=502)


def forwarded_headers(request: web.Request) -> dict[str, str]:
    """Only harmless headers travel upstream: never Cookie, Authorization or anything identifying."""
    headers = {"User-Agent": USER_AGENT}
    for name in FORWARDED_REQUEST_HEADERS:
        if name in request.headers:
            headers[name] = request.headers[name]
    return headers


async def request_body(request: web.Request, config: ProxyConfig) -> bytes | None:
    """A POST's body, read whole within `body_timeout_s` (before the fetch takes a slot); None for a GET."""
    if request.method != "POST":
        return None
    declared = request.content_length
    if declared is not None and declared > config.max_request_bytes:
        raise ProxyRefused("too_large", f"a request body is at most {config.max_request_bytes} bytes", status=413)
    try:
        async with asyncio.timeout(config.body_timeout_s):
            return await request.read()
    except TimeoutError:
        raise ProxyRefused("body_timeout", f"the request body did not arrive within {config.body_timeout_s:g} s",
                           status=408) from None
    except web.HTTPRequestEntityTooLarge:
        raise ProxyRefused("too_large", f"a request body is at most {config.max_request_bytes} bytes",
                           status=413) from None


async def handle_proxy(request: web.Request) -> web.StreamResponse:
    config = request.app[PROXY_CONFIG]
    raw = request.query.get("url")
    if not raw:
        return error_response("bad_request", "missing the url query parameter", 400)
    try:
        body = await request_body(request, config)
    except ProxyRefused as exc:
        return error_response(exc.code, exc.message, exc.status)
    slots = request.app[PROXY_SLOTS]
    if slots.locked():
        return error_response("busy", f"already {config.max_concurrent} fetches under way; try again shortly", 429)
    async with slots:
        return await proxied(request, config, raw, body)


async def proxied(request: web.Request, config: ProxyConfig, raw: str, body: bytes | None) -> web.StreamResponse:
    session, headers = request.app[PROXY_SESSION], forwarded_headers(request)
    try:
        async with (
            asyncio.timeout(config.total_timeout_s),
            upstream_answer(session, config, raw, request.method, body, headers) as (resp, url),
        ):
            answer = {**CONTAINMENT_HEADERS, "X-Proxy-Final-Url": str(url)}
            if resp.headers.get("Content-Type"):
                answer["Content-Type"] = resp.headers["Content-Type"]
            return await relay(request, resp, body_limit(url, config), config.max_body_bytes, answer)
    except ProxyRefused as exc:
        log.info("proxy refused a fetch: %s", exc.message)
        return error_response(exc.code, exc.message, exc.status)
    except TimeoutError:
        return error_response("timeout", f"no complete answer within {config.total_timeout_s:g} s", 504)
    except (aiohttp.ClientError, ValueError) as exc:
        return error_response("upstream_error", f"could not fetch {raw}: {exc}", 502)


async def proxy_session(app: web.Application) -> AsyncIterator[None]:
    """Cleanup context: one client session whose connector resolves only through the guard."""
    config = app[PROXY_CONFIG]
    connector = aiohttp.TCPConnector(resolver=GuardedResolver(config.policy), use_dns_cache=False)
    timeout = aiohttp.ClientTimeout(total=None, sock_connect=config.connect_timeout_s)
    async with aiohttp.ClientSession(
        connector=connector, timeout=timeout, cookie_jar=aiohttp.DummyCookieJar(), trust_env=False
    ) as session:
        app[PROXY_SESSION] = session
        app[PROXY_SLOTS] = asyncio.Semaphore(config.max_concurrent)
        yield


def add_proxy_routes(app: web.Application, config: ProxyConfig) -> None:
    app[PROXY_CONFIG] = config
    app.cleanup_ctx.append(proxy_session)
    app.router.add_route("GET", "/api/proxy", handle_proxy)
    app.router.add_route("POST", "/api/proxy", handle_proxy)

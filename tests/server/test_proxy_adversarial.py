"""The server as an attacker meets it: other pages, rebound host names, floods, odd upstreams, dotfiles, URLs.

The server serves this app only: a page on another origin cannot use `/api/proxy` (its `Origin` or
`Sec-Fetch-Site` gives it away), a DNS-rebinding page (its own name resolving to 127.0.0.1) is refused on
every route because its `Host` is not one of ours, a flood of fetches gets 429 beyond the cap, an upstream
that answers 101 is not passed through, ports other than 80/443 need allowing, dotfiles under dist/ are
never served, and nothing in the page's URL reaches the page as configuration.
"""

from __future__ import annotations

import asyncio
import html
import json
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import aiohttp
import pytest
from aiohttp import web
from yarl import URL

from scripts.fakes.processes import serve_process
from scripts.server.guard import AddressPolicy, ProxyRefused
from scripts.server.proxy import ProxyConfig, checked_url

ROUTES = ["/", "/index.html", "/assets/index-3f2a9c1b.js", "/pyodide/pyodide.mjs", "/sessions/abc", "/api/proxy"]


def proxy_url(server: str, target: str) -> URL:
    return URL(f"{server}/api/proxy").with_query(url=target)


async def error_of(response: aiohttp.ClientResponse) -> str | None:
    body = await response.read()
    try:
        return str(json.loads(body).get("error"))
    except (ValueError, AttributeError):
        return None


# --- Origin and Sec-Fetch-Site on /api/ ------------------------------------------------------------------

FOREIGN = [
    pytest.param({"Origin": "http://evil.example"}, id="foreign-origin"),
    pytest.param({"Origin": "http://127.0.0.1:1"}, id="same-host-other-port"),
    pytest.param({"Origin": "https://127.0.0.1"}, id="same-host-other-scheme"),
    pytest.param({"Sec-Fetch-Site": "cross-site"}, id="cross-site"),
    pytest.param({"Sec-Fetch-Site": "same-site"}, id="same-site-other-origin"),
]


@pytest.mark.parametrize("headers", FOREIGN)
@pytest.mark.parametrize("method", ["GET", "POST"])
async def test_the_proxy_refuses_other_pages(client: aiohttp.ClientSession, server: str, upstream: str,
                                             headers: dict[str, str], method: str) -> None:
    response = await client.request(method, proxy_url(server, f"{upstream}/echo"), headers=headers, data=b"x")
    assert (response.status, await error_of(response)) == (403, "foreign_origin")


@pytest.mark.parametrize("grant", [pytest.param("", id="no-grant"), pytest.param("made-up", id="made-up-grant")])
async def test_the_opaque_origin_is_refused_without_a_network_grant(
    client: aiohttp.ClientSession, server: str, upstream: str, grant: str
) -> None:
    """`Origin: null` is the sandbox; only a run approved with network holds a grant (sandbox_policy.py)."""
    url = proxy_url(server, f"{upstream}/echo")
    url = url.update_query(grant=grant) if grant else url
    response = await client.get(url, headers={"Origin": "null", "Sec-Fetch-Site": "cross-site"})
    assert (response.status, await error_of(response)) == (403, "sandbox_not_allowed")


OWN = [
    pytest.param({}, id="no-browser-headers"),
    pytest.param({"Sec-Fetch-Site": "same-origin"}, id="same-origin-fetch"),
    pytest.param({"Sec-Fetch-Site": "none"}, id="typed-in-address-bar"),
]


@pytest.mark.parametrize("headers", OWN)
async def test_the_proxy_serves_its_own_pages(client: aiohttp.ClientSession, server: str, upstream: str,
                                              headers: dict[str, str]) -> None:
    headers = {**headers, "Origin": server} if headers else headers
    response = await client.get(proxy_url(server, f"{upstream}/status/200"), headers=headers)
    assert (response.status, await response.text()) == (200, "upstream says so")


async def test_static_files_stay_shared_with_the_sandbox(client: aiohttp.ClientSession, server: str) -> None:
    """The opaque-origin sandbox imports /pyodide/: the Origin check is for /api/ only."""
    response = await client.get(f"{server}/pyodide/pyodide.mjs", headers={"Origin": "null",
                                                                         "Sec-Fetch-Site": "cross-site"})
    assert response.status == 200
    assert response.headers["Access-Control-Allow-Origin"] == "*"


# --- Host on every route (DNS rebinding) -----------------------------------------------------------------


@pytest.mark.parametrize("path", ROUTES)
@pytest.mark.parametrize("host", ["evil.example", "evil.example:8000", "127.0.0.1.evil.example", "10.0.0.1", ""])
async def test_every_route_refuses_foreign_host_names(client: aiohttp.ClientSession, server: str, path: str,
                                                      host: str) -> None:
    response = await client.get(f"{server}{path}", headers={"Host": host})
    assert (response.status, await error_of(response)) == (421, "unknown_host")


@pytest.mark.parametrize("host", ["localhost", "LOCALHOST.", "127.0.0.1", "[::1]:8000"])
async def test_loopback_names_are_served(client: aiohttp.ClientSession, server: str, host: str) -> None:
    response = await client.get(f"{server}/", headers={"Host": host})
    assert response.status == 200
    assert "<title>Tidepool</title>" in await response.text()


@pytest.fixture(scope="module")
def public_server(dist: Path) -> Iterator[str]:
    with serve_process(dist, "--public-host", "tide.example.org") as url:
        yield url


@pytest.mark.parametrize(("host", "status"), [("tide.example.org", 200), ("tide.example.org:443", 200),
                                              ("other.example.org", 421)])
async def test_public_host_adds_exactly_that_name(client: aiohttp.ClientSession, public_server: str, host: str,
                                                  status: int) -> None:
    response = await client.get(f"{public_server}/", headers={"Host": host})
    assert response.status == status


# --- a flood of fetches ------------------------------------------------------------------------------------


class Gate:
    """An upstream endpoint that holds every request until released; counts arrivals."""

    def __init__(self) -> None:
        self.arrived = 0
        self.release = asyncio.Event()

    async def handle(self, request: web.Request) -> web.Response:
        self.arrived += 1
        await self.release.wait()
        return web.Response(text="released")


@pytest.fixture
async def gate() -> AsyncIterator[tuple[Gate, str]]:
    held = Gate()
    app = web.Application()
    app.router.add_get("/held", held.handle)
    runner = web.AppRunner(app, shutdown_timeout=0.5)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    yield held, f"http://127.0.0.1:{runner.addresses[0][1]}/held"
    held.release.set()
    await runner.cleanup()


@pytest.fixture(scope="module")
def capped_server(dist: Path) -> Iterator[str]:
    with serve_process(dist, "--allow-private-host", "127.0.0.1", "--proxy-max-concurrent", "3") as url:
        yield url


async def wait_until(condition: object, timeout_s: float = 10.0) -> None:
    async with asyncio.timeout(timeout_s):
        while not condition():  # type: ignore[operator]
            await asyncio.sleep(0.01)


async def test_fetches_beyond_the_cap_get_429(client: aiohttp.ClientSession, capped_server: str,
                                              gate: tuple[Gate, str]) -> None:
    held, url = gate
    first = [asyncio.create_task(client.get(proxy_url(capped_server, url))) for _ in range(3)]
    await wait_until(lambda: held.arrived == 3)
    flood = await asyncio.gather(*(client.get(proxy_url(capped_server, url)) for _ in range(37)))
    assert {(r.status, await error_of(r)) for r in flood} == {(429, "busy")}
    held.release.set()
    answered = await asyncio.gather(*first)
    assert [r.status for r in answered] == [200, 200, 200]
    assert held.arrived == 3
    again = await client.get(proxy_url(capped_server, url))
    assert (again.status, await again.text()) == (200, "released")


# --- upstreams that switch protocols ---------------------------------------------------------------------


@pytest.fixture
async def switching_upstream() -> AsyncIterator[str]:
    """A raw TCP server that answers every request with `101 Switching Protocols` and then talks."""

    async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.readuntil(b"\r\n\r\n")
        writer.write(b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n"
                     b"raw bytes after the upgrade")
        await writer.drain()
        writer.close()

    server = await asyncio.start_server(answer, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    yield f"http://127.0.0.1:{port}/ws"
    server.close()
    await server.wait_closed()


async def test_an_upstream_upgrade_is_refused(client: aiohttp.ClientSession, server: str,
                                              switching_upstream: str) -> None:
    response = await client.get(proxy_url(server, switching_upstream),
                                headers={"Connection": "Upgrade", "Upgrade": "websocket"})
    body = await response.read()
    assert (response.status, await error_of(response)) == (502, "upstream_protocol")
    assert b"raw bytes" not in body


# --- ports -----------------------------------------------------------------------------------------------

PORTS = [
    pytest.param("http://example.com:8080/", frozenset({80, 443}), "forbidden_port", id="8080-refused"),
    pytest.param("https://example.com:22/", frozenset({80, 443}), "forbidden_port", id="ssh-port-refused"),
    pytest.param("http://example.com:443/", frozenset({80, 443}), None, id="443-over-http-is-a-web-port"),
    pytest.param("http://example.com/", frozenset({80, 443}), None, id="default-port"),
    pytest.param("http://example.com:8080/", frozenset({80, 443, 8080}), None, id="allowed-port"),
]


@pytest.mark.parametrize(("url", "ports", "code"), PORTS)
def test_only_web_ports_unless_allowed(url: str, ports: frozenset[int], code: str | None) -> None:
    config = ProxyConfig(policy=AddressPolicy(), allowed_ports=ports)
    if code is None:
        assert checked_url(url, config).host == "example.com"
    else:
        with pytest.raises(ProxyRefused) as refused:
            checked_url(url, config)
        assert refused.value.code == code


async def test_a_redirect_to_another_port_is_refused(client: aiohttp.ClientSession, dist: Path,
                                                     upstream: str) -> None:
    with serve_process(dist, "--allow-private-host", "127.0.0.1") as served:
        response = await client.get(proxy_url(served, f"{upstream}/redirect?to=http://example.com:25/"))
        assert (response.status, await error_of(response)) == (403, "forbidden_port")


# --- dotfiles --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("path", ["/.env", "/.git/config", "/assets/.hidden.js", "/%2eenv", "/assets/%2Ehidden.js"])
async def test_dotfiles_are_never_served(client: aiohttp.ClientSession, server: str, path: str) -> None:
    response = await client.get(server + path)
    body = await response.read()
    assert response.status == 404
    assert b"dotfile" not in body


# --- the URL configures nothing; only a test server option does -------------------------------------------


async def test_query_parameters_never_reach_the_page(client: aiohttp.ClientSession, server: str) -> None:
    page = await (await client.get(f"{server}/?auth_base=http://evil.example&package_index=http://evil.example"))\
        .text()
    assert "evil.example" not in page
    assert "tidepool-test-config" not in page


async def test_a_test_config_reaches_the_page_only_from_the_server_option(client: aiohttp.ClientSession,
                                                                          dist: Path) -> None:
    config = {"authBase": "http://127.0.0.1:9/\"><script>", "packageIndexUrls": ["http://127.0.0.1:9/simple"]}
    with serve_process(dist, "--test-config", json.dumps(config)) as served:
        page = await (await client.get(f"{served}/sessions/x")).text()
    assert '<meta name="tidepool-test-config" content="' in page
    assert "<script>" not in page  # the value is escaped: it stays an attribute
    content = page.split('content="', 1)[1].split('"', 1)[0]
    assert json.loads(html.unescape(content)) == config

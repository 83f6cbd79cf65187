"""/api/proxy: what it refuses, what it fetches, and what it never forwards (DESIGN §7)."""

from __future__ import annotations

from typing import Any

import aiohttp
import pytest
from yarl import URL


async def proxy_get(client: aiohttp.ClientSession, server: str, target: str, **kwargs: Any) -> aiohttp.ClientResponse:
    response = await client.get(URL(f"{server}/api/proxy").with_query(url=target), **kwargs)
    await response.read()
    return response


def up(template: str, upstream: str) -> str:
    """Fill `{port}` and `{up}` (the upstream base URL) in a table entry."""
    return template.format(port=URL(upstream).port, up=upstream)


REFUSED = [
    pytest.param("http://127.0.0.2:{port}/echo", 403, "forbidden_address", id="other-loopback-ipv4"),
    pytest.param("http://[::1]:{port}/echo", 403, "forbidden_address", id="ipv6-loopback"),
    pytest.param("http://0.0.0.0:{port}/echo", 403, "forbidden_address", id="unspecified"),
    pytest.param("http://[::ffff:127.0.0.1]:{port}/echo", 403, "forbidden_address", id="ipv4-mapped-ipv6"),
    pytest.param("http://169.254.169.254/latest/meta-data/", 403, "forbidden_address", id="cloud-metadata"),
    pytest.param("http://10.0.0.1/", 403, "forbidden_address", id="private-10"),
    pytest.param("http://192.168.1.1/", 403, "forbidden_address", id="private-192-168"),
    pytest.param("http://224.0.0.1/", 403, "forbidden_address", id="multicast"),
    pytest.param("http://[fe80::1]/", 403, "forbidden_address", id="ipv6-link-local"),
    pytest.param("http://[64:ff9b::7f00:1]/", 403, "forbidden_address", id="nat64-of-loopback"),
    pytest.param("http://localhost/echo", 403, "forbidden_address", id="name-resolving-to-loopback"),
    pytest.param("http://2130706433:{port}/echo", 400, "bad_url", id="decimal-ip"),
    pytest.param("http://0x7f.1:{port}/echo", 400, "bad_url", id="hex-short-ip"),
    pytest.param("file:///etc/passwd", 400, "bad_scheme", id="file-scheme"),
    pytest.param("ftp://127.0.0.1/", 400, "bad_scheme", id="ftp-scheme"),
    pytest.param("http://user:pw@127.0.0.1:{port}/echo", 400, "bad_url", id="credentials-in-url"),
    pytest.param("{up}/redirect?to=http://127.0.0.2:{port}/echo", 403, "forbidden_address",
                 id="redirect-to-other-loopback"),
    pytest.param("{up}/redirect?to=http://[::1]:{port}/echo&status=307", 403, "forbidden_address",
                 id="307-redirect-to-ipv6-loopback"),
    pytest.param("{up}/redirect?to=http://localhost/echo", 403, "forbidden_address",
                 id="redirect-to-name-resolving-to-loopback"),
    pytest.param("{up}/redirect?to=file:///etc/passwd", 400, "bad_scheme", id="redirect-to-file"),
    pytest.param("{up}/chain/6", 502, "too_many_redirects", id="six-redirects"),
    pytest.param("{up}/big", 413, "too_large", id="oversized-with-length"),
    pytest.param("{up}/big-chunked", 413, "too_large", id="oversized-chunked"),
    pytest.param("{up}/slow", 504, "timeout", id="slower-than-time-limit"),
]


@pytest.mark.parametrize(("target", "status", "code"), REFUSED)
async def test_refused(client: aiohttp.ClientSession, server: str, upstream: str, target: str, status: int,
                       code: str) -> None:
    response = await proxy_get(client, server, up(target, upstream))
    body = await response.json()
    assert (response.status, body["error"]) == (status, code), body
    assert response.headers["X-Proxy-Error"] == code
    assert body["message"]


async def test_missing_url(client: aiohttp.ClientSession, server: str) -> None:
    response = await client.get(f"{server}/api/proxy")
    assert response.status == 400
    assert (await response.json())["error"] == "bad_request"


PASSING = [
    pytest.param("{up}/status/200", 200, "text/plain; charset=utf-8", "{up}/status/200", id="plain"),
    pytest.param("{up}/status/404", 404, "text/plain; charset=utf-8", "{up}/status/404", id="upstream-status-kept"),
    pytest.param("{up}/chain/5", 200, "text/plain; charset=utf-8", "{up}/chain/0", id="five-redirects"),
    pytest.param("{up}/redirect?to=/status/201", 201, "text/plain; charset=utf-8", "{up}/status/201",
                 id="relative-redirect"),
]


@pytest.mark.parametrize(("target", "status", "content_type", "final"), PASSING)
async def test_passing(client: aiohttp.ClientSession, server: str, upstream: str, target: str, status: int,
                       content_type: str, final: str) -> None:
    response = await proxy_get(client, server, up(target, upstream))
    assert response.status == status
    assert response.headers["Content-Type"] == content_type
    assert response.headers["X-Proxy-Final-Url"] == up(final, upstream)
    assert "X-Proxy-Error" not in response.headers
    assert await response.text() in ("upstream says so", "end of chain")


async def test_proxied_html_can_never_run_in_the_app_origin(client: aiohttp.ClientSession, server: str,
                                                            upstream: str) -> None:
    response = await proxy_get(client, server, f"{upstream}/page.html")
    assert response.headers["Content-Type"] == "text/html; charset=utf-8"
    assert response.headers["Content-Security-Policy"] == "sandbox; default-src 'none'"
    assert response.headers["Content-Disposition"] == "attachment"
    assert response.headers["X-Content-Type-Options"] == "nosniff"


SENSITIVE = {"Cookie": "session=abc", "Authorization": "Bearer sk-or-v1-secret", "Proxy-Authorization": "Basic eA=="}


@pytest.mark.parametrize(
    "path",
    [pytest.param("/echo", id="direct"), pytest.param("/redirect?to=/echo", id="after-redirect-setting-cookie")],
)
async def test_credentials_never_forwarded(client: aiohttp.ClientSession, server: str, upstream: str,
                                           path: str) -> None:
    response = await proxy_get(client, server, upstream + path, headers={**SENSITIVE, "Accept": "text/html"})
    seen = {k.lower(): v for k, v in (await response.json())["headers"].items()}
    assert response.status == 200
    assert not {"cookie", "authorization", "proxy-authorization"} & seen.keys(), seen
    assert seen["accept"] == "text/html"
    assert "Set-Cookie" not in response.headers
    assert response.headers["Content-Type"] == "application/json; charset=utf-8"


async def test_post_body_forwarded_without_credentials(client: aiohttp.ClientSession, server: str,
                                                       upstream: str) -> None:
    response = await client.post(URL(f"{server}/api/proxy").with_query(url=f"{upstream}/echo"),
                                 data=b'{"q": 1}', headers={**SENSITIVE, "Content-Type": "application/json"})
    echoed = await response.json()
    assert (echoed["method"], echoed["body"]) == ("POST", '{"q": 1}')
    assert not {"cookie", "authorization"} & {k.lower() for k in echoed["headers"]}


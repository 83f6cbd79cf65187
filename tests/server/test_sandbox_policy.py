"""The sandbox's bootstrap worker is served with a CSP of its own: only Pyodide's files, never the network."""

from __future__ import annotations

import aiohttp
import pytest

from scripts.server.sandbox_policy import MAX_GRANTS, sandbox_csp


def directives(policy: str) -> dict[str, list[str]]:
    parsed: dict[str, list[str]] = {}
    for part in policy.split(";"):
        name, *values = part.split()
        parsed[name] = values
    return parsed


@pytest.mark.parametrize(("query", "proxy"), [("", False), ("?network=1", True), ("?network=yes", False)])
async def test_the_bootstrap_carries_the_sandbox_policy(
    client: aiohttp.ClientSession, server: str, query: str, proxy: bool
) -> None:
    response = await client.get(f"{server}/sandbox/bootstrap.js{query}")
    assert response.status == 200
    assert (await response.text()) == "self.onmessage = () => {};\n"
    assert response.headers["Content-Type"] == "text/javascript; charset=utf-8"
    assert response.headers["Cache-Control"] == "no-store"
    assert response.headers["Cross-Origin-Resource-Policy"] == "same-origin"
    policy = directives(response.headers["Content-Security-Policy"])
    assert policy["default-src"] == ["'none'"]
    assert policy["script-src"] == [f"{server}/pyodide/", "blob:", "'wasm-unsafe-eval'"]
    expected = [f"{server}/pyodide/", f"{server}/wheels/sandbox/"] + ([f"{server}/api/proxy"] if proxy else [])
    assert policy["connect-src"] == expected
    assert policy["worker-src"] == ["data:"]


def test_the_policy_names_no_host_but_the_apps_and_no_scheme_wildcards() -> None:
    for network in (False, True):
        policy = sandbox_csp("http://127.0.0.1:8000", network)
        sources = [value for values in directives(policy).values() for value in values]
        schemes = ("data:", "blob:")
        assert all(s.startswith("http://127.0.0.1:8000/") or s.startswith("'") or s in schemes for s in sources)
        assert "'self'" not in sources and "https:" not in sources and "*" not in policy


async def test_a_host_header_that_would_add_directives_is_refused(client: aiohttp.ClientSession, server: str) -> None:
    response = await client.get(f"{server}/sandbox/bootstrap.js", headers={"Host": "evil; connect-src *"})
    assert response.status == 421  # the access check (access.py) refuses a host the server does not serve
    assert (
        "Content-Security-Policy" not in response.headers or "evil" not in response.headers["Content-Security-Policy"]
    )


async def mint(client: aiohttp.ClientSession, server: str, headers: dict[str, str] | None = None) -> str:
    """A grant from POST /api/sandbox/grants, asked as the app's own page asks."""
    response = await client.post(f"{server}/api/sandbox/grants", headers=headers or {"Origin": server})
    assert response.status == 201, await response.text()
    grant: str = (await response.json())["grant"]
    return grant


async def as_sandbox(
    client: aiohttp.ClientSession, server: str, upstream: str, grant: str | None, extra: dict[str, str] | None = None
) -> aiohttp.ClientResponse:
    """A proxy fetch with the headers Chromium sends for our sandbox's fetch (measured; see sandbox_policy.py)."""
    headers = {"Origin": "null", "Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "cors", "Sec-Fetch-Dest": "empty"}
    params = {"url": f"{upstream}/page.html"} | ({"grant": grant} if grant else {})
    return await client.get(f"{server}/api/proxy", params=params, headers=headers | (extra or {}))


async def test_no_bootstrap_carries_a_grant(client: aiohttp.ClientSession, server: str) -> None:
    for query in ("", "?network=1"):
        text = await (await client.get(f"{server}/sandbox/bootstrap.js{query}")).text()
        assert "GRANT" not in text and text == "self.onmessage = () => {};\n"


async def test_each_grant_is_new(client: aiohttp.ClientSession, server: str) -> None:
    first, second = await mint(client, server), await mint(client, server)
    assert first != second and len(first) >= 32


@pytest.mark.parametrize(
    "headers",
    [
        pytest.param({"Origin": "null"}, id="the-sandbox"),
        pytest.param({"Origin": "http://evil.example"}, id="another-site"),
        pytest.param({"Sec-Fetch-Site": "cross-site"}, id="cross-site"),
    ],
)
async def test_only_the_apps_pages_get_or_revoke_a_grant(
    client: aiohttp.ClientSession, server: str, upstream: str, headers: dict[str, str]
) -> None:
    response = await client.post(f"{server}/api/sandbox/grants", headers=headers)
    assert response.status == 403 and "grant" not in await response.json()
    grant = await mint(client, server)
    revoked = await client.delete(f"{server}/api/sandbox/grants/{grant}", headers=headers)
    assert revoked.status == 403
    assert (await as_sandbox(client, server, upstream, grant)).status == 200  # still live


@pytest.mark.parametrize("grant", ["none", "made-up"])
async def test_the_proxy_refuses_a_null_origin_without_a_grant(
    client: aiohttp.ClientSession, server: str, upstream: str, grant: str
) -> None:
    response = await as_sandbox(client, server, upstream, {"none": None, "made-up": "x" * 32}[grant])
    assert response.status == 403
    assert (await response.json())["error"] == "sandbox_not_allowed"
    assert "Access-Control-Allow-Origin" not in response.headers


async def test_a_granted_sandbox_reads_what_the_proxy_fetched(
    client: aiohttp.ClientSession, server: str, upstream: str
) -> None:
    response = await as_sandbox(client, server, upstream, await mint(client, server))
    assert response.status == 200
    assert response.headers["Access-Control-Allow-Origin"] == "null"
    assert "X-Proxy-Final-Url" in response.headers["Access-Control-Expose-Headers"]


async def test_a_revoked_grant_is_refused(client: aiohttp.ClientSession, server: str, upstream: str) -> None:
    grant, other = await mint(client, server), await mint(client, server)
    assert (await as_sandbox(client, server, upstream, grant)).status == 200
    revoked = await client.delete(f"{server}/api/sandbox/grants/{grant}", headers={"Origin": server})
    assert revoked.status == 204
    response = await as_sandbox(client, server, upstream, grant)
    assert (response.status, (await response.json())["error"]) == (403, "sandbox_not_allowed")
    assert (await as_sandbox(client, server, upstream, other)).status == 200  # another sandbox's grant lives on


async def test_grants_past_the_cap_drop_the_oldest(client: aiohttp.ClientSession, server: str, upstream: str) -> None:
    grants = [await mint(client, server) for _ in range(MAX_GRANTS + 1)]
    assert (await as_sandbox(client, server, upstream, grants[0])).status == 403
    assert (await as_sandbox(client, server, upstream, grants[-1])).status == 200


@pytest.mark.parametrize(
    "metadata",
    [
        pytest.param({"Referer": "https://evil.example/page"}, id="referer-of-another-site"),
        pytest.param({"Sec-Fetch-Dest": "iframe", "Sec-Fetch-Mode": "navigate"}, id="a-framed-navigation"),
        pytest.param({"Sec-Fetch-Dest": "script", "Sec-Fetch-Mode": "no-cors"}, id="a-script-tag"),
        pytest.param({"Sec-Fetch-Mode": "no-cors"}, id="a-no-cors-fetch"),
    ],
)
async def test_a_grant_with_metadata_of_another_site_is_refused(
    client: aiohttp.ClientSession, server: str, upstream: str, metadata: dict[str, str]
) -> None:
    grant = await mint(client, server)
    response = await as_sandbox(client, server, upstream, grant, metadata)
    assert (response.status, (await response.json())["error"]) == (403, "sandbox_not_allowed")
    assert "Access-Control-Allow-Origin" not in response.headers
    assert (await as_sandbox(client, server, upstream, grant)).status == 200  # the grant itself still works


async def test_same_origin_proxy_use_is_unchanged(client: aiohttp.ClientSession, server: str, upstream: str) -> None:
    response = await client.get(f"{server}/api/proxy", params={"url": f"{upstream}/page.html"})
    assert response.status == 200 and "Access-Control-Allow-Origin" not in response.headers

"""The sandbox's bootstrap worker is served with a CSP of its own: only Pyodide's files, never the network."""

from __future__ import annotations

import json

import aiohttp
import pytest

from scripts.server.sandbox_policy import sandbox_csp


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
    assert (await response.text()).endswith("\nself.onmessage = () => {};\n")
    assert response.headers["Content-Type"] == "text/javascript; charset=utf-8"
    assert response.headers["Cache-Control"] == "no-store"
    assert response.headers["Cross-Origin-Resource-Policy"] == "same-origin"
    policy = directives(response.headers["Content-Security-Policy"])
    assert policy["default-src"] == ["'none'"]
    assert policy["script-src"] == [f"{server}/pyodide/", "'wasm-unsafe-eval'"]
    expected = [f"{server}/pyodide/", f"{server}/wheels/sandbox/"] + ([f"{server}/api/proxy"] if proxy else [])
    assert policy["connect-src"] == expected
    assert policy["worker-src"] == ["data:"]


def test_the_policy_names_no_host_but_the_apps_and_no_scheme_wildcards() -> None:
    for network in (False, True):
        policy = sandbox_csp("http://127.0.0.1:8000", network)
        sources = [value for values in directives(policy).values() for value in values]
        assert all(s.startswith("http://127.0.0.1:8000/") or s.startswith("'") or s == "data:" for s in sources)
        assert "'self'" not in sources and "https:" not in sources and "*" not in policy


async def test_a_host_header_that_would_add_directives_is_refused(client: aiohttp.ClientSession, server: str) -> None:
    response = await client.get(f"{server}/sandbox/bootstrap.js", headers={"Host": "evil; connect-src *"})
    assert response.status == 421  # the access check (access.py) refuses a host the server does not serve
    assert (
        "Content-Security-Policy" not in response.headers or "evil" not in response.headers["Content-Security-Policy"]
    )


async def grant_of(client: aiohttp.ClientSession, server: str, query: str) -> str | None:
    response = await client.get(f"{server}/sandbox/bootstrap.js{query}")
    first_line = (await response.text()).splitlines()[0]
    assert first_line.startswith("const NETWORK_GRANT = ")
    value: str | None = json.loads(first_line.removeprefix("const NETWORK_GRANT = ").rstrip(";"))
    return value


async def test_only_a_network_bootstrap_carries_a_grant(client: aiohttp.ClientSession, server: str) -> None:
    assert await grant_of(client, server, "") is None
    first, second = await grant_of(client, server, "?network=1"), await grant_of(client, server, "?network=1")
    assert first and second and first != second and len(first) >= 32


@pytest.mark.parametrize("grant", ["none", "made-up", "offline-bootstrap"])
async def test_the_proxy_refuses_a_null_origin_without_a_grant(
    client: aiohttp.ClientSession, server: str, upstream: str, grant: str
) -> None:
    token = {"none": None, "made-up": "x" * 32, "offline-bootstrap": await grant_of(client, server, "")}[grant]
    params = {"url": f"{upstream}/page.html"} | ({"grant": token} if token else {})
    response = await client.get(f"{server}/api/proxy", params=params, headers={"Origin": "null"})
    assert response.status == 403
    assert (await response.json())["error"] == "sandbox_not_allowed"
    assert "Access-Control-Allow-Origin" not in response.headers


async def test_a_granted_sandbox_reads_what_the_proxy_fetched(
    client: aiohttp.ClientSession, server: str, upstream: str
) -> None:
    token = await grant_of(client, server, "?network=1")
    assert token is not None
    params = {"grant": token, "url": f"{upstream}/page.html"}
    response = await client.get(f"{server}/api/proxy", params=params, headers={"Origin": "null"})
    assert response.status == 200
    assert response.headers["Access-Control-Allow-Origin"] == "null"
    assert "X-Proxy-Final-Url" in response.headers["Access-Control-Expose-Headers"]


async def test_same_origin_proxy_use_is_unchanged(client: aiohttp.ClientSession, server: str, upstream: str) -> None:
    response = await client.get(f"{server}/api/proxy", params={"url": f"{upstream}/page.html"})
    assert response.status == 200 and "Access-Control-Allow-Origin" not in response.headers

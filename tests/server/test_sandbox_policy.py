"""The sandbox's bootstrap worker is served with a CSP of its own: only Pyodide's files, never the network."""

from __future__ import annotations

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
    assert await response.text() == "self.onmessage = () => {};"
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
    assert response.status == 400
    assert "Content-Security-Policy" not in response.headers or "evil" not in response.headers["Content-Security-Policy"]

"""The test tool servers themselves, through the official Python client: each starts on 127.0.0.1,
lists its tools and answers a call; the one with CORS says so to an allowed origin, the one without
does not (a browser would hide its answers), and its DNS-rebinding guard refuses a foreign origin."""

from __future__ import annotations

import asyncio
import json
import urllib.error
import urllib.request
from collections.abc import Iterator

import pytest
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

from scripts.mcp.launch import everything_server, python_server

ORIGIN = "http://127.0.0.1:8000"


@pytest.fixture(scope="module")
def cors_server() -> Iterator[str]:
    with python_server([ORIGIN]) as url:
        yield url


@pytest.fixture(scope="module")
def plain_server() -> Iterator[str]:
    with python_server([]) as url:
        yield url


@pytest.fixture(scope="module")
def everything() -> Iterator[str]:
    with everything_server() as url:
        yield url


async def tools_and_call(url: str, tool: str, arguments: dict[str, object]) -> tuple[list[str], str]:
    async with streamable_http_client(url) as (read, write, *_), ClientSession(read, write) as session:
        await session.initialize()
        listed = await asyncio.wait_for(session.list_tools(), 20)
        result = await asyncio.wait_for(session.call_tool(tool, arguments), 20)
        text = "".join(getattr(block, "text", "") for block in result.content)
        return [t.name for t in listed.tools], text


def preflight(url: str, origin: str) -> tuple[int, dict[str, str]]:
    request = urllib.request.Request(
        url,
        method="OPTIONS",
        headers={
            "Origin": origin,
            "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": "content-type,mcp-protocol-version",
        },
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, {k.lower(): v for k, v in response.headers.items()}
    except urllib.error.HTTPError as e:
        return e.code, {k.lower(): v for k, v in e.headers.items()}


def test_python_server_lists_and_calls(cors_server: str) -> None:
    names, text = asyncio.run(tools_and_call(cors_server, "add", {"a": 2, "b": 40}))
    assert {"add", "shout", "pixel"} <= set(names)
    assert text == "42"


def test_python_server_with_cors_answers_the_allowed_origin_only(cors_server: str) -> None:
    status, headers = preflight(cors_server, ORIGIN)
    assert status == 200
    assert headers.get("access-control-allow-origin") == ORIGIN
    assert "mcp-protocol-version" in headers.get("access-control-allow-headers", "").lower()
    _, foreign = preflight(cors_server, "http://127.0.0.1:9")
    assert "access-control-allow-origin" not in foreign


def test_python_server_without_cors_sends_no_cors_headers(plain_server: str) -> None:
    status, headers = preflight(plain_server, ORIGIN)
    assert status >= 400
    assert "access-control-allow-origin" not in headers


def test_everything_server_binds_loopback_and_echoes(everything: str) -> None:
    names, text = asyncio.run(tools_and_call(everything, "echo", {"message": "tide"}))
    assert "echo" in names
    assert "tide" in text


def discover(url: str) -> tuple[int, dict[str, object]]:
    """`server/discover` as a 2026-07-28 client sends it (its headers and `_meta` envelope)."""
    meta = {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "test", "version": "0"},
        "io.modelcontextprotocol/clientCapabilities": {},
    }
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": {"_meta": meta}})
    headers = {
        "Content-Type": "application/json",
        "Accept": "application/json, text/event-stream",
        "Mcp-Protocol-Version": "2026-07-28",
        "Mcp-Method": "server/discover",
    }
    request = urllib.request.Request(url, data=body.encode(), method="POST", headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read())


def test_python_server_offers_2026_and_legacy_only_refuses_it(cors_server: str) -> None:
    status, answer = discover(cors_server)
    assert status == 200
    assert "2026-07-28" in answer["result"]["supportedVersions"]  # type: ignore[index]
    assert answer["result"]["capabilities"]["tools"]["listChanged"] is True  # type: ignore[index]
    with python_server([ORIGIN], legacy_only=True) as legacy:
        status, answer = discover(legacy)
        assert status == 400
        assert "Unsupported protocol version" in answer["error"]["message"]  # type: ignore[index]
        names, text = asyncio.run(tools_and_call(legacy, "grow", {}))  # the 2025 handshake still works
        assert "grow" in names
        assert text == "added grown_1"

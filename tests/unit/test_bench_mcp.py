"""The `mcp` bench group's pieces: the 500-tool server lists and answers them, the direct-call module bundles."""

from __future__ import annotations

import asyncio

from scripts.benchlib.mcp import MANY_TOOLS, bundle
from scripts.mcp.python_server import base_tool_count, make_server


def test_python_server_lists_extra_tools_for_the_bench() -> None:
    server = make_server(extra_tools=MANY_TOOLS - base_tool_count())
    tools = asyncio.run(server.list_tools())
    assert len(tools) == MANY_TOOLS
    last = f"echo_{MANY_TOOLS - base_tool_count() - 1:04d}"
    assert {"add", "shout", "pixel", "grow", "echo_0000", last} <= {t.name for t in tools}
    result = asyncio.run(server.call_tool(last, {"text": "low tide"}))
    assert [c.text for c in result.content if c.type == "text"] == ["low tide"]


def test_direct_call_module_bundles() -> None:
    js = bundle()
    assert "var TidepoolMcpBench" in js
    assert "timeCalls" in js and "StreamableHTTPClientTransport" in js

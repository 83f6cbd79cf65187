"""A small tool server on the official Python SDK (``mcp``), stateless, for the tests and the bench.

    python scripts/mcp/python_server.py --port 0 [--cors-origin http://127.0.0.1:8000 ...] [--legacy-only] [--skills]
        [--extra-tools 497]

It prints ``tool server at http://127.0.0.1:PORT/mcp`` once it listens. It speaks both revisions, as the
SDK does: the 2026-07-28 one (``server/discover``, one request per POST, ``subscriptions/listen`` for
change events) and the 2025 ``initialize`` one; ``--legacy-only`` refuses the 2026-07-28 revision as a
2025 server does (400, unsupported protocol version), so that a client's fallback is tested too.
With ``--cors-origin`` it is wrapped in Starlette's CORSMiddleware (what a browser client needs: the
origin allowed, every request header, ``Mcp-Session-Id`` exposed); without, it sends no CORS headers, as
the SDK does by default, and a page cannot read its answers. ``--cors-allow-headers`` names the allowed
request headers instead of every one (to show the doctor a missing one). Its DNS-rebinding guard allows
the given origins only.

The ``grow`` tool adds a tool (``grown_N``) and says so: on the listen streams of the 2026-07-28
revision, and as ``notifications/tools/list_changed`` on the call's own answer stream in the 2025 one.

With ``--skills`` it also publishes skills (the MCP skills extension, ``skills_extension.py``).
``--extra-tools N`` adds N more (``echo_0000``…, each with one string argument), for the bench's 500-tool list.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import json
import socket
import sys
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import uvicorn
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS
from starlette.middleware.cors import CORSMiddleware
from starlette.types import ASGIApp, Receive, Scope, Send

import mcp.types as types
from mcp.server import MCPServer
from mcp.server.lowlevel.server import NotificationOptions
from mcp.server.mcpserver import Context, Image
from mcp.server.transport_security import TransportSecuritySettings
from scripts.mcp.skills_extension import SkillsExtension

# Over the 8 MB a resource attached to a message may be (web/src/mcp/resources.ts), and listed without its
# size, so the worker finds out while reading it.
BIG_BYTES = 9 * 1024 * 1024

# A 1x1 red PNG: the image tool's answer.
PIXEL = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="
)


def make_server(skills: bool = False, extra_tools: int = 0) -> MCPServer:
    extensions = [SkillsExtension()] if skills else None
    server = MCPServer("tidepool-test", instructions="Arithmetic and text for Tidepool's tests.", extensions=extensions)

    @server.tool()
    def add(a: int, b: int) -> str:
        """Add two integers."""
        return str(a + b)

    @server.tool()
    def shout(text: str) -> str:
        """The text in capitals."""
        return text.upper()

    @server.tool()
    def pixel() -> Image:
        """A one-pixel red PNG image."""
        return Image(data=PIXEL, format="png")

    @server.resource("test://notes", name="notes", mime_type="text/plain")
    def notes() -> str:
        """A short text resource."""
        return "Tide tables: high water at 06:12."

    @server.resource("test://big", name="big", mime_type="text/plain")
    def big() -> str:
        """A text resource over the attach limit."""
        return "x" * BIG_BYTES

    @server.tool()
    async def grow(ctx: Context) -> str:
        """Add a tool to this server (grown_1, grown_2, ...) and tell the clients the list changed."""
        name = f"grown_{sum(t.name.startswith('grown_') for t in await server.list_tools()) + 1}"

        def grown() -> str:
            return f"{name} answers"

        server.add_tool(grown, name=name, description="A tool that grow added.")
        if ctx.protocol_version in HANDSHAKE_PROTOCOL_VERSIONS:  # the 2025 wire: on this call's answer stream
            await ctx.session.send_notification(types.ToolListChangedNotification(), related_request_id=ctx.request_id)
        else:
            await ctx.notify_tools_changed()
        return f"added {name}"

    _announce_tool_changes(server)
    for i in range(extra_tools):
        server.add_tool(_echo, name=f"echo_{i:04d}", description=f"Echo the text back (copy {i} of a long list).")
    return server


def base_tool_count() -> int:
    """How many tools the server lists without ``--extra-tools`` (the bench adds up to a total)."""
    # In a thread of its own: the caller may run inside an event loop (Playwright's sync API runs one).
    with ThreadPoolExecutor(1) as pool:
        return len(pool.submit(lambda: asyncio.run(make_server().list_tools())).result())


def _announce_tool_changes(server: MCPServer) -> None:
    # The 2025 handshake says listChanged only when told to (the 2026-07-28 one derives it from listen).
    lowlevel = server._lowlevel_server  # the SDK has no public seam for these options
    initialization_options = lowlevel.create_initialization_options

    def with_tools_changed(notification_options: NotificationOptions | None = None, **kwargs: Any) -> Any:
        return initialization_options(NotificationOptions(tools_changed=True), **kwargs)

    lowlevel.create_initialization_options = with_tools_changed  # type: ignore[method-assign]


def _echo(text: str) -> str:
    return text


def legacy_only(app: ASGIApp) -> ASGIApp:
    """Answer a 2026-07-28 request as a 2025 server does: 400, the protocol version is not supported."""

    async def guarded(scope: Scope, receive: Receive, send: Send) -> None:
        headers = dict(scope.get("headers", [])) if scope["type"] == "http" else {}
        version = headers.get(b"mcp-protocol-version", b"").decode("latin-1")
        if not version or version in HANDSHAKE_PROTOCOL_VERSIONS:
            return await app(scope, receive, send)
        body = json.dumps(
            {
                "jsonrpc": "2.0",
                "id": "server-error",
                "error": {"code": -32600, "message": f"Bad Request: Unsupported protocol version: {version}"},
            }
        ).encode()
        await send({"type": "http.response.start", "status": 400, "headers": [(b"content-type", b"application/json")]})
        await send({"type": "http.response.body", "body": body})

    return guarded


def make_app(
    port: int,
    cors_origins: list[str],
    legacy: bool = False,
    allow_headers: list[str] | None = None,
    skills: bool = False,
    extra_tools: int = 0,
) -> ASGIApp:
    security = TransportSecuritySettings(
        allowed_hosts=[f"127.0.0.1:{port}", "127.0.0.1"],
        allowed_origins=cors_origins,
    )
    app: ASGIApp = make_server(skills, extra_tools).streamable_http_app(
        stateless_http=True, transport_security=security
    )
    if legacy:
        app = legacy_only(app)
    if cors_origins:
        app = CORSMiddleware(
            app,
            allow_origins=cors_origins,
            allow_methods=["GET", "POST", "DELETE", "OPTIONS"],
            allow_headers=allow_headers or ["*"],
            expose_headers=["Mcp-Session-Id", "WWW-Authenticate"],
        )
    return app


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--cors-origin", action="append", default=[], help="an origin allowed to read answers")
    parser.add_argument("--cors-allow-headers", help="the request headers allowed, comma-separated (default: all)")
    parser.add_argument("--legacy-only", action="store_true", help="refuse the 2026-07-28 revision")
    parser.add_argument("--skills", action="store_true", help="publish skills (the MCP skills extension)")
    parser.add_argument("--extra-tools", type=int, default=0, help="list this many more (echo) tools")
    args = parser.parse_args(argv)
    allow = [h.strip() for h in args.cors_allow_headers.split(",")] if args.cors_allow_headers else None
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", args.port))
    port = sock.getsockname()[1]
    app = make_app(port, args.cors_origin, args.legacy_only, allow, args.skills, args.extra_tools)
    config = uvicorn.Config(app, log_level="warning", lifespan="on")
    print(f"tool server at http://127.0.0.1:{port}/mcp", flush=True)
    uvicorn.Server(config).run(sockets=[sock])
    return 0


if __name__ == "__main__":
    sys.exit(main())

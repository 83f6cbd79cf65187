"""A small tool server on the official Python SDK (``mcp``), stateless, for the tests and the bench.

    python scripts/mcp/python_server.py --port 0 [--cors-origin http://127.0.0.1:8000 ...] [--extra-tools 497]

It prints ``tool server at http://127.0.0.1:PORT/mcp`` once it listens. With ``--cors-origin`` it is
wrapped in Starlette's CORSMiddleware (what a browser client needs: the origin allowed, every request
header, ``Mcp-Session-Id`` exposed); without, it sends no CORS headers, as the SDK does by default, and
a page cannot read its answers. Its DNS-rebinding guard allows the given origins only. ``--extra-tools N``
adds N more (``echo_0000``…, each with one string argument), for the bench's 500-tool list.
"""

from __future__ import annotations

import argparse
import base64
import socket
import sys

import uvicorn
from starlette.middleware.cors import CORSMiddleware
from starlette.types import ASGIApp

from mcp.server import MCPServer
from mcp.server.mcpserver import Image
from mcp.server.transport_security import TransportSecuritySettings

# A 1x1 red PNG: the image tool's answer.
PIXEL = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="
)


def make_server(extra_tools: int = 0) -> MCPServer:
    server = MCPServer("tidepool-test", instructions="Arithmetic and text for Tidepool's tests.")

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

    for i in range(extra_tools):
        server.add_tool(_echo, name=f"echo_{i:04d}", description=f"Echo the text back (copy {i} of a long list).")
    return server


def _echo(text: str) -> str:
    return text


def make_app(port: int, cors_origins: list[str], extra_tools: int = 0) -> ASGIApp:
    security = TransportSecuritySettings(
        allowed_hosts=[f"127.0.0.1:{port}", "127.0.0.1"],
        allowed_origins=cors_origins,
    )
    app: ASGIApp = make_server(extra_tools).streamable_http_app(stateless_http=True, transport_security=security)
    if cors_origins:
        app = CORSMiddleware(
            app,
            allow_origins=cors_origins,
            allow_methods=["GET", "POST", "DELETE", "OPTIONS"],
            allow_headers=["*"],
            expose_headers=["Mcp-Session-Id", "WWW-Authenticate"],
        )
    return app


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--cors-origin", action="append", default=[], help="an origin allowed to read answers")
    parser.add_argument("--extra-tools", type=int, default=0, help="list this many more (echo) tools")
    args = parser.parse_args(argv)
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", args.port))
    port = sock.getsockname()[1]
    config = uvicorn.Config(make_app(port, args.cors_origin, args.extra_tools), log_level="warning", lifespan="on")
    print(f"tool server at http://127.0.0.1:{port}/mcp", flush=True)
    uvicorn.Server(config).run(sockets=[sock])
    return 0


if __name__ == "__main__":
    sys.exit(main())

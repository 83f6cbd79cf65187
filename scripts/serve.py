#!/usr/bin/env python3
"""Serve Tidepool's built app (dist/) and its fetch proxy (/api/proxy).

    python scripts/serve.py [--port 8000] [--host 127.0.0.1] [--public-host NAME ...] [--dist dist]
                            [--allow-private-host HOST ...] [--allow-port PORT ...]

The server answers only requests naming one of its hosts (loopback names, `--host`, `--public-host`).
`--allow-private-host HOST` lets /api/proxy reach a private or loopback address, on any port, when the
URL's host is exactly HOST (e.g. 127.0.0.1): for local testing only. `--test-config JSON` hands
settings to the page (tests only; the page's URL never configures anything).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import logging
import sys
from pathlib import Path

from aiohttp import web

# Run as a script, this file's folder is on sys.path: `server` is scripts/server/.
from server.access import HostPolicy
from server.app import ServerConfig, make_app
from server.guard import AddressPolicy
from server.proxy import PACKAGE_FILE_HOSTS, ProxyConfig

ROOT = Path(__file__).resolve().parent.parent
# aiohttp's keep-alive timer runs from a connection's start and from each answer, and closes the
# connection if no complete request head has arrived by then: a slowloris client is dropped after this.
HEAD_TIMEOUT_S = 5.0


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--port", type=int, default=8000, help="port to listen on (0 picks a free one)")
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on")
    parser.add_argument(
        "--public-host", action="append", default=[], metavar="NAME",
        help="another host name the app is reached by (repeatable); requests naming others are refused",
    )
    parser.add_argument("--dist", type=Path, default=ROOT / "dist", help="the built app")
    parser.add_argument(
        "--allow-private-host", action="append", default=[], metavar="HOST",
        help="let /api/proxy reach private/loopback addresses for this URL host (repeatable; testing only)",
    )
    parser.add_argument(
        "--allow-port", action="append", default=[], type=int, metavar="PORT",
        help="let /api/proxy fetch from this port besides 80 and 443 (repeatable)",
    )
    parser.add_argument("--proxy-max-concurrent", type=int, default=8, help="upstream fetches at once (429 beyond)")
    parser.add_argument("--test-config", type=json.loads, default=None, metavar="JSON",
                        help="settings handed to the page through index.html (tests only)")
    parser.add_argument("--proxy-timeout-s", type=float, default=20.0, help="total time limit of one proxied fetch")
    parser.add_argument("--proxy-max-mib", type=float, default=5.0, help="size limit of a proxied response body")
    parser.add_argument("--proxy-wheel-max-mib", type=float, default=64.0,
                        help="size limit of a wheel file (/packages/...whl) from a package index host")
    parser.add_argument(
        "--wheel-host", action="append", default=[], metavar="HOST",
        help="another package index host whose /packages/...whl files get the wheel size limit (repeatable)",
    )
    parser.add_argument("--proxy-body-timeout-s", type=float, default=10.0,
                        help="time a POST to the proxy has to send its body (before it takes a slot)")
    parser.add_argument("--head-timeout-s", type=float, default=HEAD_TIMEOUT_S,
                        help="close a connection that sends no complete request head within this many seconds "
                             "of opening or of its last answer")
    return parser.parse_args(argv)


async def serve(args: argparse.Namespace) -> None:
    proxy = ProxyConfig(
        policy=AddressPolicy.of(args.allow_private_host),
        max_body_bytes=int(args.proxy_max_mib * 1024 * 1024),
        max_wheel_bytes=int(args.proxy_wheel_max_mib * 1024 * 1024),
        wheel_hosts=PACKAGE_FILE_HOSTS | set(args.wheel_host),
        total_timeout_s=args.proxy_timeout_s,
        max_concurrent=args.proxy_max_concurrent,
        body_timeout_s=args.proxy_body_timeout_s,
        allowed_ports=frozenset({80, 443, *args.allow_port}),
    )
    hosts = HostPolicy.of(args.host, args.public_host)
    config = ServerConfig(dist=args.dist, proxy=proxy, hosts=hosts, test_config=args.test_config)
    # handler_cancellation: a client that goes away ends its handler (and frees its proxy slot).
    runner = web.AppRunner(
        make_app(config), access_log=None, keepalive_timeout=args.head_timeout_s, handler_cancellation=True
    )
    await runner.setup()
    site = web.TCPSite(runner, args.host, args.port)
    await site.start()
    port = runner.addresses[0][1]
    host = f"[{args.host}]" if ":" in args.host else args.host
    print(f"Tidepool serving {config.dist} at http://{host}:{port}/", flush=True)
    try:
        await asyncio.Event().wait()
    finally:
        await runner.cleanup()


def main(argv: list[str] | None = None) -> None:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    if not (args.dist / "index.html").is_file():
        logging.warning("%s has no index.html: run `npm run build` first", args.dist)
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(serve(args))


if __name__ == "__main__":
    main()

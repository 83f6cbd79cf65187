"""The aiohttp application: the fetch proxy under /api/, static files from dist/ for everything else.

Every route first passes the path check (paths.py: a bad path is 400) and the access check (access.py):
only this server's host names, and on /api/ only this app's own pages.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from aiohttp import web

from .access import HostPolicy, access_middleware
from .paths import path_guard
from .proxy import ProxyConfig, add_proxy_routes
from .static import add_static_routes


@dataclass(frozen=True)
class ServerConfig:
    dist: Path
    proxy: ProxyConfig = field(default_factory=ProxyConfig)
    hosts: HostPolicy = field(default_factory=HostPolicy)
    test_config: dict[str, object] | None = None  # tests only: handed to the page in index.html


def make_app(config: ServerConfig) -> web.Application:
    app = web.Application(middlewares=[path_guard, access_middleware(config.hosts)])
    add_proxy_routes(app, config.proxy)
    add_static_routes(app, config.dist, config.test_config)
    return app

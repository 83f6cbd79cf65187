"""The aiohttp application: the fetch proxy under /api/, static files from dist/ for everything else."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from aiohttp import web

from .proxy import ProxyConfig, add_proxy_routes
from .static import add_static_routes


@dataclass(frozen=True)
class ServerConfig:
    dist: Path
    proxy: ProxyConfig = field(default_factory=ProxyConfig)


def make_app(config: ServerConfig) -> web.Application:
    app = web.Application()
    add_proxy_routes(app, config.proxy)
    add_static_routes(app, config.dist)
    return app

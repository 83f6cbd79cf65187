"""Issue 23: boot from the service worker's cache with the app's server stopped, against the warm boot with
the server up; and what caching costs the first visit (docs/offline.md).

Each run has a fresh context and its own server on one fixed port (a service worker belongs to its origin):
a first visit (cold boot, the service worker installs after `ready` and fills its cache), a warm boot with
the server up (the page now controlled by the worker), then the server is stopped and the page boots again
from the cache. The first visit is also measured with service workers blocked, which is the app as it was
without one: caching is kept off the path to `ready`, so the two should match; the time from `ready` until
the cache is complete is reported beside them.
"""

from __future__ import annotations

import socket
import time
from pathlib import Path

from playwright.sync_api import Browser, Page

from scripts.fakes.processes import serve_process

from .common import READY_WATCH, BootLines, Row, Samples, boot_ready_ms, settle, snapshot_stored

CACHE_WAIT_S = 180.0
CACHED_JS = "() => Number(document.querySelector('[data-testid=offline-status]').dataset.cached)"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def cached_after_ms(page: Page) -> float:
    """Milliseconds from `ready` until the page reports its build cached (bounded)."""
    deadline = time.monotonic() + CACHE_WAIT_S
    while time.monotonic() < deadline:
        if page.evaluate(CACHED_JS) > 0:
            return float(page.evaluate("() => performance.now() - window.__readyAt"))
        page.wait_for_timeout(100)
    raise TimeoutError("the service worker did not finish caching the build")


def one_run(browser: Browser, dist: Path, port: int) -> tuple[float, float, float, float, float]:
    """(cold boot without a service worker, cold boot with one, caching after ready, warm boot, offline boot)."""
    with serve_process(dist, "--port", str(port)) as base:
        blocked = browser.new_context(service_workers="block")
        blocked.add_init_script(READY_WATCH)
        plain = boot_ready_ms(blocked.new_page(), base)
        blocked.close()
        ctx = browser.new_context()
        ctx.add_init_script(READY_WATCH)
        page = ctx.new_page()
        cold = boot_ready_ms(page, base)
        caching = cached_after_ms(page)
        snapshot_stored(page)  # the warm boots below both start from the snapshot
        lines = BootLines(page)
        warm = boot_ready_ms(page, base)
        lines.take(page)
        # As before the warm boot, the page settled. With the server stopped at 0 / 0.8 / 1.5 / 2.5 s after
        # `ready`, the boot from the cache took 1.67 / 1.42 / 1.01 / 0.96 x the warm one (docs/benchmarks.md).
        settle(page)
    offline = boot_ready_ms(page, base)
    ctx.close()
    return plain, cold, caching, warm, offline


def measure_offline(browser: Browser, dist: Path, runs: int) -> list[Row]:
    port = free_port()
    samples = [one_run(browser, dist, port) for _ in range(runs)]
    plain, cold, caching, warm, offline = (Samples([s[i] for s in samples]) for i in range(5))
    fill = f"cache filled {caching.stat('median') / 1000:.1f} s after `ready` (median)"
    return [
        Row("boot from the cache, server stopped", "warm boot, server up", warm, offline, "median", "≤ 1.05 ×"),
        Row("first visit to `ready`, service worker installing", "same, service workers blocked", plain, cold,
            "median", "report", note=fill),
    ]

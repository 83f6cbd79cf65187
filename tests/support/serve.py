"""An aiohttp application served on 127.0.0.1 from a background thread with its own event loop, for
synchronous tests (Playwright's sync API) that need a real HTTP server beside the app."""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Iterator

from aiohttp import web


@contextlib.contextmanager
def serve_in_thread(app: web.Application, name: str, timeout_s: float = 10.0) -> Iterator[str]:
    """Serve ``app`` on a free port of 127.0.0.1; yields its base URL (``http://127.0.0.1:<port>``) and
    stops the server, its loop and its thread on exit. A server that cannot start raises here."""
    loop = asyncio.new_event_loop()
    started = threading.Event()
    runner = web.AppRunner(app, access_log=None, shutdown_timeout=0.5)
    state: dict[str, str | BaseException] = {}

    async def start() -> None:
        await runner.setup()
        await web.TCPSite(runner, "127.0.0.1", 0).start()
        state["url"] = f"http://127.0.0.1:{runner.addresses[0][1]}"

    def run() -> None:
        asyncio.set_event_loop(loop)
        try:
            loop.run_until_complete(start())
        except Exception as exc:  # reported to the caller below
            state["error"] = exc
            started.set()
            loop.close()
            return
        started.set()
        loop.run_forever()
        loop.run_until_complete(runner.cleanup())
        loop.close()

    thread = threading.Thread(target=run, name=name, daemon=True)
    thread.start()
    if not started.wait(timeout_s):
        raise TimeoutError(f"{name} did not start within {timeout_s} s")
    error = state.get("error")
    if isinstance(error, BaseException):
        raise RuntimeError(f"{name} did not start: {error}") from error
    try:
        yield str(state["url"])
    finally:
        loop.call_soon_threadsafe(loop.stop)
        thread.join(timeout_s)

"""The runtime inside Pyodide. The ONLY module that imports ``js`` / ``pyodide``.

The adapter does::

    const feed = pyodide.pyimport("runtime.pyodide_entry").start((u8) => onRuntimeBytes(u8));
    feed(bytes);  // a Uint8Array of host bytes, in any split

``start`` schedules the runtime on Pyodide's asyncio loop and returns at once.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

import js  # type: ignore[import-not-found]

from runtime.boot import BootConfig, boot
from runtime.host.transport import FeedTransport

log = logging.getLogger(__name__)

_running: set[asyncio.Task[None]] = set()  # keeps the session task alive


def start(write: Any, workspace: str = "/workspace") -> Callable[[Any], None]:
    """Boot the runtime; ``write`` receives each chunk of output frames as a ``Uint8Array``."""

    def out(data: bytes) -> None:
        u8 = js.Uint8Array.new(len(data))
        u8.assign(data)
        write(u8)

    transport = FeedTransport(out)
    session = boot(BootConfig(workspace=Path(workspace)), transport)
    task = asyncio.get_event_loop().create_task(session.run())
    _running.add(task)
    task.add_done_callback(_running.discard)

    def feed(u8: Any) -> None:
        try:
            data = u8.to_bytes() if hasattr(u8, "to_bytes") else bytes(u8)
            transport.received(data)
        except Exception:
            log.exception("feeding host bytes failed")

    return feed

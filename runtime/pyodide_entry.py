"""The runtime inside Pyodide: the one Python module the agent worker calls, and the ONLY module that
imports ``js`` / ``pyodide``. Its functions are typed for TypeScript in ``web/src/worker/python-entry.ts``
(keep the two together). The worker does::

    entry.warm_up()          // the snapshot worker, before making a memory snapshot
    entry.check_snapshot()   // right after loading one: raises unless it holds what warm_up imported
    const feed = entry.start((u8) => onRuntimeBytes(u8));
    feed(bytes);             // a Uint8Array of host bytes, in any split

``start`` schedules the runtime on Pyodide's asyncio loop and returns at once.
"""

from __future__ import annotations

import asyncio
import importlib
import logging
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from runtime.boot import BootConfig, boot
from runtime.host import validate
from runtime.host.transport import FeedTransport
from runtime.providers.registry import builtin_providers
from runtime.tools.registry import builtin_registry

log = logging.getLogger(__name__)

_running: set[asyncio.Task[None]] = set()  # keeps the session task alive


def warm_up() -> list[str]:
    """Import what a boot imports on its way to ``ready`` (what a memory snapshot should hold): this
    module's own imports, and the tools and providers the boot registers, by building the same
    registries; and sqlite-utils, which opening the stored session imports right after ``ready`` (its
    bytecode ships with its wheel, so importing it leaves the heap at its first size: snapshot.ts). It
    also fills the host messages' check tables (``validate.prime``), computed at the first message
    otherwise. Returns the runtime's modules now loaded, sorted."""
    builtin_registry()
    builtin_providers()
    importlib.import_module("sqlite_utils")
    validate.prime()
    return sorted(name for name in sys.modules if name == "runtime" or name.startswith("runtime."))


def check_snapshot() -> None:
    """Run right after a memory snapshot is loaded: raise unless it holds what ``warm_up`` imports,
    and reseed ``random`` (every visit restores the same heap, so its state would repeat).

    Being called at all proves this module is in the heap (the file system is empty until the wheels
    are placed again); the registries are then built from modules already loaded or not at all."""
    loaded = set(sys.modules)
    missing = sorted(set(warm_up()) - loaded)
    if missing:
        raise ImportError(f"the snapshot lacks {missing}")
    if "random" in sys.modules:
        sys.modules["random"].seed()


def start(write: Any, workspace: str = "/workspace") -> Callable[[Any], None]:
    """Boot the runtime; ``write`` receives each chunk of output frames as a ``Uint8Array``."""
    import js  # type: ignore[import-not-found]  # Pyodide's own module: only here, only in Pyodide

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

"""A host whose storage is a folder: it lists into the runtime's workspace only what ``workspace_fetch`` asks.

The browser adapter does the same from OPFS (``web/src/worker/``): a listed folder's files appear in the
runtime's file system, a folder not listed yet is not there. Tests that use it see the workspace as the
browser's runtime sees it, not the whole folder a CPython test would otherwise hand over.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from runtime.host.codec import Decoder, Frame
from runtime.host.rpc import Rpc
from runtime.host.transport import FeedTransport
from runtime.host.workspace_fetch import OnDemand


class ListingHost:
    """Each ``workspace_fetch`` copies the named folders' entries (files and empty sub-folders, not their
    contents) from ``store`` into ``workspace``, as the browser adapter does."""

    def __init__(self, store: Path, workspace: Path, *, fail: bool = False) -> None:
        self.store, self.workspace, self.fail = store, workspace, fail
        self.asks: list[dict[str, Any]] = []
        self._decoder = Decoder()
        self.transport = FeedTransport(self._from_runtime)
        self.rpc = Rpc(self.transport)

    def on_demand(self, enabled: bool = True) -> OnDemand:
        """The runtime's side: an ``OnDemand`` that asks this host."""
        return OnDemand(self.rpc, lambda: enabled)

    def _from_runtime(self, data: bytes) -> None:
        for item in self._decoder.feed(data):
            assert isinstance(item, Frame) and item.message["type"] == "workspace_fetch"
            self.asks.append(item.message)
            list_into(self.store, self.workspace, item.message["dirs"], item.message["depth"])
            reply = {"type": "reply", "id": item.message["id"], "ok": not self.fail}
            reply.update({"error": {"code": "storage_failed", "message": "no"}} if self.fail else {"result": {}})
            self.rpc.dispatch(reply)  # the answer arrives as the transport would hand it on


def list_into(store: Path, workspace: Path, dirs: list[str], depth: int | None) -> None:
    """The entries of ``dirs`` (and ``depth`` levels below; None: all) copied from ``store`` into ``workspace``,
    the folders on the way to each first (as the adapter lists them); what ``workspace`` holds already stays."""
    for rel in dirs:
        parts = [p for p in rel.split("/") if p]
        _list(store, workspace, ["/".join(parts[:i]) for i in range(len(parts))], 0)
    _list(store, workspace, dirs, depth)


def _list(store: Path, workspace: Path, dirs: list[str], depth: int | None) -> None:
    for rel in dirs:
        source, target = store / rel, workspace / rel
        if not source.is_dir() or not target.is_dir():
            continue
        for entry in source.iterdir():
            if (target / entry.name).exists():
                continue
            if entry.is_dir():
                (target / entry.name).mkdir()
            else:
                shutil.copyfile(entry, target / entry.name)
        if depth is None or depth > 0:
            children = [f"{rel}/{e.name}".lstrip("/") for e in source.iterdir() if e.is_dir()]
            _list(store, workspace, children, None if depth is None else depth - 1)

"""Saving to the host: ``flush_request`` frames for the state database and for workspace files.

The host persists what the runtime's filesystem holds (Pyodide's in-memory FS) to OPFS. A host that
declared the ``flush`` capability in its ``hello`` answers every flush with a ``reply``; the runtime
waits for it, and an ``ok: false`` answer becomes a visible ``error`` event (once per run of failures:
the next save retries). A host without the capability gets the frames and no one waits.

State saves are coalesced: callers that ask while a save is in flight share the next one, so a burst
of commits costs at most two saves.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Coroutine
from typing import Literal

from runtime.errors import HostRequestError
from runtime.host.messages import Event, FlushRequest
from runtime.host.rpc import Rpc
from runtime.persist.statefiles import CURRENT

log = logging.getLogger(__name__)

Emit = Callable[[Event], None]
FLUSH_TIMEOUT_S = 30.0
QUOTA_CODES = frozenset({"quota", "quota_exceeded", "QuotaExceededError"})


class Flusher:
    def __init__(self, rpc: Rpc, emit: Emit, awaited: Callable[[], bool], timeout_s: float = FLUSH_TIMEOUT_S) -> None:
        self._rpc = rpc
        self._emit = emit
        self._awaited = awaited
        self.timeout_s = timeout_s
        self.state_enabled = False
        self._rotate_next = False
        self._lock = asyncio.Lock()
        self._asked = 0  # state saves asked for
        self._done = 0  # the highest ask covered by a finished save
        self._failing = False
        self.sent = 0

    def enable_state(self, rotate_first: bool) -> None:
        self.state_enabled = True
        self._rotate_next = rotate_first

    def state(self) -> Coroutine[None, None, bool]:
        """Save the state database; ``True`` when the host confirmed it (or nobody is waited for).

        The ask counts when this is called, not when the coroutine first runs: a save scheduled in the
        background covers what was written before it was asked for, and a later save can cover it."""
        if not self.state_enabled:
            return _true()
        self._asked += 1
        return self._state(self._asked)

    async def _state(self, mine: int) -> bool:
        async with self._lock:
            if self._done >= mine:
                return not self._failing
            covered = self._asked
            ok = await self._flush("state", [CURRENT], self._rotate_next)
            if ok:  # until a save landed, the host's current file may be the damaged one: do not rotate it
                self._rotate_next = True
            self._done = covered
            return ok

    async def workspace(self, paths: tuple[str, ...] | list[str]) -> bool:
        """Save changed workspace files (workspace-relative; a missing one was deleted)."""
        if not paths:
            return True
        return await self._flush("workspace", list(dict.fromkeys(paths)), None)

    async def _flush(self, what: Literal["state", "workspace"], paths: list[str], rotate: bool | None) -> bool:
        message: FlushRequest = {"type": "flush_request", "id": self._rpc.new_id(), "what": what, "paths": paths}
        if rotate is not None:
            message["rotate"] = rotate
        self.sent += 1
        if not self._awaited():
            self._rpc.send(message)
            return True
        try:
            reply = await self._rpc.call(message, self.timeout_s)
        except HostRequestError as exc:
            return self._failed(what, "timeout", f"the host did not confirm the save ({exc.message})")
        if reply.get("type") == "reply" and reply.get("ok") is True:
            if self._failing:
                log.info("saving works again")
            self._failing = False
            return True
        error = reply.get("error") if reply.get("type") == "reply" else reply
        code = str(error.get("code") or "error") if isinstance(error, dict) else "error"
        text = str(error.get("message") or "no reason given") if isinstance(error, dict) else "no reason given"
        return self._failed(what, code, text)

    def _failed(self, what: str, code: str, text: str) -> bool:
        log.warning("saving %s failed: %s: %s", what, code, text)
        if not self._failing:
            self._failing = True
            self._emit(_error_event(what, code, text))
        return False


async def _true() -> bool:
    return True


def _error_event(what: str, code: str, text: str) -> Event:
    thing = "your sessions and memories" if what == "state" else "workspace files"
    if code in QUOTA_CODES:
        message = (
            f"Storage is full: the browser refused to save {thing} ({text}). Nothing was lost in this tab; "
            "free space (delete old sessions or workspace files, or allow this site more storage) and the next "
            "step will save again. Keep this tab open until then."
        )
        return {"kind": "error", "turn_id": None, "code": "storage_full", "message": message, "retryable": True}
    message = (
        f"Saving {thing} failed ({code}: {text}). Nothing was lost in this tab; the next step will try again. "
        "Keep this tab open until a save succeeds."
    )
    return {"kind": "error", "turn_id": None, "code": "storage_failed", "message": message, "retryable": True}

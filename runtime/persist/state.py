"""The workspace's state as the session uses it: the store (opened after ``ready``), saving, and
which stored session the conversation is in.

Opening costs an import of sqlite-utils (~0.5 s in Pyodide) and an integrity check, so ``start``
schedules it right after ``ready`` is sent; whatever needs the store awaits ``store()``.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from pathlib import Path

from runtime.host.messages import Event
from runtime.host.rpc import Rpc
from runtime.persist.flusher import Flusher
from runtime.persist.journal import SessionJournal
from runtime.persist.restore import Repair, repair
from runtime.persist.statefiles import OpenedState, open_state
from runtime.store import Store, StoreError

log = logging.getLogger(__name__)

Emit = Callable[[Event], None]


def stop_left_tasks(store: Store) -> None:
    """Delegated tasks an earlier page load left running: ``stopped``, their child sessions repaired."""
    try:
        for task in store.agent_tasks_stop_running():
            repair(store, task.child_session)
    except Exception as exc:  # a store that cannot say must still open
        log.warning("stopping the tasks left running: %s", exc)


class State:
    def __init__(self, state_dir: Path | None, rpc: Rpc, emit: Emit, awaited: Callable[[], bool]) -> None:
        self.state_dir = state_dir
        self._emit = emit
        self.flusher = Flusher(rpc, emit, awaited)
        self._opened: asyncio.Future[OpenedState] | None = None
        self.opened: OpenedState | None = None
        self.journal: SessionJournal | None = None

    def start(self) -> None:
        """Open the store soon (after the frames already queued are written)."""
        if self._opened is None:
            self._opened = asyncio.get_running_loop().create_future()
            asyncio.get_running_loop().call_soon(self._open)

    def _open(self) -> None:
        assert self._opened is not None
        try:
            opened = open_state(self.state_dir)
        except Exception as exc:  # the runtime must come up even without its state
            log.exception("opening the state failed")
            opened = OpenedState(Store(), False, False, "memory", f"The saved state could not be opened: {exc}")
        self.opened = opened
        stop_left_tasks(opened.store)
        if opened.persistent:
            self.flusher.enable_state(opened.rotate_first)
        if opened.notice:
            self._emit({"kind": "notice", "code": f"state_{opened.source}", "text": opened.notice})
        if not self._opened.done():
            self._opened.set_result(opened)

    async def store(self) -> Store:
        self.start()
        assert self._opened is not None
        return (await self._opened).store

    @property
    def session_id(self) -> str | None:
        return self.journal.session_id if self.journal else None

    async def activate(self, session_id: str | None, *, create: bool = False) -> Repair:
        """Make ``session_id`` (or the latest, or a new one) the conversation's session; repair it."""
        store = await self.store()
        sessions = [] if create or session_id else store.list_sessions(limit=1)
        if session_id and not create:
            session = store.get_session(session_id)  # StoreError(not_found) for the caller
        else:
            create = create or not sessions
            session = store.create_session() if create else sessions[0]
        self.detach()
        self.journal = SessionJournal(store, session.id, self.flusher, self._emit)
        result = repair(store, session.id)
        if result.resumable:
            self.journal.bind_turn(result.resumable.turn_id, result.resumable.user_seq)
        if result.changed or create:
            await self.flusher.state()
        return result

    def detach(self) -> None:
        """The running turn's journal stops writing (the session is being left)."""
        if self.journal is not None:
            self.journal.detached = True

    async def save(self) -> bool:
        return await self.flusher.state()

    def close(self) -> None:
        if self.opened is not None:
            try:
                self.opened.store.close()
            except StoreError as exc:
                log.warning("closing the store: %r", exc)

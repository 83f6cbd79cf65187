"""Which stored session the conversation is in: the one opened at boot (``session_id``, else the
latest), switching to another (a running turn stops as if the page went away), and its view."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable

from runtime.agent.approvals import Approvals
from runtime.chat.history import chat_history
from runtime.chat.messages import ChatMessage
from runtime.conversation.turns import TurnRunner
from runtime.host.messages import Event
from runtime.persist.display import SHOWN_MESSAGES, SessionView, session_view
from runtime.persist.restore import Resumable
from runtime.persist.state import State
from runtime.store import StoreError
from runtime.tools.registry import Registry

log = logging.getLogger(__name__)


class SessionSwitcher:
    def __init__(
        self,
        state: State,
        turns: TurnRunner,
        approvals: Approvals,
        tools: Registry,
        emit: Callable[[Event], None],
        initial: str | None,
    ) -> None:
        self._state = state
        self._turns = turns
        self._approvals = approvals
        self._tools = tools
        self._emit = emit
        self._initial = initial
        self.activation: asyncio.Task[None] | None = None

    def open_initial(self) -> None:
        """Open the boot-time session soon (right after ``ready``)."""
        self.activation = asyncio.ensure_future(self._activate_initial())
        self.activation.add_done_callback(_log_failure)

    async def ready(self) -> None:
        """Wait for the boot-time session; a failure is logged (turns then fail with a message)."""
        if self.activation is not None:
            try:
                await asyncio.shield(self.activation)
            except Exception:
                log.debug("no session to work in (logged when opening it failed)")

    @property
    def turn_running(self) -> bool:
        return self._turns.running

    async def switch(self, session_id: str | None, *, create: bool = False) -> SessionView:
        """Leave the current session (a running turn stops as if the page went away) and open another."""
        await self.ready()
        if session_id is not None:
            (await self._state.store()).get_session(session_id)  # not_found before anything changes
        await self.leave()
        repair = await self._state.activate(session_id, create=create)
        return self._opened(repair.resumable) or self.view()

    async def leave(self) -> None:
        self._state.detach()
        self._approvals.clear()
        await self._turns.stop()

    def view(
        self,
        shown: int = SHOWN_MESSAGES,
        running: str | None = None,
        before: int | None = None,
        after: int | None = None,
    ) -> SessionView:
        """The open session as the UI shows it (its last ``shown`` messages, before seq ``before`` when
        given, or its first after seq ``after``; ``running``: the turn that runs, when it is about to and
        ``turns`` does not know yet)."""
        opened, sid = self._state.opened, self._state.session_id
        if opened is None or sid is None:
            raise StoreError("not_found", "No session is open yet.", entity="session")
        return session_view(opened.store, sid, self._tools, running or self._turns.running_id, shown, before, after)

    @property
    def history(self) -> list[ChatMessage]:
        """The open session's conversation as stored (every message, summaries left out)."""
        opened, sid = self._state.opened, self._state.session_id
        return chat_history(opened.store.list_messages(sid)) if opened and sid else []

    async def _activate_initial(self) -> None:
        try:
            repair = await self._state.activate(self._initial)
        except StoreError as exc:
            if exc.code != "not_found":
                raise
            self._emit({"kind": "notice", "code": "session_missing", "text": f"{exc.message} Opened the latest."})
            repair = await self._state.activate(None)
        self._opened(repair.resumable)

    def _opened(self, resumable: Resumable | None) -> SessionView | None:
        """Tell the page the session opened, with its view (built once: ``switch`` answers with it too)."""
        opened, sid = self._state.opened, self._state.session_id
        if opened is None or sid is None:
            return None
        title = opened.store.get_session(sid).title
        resumed = resumable.turn_id if resumable else None
        view = self.view(running=resumed)  # what the page shows: it need not ask session_current
        self._emit(
            {"kind": "session_opened", "session_id": sid, "title": title, "resumed_turn": resumed, "view": dict(view)}
        )
        if resumable is not None:
            self._turns.resume(resumable)
        return view


def _log_failure(task: asyncio.Task[None]) -> None:
    if not task.cancelled() and task.exception() is not None:
        log.error("opening the stored session failed", exc_info=task.exception())

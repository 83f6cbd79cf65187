"""``SessionJournal``: the loop's ``Journal`` for one stored session.

Each completed step is written to the store and saved once (``Flusher.state``). The user's message
is stored with status ``streaming`` while its turn runs and ``complete`` when it ends (``meta.turn_end``
holds the reason), so a turn cut off by a reload is found by ``Store.mark_interrupted``. A journal is
``detached`` when the person switches to another session mid-turn: from then on it writes nothing,
so the stored session looks exactly as after a reload (and resumes the same way).

A storage failure never stops a turn: it is logged and reported once as an ``error`` event.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from runtime.chat.messages import AssistantMessage, ImagePart, ToolResultMessage
from runtime.host.messages import Decision, Event, ToolStatus, TurnEndReason
from runtime.persist.flusher import Flusher
from runtime.store import Store, StoreError
from runtime.store.values import CallDecision, CallStatus, MessageStatus, StoredMessage

log = logging.getLogger(__name__)

Emit = Callable[[Event], None]
_DECISIONS: dict[Decision, CallDecision] = {"allow": "allow", "allow_session": "allow_session", "deny": "deny"}


def wire_calls(message: AssistantMessage) -> list[dict[str, Any]]:
    return [
        {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}
        for c in message.tool_calls
    ]


class SessionJournal:
    def __init__(self, store: Store, session_id: str, flusher: Flusher, emit: Emit) -> None:
        self.store = store
        self.session_id = session_id
        self.flusher = flusher
        self._emit = emit
        self.detached = False
        self._reported = False
        self._model: str | None = None  # the model last noted: the session's row is read once, not every turn
        self._user_seq: dict[str, int] = {}
        self._background: set[asyncio.Future[bool]] = set()

    def note_model(self, model: str) -> None:
        """The model this session talks to now (shown in exports); saved with the next step."""

        if model == self._model:
            return

        def write() -> None:
            if self.store.get_session(self.session_id).model != model:
                self.store.set_session_model(self.session_id, model)

        if self._guard(write):
            self._model = model

    def bind_turn(self, turn_id: str, user_seq: int) -> None:
        """A resumed turn: its user message is already stored at ``user_seq``."""
        self._user_seq[turn_id] = user_seq

    # ---- steps ----------------------------------------------------------------------------------------

    async def user_message(self, turn_id: str, text: str, images: Sequence[tuple[ImagePart, bytes]] = ()) -> None:
        def write() -> None:
            with self.store.atomic():
                stored = self.store.append_message(
                    self.session_id, "user", text, status="streaming", turn_id=turn_id, meta={"turn": "running"}
                )
                if images:
                    self.store.add_images(self.session_id, stored.seq, [(p.media_type, p.name, b) for p, b in images])
            self._user_seq[turn_id] = stored.seq

        # Saved in the background: the model request does not wait for the save (time to first
        # token). The message is in the store already; a later step's save waits behind this one.
        if self._guard(write):
            task = asyncio.ensure_future(self.flusher.state())
            self._background.add(task)
            task.add_done_callback(self._background.discard)

    async def assistant_message(self, turn_id: str, message: AssistantMessage, status: MessageStatus) -> None:
        """A reply without tool calls ends the turn: it is saved with the turn's end, right after."""

        def write() -> None:
            self.store.append_message(
                self.session_id,
                "assistant",
                message.content,
                status=status,
                turn_id=turn_id,
                tool_calls=wire_calls(message),
                reasoning=message.reasoning,
                reasoning_details=message.reasoning_details,
                finish_reason=message.finish_reason,
            )

        if message.tool_calls:
            await self._step(write)
        else:
            self._guard(write)

    def fresh_call_id(self, call_id: str) -> str:
        try:
            taken = not call_id or self._in_ledger(call_id)
        except Exception:  # an unreadable ledger must not stop the call
            taken = False
        return f"call_{secrets.token_hex(8)}" if taken else call_id

    async def call_asking(self, turn_id: str, call_id: str, tool: str, arguments: dict[str, object]) -> None:
        def write() -> None:
            with self.store.atomic():
                if not self._in_ledger(call_id):
                    self.store.ledger_append(
                        self.session_id, call_id, tool, dict(arguments), turn_id=turn_id, status="pending-approval"
                    )
                self.store.approval_add(self.session_id, call_id, tool, dict(arguments), turn_id=turn_id)

        await self._step(write)

    async def call_decided(self, call_id: str, decision: Decision) -> None:
        def write() -> None:
            with self.store.atomic():
                if self.store.approvals_pending(call_id=call_id):
                    self.store.approval_resolve(call_id)
                if self._in_ledger(call_id):
                    status: CallStatus = "denied" if decision == "deny" else "running"
                    self.store.ledger_update(call_id, status=status, decision=_DECISIONS[decision])

        await self._step(write)

    def call_started(self, turn_id: str, call_id: str, tool: str, arguments: dict[str, object]) -> None:
        def write() -> None:
            if self._in_ledger(call_id):
                self.store.ledger_update(call_id, status="running")
            else:
                self.store.ledger_append(self.session_id, call_id, tool, dict(arguments), turn_id=turn_id)

        self._guard(write)

    async def tool_result(
        self, turn_id: str, result: ToolResultMessage, status: ToolStatus, arguments: dict[str, object]
    ) -> None:
        meta: dict[str, Any] = {"ok": result.ok, "status": status}
        if result.images:
            meta["images"] = list(result.images)

        def write() -> None:
            with self.store.atomic():
                self.store.append_message(
                    self.session_id,
                    "tool",
                    result.content,
                    turn_id=turn_id,
                    tool_call_id=result.call_id,
                    name=result.name,
                    meta=meta,
                )
                if self.store.approvals_pending(call_id=result.call_id):
                    self.store.approval_resolve(result.call_id)  # aborted while it waited
                if not self._in_ledger(result.call_id):
                    self.store.ledger_append(
                        self.session_id, result.call_id, result.name, dict(arguments), turn_id=turn_id
                    )
                self.store.ledger_update(result.call_id, status=status, result_summary=result.content)

        await self._step(write)

    async def turn_finished(self, turn_id: str, reason: TurnEndReason) -> None:
        seq = self._user_seq.pop(turn_id, None)
        if seq is not None:
            self._guard(
                lambda: self.store.update_message(self.session_id, seq, status="complete", meta={"turn_end": reason})
            )
        if not self.detached:
            await self.flusher.state()

    def context(self) -> list[StoredMessage]:
        return self.store.context_messages(self.session_id)

    def context_stream(self) -> Iterator[StoredMessage]:
        """``context``, read a batch at a time and kept nowhere (``Store.context_stream``)."""
        return self.store.context_stream(self.session_id)

    def context_size(self) -> tuple[int, int, int]:
        """``context``'s messages after its summary, their characters and images (``Store.context_size``)."""
        return self.store.context_size(self.session_id)

    async def save_summary(self, text: str, covers_to_seq: int) -> None:
        await self._step(lambda: self.store.save_summary(self.session_id, text, covers_to_seq))

    # ---- plumbing -------------------------------------------------------------------------------------

    def _in_ledger(self, call_id: str) -> bool:
        try:
            self.store.ledger_get(call_id)
        except StoreError:
            return False
        return True

    async def _step(self, write: Callable[[], object]) -> None:
        if self._guard(write):
            await self.flusher.state()

    def _guard(self, write: Callable[[], object]) -> bool:
        if self.detached:
            return False
        try:
            write()
        except Exception as exc:  # storage must never end a turn
            log.exception("recording a step of session %s failed", self.session_id)
            if not self._reported:
                self._reported = True
                self._emit(
                    {
                        "kind": "error",
                        "turn_id": None,
                        "code": "storage_failed",
                        "message": f"This conversation could not be saved ({type(exc).__name__}: {exc}). "
                        "The turn goes on; export the session to keep a copy.",
                        "retryable": False,
                    }
                )
            return False
        return True

"""Bring a stored session back after a reload (or when it is opened again): what was cut off, what waits.

``repair`` marks messages left ``streaming`` as ``interrupted`` (the user's message of a turn that
was running), closes ledger entries left ``running`` (their outcome is unknown), and finds the turn
that can go on: the last turn, when a call of its last assistant message waits for approval. That
turn resumes with the calls of that message still without a result, asking again for the pending
ones. Pending approvals that cannot resume (an older turn) are dropped: their calls count as
interrupted.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from runtime.chat.history import INTERRUPTED_RESULT, tool_calls_of
from runtime.chat.messages import ToolCall
from runtime.store import Store
from runtime.store.values import StoredMessage

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Resumable:
    turn_id: str
    user_seq: int
    calls: tuple[ToolCall, ...]  # the last assistant message's calls without a result, in order
    ask_first: frozenset[str]  # those that waited for approval: asked again


@dataclass(frozen=True)
class Repair:
    changed: bool
    resumable: Resumable | None


def repair(store: Store, session_id: str) -> Repair:
    pending = store.approvals_pending(session_id)
    changed = store.mark_interrupted(session_id) > 0
    messages = store.list_messages(session_id) if pending else []  # only a turn waiting for approval resumes
    resumable = _resumable(messages, {p.call_id for p in pending}, {p.turn_id for p in pending})
    keep = resumable.ask_first if resumable else frozenset()
    with store.atomic():
        for approval in pending:
            if approval.call_id not in keep:
                store.approval_resolve(approval.call_id)
                store.ledger_update(approval.call_id, status="error", result_summary=INTERRUPTED_RESULT)
                changed = True
        for entry in store.ledger_list(session_id, unfinished=True):
            if entry.status == "running" or (entry.status == "pending-approval" and entry.call_id not in keep):
                store.ledger_update(entry.call_id, status="error", result_summary=INTERRUPTED_RESULT)
                changed = True
        if resumable is not None:
            store.update_message(session_id, resumable.user_seq, status="streaming", meta={"turn": "running"})
            changed = True
    return Repair(changed, resumable)


def _resumable(messages: list[StoredMessage], pending: set[str], turns: set[str | None]) -> Resumable | None:
    if not pending:
        return None
    last = next((m for m in reversed(messages) if m.role == "assistant" and m.kind == "message"), None)
    if last is None or last.turn_id is None or last.turn_id not in turns:
        return None
    if any(m.role == "user" and m.seq > last.seq for m in messages):
        return None  # a later turn started: the waiting one is over
    answered = {m.tool_call_id for m in messages if m.role == "tool" and m.seq > last.seq}
    calls = tuple(c for c in tool_calls_of(last) if c.id not in answered)
    ask_first = frozenset(c.id for c in calls if c.id in pending)
    user = next((m for m in reversed(messages) if m.role == "user" and m.turn_id == last.turn_id), None)
    if not ask_first or user is None:
        return None
    return Resumable(last.turn_id, user.seq, calls, ask_first)

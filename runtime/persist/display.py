"""A stored session in the shape the UI shows (``session_open``'s result; see docs/protocol.md).

Tool results are folded into the assistant message that asked for them, with the ledger's status,
decision and timing (and ``images``: the image files the call wrote). Summaries appear where they
were made, as ``role: "summary"``. A user message lists its images (id, type, name, size) without
their bytes: the UI reads each with the ``message_image`` request, so the view stays one small frame.
"""

import json
from dataclasses import asdict
from typing import Any, Literal, NotRequired, TypedDict, cast

from runtime.chat.history import tool_calls_of
from runtime.host.constants import ToolEffect
from runtime.host.events import AgentTask
from runtime.persist.branch_view import ViewBranch, edit_branch, reply_branch
from runtime.store import Store
from runtime.store.export import content_text
from runtime.store.values import CallStatus, LedgerEntry, MessageStatus, Session, StoredMessage
from runtime.tools.registry import Registry

MAX_RESULT_CHARS = 20_000


class SessionRecord(TypedDict):
    """A stored session (*Session* in docs/protocol.md; timestamps ISO 8601 UTC)."""

    id: str
    title: str
    created: str
    updated: str
    model: str | None


class ViewImage(TypedDict):
    """An image a user message carries, without its bytes (``message_image`` reads them)."""

    id: int
    media_type: str
    name: str
    size: int


class ViewCall(TypedDict):
    """A tool call of an assistant message with what came of it (``ok``/``result`` null while it runs)."""

    call_id: str
    name: str
    arguments: Any
    status: CallStatus | Literal["interrupted"]  # interrupted: the ledger has no entry (the page went away)
    decision: str | None
    duration_ms: int | None
    ok: bool | None
    result: str | None
    images: NotRequired[list[str]]


class ViewMessage(TypedDict):
    seq: int
    role: Literal["user", "assistant", "summary", "system", "tool"]
    turn_id: str | None
    status: MessageStatus
    text: str
    created: str
    tool_calls: list[ViewCall]
    reasoning: str
    finish_reason: str | None
    images: list[ViewImage]
    branch: NotRequired[ViewBranch]  # a message with other versions (persist/branch_view.py)


class PendingApproval(TypedDict):
    call_id: str
    turn_id: str | None
    name: str
    arguments: Any
    effect: ToolEffect
    created: str


class SessionView(TypedDict):
    """A session as the UI shows it: its last messages, how many come before, what waits for approval."""

    session: SessionRecord
    messages: list[ViewMessage]
    earlier: int
    later: int  # how many come after them (a page of later messages: ``session_current`` with ``after``)
    pending_approvals: list[PendingApproval]
    running_turn: str | None
    agent_tasks: list[AgentTask]  # the tasks delegated here, as their last ``agent_task`` event said
    agent: str  # the agent profile the session runs under (runtime.agents.profiles; "general" by default)


def session_record(session: Session) -> SessionRecord:
    return cast(SessionRecord, asdict(session))


def _arguments(text: str) -> Any:
    try:
        return json.loads(text or "{}")
    except ValueError:
        return text


def _shown(text: str) -> str:
    if len(text) <= MAX_RESULT_CHARS:
        return text
    return f"{text[:MAX_RESULT_CHARS]}\n… [{len(text) - MAX_RESULT_CHARS} more characters]"


def _call(call_id: str, name: str, arguments: str, ledger: dict[str, LedgerEntry]) -> ViewCall:
    entry = ledger.get(call_id)
    return {
        "call_id": call_id,
        "name": name,
        "arguments": _arguments(arguments),
        "status": entry.status if entry else "interrupted",
        "decision": entry.decision if entry else None,
        "duration_ms": entry.duration_ms if entry else None,
        "ok": None,
        "result": None,
    }


def _entry(message: StoredMessage, ledger: dict[str, LedgerEntry]) -> ViewMessage:
    role: Literal["user", "assistant", "summary", "system", "tool"] = (
        "summary" if message.kind == "summary" else message.role
    )
    calls = [_call(c.id, c.name, c.arguments, ledger) for c in tool_calls_of(message)]
    return {
        "seq": message.seq,
        "role": role,
        "turn_id": message.turn_id,
        "status": message.status,
        "text": content_text(message.content),
        "created": message.created,
        "tool_calls": calls,
        "reasoning": message.reasoning,
        "finish_reason": message.finish_reason,
        "images": [{"id": i.id, "media_type": i.media_type, "name": i.name, "size": i.size} for i in message.images],
    }


# The messages a session opens with: about what its first screens draw (history.ts draws 40 at once), so
# opening one of 5,000 messages costs what opening one of 50 does. The page asks for earlier ones a page at
# a time (``before``) as the person scrolls up; a 50 MB session rendered whole would stop the page.
SHOWN_MESSAGES = 50


def session_view(
    store: Store,
    session_id: str,
    tools: Registry,
    running_turn: str | None,
    shown: int = SHOWN_MESSAGES,
    before: int | None = None,
    after: int | None = None,
) -> SessionView:
    """The session as the UI shows it: its last ``shown`` messages (0: all) before seq ``before`` (None:
    the newest), or its first ``shown`` after seq ``after``, and how many come before and after them."""
    page = store.view_page(session_id, shown, before, after)
    listed = store.list_messages(session_id, after_seq=page.after_seq, before_seq=page.before_seq)
    shown_messages = store.with_images(listed, data=False)
    call_ids = [call.id for message in shown_messages for call in tool_calls_of(message)]
    ledger = {e.call_id: e for e in store.ledger_calls(session_id, call_ids)}
    out: list[ViewMessage] = []
    calls: dict[str, ViewCall] = {}
    for message in shown_messages:
        if message.role == "tool" and message.kind == "message":
            call = calls.get(message.tool_call_id or "")
            if call is not None:
                call["ok"] = bool(message.meta.get("ok", True))
                call["result"] = _shown(content_text(message.content))
                call["status"] = message.meta.get("status", call["status"])
                call["images"] = [str(p) for p in message.meta.get("images") or []]
            continue
        entry = _entry(message, ledger)
        calls.update({c["call_id"]: c for c in entry["tool_calls"]})
        out.append(entry)
    _mark_branches(store, session_id, out, _first_parent(shown_messages))
    pending: list[PendingApproval] = [
        {
            "call_id": p.call_id,
            "turn_id": p.turn_id,
            "name": p.tool,
            "arguments": p.arguments,
            "effect": tools.get(p.tool).effect if p.tool in tools else "execute",
            "created": p.created,
        }
        for p in store.approvals_pending(session_id)
    ]
    return {
        "session": session_record(store.get_session(session_id)),
        "messages": out,
        "earlier": page.earlier,
        "later": page.later,
        "pending_approvals": pending,
        "running_turn": running_turn,
        "agent_tasks": [
            {
                "kind": "agent_task",
                "turn_id": t.turn_id,
                "task_id": t.id,
                "call_id": t.call_id,
                "agent": t.agent,
                "status": t.status,
                "session_id": t.child_session,
                "background": t.background,
                "summary": (t.result or "").split("\n", 1)[0],
            }
            for t in store.agent_tasks(session_id)
            if t.call_id in calls
        ],
        "agent": store.session_agent(session_id),
    }


def _first_parent(messages: list[StoredMessage]) -> int | None:
    """The earliest message a shown user message follows (None: one is the session's first, or none is shown)."""
    parents = [m.parent for m in messages if m.role == "user"]
    return None if not parents or None in parents else min(p for p in parents if p is not None)


def _mark_branches(store: Store, session_id: str, out: list[ViewMessage], from_parent: int | None) -> None:
    """Give each user message with other versions its ``branch``, and its last reply the reply's (the
    versions read are those of the shown messages: from ``from_parent`` on)."""
    versions = store.versions(session_id, from_parent).values()
    shown = {v.seq: (group, v) for group in versions for v in group if v.in_view}
    for at, entry in enumerate(out):
        if entry["role"] != "user" or entry["seq"] not in shown:
            continue
        group, version = shown[entry["seq"]]
        edits, replies = edit_branch(group, version), reply_branch(group, version)
        if edits:
            entry["branch"] = edits
        if replies:
            reply = _last_reply(out, at)
            target = reply if reply is not None else (None if edits else entry)
            if target is not None:
                target["branch"] = replies


def _last_reply(out: list[ViewMessage], at: int) -> ViewMessage | None:
    """The turn's last assistant message with text after user message ``at`` (None: it has none)."""
    found: ViewMessage | None = None
    for entry in out[at + 1 :]:
        if entry["role"] == "user":
            break
        if entry["role"] == "assistant" and entry["text"]:
            found = entry
    return found

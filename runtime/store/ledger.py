"""The tool-call ledger (every call: arguments, decision, status, result summary, timings) and the
pending approvals that must survive a page reload."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from runtime.store.base import Row, StoreBase, dumps, loads
from runtime.store.errors import StoreError
from runtime.store.values import CALL_DECISIONS, CALL_STATUSES, CallDecision, CallStatus, LedgerEntry, PendingApproval

RESULT_SUMMARY_CHARS = 2000
_FINAL: frozenset[CallStatus] = frozenset({"ok", "error", "denied"})
_IDS_PER_QUERY = 500  # bound parameters per IN (...) query, well under SQLite's limit


def _entry(row: Row) -> LedgerEntry:
    return LedgerEntry(
        call_id=row["call_id"],
        session_id=row["session_id"],
        turn_id=row["turn_id"],
        tool=row["tool"],
        arguments=loads(row["arguments"], {}),
        decision=row["decision"],
        status=row["status"],
        result_summary=row["result_summary"],
        started=row["started"],
        finished=row["finished"],
        duration_ms=row["duration_ms"],
    )


def _approval(row: Row) -> PendingApproval:
    return PendingApproval(
        row["call_id"], row["session_id"], row["turn_id"], row["tool"], loads(row["arguments"], {}), row["created"]
    )


def _summary(text: str | None) -> str | None:
    if text is None or len(text) <= RESULT_SUMMARY_CHARS:
        return text
    return text[: RESULT_SUMMARY_CHARS - 1] + "…"


def _elapsed_ms(started: str, finished: str) -> int:
    def parse(stamp: str) -> datetime:
        return datetime.fromisoformat(stamp.removesuffix("Z"))

    return max(0, round((parse(finished) - parse(started)).total_seconds() * 1000))


class LedgerMixin(StoreBase):
    def ledger_append(
        self,
        session_id: str,
        call_id: str,
        tool: str,
        arguments: dict[str, Any],
        *,
        turn_id: str | None = None,
        status: CallStatus = "running",
        decision: CallDecision | None = None,
    ) -> LedgerEntry:
        """Record a tool call as it starts (or as it waits for approval)."""
        _check_values(status, decision)
        self._require_session(session_id)
        self._db.execute(
            "INSERT INTO tool_calls (call_id, session_id, turn_id, tool, arguments, decision, status, started)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            [call_id, session_id, turn_id, tool, dumps(arguments), decision, status, self._now()],
        )
        return self.ledger_get(call_id)

    def ledger_update(
        self,
        call_id: str,
        *,
        status: CallStatus | None = None,
        decision: CallDecision | None = None,
        result_summary: str | None = None,
    ) -> LedgerEntry:
        """Change a call's decision or status. A final status (ok/error/denied) stamps the timings.

        ``started`` is re-stamped when an approved call starts running, so ``duration_ms`` is the
        tool's own time, not the time the user took to decide.
        """
        current = self.ledger_get(call_id)
        _check_values(status, decision)
        new_status = status or current.status
        started, finished, duration = current.started, current.finished, current.duration_ms
        if current.status == "pending-approval" and new_status == "running":
            started = self._now()
        if new_status in _FINAL and finished is None:
            finished = self._now()
            duration = _elapsed_ms(started, finished)
        self._db.execute(
            "UPDATE tool_calls SET status = ?, decision = ?, result_summary = ?, started = ?, finished = ?,"
            " duration_ms = ? WHERE call_id = ?",
            [
                new_status,
                decision or current.decision,
                _summary(result_summary) if result_summary is not None else current.result_summary,
                started,
                finished,
                duration,
                call_id,
            ],
        )
        return self.ledger_get(call_id)

    def ledger_get(self, call_id: str) -> LedgerEntry:
        row = self._one("SELECT * FROM tool_calls WHERE call_id = ?", [call_id])
        if row is None:
            raise StoreError("not_found", f"No tool call {call_id!r} in the ledger.", entity="tool_call", key=call_id)
        return _entry(row)

    def ledger_list(
        self, session_id: str, *, turn_id: str | None = None, unfinished: bool = False
    ) -> list[LedgerEntry]:
        """A session's calls in the order they started (optionally one turn's; ``unfinished``: only those
        still running or waiting for approval)."""
        sql = "SELECT * FROM tool_calls WHERE session_id = ?"
        params: list[Any] = [session_id]
        if turn_id is not None:
            sql += " AND turn_id = ?"
            params.append(turn_id)
        if unfinished:
            sql += " AND status IN ('running', 'pending-approval')"
        return [_entry(r) for r in self._rows(sql + " ORDER BY started, rowid", params)]

    def ledger_calls(self, session_id: str, call_ids: Sequence[str]) -> list[LedgerEntry]:
        """The entries of these calls of a session (those a view shows: not every call it ever made)."""
        out: list[LedgerEntry] = []
        for start in range(0, len(call_ids), _IDS_PER_QUERY):
            ids = list(call_ids[start : start + _IDS_PER_QUERY])
            marks = ", ".join("?" * len(ids))
            out += [
                _entry(r)
                for r in self._rows(
                    f"SELECT * FROM tool_calls WHERE session_id = ? AND call_id IN ({marks})", [session_id, *ids]
                )
            ]
        return out

    # -- pending approvals ----------------------------------------------------------------------

    def approval_add(
        self, session_id: str, call_id: str, tool: str, arguments: dict[str, Any], *, turn_id: str | None = None
    ) -> PendingApproval:
        self._require_session(session_id)
        self._db.execute(
            "INSERT OR REPLACE INTO approvals (call_id, session_id, turn_id, tool, arguments, created)"
            " VALUES (?, ?, ?, ?, ?, ?)",
            [call_id, session_id, turn_id, tool, dumps(arguments), self._now()],
        )
        return self.approvals_pending(session_id, call_id=call_id)[0]

    def approval_resolve(self, call_id: str) -> None:
        """The user decided (or the turn ended): the approval is no longer pending."""
        cursor = self._db.execute("DELETE FROM approvals WHERE call_id = ?", [call_id])
        if cursor.rowcount == 0:
            raise StoreError("not_found", f"No pending approval for {call_id!r}.", entity="approval", key=call_id)

    def approvals_pending(self, session_id: str | None = None, *, call_id: str | None = None) -> list[PendingApproval]:
        sql, params = "SELECT * FROM approvals WHERE 1 = 1", list[str]()
        if session_id is not None:
            sql, params = sql + " AND session_id = ?", [*params, session_id]
        if call_id is not None:
            sql, params = sql + " AND call_id = ?", [*params, call_id]
        return [_approval(r) for r in self._rows(sql + " ORDER BY created, rowid", params)]


def _check_values(status: CallStatus | None, decision: CallDecision | None) -> None:
    if status is not None and status not in CALL_STATUSES:
        raise StoreError("invalid", f"unknown tool call status {status!r}")
    if decision is not None and decision not in CALL_DECISIONS:
        raise StoreError("invalid", f"unknown approval decision {decision!r}")

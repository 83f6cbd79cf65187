"""Delegated tasks: each child session, the parent session's turn and call it ran for, status and result.

A child session is a session like any other (its messages, its ledger), readable by id, but listed only
here: the session list and search leave child sessions out (``CHILD_SESSIONS``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from runtime.store.base import Row, StoreBase
from runtime.store.errors import StoreError

TaskStatus = Literal["running", "done", "failed", "stopped"]
TASK_STATUSES: tuple[TaskStatus, ...] = ("running", "done", "failed", "stopped")
CHILD_SESSIONS = "SELECT child_session FROM agent_tasks"  # what the session list leaves out
STOPPED_BY_RELOAD = (
    "Stopped: the page was reloaded (or closed) while this task ran; its session keeps what it did. "
    "Delegate it again if it is still needed."
)


@dataclass(frozen=True)
class AgentTask:
    id: str
    session_id: str  # the parent's
    turn_id: str
    call_id: str
    agent: str
    child_session: str
    background: bool
    status: TaskStatus
    result: str | None
    created: str
    finished: str | None


def _task(row: Row) -> AgentTask:
    return AgentTask(
        row["id"],
        row["session_id"],
        row["turn_id"],
        row["call_id"],
        row["agent"],
        row["child_session"],
        bool(row["background"]),
        row["status"],
        row["result"],
        row["created"],
        row["finished"],
    )


class AgentTasksMixin(StoreBase):
    def agent_task_add(
        self, task_id: str, session_id: str, turn_id: str, call_id: str, agent: str, child: str, background: bool
    ) -> AgentTask:
        self._require_session(session_id)
        self._require_session(child)
        self._db.execute(
            "INSERT INTO agent_tasks (id, session_id, turn_id, call_id, agent, child_session, background, status,"
            " created) VALUES (?, ?, ?, ?, ?, ?, ?, 'running', ?)",
            [task_id, session_id, turn_id, call_id, agent, child, int(background), self._now()],
        )
        return self.agent_task(task_id)

    def agent_task(self, task_id: str) -> AgentTask:
        row = self._one("SELECT * FROM agent_tasks WHERE id = ?", [task_id])
        if row is None:
            raise StoreError("not_found", f"No task {task_id!r}.", entity="agent_task", key=task_id)
        return _task(row)

    def agent_task_finish(self, task_id: str, status: TaskStatus, result: str) -> AgentTask:
        if status not in TASK_STATUSES or status == "running":
            raise StoreError("invalid", f"A task ends done, failed or stopped, not {status!r}.")
        self._db.execute(
            "UPDATE agent_tasks SET status = ?, result = ?, finished = ? WHERE id = ?",
            [status, result, self._now(), task_id],
        )
        return self.agent_task(task_id)

    def agent_tasks(self, session_id: str) -> list[AgentTask]:
        """The tasks delegated in ``session_id``, oldest first."""
        rows = self._rows("SELECT * FROM agent_tasks WHERE session_id = ? ORDER BY created, rowid", [session_id])
        return [_task(r) for r in rows]

    def agent_tasks_stop_running(self) -> list[AgentTask]:
        """Tasks left ``running`` by an earlier page load: none runs any more, so each is ``stopped``."""
        rows = self._rows("SELECT * FROM agent_tasks WHERE status = 'running'")
        with self._db.atomic():
            for row in rows:
                self.agent_task_finish(row["id"], "stopped", STOPPED_BY_RELOAD)
        return [self.agent_task(r["id"]) for r in rows]

    def task_chat(self, session_id: str) -> str:
        """The chat a child session works for (its parent's parent, up to a session no task made);
        ``session_id`` itself when it is a chat."""
        seen = {session_id}
        while (
            row := self._one("SELECT session_id FROM agent_tasks WHERE child_session = ?", [session_id])
        ) is not None:
            if row["session_id"] in seen:  # a cycle cannot be made here; a damaged store must not hang
                break
            session_id = row["session_id"]
            seen.add(session_id)
        return session_id

    def child_sessions(self, session_id: str) -> list[str]:
        return [
            r["child_session"]
            for r in self._rows("SELECT child_session FROM agent_tasks WHERE session_id = ?", [session_id])
        ]

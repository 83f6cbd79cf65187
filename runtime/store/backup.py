"""The whole store as one JSON value (``backup_dump``) and that value put back (``backup_restore``):
every session with all its rows (messages of every branch, images, the tool ledger, pending approvals),
the agent profile it runs under and the tasks it delegated, and every memory. docs/storage.md, "Backup",
has the format.

JSON, not a copy of the SQLite file: it crosses the request boundary like any other result, it is
read by people and other tools, a restore never asks SQLite to open a file someone else made, and
a merge goes row by row (sessions and memories by id, the newer ``updated`` wins). Rows keep their
columns by name; a dump of an older schema restores with the newer columns' defaults, a newer one is
refused. A restore is one transaction: it all lands or nothing changes. Version 1 dumps (before the
profile and the tasks were kept) restore as before: their sessions run under ``general``.
"""

from __future__ import annotations

import base64
import binascii
import sqlite3
from collections.abc import Mapping
from typing import Any, Literal

from runtime.store.base import StoreBase
from runtime.store.errors import StoreError
from runtime.store.migrations import SCHEMA_VERSION, schema_version
from runtime.store.session_agents import AGENT_KEY

DUMP_FORMAT = "tidepool.state"
DUMP_VERSION = 2  # 2: each session's "agent" and "agent_tasks" (a version 1 dump has neither)
RestoreMode = Literal["merge", "replace"]

# A session's rows, child tables first when deleting (foreign keys), in this order when inserting.
_SESSION_TABLES = ("messages", "message_images", "tool_calls", "approvals")
_AGENT, _TASKS = "agent", "agent_tasks"  # a session's profile (a settings row) and the tasks it delegated
_B64 = "$b64"


def _plain(row: Mapping[str, Any]) -> dict[str, Any]:
    return {k: ({_B64: base64.b64encode(v).decode("ascii")} if isinstance(v, bytes) else v) for k, v in row.items()}


def _stored(value: Any) -> Any:
    if isinstance(value, dict):
        if set(value) != {_B64} or not isinstance(value[_B64], str):
            raise StoreError("invalid", "a column holds an object; only text, numbers and bytes are kept")
        try:
            return base64.b64decode(value[_B64], validate=True)
        except binascii.Error as exc:
            raise StoreError("invalid", f"a column's bytes are not base64: {exc}") from exc
    if isinstance(value, list):
        raise StoreError("invalid", "a column holds a list; only text, numbers and bytes are kept")
    return value


def _rows_of(value: Any, what: str) -> list[dict[str, Any]]:
    if not isinstance(value, list) or not all(isinstance(r, dict) for r in value):
        raise StoreError("invalid", f"the backup's {what} are not a list of rows")
    return value


class _RolledBack(Exception):
    """Ends a dry run's transaction (rolled back)."""


class BackupMixin(StoreBase):
    def backup_dump(self) -> dict[str, Any]:
        """Every session (with every row that belongs to it) and every memory, as JSON values."""
        sessions = []
        for session in self._rows("SELECT * FROM sessions ORDER BY created, id"):
            entry = _plain(session)
            for table in _SESSION_TABLES:
                order = "seq" if table == "messages" else "rowid"
                rows = self._rows(f"SELECT * FROM {table} WHERE session_id = ? ORDER BY {order}", [session["id"]])
                entry[table] = [_plain(r) for r in rows]
            agent = self._one("SELECT value FROM settings WHERE key = ?", [AGENT_KEY + session["id"]])
            if agent is not None:
                entry[_AGENT] = agent["value"]
            tasks = self._rows("SELECT * FROM agent_tasks WHERE session_id = ? ORDER BY rowid", [session["id"]])
            entry[_TASKS] = [_plain(r) for r in tasks]
            sessions.append(entry)
        memories = [_plain(r) for r in self._rows("SELECT * FROM memories ORDER BY id")]
        return {
            "format": DUMP_FORMAT,
            "version": DUMP_VERSION,
            "schema": schema_version(self._db),
            "sessions": sessions,
            "memories": memories,
        }

    def backup_restore(self, dump: Any, mode: RestoreMode, *, dry_run: bool = False) -> dict[str, int]:
        """Put a dump back: ``replace`` empties the store first; ``merge`` keeps what is newer here.
        Returns how many chats (sessions other than delegated tasks' child sessions) and memories were
        (``dry_run``: would be) written. One transaction; a dry run rolls it back, so it proves the dump
        restores without changing anything."""
        sessions, memories = _checked(dump)
        try:
            return self._restore_all(sessions, memories, mode, dry_run)
        except sqlite3.Error as exc:  # the transaction rolled back: nothing changed
            raise StoreError("invalid", f"the backup's state could not be written: {exc}") from exc

    def _restore_all(
        self, sessions: list[dict[str, Any]], memories: list[dict[str, Any]], mode: RestoreMode, dry_run: bool
    ) -> dict[str, int]:
        written = {"sessions": 0, "memories": 0}
        try:
            with self._db.atomic():
                # a session taken whole is deleted and inserted again while tasks name it: checked at the end
                self._db.execute("PRAGMA defer_foreign_keys = ON")
                self._restore_rows(sessions, memories, mode, written)
                _check_links(self._rows("PRAGMA foreign_key_check"))
                if dry_run:
                    raise _RolledBack
        except _RolledBack:
            pass
        return written

    def _restore_rows(
        self, sessions: list[dict[str, Any]], memories: list[dict[str, Any]], mode: RestoreMode, written: dict[str, int]
    ) -> None:
        if mode == "replace":
            for table in (_TASKS, *_SESSION_TABLES, "sessions", "memories"):
                self._db.execute(f"DELETE FROM {table}")
            self._db.execute("DELETE FROM settings WHERE substr(key, 1, ?) = ?", [len(AGENT_KEY), AGENT_KEY])
        children = {t.get("child_session") for s in sessions for t in _rows_of(s.get(_TASKS, []), "tasks")}
        for session in sessions:
            taken = self._restore_session(session)
            if session.get("id") not in children:  # a child session comes with its task, not as a chat
                written["sessions"] += taken
        for memory in memories:
            written["memories"] += self._restore_memory(memory)

    def _restore_session(self, session: dict[str, Any]) -> int:
        sid = session.get("id")
        if not isinstance(sid, str) or not sid:
            raise StoreError("invalid", "a session in the backup has no id")
        here = self._one("SELECT updated FROM sessions WHERE id = ?", [sid])
        if here is not None and str(here["updated"]) >= str(session.get("updated", "")):
            return 0  # what is here is as new or newer
        if here is not None:
            for table in _SESSION_TABLES:
                self._db.execute(f"DELETE FROM {table} WHERE session_id = ?", [sid])
            self._db.execute("DELETE FROM sessions WHERE id = ?", [sid])
        self._insert("sessions", {k: v for k, v in session.items() if k not in (*_SESSION_TABLES, _AGENT, _TASKS)})
        for table in _SESSION_TABLES:
            for row in _rows_of(session.get(table, []), f"{table} of session {sid}"):
                self._insert(table, {**row, "session_id": sid})
        self._restore_agent(sid, session.get(_AGENT))
        for task in _rows_of(session.get(_TASKS, []), f"delegated tasks of session {sid}"):
            self._db.execute(
                "DELETE FROM agent_tasks WHERE id = ? OR child_session = ?", [task.get("id"), task.get("child_session")]
            )
            self._insert(_TASKS, {**task, "session_id": sid})  # tasks only here stay: their sessions are here
        return 1

    def _restore_agent(self, sid: str, agent: Any) -> None:
        """The session's profile as in the backup (none there: ``general``, the row here removed)."""
        if agent is not None and (not isinstance(agent, str) or not agent):
            raise StoreError("invalid", f"the backup's agent profile of session {sid} is not a name")
        self._db.execute("DELETE FROM settings WHERE key = ?", [AGENT_KEY + sid])
        if agent is not None:
            self._insert("settings", {"key": AGENT_KEY + sid, "value": agent, "updated": self._now()})

    def _restore_memory(self, memory: dict[str, Any]) -> int:
        mid = memory.get("id")
        if not isinstance(mid, int) or isinstance(mid, bool) or mid < 1:
            raise StoreError("invalid", "a memory in the backup has no id")
        here = self._one("SELECT updated FROM memories WHERE id = ?", [mid])
        if here is not None and str(here["updated"]) >= str(memory.get("updated", "")):
            return 0
        if here is not None:
            self._db.execute("DELETE FROM memories WHERE id = ?", [mid])  # the delete trigger keeps the index right
        self._insert("memories", memory)
        return 1

    def _insert(self, table: str, row: Mapping[str, Any]) -> None:
        known = {r["name"] for r in self._rows(f"PRAGMA table_info({table})")}
        unknown = sorted(set(row) - known)
        if unknown:
            raise StoreError("invalid", f"the backup's {table} rows have columns this version does not know: {unknown}")
        names = list(row)
        marks = ", ".join("?" for _ in names)
        columns = ", ".join(f'"{n}"' for n in names)
        self._db.execute(f"INSERT INTO {table} ({columns}) VALUES ({marks})", [_stored(row[n]) for n in names])


def _check_links(broken: list[Any]) -> None:
    """Every delegated task names sessions the restored store has (``PRAGMA foreign_key_check``)."""
    if broken:
        tables = sorted({str(row["table"]) for row in broken})
        raise StoreError("invalid", f"the backup's {', '.join(tables)} rows name sessions it does not hold")


def _checked(dump: Any) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    if not isinstance(dump, dict) or dump.get("format") != DUMP_FORMAT:
        raise StoreError("invalid", "this is not a Tidepool state dump")
    version, schema = dump.get("version"), dump.get("schema")
    if not isinstance(version, int) or not isinstance(schema, int):
        raise StoreError("invalid", "the state dump has no version")
    if version > DUMP_VERSION or schema > SCHEMA_VERSION:
        raise StoreError(
            "newer_schema",
            f"the backup was made by a newer Tidepool (state format {version}, schema {schema}); update the app first",
            found_version=schema,
            known_version=SCHEMA_VERSION,
        )
    return _rows_of(dump.get("sessions"), "sessions"), _rows_of(dump.get("memories"), "memories")

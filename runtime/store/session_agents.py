"""Which agent profile each session runs under (``runtime.agents.profiles``), by name.

Kept in the ``settings`` table, one row a session (``agent:<session id>``): no schema change, and a
session without a row runs under ``general``. Deleting a session deletes its row.
"""

from __future__ import annotations

from runtime.store.base import StoreBase

DEFAULT_AGENT = "general"
AGENT_KEY = "agent:"  # the settings key of a session's profile: AGENT_KEY + session id


class SessionAgentsMixin(StoreBase):
    def session_agent(self, session_id: str) -> str:
        """The profile the session runs under (``general`` when none was chosen)."""
        row = self._one("SELECT value FROM settings WHERE key = ?", [AGENT_KEY + session_id])
        return str(row["value"]) if row else DEFAULT_AGENT

    def set_session_agent(self, session_id: str, name: str) -> None:
        self._require_session(session_id)
        self._db.execute(
            "INSERT INTO settings (key, value, updated) VALUES (?, ?, ?) "
            "ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated = excluded.updated",
            [AGENT_KEY + session_id, name, self._now()],
        )

"""Append-only schema migrations: named steps, applied in order, each in its own transaction.

Never edit or reorder a step that has shipped; add a new one at the end. The schema version is the
number of steps applied: it is kept in ``PRAGMA user_version`` and each applied step's name in the
``_migrations`` table. A database whose version (or any recorded step) is unknown here was written
by a newer Tidepool: it is refused with ``StoreError(code="newer_schema")`` before anything is
written to it.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from runtime.store.compaction import KEPT_ROWS
from runtime.store.errors import StoreError
from runtime.store.search import DELETE_TRIGGER, SEARCH_TABLE, searched
from runtime.store.view_pages import SHOWN_ROWS

if TYPE_CHECKING:
    from sqlite_utils import Database

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Migration:
    name: str
    apply: Callable[[Database], None]


def _run(db: Database, *statements: str) -> None:
    for sql in statements:
        db.execute(sql)


def _0001_initial(db: Database) -> None:
    _run(
        db,
        """CREATE TABLE sessions (
            id TEXT PRIMARY KEY,
            title TEXT NOT NULL DEFAULT '',
            created TEXT NOT NULL,
            updated TEXT NOT NULL,
            model TEXT
        )""",
        "CREATE INDEX sessions_updated ON sessions(updated)",
        """CREATE TABLE messages (
            session_id TEXT NOT NULL REFERENCES sessions(id),
            seq INTEGER NOT NULL,
            role TEXT NOT NULL,
            kind TEXT NOT NULL DEFAULT 'message',
            content TEXT NOT NULL,
            tool_calls TEXT,
            tool_call_id TEXT,
            name TEXT,
            turn_id TEXT,
            status TEXT NOT NULL DEFAULT 'complete',
            meta TEXT,
            created TEXT NOT NULL,
            PRIMARY KEY (session_id, seq)
        )""",
        "CREATE INDEX messages_turn ON messages(session_id, turn_id)",
        """CREATE TABLE tool_calls (
            call_id TEXT PRIMARY KEY,
            session_id TEXT NOT NULL REFERENCES sessions(id),
            turn_id TEXT,
            tool TEXT NOT NULL,
            arguments TEXT NOT NULL,
            decision TEXT,
            status TEXT NOT NULL,
            result_summary TEXT,
            started TEXT NOT NULL,
            finished TEXT,
            duration_ms INTEGER
        )""",
        "CREATE INDEX tool_calls_session ON tool_calls(session_id, started)",
        """CREATE TABLE memories (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            text TEXT NOT NULL,
            tags TEXT NOT NULL DEFAULT '[]',
            created TEXT NOT NULL,
            updated TEXT NOT NULL
        )""",
        """CREATE VIRTUAL TABLE memories_fts USING fts5(
            text, tags, content='memories', content_rowid='id',
            tokenize='porter unicode61 remove_diacritics 2'
        )""",
        """CREATE TRIGGER memories_ai AFTER INSERT ON memories BEGIN
            INSERT INTO memories_fts(rowid, text, tags) VALUES (new.id, new.text, new.tags);
        END""",
        """CREATE TRIGGER memories_ad AFTER DELETE ON memories BEGIN
            INSERT INTO memories_fts(memories_fts, rowid, text, tags) VALUES ('delete', old.id, old.text, old.tags);
        END""",
        """CREATE TRIGGER memories_au AFTER UPDATE OF text, tags ON memories BEGIN
            INSERT INTO memories_fts(memories_fts, rowid, text, tags) VALUES ('delete', old.id, old.text, old.tags);
            INSERT INTO memories_fts(rowid, text, tags) VALUES (new.id, new.text, new.tags);
        END""",
        """CREATE TABLE settings (
            key TEXT PRIMARY KEY,
            value TEXT NOT NULL,
            updated TEXT NOT NULL
        )""",
    )


def _0002_memory_pinned(db: Database) -> None:
    """Pinned memories go into every system prompt."""
    _run(
        db,
        "ALTER TABLE memories ADD COLUMN pinned INTEGER NOT NULL DEFAULT 0",
        "CREATE INDEX memories_pinned ON memories(pinned) WHERE pinned = 1",
    )


def _0003_pending_approvals(db: Database) -> None:
    """A tool call waiting for approval survives a page reload."""
    _run(
        db,
        """CREATE TABLE approvals (
            call_id TEXT PRIMARY KEY,
            session_id TEXT NOT NULL REFERENCES sessions(id),
            turn_id TEXT,
            tool TEXT NOT NULL,
            arguments TEXT NOT NULL,
            created TEXT NOT NULL
        )""",
        "CREATE INDEX approvals_session ON approvals(session_id)",
    )


def _0004_message_reasoning(db: Database) -> None:
    """An assistant message keeps its reasoning (readable text, and the provider's blocks exactly as
    received, to send back) and why it ended (``length``: cut off; ``content_filter``)."""
    _run(
        db,
        "ALTER TABLE messages ADD COLUMN reasoning TEXT",
        "ALTER TABLE messages ADD COLUMN reasoning_details TEXT",
        "ALTER TABLE messages ADD COLUMN finish_reason TEXT",
    )


def _0005_message_images(db: Database) -> None:
    """A message keeps the images pasted or dropped into it, as bytes, beside its text (the messages
    table stays small: listing and searching never read them)."""
    _run(
        db,
        """CREATE TABLE message_images (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            session_id TEXT NOT NULL REFERENCES sessions(id),
            seq INTEGER NOT NULL,
            position INTEGER NOT NULL,
            media_type TEXT NOT NULL,
            name TEXT NOT NULL,
            data BLOB NOT NULL,
            created TEXT NOT NULL
        )""",
        "CREATE INDEX message_images_message ON message_images(session_id, seq, position)",
    )


def _0006_messages_kept(db: Database) -> None:
    """The rows compaction never summarizes, indexed on their own: the model's view of a long session
    reads the latest summary, these and what came after it, never the summarized rows."""
    _run(db, f"CREATE INDEX messages_kept ON messages(session_id, seq) WHERE {KEPT_ROWS}")


def _0007_model_windows(db: Database) -> None:
    """The context window each provider said a model runs with, kept across reloads (the gauge shows it
    at once and compaction budgets against it before the model list is asked again)."""
    _run(
        db,
        """CREATE TABLE model_windows (
            provider TEXT NOT NULL,
            base_url TEXT NOT NULL,
            model TEXT NOT NULL,
            context_length INTEGER NOT NULL,
            updated TEXT NOT NULL,
            PRIMARY KEY (provider, base_url, model)
        )""",
    )


def _0008_message_parent(db: Database) -> None:
    """Each message names the one before it on its branch (``parent``, NULL for a session's first), so
    the versions an edit or a regenerate left can be reached again (store/branches.py). Stored rows get
    theirs from the order and branch numbers they were kept with."""
    _run(
        db,
        "ALTER TABLE messages ADD COLUMN parent INTEGER",
        "CREATE INDEX messages_parent ON messages(session_id, parent)",
    )
    sessions = [r[0] for r in db.execute("SELECT DISTINCT session_id FROM messages").fetchall()]
    for session_id in sessions:
        rows = db.execute("SELECT seq, kind, meta FROM messages WHERE session_id = ? ORDER BY seq", [session_id])
        for seq, parent in _parents([(r[0], _branch_of(r[1], r[2])) for r in rows.fetchall()]):
            db.execute("UPDATE messages SET parent = ? WHERE session_id = ? AND seq = ?", [parent, session_id, seq])


def _0009_agent_tasks(db: Database) -> None:
    """Delegated tasks (runtime/agents/delegation.py): the child session each ran in, linked to the parent
    session's turn and call, its status and its bounded result. A child session is listed only here."""
    _run(
        db,
        """CREATE TABLE agent_tasks (
            id TEXT PRIMARY KEY,
            session_id TEXT NOT NULL REFERENCES sessions(id),
            turn_id TEXT NOT NULL,
            call_id TEXT NOT NULL,
            agent TEXT NOT NULL,
            child_session TEXT NOT NULL REFERENCES sessions(id),
            background INTEGER NOT NULL DEFAULT 0,
            status TEXT NOT NULL,
            result TEXT,
            created TEXT NOT NULL,
            finished TEXT
        )""",
        "CREATE INDEX agent_tasks_session ON agent_tasks(session_id, created)",
        "CREATE UNIQUE INDEX agent_tasks_child ON agent_tasks(child_session)",
    )


def _0010_message_view_indexes(db: Database) -> None:
    """Opening a session reads in what it shows, not in what it stores: where its last messages start and
    how many come before (the shown rows: no tool results, no versions set aside) are counted in an index
    of their own, and the rows a reload finds still streaming in one that holds only those."""
    _run(
        db,
        f"CREATE INDEX messages_shown ON messages(session_id, seq) WHERE {SHOWN_ROWS}",
        "CREATE INDEX messages_streaming ON messages(session_id) WHERE status = 'streaming'",
    )


def _0011_message_search(db: Database) -> None:
    """What was said, indexed for the sidebar's search (store/search.py): every user and assistant message in
    view, its stored JSON cut into trigrams (no positions: the index names the rows that may hold a word, and
    the search reads only those). Triggers keep it in step with every write, as ``memories_fts``."""
    _run(
        db,
        f"CREATE VIRTUAL TABLE {SEARCH_TABLE} USING fts5(content, content='', tokenize='trigram', detail='none')",
        f"CREATE VIRTUAL TABLE {SEARCH_TABLE}_terms USING fts5vocab({SEARCH_TABLE}, 'row')",
        f"""CREATE TRIGGER messages_search_ai AFTER INSERT ON messages WHEN {searched("new.")} BEGIN
            INSERT INTO {SEARCH_TABLE}(rowid, content) VALUES (new.rowid, new.content);
        END""",
        f"""CREATE TRIGGER {DELETE_TRIGGER} AFTER DELETE ON messages WHEN {searched("old.")} BEGIN
            INSERT INTO {SEARCH_TABLE}({SEARCH_TABLE}, rowid, content) VALUES ('delete', old.rowid, old.content);
        END""",
        f"""CREATE TRIGGER messages_search_au AFTER UPDATE OF content, kind, role ON messages
            WHEN old.content IS NOT new.content OR old.kind IS NOT new.kind OR old.role IS NOT new.role BEGIN
            INSERT INTO {SEARCH_TABLE}({SEARCH_TABLE}, rowid, content)
                SELECT 'delete', old.rowid, old.content WHERE {searched("old.")};
            INSERT INTO {SEARCH_TABLE}(rowid, content) SELECT new.rowid, new.content WHERE {searched("new.")};
        END""",
        f"INSERT INTO {SEARCH_TABLE}(rowid, content) SELECT rowid, content FROM messages WHERE {searched()}",
    )


def _branch_of(kind: str, meta: str | None) -> int | None:
    """The branch number a superseded row was set aside with (None: in view)."""
    if kind != "superseded":
        return None
    return int((json.loads(meta or "{}").get("superseded") or {}).get("branch", 0))


def _parents(rows: list[tuple[int, int | None]]) -> list[tuple[int, int | None]]:
    """``(seq, branch)`` in seq order → ``(seq, parent)``: a branch's rows followed each other; its first
    row followed the latest earlier row still in view when it was set aside (in view now, or set
    aside later)."""
    out: list[tuple[int, int | None]] = []
    last: dict[int | None, int] = {}
    for seq, branch in rows:
        if branch in last:
            out.append((seq, last[branch]))
        else:
            later = [s for s, b in rows if s < seq and (b is None or (branch is not None and b > branch))]
            out.append((seq, max(later, default=None)))
        last[branch] = seq
    return out


MIGRATIONS: tuple[Migration, ...] = (
    Migration("0001_initial", _0001_initial),
    Migration("0002_memory_pinned", _0002_memory_pinned),
    Migration("0003_pending_approvals", _0003_pending_approvals),
    Migration("0004_message_reasoning", _0004_message_reasoning),
    Migration("0005_message_images", _0005_message_images),
    Migration("0006_messages_kept", _0006_messages_kept),
    Migration("0007_model_windows", _0007_model_windows),
    Migration("0008_message_parent", _0008_message_parent),
    Migration("0009_agent_tasks", _0009_agent_tasks),
    Migration("0010_message_view_indexes", _0010_message_view_indexes),
    Migration("0011_message_search", _0011_message_search),
)
SCHEMA_VERSION = len(MIGRATIONS)

_LEDGER_TABLE = "_migrations"


def schema_version(db: Database) -> int:
    row = db.execute("PRAGMA user_version").fetchone()
    return int(row[0]) if row else 0


def applied_names(db: Database) -> list[str]:
    if not db.table(_LEDGER_TABLE).exists():
        return []
    return [str(r[0]) for r in db.execute(f"SELECT name FROM {_LEDGER_TABLE} ORDER BY version")]


def check_not_newer(db: Database, migrations: tuple[Migration, ...] = MIGRATIONS) -> int:
    """Return the database's version; raise ``newer_schema`` if this code does not know it. Reads only."""
    version = schema_version(db)
    known = {m.name for m in migrations}
    unknown = [n for n in applied_names(db) if n not in known]
    if version > len(migrations) or unknown:
        raise StoreError(
            "newer_schema",
            f"This database was saved by a newer version of Tidepool (schema {version}, this one knows "
            f"{len(migrations)}). Update Tidepool to open it; it was not changed.",
            found_version=version,
            known_version=len(migrations),
        )
    return version


def migrate(db: Database, now: str, migrations: tuple[Migration, ...] = MIGRATIONS) -> list[str]:
    """Apply every pending step in order; return the names applied. Each step commits on its own."""
    version = check_not_newer(db, migrations)
    done: list[str] = []
    for number, step in enumerate(migrations[version:], start=version + 1):
        with db.atomic():
            if number == 1:
                db.execute(
                    f"CREATE TABLE IF NOT EXISTS {_LEDGER_TABLE} "
                    "(version INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, applied TEXT NOT NULL)"
                )
            step.apply(db)
            db.execute(
                f"INSERT INTO {_LEDGER_TABLE} (version, name, applied) VALUES (?, ?, ?)", [number, step.name, now]
            )
            db.execute(f"PRAGMA user_version = {number}")
        log.info("store migrated to %s (schema %d)", step.name, number)
        done.append(step.name)
    return done

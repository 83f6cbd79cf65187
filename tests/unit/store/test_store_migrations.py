"""Migrations: from the committed fixture of every earlier schema, on a fresh database, and refusal of a newer one."""

from __future__ import annotations

import shutil
import sqlite3
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from runtime.store import Store, StoreError
from runtime.store.migrations import MIGRATIONS, SCHEMA_VERSION, applied_names

ROOT = Path(__file__).resolve().parents[3]
DB_FIXTURES = ROOT / "tests" / "fixtures" / "db"
PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 24
GIF = b"GIF89a" + b"\x01" * 10


# a committed fixture per earlier schema (tests/fixtures/db/vN.sqlite)
EARLIER_VERSIONS = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]


def copy_of(tmp_path: Path, version: int) -> Path:
    target = tmp_path / "state.sqlite"
    shutil.copyfile(DB_FIXTURES / f"v{version}.sqlite", target)
    return target


def test_there_is_a_fixture_for_every_earlier_version() -> None:
    assert list(range(1, SCHEMA_VERSION)) == EARLIER_VERSIONS


@pytest.mark.parametrize("version", EARLIER_VERSIONS)
def test_fixture_is_at_its_schema(version: int) -> None:
    conn = sqlite3.connect(DB_FIXTURES / f"v{version}.sqlite")
    try:
        assert conn.execute("PRAGMA user_version").fetchone() == (version,)
        columns = {r[1] for r in conn.execute("PRAGMA table_info(memories)")}
        assert ("pinned" in columns) == (version >= 2)
        message_columns = {r[1] for r in conn.execute("PRAGMA table_info(messages)")}
        assert ("reasoning_details" in message_columns) == (version >= 4)
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master")}
        assert ("message_images" in tables) == (version >= 5)
        assert ("messages_kept" in tables) == (version >= 6)
        assert ("model_windows" in tables) == (version >= 7)
        assert ("parent" in message_columns) == (version >= 8)
        assert ("agent_tasks" in tables) == (version >= 9)
        assert ("messages_shown" in tables and "messages_streaming" in tables) == (version >= 10)
        assert "messages_search" not in tables
    finally:
        conn.close()


@pytest.mark.parametrize("version", EARLIER_VERSIONS)
def test_earlier_version_migrates_to_latest_keeping_everything(tmp_path: Path, version: int) -> None:
    path = copy_of(tmp_path, version)
    with Store(path) as store:
        assert store.migrated == [m.name for m in MIGRATIONS[version:]]
        assert store.schema_version == SCHEMA_VERSION
        assert applied_names(store._db) == [m.name for m in MIGRATIONS]
        session = store.get_session("s-v1")
        assert (session.title, session.model) == ("Trip planning", "openrouter/test-model")
        messages = store.list_messages("s-v1")
        assert [m.role for m in messages] == ["user", "assistant", "tool", "assistant"]
        assert messages[1].tool_calls[0]["function"]["name"] == "memory_search"
        assert messages[2].name == "memory_search"
        assert store.ledger_get("c1").duration_ms == 12
        assert store._one("SELECT value FROM settings WHERE key = ?", ["ui.theme"])["value"] == '"dark"'
        # 0002 added pinning: a v1 memory is unpinned, a v2 pin is kept; FTS stays in sync across steps.
        pinned = {m.text: m.pinned for m in store.memory_list()}
        assert pinned == {"Prefers trains over planes": False, "Allergic to peanuts": version >= 2}
        hits = store.memory_search("trains")
        assert [h.memory.text for h in hits] == ["Prefers trains over planes"]
        store.memory_update(hits[0].memory.id, pinned=True)
        assert "Prefers trains over planes" in [m.text for m in store.memory_pinned()]
        # 0003: pending approvals exist and persist.
        store.approval_add("s-v1", "c9", "write_file", {"path": "a.md"})
        # 0004: earlier replies have no reasoning; a new one keeps its blocks exactly and why it ended.
        assert (messages[3].reasoning, messages[3].reasoning_details, messages[3].finish_reason) == ("", (), None)
        details = ({"type": "reasoning.encrypted", "data": "c2ln", "format": "google-gemini-v1", "index": 0},)
        kept = store.append_message(
            "s-v1", "assistant", "Cut", reasoning="Hmm.", reasoning_details=details, finish_reason="length"
        )
        assert (kept.reasoning, kept.reasoning_details, kept.finish_reason) == ("Hmm.", details, "length")
        # 0005: earlier messages carry no images; a new message keeps its images' bytes, in order.
        assert all(m.images == () for m in store.with_images(messages, data=True))
        asked = store.append_message("s-v1", "user", "What is in these?")
        store.add_images("s-v1", asked.seq, [("image/png", "a.png", PNG), ("image/gif", "b.gif", GIF)])
    with Store(path) as again:
        assert again.migrated == []
        assert [a.call_id for a in again.approvals_pending("s-v1")] == ["c9"]
        assert again.list_messages("s-v1")[-2].reasoning_details[0]["data"] == "c2ln"
        last = again.context_messages("s-v1")[-1]
        assert [(i.name, i.media_type, i.data) for i in last.images] == [
            ("a.png", "image/png", PNG),
            ("b.gif", "image/gif", GIF),
        ]
        listed = again.with_images(again.list_messages("s-v1"), data=False)[-1]
        assert [(i.name, i.size, i.data) for i in listed.images] == [
            ("a.png", len(PNG), None),
            ("b.gif", len(GIF), None),
        ]


def test_branches_kept_before_0008_are_reachable_after_it(tmp_path: Path) -> None:
    """Rows set aside by edits under schema 7 (branch numbers only) get the parents their order implies."""
    from sqlite_utils import Database

    from runtime.store.migrations import migrate

    path = tmp_path / "v7-branches.sqlite"
    db = Database(path, execute_plugins=False)
    migrate(db, "2026-01-02T03:04:05.000Z", MIGRATIONS[:7])
    db.execute("INSERT INTO sessions VALUES ('s', '', 'x', 'x', NULL)")
    # seq: 1 q1, 2 a1, [3 q2, 4 a2] set aside as branch 1, 5 q2', [6 a2'] set aside as branch 2, 7 a2''
    rows = [(1, "q1", 0), (2, "a1", 0), (3, "q2", 1), (4, "a2", 1), (5, "q2'", 0), (6, "a2'", 2), (7, "a2''", 0)]
    for seq, text, branch in rows:
        meta = f'{{"superseded": {{"kind": "message", "branch": {branch}}}}}' if branch else None
        kind = "superseded" if branch else "message"
        role = "user" if text.startswith("q") else "assistant"
        db.execute(
            "INSERT INTO messages (session_id, seq, role, kind, content, status, meta, created)"
            " VALUES ('s', ?, ?, ?, ?, 'complete', ?, 'x')",
            [seq, role, kind, f'"{text}"', meta],
        )
    db.close()
    with Store(path) as store:
        parents = {r["seq"]: r["parent"] for r in store._rows("SELECT seq, parent FROM messages ORDER BY seq")}
        assert parents == {1: None, 2: 1, 3: 2, 4: 3, 5: 2, 6: 5, 7: 5}
        assert [v.content for v in store.versions("s")[2]] == ["q2", "q2'"]
        store.show_branch("s", 3)
        assert [m.content for m in store.list_messages("s")] == ["q1", "a1", "q2", "a2"]


def test_fresh_database_gets_every_step(tmp_path: Path) -> None:
    with Store(tmp_path / "new.sqlite") as store:
        assert store.migrated == [m.name for m in MIGRATIONS]
        assert store.schema_version == store.latest_schema_version == SCHEMA_VERSION


def _bump_user_version(path: Path, version: int) -> None:
    conn = sqlite3.connect(path)
    conn.execute(f"PRAGMA user_version = {version}")
    conn.commit()
    conn.close()


def _add_unknown_step(path: Path, version: int) -> None:
    conn = sqlite3.connect(path)
    conn.execute("INSERT INTO _migrations VALUES (?, '9999_from_the_future', 'x')", [version])
    conn.commit()
    conn.close()


@pytest.mark.parametrize(
    "make_newer",
    [
        pytest.param(lambda p: _bump_user_version(p, SCHEMA_VERSION + 1), id="higher-user-version"),
        pytest.param(lambda p: _add_unknown_step(p, SCHEMA_VERSION + 5), id="unknown-step-name"),
    ],
)
def test_newer_schema_is_refused_and_left_unchanged(tmp_path: Path, make_newer: Callable[[Path], None]) -> None:
    path = tmp_path / "newer.sqlite"
    with Store(path) as store:
        store.memory_save("from the future")
    make_newer(path)
    before = path.read_bytes()
    with pytest.raises(StoreError) as err:
        Store(path)
    assert err.value.code == "newer_schema"
    assert err.value.known_version == SCHEMA_VERSION
    assert "newer version of Tidepool" in err.value.message
    assert path.read_bytes() == before
    assert not (tmp_path / "newer.sqlite-journal").exists()


def test_newer_schema_from_bytes_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "newer.sqlite"
    Store(path).close()
    _bump_user_version(path, SCHEMA_VERSION + 1)
    with pytest.raises(StoreError) as err:
        Store(path.read_bytes())
    assert (err.value.code, err.value.found_version) == ("newer_schema", SCHEMA_VERSION + 1)


@pytest.mark.parametrize(
    "content",
    [
        pytest.param(b"this is not a database at all" * 200, id="text"),
        pytest.param(b"SQLite format 3\x00" + b"\xff" * 4080, id="bad-header"),
    ],
)
def test_garbage_file_is_corrupt(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "garbage.sqlite"
    path.write_bytes(content)
    with pytest.raises(StoreError) as err:
        Store(path)
    assert err.value.code == "corrupt"
    assert path.read_bytes() == content


def test_importing_the_store_does_not_import_sqlite_utils() -> None:
    code = "import sys, runtime.store, runtime.tools.memory; print('sqlite_utils' in sys.modules)"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert proc.stdout.strip() == "False", proc.stderr

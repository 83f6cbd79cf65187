"""The store in real Pyodide: Python 3.14's sqlite3 (SQLite 3.39, FTS5, no WAL), sqlite-utils from the
vendored wheel, serialize/deserialize, migrations from the v1 fixture, and the memory tools.

Needs ``npm ci`` and ``.venv/bin/python scripts/build_wheels.py`` (web/public/pyodide and wheels).
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.pyodide

ROOT = Path(__file__).resolve().parents[3]
HERE = Path(__file__).resolve().parent
PUBLIC = ROOT / "web" / "public"

CHECK = r"""
import asyncio, json, sqlite3, sys
sys.path.insert(0, "/app")
from dataclasses import dataclass
from runtime.store import Store
from runtime.store.compaction import select_for_compaction
from runtime.tools.memory import TOOLS
from runtime.tools.registry import Registry

out = {"python": sys.version.split()[0], "sqlite": sqlite3.sqlite_version}
store = Store(open("/data/v1.sqlite", "rb").read())
out["migrated"] = store.migrated
out["odd"] = [len(store.memory_search(q)) for q in ['"', "*", "AND", "-", "trains"]]
store.memory_update(1, pinned=True)
data = store.serialize()
again = Store(data)
out["roundtrip"] = [m.text for m in again.memory_pinned()]
restored, choice = Store.open_saved(data[: len(data) // 2], data)
out["fallback"] = [choice.source, choice.notice is not None, len(restored.list_messages("s-v1"))]
sid = again.create_session().id
for turn in ("t1", "t2", "t3"):
    again.append_message(sid, "user", "question " * 40, turn_id=turn)
    again.append_message(sid, "assistant", "answer " * 40, turn_id=turn)
plan = select_for_compaction(again.list_messages(sid), 200, keep_last_turns=1)
out["compaction"] = [len(plan.summarize), len(plan.keep)]
queries = ["KYOTO train", "question answer", "ky", "zebra"]
out["search"] = [[h.excerpt for h in again.search_sessions(q)] for q in queries]
import runtime.store.search as search_module
search_module.BULK_DELETE_CHARS = 100  # the long chat leaves the index by its rebuild from the rest
db = again._db
statements = []
db.conn.set_trace_callback(statements.append)
again.delete_session(sid)
db.conn.set_trace_callback(None)
held = sorted(r[0] for r in db.execute("SELECT id FROM messages_search_docsize"))
due = sorted(r[0] for r in db.execute(f"SELECT rowid FROM messages WHERE {search_module.searched()}"))
trigger = db.execute("SELECT count(*) FROM sqlite_master WHERE name = ?", [search_module.DELETE_TRIGGER]).fetchone()
rebuilt = any("'delete-all'" in s for s in statements)
out["bulk"] = [rebuilt, held == due and len(due) > 0, trigger[0], [len(again.search_sessions(q)) for q in queries]]

@dataclass(frozen=True)
class Ctx:
    store: Store

registry = Registry(TOOLS)
ctx = Ctx(again)
saved = await registry.get("memory_save").call(ctx, {"text": "Likes jasmine tea", "tags": ["drink"]})
found = await registry.get("memory_search").call(ctx, {"query": 'jasmine" OR *'})
out["tools"] = [saved, found]
json.dumps(out)
"""


def _run(tmp_path: Path) -> dict[str, Any]:
    if shutil.which("node") is None:
        pytest.fail("node is not installed; the Pyodide tests need Node 20+")
    if not (PUBLIC / "pyodide" / "pyodide.mjs").is_file() or not (PUBLIC / "wheels" / "manifest.json").is_file():
        pytest.fail("web/public/ is missing Pyodide or the wheels: run `.venv/bin/python scripts/build_wheels.py`")
    check = tmp_path / "check.py"
    check.write_text(CHECK)
    fixture = ROOT / "tests" / "fixtures" / "db" / "v1.sqlite"
    proc = subprocess.run(
        ["node", str(HERE / "pyodide_store.mjs"), str(ROOT), str(check), str(fixture)],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
    )
    lines = [line for line in proc.stdout.splitlines() if line.startswith("RESULT ")]
    assert lines, f"no result (exit {proc.returncode}):\n{proc.stdout[-2000:]}\n{proc.stderr[-2000:]}"
    result: dict[str, Any] = json.loads(lines[-1][len("RESULT ") :])
    assert "error" not in result, result["error"]
    return result


def test_store_in_pyodide(tmp_path: Path) -> None:
    result = _run(tmp_path)
    assert result["python"].startswith("3.14") and result["sqlite"].startswith("3.")
    assert result["migrated"] == [
        "0002_memory_pinned", "0003_pending_approvals", "0004_message_reasoning", "0005_message_images",
        "0006_messages_kept", "0007_model_windows", "0008_message_parent", "0009_agent_tasks",
        "0010_message_view_indexes", "0011_message_search",
    ]
    assert result["odd"] == [0, 0, 0, 0, 1]
    assert result["roundtrip"] == ["Prefers trains over planes"]
    assert result["fallback"] == ["previous", True, 4]
    assert result["compaction"] == [4, 2]
    # the v1 session's words, indexed by the migration (its trigram tokenizer is in Pyodide's SQLite)
    assert result["search"] == [["Kyoto by train."], ["question " * 9 + "question…"], ["Kyoto by train."], []]
    # a chat with more text than the rest deleted: the index rebuilt from the rest, its trigger back
    assert result["bulk"] == [True, True, 1, [1, 0, 1, 0]]
    assert result["tools"][0] == "Saved memory 3."
    assert result["tools"][1].startswith("[3] Likes jasmine tea")

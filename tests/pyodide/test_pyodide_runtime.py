"""The real runtime in real Pyodide under Node, from the vendored wheels, completing a scripted turn.

Needs ``npm ci`` (node_modules/pyodide) and ``.venv/bin/python scripts/build_wheels.py`` (web/public/).
When the code changed after that, the runtime's own wheel is rebuilt from it (offline) for the run.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.pyodide

ROOT = Path(__file__).resolve().parents[2]
PUBLIC = ROOT / "web" / "public"
STREAMS = ROOT / "tests" / "fixtures" / "streams"
BUILD_HINT = "run `.venv/bin/python scripts/build_wheels.py` (after `npm ci`) first"


def _prepare(tmp_path: Path) -> str | None:
    """Check what the harness needs; the path of a fresh runtime wheel when the vendored one is stale."""
    if shutil.which("node") is None:
        pytest.fail("node is not installed; the Pyodide tests need Node 20+")
    if not (PUBLIC / "pyodide" / "pyodide.mjs").is_file():
        pytest.fail(f"web/public/pyodide/ is missing: {BUILD_HINT}")
    manifest = PUBLIC / "wheels" / "manifest.json"
    if not manifest.is_file():
        pytest.fail(f"web/public/wheels/manifest.json is missing: {BUILD_HINT}")
    wheels = [w["file"] for w in json.loads(manifest.read_text())["wheels"]]
    (runtime_wheel,) = [w for w in wheels if w.startswith("tidepool_runtime-")]
    if not _stale_files(PUBLIC / "wheels" / runtime_wheel):
        return None
    # The code changed since the wheels were vendored: build the runtime's wheel from it (offline).
    out = tmp_path / "runtime-wheel"
    subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "build_wheels.py"), "--runtime-only", str(out)],
        check=True,
        timeout=120,
        capture_output=True,
    )
    (wheel,) = out.glob("tidepool_runtime-*.whl")
    assert not _stale_files(wheel), "the freshly built runtime wheel does not match the code"
    return str(wheel)


def _stale_files(wheel: Path) -> list[str]:
    """Source files whose content differs from (or is missing in) the built wheel."""
    with zipfile.ZipFile(wheel) as zf:
        packed = {name: zf.read(name) for name in zf.namelist() if name.startswith("runtime/")}
    sources = [p for p in (ROOT / "runtime").rglob("*") if p.suffix in (".py", ".j2") and "__pycache__" not in p.parts]
    return [str(p.relative_to(ROOT)) for p in sources if packed.get(str(p.relative_to(ROOT))) != p.read_bytes()]


def _run(tmp_path: Path, scenario: dict[str, Any]) -> dict[str, Any]:
    scenario = {**scenario, "runtime_wheel": _prepare(tmp_path)}
    path = tmp_path / "scenario.json"
    path.write_text(json.dumps(scenario))
    proc = subprocess.run(
        ["node", str(ROOT / "tests" / "pyodide" / "harness.mjs"), str(ROOT), str(path)],
        capture_output=True,
        text=True,
        timeout=scenario["timeout_ms"] / 1000 + 30,
        cwd=ROOT,
    )
    lines = [line for line in proc.stdout.splitlines() if line.startswith("RESULT ")]
    assert lines, (
        f"the harness printed no result (exit {proc.returncode}):\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    )
    result: dict[str, Any] = json.loads(lines[-1][len("RESULT ") :])
    assert result["ok"], f"{result.get('error')}\n{proc.stderr[-3000:]}"
    return result


def _sse_tool_call() -> str:
    chunks = [
        {
            "choices": [
                {
                    "index": 0,
                    "delta": {
                        "role": "assistant",
                        "tool_calls": [
                            {
                                "index": 0,
                                "id": "call_1",
                                "type": "function",
                                "function": {"name": "read_file", "arguments": '{"pa'},
                            }
                        ],
                    },
                }
            ]
        },
        {"choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "function": {"arguments": 'th": "a.md"}'}}]}}]},
        {"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]},
    ]
    return "".join(f": OPENROUTER PROCESSING\n\ndata: {json.dumps(c)}\n\n" for c in chunks) + "data: [DONE]\n\n"


def test_a_turn_in_pyodide(tmp_path: Path) -> None:
    scenario = {
        "timeout_ms": 90_000,
        "files": {"a.md": "# Notes\nthe secret word is tidepool\n"},
        "send": [
            {
                "type": "config",
                "provider": {"kind": "openrouter", "base_url": "https://openrouter.ai/api/v1", "has_key": True},
                "model": "openai/gpt-4o-mini",
                "permission_mode": "ask",
            },
            {"type": "user_message", "text": "What is in a.md?", "turn_id": "t1"},
        ],
        "responses": [
            {"status": 200, "type": "text/event-stream", "body": _sse_tool_call()},
            {"status": 200, "type": "text/event-stream", "body": (STREAMS / "openrouter_text.sse").read_text()},
        ],
        "until": "turn_finished",
    }
    result = _run(tmp_path, scenario)
    messages = result["received"]
    events = [m["event"] for m in messages if m["type"] == "event"]
    kinds = [e["kind"] for e in events]
    assert messages[0]["type"] == "hello" and kinds[0] == "ready"
    assert_imported_from_the_wheels(result["loaded_from"])
    assert {"read_file", "write_file"} <= {t["name"] for t in events[0]["tools"]}
    kinds = [k for k in kinds if k not in ("session_opened", "notice")]
    events = [e for e in events if e["kind"] not in ("session_opened", "notice")]
    assert kinds[1] == "turn_started" and kinds[-1] == "turn_finished" and events[-1]["reason"] == "stop"
    (tool,) = [e for e in events if e["kind"] == "tool_finished"]
    assert tool["ok"] and "the secret word is tidepool" in tool["result"]
    text = "".join(e["text"] for e in events if e["kind"] == "text_delta")
    assert text == "Hello, **wörld** ☃!\n\nHow can I help?"
    (usage,) = [e for e in events if e["kind"] == "usage"]
    assert usage["cost"] == pytest.approx(0.0000684)
    requests = [m for m in messages if m["type"] == "http_request"]
    assert [r["url"] for r in requests] == ["https://openrouter.ai/api/v1/chat/completions"] * 2
    second = json.loads(requests[1]["body"])
    assert second["messages"][0]["role"] == "system" and second["messages"][-1]["role"] == "tool"
    flushes = [m for m in messages if m["type"] == "flush_request" and m["what"] == "state"]
    assert flushes and all(f["paths"] == ["current.sqlite"] for f in flushes)
    assert result["state_file_bytes"], "the state database was not written to /state/current.sqlite"
    timings = result["timings"]
    print(f"pyodide timings: {timings}")
    assert timings["ready_ms"] - timings["load_pyodide_ms"] < 15_000


CONFIG = {
    "type": "config",
    "provider": {"kind": "openrouter", "base_url": "https://openrouter.ai/api/v1", "has_key": True},
    "model": "openai/gpt-4o-mini",
    "permission_mode": "ask",
}


def test_a_reload_in_pyodide_brings_the_session_back(tmp_path: Path) -> None:
    """The adapter's part of a reload: /state/current.sqlite out after one run, back in before the next."""
    text = (STREAMS / "openrouter_text.sse").read_text()
    first = _run(
        tmp_path,
        {
            "timeout_ms": 90_000,
            "send": [CONFIG, {"type": "user_message", "text": "Remember this chat", "turn_id": "t1"}],
            "responses": [{"status": 200, "type": "text/event-stream", "body": text}],
            "until": "turn_finished",
        },
    )
    (opened,) = [
        m["event"] for m in first["received"] if m["type"] == "event" and m["event"]["kind"] == "session_opened"
    ]
    second = _run(
        tmp_path,
        {
            "timeout_ms": 90_000,
            "state": {"current.sqlite": first["state_file"]},
            "send": [CONFIG, {"type": "request", "id": "h1", "method": "session_current"}],
            "responses": [],
            "until": "reply:h1",
        },
    )
    (reply,) = [m for m in second["received"] if m["type"] == "reply"]
    assert reply["ok"], reply
    view = reply["result"]
    assert view["session"]["id"] == opened["session_id"] and view["session"]["title"] == "Remember this chat"
    assert [(m["role"], m["status"]) for m in view["messages"]] == [("user", "complete"), ("assistant", "complete")]
    assert view["messages"][1]["text"] == "Hello, **wörld** ☃!\n\nHow can I help?"


def test_a_boot_from_the_entry_s_snapshot_is_warm(tmp_path: Path) -> None:
    """runtime/pyodide_entry.py's warm_up, snapshotted and checked as the worker does: the runtime
    starts from it, answers a request, and imports none of its own modules on the way to ready."""
    result = _run(
        tmp_path,
        {
            "timeout_ms": 120_000,
            "snapshot": True,
            "send": [CONFIG, {"type": "request", "id": "h1", "method": "sessions_list"}],
            "responses": [],
            "until": "reply:h1",
        },
    )
    snapshot = result["snapshot"]
    assert snapshot["bytes"] > 0
    assert snapshot["imported_after"] == [], "read from the wheels after the snapshot, on the way to ready"
    (reply,) = [m for m in result["received"] if m["type"] == "reply"]
    assert reply["ok"], reply
    assert_imported_from_the_wheels(result["loaded_from"])


def assert_imported_from_the_wheels(loaded_from: dict[str, str | None]) -> None:
    """The wheels are zip files on sys.path (web/src/worker/wheels.ts), nothing unpacked; the vendored
    ones are imported from the bytecode they carry (scripts/precompile_wheels.mjs), not compiled here."""
    for name, file in loaded_from.items():
        assert file and file.startswith("/lib/wheels/") and ".whl/" in file, (name, file)
    for name in ("yaml", "sqlite_utils"):
        assert str(loaded_from[name]).endswith(".pyc"), loaded_from

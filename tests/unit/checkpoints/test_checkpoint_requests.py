"""Checkpoints through a real conversation: a turn's write is kept before it, listed, previewed,
restored, the restore undone, and all of it still there after a restart."""

from __future__ import annotations

from pathlib import Path

from tests.support.rigs import StateRig
from tests.support.scripted import call, says


async def _approved_turn(rig: StateRig, turn_id: str, path: str, text: str) -> None:
    rig.provider.rounds = [says("", call("save_note", {"path": path, "text": text}, f"c-{turn_id}")), says("Saved.")]
    rig.host.send({"type": "user_message", "text": "save", "turn_id": turn_id})
    await rig.host.wait_for(lambda: [e for e in rig.events("approval_needed") if e["turn_id"] == turn_id])
    rig.host.send({"type": "approval", "call_id": f"c-{turn_id}", "decision": "allow"})
    assert (await rig.finished(turn_id))["reason"] == "stop"


async def test_a_turn_is_restored_and_the_restore_undone_across_a_restart(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "old.md").write_text("before")
    rig = await StateRig(workspace, tmp_path / "state").start()
    try:
        await _approved_turn(rig, "t1", "old.md", "after")
        await _approved_turn(rig, "t2", "new.md", "made")
        listed = await rig.result("checkpoints_list")
        assert [(c["turn_id"], c["kind"], c["files"]) for c in listed["checkpoints"]] == [
            ("t1", "turn", ["old.md"]),
            ("t2", "turn", ["new.md"]),
        ]
        assert listed["total_bytes"] == len("before") and listed["limit_bytes"] == 200 * 1024 * 1024
        preview = await rig.result("checkpoint_preview", turn_id="t1")
        assert preview["files"] == [{"path": "old.md", "action": "restore", "size": 6, "current_size": 5}]

        restored = await rig.result("checkpoint_restore", turn_id="t1")
        assert restored["changed"] == ["old.md"] and (workspace / "old.md").read_text() == "before"
        flushed = [m["paths"] for m in rig.host.received if m["type"] == "flush_request" and m["what"] == "workspace"]
        assert "old.md" in flushed[-1]
    finally:
        await rig.stop()

    rig = await StateRig(workspace, tmp_path / "state").start()
    try:
        listed = await rig.result("checkpoints_list")
        undo = [c for c in listed["checkpoints"] if c["kind"] == "restore"]
        assert [(c["turn_id"], c["undoes"]) for c in undo] == [(restored["undo_id"], "t1")]
        await rig.result("checkpoint_restore", turn_id=restored["undo_id"])
        assert (workspace / "old.md").read_text() == "after"
        gone = await rig.result("checkpoint_restore", turn_id="t2")  # the turn created it: restoring deletes it
        assert gone["changed"] == ["new.md"] and not (workspace / "new.md").exists()
        missing = await rig.request("checkpoint_preview", turn_id="no-such-turn")
        assert not missing["ok"] and missing["error"]["code"] == "not_found"
    finally:
        await rig.stop()


async def test_the_bound_is_set_by_request_applied_at_once_and_kept_across_a_restart(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "a.md").write_text("a" * 100)
    (workspace / "b.md").write_text("b" * 100)
    rig = await StateRig(workspace, tmp_path / "state").start()
    try:
        await _approved_turn(rig, "t1", "a.md", "changed")
        await _approved_turn(rig, "t2", "b.md", "changed")
        assert (await rig.result("checkpoints_list"))["total_bytes"] == 200
        bad = await rig.request("checkpoints_limit", limit_bytes=-1)
        assert not bad["ok"] and bad["error"]["code"] == "bad_params"
        assert await rig.result("checkpoints_limit", limit_bytes=150) == {"limit_bytes": 150, "total_bytes": 100}
        flushed = [m["paths"] for m in rig.host.received if m["type"] == "flush_request" and m["what"] == "workspace"]
        assert ".agent/checkpoints/settings.json" in flushed[-1]
    finally:
        await rig.stop()
    rig = await StateRig(workspace, tmp_path / "state").start()
    try:
        listed = await rig.result("checkpoints_list")
        assert [c["turn_id"] for c in listed["checkpoints"]] == ["t2"] and listed["limit_bytes"] == 150
    finally:
        await rig.stop()


async def test_a_files_panel_change_is_kept_first_and_restored_by_its_id(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "notes.md").write_text("earlier")
    rig = await StateRig(workspace, tmp_path / "state").start()
    try:
        bad = await rig.request("checkpoint_keep", paths=[])
        assert not bad["ok"] and bad["error"]["code"] == "bad_params"
        kept = await rig.result("checkpoint_keep", paths=["notes.md", "upload.txt"])
        assert kept["turn_id"] and kept["turn_id"].startswith("files-")
        (workspace / "notes.md").write_text("uploaded over it")  # what the Files panel then does
        (workspace / "upload.txt").write_text("new")
        listed = await rig.result("checkpoints_list")
        assert [(c["kind"], c["files"]) for c in listed["checkpoints"]] == [("files", ["notes.md", "upload.txt"])]
        restored = await rig.result("checkpoint_restore", turn_id=kept["turn_id"])
        assert sorted(restored["changed"]) == ["notes.md", "upload.txt"]
        assert (workspace / "notes.md").read_text() == "earlier" and not (workspace / "upload.txt").exists()
        await rig.result("checkpoints_limit", limit_bytes=0)
        assert (await rig.result("checkpoint_keep", paths=["notes.md"])) == {"turn_id": None}
    finally:
        await rig.stop()

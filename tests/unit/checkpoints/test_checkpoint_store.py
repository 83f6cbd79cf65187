"""The checkpoint store: content-addressed blobs, one keep per path per turn, bounds, restore and its undo."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from runtime.checkpoints.index import turn_path
from runtime.checkpoints.store import BLOBS_DIR, INDEX, TURNS_DIR, CheckpointStore
from runtime.tools.base import ToolError


def _write(root: Path, rel: str, data: bytes) -> None:
    (root / rel).parent.mkdir(parents=True, exist_ok=True)
    (root / rel).write_bytes(data)


def test_keep_records_content_and_absence_and_saves_each_blob_once(tmp_path: Path) -> None:
    _write(tmp_path, "a.txt", b"same")
    _write(tmp_path, "b/c.txt", b"same")
    store = CheckpointStore(tmp_path)
    written = store.keep("t1", "s1", ["a.txt", "b/c.txt", "new.txt"])
    [checkpoint] = store.load()
    assert checkpoint.files["new.txt"] is None
    assert checkpoint.files["a.txt"] == checkpoint.files["b/c.txt"]
    blobs = [p for p in written if p.startswith(BLOBS_DIR)]
    assert len(blobs) == 1 and turn_path("t1") in written
    assert store.total_bytes() == 4
    store.keep("t2", "s1", ["a.txt"])  # a later turn keeping the same bytes stores nothing new
    assert store.total_bytes() == 4


def test_only_the_first_state_of_a_path_in_a_turn_is_kept(tmp_path: Path) -> None:
    _write(tmp_path, "a.txt", b"before")
    store = CheckpointStore(tmp_path)
    store.keep("t1", "s1", ["a.txt"])
    _write(tmp_path, "a.txt", b"after the first write")
    assert store.keep("t1", "s1", ["a.txt"]) == []
    _write(tmp_path, "a.txt", b"after the second write")
    store.restore("t1", "r1", "s1")
    assert (tmp_path / "a.txt").read_bytes() == b"before"


def test_internal_folders_and_refused_paths_are_never_kept(tmp_path: Path) -> None:
    _write(tmp_path, ".agent/results/x.txt", b"spilled")
    store = CheckpointStore(tmp_path)
    assert store.keep("t1", "s1", [".agent/results/x.txt", "../outside", "/etc/passwd"]) == []
    assert store.load() == []


def test_a_folder_keeps_every_file_below_it(tmp_path: Path) -> None:
    _write(tmp_path, "d/one.txt", b"1")
    _write(tmp_path, "d/e/two.txt", b"2")
    store = CheckpointStore(tmp_path)
    store.keep("t1", "s1", ["d"])
    assert sorted(store.get("t1").files) == ["d/e/two.txt", "d/one.txt"]


def test_restore_puts_back_deletes_created_files_and_is_undoable(tmp_path: Path) -> None:
    _write(tmp_path, "edit.txt", b"old text\n")
    store = CheckpointStore(tmp_path)
    store.keep("t1", "s1", ["edit.txt", "made.txt"])
    _write(tmp_path, "edit.txt", b"new text\n")
    _write(tmp_path, "made.txt", b"created by the turn")
    preview = {f.path: (f.action, f.size, f.current_size) for f in store.preview("t1")}
    assert preview == {"edit.txt": ("restore", 9, 9), "made.txt": ("delete", 0, 19)}

    changed, hidden = store.restore("t1", "undo1", "s1")
    assert sorted(changed) == ["edit.txt", "made.txt"] and turn_path("undo1") in hidden
    assert (tmp_path / "edit.txt").read_bytes() == b"old text\n"
    assert not (tmp_path / "made.txt").exists()
    undo = store.get("undo1")
    assert undo.kind == "restore" and undo.undoes == "t1"

    store.restore("undo1", "undo2", "s1")  # undo the restore: the turn's changes are back
    assert (tmp_path / "edit.txt").read_bytes() == b"new text\n"
    assert (tmp_path / "made.txt").read_bytes() == b"created by the turn"


def test_the_oldest_checkpoints_are_dropped_to_stay_in_bounds(tmp_path: Path) -> None:
    store = CheckpointStore(tmp_path, limit_bytes=250)
    for i in range(5):
        _write(tmp_path, f"f{i}.bin", bytes([i]) * 100)
        store.keep(f"t{i}", "s1", [f"f{i}.bin"])
    kept = [c.turn_id for c in store.load()]
    assert kept == ["t3", "t4"]
    assert store.total_bytes() == 200
    with pytest.raises(ToolError, match="no checkpoint"):
        store.preview("t0")


def test_a_shared_blob_outlives_the_dropped_checkpoint_that_named_it(tmp_path: Path) -> None:
    store = CheckpointStore(tmp_path, limit_bytes=250)
    _write(tmp_path, "shared.bin", b"s" * 100)
    _write(tmp_path, "x.bin", b"x" * 100)
    store.keep("t0", "s1", ["shared.bin", "x.bin"])
    store.keep("t1", "s1", ["shared.bin"])
    _write(tmp_path, "y.bin", b"y" * 100)
    store.keep("t2", "s1", ["y.bin"])  # 300 bytes: t0 goes, and only the blob no one else names
    assert [c.turn_id for c in store.load()] == ["t1", "t2"]
    assert store.total_bytes() == 200
    _write(tmp_path, "shared.bin", b"changed")
    store.restore("t1", "r1", "s1")
    assert (tmp_path / "shared.bin").read_bytes() == b"s" * 100


def test_a_damaged_index_starts_over_and_a_missing_blob_refuses_the_restore(tmp_path: Path) -> None:
    (tmp_path / INDEX).parent.mkdir(parents=True)
    (tmp_path / INDEX).write_text("{not json", encoding="utf-8")
    (tmp_path / TURNS_DIR).mkdir()
    (tmp_path / TURNS_DIR / "bad.json").write_text("[1,", encoding="utf-8")
    store = CheckpointStore(tmp_path)
    assert store.load() == []
    _write(tmp_path, "a.txt", b"before")
    store.keep("t1", "s1", ["a.txt"])
    for blob in (tmp_path / BLOBS_DIR).iterdir():
        blob.unlink()
    _write(tmp_path, "a.txt", b"after")
    with pytest.raises(ToolError, match="damaged"):
        store.restore("t1", "r1", "s1")
    assert (tmp_path / "a.txt").read_bytes() == b"after"


def test_each_checkpoint_is_its_own_file_and_keeping_one_writes_only_that_file(tmp_path: Path) -> None:
    store = CheckpointStore(tmp_path)
    for i in range(30):
        _write(tmp_path, f"f{i}.txt", f"v{i}".encode())
        store.keep(f"t{i}", "s1", [f"f{i}.txt"])
    _write(tmp_path, "late.txt", b"late")
    written = store.keep("t30", "s1", ["late.txt"])
    assert sorted(written) == sorted([turn_path("t30"), f"{BLOBS_DIR}/{store.get('t30').files['late.txt']}"])
    assert [c.turn_id for c in store.load()] == [f"t{i}" for i in range(31)]
    odd = store.keep("a/b turn", "s1", ["f0.txt"])  # an id that is no file name gets a hashed one
    assert odd == [turn_path("a/b turn")] and store.get("a/b turn").files == {"f0.txt": store.get("t0").files["f0.txt"]}


def test_the_older_single_index_is_read_then_moved_into_one_file_per_checkpoint(tmp_path: Path) -> None:
    _write(tmp_path, "a.txt", b"before")
    store = CheckpointStore(tmp_path)
    store.keep("t1", "s1", ["a.txt"])
    old = json.loads((tmp_path / turn_path("t1")).read_text())
    (tmp_path / turn_path("t1")).unlink()
    entries = [
        {**old, "created": old["created"] - 2},
        {**old, "turn_id": "t2", "created": old["created"] - 1, "files": {"gone.txt": None}},
    ]
    (tmp_path / INDEX).write_text(json.dumps({"version": 1, "checkpoints": entries}), encoding="utf-8")
    assert [c.turn_id for c in store.load()] == ["t1", "t2"] and store.get("t2").files == {"gone.txt": None}
    _write(tmp_path, "a.txt", b"after")
    _write(tmp_path, "b.txt", b"b")
    written = store.keep("t3", "s1", ["b.txt"])  # the first write moves the old index
    assert INDEX in written and turn_path("t1") in written and not (tmp_path / INDEX).exists()
    assert [c.turn_id for c in store.load()] == ["t1", "t2", "t3"]
    store.restore("t1", "r1", "s1")
    assert (tmp_path / "a.txt").read_bytes() == b"before"


def test_the_limit_is_a_setting_applied_when_lowered_and_zero_keeps_none(tmp_path: Path) -> None:
    store = CheckpointStore(tmp_path)
    assert store.limit_bytes == 200 * 1024 * 1024
    for i in range(4):
        _write(tmp_path, f"f{i}.bin", bytes([i]) * 100)
        store.keep(f"t{i}", "s1", [f"f{i}.bin"])
    removed = store.set_limit(250)
    assert [c.turn_id for c in store.load()] == ["t2", "t3"] and store.total_bytes() == 200
    assert turn_path("t0") in removed and CheckpointStore(tmp_path).limit_bytes == 250  # kept for the next reader
    store.set_limit(0)
    assert store.load() == [] and store.total_bytes() == 0
    _write(tmp_path, "f9.bin", b"x")
    assert store.keep("t9", "s1", ["f9.bin"]) == [] and store.load() == []

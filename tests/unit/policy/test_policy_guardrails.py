"""Guardrails: the third identical failing call trips; results over the inline cap spill to a file."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from runtime.policy.guardrails import INLINE_CAP_BYTES, RepeatedFailures, Spilled, result_file_name, spill

Outcome = tuple[str, dict[str, Any], bool]
FAIL_A: Outcome = ("read_file", {"path": "a", "limit": 5}, False)
FAIL_A_REORDERED: Outcome = ("read_file", {"limit": 5, "path": "a"}, False)
FAIL_B: Outcome = ("read_file", {"path": "b"}, False)
OK_A: Outcome = ("read_file", {"path": "a", "limit": 5}, True)
FAIL_OTHER_TOOL: Outcome = ("list_files", {"path": "a", "limit": 5}, False)


@pytest.mark.parametrize(
    ("outcomes", "trips_at"),
    [
        pytest.param([FAIL_A, FAIL_A, FAIL_A], 2, id="third-identical-failure"),
        pytest.param([FAIL_A, FAIL_A_REORDERED, FAIL_A], 2, id="argument-order-does-not-matter"),
        pytest.param([FAIL_A, FAIL_B, FAIL_A, FAIL_B, FAIL_A], 4, id="interleaved-still-counts"),
        pytest.param([FAIL_A, FAIL_A, OK_A, FAIL_A, FAIL_A], None, id="success-clears"),
        pytest.param([FAIL_A, FAIL_A, FAIL_OTHER_TOOL, FAIL_B], None, id="different-calls"),
        pytest.param([OK_A, OK_A, OK_A], None, id="successes-never-trip"),
    ],
)
def test_repeated_failures(outcomes: list[Outcome], trips_at: int | None) -> None:
    guard = RepeatedFailures()
    tripped = [i for i, (name, args, ok) in enumerate(outcomes) if guard.record(name, args, ok)]
    assert tripped == ([] if trips_at is None else [trips_at])


def test_tripping_says_what_to_do_and_blocks_until_reset() -> None:
    guard = RepeatedFailures(limit=3)
    name, args, _ = FAIL_A
    assert guard.record(name, args, False) is None
    assert guard.record(name, args, False) is None
    assert not guard.blocked(name, args)
    tripped = guard.record(name, args, False)
    assert tripped is not None and tripped.count == 3 and tripped.name == "read_file"
    assert "failed 3 times" in tripped.message and "Do not call it again" in tripped.message
    assert guard.blocked(name, args) and guard.failures(name, args) == 3
    guard.reset()
    assert not guard.blocked(name, args)


def test_small_results_stay_inline(tmp_path: Path) -> None:
    text = "x" * INLINE_CAP_BYTES
    assert spill(tmp_path, "call_1", text) == Spilled(text, None)
    assert not (tmp_path / ".agent").exists()


@pytest.mark.parametrize(
    ("text", "head_shown"),
    [
        pytest.param("".join(f"line {i}\n" for i in range(5000)), "line 0\nline 1\n", id="ascii"),
        pytest.param("é" * 20_000, "éé", id="multibyte-cut-on-a-character"),
    ],
)
def test_big_results_spill_to_a_file(tmp_path: Path, text: str, head_shown: str) -> None:
    result = spill(tmp_path, "call_abc", text, head=4096)
    assert result.path == ".agent/results/call_abc.txt"
    assert (tmp_path / result.path).read_text() == text
    note, _, head = result.text.partition("\n")
    assert f"{len(text.encode()):,} bytes" in note and ".agent/results/call_abc.txt" in note
    assert head.startswith(head_shown) and text.startswith(head)
    assert len(head.encode()) <= 4096 and len(result.text.encode()) < 5000


@pytest.mark.parametrize(
    ("call_id", "expected"),
    [
        pytest.param("call_Xy-9", "call_Xy-9.txt", id="plain"),
        pytest.param("../../etc/passwd", "call-", id="traversal-hashed"),
        pytest.param("a b", "call-", id="space-hashed"),
        pytest.param("", "call-", id="empty-hashed"),
    ],
)
def test_result_file_names_are_safe(call_id: str, expected: str) -> None:
    name = result_file_name(call_id)
    assert name.startswith(expected) and name.endswith(".txt") and "/" not in name


def test_spill_refuses_a_results_folder_linked_out(tmp_path: Path) -> None:
    ws, outside = tmp_path / "ws", tmp_path / "outside"
    ws.mkdir()
    outside.mkdir()
    (ws / ".agent").symlink_to(outside, target_is_directory=True)
    result = spill(ws, "c1", "y" * (INLINE_CAP_BYTES + 1))
    assert result.path is None
    assert "could not be saved" in result.text
    assert list(outside.iterdir()) == []

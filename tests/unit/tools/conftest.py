"""A temporary workspace with files, a binary, and links out of it; a fake context on it."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.unit.tools.support import FakeContext


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    """``ws/`` with a few files; ``outside/secret.txt`` next to it, reachable only through links."""
    ws = tmp_path / "ws"
    (ws / "notes").mkdir(parents=True)
    (ws / "notes" / "a.md").write_text("# A\nalpha line\nbeta line\n")
    (ws / "notes" / "b.txt").write_text("just b\n")
    (ws / "hello.py").write_text("print('hello')\n")
    (ws / "image.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)))
    (ws / "empty").mkdir()
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("top secret\n")
    (ws / "link_out").symlink_to(outside / "secret.txt")
    (ws / "dir_out").symlink_to(outside, target_is_directory=True)
    (ws / "link_in").symlink_to(ws / "notes" / "b.txt")
    return ws


@pytest.fixture
def ctx(workspace: Path) -> FakeContext:
    return FakeContext(workspace)

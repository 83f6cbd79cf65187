"""A workspace that already holds an installed skill and other files, for before/after comparisons."""

from __future__ import annotations

from pathlib import Path

import pytest

from runtime.skills.importer import import_archive
from tests.skill_archives import ARCHIVES


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    (ws / "notes").mkdir(parents=True)
    (ws / "notes" / "todo.md").write_text("- write tests\n")
    return ws


@pytest.fixture
def populated(workspace: Path) -> Path:
    """The workspace with brand-guidelines installed."""
    report = import_archive(ARCHIVES["brand-guidelines.zip"].data, workspace, filename="brand-guidelines.zip")
    assert report.state == "ok", report
    return workspace

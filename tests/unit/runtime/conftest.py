"""The conversation rig most runtime tests drive: a ``StateRig`` with a workspace and a state directory.

Modules that need another rig (a different provider, tool set or no state) define their own ``rig``
fixture, which takes the place of this one there."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tests.support.rigs import StateRig


@pytest.fixture
async def rig(tmp_path: Path) -> AsyncIterator[StateRig]:
    """A started conversation: workspace ``tmp_path/ws``, state ``tmp_path/state``; stopped after the test."""
    workspace = tmp_path / "ws"
    workspace.mkdir()
    started = await StateRig(workspace, tmp_path / "state").start()
    yield started
    await started.stop()

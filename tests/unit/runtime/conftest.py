"""The conversation rig most runtime tests drive: a ``StateRig`` with a workspace and a state directory;
and the ``host`` the provider tests talk to.

Modules that need another rig or host (a different provider, tool set or no state) define their own
fixture of that name, which takes the place of this one there."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from runtime.providers import known_models
from tests.support.framehost import FrameHost
from tests.support.rigs import StateRig


@pytest.fixture
async def rig(tmp_path: Path) -> AsyncIterator[StateRig]:
    """A started conversation: workspace ``tmp_path/ws``, state ``tmp_path/state``; stopped after the test."""
    workspace = tmp_path / "ws"
    workspace.mkdir()
    started = await StateRig(workspace, tmp_path / "state").start()
    yield started
    await started.stop()


@pytest.fixture
async def host() -> AsyncIterator[FrameHost]:
    """A frame host for one provider; what providers learned of models is forgotten before and after."""
    known_models.forget_all()
    h = FrameHost()
    yield h
    await h.close()
    known_models.forget_all()

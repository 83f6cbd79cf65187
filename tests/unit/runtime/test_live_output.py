"""run_python's output as it comes: the host's ``exec_output`` frames become ``tool_output`` events of
that call, bounded, before its ``tool_finished``; output nobody waits for is dropped."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from runtime.agent.live_output import LIVE_OUTPUT_CHARS
from runtime.tools import python
from runtime.tools.registry import Registry
from tests.support import rigs
from tests.support.rigs import StateRig
from tests.support.scripted import call, says


@pytest.fixture
async def rig(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[StateRig]:
    monkeypatch.setattr(rigs, "registry", lambda: Registry([python.run_python]))
    workspace = tmp_path / "ws"
    workspace.mkdir()
    r = await StateRig(workspace, tmp_path / "state").start()
    r.host.send({"type": "config", "permission_mode": "full-auto"})
    yield r
    await r.stop()


async def _exec_request(rig: StateRig) -> dict[str, Any]:
    found = await rig.host.wait_for(lambda: [m for m in rig.host.received if m["type"] == "exec_request"])
    return found[0]  # type: ignore[no-any-return]


def _outputs(rig: StateRig) -> list[dict[str, Any]]:
    return rig.events("tool_output")


async def test_output_reaches_the_calls_card_as_it_comes(rig: StateRig) -> None:
    rig.provider.rounds = [says("", call("run_python", {"code": "print(1)"}, "c1")), says("Done.")]
    rig.host.send({"type": "user_message", "text": "count", "turn_id": "t1"})
    request = await _exec_request(rig)
    rig.host.send({"type": "exec_output", "id": request["id"], "stream": "stdout", "text": "1\n"})
    await rig.host.wait_for(lambda: _outputs(rig))
    assert not rig.events("tool_finished"), "the output is shown while the call still runs"
    rig.host.send({"type": "exec_output", "id": request["id"], "stream": "stderr", "text": "warning\n"})
    rig.host.send({"type": "exec_output", "id": "r999", "stream": "stdout", "text": "not ours"})
    rig.host.send(
        {"type": "exec_result", "id": request["id"], "ok": True, "stdout": "1\n", "stderr": "warning\n", "files": {}}
    )
    await rig.finished("t1")
    assert [(e["call_id"], e["turn_id"], e["stream"], e["text"]) for e in _outputs(rig)] == [
        ("c1", "t1", "stdout", "1\n"),
        ("c1", "t1", "stderr", "warning\n"),
    ]


async def test_live_output_is_bounded(rig: StateRig) -> None:
    rig.provider.rounds = [says("", call("run_python", {"code": "loop"}, "c1")), says("Done.")]
    rig.host.send({"type": "user_message", "text": "flood", "turn_id": "t1"})
    request = await _exec_request(rig)
    piece = "x" * 10_000
    for _ in range(LIVE_OUTPUT_CHARS // len(piece) + 5):
        rig.host.send({"type": "exec_output", "id": request["id"], "stream": "stdout", "text": piece})
    rig.host.send({"type": "exec_result", "id": request["id"], "ok": True, "stdout": "", "stderr": "", "files": {}})
    await rig.finished("t1")
    shown = "".join(e["text"] for e in _outputs(rig))
    assert shown.count("x") == LIVE_OUTPUT_CHARS
    assert shown.endswith("comes with the result]\n")

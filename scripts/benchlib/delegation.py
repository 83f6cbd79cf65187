"""The overhead of a delegated child turn: the same work (one tool call, then an answer) as a child of the
chat (the ``delegate`` call, tool_started → tool_finished) and as the chat's own turn (turn_started →
turn_finished), in one conversation, in-process under CPython. The scripted model answers at once, so
model time is excluded: what is left is the runtime's part (profile check, child session, prompt, store
steps, result)."""

from __future__ import annotations

import asyncio
import tempfile
import time
from pathlib import Path
from typing import Any

from .common import Row, Samples

PROFILE = "---\nname: reader\ndescription: Looks things up.\ntools: lookup\n---\nYou look things up.\n"


def measure_delegation(runs: int = 3) -> list[Row]:
    base, child = asyncio.run(_measure(runs * 10))
    return [
        Row("a delegated child turn (one call, an answer; model time excluded; CPython)",
            "the same turn in the chat", Samples(base), Samples(child), "median", "≤ 1.1 ×",
            note="the child's own session, prompt, ledger and saves; the parent's delegate round not counted"),
    ]  # fmt: skip


async def _measure(rounds: int) -> tuple[list[float], list[float]]:
    from runtime.tools import delegate
    from runtime.tools.registry import Registry
    from tests.support import rigs
    from tests.support.rigs import StateRig
    from tests.support.scripted import call, says

    with tempfile.TemporaryDirectory() as tmp:
        workspace = Path(tmp) / "ws"
        (workspace / ".agents" / "agents").mkdir(parents=True)
        (workspace / ".agents" / "agents" / "reader.md").write_text(PROFILE)
        rig = StateRig(workspace, Path(tmp) / "state", tools=lambda: Registry([*rigs.registry(), *delegate.TOOLS]))
        await rig.start()
        stamps = _stamped(rig)
        base: list[float] = []
        child: list[float] = []
        try:
            for i in range(rounds + 2):  # the first two warm up
                rig.provider.rounds = [says("", call("lookup", {"key": "k"}, f"b{i}")), says("The answer.")]
                await rig.turn("look it up", f"tb{i}")
                b = _between(rig, stamps, ("turn_started", "turn_id", f"tb{i}"), ("turn_finished", "turn_id", f"tb{i}"))
                rig.provider.rounds = [
                    says("", call("delegate", {"agent": "reader", "task": "look it up"}, f"d{i}")),
                    says("", call("lookup", {"key": "k"}, f"c{i}")),
                    says("The answer."),
                    says("Done."),
                ]
                await rig.turn("delegate it", f"td{i}")
                c = _between(rig, stamps, ("tool_started", "call_id", f"d{i}"), ("tool_finished", "call_id", f"d{i}"))
                if i >= 2:
                    base.append(b)
                    child.append(c)
        finally:
            await rig.stop()
    return base, child


def _stamped(rig: Any) -> list[float]:
    """The time each frame the runtime wrote arrived, by its index in ``rig.host.received``."""
    stamps: list[float] = []
    received = rig.host.received

    class Stamped(list):  # type: ignore[type-arg]
        def append(self, item: Any) -> None:
            stamps.append(time.perf_counter() * 1000)
            super().append(item)

    rig.host.received = Stamped(received)
    stamps.extend([0.0] * len(received))
    return stamps


def _between(rig: Any, stamps: list[float], start: tuple[str, str, str], end: tuple[str, str, str]) -> float:
    def at(kind: str, key: str, value: str) -> float:
        for index, message in enumerate(rig.host.received):
            event = message.get("event") if message.get("type") == "event" else None
            if event and event["kind"] == kind and event.get(key) == value:
                return stamps[index]
        raise AssertionError(f"no {kind} with {key}={value}")

    return at(*end) - at(*start)

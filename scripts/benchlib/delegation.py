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


class _Host:
    """The adapter's part, in-process: it answers every save at once and stamps each event as it comes."""

    def __init__(self) -> None:
        from runtime.host.codec import Decoder
        from runtime.host.transport import FeedTransport

        self.transport = FeedTransport(self._from_runtime)
        self._decoder = Decoder()
        self.events: list[tuple[float, dict[str, Any]]] = []
        self.changed = asyncio.Event()

    def send(self, message: dict[str, Any]) -> None:
        from runtime.host.codec import encode

        self.transport.received(encode(message))

    def _from_runtime(self, data: bytes) -> None:
        for item in self._decoder.feed(data):
            message = item.message
            if message["type"] == "event":
                self.events.append((time.perf_counter() * 1000, message["event"]))
            elif message["type"] == "flush_request":
                reply = {"type": "reply", "id": message["id"], "ok": True, "result": {}}
                asyncio.get_running_loop().call_soon(self.send, reply)
        self.changed.set()

    async def wait(self, kind: str, key: str, value: str) -> float:
        while True:
            found = [t for t, e in self.events if e["kind"] == kind and e.get(key) == value]
            if found:
                return found[0]
            self.changed.clear()
            await asyncio.wait_for(self.changed.wait(), 30)


class _Instant:
    """A model that answers each request at once with the next scripted round."""

    kind = "instant"

    def __init__(self) -> None:
        self.rounds: list[Any] = []

    async def stream_chat(self, messages: Any, tools: Any, model: str) -> Any:
        from runtime.providers.base import Finished, TextDelta, UsageReport

        text, calls = self.rounds.pop(0)
        if text:
            yield TextDelta(text)
        yield UsageReport(10, 5, 15, None)
        yield Finished("tool_calls" if calls else "stop", text, calls)

    async def list_models(self) -> list[Any]:
        return []


async def _measure(rounds: int) -> tuple[list[float], list[float]]:
    import json

    from runtime.boot import BootConfig, boot
    from runtime.chat.messages import ToolCall
    from runtime.providers.registry import ProviderRegistry
    from runtime.tools import delegate
    from runtime.tools.base import tool
    from runtime.tools.registry import Registry

    @tool("read")
    def lookup(key: str) -> str:
        """Look a key up."""
        return f"value-of-{key}"

    def call(name: str, arguments: dict[str, Any], call_id: str) -> tuple[str, tuple[ToolCall, ...]]:
        return "", (ToolCall(call_id, name, json.dumps(arguments)),)

    model = _Instant()
    providers = ProviderRegistry()
    providers.register("instant", lambda settings, http: model)
    host = _Host()
    with tempfile.TemporaryDirectory() as tmp:
        workspace = Path(tmp) / "ws"
        (workspace / ".agents" / "agents").mkdir(parents=True)
        (workspace / ".agents" / "agents" / "reader.md").write_text(PROFILE)
        tools = lambda: Registry([lookup, *delegate.TOOLS])  # noqa: E731
        config = BootConfig(workspace=workspace, tools=tools, providers=lambda: providers, state_dir=Path(tmp) / "s")
        conversation = boot(config, host.transport)
        running = asyncio.get_running_loop().create_task(conversation.run())
        host.send({"type": "hello", "protocol": 1, "capabilities": ["http", "flush"]})
        provider = {"kind": "instant", "base_url": "", "has_key": False}
        host.send({"type": "config", "provider": provider, "model": "m", "permission_mode": "ask"})
        await host.wait("session_opened", "kind", "session_opened")
        base: list[float] = []
        child: list[float] = []
        for i in range(rounds + 2):  # the first two warm up
            model.rounds = [call("lookup", {"key": "k"}, f"b{i}"), ("The answer.", ())]
            host.send({"type": "user_message", "text": "look it up", "turn_id": f"tb{i}"})
            b = await host.wait("turn_finished", "turn_id", f"tb{i}") - await host.wait(
                "turn_started", "turn_id", f"tb{i}"
            )
            model.rounds = [
                call("delegate", {"agent": "reader", "task": "look it up"}, f"d{i}"),
                call("lookup", {"key": "k"}, f"c{i}"),
                ("The answer.", ()),
                ("Done.", ()),
            ]
            host.send({"type": "user_message", "text": "delegate it", "turn_id": f"td{i}"})
            await host.wait("turn_finished", "turn_id", f"td{i}")
            c = await host.wait("tool_finished", "call_id", f"d{i}") - await host.wait(
                "tool_started", "call_id", f"d{i}"
            )
            if i >= 2:
                base.append(b)
                child.append(c)
        await host.transport.close()
        await asyncio.wait_for(running, 10)
    return base, child

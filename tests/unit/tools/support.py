"""A test double of the ToolContext protocol, and a helper that calls a tool through its definition.

The context is the host boundary (the frames to the adapter), not our code: its ``fetch`` answers with
canned responses and its ``host_request`` with scripted replies, and both record what they were asked.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from runtime.host.workspace_fetch import OnDemand
from runtime.tools.base import ToolDefinition


@dataclass
class CannedResponse:
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    body: bytes = b""


@dataclass
class FakeContext:
    root: Path
    responses: dict[str, CannedResponse] = field(default_factory=dict)
    replies: list[dict[str, Any] | Callable[[dict[str, Any]], dict[str, Any]]] = field(default_factory=list)
    fetch_error: Exception | None = None
    fetched: list[dict[str, Any]] = field(default_factory=list)
    requested: list[tuple[str, dict[str, Any], float]] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)  # what the tool asked to keep before changing it
    lister: OnDemand = field(default_factory=OnDemand.present)  # a ListingHost's, for a workspace on demand

    @property
    def workspace(self) -> Path:
        return self.root

    @property
    def on_demand(self) -> OnDemand:
        return self.lister

    async def fetch(
        self,
        url: str,
        *,
        method: str = "GET",
        headers: dict[str, str] | None = None,
        body: str | None = None,
        timeout_s: float = 30.0,
        max_bytes: int = 5_000_000,
    ) -> CannedResponse:
        self.fetched.append({"url": url, "method": method, "timeout_s": timeout_s, "max_bytes": max_bytes})
        if self.fetch_error is not None:
            raise self.fetch_error
        return self.responses.get(url, CannedResponse(404, {"content-type": "text/plain"}, b"not found"))

    async def keep_before(self, paths: Any) -> None:
        self.kept.extend(paths)

    async def host_request(self, type: str, payload: dict[str, Any], timeout_s: float = 60.0) -> dict[str, Any]:
        self.requested.append((type, payload, timeout_s))
        reply = self.replies.pop(0)
        return reply(payload) if callable(reply) else reply


async def call(tool: ToolDefinition, ctx: FakeContext, **arguments: Any) -> Any:
    """Run a tool the way the loop does: what it declares it uses listed, then through its definition."""
    await ctx.on_demand.reach(tool.reach(arguments))
    return await tool.call(ctx, arguments)


def unwrapped(text: str, kind: str = "file") -> str:
    """The outside text inside a tool result's ``<untrusted_content>`` wrapper (which must be there),
    with anything the tool added after the wrapper's note kept on the end."""
    from runtime.tools.untrusted import NOTES

    head, rest = text.split("\n", 1)
    assert head.startswith("<untrusted_content source=") and head.endswith(f' kind="{kind}">'), text[:200]
    inner, after = rest.split(f"\n</untrusted_content>\n{NOTES[kind]}", 1)  # type: ignore[index]
    return inner + after

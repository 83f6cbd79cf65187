"""Pending approvals: a tool call waits here until the person answers ``approval_needed``."""

from __future__ import annotations

import asyncio
import logging

from runtime.host.messages import Decision

log = logging.getLogger(__name__)


class Approvals:
    def __init__(self) -> None:
        self._waiting: dict[str, asyncio.Future[Decision]] = {}

    async def wait(self, call_id: str) -> Decision:
        future: asyncio.Future[Decision] = asyncio.get_running_loop().create_future()
        self._waiting[call_id] = future
        try:
            return await future
        finally:
            self._waiting.pop(call_id, None)

    def resolve(self, call_id: str, decision: Decision) -> bool:
        """Deliver a decision; ``False`` when no call is waiting under that id."""
        future = self._waiting.get(call_id)
        if future is None or future.done():
            log.warning("an approval for %r, which is not waiting", call_id)
            return False
        future.set_result(decision)
        return True

    def pending(self) -> list[str]:
        return list(self._waiting)

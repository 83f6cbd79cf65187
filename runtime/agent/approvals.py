"""Pending approvals: a tool call waits here until the person answers ``approval_needed``.

A resumed turn (after a reload) asks again for calls the person may already be answering from the
session view, so an answer for an ``expect``-ed call that arrives before the call waits is kept.
"""

from __future__ import annotations

import asyncio
import logging

from runtime.host.messages import Decision

log = logging.getLogger(__name__)


class Approvals:
    def __init__(self) -> None:
        self._waiting: dict[str, asyncio.Future[Decision]] = {}
        self._expected: set[str] = set()
        self._early: dict[str, Decision] = {}

    def expect(self, call_ids: frozenset[str]) -> None:
        self._expected |= call_ids

    async def wait(self, call_id: str) -> Decision:
        if call_id in self._waiting:  # one answer must never decide two calls: the second is refused
            log.warning("a second call waits under the id %r; denied", call_id)
            return "deny"
        self._expected.discard(call_id)
        early = self._early.pop(call_id, None)
        if early is not None:
            return early
        future: asyncio.Future[Decision] = asyncio.get_running_loop().create_future()
        self._waiting[call_id] = future
        try:
            return await future
        finally:
            self._waiting.pop(call_id, None)

    def resolve(self, call_id: str, decision: Decision) -> bool:
        """Deliver a decision; ``False`` when no call is waiting (or expected) under that id."""
        future = self._waiting.get(call_id)
        if future is None or future.done():
            if call_id in self._expected:
                self._early[call_id] = decision
                return True
            log.warning("an approval for %r, which is not waiting", call_id)
            return False
        future.set_result(decision)
        return True

    def pending(self) -> list[str]:
        return list(self._waiting)

    def clear(self) -> None:
        """The session changed: answers expected for the old one no longer apply."""
        self._expected.clear()
        self._early.clear()

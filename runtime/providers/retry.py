"""Bounded retries for provider calls: only before any output, only for retryable errors."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Any

from runtime.errors import ProviderError
from runtime.providers.base import Retrying, StreamEvent

log = logging.getLogger(__name__)
Sleep = Callable[[float], Any]


@dataclass(frozen=True)
class RetryPolicy:
    attempts: int = 3
    base_delay_s: float = 1.0
    max_delay_s: float = 20.0

    def delay(self, attempt: int, error: ProviderError) -> float | None:
        """Seconds to wait before attempt ``attempt + 1`` (0-based), or ``None`` to give up."""
        if not error.retryable or attempt + 1 >= self.attempts:
            return None
        if error.retry_after is not None:
            return min(error.retry_after, self.max_delay_s * 3)
        return min(self.base_delay_s * 2.0**attempt, self.max_delay_s)


async def with_retries(
    once: Callable[[], AsyncIterator[StreamEvent]], policy: RetryPolicy, sleep: Sleep, name: str
) -> AsyncIterator[StreamEvent]:
    """Stream ``once()``; while it failed before producing anything, announce the wait, wait, try again."""
    attempt = 0
    while True:
        emitted = False
        try:
            async for event in once():
                emitted = True
                yield event
            return
        except ProviderError as exc:
            delay = None if emitted else policy.delay(attempt, exc)
            if delay is None:
                raise
            log.info("%s: %s; retrying in %.1f s", name, exc.code, delay)
            yield Retrying(delay, exc.code, exc.message)
            await sleep(delay)
            attempt += 1

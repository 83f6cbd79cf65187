"""Bounded retries for provider calls: only before any output, only for retryable errors."""

from __future__ import annotations

from dataclasses import dataclass

from runtime.errors import ProviderError


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

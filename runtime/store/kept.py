"""``Kept``: values kept for the next ask, bounded, the least recently used dropped first.

For work that is asked for again and again with the same inputs (a turn's every round decodes its stored
messages and estimates its view; a prompt, its tool schemas and the skills panel each read the catalog).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class Kept(Generic[K, V]):
    """At most ``limit`` of ``weight`` (1 a value unless given), the least recently used dropped first."""

    def __init__(self, limit: int, weight: Callable[[K, V], int] = lambda key, value: 1) -> None:
        self._limit = limit
        self._weight = weight
        self._values: dict[K, V] = {}
        self._total = 0

    def get(self, key: K) -> V | None:
        """The value kept for ``key`` (now the most recently used), or None. Raises TypeError when
        ``key`` is unhashable."""
        value = self._values.pop(key, None)
        if value is not None:
            self._values[key] = value
        return value

    def put(self, key: K, value: V) -> None:
        old = self._values.pop(key, None)
        if old is not None:
            self._total -= self._weight(key, old)
        self._values[key] = value
        self._total += self._weight(key, value)
        while self._total > self._limit and len(self._values) > 1:
            oldest = next(iter(self._values))
            self._total -= self._weight(oldest, self._values.pop(oldest))

    def __len__(self) -> int:
        return len(self._values)

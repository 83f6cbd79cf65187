"""Shared fixtures for the store tests: a stepping clock, a fresh store, the committed db fixtures."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest

from runtime.store import Store


class SteppingClock:
    """Each reading is one second after the previous one, so ordering by time is deterministic."""

    def __init__(self, start: datetime = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)) -> None:
        self.now = start

    def __call__(self) -> datetime:
        self.now += timedelta(seconds=1)
        return self.now


@pytest.fixture
def clock() -> SteppingClock:
    return SteppingClock()


@pytest.fixture
def store(clock: SteppingClock) -> Iterator[Store]:
    s = Store(clock=clock)
    yield s
    s.close()

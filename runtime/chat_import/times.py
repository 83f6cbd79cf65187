"""Timestamps of other apps' exports, as the store writes them (ISO 8601 UTC with milliseconds)."""

from __future__ import annotations

from datetime import UTC, datetime


def from_epoch(value: object) -> str:
    """ChatGPT's ``create_time`` (seconds since 1970, a float or null)."""
    if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
        return ""
    try:
        moment = datetime.fromtimestamp(float(value), UTC)
    except (OverflowError, OSError, ValueError):
        return ""
    return _iso(moment)


def from_iso(value: object) -> str:
    """Claude's ``created_at`` (``2024-12-01T10:00:00.123456Z`` or with an offset)."""
    if not isinstance(value, str) or not value:
        return ""
    try:
        moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return ""
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return _iso(moment.astimezone(UTC))


def _iso(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"

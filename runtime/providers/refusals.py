"""Refusals that need more than a status code to explain: OpenRouter's moderation (HTTP 403) and its
daily quota of ``:free`` model requests (an HTTP 429 that waiting a minute does not fix).

OpenRouter's error body is ``{"error": {"code", "message", "metadata"?}}``. A 403 means "your chosen
model requires moderation and your input was flagged" (``metadata.reasons``, ``flagged_input``). A
429 from the free-model limits carries ``metadata.headers`` with ``X-RateLimit-Limit``,
``X-RateLimit-Remaining`` and ``X-RateLimit-Reset`` (milliseconds since the epoch); the message
names the limit (``free-models-per-day`` / ``free-models-per-min``). Free models allow 20 requests a
minute and 50 a day (1000 a day once 10 credits were bought).
"""

from __future__ import annotations

import json
import time
from datetime import UTC, datetime
from typing import Any

from runtime.errors import ProviderError

CREDITS_URL = "openrouter.ai/settings/credits"
DAILY_WAIT_S = 300.0  # a reset further away than this is not a short rate limit


def _error_object(body: bytes | str) -> dict[str, Any]:
    try:
        data = json.loads(body)
    except ValueError:
        return {}
    error = data.get("error") if isinstance(data, dict) else None
    return error if isinstance(error, dict) else {}


def moderation_refusal(body: bytes | str, provider: str) -> ProviderError:
    error = _error_object(body)
    metadata = error.get("metadata") if isinstance(error.get("metadata"), dict) else {}
    reasons = metadata.get("reasons") if isinstance(metadata, dict) else None
    why = f" (flagged: {', '.join(str(r) for r in reasons)})" if isinstance(reasons, list) and reasons else ""
    detail = str(error.get("message") or "").strip()
    said = f" {provider} said: {detail}." if detail else ""
    return ProviderError(
        "refused",
        f"The provider refused this request (moderation){why}.{said} Rephrase the message, or choose a model "
        "without moderation.",
        status=403,
        retryable=False,
        provider=provider,
    )


def daily_quota(body: bytes | str, provider: str, now: float | None = None) -> ProviderError | None:
    """The 429 of a used-up daily ``:free`` quota, or ``None`` for an ordinary rate limit."""
    error = _error_object(body)
    message = str(error.get("message") or "")
    metadata = error.get("metadata") if isinstance(error.get("metadata"), dict) else {}
    headers = metadata.get("headers") if isinstance(metadata, dict) else None
    headers = {str(k).lower(): v for k, v in headers.items()} if isinstance(headers, dict) else {}
    reset = _reset_time(headers.get("x-ratelimit-reset"))
    wait = reset - (time.time() if now is None else now) if reset is not None else None
    exhausted = str(headers.get("x-ratelimit-remaining", "")) == "0"
    if "per-day" not in message and not (exhausted and wait is not None and wait > DAILY_WAIT_S):
        return None
    when = (
        f" It resets at {datetime.fromtimestamp(reset, UTC):%H:%M} UTC."
        if reset is not None and wait is not None and wait > 0
        else " It resets once a day."
    )
    limit = headers.get("x-ratelimit-limit")
    count = f" ({limit} requests)" if limit else ""
    return ProviderError(
        "quota",
        f"The daily limit of free-model requests{count} is used up; trying again now will not help.{when} "
        f"Choose a model that is not free, or add credits at {CREDITS_URL} (once 10 credits were bought, "
        "free models allow 1000 requests a day).",
        status=429,
        retryable=False,
        provider=provider,
    )


def _reset_time(value: object) -> float | None:
    try:
        number = float(str(value))
    except ValueError:
        return None
    return number / 1000 if number > 1e11 else number  # milliseconds (documented) or seconds

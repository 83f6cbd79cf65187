"""Turn a provider's HTTP status, error body or transport failure into a ``ProviderError``.

Every message says what happened and what to do next.
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from runtime.errors import HostHttpError, HostRequestError, ProviderError, ProviderErrorCode
from runtime.providers.overflow import context_exceeded, overflow_error

MAX_RETRY_AFTER_S = 60.0
CREDITS_URL = "openrouter.ai/settings/credits"

# What to do after an HTTP error, by error code, for any provider; a provider's ``Hints.advice`` replaces
# entries that only make sense for it (OpenRouter's credits page, Ollama's local server).
ADVICE: dict[ProviderErrorCode, str] = {
    "auth": "Check the API key in Settings (or reconnect), then try again.",
    "credits": "The provider asks for payment: check your account with it, or choose another model.",
    "timeout": "The model took too long; try again.",
    "server": "This is on the provider's side; try again in a moment or choose another model.",
    "bad_request": "Check the model and settings; the request was not accepted.",
    "provider_error": "Try again, or choose another model.",
}
OPENROUTER_ADVICE: dict[ProviderErrorCode, str] = {"credits": f"Add credits at {CREDITS_URL}, or choose a free model."}
OLLAMA_ADVICE: dict[ProviderErrorCode, str] = {
    "auth": "Ollama itself needs no key: a server or proxy in front of it refused the request. "
    "Check the key and the base URL in Settings.",
    "credits": "Ollama itself does not charge: the server at the base URL asked for payment. "
    "Check the base URL in Settings.",
    "server": "The Ollama server failed; check that the model runs there (`ollama run <model>`), then try again.",
    "bad_request": "Check that the model is pulled on that server (`ollama list`) and the settings; "
    "the request was not accepted.",
}


@dataclass(frozen=True)
class Hints:
    """Provider-specific advice added to messages."""

    name: str  # shown to people: "OpenRouter", "Ollama"
    base_url: str
    unreachable: str = "Check your network connection and the base URL in Settings."
    advice: Mapping[ProviderErrorCode, str] = field(default_factory=dict)  # replaces entries of ADVICE
    refusals: bool = False  # OpenRouter's: 403 is moderation, some 429s a daily quota (providers.refusals)
    cors: str = "Allow this page's origin on the server, or check the base URL in Settings."


def error_detail(body: bytes | str) -> str:
    """The provider's own error message from a JSON error body, or a short excerpt of the text."""
    text = body.decode("utf-8", errors="replace") if isinstance(body, bytes) else body
    try:
        data = json.loads(text)
    except ValueError:
        return " ".join(text.split())[:300]
    if isinstance(data, dict):
        err = data.get("error", data)
        if isinstance(err, dict):
            message = err.get("message") or err.get("detail") or ""
            raw = (err.get("metadata") or {}).get("raw") if isinstance(err.get("metadata"), dict) else None
            if raw and isinstance(raw, str) and raw not in str(message):
                message = f"{message} ({raw[:200]})"
            return str(message)[:500]
        if isinstance(err, str):
            return err[:500]
    return " ".join(text.split())[:300]


def parse_retry_after(value: str | None, now: float | None = None) -> float | None:
    """``Retry-After`` as seconds (delta-seconds or an HTTP date), capped at ``MAX_RETRY_AFTER_S``."""
    if not value:
        return None
    value = value.strip()
    try:
        seconds = float(value)
    except ValueError:
        import email.utils  # deferred: ~90 ms in Pyodide, and dates are rare here

        try:
            when = email.utils.parsedate_to_datetime(value)
        except (TypeError, ValueError, IndexError):
            return None
        seconds = when.timestamp() - (time.time() if now is None else now)
    return min(max(seconds, 0.0), MAX_RETRY_AFTER_S)


IMAGE_ADVICE = (
    "This model does not take images: choose one with the “vision” badge in Settings, or send the message without them."
)


def code_for_status(status: int) -> ProviderErrorCode:
    if status in (401, 403):
        return "auth"
    if status == 402:
        return "credits"
    if status == 429:
        return "rate_limited"
    if status in (408, 504):
        return "timeout"
    if status >= 500:
        return "server"
    if 400 <= status < 500:
        return "bad_request"
    return "provider_error"


def from_status(status: int, body: bytes | str, hints: Hints, retry_after: str | None = None) -> ProviderError:
    if hints.refusals and status in (403, 429):
        from runtime.providers.refusals import daily_quota, moderation_refusal

        refusal = moderation_refusal(body, hints.name) if status == 403 else daily_quota(body, hints.name)
        if refusal is not None:
            return refusal
    code = code_for_status(status)
    detail = error_detail(body) or f"HTTP {status}"
    wait = parse_retry_after(retry_after)
    what = f"{hints.name} answered HTTP {status}: {detail.rstrip('.')}."
    if "image input" in detail.lower():  # OpenRouter's 404, Ollama's 500: not worth a retry
        return ProviderError("bad_request", f"{what} {IMAGE_ADVICE}", status=status, provider=hints.name)
    if context_exceeded(status, body):
        return overflow_error(status, body, what, hints.name)
    if code == "rate_limited":
        advice = (
            f"Wait {wait:g} s and try again, or choose another model."
            if wait is not None
            else "Wait a moment and try again, or choose another model."
        )
    else:
        advice = hints.advice.get(code) or ADVICE.get(code) or ADVICE["provider_error"]
    return ProviderError(code, f"{what} {advice}", status=status, retry_after=wait, provider=hints.name)


def from_stream_error(error: object, hints: Hints) -> ProviderError:
    """A 200 response that carries ``{"error": {...}}`` mid-stream."""
    detail = error_detail(json.dumps({"error": error})) or "unknown error"
    status = error.get("code") if isinstance(error, dict) else None
    if isinstance(status, int) and status >= 400:
        mapped = from_status(status, json.dumps({"error": error}), hints)
        return ProviderError(
            mapped.code,
            mapped.message,
            status=status,
            provider=hints.name,
            retryable=mapped.retryable,
            overflow=mapped.overflow,
        )
    return ProviderError(
        "provider_error",
        f"{hints.name} reported an error while answering: {detail}. Try again, or choose another model.",
        provider=hints.name,
    )


def from_host_failure(
    exc: HostHttpError | HostRequestError, hints: Hints, *, after_head: bool = False
) -> ProviderError:
    """The request got no (whole) answer: dropped mid-reply (``after_head``: the status had arrived),
    nothing listening, CORS, another network failure, a timeout, refused by the adapter, aborted."""
    if exc.code == "aborted":
        return ProviderError("cancelled", "The request was cancelled.", provider=hints.name)
    if exc.code == "timeout":
        return ProviderError(
            "timeout", f"{hints.name} did not answer in time ({exc.message}). Try again.", provider=hints.name
        )
    if exc.code == "replay":
        return ProviderError(
            "bad_request",
            f"Replay: {exc.message}. The conversation went further than the recording, or asked something it "
            "did not; start a new chat to replay it from the start, or choose a provider in Settings.",
            retryable=False,
            provider=hints.name,
        )
    if exc.code == "refused":
        return ProviderError(
            "unreachable",
            f"The app refused to send a request to {hints.base_url}: {exc.message}. "
            "Only the configured provider's base URL may be called; check it in Settings.",
            retryable=False,
            provider=hints.name,
        )
    name, base = hints.name, hints.base_url
    if exc.code == "dropped" or (after_head and exc.code == "network"):
        text = (
            f"{name} stopped answering mid-reply: the connection closed after the answer had begun ({exc.message}). "
            "Is the server still running? What arrived is kept; start it again if it stopped, then press Retry."
        )
    elif exc.code == "unreachable":
        text = f"Nothing answers at {base} ({exc.message}). {hints.unreachable}"  # the hint says what to check
    elif exc.code == "cors":
        text = (
            f"{name} at {base} answered, but the browser kept its reply from this page: the server does not allow "
            f"requests from this page's origin (CORS) ({exc.message}). {hints.cors}"
        )
    else:
        text = f"Could not reach {name} at {base}: {exc.message}. {hints.unreachable}"
    return ProviderError("unreachable", text, provider=name)


def streamed_object(raw: str | bytes, hints: Hints, what: str) -> dict[str, Any]:
    """One JSON object of a provider's stream (`what`: "stream event" for SSE, "line" for NDJSON), or a
    clear error saying what arrived instead."""
    try:
        value = json.loads(raw)
    except ValueError:
        raise ProviderError(
            "provider_error", f"{hints.name} sent a {what} that is not JSON: {raw[:120]!r}. Try again."
        ) from None
    if not isinstance(value, dict):
        raise ProviderError("provider_error", f"{hints.name} sent an unexpected {what}: {raw[:120]!r}.")
    return value

"""The runtime's error hierarchy: structured fields, so callers branch on ``code`` and never on text.

Every error a person may see carries a ``message`` that says what happened and what to do.
"""

from __future__ import annotations

from typing import Literal

ProviderErrorCode = Literal[
    "auth",
    "credits",
    "rate_limited",
    "server",
    "unreachable",
    "bad_request",
    "provider_error",
    "cancelled",
    "timeout",
    "refused",  # moderation (OpenRouter's 403)
    "quota",  # a daily quota is used up (OpenRouter's :free models): waiting a little does not help
]
# How a request through the host failed; on the wire as ``http_error.kind`` (runtime/host/constants.py
# exports it as ``HttpErrorKind``: defined here because host/ imports this module, not the reverse).
# "replay": a replayed recording has no answer for the request (the replay's own failure, not the provider's).
HostErrorKind = Literal["network", "timeout", "refused", "aborted", "replay"]


class TidepoolError(Exception):
    """Base of every error the runtime raises on purpose."""

    code: str = "error"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class HostRequestError(TidepoolError):
    """A request to the host failed: it timed out, was cancelled, or the host answered with an error."""

    def __init__(self, code: str, message: str, request_id: str | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.request_id = request_id


class HostHttpError(TidepoolError):
    """The host could not perform an HTTP request (``http_error`` frame)."""

    def __init__(self, kind: HostErrorKind, message: str, url: str = "") -> None:
        super().__init__(message)
        self.code = kind
        self.kind: HostErrorKind = kind
        self.url = url


RETRYABLE_CODES: frozenset[str] = frozenset({"rate_limited", "server", "unreachable", "timeout"})


class ProviderError(TidepoolError):
    """A model provider call failed. ``retryable`` says whether trying again later may help."""

    def __init__(
        self,
        code: ProviderErrorCode,
        message: str,
        *,
        status: int | None = None,
        retry_after: float | None = None,
        retryable: bool | None = None,
        provider: str = "",
    ) -> None:
        super().__init__(message)
        self.code: ProviderErrorCode = code
        self.status = status
        self.retry_after = retry_after
        self.retryable = code in RETRYABLE_CODES if retryable is None else retryable
        self.provider = provider

    def __repr__(self) -> str:
        return f"ProviderError(code={self.code!r}, status={self.status!r}, message={self.message!r})"

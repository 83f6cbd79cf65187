"""The runtime's error hierarchy: structured fields, so callers branch on ``code`` and never on text.

Every error a person may see carries a ``message`` that says what happened and what to do.
"""

from __future__ import annotations

from dataclasses import dataclass
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
# ``dropped``: the connection closed after the answer had begun; ``unreachable``: nothing answers there (a
# ``no-cors`` probe fails too); ``cors``: the server answers, but the browser withholds the reply from this
# page; ``network``: any other failure to get an answer.
# "replay": a replayed recording has no answer for the request (the replay's own failure, not the provider's).
HostErrorKind = Literal["network", "timeout", "refused", "aborted", "dropped", "unreachable", "cors", "replay"]


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


@dataclass(frozen=True)
class Overflow:
    """What a refusal for a prompt over the context window said: the window and the prompt, in the
    server's tokens, where it gave them (llama.cpp's ``n_ctx`` and ``n_prompt_tokens``)."""

    n_ctx: int | None = None
    n_prompt_tokens: int | None = None


class ProviderError(TidepoolError):
    """A model provider call failed. ``retryable`` says whether trying again later may help; ``overflow``
    is set when the prompt is over the model's context window (no retry helps; a smaller prompt may)."""

    def __init__(
        self,
        code: ProviderErrorCode,
        message: str,
        *,
        status: int | None = None,
        retry_after: float | None = None,
        retryable: bool | None = None,
        provider: str = "",
        overflow: Overflow | None = None,
    ) -> None:
        super().__init__(message)
        self.code: ProviderErrorCode = code
        self.status = status
        self.retry_after = retry_after
        self.retryable = code in RETRYABLE_CODES if retryable is None else retryable
        self.provider = provider
        self.overflow = overflow

    def __repr__(self) -> str:
        return f"ProviderError(code={self.code!r}, status={self.status!r}, message={self.message!r})"

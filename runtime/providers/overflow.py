"""A prompt over the context window, in each server's wording, and what to do about it.

OpenRouter says "maximum context length", OpenAI ``context_length_exceeded``, Anthropic "prompt is
too long": the model's window is fixed, so a new chat or a model with a larger window helps. A local
server's window is a setting of that server: llama.cpp's ``llama-server`` answers HTTP 400

    {"error": {"code": 400, "message": "request (5605 tokens) exceeds the available context size
     (4096 tokens), try increasing it", "type": "exceed_context_size_error",
     "n_prompt_tokens": 5605, "n_ctx": 4096}}

(older builds: "the request exceeds the available context size, try increasing it"), and
llama-cpp-python's server accepts the streamed request and closes an empty 200 stream. Both are
answered with how to raise the server's context size; neither says "try again", which cannot help.
The numbers the server gave are kept on the error (``ProviderError.overflow``), so the window can be
learned from them.
"""

from __future__ import annotations

import json
import re

from runtime.errors import Overflow, ProviderError

CONTEXT_ADVICE = (
    "The conversation is longer than this model's context window: start a new chat, "
    "or choose a model with a larger context window in Settings."
)
RAISE_CONTEXT = (
    "Raise the server's context size and restart it (llama-server: -c 16384; llama-cpp-python: "
    "--n_ctx 16384), or start a new chat."
)
# How hosted providers say a prompt is over the context window.
TOO_LONG = re.compile(
    r"maximum context length|context_length_exceeded|context length exceeded|prompt is too long", re.IGNORECASE
)
# How llama.cpp says it (its error type, and its message in old and new builds).
LOCAL_TOO_LONG = re.compile(r"exceed_context_size_error|exceeds the available context size", re.IGNORECASE)
_TOKENS = re.compile(r"\((\d+) tokens\)")


def context_exceeded(status: int, body: bytes | str) -> bool:
    """Whether a refusal says the prompt is over the model's context window (no retry helps)."""
    if status not in (400, 413):
        return False
    text = _text(body)
    return TOO_LONG.search(text) is not None or LOCAL_TOO_LONG.search(text) is not None


def overflow_of(body: bytes | str) -> Overflow:
    """The window and prompt sizes a refusal names: llama.cpp's fields, else the numbers in its message."""
    text = _text(body)
    try:
        data = json.loads(text)
    except ValueError:
        data = None
    error = data.get("error") if isinstance(data, dict) else None
    fields = error if isinstance(error, dict) else {}
    n_ctx, n_prompt = _int(fields.get("n_ctx")), _int(fields.get("n_prompt_tokens"))
    numbers = [int(n) for n in _TOKENS.findall(str(fields.get("message") or text))]
    if n_prompt is None and len(numbers) == 2:
        n_prompt = numbers[0]
    if n_ctx is None and numbers:
        n_ctx = numbers[-1]
    return Overflow(n_ctx, n_prompt)


def overflow_error(status: int, body: bytes | str, what: str, provider: str) -> ProviderError:
    """The refusal of a prompt over the window; ``what`` is "<provider> answered HTTP n: <its words>."."""
    text = _text(body)
    if LOCAL_TOO_LONG.search(text) is None:
        return ProviderError(
            "bad_request",
            f"{what} {CONTEXT_ADVICE}",
            status=status,
            retryable=False,
            provider=provider,
            overflow=overflow_of(text),
        )
    overflow = overflow_of(text)
    sizes = ""
    if overflow.n_ctx:
        asked = f"{overflow.n_prompt_tokens} tokens" if overflow.n_prompt_tokens else "the conversation"
        sizes = f" ({asked} for a window of {overflow.n_ctx})"
    message = f"{what} The conversation is over the server's context window{sizes}. {RAISE_CONTEXT}"
    return ProviderError("bad_request", message, status=status, retryable=False, provider=provider, overflow=overflow)


def empty_stream(provider: str) -> ProviderError:
    """A 200 stream that closed before its first event: what llama-cpp-python's server does with a prompt
    over its window (``--n_ctx``, 2048 by default)."""
    return ProviderError(
        "bad_request",
        f"{provider} accepted the request, then closed the reply without sending anything. A local server does "
        "this when the conversation is over its context window (llama-cpp-python's default is 2048 tokens). "
        f"{RAISE_CONTEXT}",
        retryable=False,
        provider=provider,
        overflow=Overflow(),
    )


def _text(body: bytes | str) -> str:
    return (body.decode("utf-8", errors="replace") if isinstance(body, bytes) else body)[:4000]


def _int(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None

"""Advice after an HTTP error fits the provider that answered (no OpenRouter billing advice for Ollama)."""

from __future__ import annotations

import pytest

from runtime.providers.failures import OLLAMA_ADVICE, OPENROUTER_ADVICE, Hints, from_status

OPENROUTER = Hints("OpenRouter", "https://openrouter.ai/api/v1", advice=OPENROUTER_ADVICE)
OLLAMA = Hints("Ollama", "http://localhost:11434", advice=OLLAMA_ADVICE)
OTHER = Hints("Example", "https://llm.example")


@pytest.mark.parametrize(
    ("hints", "status", "says", "never"),
    [
        pytest.param(
            OPENROUTER, 402, ["OpenRouter answered HTTP 402", "openrouter.ai/settings/credits"], [], id="openrouter-402"
        ),
        pytest.param(
            OLLAMA,
            402,
            ["Ollama answered HTTP 402", "does not charge", "base URL"],
            ["openrouter", "credits at"],
            id="ollama-402",
        ),
        pytest.param(OLLAMA, 401, ["needs no key", "base URL"], ["reconnect"], id="ollama-401"),
        pytest.param(OLLAMA, 404, ["ollama list"], [], id="ollama-404"),
        pytest.param(OTHER, 402, ["asks for payment"], ["openrouter"], id="another-provider-402"),
        pytest.param(OTHER, 401, ["API key"], [], id="another-provider-401"),
    ],
)
def test_the_advice_names_what_to_do_with_that_provider(
    hints: Hints, status: int, says: list[str], never: list[str]
) -> None:
    error = from_status(status, '{"error": {"message": "payment required"}}', hints)
    for text in says:
        assert text in error.message
    for text in never:
        assert text.lower() not in error.message.lower()


OPENROUTER_TOO_LONG = (
    '{"error": {"code": 400, "message": "This endpoint\'s maximum context length is 128000 tokens. However, you '
    'requested about 2126569 tokens (2126569 of text input). Please reduce the length of either one, or use the '
    '\\"middle-out\\" transform to compress your prompt automatically."}}'
)
OPENAI_TOO_LONG = (
    '{"error": {"message": "Your input exceeds the context window of this model. Please adjust your input and try '
    'again.", "type": "invalid_request_error", "param": "input", "code": "context_length_exceeded"}}'
)


@pytest.mark.parametrize(
    ("body", "words"),
    [
        pytest.param(OPENROUTER_TOO_LONG, "maximum context length is 128000 tokens", id="openrouter"),
        pytest.param(OPENAI_TOO_LONG, "Your input exceeds the context window", id="openai-code"),
    ],
)
def test_a_prompt_over_the_context_window_says_so_and_what_to_do(body: str, words: str) -> None:
    error = from_status(400, body, OPENROUTER)
    assert words in error.message  # the provider's own words
    assert "start a new chat" in error.message and "larger context window" in error.message
    assert "Check the model and settings" not in error.message
    assert ".." not in error.message
    assert error.code == "bad_request" and not error.retryable


def test_another_bad_request_keeps_the_general_advice() -> None:
    error = from_status(400, '{"error": {"message": "temperature must be at most 2"}}', OPENROUTER)
    assert "Check the model and settings" in error.message and "new chat" not in error.message

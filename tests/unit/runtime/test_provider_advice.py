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

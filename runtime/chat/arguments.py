"""A tool call's arguments as a JSON object: whether they are one, and what goes back to a provider.

The model writes a call's arguments as JSON text. Text that is not a JSON object (cut off at the
output length limit: ``{"path``, or simply malformed) is never sent back as it came: llama.cpp answers
HTTP 500 "Failed to parse tool call arguments as JSON" to every later request of a chat whose history
holds it. ``agent.unusable`` keeps such calls from running and tells the model why.
"""

from __future__ import annotations

import json


def object_problem(raw: str) -> str | None:
    """Why ``raw`` is not a JSON object of arguments (``None``: it is one; empty text counts as ``{}``)."""
    try:
        value = json.loads(raw or "{}")
    except ValueError as exc:
        return f"they are not valid JSON ({exc})"
    if not isinstance(value, dict):
        return f"they are a JSON {type(value).__name__}, and they must be a JSON object"
    return None


def wire_arguments(raw: str) -> str:
    """The arguments as they go back to a provider: ``raw`` when it is a JSON object, else ``{}``.

    A conversation stored before calls were screened (``agent.unusable``) may hold invalid arguments:
    this repairs it whenever it is sent, so such a chat is never refused for good."""
    return raw if raw and object_problem(raw) is None else "{}"

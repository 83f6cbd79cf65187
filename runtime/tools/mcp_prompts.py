"""A tool server's prompt sent as the person's message (``user_message.prompt``): outside text.

The person chose it (``/server:prompt`` in the composer), but a server wrote it, so it reaches the model
wrapped as every other outside text is (``untrusted.py``, kind ``prompt``), its source naming the server
and the prompt. The wrapped text is what the conversation keeps: the model reads the same on every later
round and after a reload.
"""

from __future__ import annotations

from runtime.host.messages import McpPromptOrigin
from runtime.tools.untrusted import wrap_untrusted

MAX_SOURCE_CHARS = 200


def prompt_turn_text(text: str, origin: McpPromptOrigin | None) -> str:
    """``text`` as the model takes it: unchanged when the person wrote it, wrapped when a server's prompt gave it."""
    if origin is None:
        return text
    source = f"mcp:{origin['server']}:{origin['name']}"[:MAX_SOURCE_CHARS]
    return wrap_untrusted(text, source, "prompt")

"""What the real providers refuse in a chat request, refused the same way: images above all.

OpenRouter (OpenAI shape): a user message's ``content`` is a list of parts; an image is
``{"type": "image_url", "image_url": {"url": "data:image/png;base64,..."}}``. A model whose catalog
entry does not list ``image`` among its ``input_modalities`` gets OpenRouter's 404 "No endpoints found
that support image input"; a data URL that is not a base64 PNG/JPEG/GIF/WebP is a 400.

OpenRouter also refuses a prompt over the model's ``context_length`` (400, "maximum context length"),
counted here as the runtime estimates it: the characters of the JSON ``messages`` and ``tools`` / 4,
an image at ``IMAGE_TOKENS`` whatever its bytes. (Ollama truncates an over-long prompt to ``num_ctx``
silently, so the fake lets it through.)

Ollama (native ``/api/chat``): ``messages[].images`` is a list of bare base64 strings (a ``data:``
prefix is refused as Go's base64 decoder refuses it); a model without the ``vision`` capability
refuses images (and a model without ``tools`` / ``thinking`` refuses those).
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from dataclasses import dataclass
from typing import Any

from .catalog import OPENROUTER_MODELS

NO_IMAGE_ENDPOINTS = "No endpoints found that support image input"
DATA_URL = re.compile(r"^data:(image/(?:png|jpeg|gif|webp));base64,([A-Za-z0-9+/]*={0,2})$")
MAX_BODY_BYTES = 64 * 1024 * 1024  # a big request is read and judged, as the real services do (aiohttp: 1 MiB)
IMAGE_TOKENS = 1_000
CONTEXT_TOO_LONG = (
    "This endpoint's maximum context length is {limit} tokens. However, you requested about {asked} tokens "
    '({asked} of text input). Please reduce the length of either one, or use the "middle-out" transform to '
    "compress your prompt automatically."
)
_MAGIC = {"image/png": b"\x89PNG\r\n\x1a\n", "image/jpeg": b"\xff\xd8\xff", "image/gif": b"GIF8", "image/webp": b"RIFF"}


@dataclass(frozen=True)
class ReceivedImage:
    media_type: str  # "" where the wire does not say (Ollama)
    data: bytes


def openai_image_parts(payload: dict[str, Any]) -> list[str]:
    """The ``image_url`` URLs of every message, in order."""
    urls = []
    for message in payload.get("messages") or []:
        content = message.get("content") if isinstance(message, dict) else None
        for part in content if isinstance(content, list) else []:
            if isinstance(part, dict) and part.get("type") == "image_url":
                urls.append(str((part.get("image_url") or {}).get("url", "")))
    return urls


def decode_data_url(url: str) -> ReceivedImage | None:
    match = DATA_URL.match(url)
    if not match:
        return None
    try:
        data = base64.b64decode(match.group(2), validate=True)
    except binascii.Error:
        return None
    return ReceivedImage(match.group(1), data) if data.startswith(_MAGIC[match.group(1)]) else None


def openrouter_refusal(payload: dict[str, Any], checks_window: bool = True) -> tuple[int, str] | None:
    """(status, message) when OpenRouter would refuse the request's images or its length, else None.
    ``checks_window``: False for Ollama's OpenAI-compatible route, which truncates instead."""
    refusal = image_refusal(payload)
    if refusal is None and checks_window:
        return context_refusal(payload)
    return refusal


def image_refusal(payload: dict[str, Any]) -> tuple[int, str] | None:
    urls = openai_image_parts(payload)
    if not urls:
        return None
    model = next((m for m in OPENROUTER_MODELS if m["id"] == payload.get("model")), None)
    if model is not None and "image" not in model["architecture"]["input_modalities"]:
        return 404, NO_IMAGE_ENDPOINTS
    for url in urls:
        if decode_data_url(url) is None:
            expected = "a base64 data URL of a PNG, JPEG, GIF or WebP image"
            return 400, f"Invalid image_url: expected {expected}, got {url[:40]!r}"
    return None


def prompt_tokens(payload: dict[str, Any]) -> int:
    """About how many tokens the request's prompt takes: 4 characters a token, images at a flat cost."""
    images = len(openai_image_parts(payload))
    messages = [_without_image_data(m) for m in payload.get("messages") or []]
    text = json.dumps(messages, ensure_ascii=False) + json.dumps(payload.get("tools") or [], ensure_ascii=False)
    return len(text) // 4 + IMAGE_TOKENS * images


def _without_image_data(message: Any) -> Any:
    content = message.get("content") if isinstance(message, dict) else None
    if not isinstance(content, list):
        return message
    parts = [p for p in content if not (isinstance(p, dict) and p.get("type") == "image_url")]
    return {**message, "content": parts}


def context_refusal(payload: dict[str, Any]) -> tuple[int, str] | None:
    """(400, OpenRouter's message) when the prompt is over the model's context length, else None."""
    model = next((m for m in OPENROUTER_MODELS if m["id"] == payload.get("model")), None)
    if model is None:
        return None
    asked = prompt_tokens(payload)
    if asked <= model["context_length"]:
        return None
    return 400, CONTEXT_TOO_LONG.format(limit=model["context_length"], asked=asked)


# What Gemini 3 through OpenRouter answers when a tool round's assistant message comes back without
# the reasoning_details it was sent with.
MISSING_SIGNATURE = "Function call is missing a thought_signature in functionCall parts."


def unsigned_call(payload: dict[str, Any], issued: dict[str, list[dict[str, Any]]]) -> str | None:
    """A reasoning model's tool call sent back without its reasoning_details exactly as ``issued``."""
    for message in payload.get("messages") or []:
        if not isinstance(message, dict) or message.get("role") != "assistant":
            continue
        for call in message.get("tool_calls") or []:
            sent = issued.get(str(call.get("id")))
            if sent is not None and message.get("reasoning_details") != sent:
                return MISSING_SIGNATURE
    return None


def ollama_images(payload: dict[str, Any]) -> list[str]:
    return [str(i) for m in payload.get("messages") or [] if isinstance(m, dict) for i in m.get("images") or []]


def ollama_refusal(payload: dict[str, Any], model: str, capabilities: list[str]) -> tuple[int, str] | None:
    """(status, error) when Ollama's ``/api/chat`` would refuse the request for this model, else None."""
    if payload.get("tools") and "tools" not in capabilities:
        return 400, f"registry.ollama.ai/library/{model} does not support tools"
    if payload.get("think") and "thinking" not in capabilities:
        return 400, f'"{model}" does not support thinking'
    images = ollama_images(payload)
    if not images:
        return None
    if "vision" not in capabilities:
        return 500, "this model is missing data required for image input"
    for image in images:
        try:
            base64.b64decode(image, validate=True)
        except binascii.Error:
            bad = next((i for i, c in enumerate(image) if not (c.isalnum() or c in "+/=")), 0)
            return 400, f"illegal base64 data at input byte {bad}"
    return None


def received(payload: dict[str, Any]) -> list[ReceivedImage]:
    """Every image a chat request carried (either wire), decoded."""
    out = [image for url in openai_image_parts(payload) if (image := decode_data_url(url))]
    out.extend(ReceivedImage("", base64.b64decode(i)) for i in ollama_images(payload))
    return out

"""Images a tool wrote (run_python's plots) shown to a vision model.

OpenAI-format tool messages carry text only, so after a run of tool results whose calls wrote image
files, the request gets one user-role message holding those images (read from the workspace now, as
``image_url`` parts; Ollama: ``images``). Only types vision models take are sent (PNG, JPEG, GIF,
WebP, by their bytes, each at most ``IMAGE_MAX_BYTES``); an SVG or a file no longer there is named
in the text instead. Called only for a model known to take images.
"""

from __future__ import annotations

import base64
from collections.abc import Sequence
from pathlib import Path

from runtime.agent.images import sniff
from runtime.chat.messages import ChatMessage, ImagePart, ToolResultMessage, UserMessage
from runtime.host.constants import IMAGE_MAX_BYTES
from runtime.tools.base import ToolError
from runtime.tools.paths import resolve

INTRO = "Images written by the tool calls above (shown to you, not typed by the user):"


def show_tool_images(messages: Sequence[ChatMessage], workspace: Path) -> list[ChatMessage]:
    out: list[ChatMessage] = []
    pending: list[str] = []
    for message in messages:
        if pending and not isinstance(message, ToolResultMessage):
            out.append(_image_message(pending, workspace))
            pending = []
        out.append(message)
        if isinstance(message, ToolResultMessage):
            pending.extend(message.images)
    if pending:
        out.append(_image_message(pending, workspace))
    return out


def _image_message(paths: Sequence[str], workspace: Path) -> UserMessage:
    lines = [INTRO]
    parts: list[ImagePart] = []
    for path in dict.fromkeys(paths):
        part, note = _read(path, workspace)
        if part is not None:
            parts.append(part)
        lines.append(f"- {path}" + (f" ({note})" if note else ""))
    return UserMessage("\n".join(lines), tuple(parts))


def _read(path: str, workspace: Path) -> tuple[ImagePart | None, str]:
    try:
        data = resolve(workspace, path).read_bytes()
    except (ToolError, OSError):
        return None, "no longer in the workspace"
    media_type = sniff(data)
    if media_type is None:
        return None, "not sent as an image: models take PNG, JPEG, GIF or WebP; read the file for its source"
    if len(data) > IMAGE_MAX_BYTES:
        return None, "not sent: too large"
    return ImagePart(media_type, base64.b64encode(data).decode("ascii"), path), ""

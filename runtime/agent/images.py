"""Images in the conversation: checking what a message brings, and what one model request may carry.

``check_attachments`` turns a ``user_message``'s images into ``ImagePart``s, or says clearly why not
(a type vision models do not take, bytes that are not that type, too large, too many). ``fit_images``
keeps a request's images within ``REQUEST_IMAGES_MAX_BYTES`` (newest first; an older one becomes a
note in its message's text) and leaves every image out, with a note, for a model that takes none.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Sequence
from dataclasses import replace
from typing import get_args

from runtime.chat.messages import ChatMessage, ImagePart, UserMessage
from runtime.host.constants import (
    IMAGE_MAX_BYTES,
    IMAGES_PER_MESSAGE,
    MESSAGE_IMAGES_MAX_BYTES,
    REQUEST_IMAGES_MAX_BYTES,
    ImageMediaType,
)
from runtime.host.messages import ImageAttachment

MEDIA_TYPES: tuple[str, ...] = get_args(ImageMediaType)
_MAGIC: dict[str, tuple[bytes, ...]] = {
    "image/png": (b"\x89PNG\r\n\x1a\n",),
    "image/jpeg": (b"\xff\xd8\xff",),
    "image/gif": (b"GIF87a", b"GIF89a"),
    "image/webp": (b"RIFF",),  # then 4 size bytes and b"WEBP"
}


class ImageRefused(ValueError):
    """An image a message cannot carry; the text says which and why, for the person."""


def sniff(data: bytes) -> str | None:
    """The image type the bytes really are (by their signature), or None."""
    for media_type, magics in _MAGIC.items():
        if any(data.startswith(m) for m in magics):
            if media_type == "image/webp" and data[8:12] != b"WEBP":
                continue
            return media_type
    return None


def mib(size: int) -> str:
    return f"{size / (1024 * 1024):.1f} MiB"


def check_attachments(images: Sequence[ImageAttachment]) -> tuple[tuple[ImagePart, bytes], ...]:
    """Each image as an ``ImagePart`` with its bytes; ``ImageRefused`` for the first one that cannot go."""
    if len(images) > IMAGES_PER_MESSAGE:
        raise ImageRefused(f"A message can carry at most {IMAGES_PER_MESSAGE} images; this one has {len(images)}.")
    out: list[tuple[ImagePart, bytes]] = []
    total = 0
    for image in images:
        name = image["name"] or "image"
        try:
            data = base64.b64decode(image["data"], validate=True)
        except (binascii.Error, ValueError):
            raise ImageRefused(f"“{name}” did not arrive as base64 image data.") from None
        found = sniff(data)
        if found is None or image["media_type"] not in MEDIA_TYPES:
            raise ImageRefused(f"“{name}” is not a PNG, JPEG, GIF or WebP image; models take only those.")
        if found != image["media_type"]:
            raise ImageRefused(f"“{name}” says it is {image['media_type']} but its bytes are {found}.")
        if len(data) > IMAGE_MAX_BYTES:
            raise ImageRefused(f"“{name}” is {mib(len(data))}; an image may be at most {mib(IMAGE_MAX_BYTES)}.")
        total += len(data)
        if total > MESSAGE_IMAGES_MAX_BYTES:
            raise ImageRefused(f"The images of one message may be {mib(MESSAGE_IMAGES_MAX_BYTES)} in all.")
        out.append((ImagePart(found, image["data"], name), data))
    return tuple(out)


def fit_images(
    messages: Sequence[ChatMessage], vision: bool | None, budget: int = REQUEST_IMAGES_MAX_BYTES
) -> list[ChatMessage]:
    """The messages with their images as one request may carry them (see the module docstring)."""
    out: list[ChatMessage] = list(messages)
    left = budget
    for index in range(len(out) - 1, -1, -1):
        message = out[index]
        if not isinstance(message, UserMessage) or not message.images:
            continue
        kept: list[ImagePart] = []
        notes: list[str] = []
        for image in message.images:
            if vision is False:
                notes.append(f"[image “{image.name}” not sent: this model does not take images]")
            elif image.size <= left:
                left -= image.size
                kept.append(image)
            else:
                notes.append(f"[image “{image.name}” left out of this request: too many image bytes]")
        if notes:
            text = "\n".join([message.content, *notes]) if message.content else "\n".join(notes)
            out[index] = replace(message, content=text, images=tuple(kept))
    return out

"""Images in messages: what a message may carry, the providers' wire forms, and what one request sends."""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any

import pytest

from runtime.agent.images import ImageRefused, check_attachments, fit_images, sniff
from runtime.agent.tool_images import INTRO, show_tool_images
from runtime.chat.history import IMAGE_TOKENS, estimate_tokens
from runtime.chat.messages import (
    AssistantMessage,
    ImagePart,
    SystemMessage,
    ToolCall,
    ToolResultMessage,
    UserMessage,
    to_wire,
)
from runtime.host.constants import IMAGE_MAX_BYTES, IMAGES_PER_MESSAGE
from runtime.host.messages import ImageAttachment
from runtime.providers.ollama_chat import ollama_message

PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 40
JPEG = b"\xff\xd8\xff\xe0" + b"\x00" * 40
GIF = b"GIF89a" + b"\x00" * 40
WEBP = b"RIFF\x00\x00\x00\x00WEBPVP8 " + b"\x00" * 40
SVG = b'<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'


def attachment(data: bytes, media_type: str = "image/png", name: str = "shot.png") -> ImageAttachment:
    return {"media_type": media_type, "name": name, "data": base64.b64encode(data).decode()}  # type: ignore[typeddict-item]


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        pytest.param(PNG, "image/png", id="png"),
        pytest.param(JPEG, "image/jpeg", id="jpeg"),
        pytest.param(GIF, "image/gif", id="gif"),
        pytest.param(WEBP, "image/webp", id="webp"),
        pytest.param(b"RIFF\x00\x00\x00\x00WAVEfmt ", None, id="riff-but-not-webp"),
        pytest.param(SVG, None, id="svg-is-not-a-raster-image"),
        pytest.param(b"", None, id="empty"),
    ],
)
def test_an_image_is_known_by_its_bytes(data: bytes, expected: str | None) -> None:
    assert sniff(data) == expected


def test_accepted_images_keep_their_order_name_and_bytes() -> None:
    parts = check_attachments([attachment(PNG), attachment(JPEG, "image/jpeg", "photo.jpg")])
    assert [(p.media_type, p.name, raw) for p, raw in parts] == [
        ("image/png", "shot.png", PNG),
        ("image/jpeg", "photo.jpg", JPEG),
    ]
    assert parts[0][0].data_url == "data:image/png;base64," + base64.b64encode(PNG).decode()
    assert parts[0][0].size == len(PNG)


@pytest.mark.parametrize(
    ("images", "says"),
    [
        pytest.param(
            [attachment(PNG)] * (IMAGES_PER_MESSAGE + 1), f"at most {IMAGES_PER_MESSAGE} images", id="too-many"
        ),
        pytest.param(
            [{"media_type": "image/png", "name": "x.png", "data": "not base64!"}],
            "did not arrive as base64",
            id="not-base64",
        ),
        pytest.param(
            [attachment(SVG, "image/png", "evil.png")], "is not a PNG, JPEG, GIF or WebP", id="svg-called-png"
        ),
        pytest.param(
            [attachment(JPEG, "image/png", "liar.png")],
            "says it is image/png but its bytes are image/jpeg",
            id="wrong-type",
        ),
        pytest.param([attachment(PNG + b"\x00" * IMAGE_MAX_BYTES)], "an image may be at most 2.0 MiB", id="too-large"),
        pytest.param(
            [attachment(PNG + b"\x00" * (IMAGE_MAX_BYTES - 100))] * 4, "6.0 MiB in all", id="too-large-together"
        ),
    ],
)
def test_an_image_that_cannot_go_is_refused_with_the_reason(images: list[Any], says: str) -> None:
    with pytest.raises(ImageRefused, match=says):
        check_attachments(images)


def test_openai_wire_puts_text_then_each_image_as_a_data_url() -> None:
    message = UserMessage("What is this?", (ImagePart("image/png", "QUJD", "a.png"), ImagePart("image/jpeg", "REVG")))
    assert to_wire(message) == {
        "role": "user",
        "content": [
            {"type": "text", "text": "What is this?"},
            {"type": "image_url", "image_url": {"url": "data:image/png;base64,QUJD"}},
            {"type": "image_url", "image_url": {"url": "data:image/jpeg;base64,REVG"}},
        ],
    }
    assert to_wire(UserMessage("plain")) == {"role": "user", "content": "plain"}


def test_ollama_wire_puts_bare_base64_in_images() -> None:
    message = UserMessage("What is this?", (ImagePart("image/png", "QUJD", "a.png"),))
    assert ollama_message(message) == {"role": "user", "content": "What is this?", "images": ["QUJD"]}
    assert ollama_message(UserMessage("plain")) == {"role": "user", "content": "plain"}


def test_an_image_costs_a_fixed_budget_not_its_base64() -> None:
    big = ImagePart("image/png", "A" * 400_000)
    with_image = estimate_tokens([UserMessage("hi", (big,))])
    assert with_image == estimate_tokens([UserMessage("hi")]) + IMAGE_TOKENS


def _image(name: str, size: int) -> ImagePart:
    return ImagePart("image/png", base64.b64encode(b"\x00" * size).decode(), name)


def test_a_request_keeps_the_newest_images_within_its_budget() -> None:
    old, new = UserMessage("first", (_image("old.png", 600),)), UserMessage("second", (_image("new.png", 600),))
    fitted = fit_images([SystemMessage("s"), old, AssistantMessage("ok"), new], vision=True, budget=1000)
    assert isinstance(fitted[3], UserMessage) and [i.name for i in fitted[3].images] == ["new.png"]
    assert isinstance(fitted[1], UserMessage) and fitted[1].images == ()
    assert "“old.png” left out of this request" in fitted[1].content and fitted[1].content.startswith("first")


@pytest.mark.parametrize(("vision", "kept"), [(True, 1), (None, 1), (False, 0)])
def test_a_model_that_takes_no_images_gets_a_note_instead(vision: bool | None, kept: int) -> None:
    fitted = fit_images([UserMessage("look", (_image("a.png", 10),))], vision=vision)
    assert isinstance(fitted[0], UserMessage) and len(fitted[0].images) == kept
    assert ("this model does not take images" in fitted[0].content) == (kept == 0)


def test_images_a_tool_wrote_follow_its_results_as_one_user_message(tmp_path: Path) -> None:
    (tmp_path / "plot.png").write_bytes(PNG)
    (tmp_path / "plot.svg").write_bytes(SVG)
    call = ToolCall("c1", "run_python", "{}")
    view = [
        UserMessage("plot it"),
        AssistantMessage("", (call,)),
        ToolResultMessage("c1", "run_python", "[ok]", True, ("plot.png", "plot.svg", "gone.png")),
        AssistantMessage("Here it is."),
    ]
    shown = show_tool_images(view, tmp_path)
    assert [type(m).__name__ for m in shown] == [
        "UserMessage",
        "AssistantMessage",
        "ToolResultMessage",
        "UserMessage",
        "AssistantMessage",
    ]
    images = shown[3]
    assert isinstance(images, UserMessage) and images.content.startswith(INTRO)
    assert [(i.media_type, base64.b64decode(i.data)) for i in images.images] == [("image/png", PNG)]
    assert "- plot.svg (not sent as an image" in images.content
    assert "- gone.png (no longer in the workspace)" in images.content
    assert show_tool_images(view[:2], tmp_path) == view[:2]

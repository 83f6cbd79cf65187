"""Images through a real session over frames: a user_message's images are stored with the message, go
to the model with it (and with every later request), come back in the session view and by
``message_image``; a refused image fails the turn with the reason and stores nothing; the image files
a tool wrote come back by ``workspace_image``."""

from __future__ import annotations

import base64

from runtime.chat.messages import UserMessage
from tests.support.rigs import StateRig
from tests.support.scripted import says

PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 30


def _image(data: bytes = PNG, media_type: str = "image/png", name: str = "shot.png") -> dict[str, str]:
    return {"media_type": media_type, "name": name, "data": base64.b64encode(data).decode()}


async def _turn(rig: StateRig, text: str, turn_id: str, images: list[dict[str, str]]) -> None:
    rig.host.send({"type": "user_message", "text": text, "turn_id": turn_id, "images": images})
    await rig.finished(turn_id)


async def test_images_are_stored_sent_and_shown_again(rig: StateRig) -> None:
    rig.provider.rounds = [says("A shot."), says("Same shot.")]
    await _turn(rig, "What is this?", "t1", [_image()])
    sent = rig.provider.calls[-1][0][-1]
    assert isinstance(sent, UserMessage) and [base64.b64decode(i.data) for i in sent.images] == [PNG]
    await rig.turn("And again?", "t2")
    first = rig.provider.calls[-1][0][1]
    assert isinstance(first, UserMessage) and first.content == "What is this?" and len(first.images) == 1
    view = await rig.result("session_current")
    (stored,) = view["messages"][0]["images"]
    assert (stored["name"], stored["media_type"], stored["size"]) == ("shot.png", "image/png", len(PNG))
    assert view["messages"][2]["images"] == []
    image = await rig.result("message_image", id=stored["id"])
    assert base64.b64decode(image["data"]) == PNG and image["media_type"] == "image/png"
    missing = await rig.request("message_image", id=stored["id"] + 100)
    assert not missing["ok"] and missing["error"]["code"] == "not_found"


async def test_a_refused_image_fails_the_turn_and_stores_nothing(rig: StateRig) -> None:
    await _turn(rig, "Look", "t1", [_image(b"<svg/>", "image/png", "fake.png")])
    (error,) = rig.events("error")
    assert error["code"] == "image_refused" and "“fake.png” is not a PNG, JPEG, GIF or WebP" in error["message"]
    assert "Nothing was sent" in error["message"]
    assert rig.provider.calls == []
    assert (await rig.result("session_current"))["messages"] == []


async def test_workspace_images_are_read_for_the_card(rig: StateRig) -> None:
    (rig.workspace / "plot.png").write_bytes(PNG)
    (rig.workspace / "plot.svg").write_text("<svg/>")
    (rig.workspace / "notes.txt").write_text("no")
    got = await rig.result("workspace_image", path="plot.png")
    assert (got["media_type"], base64.b64decode(got["data"])) == ("image/png", PNG)
    assert (await rig.result("workspace_image", path="plot.svg"))["media_type"] == "image/svg+xml"
    for path, code in [("notes.txt", "bad_params"), ("gone.png", "not_found"), ("../out.png", "not_found")]:
        reply = await rig.request("workspace_image", path=path)
        assert not reply["ok"] and reply["error"]["code"] == code, path

"""``chat_import`` through a real session: a Tidepool export, a ChatGPT export and a refused file."""

from __future__ import annotations

import json
from pathlib import Path

from tests.support.rigs import StateRig
from tests.support.scripted import says

FIXTURES = Path(__file__).parents[2] / "fixtures" / "chat_import"


async def test_a_tidepool_export_comes_back_as_a_second_session(rig: StateRig, tmp_path: Path) -> None:
    rig.provider.rounds = [says("Hello!")]
    await rig.turn("first chat", "t1")
    first = rig.events("session_opened")[0]["session_id"]
    exported = await rig.result("session_export", session_id=first, format="json")
    upload = tmp_path / "chat.json"
    upload.write_text(exported["text"])
    report = await rig.result("chat_import", filename="chat.json", path=str(upload), size=upload.stat().st_size)
    assert report["state"] == "ok" and report["problems"] == []
    (entry,) = report["imported"]
    assert entry["source"] == "tidepool" and entry["messages"] == 2 and entry["session"]["id"] != first
    again = await rig.result("session_export", session_id=entry["session"]["id"], format="json")

    def messages(document: str) -> list[dict[str, object]]:
        return [{k: v for k, v in m.items() if k != "session_id"} for m in json.loads(document)["messages"]]

    assert messages(again["text"]) == messages(exported["text"])
    saves = [f for f in rig.host.flushes if f["what"] == "state"]
    assert saves, "the import was saved"


async def test_a_chatgpt_export_imports_its_chats_and_names_what_did_not_come_in(rig: StateRig) -> None:
    path = FIXTURES / "chatgpt_conversations.json"
    report = await rig.result("chat_import", filename="conversations.json", path=str(path), size=path.stat().st_size)
    assert report["state"] == "partial"
    assert [(i["source"], i["messages"], i["branches"]) for i in report["imported"]] == [
        ("chatgpt", 4, 2),
        ("chatgpt", 2, 1),
    ]
    assert any("image" in p for p in report["problems"]) and any("New chat" in p for p in report["problems"])
    listed = await rig.result("sessions_list")
    assert "Trip to Lisbon" in [s["title"] for s in listed["sessions"]]
    opened = await rig.result("session_open", session_id=report["imported"][0]["session"]["id"])
    assert opened["messages"][0]["text"] == "Plan three days in Lisbon."


async def test_a_foreign_file_is_rejected_with_the_reason(rig: StateRig, tmp_path: Path) -> None:
    before = (await rig.result("sessions_list"))["sessions"]
    upload = tmp_path / "notes.json"
    upload.write_text('{"todo": ["kelp"]}')
    report = await rig.result("chat_import", filename="notes.json", path=str(upload), size=upload.stat().st_size)
    assert report["state"] == "rejected" and report["imported"] == []
    assert "neither a ChatGPT nor a Claude conversation" in report["message"]
    assert (await rig.result("sessions_list"))["sessions"] == before

"""Reading ChatGPT and Claude exports (fixtures built from the formats' documentation and public samples)."""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path

import pytest

from runtime.chat_import import ImportRefused, read_export, reader

FIXTURES = Path(__file__).parents[2] / "fixtures" / "chat_import"


def _bytes(name: str) -> bytes:
    return (FIXTURES / name).read_bytes()


def _zip(entries: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, body in entries.items():
            archive.writestr(name, body)
    return buffer.getvalue()


def test_chatgpt_branches_current_path_and_hidden_messages() -> None:
    report = read_export(_bytes("chatgpt_conversations.json"), "conversations.json")
    lisbon = report.chats[0]
    assert lisbon.source == "chatgpt" and lisbon.title == "Trip to Lisbon"
    assert lisbon.created == "2026-01-01T00:00:00.000Z" and lisbon.updated == "2026-01-01T00:10:00.000Z"
    path = lisbon.path()
    assert [m.role for m in path] == ["user", "assistant", "user", "assistant"]
    assert path[0].text == "Plan three days in Lisbon."  # the hidden system prompt and custom instructions left out
    assert path[1].text.endswith("Day 3: Cascais.")  # the regenerated reply is the one shown
    assert path[3].text == "Add the Gulbenkian Museum on day 1." and path[3].reasoning == "The Gulbenkian fits day 1."
    assert lisbon.branch_count() == 2
    other = lisbon.path(lisbon.leaves()[1])
    assert other[-1].text.startswith("Day 1: Alfama.") and other[0] is path[0]


def test_chatgpt_tool_steps_fold_into_the_reply_and_images_are_reported() -> None:
    report = read_export(_bytes("chatgpt_conversations.json"), "conversations.json")
    plot = report.chats[1]
    assert plot.title == ""  # no title in the export: the store names it from the first message
    path = plot.path()
    assert [m.role for m in path] == ["user", "assistant"]
    assert "[image not imported]" in path[0].text and "[attached: numbers.png]" in path[0].text
    assert "plt.plot([1, 2, 3])" in path[1].text and "<Figure size 640x480>" in path[1].text
    assert path[1].text.endswith("Here is the plot of 1, 2, 3.")
    assert any("image" in p for p in plot.problems) and any("numbers.png" in p for p in plot.problems)


def test_chatgpt_an_empty_conversation_is_listed_not_imported() -> None:
    report = read_export(_bytes("chatgpt_conversations.json"), "conversations.json")
    assert len(report.chats) == 2 and report.state == "partial"
    assert any("New chat" in s and "no message" in s for s in report.skipped)


def test_the_2026_zip_of_many_conversation_files() -> None:
    items = json.loads(_bytes("chatgpt_conversations.json"))
    data = _zip(
        {
            "conversations-000.json": json.dumps(items[:1]).encode(),
            "conversations-001.json": json.dumps(items[1:]).encode(),
            "user.json": b'{"id": "user-1"}',
            "file-AbC123-numbers.png": b"\x89PNG...",
        }
    )
    report = read_export(data, "export.zip")
    assert [c.title for c in report.chats] == ["Trip to Lisbon", ""]
    assert any("user.json" in s for s in report.skipped)  # a json that holds no conversation is named


def test_claude_tree_edits_and_blocks() -> None:
    report = read_export(_bytes("claude_conversations.json"), "conversations.json")
    haiku = report.chats[0]
    assert haiku.source == "claude" and haiku.updated == "2026-02-01T09:10:00.123Z"
    path = haiku.path()
    assert [m.text.splitlines()[0] for m in path] == [
        "Write a haiku about tide pools.",
        "*Used Claude's tool web_search:*",
    ]
    assert path[1].reasoning == "Five, seven, five."
    assert "anemones, crabs" in path[1].text and path[1].text.endswith("until the tide comes")
    assert haiku.branch_count() == 2 and haiku.path(haiku.leaves()[1])[-1].text == "Moon pulls the water"


def test_claude_old_export_attachments_and_missing_title() -> None:
    report = read_export(_bytes("claude_conversations.json"), "conversations.json")
    old = report.chats[1]
    assert old.title == "" and [m.role for m in old.path()] == ["user", "assistant"]
    assert "Buy kelp. Call Ana." in old.path()[0].text and "[attached: photo.jpg]" in old.path()[0].text
    assert old.problems == ("the file photo.jpg is not in the export (only its name is kept)",)
    assert any("Empty" in s for s in report.skipped) and report.state == "partial"


@pytest.mark.parametrize(
    ("data", "why"),
    [
        (b"{not json", "not valid JSON"),
        (b"\xff\xfe\x00", "not text"),
        (b'{"hello": "world"}', "neither a ChatGPT nor a Claude conversation"),
        (b"PK\x03\x04garbage", "zip is damaged"),
        (b"[]", "holds no chat"),
    ],
)
def test_foreign_or_damaged_files_are_refused_with_the_reason(data: bytes, why: str) -> None:
    with pytest.raises(ImportRefused, match=why):
        read_export(data, "upload")


def test_a_zip_without_conversations_is_refused() -> None:
    with pytest.raises(ImportRefused, match=r"no conversations\.json"):
        read_export(_zip({"notes/readme.txt": b"hi"}), "export.zip")


def test_a_zip_bomb_costs_at_most_the_cap(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(reader, "MAX_FILE", 4 * 2**20)
    buffer = io.BytesIO()
    with (
        zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive,
        archive.open("conversations.json", "w", force_zip64=True) as entry,
    ):
        chunk = b" " * (1 << 20)
        for _ in range(64):  # 64 MB of spaces, 64 kB zipped
            entry.write(chunk)
    with pytest.raises(ImportRefused, match="more than 4 MB"):
        read_export(buffer.getvalue(), "bomb.zip")

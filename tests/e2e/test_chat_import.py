"""Importing chats from the Profile panel: Tidepool's own export round-trips exactly into an empty
profile; ChatGPT's 2026 zip and Claude's export come in as chats the model continues; a foreign file
is rejected with the reason and nothing changes."""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path

from playwright.sync_api import Browser, Locator, Page, expect

from scripts.fakes.fake_llm import FakeLLM
from scripts.fakes.replies import Reply
from tests.e2e.conftest import RESULTS, running_app
from tests.e2e.ui import REPLY_TIMEOUT_MS, messages, send_for_reply, wait_ready

FIXTURES = Path(__file__).parents[1] / "fixtures" / "chat_import"
COMPLETIONS = "/api/v1/chat/completions"


def open_profile(page: Page) -> None:
    if not page.get_by_test_id("chat-import").is_visible():
        page.get_by_test_id("profile-open").click()


def import_file(page: Page, path: Path) -> None:
    open_profile(page)
    page.get_by_test_id("chat-import").set_input_files(str(path))


def entry_titled(page: Page, title: str) -> Locator:
    return page.get_by_test_id("session-entry").filter(has_text=title)


def export_json(page: Page, title: str, where: Path) -> dict[str, object]:
    target = entry_titled(page, title)
    target.hover()
    with page.expect_download(timeout=REPLY_TIMEOUT_MS) as info:
        target.get_by_test_id("session-export-json").click()
    saved = where / info.value.suggested_filename
    info.value.save_as(saved)
    return json.loads(saved.read_text(encoding="utf-8"))


def test_a_tidepool_export_round_trips_exactly_into_an_empty_profile(
    chat: Page, fake: FakeLLM, browser: Browser, server: str, tmp_path: Path
) -> None:
    fake.script([Reply.text("Take tram 28 up to the castle.")])
    expect(send_for_reply(chat, "How do I get around Lisbon?")).to_have_text(
        "Take tram 28 up to the castle.", timeout=REPLY_TIMEOUT_MS
    )
    wait_ready(chat)
    (tmp_path / "out").mkdir()
    original = export_json(chat, "How do I get around Lisbon?", tmp_path / "out")
    upload = tmp_path / "lisbon.json"
    upload.write_text(json.dumps(original), encoding="utf-8")
    with running_app(browser, server + "/") as fresh:
        page = fresh.page
        wait_ready(page)
        import_file(page, upload)
        report = page.get_by_test_id("chat-import-report")
        expect(report).to_have_attribute("data-state", "ok", timeout=REPLY_TIMEOUT_MS)
        expect(report).to_contain_text("Imported 1 chat")
        report.get_by_role("button", name="How do I get around Lisbon?").click()
        expect(messages(page, "assistant")).to_have_text(["Take tram 28 up to the castle."])
        (tmp_path / "again").mkdir()
        again = export_json(page, "How do I get around Lisbon?", tmp_path / "again")
        assert again == original


def test_chatgpt_zip_and_claude_export_come_in_and_the_model_continues_them(
    chat: Page, fake: FakeLLM, tmp_path: Path
) -> None:
    conversations = json.loads((FIXTURES / "chatgpt_conversations.json").read_text(encoding="utf-8"))
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("conversations-000.json", json.dumps(conversations[:1]))
        archive.writestr("conversations-001.json", json.dumps(conversations[1:]))
        archive.writestr("user.json", "{}")
    upload = tmp_path / "chatgpt-export.zip"
    upload.write_bytes(buffer.getvalue())
    import_file(chat, upload)
    report = chat.get_by_test_id("chat-import-report")
    expect(report).to_have_attribute("data-state", "partial", timeout=REPLY_TIMEOUT_MS)
    expect(report).to_contain_text("Trip to Lisbon")
    expect(report.locator("details")).to_contain_text("image")
    chat.screenshot(path=str(RESULTS / "chat-import-report.png"))
    report.get_by_role("button", name="Trip to Lisbon").click()
    expect(messages(chat, "user").first).to_have_text("Plan three days in Lisbon.")
    expect(messages(chat, "assistant").last).to_contain_text("Gulbenkian")
    fake.script([Reply.text("Day 4: Sintra.")])
    expect(send_for_reply(chat, "And a fourth day?")).to_have_text("Day 4: Sintra.", timeout=REPLY_TIMEOUT_MS)
    sent = fake.requests_to(COMPLETIONS)[-1].json()["messages"]
    texts = [m["content"] if isinstance(m["content"], str) else json.dumps(m["content"]) for m in sent]
    assert any("Plan three days in Lisbon." in t for t in texts) and "Day 3: Cascais." in " ".join(texts)
    assert "Day 3: Sintra." not in " ".join(texts), "the branch ChatGPT did not show stays out of the context"
    wait_ready(chat)

    import_file(chat, FIXTURES / "claude_conversations.json")
    expect(report).to_have_attribute("data-state", "partial", timeout=REPLY_TIMEOUT_MS)
    expect(report).to_contain_text("Haiku about tides")
    expect(entry_titled(chat, "Haiku about tides")).to_have_count(1)


def test_a_foreign_file_is_rejected_and_nothing_changes(chat: Page, tmp_path: Path) -> None:
    before = chat.get_by_test_id("session-entry").count()
    upload = tmp_path / "notes.json"
    upload.write_text('{"todo": ["kelp"]}', encoding="utf-8")
    import_file(chat, upload)
    report = chat.get_by_test_id("chat-import-report")
    expect(report).to_have_attribute("data-state", "rejected", timeout=REPLY_TIMEOUT_MS)
    expect(report).to_contain_text("neither a ChatGPT nor a Claude conversation")
    expect(chat.get_by_test_id("session-entry")).to_have_count(before)

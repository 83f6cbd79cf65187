"""Branches: an edit or a regenerate keeps the turns it replaced as another version of the message,
reachable with `branch-prev` / `branch-next` (`data-branch="k/n"`); the model continues from the version
in view, a reload shows the same one, and `message-fork` starts a new chat from any message."""

from __future__ import annotations

from playwright.sync_api import Locator, Page, expect

from scripts.fakes.fake_llm import FakeLLM
from scripts.fakes.replies import Reply
from tests.e2e.ui import REPLY_TIMEOUT_MS, dump_storage, eventually, messages, send, send_for_reply, wait_ready


def _new_chat(page: Page) -> None:
    wait_ready(page)
    page.get_by_test_id("session-new").click()
    expect(messages(page, "user")).to_have_count(0, timeout=REPLY_TIMEOUT_MS)


def _edit(page: Page, message: Locator, text: str) -> None:
    wait_ready(page)
    message.get_by_test_id("message-edit").click()
    message.get_by_test_id("message-edit-input").fill(text)
    message.get_by_test_id("message-edit-save").click()


def _texts(page: Page) -> list[str]:
    # Their text, not their rendered text: a stored reply is laid out lazily (content-visibility: auto), so right
    # after a chat is drawn its rendered text can read empty until the next frame.
    shown: list[str] = page.locator('[data-testid="message"] .message-body').all_text_contents()
    return [t.strip() for t in shown]


def _saved(page: Page) -> str:
    """The state database as saved in OPFS (SQLite keeps short UTF-8 text as is)."""
    saved: str = dump_storage(page)["opfs"].get("tidepool/workspaces/default/state/current.sqlite", "")
    return saved


def _sent(fake: FakeLLM) -> list[tuple[str, str]]:
    request = fake.requests_to("/api/v1/chat/completions")[-1].json()
    return [(m["role"], m["content"]) for m in request["messages"][1:]]


def test_edits_are_versions_the_model_continues_from_the_one_in_view(chat: Page, fake: FakeLLM) -> None:
    page = chat
    _new_chat(page)
    fake.script([Reply.text(t) for t in ("A1", "A2 first", "A2 second", "A3 on second", "A2 third", "A4 on second")])
    expect(send_for_reply(page, "Q1")).to_contain_text("A1", timeout=REPLY_TIMEOUT_MS)
    send(page, "Q2 first")
    expect(messages(page, "assistant").nth(1)).to_contain_text("A2 first", timeout=REPLY_TIMEOUT_MS)
    second = messages(page, "user").nth(1)
    _edit(page, second, "Q2 second")
    expect(second).to_have_attribute("data-branch", "2/2", timeout=REPLY_TIMEOUT_MS)
    send(page, "Q3 on second")
    expect(messages(page, "assistant").last).to_contain_text("A3 on second", timeout=REPLY_TIMEOUT_MS)
    _edit(page, messages(page, "user").nth(1), "Q2 third")
    expect(messages(page, "assistant").last).to_contain_text("A2 third", timeout=REPLY_TIMEOUT_MS)
    second = messages(page, "user").nth(1)
    expect(second).to_have_attribute("data-branch", "3/3", timeout=REPLY_TIMEOUT_MS)
    expect(second.get_by_test_id("branch-next")).to_be_disabled()
    second.get_by_test_id("branch-prev").click()
    expect(messages(page, "user").nth(1)).to_have_attribute("data-branch", "2/3", timeout=REPLY_TIMEOUT_MS)
    assert _texts(page) == ["Q1", "A1", "Q2 second", "A2 second", "Q3 on second", "A3 on second"]
    send(page, "Q4")
    expect(messages(page, "assistant").last).to_contain_text("A4 on second", timeout=REPLY_TIMEOUT_MS)
    assert _sent(fake) == [
        ("user", "Q1"),
        ("assistant", "A1"),
        ("user", "Q2 second"),
        ("assistant", "A2 second"),
        ("user", "Q3 on second"),
        ("assistant", "A3 on second"),
        ("user", "Q4"),
    ], "the model continues from the version in view"
    eventually(page, lambda: "A4 on second" in _saved(page), 20, "the turn to be saved")
    page.reload()
    wait_ready(page)
    expect(messages(page, "user").nth(1)).to_have_attribute("data-branch", "2/3", timeout=REPLY_TIMEOUT_MS)
    expect(messages(page, "assistant").last).to_contain_text("A4 on second", timeout=REPLY_TIMEOUT_MS)
    # Keyboard: Enter on the focused arrow; the first version has its prev disabled.
    prev = messages(page, "user").nth(1).get_by_test_id("branch-prev")
    prev.focus()
    page.keyboard.press("Enter")
    expect(messages(page, "user").nth(1)).to_have_attribute("data-branch", "1/3", timeout=REPLY_TIMEOUT_MS)
    expect(messages(page, "user").nth(1).get_by_test_id("branch-prev")).to_be_disabled()
    expect(messages(page, "user").nth(1).get_by_test_id("branch-next")).to_be_focused()
    assert _texts(page) == ["Q1", "A1", "Q2 first", "A2 first"]


def test_regenerate_puts_the_versions_on_the_reply_and_fits_a_phone(chat: Page, fake: FakeLLM) -> None:
    page = chat
    _new_chat(page)
    fake.script([Reply.text("R1"), Reply.text("R2")])
    send_for_reply(page, "Ask me")
    expect(messages(page, "assistant").last).to_contain_text("R1", timeout=REPLY_TIMEOUT_MS)
    wait_ready(page)
    page.get_by_test_id("message-regenerate").click()
    expect(messages(page, "assistant").last).to_contain_text("R2", timeout=REPLY_TIMEOUT_MS)
    reply = messages(page, "assistant").last
    expect(reply).to_have_attribute("data-branch", "2/2", timeout=REPLY_TIMEOUT_MS)
    expect(messages(page, "user").last).not_to_have_attribute("data-branch", "2/2")
    page.set_viewport_size({"width": 390, "height": 800})
    try:
        box = reply.get_by_test_id("branch-prev").bounding_box()
        after = reply.get_by_test_id("branch-next").bounding_box()
        assert box and after and box["x"] >= 0 and after["x"] + after["width"] <= 390, "the arrows fit a phone"
        reply.get_by_test_id("branch-prev").click()
    finally:
        page.set_viewport_size({"width": 1280, "height": 800})
    expect(messages(page, "assistant").last).to_have_attribute("data-branch", "1/2", timeout=REPLY_TIMEOUT_MS)
    assert _texts(page) == ["Ask me", "R1"]


def test_fork_starts_a_new_chat_with_the_history_up_to_a_message(chat: Page, fake: FakeLLM) -> None:
    page = chat
    _new_chat(page)
    fake.script([Reply.text("First answer"), Reply.text("Second answer"), Reply.text("In the fork")])
    expect(send_for_reply(page, "First question")).to_contain_text("First answer", timeout=REPLY_TIMEOUT_MS)
    send(page, "Second question")
    expect(messages(page, "assistant").last).to_contain_text("Second answer", timeout=REPLY_TIMEOUT_MS)
    wait_ready(page)
    original = page.locator('[data-testid="session-entry"][aria-current="true"]').get_attribute("data-session-id")
    entries = page.get_by_test_id("session-entry").count()
    messages(page, "assistant").first.get_by_test_id("message-fork").click()
    expect(page.get_by_test_id("session-entry")).to_have_count(entries + 1, timeout=REPLY_TIMEOUT_MS)
    expect(messages(page, "user")).to_have_count(1, timeout=REPLY_TIMEOUT_MS)
    assert _texts(page) == ["First question", "First answer"]
    current = page.locator('[data-testid="session-entry"][aria-current="true"]')
    expect(current).to_contain_text("Fork of First question")
    assert current.get_attribute("data-session-id") != original
    send(page, "Go on")
    expect(messages(page, "assistant").last).to_contain_text("In the fork", timeout=REPLY_TIMEOUT_MS)
    assert _sent(fake) == [("user", "First question"), ("assistant", "First answer"), ("user", "Go on")]
    wait_ready(page)
    page.locator(f'[data-testid="session-entry"][data-session-id="{original}"]').click()
    expect(messages(page, "assistant").last).to_contain_text("Second answer", timeout=REPLY_TIMEOUT_MS)
    assert _texts(page) == ["First question", "First answer", "Second question", "Second answer"]

"""Everyday chat: messages wait for the settings saved before them, Esc closes panels, and each message
can be copied, the last reply regenerated and a sent message edited and sent again."""

from __future__ import annotations

from playwright.sync_api import Page, expect

from scripts.fakes.catalog import OLLAMA_MODELS
from scripts.fakes.fake_llm import FakeLLM
from scripts.fakes.replies import Reply
from tests.e2e.conftest import KEY, MODEL, App
from tests.e2e.ui import (
    REPLY_TIMEOUT_MS,
    choose_model,
    configure_provider,
    dump_storage,
    eventually,
    messages,
    open_settings,
    send,
    send_for_reply,
    wait_ready,
)


def _connect(app: App, fake: FakeLLM) -> Page:
    page = app.page
    wait_ready(page)
    configure_provider(page, "openrouter", f"{fake.base_url}/api/v1", KEY)
    expect(page.get_by_test_id("connection-status")).to_have_attribute("data-state", "ok", timeout=REPLY_TIMEOUT_MS)
    choose_model(page, MODEL)
    return page


def test_a_message_sent_right_after_save_uses_the_saved_settings(app: App, fake: FakeLLM) -> None:
    page = _connect(app, fake)
    fake.script([Reply.text("Answered by the local model.")])
    # Switch to Ollama, press Save, and send at once, before the new connection has been checked.
    open_settings(page)
    page.get_by_test_id("provider-select").select_option("ollama")
    page.get_by_test_id("base-url-input").fill(fake.base_url)
    page.get_by_test_id("settings-save").click()
    page.get_by_test_id("chat-input").fill("Which model are you?")
    page.get_by_test_id("chat-input").press("Enter")
    reply = messages(page, "assistant").last
    expect(reply).to_contain_text("Answered by the local model.", timeout=REPLY_TIMEOUT_MS)
    expect(messages(page, "error")).to_have_count(0, timeout=REPLY_TIMEOUT_MS)
    (request,) = fake.requests_to("/api/chat", "POST")  # Ollama's native chat
    assert request.json()["model"] == OLLAMA_MODELS[0]["name"], "the model chosen for the saved provider"
    assert not fake.requests_to("/api/v1/chat/completions"), "nothing went to the provider saved before"


def test_settings_close_after_a_save_that_connects_and_esc_closes_panels(app: App, fake: FakeLLM) -> None:
    page = app.page
    wait_ready(page)
    configure_provider(page, "openrouter", f"{fake.base_url}/api/v1", KEY)
    expect(page.get_by_test_id("connection-status")).to_have_attribute("data-state", "ok", timeout=REPLY_TIMEOUT_MS)
    expect(page.get_by_test_id("provider-select")).to_be_hidden()
    # A save that does not connect keeps the panel open, to show why.
    configure_provider(page, "openrouter", "http://127.0.0.1:9/api/v1")
    expect(page.get_by_test_id("connection-status")).to_have_attribute("data-state", "error", timeout=REPLY_TIMEOUT_MS)
    expect(page.get_by_test_id("provider-select")).to_be_visible()
    page.keyboard.press("Escape")
    expect(page.get_by_test_id("provider-select")).to_be_hidden()
    for button, inside in [
        ("files-open", "workspace-export"),
        ("memory-open", "memory-search"),
        ("skills-open", "skill-import-url"),
    ]:
        page.get_by_test_id(button).click()
        expect(page.get_by_test_id(inside)).to_be_visible()
        page.keyboard.press("Escape")
        expect(page.get_by_test_id(inside)).to_be_hidden()


def test_copy_gives_the_markdown_source(app: App, fake: FakeLLM) -> None:
    app.context.grant_permissions(["clipboard-read", "clipboard-write"])
    page = _connect(app, fake)
    fake.script([Reply.text("Use **bold** and `code`.")])
    reply = send_for_reply(page, "Show me markdown")
    expect(reply.locator("strong")).to_have_text("bold", timeout=REPLY_TIMEOUT_MS)
    wait_ready(page)
    reply.get_by_test_id("message-copy").click()
    eventually(page, lambda: _clipboard(page) == "Use **bold** and `code`.", what="the reply's markdown copied")
    messages(page, "user").last.get_by_test_id("message-copy").click()
    eventually(page, lambda: _clipboard(page) == "Show me markdown", what="the message copied")


def saved_state(page: Page) -> str:
    """The state database as saved in OPFS (SQLite keeps short UTF-8 text as is)."""
    saved: str = dump_storage(page)["opfs"].get("tidepool/workspaces/default/state/current.sqlite", "")
    return saved


def _clipboard(page: Page) -> str:
    text: str = page.evaluate("navigator.clipboard.readText()")
    return text


def test_regenerate_replaces_the_last_reply(app: App, fake: FakeLLM) -> None:
    page = _connect(app, fake)
    fake.script([Reply.text("A first answer."), Reply.text("A better answer.")])
    reply = send_for_reply(page, "Tell me something")
    expect(reply).to_contain_text("A first answer.", timeout=REPLY_TIMEOUT_MS)
    regenerate = page.get_by_test_id("message-regenerate")
    expect(regenerate).to_have_count(1, timeout=REPLY_TIMEOUT_MS)
    regenerate.click()
    expect(messages(page, "assistant")).to_have_count(1, timeout=REPLY_TIMEOUT_MS)
    expect(messages(page, "assistant").last).to_contain_text("A better answer.", timeout=REPLY_TIMEOUT_MS)
    expect(messages(page, "user")).to_have_count(1, timeout=REPLY_TIMEOUT_MS)
    _first, again = fake.requests_to("/api/v1/chat/completions")
    assert [m["role"] for m in again.json()["messages"]] == ["system", "user"]
    assert again.json()["messages"][1]["content"] == "Tell me something"
    eventually(page, lambda: "A better answer." in saved_state(page), 15, "the new reply to be saved")
    page.reload()  # the stored conversation is the new branch
    wait_ready(page)
    expect(messages(page, "assistant")).to_have_count(1, timeout=REPLY_TIMEOUT_MS)
    expect(messages(page, "assistant").last).to_contain_text("A better answer.")


def test_editing_a_message_resends_it_and_replaces_the_later_turns(app: App, fake: FakeLLM) -> None:
    page = _connect(app, fake)
    fake.script([Reply.text("Paris."), Reply.text("About two million."), Reply.text("Rome.")])
    send_for_reply(page, "Capital of France?")
    expect(messages(page, "assistant").last).to_contain_text("Paris.", timeout=REPLY_TIMEOUT_MS)
    send(page, "How many people live there?")
    expect(messages(page, "assistant").nth(1)).to_contain_text("About two million.", timeout=REPLY_TIMEOUT_MS)
    wait_ready(page)
    first = messages(page, "user").first
    first.get_by_test_id("message-edit").click()
    box = first.get_by_test_id("message-edit-input")
    expect(box).to_have_value("Capital of France?")
    box.fill("Capital of Italy?")
    first.get_by_test_id("message-edit-save").click()
    expect(messages(page, "assistant").last).to_contain_text("Rome.", timeout=REPLY_TIMEOUT_MS)
    expect(messages(page, "user")).to_have_count(1, timeout=REPLY_TIMEOUT_MS)
    expect(messages(page, "user").first).to_contain_text("Capital of Italy?")
    expect(messages(page, "assistant")).to_have_count(1, timeout=REPLY_TIMEOUT_MS)
    sent = fake.requests_to("/api/v1/chat/completions")[-1].json()["messages"]
    assert [(m["role"], m["content"]) for m in sent[1:]] == [("user", "Capital of Italy?")]
    # ↑ in the empty box opens the last message for editing; Esc leaves it as it was.
    wait_ready(page)
    page.get_by_test_id("chat-input").press("ArrowUp")
    expect(page.get_by_test_id("message-edit-input")).to_be_focused()
    page.keyboard.press("Escape")
    expect(page.get_by_test_id("message-edit-input")).to_have_count(0, timeout=REPLY_TIMEOUT_MS)
    # "/" puts the cursor in the message box; Ctrl+Shift+O starts a new chat.
    page.evaluate("document.activeElement.blur()")
    page.keyboard.press("/")
    expect(page.get_by_test_id("chat-input")).to_be_focused()
    expect(page.get_by_test_id("chat-input")).to_have_value("")
    page.keyboard.press("Control+Shift+O")
    expect(page.get_by_test_id("session-entry")).to_have_count(2, timeout=REPLY_TIMEOUT_MS)
    expect(messages(page, "user")).to_have_count(0, timeout=REPLY_TIMEOUT_MS)


BODY_TEXT = "(el) => el.querySelector('.message-body').textContent"


def test_a_long_paste_is_sent_whole_and_shown_in_blocks_of_its_lines(app: App, fake: FakeLLM) -> None:
    """A 400 KB paste is laid out only where it is read: its lines in blocks (joined, the text as sent), the
    message as wide as one may be, the chat at its end; edited, and after a reload, the same."""
    page = _connect(app, fake)
    text = "\n".join(f"line {n}: a pasted line of code, with words enough to wrap on a phone" for n in range(5500))
    fake.script([Reply.text("Got it."), Reply.text("Again.")])
    app.context.grant_permissions(["clipboard-read", "clipboard-write"])
    page.evaluate("(text) => navigator.clipboard.writeText(text)", text)
    box = page.get_by_test_id("chat-input")
    box.focus()
    box.press("Control+V")  # a paste: half a second here (typed in, by `fill` or `insert_text`, it takes minutes)
    box.press("Enter")
    expect(messages(page, "assistant").last).to_contain_text("Got it.", timeout=REPLY_TIMEOUT_MS)
    assert fake.requests_to("/api/v1/chat/completions")[-1].json()["messages"][-1]["content"] == text
    user = messages(page, "user").last
    assert user.evaluate(BODY_TEXT) == text
    assert user.locator(".text-block").count() > 90
    width, room = user.evaluate("(el) => [el.getBoundingClientRect().width, el.parentElement.clientWidth]")
    assert abs(width - 0.8 * room) < 2, (width, room)
    expect(messages(page, "assistant").last).to_be_in_viewport()
    wait_ready(page)
    user.get_by_test_id("message-edit").click()
    editor = user.get_by_test_id("message-edit-input")
    expect(editor).to_have_value(text)
    editor.press("Control+End")
    page.keyboard.insert_text("\nand one line more")
    user.get_by_test_id("message-edit-save").click()
    expect(messages(page, "assistant").last).to_contain_text("Again.", timeout=REPLY_TIMEOUT_MS)
    assert messages(page, "user").last.evaluate(BODY_TEXT) == text + "\nand one line more"
    wait_ready(page)
    page.reload()
    wait_ready(page)
    expect(messages(page, "assistant").last).to_contain_text("Again.", timeout=REPLY_TIMEOUT_MS)
    expect(messages(page, "assistant").last).to_be_in_viewport()
    user = messages(page, "user").last
    assert user.evaluate(BODY_TEXT) == text + "\nand one line more"
    assert user.locator(".text-block").count() > 90

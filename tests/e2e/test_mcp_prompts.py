"""A tool server's prompts as `/` commands, through the UI against the reference server-everything on
127.0.0.1: `/` opens the menu, typing filters it, keys and the mouse choose, Esc closes; a prompt with
arguments asks for them and refuses to run without the required one; its text goes to the fake model as
the person's turn, wrapped as outside text; a server's error is said in the form and what was typed stays;
the menu and the form fit a 390 px phone."""

from __future__ import annotations

import pytest
from playwright.sync_api import Locator, Page, expect

from scripts.fakes.fake_llm import FakeLLM
from scripts.fakes.replies import Reply
from tests.e2e.ui import REPLY_TIMEOUT_MS, last_message, wait_ready

CONNECT_TIMEOUT_MS = 30_000
COMPLETIONS = "/api/v1/chat/completions"


@pytest.fixture
def page(chat: Page, everything: str) -> Page:
    """The module's app with server-everything added once (its prompts listed)."""
    entry = chat.locator('[data-testid="tool-server-entry"][data-name="everything"]')
    if entry.count() == 0:
        chat.get_by_test_id("tool-servers-open").click()
        chat.get_by_test_id("tool-server-name").fill("everything")
        chat.get_by_test_id("tool-server-url").fill(everything)
        chat.get_by_test_id("tool-server-add").click()
        expect(entry).to_have_attribute("data-state", "connected", timeout=CONNECT_TIMEOUT_MS)
        chat.get_by_test_id("tool-servers-open").click()  # the panel closes
    return chat


def items(page: Page) -> Locator:
    return page.get_by_test_id("slash-menu").get_by_test_id("slash-item")


def type_in_box(page: Page, text: str) -> Locator:
    box = page.get_by_test_id("chat-input")
    box.fill("")
    box.press_sequentially(text)
    return box


def last_user_content(fake: FakeLLM) -> str:
    body = fake.requests_to(COMPLETIONS)[-1].json()
    content = [m for m in body["messages"] if m["role"] == "user"][-1]["content"]
    return content if isinstance(content, str) else "".join(p.get("text", "") for p in content)


def test_a_prompt_with_arguments_asks_refuses_then_goes_to_the_model(page: Page, fake: FakeLLM) -> None:
    box = type_in_box(page, "/")
    expect(page.get_by_test_id("slash-menu")).to_be_visible()
    expect(items(page).filter(has_text="/everything:simple-prompt")).to_have_count(1)
    box.press_sequentially("everything:args")
    expect(items(page)).to_have_count(1)
    expect(items(page).first).to_have_attribute("data-command", "/everything:args-prompt")
    box.press("Enter")
    expect(page.get_by_test_id("slash-menu")).to_be_hidden()
    form = page.get_by_test_id("prompt-form")
    expect(form).to_be_visible()
    city = form.locator('[data-testid="prompt-arg"][data-name="city"]')
    expect(city).to_have_attribute("aria-required", "true")
    expect(form.locator('[data-testid="prompt-arg"][data-name="state"]')).to_have_attribute("aria-required", "false")

    before = len(fake.requests_to(COMPLETIONS))
    page.get_by_test_id("prompt-run").click()
    expect(form.get_by_test_id("prompt-error")).to_contain_text("city")
    form.get_by_test_id("prompt-error").evaluate("node => { node.textContent = '' }")
    box.press("Enter")  # Enter in the box, which holds the command, runs the form: refused again
    expect(form.get_by_test_id("prompt-error")).to_contain_text("Give city first")
    assert len(fake.requests_to(COMPLETIONS)) == before  # refused: nothing sent, not the command as text

    fake.script([Reply.text("Sunny in Lisbon.")])
    city.fill("Lisbon")
    page.get_by_test_id("prompt-run").click()
    expect(form).to_be_hidden(timeout=REPLY_TIMEOUT_MS)
    expect(last_message(page, "user")).to_contain_text("What's weather in Lisbon?")
    expect(last_message(page, "assistant")).to_have_text("Sunny in Lisbon.", timeout=REPLY_TIMEOUT_MS)
    expect(box).to_have_value("")  # the command went
    sent = last_user_content(fake)
    assert "What's weather in Lisbon?" in sent
    assert '<untrusted_content source="mcp:everything:args-prompt" kind="prompt">' in sent  # outside text
    fake.script([Reply.text("Cloudy in Lisbon.")])
    page.get_by_test_id("message-regenerate").click()  # the same prompt again: still outside text
    regenerated = last_message(page, "assistant")
    expect(regenerated.locator(".message-body")).to_have_text("Cloudy in Lisbon.", timeout=REPLY_TIMEOUT_MS)
    expect(regenerated).to_have_attribute("data-branch", "2/2")
    assert last_user_content(fake) == sent
    wait_ready(page)


def test_keys_mouse_and_escape(page: Page, fake: FakeLLM) -> None:
    box = type_in_box(page, "/everything:")
    count = items(page).count()
    assert count >= 3
    expect(items(page).nth(0)).to_have_class("slash-item active")
    box.press("ArrowDown")
    expect(items(page).nth(1)).to_have_class("slash-item active")
    box.press("ArrowUp")
    box.press("ArrowUp")
    expect(items(page).nth(count - 1)).to_have_class("slash-item active")  # wraps around
    box.press("Escape")
    expect(page.get_by_test_id("slash-menu")).to_be_hidden()
    expect(box).to_have_value("/everything:")  # what was typed stays

    box.press_sequentially("simple")
    items(page).filter(has_text="/everything:simple-prompt").click()
    form = page.get_by_test_id("prompt-form")
    expect(form).to_be_visible()
    expect(form.get_by_test_id("prompt-arg")).to_have_count(0)
    page.keyboard.press("Escape")  # the form closes, nothing is sent, the box keeps the command
    expect(form).to_be_hidden()
    expect(box).to_have_value("/everything:simple-prompt")

    fake.script([Reply.text("Simple it is.")])
    box.fill("/everything:simple-prompt")
    box.press("Tab")
    page.get_by_test_id("prompt-run").click()
    expect(last_message(page, "user")).to_contain_text("This is a simple prompt without arguments.")
    expect(last_message(page, "assistant")).to_have_text("Simple it is.", timeout=REPLY_TIMEOUT_MS)
    assert "This is a simple prompt without arguments." in last_user_content(fake)
    wait_ready(page)


def test_a_server_error_is_said_in_the_form_and_nothing_typed_is_lost(page: Page, fake: FakeLLM) -> None:
    box = type_in_box(page, "/everything:resource")
    box.press("Enter")
    form = page.get_by_test_id("prompt-form")
    kind = form.locator('[data-testid="prompt-arg"][data-name="resourceType"]')
    kind.fill("Nope")
    form.locator('[data-testid="prompt-arg"][data-name="resourceId"]').fill("1")
    before = len(fake.requests_to(COMPLETIONS))
    page.get_by_test_id("prompt-run").click()
    expect(form.get_by_test_id("prompt-error")).to_contain_text("Invalid resourceType", timeout=REPLY_TIMEOUT_MS)
    expect(kind).to_have_value("Nope")
    expect(box).to_have_value("/everything:resource-prompt")
    assert len(fake.requests_to(COMPLETIONS)) == before
    form.get_by_test_id("prompt-cancel").click()


def test_the_menu_and_form_fit_a_phone(page: Page) -> None:
    size = page.viewport_size
    page.set_viewport_size({"width": 390, "height": 800})
    try:
        type_in_box(page, "/")
        menu = page.get_by_test_id("slash-menu").bounding_box()
        assert menu is not None and menu["x"] >= 0 and menu["x"] + menu["width"] <= 390
        page.get_by_test_id("chat-input").press_sequentially("everything:args")
        page.get_by_test_id("chat-input").press("Enter")
        form = page.get_by_test_id("prompt-form").bounding_box()
        assert form is not None and form["x"] >= 0 and form["x"] + form["width"] <= 390 and form["y"] >= 0
        page.get_by_test_id("prompt-cancel").click()
    finally:
        if size:
            page.set_viewport_size(size)

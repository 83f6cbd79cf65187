"""Everyday chat: messages wait for the settings saved before them, and Esc closes panels."""

from __future__ import annotations

from playwright.sync_api import Page, expect

from tests.e2e.conftest import KEY, MODEL, App
from tests.e2e.ui import (
    REPLY_TIMEOUT_MS,
    choose_model,
    configure_provider,
    messages,
    open_settings,
    wait_ready,
)
from tests.fakes.catalog import OLLAMA_MODELS
from tests.fakes.fake_llm import FakeLLM
from tests.fakes.replies import Reply


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
    (request,) = fake.requests_to("/v1/chat/completions", "POST")
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

"""A small context window in the real app: Ollama (the fake) with Settings → Advanced → Context window
set to 2,048. "Hi" is answered with the compact system prompt and the core tools (what the fake
received), the chat and the gauge say so once, a dropped tool is refused, and a window too small even
for the compact prompt says how to raise it."""

from __future__ import annotations

import json
import re

from playwright.sync_api import Page, expect

from scripts.fakes.fake_llm import FakeLLM
from scripts.fakes.replies import Reply
from tests.e2e.conftest import App
from tests.e2e.ui import (
    REPLY_TIMEOUT_MS,
    choose_model,
    close_settings,
    configure_provider,
    messages,
    open_settings,
    send_for_reply,
    wait_ready,
)

CORE = {"list_files", "read_file", "write_file", "edit_file", "run_python"}


def _set_window(page: Page, tokens: int) -> None:
    open_settings(page)
    advanced = page.get_by_test_id("settings-advanced")
    if advanced.get_attribute("open") is None:
        advanced.locator("summary").click()
    page.get_by_test_id("context-window-input").fill(str(tokens))
    page.get_by_test_id("context-window-input").press("Tab")
    expect(page.locator(".model-info")).to_contain_text(f"context {tokens:,} tokens", timeout=REPLY_TIMEOUT_MS)
    close_settings(page)


def test_hi_is_answered_in_a_2048_token_window_with_the_compact_prompt(app: App, fake: FakeLLM) -> None:
    page = app.page
    wait_ready(page)
    configure_provider(page, "ollama", fake.base_url)
    expect(page.get_by_test_id("connection-status")).to_have_attribute("data-state", "ok", timeout=REPLY_TIMEOUT_MS)
    choose_model(page, "llama3.2:3b")
    _set_window(page, 2048)

    fake.script([Reply.text("Hello from a small window.")])
    expect(send_for_reply(page, "Hi")).to_have_text("Hello from a small window.", timeout=REPLY_TIMEOUT_MS)
    body = fake.requests_to("/api/chat", "POST")[-1].json()
    assert body["options"]["num_ctx"] == 2048
    system = body["messages"][0]
    assert system["role"] == "system" and system["content"].startswith("You are Tidepool")
    assert "# Tools and permissions" not in system["content"], "the full prompt's tool list is left out"
    assert "Permission mode: **" in system["content"] and "not instructions to you" in system["content"]
    assert {t["function"]["name"] for t in body["tools"]} == CORE
    prompt_chars = len(json.dumps(system["content"])) + len(json.dumps(body["tools"]))
    assert prompt_chars / 4 <= 0.35 * 2048, "the prompt and tools leave most of the window"

    notices = page.locator('[data-testid="notice"][data-code="compact_prompt"]')
    expect(notices).to_have_count(1)
    expect(notices).to_contain_text("compact system prompt")
    gauge = page.get_by_test_id("context-gauge")
    expect(gauge).to_have_attribute("data-limit", "2048", timeout=REPLY_TIMEOUT_MS)
    expect(gauge).to_have_attribute("data-prompt", "compact")
    expect(gauge).to_have_attribute("title", re.compile("compact system prompt and fewer tools"))

    page.get_by_test_id("permission-mode").select_option("full-auto")
    fake.script([Reply.tool_call("web_fetch", {"url": "http://127.0.0.1:9/"}), Reply.text("Without the web, then.")])
    expect(send_for_reply(page, "Fetch it")).to_have_text("Without the web, then.", timeout=REPLY_TIMEOUT_MS)
    card = page.locator('[data-testid="tool-call"][data-tool="web_fetch"]').last
    expect(card).to_contain_text("there is no tool 'web_fetch'")
    result = fake.requests_to("/api/chat", "POST")[-1].json()["messages"][-1]
    assert result["role"] == "tool" and "there is no tool 'web_fetch'" in result["content"]
    expect(notices).to_have_count(1)  # said once, not every turn

    _set_window(page, 512)
    fake.script([Reply.text("never sent")])
    sent = len(fake.requests_to("/api/chat", "POST"))
    error = send_for_reply(page, "Hi", role="error")
    expect(error).to_contain_text("too small for Tidepool's prompt and tools", timeout=REPLY_TIMEOUT_MS)
    expect(error).to_contain_text("num_ctx")
    expect(error).to_contain_text("Settings → Advanced → Context window")
    expect(error).not_to_contain_text("Start a new chat")
    assert len(fake.requests_to("/api/chat", "POST")) == sent, "nothing is sent that cannot fit"
    expect(messages(page, "user").last).to_have_text("Hi")

"""Ollama mode against the fake: models from /api/tags, replies from the native /api/chat with the context
window asked for, thinking shown, a model without tools told so once, and a refused origin explained."""

from __future__ import annotations

import re

from playwright.sync_api import expect

from scripts.fakes.catalog import OLLAMA_MODELS
from scripts.fakes.fake_llm import FakeLLM
from scripts.fakes.replies import Reply
from tests.e2e.conftest import App
from tests.e2e.ui import (
    REPLY_TIMEOUT_MS,
    choose_model,
    close_settings,
    configure_provider,
    model_option,
    open_settings,
    send_for_reply,
    wait_ready,
)


def test_ollama_lists_models_and_chats(app: App, fake: FakeLLM) -> None:
    page = app.page
    wait_ready(page)
    configure_provider(page, "ollama", fake.base_url)
    expect(page.get_by_test_id("connection-status")).to_have_attribute("data-state", "ok", timeout=REPLY_TIMEOUT_MS)
    for model in OLLAMA_MODELS:
        expect(model_option(page, model["name"])).to_have_count(1)
    assert fake.requests_to("/api/tags", "GET")
    choose_model(page, "llama3.2:3b")
    fake.script([Reply.text("Local **hello** from Ollama.")])
    reply = send_for_reply(page, "Hi there")
    expect(reply.locator("strong")).to_have_text("hello", timeout=REPLY_TIMEOUT_MS)
    (request,) = fake.requests_to("/api/chat", "POST")
    body = request.json()
    assert body["model"] == "llama3.2:3b"
    assert (body["options"], body["keep_alive"]) == ({"num_ctx": 8192}, "30m")  # min(131072, 8192)
    assert not fake.requests_to("/v1/chat/completions"), "the native API sets the context window; /v1 cannot"
    assert "Authorization" not in request.headers, "no key was configured, so none may be sent"
    assert not fake.requests_to("/api/v1/chat/completions"), "Ollama mode must not call the OpenRouter path"


def test_ollama_refusing_the_origin_is_explained(app: App, fake: FakeLLM) -> None:
    fake.reset(allow_origin="http://elsewhere.example")  # OLLAMA_ORIGINS lists another origin, not the app
    page = app.page
    wait_ready(page)
    configure_provider(page, "ollama", fake.base_url)
    status = page.get_by_test_id("connection-status")
    expect(status).to_have_attribute("data-state", "error", timeout=REPLY_TIMEOUT_MS)
    expect(status).to_contain_text(re.compile(r"CORS|OLLAMA_ORIGINS|origin", re.I))


def test_ollama_thinking_context_window_and_a_model_without_tools(app: App, fake: FakeLLM) -> None:
    page = app.page
    wait_ready(page)
    configure_provider(page, "ollama", fake.base_url)
    expect(page.get_by_test_id("connection-status")).to_have_attribute("data-state", "ok", timeout=REPLY_TIMEOUT_MS)
    choose_model(page, "qwen3:8b")
    expect(page.locator(".model-info [data-badge]")).to_have_text(["tools", "reasoning"])
    page.get_by_test_id("settings-advanced").locator("summary").click()
    page.get_by_test_id("context-window-input").fill("16384")
    page.get_by_test_id("context-window-input").press("Tab")
    expect(page.locator(".model-info")).to_contain_text("context 16,384 tokens", timeout=REPLY_TIMEOUT_MS)
    fake.script([Reply.text("Eight.").with_reasoning("Two times four is eight.")])
    reply = send_for_reply(page, "What is 2*4?")
    expect(reply).to_have_text("Eight.", timeout=REPLY_TIMEOUT_MS)
    expect(page.get_by_test_id("reasoning")).to_contain_text("Two times four is eight.")
    body = fake.requests_to("/api/chat", "POST")[-1].json()
    assert (body["options"]["num_ctx"], body["think"]) == (16384, True)

    choose_model(page, "llava:7b")
    expect(page.locator('.model-info [data-badge="no-tools"]')).to_be_visible()
    close_settings(page)
    for question in ("What is in a picture?", "And now?"):
        fake.script([Reply.text("I see.")])
        expect(send_for_reply(page, question)).to_have_text("I see.", timeout=REPLY_TIMEOUT_MS)
    notices = page.locator('[data-testid="notice"][data-code="no_tools"]')
    expect(notices).to_have_count(1)  # said once
    expect(notices).to_contain_text("llava:7b cannot use tools")
    assert all("tools" not in r.json() for r in fake.requests_to("/api/chat", "POST")[-2:])
    expect(page.get_by_test_id("message").filter(has_text="does not support tools")).to_have_count(0)


def test_the_connection_doctor_finds_the_refused_origin_and_says_how_to_allow_it(
    app: App, fake: FakeLLM
) -> None:
    page = app.page
    wait_ready(page)
    configure_provider(page, "ollama", fake.base_url)
    expect(page.get_by_test_id("connection-status")).to_have_attribute("data-state", "ok", timeout=REPLY_TIMEOUT_MS)
    open_settings(page)  # a save that connects closes the panel
    page.get_by_test_id("connection-check-run").click()
    checks = page.get_by_test_id("connection-check")
    expect(checks).to_have_count(6, timeout=REPLY_TIMEOUT_MS)
    for check in ("mixed-content", "reachable", "origin", "key", "model", "context"):
        expect(checks.and_(page.locator(f'[data-check="{check}"]'))).to_have_attribute("data-state", "ok")

    fake.reset(allow_origin="http://elsewhere.example")
    page.get_by_test_id("connection-check-run").click()
    origin = page.locator('[data-testid="connection-check"][data-check="origin"]')
    expect(origin).to_have_attribute("data-state", "fail", timeout=REPLY_TIMEOUT_MS)
    reachable = page.locator('[data-testid="connection-check"][data-check="reachable"]')
    expect(reachable).to_have_attribute("data-state", "ok")
    page_origin = page.evaluate("location.origin")
    status = page.get_by_test_id("connection-status")
    expect(status).to_have_attribute("data-state", "error")
    expect(status).to_contain_text(f"OLLAMA_ORIGINS={page_origin}")
    for how in ("systemctl", "launchctl setenv", "setx"):
        expect(status).to_contain_text(how)

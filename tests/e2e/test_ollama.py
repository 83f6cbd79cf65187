"""Ollama mode against the fake: models from /api/tags, a streamed reply, and a refused origin explained."""

from __future__ import annotations

import re

from playwright.sync_api import expect

from tests.e2e.conftest import App
from tests.e2e.ui import REPLY_TIMEOUT_MS, choose_model, configure_provider, model_option, send_for_reply, wait_ready
from tests.fakes.catalog import OLLAMA_MODELS
from tests.fakes.fake_llm import FakeLLM
from tests.fakes.replies import Reply


def test_ollama_lists_models_and_chats(app: App, fake: FakeLLM) -> None:
    page = app.page
    wait_ready(page)
    configure_provider(page, "ollama", fake.base_url)
    expect(page.get_by_test_id("connection-status")).to_have_attribute("data-state", "ok")
    for model in OLLAMA_MODELS:
        expect(model_option(page, model["name"])).to_have_count(1)
    assert fake.requests_to("/api/tags", "GET")
    choose_model(page, "llama3.2:3b")
    fake.script([Reply.text("Local **hello** from Ollama.")])
    reply = send_for_reply(page, "Hi there")
    expect(reply.locator("strong")).to_have_text("hello", timeout=REPLY_TIMEOUT_MS)
    (request,) = fake.requests_to("/v1/chat/completions", "POST")
    assert request.json()["model"] == "llama3.2:3b"
    assert "Authorization" not in request.headers, "no key was configured, so none may be sent"
    assert not fake.requests_to("/api/v1/chat/completions"), "Ollama mode must not call the OpenRouter path"


def test_ollama_refusing_the_origin_is_explained(app: App, fake: FakeLLM) -> None:
    fake.reset(allow_origin=None)  # what Ollama does when OLLAMA_ORIGINS does not list the app
    page = app.page
    wait_ready(page)
    configure_provider(page, "ollama", fake.base_url)
    status = page.get_by_test_id("connection-status")
    expect(status).to_have_attribute("data-state", "error", timeout=REPLY_TIMEOUT_MS)
    expect(status).to_contain_text(re.compile(r"CORS|OLLAMA_ORIGINS|origin", re.I))

"""An OpenAI-compatible server (the fake's llama-server mode) through the UI, with no key: the model
list loads, the gauge shows the server's n_ctx, a chat streams with max_tokens and tool_choice, a tool
round trip writes a file, messages name the host (never OpenRouter), a refusal's n_ctx is learned, and
the window survives a reload even when the server cannot be asked again (for OpenRouter too)."""

from __future__ import annotations

import re
from urllib.parse import urlsplit

from playwright.sync_api import Page, expect

from scripts.fakes import llama_server as llamacpp
from scripts.fakes.catalog import OPENROUTER_MODELS
from scripts.fakes.fake_llm import FakeLLM
from scripts.fakes.replies import Reply
from tests.e2e.conftest import KEY, MODEL, App
from tests.e2e.ui import REPLY_TIMEOUT_MS, choose_model, close_settings, configure_provider, send_for_reply, wait_ready

REFUSING = "http://elsewhere.example"  # a CORS origin that is not the app's: every request from the page fails


def _connect(page: Page, fake: FakeLLM) -> str:
    wait_ready(page)
    configure_provider(page, "openai-compatible", f"{fake.base_url}/llamacpp/v1")
    host = urlsplit(fake.base_url).netloc
    status = page.get_by_test_id("connection-status")
    expect(status).to_have_attribute("data-state", "ok", timeout=REPLY_TIMEOUT_MS)
    expect(status).to_have_text(f"Connected to {host}: 1 model available")
    return host


def _gauge_limit(page: Page, limit: int) -> None:
    expect(page.get_by_test_id("context-gauge")).to_have_attribute("data-limit", str(limit), timeout=REPLY_TIMEOUT_MS)


def test_a_llama_server_without_a_key_chats_and_runs_a_tool(app: App, fake: FakeLLM) -> None:
    page = app.page
    _connect(page, fake)
    expect(page.locator(".model-info")).to_have_text(re.compile(r"^context 8,192 tokens"))
    expect(page.locator("form.settings")).not_to_contain_text(re.compile("price unknown|No API key", re.I))
    _gauge_limit(page, llamacpp.N_CTX)
    assert not fake.requests_to("/llamacpp/v1/key") and not fake.requests_to("/api/v1/key"), "no key check"

    fake.script([Reply.text("The capital of France is **Paris**.")])
    reply = send_for_reply(page, "capital of France?")
    expect(reply.locator("strong")).to_have_text("Paris", timeout=REPLY_TIMEOUT_MS)
    (request,) = fake.requests_to("/llamacpp/v1/chat/completions", "POST")
    body = request.json()
    assert (body["model"], body["max_tokens"], body["tool_choice"]) == (llamacpp.MODEL, 2048, "auto")
    assert body["tools"] and "Authorization" not in request.headers

    page.get_by_test_id("permission-mode").select_option("full-auto")
    fake.script([Reply.tool_call("write_file", {"path": "capital.md", "content": "Paris"}), Reply.text("Saved.")])
    expect(send_for_reply(page, "Save it to capital.md")).to_have_text("Saved.", timeout=REPLY_TIMEOUT_MS)
    expect(page.locator('[data-testid="tool-call"][data-tool="write_file"]')).to_have_attribute("data-status", "ok")
    last = fake.requests_to("/llamacpp/v1/chat/completions", "POST")[-1].json()
    assert last["messages"][-1]["role"] == "tool" and last["messages"][-1]["tool_call_id"] == "call_1"
    page.get_by_test_id("permission-mode").select_option("ask")


def test_a_refusal_names_the_host_and_teaches_the_window(app: App, fake: FakeLLM) -> None:
    page = app.page
    host = _connect(page, fake)
    close_settings(page)
    fake.llamacpp.n_ctx = 1024  # the server was restarted with -c 1024: the prompt no longer fits
    error = send_for_reply(page, "Hello?", role="error")
    expect(error).to_contain_text(f"{host} answered HTTP 400", timeout=REPLY_TIMEOUT_MS)
    expect(error).not_to_contain_text(re.compile("openrouter", re.I))
    _gauge_limit(page, 1024)


def test_the_window_survives_a_reload_without_the_server(app: App, fake: FakeLLM) -> None:
    page = app.page
    _connect(page, fake)
    close_settings(page)
    fake.script([Reply.text("Hi.")])
    expect(send_for_reply(page, "Hi")).to_have_text("Hi.", timeout=REPLY_TIMEOUT_MS)
    _gauge_limit(page, llamacpp.N_CTX)
    fake.reset(allow_origin=REFUSING)  # after the reload nothing the page asks gets through
    page.reload()
    wait_ready(page)
    _gauge_limit(page, llamacpp.N_CTX)
    expect(page.get_by_test_id("context-gauge")).to_have_attribute("data-used", re.compile(r"^[1-9]\d*$"))


def test_the_openrouter_window_survives_a_reload_too(app: App, fake: FakeLLM) -> None:
    page = app.page
    wait_ready(page)
    configure_provider(page, "openrouter", f"{fake.base_url}/api/v1", KEY)
    expect(page.get_by_test_id("connection-status")).to_have_attribute("data-state", "ok", timeout=REPLY_TIMEOUT_MS)
    choose_model(page, MODEL)
    close_settings(page)
    window = next(m["context_length"] for m in OPENROUTER_MODELS if m["id"] == MODEL)
    fake.script([Reply.text("Hi.")])
    expect(send_for_reply(page, "Hi")).to_have_text("Hi.", timeout=REPLY_TIMEOUT_MS)
    _gauge_limit(page, window)
    fake.reset(api_key=KEY, allow_origin=REFUSING)
    page.reload()
    wait_ready(page)
    _gauge_limit(page, window)

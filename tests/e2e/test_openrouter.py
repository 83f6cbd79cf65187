"""OpenRouter through the UI against the fake: connect, models, streamed markdown, Stop, errors, key storage."""

from __future__ import annotations

import base64
import json
import re

import pytest
from playwright.sync_api import expect

from scripts.fakes.catalog import OPENROUTER_MODELS
from scripts.fakes.fake_llm import FakeLLM
from scripts.fakes.replies import Reply
from tests.e2e.conftest import KEY, MODEL, RESULTS, App
from tests.e2e.ui import (
    REPLY_TIMEOUT_MS,
    dump_storage,
    eventually,
    last_message,
    model_option,
    send_for_reply,
    wait_ready,
)


@pytest.fixture
def chat(connected_app: App, fake: FakeLLM) -> App:
    fake.reset(api_key=KEY)
    wait_ready(connected_app.page)
    return connected_app


def test_connect_fills_models(connected_app: App) -> None:
    status = connected_app.page.get_by_test_id("connection-status")
    expect(status).to_have_attribute("data-state", "ok")
    for model in OPENROUTER_MODELS:
        expect(model_option(connected_app.page, model["id"])).to_have_count(1)


def test_streamed_reply_renders_markdown(chat: App, fake: FakeLLM) -> None:
    fake.script([Reply.text("Hello **world**, this is `markdown`.")])
    reply = send_for_reply(chat.page, "Say hello")
    expect(reply.locator("strong")).to_have_text("world", timeout=REPLY_TIMEOUT_MS)
    expect(reply.locator("code")).to_have_text("markdown")
    expect(last_message(chat.page, "user")).to_contain_text("Say hello")
    (request,) = fake.requests_to("/api/v1/chat/completions")
    body = request.json()
    assert request.headers["Authorization"] == f"Bearer {KEY}"
    assert (body["model"], body["stream"]) == (MODEL, True)
    assert body["tools"], "the request carries the tool list"
    wait_ready(chat.page)
    RESULTS.mkdir(exist_ok=True)
    chat.page.screenshot(path=str(RESULTS / "chat.png"))


@pytest.mark.parametrize("how", [pytest.param("button", id="stop-button"), pytest.param("escape", id="escape-key")])
def test_stop_ends_a_slow_stream(chat: App, fake: FakeLLM, how: str) -> None:
    page = chat.page
    fake.script([Reply.slow()])
    reply = send_for_reply(page, f"Count slowly ({how})")
    expect(reply).to_contain_text("tick", timeout=REPLY_TIMEOUT_MS)
    stop = page.get_by_test_id("chat-stop")
    expect(stop).to_be_visible()
    if how == "button":
        stop.click()
    else:
        page.keyboard.press("Escape")
    expect(stop).to_be_hidden(timeout=2_000)
    eventually(page, lambda: fake.streams_aborted >= 1, 5, "the fake to see the stream closed")
    length = len(reply.inner_text())
    # Frames arrive in order: once the next turn's reply is on screen, anything the stopped stream still had
    # in flight has arrived too.
    wait_ready(page)
    fake.script([Reply.text("Stopped, as asked.")])
    after = send_for_reply(page, "Thanks")
    expect(after).to_have_text("Stopped, as asked.", timeout=REPLY_TIMEOUT_MS)
    assert len(reply.inner_text()) == length, "text kept arriving after Stop"
    assert fake.streams_completed == 1, "only the follow-up stream may complete"
    wait_ready(page)


ERRORS = [
    pytest.param([Reply.error(402)], re.compile(r"credit", re.I), id="402-credits"),
    pytest.param([Reply.error(401)], re.compile(r"key|401|auth", re.I), id="401-key"),
    pytest.param([Reply.stream_error("Provider disconnected unexpectedly")], re.compile(r"disconnected", re.I),
                 id="error-event-mid-stream"),
]


@pytest.mark.parametrize(("replies", "message"), ERRORS)
def test_provider_errors_are_shown(chat: App, fake: FakeLLM, replies: list[Reply], message: re.Pattern[str]) -> None:
    fake.script(replies)
    error = send_for_reply(chat.page, "This will fail", role="error")
    expect(error).to_contain_text(message, timeout=REPLY_TIMEOUT_MS)
    wait_ready(chat.page)


def test_key_is_sent_but_never_stored_in_plaintext(chat: App, fake: FakeLLM) -> None:
    fake.script([Reply.text("Noted.")])
    reply = send_for_reply(chat.page, "One more")
    expect(reply).to_have_text("Noted.", timeout=REPLY_TIMEOUT_MS)
    sent = [r.headers.get("Authorization") for r in fake.requests_to("/api/v1/chat/completions")]
    assert sent == [f"Bearer {KEY}"]
    storage = dump_storage(chat.page)
    text = json.dumps(storage)
    assert fake.base_url in text, "the dump should include the saved (non-secret) settings"
    for form in (KEY, base64.b64encode(KEY.encode()).decode(), KEY.encode().hex()):
        assert form not in text, f"the key is stored readable ({form[:12]}…)"

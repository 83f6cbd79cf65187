"""What local model servers do, through the UI against the fake, strict as llama.cpp: a tool call cut off at
the length limit is not run, its card says so, and the chat goes on (the fake would answer HTTP 500 to a
history that holds the cut-off arguments, as llama-server does); a server that stops mid-reply is said to
have stopped, with a Retry that works."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, expect

from scripts.fakes.fake_llm import FakeLLM
from scripts.fakes.replies import Reply
from tests.e2e.conftest import KEY, App, running_app
from tests.e2e.ui import REPLY_TIMEOUT_MS, close_settings, configure_provider, messages, send, wait_ready

CHAT = "/api/v1/chat/completions"


@pytest.fixture
def chat_app(browser: Browser, server: str, fake: FakeLLM) -> Iterator[App]:
    fake.reset(api_key=KEY)
    with running_app(browser, server + "/") as app:
        wait_ready(app.page)
        configure_provider(app.page, "openrouter", f"{fake.base_url}/api/v1", KEY)
        expect(app.page.get_by_test_id("connection-status")).to_have_attribute(
            "data-state", "ok", timeout=REPLY_TIMEOUT_MS
        )
        close_settings(app.page)
        yield app


def test_a_call_cut_off_at_length_is_not_run_and_the_next_turn_succeeds(chat_app: App, fake: FakeLLM) -> None:
    page = chat_app.page
    fake.script(
        [
            Reply.cut_call("write_file", '{"path": "notes.md", "content": "First li', text="Writing it now."),
            Reply.text("I will write it in two parts."),
        ]
    )
    send(page, "Write notes.md.")
    reply = messages(page, "assistant").last
    expect(reply).to_have_attribute("data-finish", "length", timeout=REPLY_TIMEOUT_MS)
    card = page.get_by_test_id("tool-call")
    expect(card).to_have_attribute("data-status", "error", timeout=REPLY_TIMEOUT_MS)
    expect(card).to_have_attribute("data-tool", "write_file")
    expect(card.locator(".tool-result")).to_contain_text("Cut off, not run")
    expect(page.get_by_test_id("approval-allow")).to_have_count(0)  # never offered to run
    expect(page.get_by_test_id("chat-stop")).to_be_hidden(timeout=REPLY_TIMEOUT_MS)
    assert len(fake.requests_to(CHAT, "POST")) == 1  # the turn stopped at the cut: the person decides

    reply.get_by_test_id("message-continue").click()
    expect(messages(page, "assistant").last).to_contain_text("two parts", timeout=REPLY_TIMEOUT_MS)
    expect(messages(page, "error")).to_have_count(0)
    sent = fake.requests_to(CHAT, "POST")[-1].json()["messages"]
    (assistant,) = [m for m in sent if m.get("tool_calls")]
    assert assistant["tool_calls"][0]["function"]["arguments"] == "{}"
    result = next(m for m in sent if m["role"] == "tool")
    assert result["content"].startswith("Cut off, not run") and "First li" in result["content"]
    page.get_by_test_id("files-open").click()
    expect(page.locator('[data-testid="file-entry"][data-path="notes.md"]')).to_have_count(0)


def test_a_server_that_stops_mid_reply_is_said_to_have_stopped_and_retry_works(chat_app: App, fake: FakeLLM) -> None:
    page = chat_app.page
    fake.script([Reply.drop("The answer begins"), Reply.text("The whole answer.")])
    send(page, "Tell me.")
    error = messages(page, "error").last
    expect(error).to_contain_text("stopped answering mid-reply", timeout=REPLY_TIMEOUT_MS)
    expect(error).to_contain_text("still running")
    expect(error).not_to_contain_text("CORS")
    expect(messages(page, "assistant").last).to_contain_text("The answer")  # what arrived before the drop
    error.get_by_test_id("message-retry").click()
    answer = messages(page, "assistant").last
    expect(answer).to_have_text("The whole answer.", timeout=REPLY_TIMEOUT_MS)
    expect(answer).to_have_attribute("data-branch", "2/2")  # the cut-off reply is kept as version 1
    expect(answer).to_have_text("The whole answer.")  # the versions' control is not the message's text
    expect(messages(page, "error")).to_have_count(0)
    expect(messages(page, "user")).to_have_count(1)  # the same message, sent again
    assert fake.requests_to(CHAT, "POST")[-1].json()["messages"][-1] == {"role": "user", "content": "Tell me."}

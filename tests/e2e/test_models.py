"""Real models' behaviour through the UI against the fake provider, as strict as the real ones: a reasoning
model's tool rounds (its reasoning shown live, folded, kept and sent back across a reload), and every way
a reply can end."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import Browser, expect

from scripts.fakes.fake_llm import FakeLLM
from scripts.fakes.replies import Reply, StreamErrorShape
from tests.e2e.conftest import KEY, App, running_app
from tests.e2e.ui import (
    REPLY_TIMEOUT_MS,
    choose_model,
    close_settings,
    configure_provider,
    dump_storage,
    eventually,
    messages,
    open_settings,
    send,
    wait_ready,
)

REASONER = "google/gemini-3-pro-preview"
STATE_FILE = "tidepool/workspaces/default/state/current.sqlite"  # the saved database in OPFS


@pytest.fixture
def reasoner_app(browser: Browser, server: str, fake: FakeLLM) -> Iterator[App]:
    fake.reset(api_key=KEY)
    with running_app(browser, server + "/") as app:
        wait_ready(app.page)
        configure_provider(app.page, "openrouter", f"{fake.base_url}/api/v1", KEY)
        status = app.page.get_by_test_id("connection-status")
        expect(status).to_have_attribute("data-state", "ok", timeout=REPLY_TIMEOUT_MS)
        choose_model(app.page, REASONER)
        close_settings(app.page)
        yield app


def chat_bodies(fake: FakeLLM) -> list[dict[str, Any]]:
    return [r.json() for r in fake.requests_to("/api/v1/chat/completions")]


def test_a_reasoning_model_thinks_live_calls_a_tool_and_keeps_its_reasoning_across_a_reload(
    reasoner_app: App, fake: FakeLLM
) -> None:
    page = reasoner_app.page
    fake.script(
        [
            Reply.tool_call("list_files", {"path": "."}, call_id="call_think_1").with_reasoning(
                "I should list the files first."
            ),
            Reply("text", content="Your workspace is empty.", delay_s=0.15, chunk_chars=3).with_reasoning(
                "The listing came back empty, so I will say so plainly."
            ),
        ]
    )
    send(page, "What files do I have?")
    blocks = page.get_by_test_id("reasoning")
    # The second round's reasoning streams slowly: it is open and growing before the answer starts...
    page.wait_for_function(
        """() => { const b = document.querySelectorAll('[data-testid="reasoning"]')[1];
                   return b && b.dataset.state === "live" && b.open
                       && b.textContent.includes("listing came back"); }""",
        timeout=REPLY_TIMEOUT_MS,
    )
    live = blocks.nth(1)
    # ...and folds itself once the answer streams.
    expect(messages(page, "assistant").last).to_have_text("Your workspace is empty.", timeout=REPLY_TIMEOUT_MS)
    expect(live).to_have_attribute("data-state", "done")
    expect(live).to_have_js_property("open", False)
    expect(blocks).to_have_count(2)
    expect(blocks.first).to_contain_text("I should list the files first.")
    expect(messages(page, "error")).to_have_count(0)  # the fake refuses a tool round sent back unsigned
    first, second = chat_bodies(fake)
    assert first["reasoning"] == {"effort": "medium"}  # on by default: the model lists `reasoning`
    (echoed,) = [m for m in second["messages"] if m.get("tool_calls")]
    assert echoed["reasoning_details"] == fake.issued_reasoning["call_think_1"]

    # The turn's end is saved right after it ends; reload once the saved state holds the last reasoning.
    eventually(page, lambda: "say so plainly" in dump_storage(page)["opfs"].get(STATE_FILE, ""), 15, "the save")
    page.reload()
    wait_ready(page)
    expect(page.get_by_test_id("reasoning")).to_have_count(2, timeout=REPLY_TIMEOUT_MS)
    expect(page.get_by_test_id("reasoning").first).to_have_js_property("open", False)
    open_settings(page)
    page.get_by_test_id("settings-advanced").locator("summary").click()
    page.get_by_test_id("reasoning-effort").select_option("high")
    close_settings(page)
    fake.script([Reply.text("Still nothing there.")])
    send(page, "And now?")
    expect(messages(page, "assistant").last).to_have_text("Still nothing there.", timeout=REPLY_TIMEOUT_MS)
    expect(messages(page, "error")).to_have_count(0)
    third = chat_bodies(fake)[-1]
    assert third["reasoning"] == {"effort": "high"}
    (echoed_again,) = [m for m in third["messages"] if m.get("tool_calls")]
    assert echoed_again["reasoning_details"] == fake.issued_reasoning["call_think_1"]


@pytest.fixture
def chat_app(browser: Browser, server: str, fake: FakeLLM) -> Iterator[App]:
    fake.reset(api_key=KEY)
    with running_app(browser, server + "/") as app:
        wait_ready(app.page)
        configure_provider(app.page, "openrouter", f"{fake.base_url}/api/v1", KEY)
        status = app.page.get_by_test_id("connection-status")
        expect(status).to_have_attribute("data-state", "ok", timeout=REPLY_TIMEOUT_MS)
        close_settings(app.page)
        yield app


def test_a_cut_off_reply_is_marked_and_can_be_continued(chat_app: App, fake: FakeLLM) -> None:
    page = chat_app.page
    fake.script([Reply.cut_off("The first three steps are: one, two"), Reply.text(", three.")])
    send(page, "List the steps.")
    reply = messages(page, "assistant").last
    expect(reply).to_have_attribute("data-finish", "length", timeout=REPLY_TIMEOUT_MS)
    expect(reply).to_contain_text("one, two")
    reply.get_by_test_id("message-continue").click()
    expect(messages(page, "assistant").last).to_contain_text(", three.", timeout=REPLY_TIMEOUT_MS)
    expect(page.get_by_test_id("message-continue")).to_have_count(0)
    sent = chat_bodies(fake)[-1]["messages"]
    assert sent[-2] == {"role": "assistant", "content": "The first three steps are: one, two"}
    assert sent[-1]["role"] == "user" and "Continue" in sent[-1]["content"]
    eventually(page, lambda: ", three." in dump_storage(page)["opfs"].get(STATE_FILE, ""), 15, "the save")
    page.reload()  # the mark is stored with the reply
    wait_ready(page)
    expect(page.locator('[data-testid="message"][data-finish="length"]')).to_have_count(1, timeout=REPLY_TIMEOUT_MS)


@pytest.mark.parametrize("shape", ["top", "choice", "bare"])
def test_an_error_in_any_stream_shape_is_said_and_the_partial_text_kept(
    chat_app: App, fake: FakeLLM, shape: StreamErrorShape
) -> None:
    page = chat_app.page
    fake.script([Reply.stream_error("Provider returned error", text="Here is the beginning", shape=shape)])
    send(page, "Go.")
    expect(messages(page, "error")).to_have_count(1, timeout=REPLY_TIMEOUT_MS)
    expect(messages(page, "assistant").last).to_have_text("Here is the beginning")
    said = "did not say why" if shape == "bare" else "Provider returned error"
    expect(messages(page, "error").last).to_contain_text(said)


def test_refusals_filters_and_quotas_are_said_for_what_they_are(chat_app: App, fake: FakeLLM) -> None:
    page = chat_app.page
    fake.script([Reply.filtered("I can only say this much")])
    send(page, "Something borderline.")
    filtered = messages(page, "assistant").last
    expect(filtered).to_have_attribute("data-finish", "content_filter", timeout=REPLY_TIMEOUT_MS)
    expect(filtered).to_contain_text("content filter")

    fake.script([Reply.error(403)])
    send(page, "Something flagged.")
    expect(messages(page, "error").last).to_contain_text("the provider refused this request (moderation)",
                                                         ignore_case=True, timeout=REPLY_TIMEOUT_MS)

    before = len(chat_bodies(fake))
    fake.script([Reply.daily_quota(), Reply.text("should not be asked")])
    send(page, "Once more.")
    expect(messages(page, "error").last).to_contain_text("daily limit of free-model requests", timeout=REPLY_TIMEOUT_MS)
    expect(page.get_by_test_id("chat-send")).to_be_enabled()
    assert len(chat_bodies(fake)) == before + 1  # not retried


def test_a_rate_limit_wait_is_shown_and_stop_ends_it(chat_app: App, fake: FakeLLM) -> None:
    page = chat_app.page
    fake.script([Reply.error(429, retry_after=45), Reply.text("too late")])
    send(page, "Hello?")
    notice = page.locator('[data-testid="notice"][data-code="retrying"]')
    expect(notice).to_contain_text("rate limited, retrying in 45 s", ignore_case=True, timeout=REPLY_TIMEOUT_MS)
    page.get_by_test_id("chat-stop").click()
    expect(page.get_by_test_id("chat-stop")).to_be_hidden(timeout=10_000)
    expect(notice).to_have_count(0)
    expect(page.get_by_test_id("chat-send")).to_be_enabled()
    assert len(chat_bodies(fake)) == 1  # stopped during the wait: never asked again


def test_the_model_picker_defaults_to_a_tool_model_filters_and_shows_what_each_can_do(
    chat_app: App, fake: FakeLLM
) -> None:
    page = chat_app.page
    open_settings(page)
    picker = page.get_by_test_id("model-select")
    expect(picker).to_have_value("openai/gpt-4o-mini")  # the listing starts with a model without tools
    expect(picker.locator("option")).to_have_count(4)
    page.get_by_test_id("model-filter").fill("gemini")
    expect(picker.locator("option")).to_have_count(2)  # the match, and the chosen model
    picker.select_option("google/gemini-3-pro-preview")
    info = page.locator(".model-info")
    expect(info).to_contain_text("context 1,048,576 tokens")
    expect(info).to_contain_text("$2/$12 per 1M")
    expect(info.locator("[data-badge]")).to_have_text(["tools", "reasoning", "vision"])
    page.get_by_test_id("model-filter").fill("free")
    picker.select_option("meta-llama/llama-3.2-3b-instruct:free")
    expect(info.locator('[data-badge="no-tools"]')).to_be_visible()
    close_settings(page)
    fake.script([Reply.text("Hi.")])
    send(page, "Hello")
    expect(messages(page, "assistant").last).to_have_text("Hi.", timeout=REPLY_TIMEOUT_MS)
    (request,) = fake.requests_to("/api/v1/chat/completions")
    assert request.json()["model"] == "meta-llama/llama-3.2-3b-instruct:free"
    headers = {name.lower(): value for name, value in request.headers.items()}
    assert headers["x-openrouter-title"] == headers["x-title"] == "Tidepool"


def test_the_connection_doctor_checks_the_key_and_its_credits(chat_app: App, fake: FakeLLM) -> None:
    page = chat_app.page
    open_settings(page)
    page.get_by_test_id("connection-check-run").click()
    key = page.locator('[data-testid="connection-check"][data-check="key"]')
    expect(key).to_have_attribute("data-state", "ok", timeout=REPLY_TIMEOUT_MS)
    expect(page.get_by_test_id("connection-status")).to_have_attribute("data-state", "ok")
    fake.key_info = {**fake.key_info, "limit": 5, "limit_remaining": 0}
    page.get_by_test_id("connection-check-run").click()
    expect(key).to_have_attribute("data-state", "fail", timeout=REPLY_TIMEOUT_MS)
    expect(page.get_by_test_id("connection-status")).to_contain_text("no credits left")
    assert fake.requests_to("/api/v1/key")[-1].headers.get("Authorization") == f"Bearer {KEY}"

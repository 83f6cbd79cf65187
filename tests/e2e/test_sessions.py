"""The sessions sidebar against the fake OpenRouter: new, open (the chat is redrawn), rename, delete, export."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Locator, Page, expect

from scripts.fakes.fake_llm import FakeLLM
from scripts.fakes.replies import Reply
from tests.e2e.conftest import KEY, RESULTS, App, running_app
from tests.e2e.ui import (
    REPLY_TIMEOUT_MS,
    choose_model,
    close_settings,
    configure_provider,
    messages,
    send_for_reply,
    wait_ready,
)

MODEL = "openai/gpt-4o-mini"
SHOTS = RESULTS  # screenshots for a person to look at


def connect(page: Page, fake: FakeLLM) -> None:
    """Ready, connected to the fake OpenRouter with MODEL chosen, settings closed."""
    wait_ready(page)
    configure_provider(page, "openrouter", f"{fake.base_url}/api/v1", KEY)
    expect(page.get_by_test_id("connection-status")).to_have_attribute("data-state", "ok")
    choose_model(page, MODEL)
    close_settings(page)


def entry(page: Page, session_id: str) -> Locator:
    return page.locator(f'[data-testid="session-entry"][data-session-id="{session_id}"]')


def current_entry(page: Page) -> Locator:
    return page.locator('[data-testid="session-entry"][aria-current="true"]')


def talk(page: Page, fake: FakeLLM, question: str, answer: str) -> None:
    fake.script([Reply.text(answer)])
    reply = send_for_reply(page, question)
    expect(reply).to_have_text(answer, timeout=REPLY_TIMEOUT_MS)
    wait_ready(page)


@pytest.fixture(scope="module")
def two_sessions(browser: Browser, server: str, fake: FakeLLM) -> Iterator[tuple[App, str, str]]:
    """One app with two sessions: 'Plan a trip to Lisbon' (first) and 'Bake sourdough bread' (current)."""
    fake.reset(api_key=KEY)
    with running_app(browser, server + "/") as app:
        page = app.page
        connect(page, fake)
        talk(page, fake, "Plan a trip to Lisbon", "Lisbon has trams.")
        expect(current_entry(page)).to_contain_text("Plan a trip to Lisbon")
        first = current_entry(page).get_attribute("data-session-id") or ""
        page.get_by_test_id("session-new").click()
        expect(messages(page, "user")).to_have_count(0)
        talk(page, fake, "Bake sourdough bread", "Use a starter.")
        expect(page.get_by_test_id("session-entry")).to_have_count(2)
        second = current_entry(page).get_attribute("data-session-id") or ""
        assert first and second and first != second
        yield app, first, second


def test_new_session_is_current_and_listed_first(two_sessions: tuple[App, str, str]) -> None:
    app, first, second = two_sessions
    page = app.page
    expect(page.get_by_test_id("session-entry").first).to_have_attribute("data-session-id", second)
    expect(entry(page, second)).to_have_attribute("aria-current", "true")
    expect(entry(page, first)).not_to_have_attribute("aria-current", "true")
    expect(entry(page, second)).to_contain_text("Bake sourdough bread")
    SHOTS.mkdir(exist_ok=True)
    page.screenshot(path=str(SHOTS / "sessions.png"))


# Note each request method the page posts to the agent worker (Worker.postMessage, the browser's own).
WATCH_REQUESTS_JS = """
() => {
  window.__asked = [];
  const post = Worker.prototype.postMessage;
  Worker.prototype.postMessage = function (message, ...rest) {
    if (message && message.type === "request") window.__asked.push(message.method);
    return post.call(this, message, ...rest);
  };
}
"""


def test_opening_a_session_redraws_the_chat(two_sessions: tuple[App, str, str]) -> None:
    app, first, second = two_sessions
    page = app.page
    page.evaluate(WATCH_REQUESTS_JS)
    entry(page, first).click()
    expect(entry(page, first)).to_have_attribute("aria-current", "true")
    expect(messages(page, "user")).to_have_text(["Plan a trip to Lisbon"])
    expect(messages(page, "assistant")).to_have_text(["Lisbon has trams."])
    entry(page, second).click()
    expect(entry(page, second)).to_have_attribute("aria-current", "true")
    expect(messages(page, "user")).to_have_text(["Bake sourdough bread"])
    expect(messages(page, "assistant")).to_have_text(["Use a starter."])
    # The chat was redrawn from the view each session_opened carries: the page never asked for it.
    asked = page.evaluate("window.__asked")
    assert asked.count("session_open") == 2 and "session_current" not in asked, asked


def test_the_list_asking_again_keeps_an_entry_that_did_not_change(
    two_sessions: tuple[App, str, str], fake: FakeLLM
) -> None:
    """A turn's end makes the list ask again (150 ms on). An entry drawn anew then is not the one a person is
    pressing, and their click was lost (a restart test saw its click on a session do nothing)."""
    app, first, second = two_sessions
    page = app.page
    entry(page, second).click()
    expect(entry(page, second)).to_have_attribute("aria-current", "true")
    held = entry(page, first).element_handle()
    talk(page, fake, "And the crust?", "Bake it hot.")
    page.wait_for_timeout(1000)  # past the list's own asking again
    assert held.evaluate("(e) => e.isConnected")
    box = held.bounding_box()
    assert box is not None
    page.mouse.move(box["x"] + 20, box["y"] + 10)
    page.mouse.down()
    talk(page, fake, "And the oven?", "Hot, with steam.")  # the list asks again while the button is down
    page.wait_for_timeout(500)
    page.mouse.up()
    expect(entry(page, first)).to_have_attribute("aria-current", "true")
    expect(messages(page, "user")).to_have_text(["Plan a trip to Lisbon"])
    entry(page, second).click()
    expect(messages(page, "user")).to_have_text(["Bake sourdough bread", "And the crust?", "And the oven?"])


def test_rename_inline(two_sessions: tuple[App, str, str]) -> None:
    app, first, _ = two_sessions
    page = app.page
    target = entry(page, first)
    target.hover()
    target.get_by_test_id("session-rename").click()
    field = target.get_by_test_id("session-rename-input")
    expect(field).to_be_focused()
    field.fill("Lisbon itinerary")
    field.press("Enter")
    expect(target.get_by_test_id("session-title")).to_have_text("Lisbon itinerary")
    # Escape leaves the name as it was. (The list may be redrawn after the rename, which drops the
    # hover that shows the entry's tools: the click goes to whichever entry is there now.)
    target.get_by_test_id("session-rename").dispatch_event("click")
    target.get_by_test_id("session-rename-input").fill("Discarded")
    target.get_by_test_id("session-rename-input").press("Escape")
    expect(target.get_by_test_id("session-title")).to_have_text("Lisbon itinerary")
    # The stored name, not only the one on screen: after a reload the list comes from the store.
    page.reload()
    wait_ready(page)
    expect(entry(page, first).get_by_test_id("session-title")).to_have_text("Lisbon itinerary")


@pytest.mark.parametrize(
    ("button", "suffix"),
    [pytest.param("session-export-md", ".md", id="markdown"), pytest.param("session-export-json", ".json", id="json")],
)
def test_export_downloads(two_sessions: tuple[App, str, str], tmp_path: Path, button: str, suffix: str) -> None:
    app, _, second = two_sessions
    page = app.page
    target = entry(page, second)
    target.hover()
    with page.expect_download(timeout=REPLY_TIMEOUT_MS) as info:
        target.get_by_test_id(button).click()
    download = info.value
    assert download.suggested_filename.endswith(suffix), download.suggested_filename
    saved = tmp_path / download.suggested_filename
    download.save_as(saved)
    text = saved.read_text(encoding="utf-8")
    if suffix == ".json":
        doc = json.loads(text)
        assert doc["format"] == "tidepool.session"
        assert doc["session"]["id"] == second
        contents = json.dumps(doc["messages"])
        assert "Bake sourdough bread" in contents and "Use a starter." in contents
    else:
        assert "Bake sourdough bread" in text and "Use a starter." in text
        assert "Lisbon" not in text, "the export holds only that session"


def test_delete_asks_then_removes(two_sessions: tuple[App, str, str], fake: FakeLLM) -> None:
    app, first, second = two_sessions
    page = app.page
    target = entry(page, second)
    target.hover()
    target.get_by_test_id("session-delete").click()
    target.get_by_test_id("session-delete-cancel").click()
    expect(page.get_by_test_id("session-entry")).to_have_count(2)
    target.hover()
    target.get_by_test_id("session-delete").click()
    expect(target).to_contain_text(re.compile("delete", re.I))
    target.get_by_test_id("session-delete-confirm").click()
    expect(entry(page, second)).to_have_count(0)
    # The deleted session was current: the other one is open now.
    expect(entry(page, first)).to_have_attribute("aria-current", "true")
    expect(messages(page, "user")).to_have_text(["Plan a trip to Lisbon"])


# Hold each `session_new` request 400 ms on its way to the worker, as a busy machine would.
SLOW_NEW_SESSION_JS = """
() => {
  const post = Worker.prototype.postMessage;
  Worker.prototype.postMessage = function (message, ...rest) {
    if (message && message.type === "request" && message.method === "session_new") {
      setTimeout(() => post.call(this, message, ...rest), 400);
      return;
    }
    return post.call(this, message, ...rest);
  };
}
"""


def test_a_message_typed_the_moment_a_new_chat_is_asked_for_goes_to_it(
    two_sessions: tuple[App, str, str], fake: FakeLLM
) -> None:
    app, first, _ = two_sessions
    page = app.page
    entry(page, first).click()
    expect(messages(page, "user")).to_have_text(["Plan a trip to Lisbon"])
    page.evaluate(SLOW_NEW_SESSION_JS)
    fake.script([Reply.text("Tea is brewed.")])
    page.get_by_test_id("session-new").click()
    box = page.get_by_test_id("chat-input")
    box.fill("Brew some tea")
    box.press("Enter")  # at once: the new chat is not open yet
    expect(messages(page, "assistant")).to_have_text(["Tea is brewed."], timeout=REPLY_TIMEOUT_MS)
    expect(messages(page, "user")).to_have_text(["Brew some tea"])
    expect(current_entry(page)).to_contain_text("Brew some tea")
    expect(current_entry(page)).not_to_have_attribute("data-session-id", first)
    entry(page, first).click()  # the chat that was open is as it was
    expect(messages(page, "user")).to_have_text(["Plan a trip to Lisbon"])

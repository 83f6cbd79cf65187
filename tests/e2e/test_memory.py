"""The memory panel against the fake OpenRouter: the agent saves memories (memory_save), the panel shows,
searches (full-text as you type), edits and deletes them."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Locator, Page, expect

from scripts.fakes.fake_llm import FakeLLM
from scripts.fakes.replies import Reply, ToolCall
from tests.e2e.conftest import KEY, RESULTS, App, running_app
from tests.e2e.test_sessions import connect
from tests.e2e.ui import REPLY_TIMEOUT_MS, send_for_reply, wait_ready

SHOTS = RESULTS  # screenshots for a person to look at
FACTS = ["The user drinks green tea every morning", "The user's cat is called Miso", "The user lives in Porto"]


def entries(page: Page) -> Locator:
    return page.get_by_test_id("memory-entry")


def entry_with(page: Page, text: str) -> Locator:
    return entries(page).filter(has_text=text)


def open_memory(page: Page) -> None:
    if not page.get_by_test_id("memory-search").is_visible():
        page.get_by_test_id("memory-open").click()
    expect(page.get_by_test_id("memory-search")).to_be_visible()


@pytest.fixture(scope="module")
def remembered(browser: Browser, server: str, fake: FakeLLM) -> Iterator[App]:
    """The agent saved FACTS with memory_save (two calls in one message, then one more), panel open."""
    fake.reset(api_key=KEY)
    with running_app(browser, server + "/") as app:
        page = app.page
        connect(page, fake)
        open_memory(page)
        expect(page.locator(".memory-empty")).to_be_visible()
        fake.script([
            Reply.tool_calls_reply(ToolCall("memory_save", {"text": FACTS[0], "tags": ["drinks"]}, "call_m1"),
                                   ToolCall("memory_save", {"text": FACTS[1]}, "call_m2")),
            Reply.tool_call("memory_save", {"text": FACTS[2], "tags": ["home"]}, call_id="call_m3"),
            Reply.text("I'll remember that."),
        ])
        reply = send_for_reply(page, "Remember: green tea, my cat Miso, and I live in Porto.")
        expect(reply).to_have_text("I'll remember that.", timeout=REPLY_TIMEOUT_MS)
        wait_ready(page)
        yield app


def test_agent_saves_appear_while_the_panel_is_open(remembered: App) -> None:
    page = remembered.page
    expect(entries(page)).to_have_count(3)
    for fact in FACTS:
        expect(entry_with(page, fact)).to_have_count(1)
    ids = [entries(page).nth(i).get_attribute("data-memory-id") for i in range(3)]
    assert all(ids) and len(set(ids)) == 3, ids
    expect(entry_with(page, FACTS[0])).to_contain_text("drinks")
    SHOTS.mkdir(exist_ok=True)
    page.screenshot(path=str(SHOTS / "memory.png"))


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        pytest.param("tea", [FACTS[0]], id="one-word"),
        pytest.param("Mi", [FACTS[1]], id="prefix-as-you-type"),
        pytest.param("user lives", [FACTS[2]], id="every-word"),
        pytest.param("user", FACTS, id="common-word"),
        pytest.param("zebra", [], id="no-match"),
    ],
)
def test_search_filters_as_you_type(remembered: App, query: str, expected: list[str]) -> None:
    page = remembered.page
    open_memory(page)
    search = page.get_by_test_id("memory-search")
    search.fill("")
    expect(entries(page)).to_have_count(3)
    search.press_sequentially(query, delay=30)
    expect(entries(page)).to_have_count(len(expected))
    for fact in expected:
        expect(entry_with(page, fact)).to_have_count(1)
    search.fill("")
    expect(entries(page)).to_have_count(3)


def test_edit_text_and_pinned(remembered: App) -> None:
    page = remembered.page
    open_memory(page)
    target = entry_with(page, "Porto")
    memory_id = target.get_attribute("data-memory-id")
    target.get_by_test_id("memory-edit").click()
    edited = page.locator(f'[data-testid="memory-entry"][data-memory-id="{memory_id}"]')
    edited.get_by_test_id("memory-edit-text").fill("The user moved to Lisbon in 2026")
    edited.get_by_test_id("memory-edit-pinned").check()
    edited.get_by_test_id("memory-edit-save").click()
    expect(edited.get_by_test_id("memory-text")).to_have_text("The user moved to Lisbon in 2026")
    expect(edited).to_have_attribute("data-pinned", "true")
    page.get_by_test_id("memory-search").fill("Porto")
    expect(entries(page)).to_have_count(0)
    page.get_by_test_id("memory-search").fill("Lisbon")
    expect(entries(page)).to_have_count(1)
    page.get_by_test_id("memory-search").fill("")


def test_delete_removes(remembered: App) -> None:
    page = remembered.page
    open_memory(page)
    before = len(FACTS)
    expect(entries(page)).to_have_count(before)
    target = entry_with(page, "Miso")
    memory_id = target.get_attribute("data-memory-id")
    target.get_by_test_id("memory-delete").click()
    expect(page.locator(f'[data-testid="memory-entry"][data-memory-id="{memory_id}"]')).to_have_count(0)
    expect(entries(page)).to_have_count(before - 1)
    # Closed and opened again, it is still gone (read back from the runtime).
    page.get_by_test_id("memory-open").click()
    expect(page.get_by_test_id("memory-search")).to_be_hidden()
    open_memory(page)
    expect(entries(page)).to_have_count(before - 1)
    expect(entry_with(page, "Miso")).to_have_count(0)


def test_agent_delete_refreshes_the_panel(remembered: App, fake: FakeLLM) -> None:
    page = remembered.page
    open_memory(page)
    target = entry_with(page, "green tea")
    memory_id = int(target.get_attribute("data-memory-id") or "0")
    fake.script([Reply.tool_call("memory_delete", {"id": memory_id}, call_id="call_d1"), Reply.text("Forgotten.")])
    reply = send_for_reply(page, "Forget the tea")
    expect(reply).to_have_text("Forgotten.", timeout=REPLY_TIMEOUT_MS)
    expect(entry_with(page, "green tea")).to_have_count(0)

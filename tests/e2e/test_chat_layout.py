"""The chat on a desktop and on a phone-sized screen (390 px): nothing scrolls sideways, the chats
list is a drawer, panels take the whole screen, the message box stays in view. Leaves screenshots
(test-results/chat-desktop.png, chat-phone*.png)."""

from __future__ import annotations

from playwright.sync_api import Page, expect

from scripts.fakes.fake_llm import FakeLLM
from scripts.fakes.replies import Reply
from tests.e2e.conftest import KEY, MODEL, RESULTS, App
from tests.e2e.ui import REPLY_TIMEOUT_MS, choose_model, configure_provider, messages, send, wait_ready

PHONE = {"width": 390, "height": 844}
REPLY = (
    "Here is a **plan** with a long unbroken word: " + "tide" * 40 + "\n\n"
    "```python\nfor hour in range(24):\n    print(hour, 'high' if hour % 12 < 6 else 'low', 'long ' * 20)\n```\n\n"
    "| hour | water |\n|---|---|\n| 06:12 | high |\n| 12:30 | low |\n"
)


def _fits_the_width(page: Page) -> bool:
    return bool(page.evaluate("document.documentElement.scrollWidth <= window.innerWidth"))


def _in_view(page: Page, testid: str) -> bool:
    box = page.get_by_test_id(testid).bounding_box()
    size = page.viewport_size
    assert box is not None and size is not None
    return (
        box["x"] >= 0
        and box["y"] >= 0
        and box["x"] + box["width"] <= size["width"] + 0.5
        and box["y"] + box["height"] <= size["height"] + 0.5
    )


def _converse(page: Page, fake: FakeLLM) -> None:
    fake.script([Reply.text(REPLY)])
    send(page, "Make me a plan for the tides " * 4)
    expect(messages(page, "assistant").last).to_contain_text("plan", timeout=REPLY_TIMEOUT_MS)
    wait_ready(page)


def test_desktop_layout(app: App, fake: FakeLLM) -> None:
    page = app.page
    wait_ready(page)
    configure_provider(page, "openrouter", f"{fake.base_url}/api/v1", KEY)
    expect(page.get_by_test_id("connection-status")).to_have_attribute("data-state", "ok", timeout=REPLY_TIMEOUT_MS)
    choose_model(page, MODEL)
    page.keyboard.press("Escape")
    _converse(page, fake)
    expect(page.get_by_test_id("sidebar-toggle")).to_be_hidden()  # the chats list stays beside the chat
    expect(page.get_by_test_id("session-entry").first).to_be_visible()
    assert _fits_the_width(page)
    RESULTS.mkdir(exist_ok=True)
    page.screenshot(path=str(RESULTS / "chat-desktop.png"))
    # The chats list searches what was said in past chats.
    search = page.get_by_test_id("session-search")
    search.fill("sourdough")
    expect(page.get_by_test_id("session-entry")).to_have_count(0, timeout=REPLY_TIMEOUT_MS)
    search.fill("unbroken PLAN")
    expect(page.get_by_test_id("session-entry")).to_have_count(1, timeout=REPLY_TIMEOUT_MS)
    expect(page.get_by_test_id("session-entry")).to_contain_text("unbroken")
    search.fill("")
    expect(page.get_by_test_id("session-entry")).to_have_count(1, timeout=REPLY_TIMEOUT_MS)


def test_phone_layout(app: App, fake: FakeLLM) -> None:
    page = app.page
    page.set_viewport_size(PHONE)
    wait_ready(page)
    configure_provider(page, "openrouter", f"{fake.base_url}/api/v1", KEY)
    settings_box = page.get_by_test_id("provider-select").locator("xpath=ancestor::form").bounding_box()
    assert settings_box is not None and settings_box["width"] >= PHONE["width"] - 1, "Settings take the whole screen"
    expect(page.get_by_test_id("connection-status")).to_have_attribute("data-state", "ok", timeout=REPLY_TIMEOUT_MS)
    choose_model(page, MODEL)
    page.keyboard.press("Escape")
    expect(page.get_by_test_id("provider-select")).to_be_hidden()
    _converse(page, fake)
    assert _fits_the_width(page), "nothing scrolls sideways"
    assert _in_view(page, "chat-input") and _in_view(page, "chat-send")
    top = page.locator(".topbar").bounding_box()
    assert top is not None and top["height"] <= 100, "the top bar keeps to two short rows at most"
    RESULTS.mkdir(exist_ok=True)
    page.screenshot(path=str(RESULTS / "chat-phone.png"))
    # The chats list is a drawer.
    entry = page.get_by_test_id("session-entry").first
    expect(entry).not_to_be_in_viewport()
    page.get_by_test_id("sidebar-toggle").click()
    expect(entry).to_be_in_viewport()
    drawer = page.locator(".sessions").bounding_box()
    assert drawer is not None and drawer["width"] >= 299, f"the drawer is min(300px, 86vw) wide, not {drawer}"
    for button in entry.locator("button").all():  # the current chat's Rename … Delete, all inside it
        box = button.bounding_box()
        assert box is not None and box["x"] + box["width"] <= drawer["x"] + drawer["width"]
    page.screenshot(path=str(RESULTS / "chat-phone-drawer.png"))
    page.keyboard.press("Escape")
    expect(entry).not_to_be_in_viewport()
    page.get_by_test_id("sidebar-toggle").click()
    entry.locator(".session-title").click()
    expect(entry).not_to_be_in_viewport()
    # A side panel takes the whole screen too.
    page.get_by_test_id("files-open").click()
    export = page.get_by_test_id("workspace-export")
    expect(export).to_be_visible()
    panel = export.locator("xpath=ancestor::aside").bounding_box()
    assert panel is not None and panel["x"] <= 0.5 and panel["width"] >= PHONE["width"] - 1, "the panel takes the width"
    assert _fits_the_width(page)
    page.screenshot(path=str(RESULTS / "chat-phone-files.png"))
    page.keyboard.press("Escape")
    expect(export).to_be_hidden()


AT_END = "(s => s.scrollHeight - s.scrollTop - s.clientHeight < 2)(document.querySelector('.scroller'))"
LINES = "".join(f"Line {i} of a reply long enough to scroll the chat.\n\n" for i in range(60))


def _soon_at_end(page: Page, within_ms: int = 1000) -> bool:
    """At the end within a few frames (each piece puts the view there at the next frame)."""
    for _ in range(within_ms // 20):
        if page.evaluate(AT_END):
            return True
        page.wait_for_timeout(20)
    return False


def test_the_view_follows_a_streaming_reply_only_from_the_end(chat: Page, fake: FakeLLM) -> None:
    """At the end, the view stays at the end as a reply streams in; scrolled up, it stays where it is."""
    page = chat
    fake.script([Reply.text(LINES + "First done.", delay_s=0.01, chunk_chars=40)])
    send(page, "a long reply, please")
    expect(messages(page, "assistant").last).to_contain_text("Line 30", timeout=REPLY_TIMEOUT_MS)
    assert _soon_at_end(page), "the view followed the reply while it streamed"
    expect(messages(page, "assistant").last).to_contain_text("First done.", timeout=REPLY_TIMEOUT_MS)
    wait_ready(page)
    assert _soon_at_end(page)  # the view goes to the end at the frame after each piece

    fake.script([Reply.text(LINES + "Second done.", delay_s=0.02, chunk_chars=40)])
    send(page, "another long reply")
    expect(messages(page, "assistant").last).to_contain_text("Line 5", timeout=REPLY_TIMEOUT_MS)
    page.evaluate("document.querySelector('.scroller').scrollTop = 0")  # the person reads from the top
    expect(messages(page, "assistant").last).to_contain_text("Second done.", timeout=REPLY_TIMEOUT_MS)
    wait_ready(page)
    page.wait_for_timeout(100)
    assert page.evaluate("document.querySelector('.scroller').scrollTop") == 0, "reading above, the view stayed"

"""Resources of tool servers (MCP) attached to a message from the Tool servers panel, in the real app against
the reference server-everything and the Python test server: one is listed, attached (a chip in the composer),
sent, and reaches the fake model as outside text naming its URI; the message shows it after a reload; a chip
removed before sending sends nothing; a resource over 8 MB is refused with a message, the typed text kept."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Locator, Page, expect

from scripts.fakes.fake_llm import FakeLLM
from scripts.fakes.replies import Reply
from scripts.mcp.launch import python_server
from tests.e2e.conftest import App
from tests.e2e.ui import REPLY_TIMEOUT_MS, last_message, wait_ready

CONNECT_TIMEOUT_MS = 30_000
READ_TIMEOUT_MS = 45_000
ROOT = Path(__file__).resolve().parents[2]
DOC = "features.md"
DOC_URI = f"demo://resource/static/document/{DOC}"
DOC_TEXT = (ROOT / "node_modules/@modelcontextprotocol/server-everything/dist/docs" / DOC).read_text()


@pytest.fixture
def page(asking_app: App) -> Page:
    return asking_app.page


def server_entry(page: Page, name: str, url: str) -> Locator:
    """The server's entry in the open panel, added if it is not there yet, connected, its resources shown."""
    if not page.get_by_test_id("tool-server-add").is_visible():
        page.get_by_test_id("tool-servers-open").click()
    entry = page.locator(f'[data-testid="tool-server-entry"][data-name="{name}"]')
    if entry.count() == 0:
        page.get_by_test_id("tool-server-name").fill(name)
        page.get_by_test_id("tool-server-url").fill(url)
        page.get_by_test_id("tool-server-add").click()
    expect(entry).to_have_attribute("data-state", "connected", timeout=CONNECT_TIMEOUT_MS)
    toggle = entry.get_by_test_id("tool-server-resources")
    expect(toggle).to_be_visible(timeout=CONNECT_TIMEOUT_MS)
    if toggle.get_attribute("aria-expanded") != "true":
        toggle.click()
    return entry


def attach(page: Page, entry: Locator, uri: str) -> None:
    entry.locator(f'[data-testid="tool-server-resource"][data-uri="{uri}"]').get_by_test_id("resource-attach").click()


def chip(page: Page, uri: str) -> Locator:
    return page.locator(f'[data-testid="attachment"][data-uri="{uri}"]')


def close_panel(page: Page) -> None:
    page.keyboard.press("Escape")
    expect(page.get_by_test_id("tool-server-add")).to_be_hidden()


def user_contents(fake: FakeLLM) -> str:
    body = fake.requests_to("/api/v1/chat/completions")[-1].json()
    users = [m for m in body["messages"] if m.get("role") == "user"]
    content = users[-1]["content"]
    return content if isinstance(content, str) else " ".join(p.get("text", "") for p in content)


def test_attached_resource_reaches_the_model_as_outside_text(page: Page, fake: FakeLLM, everything: str) -> None:
    entry = server_entry(page, "everything", everything)
    expect(entry.locator(f'[data-testid="tool-server-resource"][data-uri="{DOC_URI}"]')).to_be_visible()
    attach(page, entry, DOC_URI)
    expect(chip(page, DOC_URI)).to_be_visible(timeout=READ_TIMEOUT_MS)
    close_panel(page)
    fake.script([Reply.text("Read it.")])
    page.get_by_test_id("chat-input").fill("What does this list?")
    page.get_by_test_id("chat-send").click()
    expect(last_message(page, "assistant")).to_have_text("Read it.", timeout=REPLY_TIMEOUT_MS)
    expect(chip(page, DOC_URI)).to_have_count(0)  # the composer is empty again
    sent = user_contents(fake)
    assert sent.startswith("What does this list?")
    assert f'source="resource {DOC_URI} from tool server everything" kind="resource"' in sent
    first_line = DOC_TEXT.strip().splitlines()[0]
    assert sent.index("<untrusted_content") < sent.index(first_line) < sent.index("</untrusted_content>")
    user = last_message(page, "user")
    expect(user.get_by_test_id("message-resource")).to_have_attribute("data-uri", DOC_URI)
    wait_ready(page)
    page.reload()
    wait_ready(page)
    user = last_message(page, "user")
    expect(user.get_by_test_id("message-resource")).to_have_attribute("data-uri", DOC_URI, timeout=REPLY_TIMEOUT_MS)
    expect(user.locator(".message-body")).to_have_text("What does this list?")  # the wrapper is not shown as text


def test_removed_chip_is_not_sent(page: Page, fake: FakeLLM, everything: str) -> None:
    entry = server_entry(page, "everything", everything)
    attach(page, entry, DOC_URI)
    expect(chip(page, DOC_URI)).to_be_visible(timeout=READ_TIMEOUT_MS)
    chip(page, DOC_URI).get_by_test_id("attachment-remove").click()
    expect(chip(page, DOC_URI)).to_have_count(0)
    close_panel(page)
    fake.script([Reply.text("Nothing attached.")])
    page.get_by_test_id("chat-input").fill("Just text this time")
    page.get_by_test_id("chat-send").click()
    expect(last_message(page, "assistant")).to_have_text("Nothing attached.", timeout=REPLY_TIMEOUT_MS)
    sent = user_contents(fake)
    assert sent == "Just text this time"
    assert "untrusted_content" not in sent
    wait_ready(page)


def test_too_large_resource_is_refused_and_text_kept(page: Page, fake: FakeLLM, python_cors: str) -> None:
    page.get_by_test_id("chat-input").fill("keep this text")
    entry = server_entry(page, "py", python_cors)
    attach(page, entry, "test://big")
    notice = page.get_by_test_id("resource-attach-notice")
    expect(notice).to_contain_text("8 MB", timeout=READ_TIMEOUT_MS)
    expect(notice).to_contain_text("Not attached")
    expect(chip(page, "test://big")).to_have_count(0)
    expect(page.get_by_test_id("chat-input")).to_have_value("keep this text")
    attach(page, entry, "test://notes")  # the server is still connected: a small one attaches
    expect(chip(page, "test://notes")).to_be_visible(timeout=READ_TIMEOUT_MS)
    expect(entry).to_have_attribute("data-state", "connected")
    chip(page, "test://notes").get_by_test_id("attachment-remove").click()
    expect(page.get_by_test_id("attachment")).to_have_count(0)


def test_server_down_at_read_time_says_so_and_keeps_the_text(page: Page, server: str) -> None:
    with python_server([server]) as url:
        entry = server_entry(page, "gone", url)
    # The server is stopped now; its entry still says connected until a request finds out.
    expect(page.get_by_test_id("attachment")).to_have_count(0)
    page.get_by_test_id("chat-input").fill("text typed before attaching")
    attach(page, entry, "test://notes")
    notice = page.get_by_test_id("resource-attach-notice")
    expect(notice).to_contain_text("could not read test://notes from 'gone'", timeout=READ_TIMEOUT_MS)
    expect(chip(page, "test://notes")).to_have_count(0)
    expect(page.get_by_test_id("chat-input")).to_have_value("text typed before attaching")
    expect(entry).to_have_attribute("data-state", "error", timeout=CONNECT_TIMEOUT_MS)  # marked, as a failed call
    expect(entry.get_by_test_id("tool-server-resources")).to_have_count(0)

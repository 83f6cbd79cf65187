"""Tool servers (MCP) through the UI against real servers on 127.0.0.1: the reference server-everything
and a Python server on the official SDK (with CORS; and one without, whose entry says CORS). The fake
model calls a server's tool; the card names the server, asks first, and the result reaches the model.
Servers are kept across a reload; removing one forgets it."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator

import pytest
from playwright.sync_api import Locator, Page, expect

from scripts.fakes.fake_llm import FakeLLM
from scripts.fakes.replies import Reply
from scripts.mcp.launch import python_server
from tests.e2e.conftest import App
from tests.e2e.ui import REPLY_TIMEOUT_MS, dump_storage, last_message, send, wait_ready

CONNECT_TIMEOUT_MS = 30_000


@pytest.fixture(scope="module")
def python_plain() -> Iterator[str]:
    with python_server([]) as url:
        yield url


@pytest.fixture
def page(asking_app: App) -> Page:
    return asking_app.page


def open_panel(page: Page) -> None:
    if page.get_by_test_id("tool-server-add").is_visible():
        return
    page.get_by_test_id("tool-servers-open").click()
    expect(page.get_by_test_id("tool-server-add")).to_be_visible()


def entry(page: Page, name: str) -> Locator:
    return page.locator(f'[data-testid="tool-server-entry"][data-name="{name}"]')


def add_server(page: Page, name: str, url: str, token: str = "", storage: str = "encrypted") -> Locator:
    open_panel(page)
    page.get_by_test_id("tool-server-name").fill(name)
    page.get_by_test_id("tool-server-url").fill(url)
    page.get_by_test_id("tool-server-token").fill(token)
    page.get_by_test_id("tool-server-token-storage").select_option(storage)
    page.get_by_test_id("tool-server-add").click()
    return entry(page, name)


def model_calls(page: Page, fake: FakeLLM, tool: str, args: dict[str, object], after: str) -> Locator:
    """The fake calls `tool` (as the model sees it); the approval card is checked and allowed."""
    cards = page.locator(f'[data-testid="tool-call"][data-tool="{tool}"]')
    before = cards.count()
    fake.script([Reply.tool_call(tool, args), Reply.text(after)])
    send(page, f"Please use {tool}")
    card = cards.nth(before)
    expect(card).to_have_attribute("data-status", "pending-approval", timeout=REPLY_TIMEOUT_MS)
    card.get_by_test_id("approval-allow").click()
    expect(card).to_have_attribute("data-status", re.compile("^(ok|error)$"), timeout=REPLY_TIMEOUT_MS)
    expect(last_message(page, "assistant")).to_have_text(after, timeout=REPLY_TIMEOUT_MS)
    wait_ready(page)
    return card


def tool_message(fake: FakeLLM) -> str:
    body = fake.requests_to("/api/v1/chat/completions")[-1].json()
    tool_messages = [m for m in body["messages"] if m.get("role") == "tool"]
    assert tool_messages, body["messages"]
    content = tool_messages[-1]["content"]
    return content if isinstance(content, str) else json.dumps(content)


def offered(fake: FakeLLM) -> dict[str, dict[str, object]]:
    body = fake.requests_to("/api/v1/chat/completions")[0].json()
    return {t["function"]["name"]: t["function"] for t in body.get("tools", [])}


def test_everything_server_tool_is_called_through_the_agent(page: Page, fake: FakeLLM, everything: str) -> None:
    server = add_server(page, "everything", everything)
    expect(server).to_have_attribute("data-state", "connected", timeout=CONNECT_TIMEOUT_MS)
    expect(server).not_to_have_attribute("data-tools", "0")
    card = model_calls(page, fake, "everything__echo", {"message": "high tide"}, "The server echoed.")
    assert card.get_attribute("data-server") == "everything"
    assert card.get_attribute("data-status") == "ok"
    echo = offered(fake)["everything__echo"]
    assert "message" in json.dumps(echo["parameters"])  # the server's own schema went to the model
    text = tool_message(fake)
    assert "high tide" in text
    assert 'kind="tool"' in text  # wrapped as outside text


def test_python_server_with_cors_works(page: Page, fake: FakeLLM, python_cors: str) -> None:
    server = add_server(page, "py", python_cors)
    expect(server).to_have_attribute("data-state", "connected", timeout=CONNECT_TIMEOUT_MS)
    expect(server).to_have_attribute("data-tools", "4")  # add, shout, pixel, grow
    card = model_calls(page, fake, "py__add", {"a": 2, "b": 40}, "It is 42.")
    assert card.get_attribute("data-server") == "py"
    assert "42" in tool_message(fake)


def test_server_without_cors_is_marked_with_advice(page: Page, python_plain: str) -> None:
    server = add_server(page, "nocors", python_plain)
    expect(server).to_have_attribute("data-state", "error", timeout=CONNECT_TIMEOUT_MS)
    expect(server).to_contain_text("CORS")
    expect(server).to_contain_text("Mcp-Session-Id")
    expect(server).to_have_attribute("data-tools", "0")
    expect(entry(page, "py")).to_have_attribute("data-state", "connected")  # the others are unaffected


def test_bad_input_is_refused_and_kept(page: Page) -> None:
    open_panel(page)
    add_server(page, "Bad Name", "http://127.0.0.1:1/mcp")
    expect(page.locator(".tool-server-problem")).to_contain_text("lower-case")
    expect(page.get_by_test_id("tool-server-name")).to_have_value("Bad Name")  # what was typed stays
    expect(entry(page, "Bad Name")).to_have_count(0)


def test_reload_keeps_servers_and_remove_forgets(page: Page) -> None:
    page.reload()
    wait_ready(page)
    open_panel(page)
    for name in ("everything", "py"):
        expect(entry(page, name)).to_have_attribute("data-state", "connected", timeout=2 * CONNECT_TIMEOUT_MS)
    expect(entry(page, "nocors")).to_have_attribute("data-state", "error", timeout=CONNECT_TIMEOUT_MS)
    for name in ("everything", "py", "nocors"):
        entry(page, name).get_by_test_id("tool-server-remove").click()
        expect(entry(page, name)).to_have_count(0)
    page.reload()
    wait_ready(page)
    open_panel(page)
    expect(page.get_by_test_id("tool-server-entry")).to_have_count(0)


def stored_keys(page: Page) -> set[str]:
    return {str(k) for store in dump_storage(page)["idb"].values() for k in store["keys"]}


def test_session_only_token_is_asked_for_again_after_reload(page: Page, python_cors: str) -> None:
    open_panel(page)
    expect(page.get_by_test_id("tool-server-token-storage")).to_have_value("encrypted")  # the provider key's default
    sealed = add_server(page, "sealed", python_cors, token="tok-sealed-1")
    expect(sealed).to_have_count(1)  # added (the form is cleared) before the next one is typed
    session = add_server(page, "sess", python_cors, token="tok-session-1", storage="session")
    for server in (sealed, session):
        expect(server).to_have_attribute("data-state", "connected", timeout=CONNECT_TIMEOUT_MS)
    keys = stored_keys(page)
    assert "secret:tool-server:sealed" in keys  # the encrypted choice seals it
    assert "secret:tool-server:sess" not in keys, sorted(keys)
    page.reload()
    wait_ready(page)
    open_panel(page)
    expect(entry(page, "sealed")).to_have_attribute("data-state", "connected", timeout=2 * CONNECT_TIMEOUT_MS)
    session = entry(page, "sess")
    expect(session).to_have_attribute("data-state", "auth-required")
    expect(session).to_contain_text("session only: give it again")
    expect(session.get_by_test_id("tool-server-signin")).to_have_count(0)  # a token, not an OAuth sign-in
    assert "secret:tool-server:sess" not in stored_keys(page)
    session.get_by_test_id("tool-server-token-again").fill("tok-session-2")
    session.get_by_test_id("tool-server-token-use").click()
    expect(session).to_have_attribute("data-state", "connected", timeout=CONNECT_TIMEOUT_MS)
    assert "secret:tool-server:sess" not in stored_keys(page)
    for name in ("sealed", "sess"):
        entry(page, name).get_by_test_id("tool-server-remove").click()
        expect(entry(page, name)).to_have_count(0)
    assert not {k for k in stored_keys(page) if k.startswith("secret:tool-server:")}

"""The two MCP revisions through the UI, against the Python server on the official SDK: it speaks
2026-07-28 when the server offers it (the entry's `data-protocol`), the 2025 handshake when the server
refuses it or when its CORS refuses that revision's headers; a tool list that changes while connected
(the server's `grow` tool adds one) reaches the panel's `data-tools` and the model's tool list in both
(2026-07-28 on its listen stream). After a reload, server-everything connects at the first try."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from playwright.sync_api import ConsoleMessage, Page, expect

from scripts.fakes.fake_llm import FakeLLM
from scripts.fakes.replies import Reply
from scripts.mcp.launch import everything_server, python_server
from tests.e2e.conftest import App
from tests.e2e.test_tool_servers import CONNECT_TIMEOUT_MS, add_server, entry, model_calls, open_panel
from tests.e2e.ui import REPLY_TIMEOUT_MS, last_message, send, wait_ready

LEGACY = re.compile(r"^2025-\d\d-\d\d$")
# What the 2025 revision needs, without the 2026-07-28 request headers Mcp-Method and Mcp-Name.
HEADERS_2025 = ["Content-Type", "Authorization", "Mcp-Session-Id", "mcp-protocol-version", "Accept"]


@pytest.fixture(scope="module")
def modern(server: str) -> Iterator[str]:
    with python_server([server]) as url:
        yield url


@pytest.fixture(scope="module")
def legacy(server: str) -> Iterator[str]:
    with python_server([server], legacy_only=True) as url:
        yield url


@pytest.fixture(scope="module")
def cors_2025(server: str) -> Iterator[str]:
    with python_server([server], allow_headers=HEADERS_2025) as url:
        yield url


@pytest.fixture(scope="module")
def everything() -> Iterator[str]:
    with everything_server() as url:
        yield url


@pytest.fixture
def page(asking_app: App) -> Page:
    return asking_app.page


def offered_last(fake: FakeLLM) -> set[str]:
    body = fake.requests_to("/api/v1/chat/completions")[-1].json()
    return {t["function"]["name"] for t in body.get("tools", [])}


def grows(page: Page, fake: FakeLLM, name: str) -> None:
    """The model calls `name__grow`; the entry lists the new tool, and the model is offered it next."""
    server = entry(page, name)
    expect(server).to_have_attribute("data-tools", "4", timeout=CONNECT_TIMEOUT_MS)
    model_calls(page, fake, f"{name}__grow", {}, "It grew.")
    expect(server).to_have_attribute("data-tools", "5", timeout=REPLY_TIMEOUT_MS)
    expect(server).to_have_attribute("data-state", "connected")
    fake.script([Reply.text("Noted.")])
    send(page, "What tools are there now?")
    expect(last_message(page, "assistant")).to_have_text("Noted.", timeout=REPLY_TIMEOUT_MS)
    wait_ready(page)
    assert f"{name}__grown_1" in offered_last(fake)


def test_modern_server_speaks_2026_and_its_listen_stream_refreshes(page: Page, fake: FakeLLM, modern: str) -> None:
    server = add_server(page, "modern", modern)
    expect(server).to_have_attribute("data-state", "connected", timeout=CONNECT_TIMEOUT_MS)
    expect(server).to_have_attribute("data-protocol", "2026-07-28")
    expect(server).to_contain_text("MCP 2026-07-28")
    grows(page, fake, "modern")


def test_legacy_server_speaks_2025_and_list_changed_refreshes(page: Page, fake: FakeLLM, legacy: str) -> None:
    server = add_server(page, "legacy", legacy)
    expect(server).to_have_attribute("data-state", "connected", timeout=CONNECT_TIMEOUT_MS)
    expect(server).to_have_attribute("data-protocol", LEGACY)
    grows(page, fake, "legacy")


def test_cors_without_the_2026_headers_falls_back_to_2025(page: Page, cors_2025: str) -> None:
    server = add_server(page, "corsold", cors_2025)
    expect(server).to_have_attribute("data-state", "connected", timeout=CONNECT_TIMEOUT_MS)
    expect(server).to_have_attribute("data-protocol", LEGACY)
    expect(server).to_have_attribute("data-tools", "4")


def test_reload_reconnects_everything_at_the_first_try(page: Page, everything: str) -> None:
    server = add_server(page, "everything", everything)
    expect(server).to_have_attribute("data-state", "connected", timeout=CONNECT_TIMEOUT_MS)
    expect(server).to_have_attribute("data-protocol", LEGACY)  # server-everything is a 2025 server
    failures: list[str] = []

    def on_console(message: ConsoleMessage) -> None:
        if "tool server everything:" in message.text:
            failures.append(message.text)

    page.on("console", on_console)
    try:
        for _ in range(3):
            page.reload()
            wait_ready(page)
            open_panel(page)
            expect(entry(page, "everything")).to_have_attribute("data-state", "connected", timeout=CONNECT_TIMEOUT_MS)
            assert failures == []  # connected at the first try, not by the retry 3 s later
    finally:
        page.remove_listener("console", on_console)
    for name in ("modern", "legacy", "corsold", "everything"):
        entry(page, name).get_by_test_id("tool-server-remove").click()
        expect(entry(page, name)).to_have_count(0)

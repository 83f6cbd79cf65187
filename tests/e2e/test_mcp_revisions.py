"""The two MCP revisions through the UI, against the Python server on the official SDK: it speaks
2026-07-28 when the server offers it (the entry's `data-protocol`), the 2025 handshake when the server
refuses it; a tool list that changes while connected
(the server's `grow` tool adds one) reaches the panel's `data-tools` and the model's tool list in both
(2026-07-28 on its listen stream)."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from playwright.sync_api import Page, expect

from scripts.fakes.fake_llm import FakeLLM
from scripts.fakes.replies import Reply
from scripts.mcp.launch import python_server
from tests.e2e.conftest import App
from tests.e2e.test_tool_servers import CONNECT_TIMEOUT_MS, add_server, entry, model_calls
from tests.e2e.ui import REPLY_TIMEOUT_MS, last_message, send, wait_ready

LEGACY = re.compile(r"^2025-\d\d-\d\d$")


@pytest.fixture(scope="module")
def modern(server: str) -> Iterator[str]:
    with python_server([server]) as url:
        yield url


@pytest.fixture(scope="module")
def legacy(server: str) -> Iterator[str]:
    with python_server([server], legacy_only=True) as url:
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

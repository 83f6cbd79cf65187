"""Tool servers that misbehave, and the connection doctor's MCP checks, in the real app in Chromium.

One hostile server (``scripts/mcp/hostile_server.py``, one case per path) stands for every kind of
bad input: each entry in the Tool servers panel says what is wrong, within bounded time, and a good
server beside them keeps its tools; a 50 MB tool result is cut with a message the model reads. The
doctor names the missing CORS part for the Python SDK's server without CORS and a hidden Mcp-Session-Id,
and passes the reference server-everything. (The harness routes every request through Playwright,
which answers CORS preflights itself: the preflight cases, a header not allowed and OPTIONS 401, are
in web/tests/mcp-doctor.test.ts.)
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Locator, Page, expect

from scripts.fakes.fake_llm import FakeLLM
from scripts.mcp.launch import hostile_server, python_server
from tests.e2e.conftest import App
from tests.e2e.test_tool_servers import add_server, entry, model_calls, tool_message
from tests.e2e.ui import REPLY_TIMEOUT_MS, open_settings

SETTLE_MS = 45_000  # the slowest case waits out the 15 s connect deadline, once more after a retry


@pytest.fixture(scope="module")
def hostile() -> Iterator[str]:
    with hostile_server() as base:
        yield base


@pytest.fixture(scope="module")
def python_plain() -> Iterator[str]:
    with python_server([]) as url:
        yield url


def add(page: Page, name: str, url: str) -> Locator:
    """Add a server and wait for its entry (the form is free again once it shows)."""
    added = add_server(page, name, url)
    expect(added).to_have_count(1, timeout=REPLY_TIMEOUT_MS)
    return added


@pytest.fixture
def page(asking_app: App) -> Page:
    return asking_app.page


def test_each_bad_server_is_named_and_the_good_one_works(page: Page, hostile: str) -> None:
    cases = ["ok", "malformed", "huge-list", "redirect", "endless-sse", "bad-schema", "builtin-name", "big-result"]
    entries = {case: add(page, case, f"{hostile}/{case}/mcp") for case in cases}
    expected = {
        "malformed": "malformed JSON-RPC",
        "huge-list": "more than 8 MB in one answer",
        "redirect": "redirects are not followed",
        "endless-sse": "did not answer within 15 s",
    }
    for case, text in expected.items():
        expect(entries[case]).to_have_attribute("data-state", "error", timeout=SETTLE_MS)
        expect(entries[case]).to_contain_text(text, timeout=SETTLE_MS)
        expect(entries[case]).to_have_attribute("data-tools", "0")
    for case in ("ok", "bad-schema", "builtin-name", "big-result"):
        expect(entries[case]).to_have_attribute("data-state", "connected", timeout=SETTLE_MS)
        expect(entries[case]).to_have_attribute("data-tools", "1")  # only its echo is taken
    schema = entries["bad-schema"]
    for text in ("either refused", "'anyOf' at the top", "elsewhere.example", "over the 32 kB"):
        expect(schema).to_contain_text(text)
    expect(entries["builtin-name"]).to_contain_text("is the name of a built-in tool")
    expect(entries["builtin-name"]).to_contain_text("not a tool name a model takes")


def test_a_50_mb_result_is_cut_and_the_agent_goes_on(page: Page, fake: FakeLLM, hostile: str) -> None:
    for case in ("ok", "big-result"):  # added by the test before; run alone, this one adds them
        if entry(page, case).count() == 0:
            add(page, case, f"{hostile}/{case}/mcp")
        expect(entry(page, case)).to_have_attribute("data-state", "connected", timeout=SETTLE_MS)
    model_calls(page, fake, "big-result__echo", {"text": "hi"}, "That was too large.")
    assert "more than 8 MB in one answer" in tool_message(fake)
    expect(entry(page, "big-result")).to_have_attribute("data-state", "connected")
    model_calls(page, fake, "ok__echo", {"text": "still here"}, "Echoed.")
    assert "still here" in tool_message(fake)


def check(page: Page, server: str, name: str) -> Locator:
    return page.locator(f'[data-testid="connection-check"][data-server="{server}"][data-check="{name}"]')


def test_the_doctor_names_what_each_server_lacks(page: Page, hostile: str, everything: str, python_plain: str) -> None:
    for case in ("malformed", "huge-list", "redirect", "endless-sse", "bad-schema", "builtin-name", "big-result"):
        entry(page, case).get_by_test_id("tool-server-remove").click()
    add(page, "everything", everything)
    add(page, "nocors", python_plain)
    add(page, "no-expose", f"{hostile}/no-expose/mcp")
    open_settings(page)
    page.get_by_test_id("connection-check-run").click()
    for name in ("mcp-reachable", "mcp-cors", "mcp-auth", "mcp-protocol", "mcp-tools"):
        expect(check(page, "everything", name)).to_have_attribute("data-state", "ok", timeout=REPLY_TIMEOUT_MS)
    expect(check(page, "everything", "mcp-protocol")).to_contain_text("sessionful")
    expect(check(page, "everything", "mcp-tools")).to_contain_text(" tools")
    advice = {
        ("nocors", "mcp-cors"): "no Access-Control-Allow-Origin header",
        ("no-expose", "mcp-tools"): "add Mcp-Session-Id to Access-Control-Expose-Headers",
    }
    for (server, name), text in advice.items():
        expect(check(page, server, name)).to_have_attribute("data-state", "fail")
        expect(check(page, server, name)).to_contain_text(text)
        expect(check(page, server, name)).to_contain_text("server's owner")
    expect(check(page, "nocors", "mcp-reachable")).to_have_attribute("data-state", "ok")
    expect(check(page, "ok", "mcp-tools")).to_have_attribute("data-state", "ok")
    # The provider's own connection is summed up on its own: a tool server's problem is listed, not there.
    expect(page.get_by_test_id("connection-status")).to_have_attribute("data-state", "ok")

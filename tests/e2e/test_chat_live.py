"""What the chat shows as it happens: run_python's output while it runs, how full the model's context
is, and error advice that fits the provider that answered."""

from __future__ import annotations

import re

from playwright.sync_api import Locator, Page, expect

from scripts.fakes.catalog import OPENROUTER_MODELS
from scripts.fakes.fake_llm import FakeLLM
from scripts.fakes.replies import Reply
from tests.e2e.conftest import MODEL, App
from tests.e2e.ui import REPLY_TIMEOUT_MS, choose_model, configure_provider, messages, send, wait_ready

RUN_TIMEOUT_MS = 120_000  # the first run waits for the sandbox's Pyodide to boot
SLOW_CODE = "import asyncio\nprint('first line', flush=True)\nawait asyncio.sleep(8)\nprint('second line')"


def _gauge(page: Page) -> Locator:
    return page.get_by_test_id("context-gauge")


def _used(page: Page) -> int:
    return int(_gauge(page).get_attribute("data-used") or "0")


def test_run_python_output_shows_in_its_card_while_it_runs(chat: Page, fake: FakeLLM) -> None:
    fake.script([Reply.tool_call("run_python", {"code": SLOW_CODE}), Reply.text("It ran.")])
    send(chat, "Run something slow")
    card = chat.locator('[data-testid="tool-call"][data-tool="run_python"]').last
    output = card.get_by_test_id("tool-output")
    expect(output).to_contain_text("first line", timeout=RUN_TIMEOUT_MS)
    expect(card).to_have_attribute("data-status", "running")  # seen before the call ended
    expect(output).not_to_contain_text("second line")
    expect(card).to_have_attribute("data-status", "ok", timeout=RUN_TIMEOUT_MS)
    expect(output).to_contain_text("second line")
    expect(messages(chat, "assistant").last).to_have_text("It ran.", timeout=REPLY_TIMEOUT_MS)
    chat.get_by_test_id("permission-mode").select_option("ask")


def test_the_context_gauge_measures_against_the_models_window(chat: Page, fake: FakeLLM) -> None:
    window = next(m["context_length"] for m in OPENROUTER_MODELS if m["id"] == MODEL)
    gauge = _gauge(chat)
    expect(gauge).to_have_attribute("data-limit", str(window), timeout=REPLY_TIMEOUT_MS)
    expect(gauge).to_have_attribute("data-used", re.compile(r"^[1-9]\d*$"))  # the system prompt and tools
    before = _used(chat)
    fake.script([Reply.text("A long answer. " * 400)])
    send(chat, "Tell me a lot " * 50)
    expect(messages(chat, "assistant").last).to_contain_text("A long answer.", timeout=REPLY_TIMEOUT_MS)
    wait_ready(chat)
    # The gauge may show a step between (the question stored, the reply not yet): wait for the reply's
    # ~6000 characters to count, or fail after the timeout.
    chat.wait_for_function(
        "n => Number(document.querySelector('[data-testid=\"context-gauge\"]').dataset.used) > n",
        arg=before + 1000,
        timeout=REPLY_TIMEOUT_MS,
    )
    compact_at = int(gauge.get_attribute("data-compact-at") or "0")
    assert 0 < compact_at < window
    expect(gauge).to_have_attribute("title", re.compile("summarized"))
    other = next(m for m in OPENROUTER_MODELS if m["context_length"] != window)
    choose_model(chat, other["id"])
    expect(gauge).to_have_attribute("data-limit", str(other["context_length"]), timeout=REPLY_TIMEOUT_MS)
    choose_model(chat, MODEL)


def test_a_plain_message_leaves_at_send_once_and_as_typed(chat: Page, fake: FakeLLM) -> None:
    """The request the runtime offered goes out from the worker at Send (docs/protocol.md, ``http_offer``): one
    request per message, carrying the text as typed, and the runtime reads its answer rather than sending
    its own. A setting changed and a message sent at once goes out once too, with the new setting."""
    adopted: list[str] = []
    chat.on("console", lambda m: adopted.append(m.text) if "request sent at Send is the turn's own" in m.text else None)
    completions = "/api/v1/chat/completions"
    for n, text in enumerate(("Hello there", 'Ünïcödé 😀 "quoted" \\ back\nslash\nand a second line')):
        wait_ready(chat)
        chat.wait_for_timeout(1000)  # a person's pause: the page's follow-ups of the last turn are over, and
        # the runtime has prepared and offered the next request
        before = len(fake.requests_to(completions, "POST"))
        fake.script([Reply.text(f"Reply {n}.")])
        send(chat, text)
        expect(messages(chat, "assistant").last).to_have_text(f"Reply {n}.", timeout=REPLY_TIMEOUT_MS)
        sent = fake.requests_to(completions, "POST")[before:]
        assert len(sent) == 1, f"{len(sent)} requests for one message"
        assert sent[0].json()["messages"][-1] == {"role": "user", "content": text}
    assert len(adopted) == 2, adopted
    wait_ready(chat)
    chat.wait_for_timeout(300)
    before = len(fake.requests_to(completions, "POST"))
    fake.script([Reply.text("Asked first.")])
    chat.get_by_test_id("permission-mode").select_option("ask")
    send(chat, "Now in ask mode")
    expect(messages(chat, "assistant").last).to_have_text("Asked first.", timeout=REPLY_TIMEOUT_MS)
    system = fake.requests_to(completions, "POST")[before - 1].json()["messages"][0]["content"]
    sent = fake.requests_to(completions, "POST")[before:]
    assert len(sent) == 1 and sent[0].json()["messages"][0]["content"] != system  # the mode's own prompt
    chat.get_by_test_id("permission-mode").select_option("full-auto")


def test_error_advice_fits_the_provider_that_answered(app: App, fake: FakeLLM) -> None:
    page = app.page
    wait_ready(page)
    configure_provider(page, "ollama", fake.base_url)
    expect(page.get_by_test_id("connection-status")).to_have_attribute("data-state", "ok", timeout=REPLY_TIMEOUT_MS)
    fake.script([Reply.error(402, "payment required by the proxy")])
    send(page, "Hello?")
    error = messages(page, "error").last
    expect(error).to_contain_text("Ollama answered HTTP 402", timeout=REPLY_TIMEOUT_MS)
    expect(error).to_contain_text("base URL")
    expect(error).not_to_contain_text(re.compile("openrouter", re.I))

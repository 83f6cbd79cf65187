"""A long session opens with its last 200 messages and a `messages-earlier` button for the rest: the page
stays responsive whatever the session holds (every message stays stored)."""

from __future__ import annotations

from pathlib import Path

from playwright.sync_api import Browser, expect

from runtime.store.store import Store
from scripts.benchlib.long_session import SEED  # the same seeding as the bench's long-session rows
from tests.e2e.conftest import guarded_context
from tests.e2e.ui import messages, wait_ready


def long_session(path: Path, turns: int) -> None:
    store = Store(path)
    session = store.create_session("A long chat")
    with store.atomic():
        for turn in range(1, turns + 1):
            store.append_message(session.id, "user", f"question {turn}", turn_id=f"t{turn}")
            store.append_message(session.id, "assistant", f"answer {turn}", turn_id=f"t{turn}")
    store.close()


def test_a_long_session_shows_its_last_messages_and_the_earlier_ones_on_request(
    browser: Browser, server: str, tmp_path: Path
) -> None:
    database = tmp_path / "current.sqlite"
    long_session(database, 130)  # 260 messages
    context, _ = guarded_context(browser)
    try:
        context.route("**/__seed/current.sqlite", lambda route: route.fulfill(path=str(database)))
        page = context.new_page()
        page.goto(server + "/pyodide/pyodide-lock.json")  # the app's origin, without starting the app
        page.evaluate(SEED, server + "/__seed/current.sqlite")
        page.goto(server + "/")
        wait_ready(page)
        expect(messages(page, "assistant").last).to_have_text("answer 130")
        expect(messages(page, "user")).to_have_count(100)
        earlier = page.get_by_test_id("messages-earlier")
        expect(earlier).to_have_attribute("data-earlier", "60")
        earlier.click()
        expect(messages(page, "user")).to_have_count(130)
        expect(messages(page, "user").first).to_have_text("question 1")
        expect(page.get_by_test_id("messages-earlier")).to_have_count(0)
    finally:
        context.close()

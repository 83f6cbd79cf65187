"""The built app in headless Chromium, driven through the UI contract (data-testids), with every request
off 127.0.0.1 aborted, the way the end-to-end tests drive it (tools do not import the tests, so the few
helpers they share are written again here)."""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from playwright.sync_api import Browser, Locator, Page, Route

TURN_TIMEOUT_S = 240.0
BOOT_TIMEOUT_MS = 180_000


def messages(page: Page, role: str) -> Locator:
    return page.locator(f'[data-testid="message"][data-role="{role}"]')


def open_settings(page: Page) -> None:
    if not page.get_by_test_id("provider-select").is_visible():
        page.get_by_test_id("settings-open").click()
    page.get_by_test_id("provider-select").wait_for(state="visible")


def close_settings(page: Page) -> None:
    """Settings closed (a save that connects closes the panel by itself; otherwise its close button)."""
    close = page.get_by_test_id("settings-close")
    if close.is_visible():
        close.click(timeout=5_000)
    page.get_by_test_id("provider-select").wait_for(state="hidden")


def configure_provider(page: Page, kind: str, base_url: str, key: str | None) -> None:
    open_settings(page)
    page.get_by_test_id("provider-select").select_option(kind)
    page.get_by_test_id("base-url-input").fill(base_url)
    if key is not None:
        page.get_by_test_id("api-key-input").fill(key)
    page.get_by_test_id("settings-save").click()


def choose_model(page: Page, model_id: str) -> None:
    open_settings(page)
    page.get_by_test_id("model-select").select_option(model_id)


@dataclass
class Driver:
    page: Page
    external: list[str] = field(default_factory=list)

    def option_exists(self, testid: str, value: str) -> bool:
        return self.page.locator(f'[data-testid="{testid}"] option[value="{value}"]').count() > 0

    def wait(self, check: Callable[[], bool], timeout_s: float, what: str) -> None:
        """Poll `check()` (letting Playwright run its handlers) until it is true; TimeoutError naming `what`."""
        deadline = time.monotonic() + timeout_s
        while not check():
            if time.monotonic() > deadline:
                raise TimeoutError(f"no {what} within {timeout_s:.0f} s")
            self.page.wait_for_timeout(200)

    def count(self, role: str) -> int:
        return messages(self.page, role).count()

    def last_text(self, role: str) -> str:
        found = messages(self.page, role)
        return found.last.inner_text() if found.count() else ""

    def turn_running(self) -> bool:
        return self.page.get_by_test_id("chat-stop").is_visible()

    def start_turn(self, text: str) -> tuple[int, int]:
        """Send `text` in the open chat; the counts of assistant and error messages before it."""
        before = (self.count("assistant"), self.count("error"))
        self.wait(lambda: self.page.get_by_test_id("chat-send").is_enabled(), 60, "enabled Send button")
        box = self.page.get_by_test_id("chat-input")
        box.fill(text)
        box.press("Enter")
        return before

    def finish_turn(self, before: tuple[int, int], timeout_s: float = TURN_TIMEOUT_S) -> float:
        """Wait until the turn started after `before` has ended with a reply or an error; seconds taken."""
        started = time.monotonic()
        self.wait(lambda: self.count("assistant") > before[0] or self.count("error") > before[1], timeout_s,
                  "reply or error")
        self.wait(lambda: not self.turn_running(), timeout_s, "end of the turn")
        return time.monotonic() - started

    def turn(self, text: str, timeout_s: float = TURN_TIMEOUT_S) -> tuple[tuple[int, int], float]:
        before = self.start_turn(text)
        return before, self.finish_turn(before, timeout_s)

    def new_errors(self, before: tuple[int, int]) -> list[str]:
        found = messages(self.page, "error")
        return [found.nth(i).inner_text() for i in range(before[1], found.count())]

    def new_chat(self) -> None:
        self.page.get_by_test_id("session-new").click()
        self.wait(lambda: self.count("assistant") + self.count("error") + self.count("user") == 0, 30,
                  "empty new chat")

    def tool_cards(self) -> list[tuple[str, str]]:
        cards = self.page.get_by_test_id("tool-call")
        return [(cards.nth(i).get_attribute("data-tool") or "", cards.nth(i).get_attribute("data-status") or "")
                for i in range(cards.count())]

    def gauge(self) -> tuple[str, str]:
        gauge = self.page.get_by_test_id("context-gauge")
        if not gauge.count():
            return "", ""
        return gauge.first.get_attribute("data-used") or "", gauge.first.get_attribute("data-limit") or ""


def short(text: str, limit: int = 160) -> str:
    flat = re.sub(r"\s+", " ", text).strip()
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


@contextmanager
def app_page(browser: Browser, url: str) -> Iterator[Driver]:
    context = browser.new_context(viewport={"width": 1280, "height": 800}, service_workers="block")
    context.set_default_timeout(30_000)
    driver_external: list[str] = []

    def guard(route: Route) -> None:
        if urlsplit(route.request.url).hostname == "127.0.0.1":
            route.continue_()
        else:
            driver_external.append(route.request.url)
            route.abort("blockedbyclient")

    context.route("**/*", guard)
    try:
        page = context.new_page()
        page.goto(url)
        page.locator('[data-testid="runtime-status"][data-state="ready"]').wait_for(timeout=BOOT_TIMEOUT_MS)
        yield Driver(page, driver_external)
    finally:
        context.close()

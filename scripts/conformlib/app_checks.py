"""The app against a real llama-server: connect, chat, a tool round trip, Stop, a cut-off call, overflow, a
killed server. Each check reports pass/fail with what was seen; one failing does not stop the others."""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from contextlib import AbstractContextManager
from pathlib import Path

from playwright.sync_api import Browser, Error, sync_playwright
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from .browser import Driver, app_page, choose_model, close_settings, configure_provider, open_settings, short
from .llama import ALIAS, LlamaServer, request
from .report import Check
from .wire import CALL_TEXT, LONG_CALL_TEXT

PROVIDER = "openai-compatible"
FALLBACK = "openrouter"
LONG_STORY = "Tell me a very long story about the sea, the tides and the ships."
COPY = "Reply with exactly this text and nothing else:\n"
CORS = re.compile(r"CORS|blocked the request", re.I)
OVERFLOW_WORDS = re.compile(r"context|window", re.I)
DROPPED = re.compile(r"dropped|closed|interrupted|stopped answering|mid-reply|connection was lost", re.I)
NOT_RUNNING = re.compile(r"is (?:your|the) server running|not running|nothing (?:is )?listening|refused", re.I)


class Checks:
    def __init__(self, d: Driver, server: LlamaServer) -> None:
        self.d = d
        self.server = server
        self.out: list[Check] = []
        self.kind = PROVIDER

    def add(self, name: str, ok: bool, seen: str) -> None:
        self.out.append(Check.of("app", name, ok, seen))

    def run(self, name: str, fn: Callable[[], None]) -> None:
        try:
            fn()
        except (Error, PlaywrightTimeoutError, TimeoutError, OSError, RuntimeError) as exc:
            self.add(name, False, f"{type(exc).__name__}: {short(str(exc), 240)}")
            self._recover()

    def _recover(self) -> None:
        """After a failed check: no panel open, no turn left running, so the next check starts clean."""
        page = self.d.page
        page.keyboard.press("Escape")
        if self.d.turn_running():
            page.get_by_test_id("chat-stop").click(timeout=5_000)
        self.d.wait(lambda: not self.d.turn_running(), 30, "end of the turn")

    # connect ---------------------------------------------------------------------------------------------

    def connect(self) -> None:
        page = self.d.page
        open_settings(page)
        if not self.d.option_exists("provider-select", PROVIDER):
            self.out.append(Check("app", f"provider `{PROVIDER}`", "not available",
                                  f"this build's provider-select has no `{PROVIDER}` option; the checks below use "
                                  f"`{FALLBACK}` at the same base URL with a made-up key"))
            self.kind = FALLBACK
        configure_provider(page, self.kind, f"{self.server.base_url}/v1", None if self.kind == PROVIDER else "sk-x")
        status = page.get_by_test_id("connection-status")
        self.d.wait(lambda: status.get_attribute("data-state") in ("ok", "error"), 90, "connection status")
        state, text = status.get_attribute("data-state"), status.inner_text()
        listed = self.d.option_exists("model-select", ALIAS)
        self.add("connect and list the models", state == "ok" and listed,
                 f"{self.kind}: connection-status {state}: {short(text)}; `{ALIAS}` listed: {listed}")
        self.add("the connection is named after the server", "127.0.0.1" in text and "OpenRouter" not in text,
                 short(text))
        if listed:
            choose_model(page, ALIAS)  # opens the settings again if a save that connected closed them
        open_settings(page)
        self._doctor()
        close_settings(page)
        page.get_by_test_id("permission-mode").select_option("full-auto")

    def _doctor(self) -> None:
        page = self.d.page
        page.get_by_test_id("connection-check-run").click()
        checks = page.get_by_test_id("connection-check")
        status = page.get_by_test_id("connection-status")
        self.d.wait(lambda: checks.count() > 0 and status.get_attribute("data-state") != "checking", 90,
                    "the doctor's checks")
        seen = {(checks.nth(i).get_attribute("data-check") or "?"): (checks.nth(i).get_attribute("data-state") or "?")
                for i in range(checks.count())}
        warned = [short(checks.nth(i).inner_text(), 100) for i in range(checks.count())
                  if checks.nth(i).get_attribute("data-state") != "ok"]
        ok = "fail" not in seen.values() and seen.get("reachable") == "ok" and seen.get("context") == "ok"
        self.add("the doctor checks reachable, window, tools", ok,
                 ", ".join(f"{k}: {v}" for k, v in seen.items()) + (f"; said: {warned}" if warned else ""))

    # chat, window, tools, stop -----------------------------------------------------------------------------

    def chat(self) -> None:
        before, took = self.d.turn("Say hello.")
        errors = self.d.new_errors(before)
        reply = self.d.last_text("assistant") if self.d.count("assistant") > before[0] else ""
        self.add("chat: a streamed reply", bool(reply) and not errors,
                 f"{took:.0f} s; reply {short(reply, 80)!r}; errors {[short(e, 120) for e in errors]}")
        used, limit = self.d.gauge()
        self.add("the gauge shows the server's window", limit == str(self.server.ctx),
                 f"context-gauge data-used {used!r} data-limit {limit!r} (server: -c {self.server.ctx})")

    def tool_round_trip(self) -> None:
        self.d.new_chat()
        before = self.d.start_turn(COPY + CALL_TEXT)
        self.d.wait(lambda: ("write_file", "ok") in self.d.tool_cards() or self._ended(before), 240,
                    "write_file call or end of turn")
        cards = self.d.tool_cards()
        if self.d.turn_running():
            self.d.page.get_by_test_id("chat-stop").click()  # a base model may copy the call forever
        self.d.finish_turn(before, 60)
        self.add("a tool round trip writes a file", ("write_file", "ok") in cards,
                 f"tool cards {cards}; errors {[short(e, 120) for e in self.d.new_errors(before)]}")

    def _ended(self, before: tuple[int, int]) -> bool:
        replied = self.d.count("assistant") > before[0] or self.d.count("error") > before[1]
        return replied and not self.d.turn_running()

    def stop(self) -> None:
        self.d.new_chat()
        before = self.d.start_turn(LONG_STORY)
        self.d.wait(lambda: self.d.count("assistant") > before[0] and bool(self.d.last_text("assistant").strip()),
                    120, "first text of the reply")
        started = time.monotonic()
        self.d.page.get_by_test_id("chat-stop").click()
        self.d.wait(lambda: not self.d.turn_running(), 15, "end of the turn after Stop")
        took = time.monotonic() - started
        length = len(self.d.last_text("assistant"))
        self.d.page.wait_for_timeout(2_000)
        grew = len(self.d.last_text("assistant")) - length
        idle = self._server_idle(10)
        self.add("Stop stops the reply (and the server)", took < 10 and grew == 0 and idle is not False,
                 f"stopped in {took:.1f} s; text grew {grew} chars after; server slot idle: {idle}")

    def _server_idle(self, timeout_s: float) -> bool | None:
        """Whether the server's slot stops processing within `timeout_s` (None: `/slots` is not offered)."""
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            reply = request(self.server.port, "GET", "/slots", timeout_s=5)
            if reply.status != 200:
                return None
            if not any(slot.get("is_processing") for slot in reply.json()):
                return True
            self.d.page.wait_for_timeout(250)
        return False

    # cut-off calls, overflow -------------------------------------------------------------------------------

    def cut_off_call(self) -> None:
        self.server.restart(predict=self.server.cut_predict)
        try:
            self.d.new_chat()
            before, _ = self.d.turn(COPY + LONG_CALL_TEXT)
            cut = self.d.page.locator('[data-testid="message"][data-finish="length"]').count()
            # The base model may make complete calls first (they run); the one the limit cut must not.
            cut_cards = self.d.page.get_by_test_id("tool-call").filter(has_text="Cut off, not run")
            statuses = [cut_cards.nth(i).get_attribute("data-status") for i in range(cut_cards.count())]
            self.add("a call cut off at `length` is not run", cut > 0 and bool(statuses)
                     and all(s == "error" for s in statuses),
                     f"replies with data-finish=length: {cut}; cut-off cards {statuses}; all cards "
                     f"{short(str(self.d.tool_cards()), 160)}; "
                     f"errors {[short(e, 120) for e in self.d.new_errors(before)]}")
            after, _ = self.d.turn("Thanks. Say hello.")
            errors = self.d.new_errors(after)
            self.add("the chat goes on after a cut-off call (no poisoned history)", not errors,
                     f"next turn's errors: {[short(e, 160) for e in errors] or 'none'}")
        finally:
            self.server.restart(predict=256)

    def overflow(self) -> None:
        self.d.new_chat()
        before, _ = self.d.turn("tide " * 6000)
        errors = self.d.new_errors(before)
        text = errors[-1] if errors else ""
        # Knowing the server's window, the app shortens the message for the model (notice "trimmed") and is
        # answered; a window it got wrong would reach the server's 400, whose advice must fit.
        trimmed = self.d.page.locator('[data-testid="notice"][data-code="trimmed"]').count() > 0
        ok = (trimmed and not errors) or (bool(OVERFLOW_WORDS.search(text))
                                           and "check the model and settings" not in text.lower())
        seen = short(text, 240) if errors else ("shortened to fit (notice 'trimmed'), answered" if trimmed else "")
        self.add("a prompt over the window is fitted, or refused with advice that fits", ok, seen or "neither")

    # a killed server ---------------------------------------------------------------------------------------

    def killed_server(self) -> None:
        self.d.new_chat()
        before = self.d.start_turn(LONG_STORY)
        self.d.wait(lambda: self.d.count("assistant") > before[0] and bool(self.d.last_text("assistant").strip()),
                    120, "first text of the reply")
        self.server.kill()
        self.d.finish_turn(before, 60)
        errors = self.d.new_errors(before)
        text = errors[-1] if errors else ""
        self.add("a server killed mid-reply: dropped, not CORS", bool(DROPPED.search(text)) and not CORS.search(text),
                 short(text, 240) or "no error shown")
        retry = self.d.page.get_by_test_id("message-retry")
        self.add("error messages offer Retry", retry.count() > 0, f"message-retry buttons: {retry.count()}")
        again, _ = self.d.turn("Are you there?", 60)
        text = (self.d.new_errors(again) or [""])[-1]
        self.add("nothing listening: is your server running?", bool(NOT_RUNNING.search(text))
                 and not CORS.search(text), short(text, 240) or "no error shown")
        self.server.start()
        if not retry.count():
            self.out.append(Check("app", "Retry after the server is back", "not available", "no message-retry"))
        else:
            answered = self.d.count("assistant")
            retry.last.click()
            self.d.wait(lambda: self.d.count("assistant") > answered and not self.d.turn_running(), 240,
                        "reply after Retry")
            self.add("Retry after the server is back", True, short(self.d.last_text("assistant"), 80))


def run_app(server: LlamaServer, dist: Path, serve: Callable[[Path], AbstractContextManager[str]]) -> list[Check]:
    """Every app check in one fresh browser context, against the app served from `dist`."""
    from benchlib.common import launch

    with serve(dist) as base, sync_playwright() as p:
        browser: Browser = launch(p)
        try:
            with app_page(browser, base + "/") as driver:
                checks = Checks(driver, server)
                for name, fn in [("connect", checks.connect), ("chat", checks.chat),
                                 ("tool round trip", checks.tool_round_trip), ("Stop", checks.stop),
                                 ("cut-off call", checks.cut_off_call), ("overflow", checks.overflow),
                                 ("killed server", checks.killed_server)]:
                    print(f"[conformance] app: {name}", flush=True)
                    checks.run(name, fn)
                if driver.external:
                    checks.add("nothing left 127.0.0.1", False, f"aborted: {driver.external[:3]}")
                return checks.out
        finally:
            browser.close()

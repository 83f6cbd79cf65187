"""Offline (docs/offline.md), in Chromium with the service worker allowed: a first visit caches the build; with
the app's server stopped a reload boots from the cache, opens the session, runs `run_python` in the sandbox
(which gets Pyodide from the host, as no service worker serves it) and chats with the fake Ollama on its own
port; then a new build on the same origin shows `update-available`, and after `update-reload` the page runs
that build alone (the old build's cache deleted).

The module has its own server (started and stopped here, always on the same port: a service worker belongs to
one origin) and its own browser context; the shared contexts block service workers (conftest.py).
"""

from __future__ import annotations

import contextlib
import re
import shutil
import socket
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

from playwright.sync_api import Browser, BrowserContext, Page, expect

from scripts.fakes.fake_llm import FakeLLM
from scripts.fakes.processes import serve_process
from scripts.fakes.replies import Reply
from scripts.offline_stamp import stamp
from tests.e2e.test_backup import export_backup
from tests.e2e.test_tools import call, result_text
from tests.e2e.ui import REPLY_TIMEOUT_MS, choose_model, configure_provider, send_for_reply, wait_ready

CACHE_TIMEOUT_MS = 120_000
CACHED_POLICY_JS = "caches.match('/sandbox/bootstrap.js').then(r => r.headers.get('content-security-policy'))"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextlib.contextmanager
def app_server(dist: Path, port: int) -> Iterator[str]:
    with serve_process(dist, "--port", str(port), "--allow-private-host", "127.0.0.1") as url:
        yield url


def build_of(page: Page) -> str:
    return str(page.evaluate("document.querySelector('meta[name=tidepool-build]').content"))


def build_caches(page: Page) -> list[str]:
    return [name for name in page.evaluate("caches.keys()") if name.startswith("tidepool-build-")]


def second_build(dist: Path, where: Path) -> str:
    """A copy of `dist` with one file changed, stamped as a build of its own; returns its id."""
    shutil.copytree(dist, where)
    favicon = where / "favicon.svg"
    favicon.write_text(favicon.read_text(encoding="utf-8") + "<!-- the second build -->\n", encoding="utf-8")
    return stamp(where)


class ServiceWorkerState:
    """The service worker's running state as CDP last reported it (`stopped`, `starting`, `running`, …)."""

    def __init__(self, context: BrowserContext, page: Page) -> None:
        self.page = page
        self.last = ""
        self.cdp = context.new_cdp_session(page)
        self.cdp.on("ServiceWorker.workerVersionUpdated", self._note)
        self.cdp.send("ServiceWorker.enable")

    def _note(self, event: dict[str, list[dict[str, str]]]) -> None:
        for version in event["versions"]:
            self.last = version["runningStatus"]

    def wait_for(self, state: str, timeout_ms: int = 5_000) -> bool:
        for _ in range(timeout_ms // 100):
            if self.last == state:
                return True
            self.page.wait_for_timeout(100)
        return self.last == state

    def stop(self) -> None:
        """Stop it, once it stays stopped for a second (a page just booted still fetches its lazy files)."""
        for _ in range(30):
            self.cdp.send("ServiceWorker.stopAllWorkers")
            if self.wait_for("stopped"):
                self.page.wait_for_timeout(1000)
                if self.last == "stopped":
                    return
        raise AssertionError(f"the service worker kept waking ({self.last})")


def test_offline_boot_sandbox_chat_then_update(browser: Browser, dist: Path, fake: FakeLLM, tmp_path: Path) -> None:
    port = free_port()
    new_build = second_build(dist, tmp_path / "dist2")
    context = browser.new_context(viewport={"width": 1280, "height": 800}, service_workers="allow")
    context.set_default_timeout(30_000)
    seen: list[str] = []
    context.on("request", lambda r: seen.append(r.url))
    try:
        page = context.new_page()
        with app_server(dist, port) as url:
            page.goto(url)
            wait_ready(page)
            first_build = build_of(page)
            assert first_build != new_build
            status = page.get_by_test_id("offline-status")
            expect(status).to_have_attribute("data-cached", re.compile(r"^[1-9]\d{6,}$"), timeout=CACHE_TIMEOUT_MS)
            expect(status).to_have_attribute("data-offline", "false")
            configure_provider(page, "ollama", fake.base_url)
            choose_model(page, "llama3.2:3b")
            fake.script([Reply.text("Noted while online.")])
            expect(send_for_reply(page, "Remember this")).to_have_text("Noted while online.", timeout=REPLY_TIMEOUT_MS)
            # The sandbox's bootstrap is cached with the strict policy it was served with (no proxy, no 'self').
            policy = str(page.evaluate(CACHED_POLICY_JS))
            assert policy.startswith("default-src 'none'") and "/api/proxy" not in policy, policy

        page.reload()  # the server is gone: the service worker answers
        wait_ready(page)
        expect(page.get_by_test_id("offline-status")).to_have_attribute("data-offline", "true")
        # A request to another origin (a provider) passes by the stopped worker without starting it (its
        # static routes); typing starts it, so the agent worker's request at Send does not wait for that.
        worker = ServiceWorkerState(context, page)
        worker.stop()
        page.evaluate("u => fetch(u, { mode: 'no-cors' }).then(r => r.type)", fake.base_url + "/api/tags")
        page.wait_for_timeout(300)
        assert worker.last == "stopped", worker.last
        page.get_by_test_id("chat-input").fill("typing…")
        assert worker.wait_for("running"), worker.last
        page.get_by_test_id("chat-input").fill("")
        expect(page.get_by_test_id("session-entry")).to_have_count(1)
        page.get_by_test_id("session-entry").first.click()
        expect(page.get_by_text("Noted while online.")).to_be_visible()
        card = call(page, fake, "run_python", {"code": "print(6 * 7)"}, "It printed 42.")
        expect(card).to_have_attribute("data-status", "ok")
        assert "42" in result_text(card)
        fake.script([Reply.text("Still here, offline.")])
        expect(send_for_reply(page, "Are you there?")).to_have_text("Still here, offline.", timeout=REPLY_TIMEOUT_MS)
        # The backup's writer (and fflate) load at the first export, not with the page: from the cache here.
        assert export_backup(page)[:4] == b"PK\x03\x04"
        page.keyboard.press("Escape")

        with app_server(tmp_path / "dist2", port):
            page.reload()  # the old build still runs (its cached page); the browser finds the new worker
            wait_ready(page)
            assert build_of(page) == first_build
            expect(page.get_by_test_id("update-available")).to_be_visible(timeout=CACHE_TIMEOUT_MS)
            page.get_by_test_id("update-reload").click()
            # A function, not an expression: polling an expression evals it, which the page's CSP refuses.
            page.wait_for_function(
                "b => document.querySelector('meta[name=tidepool-build]')?.content === b", arg=new_build
            )
            wait_ready(page)
            expect(page.get_by_test_id("update-available")).to_be_hidden()
            # The old build's cache is gone once the new one is complete; the app's other caches stay.
            assert build_caches(page) == [f"tidepool-build-{new_build}"]
            assert "tidepool-snapshot-v1" in page.evaluate("caches.keys()")
            favicon = page.evaluate("fetch('/favicon.svg').then(r => r.text())")
            assert "the second build" in favicon
    finally:
        context.close()
    assert all(urlsplit(u).hostname in ("127.0.0.1", None) or u.startswith(("data:", "blob:")) for u in seen), seen

"""End-to-end fixtures: the built app served by scripts/serve.py, the fake LLM, headless Chromium.

Every request a page or any of its workers makes goes through `context.route`: requests to 127.0.0.1
continue, anything else is aborted and recorded, and a test fails if one was attempted. (Playwright's
context routing does see requests from dedicated module workers, including opaque-origin `data:`
workers; the route handler only runs while the test is inside a Playwright call, so tests wait with
`page.wait_for_timeout`/`expect`, never `time.sleep`.) Browser and worker console output goes to the
`browser` logger, which pytest shows for failing tests.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import Browser, BrowserContext, ConsoleMessage, Page, Route, expect, sync_playwright

from scripts.app_build import ROOT, ensure_built
from scripts.fakes.fake_llm import FakeLLM
from scripts.fakes.processes import serve_process

log = logging.getLogger("browser")

CHROMIUM = "/usr/bin/chromium"
LAUNCH_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
KEY = "sk-or-v1-e2e-5f1c0a9d7b3e4f2a8c6d1e0b9a7f3c5d"
MODEL = "openai/gpt-4o-mini"
RESULTS = ROOT / "test-results"


@pytest.fixture(scope="session", autouse=True)
def patient_expect() -> None:
    """`expect` waits up to 15 s for its condition (Playwright's default is 5): on a loaded two-core machine
    a boot or a save can take that long; a broken app still fails, only later."""
    expect.set_options(timeout=15_000)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    here = Path(__file__).parent
    for item in items:
        if item.path.is_relative_to(here):
            item.add_marker(pytest.mark.e2e)


@dataclass
class Traffic:
    """What a browser context did: requests aborted for leaving 127.0.0.1, all requests, CSP complaints."""

    external: list[str] = field(default_factory=list)
    requests: list[str] = field(default_factory=list)
    csp_violations: list[str] = field(default_factory=list)


@dataclass
class App:
    page: Page
    context: BrowserContext
    traffic: Traffic
    url: str


@pytest.fixture(scope="session")
def dist() -> Path:
    return ensure_built()


@pytest.fixture(scope="session")
def fake() -> Iterator[FakeLLM]:
    llm = FakeLLM(api_key=KEY)
    with llm.running_in_thread():
        yield llm


@pytest.fixture(scope="session")
def server(dist: Path) -> Iterator[str]:
    with serve_process(dist, "--allow-private-host", "127.0.0.1") as url:
        yield url


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    """Per module: Playwright's sync API keeps an event loop running in this thread while it is open,
    which would break the asyncio tests that run after the e2e modules."""
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=LAUNCH_ARGS)
        yield chromium
        chromium.close()


def forward_console(traffic: Traffic, message: ConsoleMessage) -> None:
    where = "worker" if message.worker else "page"
    log.info("[%s %s] %s", where, message.type, message.text)
    if "Content Security Policy" in message.text:
        traffic.csp_violations.append(message.text)


def guarded_context(browser: Browser) -> tuple[BrowserContext, Traffic]:
    """A fresh context (own storage) whose every request off 127.0.0.1 is aborted and recorded."""
    context = browser.new_context(viewport={"width": 1280, "height": 800}, service_workers="block")
    context.set_default_timeout(30_000)
    traffic = Traffic()

    def guard(route: Route) -> None:
        url = route.request.url
        if urlsplit(url).hostname == "127.0.0.1":
            route.continue_()
        else:
            traffic.external.append(url)
            route.abort("blockedbyclient")

    context.route("**/*", guard)
    context.on("request", lambda r: traffic.requests.append(f"{r.method} {r.url}"))
    context.on("console", lambda m: forward_console(traffic, m))
    context.on("weberror", lambda e: log.error("[page error] %s", e.error))
    return context, traffic


@contextlib.contextmanager
def running_app(browser: Browser, url: str) -> Iterator[App]:
    """Open `url` in a fresh guarded context; on exit close it and fail if anything left 127.0.0.1."""
    context, traffic = guarded_context(browser)
    try:
        page = context.new_page()
        page.goto(url)
        yield App(page, context, traffic, url)
    finally:
        context.close()
    assert not traffic.external, f"requests off 127.0.0.1 were attempted: {traffic.external}"


@pytest.fixture
def app(browser: Browser, server: str, fake: FakeLLM) -> Iterator[App]:
    """The app freshly opened (empty storage); the fake reset to accept only KEY."""
    fake.reset(api_key=KEY)
    with running_app(browser, server + "/") as opened:
        yield opened


@pytest.fixture(scope="module")
def connected_app(browser: Browser, server: str, fake: FakeLLM) -> Iterator[App]:
    """One app for the module (its state carries over between tests), connected to the fake OpenRouter
    with KEY and MODEL chosen."""

    from tests.e2e.ui import connect_openrouter, wait_ready

    fake.reset(api_key=KEY)
    with running_app(browser, server + "/") as app:
        wait_ready(app.page)
        connect_openrouter(app.page, f"{fake.base_url}/api/v1", KEY, MODEL)
        yield app


@pytest.fixture
def asking_app(connected_app: App, fake: FakeLLM) -> App:
    """The module's connected app, ready, in the `ask` permission mode, with the fake's script cleared."""
    from tests.e2e.ui import wait_ready

    fake.reset(api_key=KEY)
    wait_ready(connected_app.page)
    connected_app.page.get_by_test_id("permission-mode").select_option("ask")
    return connected_app


@pytest.fixture
def chat(connected_app: App, fake: FakeLLM) -> Page:
    """The module's connected app, ready, in full-auto (tools run without asking), settings closed (on a phone
    they cover the chat); test_openrouter.py has its own."""
    from tests.e2e.ui import close_settings, wait_ready

    fake.reset(api_key=KEY)
    page = connected_app.page
    wait_ready(page)
    close_settings(page)
    page.get_by_test_id("permission-mode").select_option("full-auto")
    return page


@pytest.fixture(scope="module")
def everything() -> Iterator[str]:
    """The reference MCP server (server-everything), once per module that asks for it."""
    from scripts.mcp.launch import everything_server

    with everything_server() as url:
        yield url


@pytest.fixture(scope="module")
def python_cors(server: str) -> Iterator[str]:
    """The Python MCP test server with CORS for the app's origin, once per module that asks for it."""
    from scripts.mcp.launch import python_server

    with python_server([server]) as url:
        yield url

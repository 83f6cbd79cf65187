"""MCP sign-in with OAuth 2.1 in Chromium, against a real authorization server (oidc-provider) and an MCP
server it protects (scripts/mcp/oauth_servers.mjs): 401 -> resource metadata -> AS metadata -> dynamic
registration -> PKCE in a popup -> tokens in the worker; a refresh; a revoked grant asks to sign in again.

The page is a harness (web/tests/e2e-harness/) that drives web/src/mcp/oauth-*.ts through the Tool
servers test ids, bundled with the project's esbuild and served with the app's own CSP and COOP.
"""

from __future__ import annotations

import contextlib
import json
import select
import subprocess
import threading
import time
import urllib.request
from collections.abc import Iterator
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect

from scripts.server.static import CSP, SECURITY_HEADERS
from tests.e2e.conftest import running_app
from tests.e2e.ui import dump_storage

ROOT = Path(__file__).resolve().parents[2]
HARNESS = ROOT / "web" / "tests" / "e2e-harness"
SERVERS = ROOT / "scripts" / "mcp" / "oauth_servers.mjs"
TIMEOUT_MS = 30_000


class HarnessHandler(SimpleHTTPRequestHandler):
    def end_headers(self) -> None:
        for name, value in {**SECURITY_HEADERS, "Content-Security-Policy": CSP}.items():
            self.send_header(name, value)
        super().end_headers()

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture(scope="module")
def harness(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    out = tmp_path_factory.mktemp("mcp-oauth-harness")
    entries = [str(HARNESS / "mcp-oauth-page.ts"), str(HARNESS / "mcp-oauth-worker.ts")]
    esbuild = ROOT / "node_modules" / ".bin" / "esbuild"
    subprocess.run(
        [
            str(esbuild),
            *entries,
            "--bundle",
            "--format=esm",
            "--target=es2022",
            f"--outdir={out}",
            "--log-level=warning",
        ],
        check=True,
        timeout=120,
    )
    (out / "index.html").write_text((HARNESS / "mcp-oauth.html").read_text())
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), partial(HarnessHandler, directory=str(out)))
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}/"
    finally:
        httpd.shutdown()
        httpd.server_close()


@contextlib.contextmanager
def oauth_servers(*flags: str) -> Iterator[dict[str, str]]:
    """Run scripts/mcp/oauth_servers.mjs; yield the addresses it prints once both servers listen."""
    proc = subprocess.Popen(["node", str(SERVERS), *flags], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        assert proc.stdout is not None
        seen: list[str] = []
        deadline = time.monotonic() + 30
        while not seen or not seen[-1].startswith("{"):
            ready, _, _ = select.select([proc.stdout], [], [], max(0.0, deadline - time.monotonic()))
            line = proc.stdout.readline() if ready else ""
            assert line, f"oauth_servers.mjs did not start within 30 s: {''.join(seen)}"
            seen.append(line)
        yield json.loads(seen[-1])
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def as_call(servers: dict[str, str], path: str, method: str = "GET") -> Any:
    request = urllib.request.Request(servers["as"] + path, method=method, data=b"" if method == "POST" else None)
    with urllib.request.urlopen(request, timeout=10) as answer:
        return json.load(answer)


def events(servers: dict[str, str], name: str, grant_type: str | None = None) -> list[dict[str, Any]]:
    log: list[dict[str, Any]] = as_call(servers, "/test/log")
    return [e for e in log if e["event"] == name and (grant_type is None or e.get("grant_type") == grant_type)]


def add_server(page: Page, url: str) -> None:
    page.get_by_test_id("tool-server-name").fill("secure")
    page.get_by_test_id("tool-server-url").fill(url)
    page.get_by_test_id("tool-server-add").click()


def list_tools(page: Page) -> None:
    """Ask the worker's client for the tool list again, and wait for its answer."""
    entry = page.get_by_test_id("tool-server-entry")
    answers = int(entry.get_attribute("data-answers") or "0")
    page.get_by_test_id("harness-list-tools").click()
    expect(entry).to_have_attribute("data-answers", str(answers + 1), timeout=TIMEOUT_MS)


def sign_in(page: Page) -> None:
    """Click the entry's sign-in; the popup goes through the real authorize page and closes itself."""
    with page.expect_popup() as popup_info:
        page.get_by_test_id("tool-server-signin").click()
    popup = popup_info.value
    popup.wait_for_event("close", timeout=TIMEOUT_MS)


def test_sign_in_refresh_and_revocation(browser: Browser, harness: str) -> None:
    with oauth_servers() as servers, running_app(browser, harness) as app:
        page = app.page
        entry = page.get_by_test_id("tool-server-entry")
        add_server(page, servers["mcp"])
        expect(entry).to_have_attribute("data-state", "auth-required", timeout=TIMEOUT_MS)
        expect(entry).to_have_attribute("data-name", "secure")
        expect(page.get_by_test_id("tool-server-signin")).to_be_visible()
        assert events(servers, "registration_create.success") == [], "the worker registered behind the person's back"

        sign_in(page)
        expect(entry).to_have_attribute("data-state", "connected", timeout=TIMEOUT_MS)
        expect(entry).to_have_attribute("data-tools", "2")
        expect(entry).to_contain_text("whoami")
        assert len(events(servers, "registration_create.success")) == 1
        assert len(events(servers, "grant.success", "authorization_code")) == 1
        tokens: list[str] = as_call(servers, "/test/tokens")
        assert len(tokens) == 2  # an access and a refresh token
        stored = json.dumps(dump_storage(page))
        assert not [t for t in tokens if t in stored], "a token is readable in the page's storage"
        assert not [t for t in tokens if any(t in line for line in app.traffic.requests)], "a token in a URL"

        # The access token is gone (as if expired): the worker's next call refreshes it, unattended.
        as_call(servers, "/test/revoke-access", "POST")
        list_tools(page)
        expect(entry).to_have_attribute("data-state", "connected")
        expect(entry).to_have_attribute("data-tools", "2")
        assert len(events(servers, "grant.success", "refresh_token")) == 1

        # The person revoked the app at the authorization server: refresh gets invalid_grant -> sign in again.
        as_call(servers, "/test/revoke", "POST")
        list_tools(page)
        expect(entry).to_have_attribute("data-state", "auth-required")
        expect(page.get_by_test_id("tool-server-signin")).to_be_visible()
        assert [e["error"] for e in events(servers, "grant.error", "refresh_token")] == ["invalid_grant"]

        sign_in(page)
        expect(entry).to_have_attribute("data-state", "connected", timeout=TIMEOUT_MS)
        assert len(events(servers, "registration_create.success")) == 1, "the registration is reused"
        assert len(events(servers, "grant.success", "authorization_code")) == 2


def test_authorization_server_without_cors_is_named(browser: Browser, harness: str) -> None:
    with oauth_servers("--no-as-cors") as servers, running_app(browser, harness) as app:
        page = app.page
        entry = page.get_by_test_id("tool-server-entry")
        add_server(page, servers["mcp"])
        expect(entry).to_have_attribute("data-state", "auth-required", timeout=TIMEOUT_MS)
        with page.expect_popup() as popup_info:
            page.get_by_test_id("tool-server-signin").click()
        popup_info.value.wait_for_event("close", timeout=TIMEOUT_MS)  # nothing to show: it closes at once
        expect(entry).to_contain_text("send no CORS headers", timeout=TIMEOUT_MS)
        expect(entry).to_contain_text(f"{servers['as']}/.well-known/oauth-authorization-server")
        expect(entry).to_contain_text("Access-Control-Allow-Origin")
        expect(entry).to_have_attribute("data-state", "auth-required")
        assert events(servers, "registration_create.success") == []


def test_sign_in_by_redirect_when_no_popup_may_open(browser: Browser, harness: str) -> None:
    with oauth_servers() as servers, running_app(browser, harness) as app:
        page = app.page
        add_server(page, servers["mcp"])
        expect(page.get_by_test_id("tool-server-entry")).to_have_attribute("data-state", "auth-required")
        page.evaluate("() => { window.open = () => null; }")  # what a browser that blocks the popup returns
        page.get_by_test_id("tool-server-signin").click()
        # This tab goes to the authorization page and comes back with the code, which it exchanges itself.
        expect(page.locator("body")).to_have_attribute("data-signin-return", "signed-in", timeout=TIMEOUT_MS)
        assert "code=" not in page.url and "state=" not in page.url
        assert len(events(servers, "grant.success", "authorization_code")) == 1
        add_server(page, servers["mcp"])
        entry = page.get_by_test_id("tool-server-entry")
        expect(entry).to_have_attribute("data-state", "connected", timeout=TIMEOUT_MS)
        expect(entry).to_have_attribute("data-tools", "2")
        assert not page.evaluate("() => Object.keys(sessionStorage)"), "the pending sign-in was left behind"


def test_app_page_hands_a_popup_answer_to_its_opener(browser: Browser, server: str) -> None:
    """The app's own page is the return address: opened as the sign-in popup it passes the answer on and
    closes, unbooted, and the OpenRouter sign-in (which reads `?code=` too) leaves it alone."""
    with running_app(browser, f"{server}/") as app:
        page = app.page
        page.evaluate(
            """() => { window.answers = []; const c = new BroadcastChannel("tidepool.mcp-signin");
                       c.onmessage = (e) => window.answers.push(e.data); }"""
        )
        answer_url = f"{server}/?code=the-code&state=mcp.test-state&iss=http%3A%2F%2F127.0.0.1%3A9"
        with page.expect_popup() as popup_info:
            page.evaluate("(url) => { window.open(url, '_blank', 'popup'); }", answer_url)
        popup_info.value.wait_for_event("close", timeout=TIMEOUT_MS)
        page.wait_for_function("() => window.answers.length === 1", timeout=TIMEOUT_MS)
        answer = page.evaluate("() => window.answers[0]")
        assert answer == {
            "state": "mcp.test-state",
            "code": "the-code",
            "error": None,
            "description": None,
            "iss": "http://127.0.0.1:9",
        }
        assert not [r for r in app.traffic.requests if "/auth/keys" in r], "the OpenRouter exchange ran"

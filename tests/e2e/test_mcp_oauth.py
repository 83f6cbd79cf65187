"""MCP sign-in with OAuth 2.1 in the real app, against a real authorization server (oidc-provider) and an
MCP server it protects (scripts/mcp/oauth_servers.mjs), through the Tool servers test ids: 401 -> resource
metadata -> AS metadata -> dynamic registration -> PKCE in a popup (or this tab) -> tokens in the worker;
the model calls the server's tool; an expired token is refreshed unattended; a revoked grant asks to sign
in again; removing the server forgets the sign-in. No token in Python's storage, the frames between the
page and the worker, the recording, the console or a URL.
"""

from __future__ import annotations

import contextlib
import json
import queue
import subprocess
import threading
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, ConsoleMessage, Locator, Page, expect

from scripts.fakes.fake_llm import FakeLLM
from tests.e2e.conftest import KEY, MODEL, App, guarded_context
from tests.e2e.test_recording import export_recording
from tests.e2e.test_tool_servers import add_server, entry, model_calls, open_panel, tool_message
from tests.e2e.ui import connect_openrouter, dump_storage, wait_ready

ROOT = Path(__file__).resolve().parents[2]
SERVERS = ROOT / "scripts" / "mcp" / "oauth_servers.mjs"
TIMEOUT_MS = 30_000

# Every message between the page and its workers, as text (a frame's bytes decoded), for the token check.
WATCH_WORKERS_JS = """
(() => {
  const Base = window.Worker;
  if (!Base || window.__workerMessages) return;
  const seen = (window.__workerMessages = []);
  const text = (data) => {
    try {
      return JSON.stringify(data, (_, v) =>
        v instanceof ArrayBuffer || ArrayBuffer.isView(v) ? new TextDecoder("latin1").decode(v) : v);
    } catch (err) { return String(err); }
  };
  window.Worker = class extends Base {
    constructor(...args) { super(...args); this.addEventListener("message", (e) => seen.push(text(e.data))); }
    postMessage(message, ...rest) { seen.push(text(message)); return super.postMessage(message, ...rest); }
  };
})();
"""


@contextlib.contextmanager
def oauth_servers(*flags: str) -> Iterator[dict[str, str]]:
    """Run scripts/mcp/oauth_servers.mjs; yield the addresses it prints once both servers listen."""
    proc = subprocess.Popen(["node", str(SERVERS), *flags], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        assert proc.stdout is not None
        # Lines are read on a thread: select() on a text pipe misses lines already in its buffer (the
        # warnings and the address often arrive in one read).
        lines: queue.Queue[str] = queue.Queue()
        threading.Thread(target=lambda: [lines.put(line) for line in proc.stdout or ()], daemon=True).start()
        seen: list[str] = []
        deadline = time.monotonic() + 60  # node loads oidc-provider slowly on a busy machine
        while not seen or not seen[-1].startswith("{"):
            try:
                seen.append(lines.get(timeout=max(0.01, deadline - time.monotonic())))
            except queue.Empty:
                raise AssertionError(f"oauth_servers.mjs did not start within 60 s: {''.join(seen)}") from None
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


@dataclass
class Watched(App):
    console: list[str] = field(default_factory=list)


@pytest.fixture(scope="module")
def watched(browser: Browser, server: str, fake: FakeLLM) -> Iterator[Watched]:
    """The real app, connected to the fake model, with its worker messages and console kept."""
    fake.reset(api_key=KEY)
    context, traffic = guarded_context(browser)
    console: list[str] = []
    context.on("console", lambda m: console.append(message_text(m)))
    context.add_init_script(WATCH_WORKERS_JS)
    try:
        page = context.new_page()
        page.goto(server + "/")
        wait_ready(page)
        connect_openrouter(page, f"{fake.base_url}/api/v1", KEY, MODEL)
        yield Watched(page, context, traffic, server + "/", console)
    finally:
        context.close()
    assert not traffic.external, f"requests off 127.0.0.1 were attempted: {traffic.external}"


def message_text(message: ConsoleMessage) -> str:
    return message.text


@pytest.fixture
def page(watched: Watched, fake: FakeLLM) -> Page:
    fake.reset(api_key=KEY)
    wait_ready(watched.page)
    watched.page.get_by_test_id("permission-mode").select_option("ask")
    open_panel(watched.page)
    return watched.page


def sign_in(page: Page, server: Locator) -> None:
    """Click the entry's sign-in; the popup goes through the real authorize page, back to the app, and closes."""
    with page.expect_popup() as popup_info:
        server.get_by_test_id("tool-server-signin").click()
    popup_info.value.wait_for_event("close", timeout=TIMEOUT_MS)


def leaks(app: Watched, tmp_path: Path, tokens: set[str], fake: FakeLLM) -> list[str]:
    """Where any of `tokens` can be read outside the worker: storage in clear (OPFS with Python's SQLite,
    IndexedDB, web storage), the messages between the page and its workers, the recording, the console,
    the model's requests and every URL asked for."""
    places = {
        "storage": json.dumps(dump_storage(app.page)),
        "worker messages": "\n".join(app.page.evaluate("() => window.__workerMessages")),
        "recording": json.dumps(export_recording(app.page, tmp_path / "recording.json")),
        "console": "\n".join(app.console),
        "model requests": "\n".join(json.dumps(r.json()) for r in fake.requests_to("/api/v1/chat/completions")),
        "urls": "\n".join(app.traffic.requests),
    }
    # Each place holds the session that used the server, so the look for tokens there can find them.
    empty = [where for where, text in places.items() if where not in ("console", "urls") and "whoami" not in text]
    assert not empty, f"nothing of the session in {empty}"
    return [f"{where}: {token[:6]}…" for where, text in places.items() for token in tokens if token in text]


def test_sign_in_call_refresh_revoke_and_remove(page: Page, watched: Watched, fake: FakeLLM, tmp_path: Path) -> None:
    with oauth_servers() as servers:
        secure = add_server(page, "secure", servers["mcp"])
        expect(secure).to_have_attribute("data-state", "auth-required", timeout=TIMEOUT_MS)
        expect(secure).to_contain_text("Sign in")
        expect(secure).to_have_attribute("data-tools", "0")
        assert events(servers, "registration_create.success") == [], "the worker registered behind the person's back"

        sign_in(page, secure)
        expect(secure).to_have_attribute("data-state", "connected", timeout=TIMEOUT_MS)
        expect(secure).to_have_attribute("data-tools", "2")
        assert len(events(servers, "registration_create.success")) == 1
        assert len(events(servers, "grant.success", "authorization_code")) == 1
        card = model_calls(page, fake, "secure__whoami", {}, "You are signed in.")
        assert card.get_attribute("data-status") == "ok"
        assert card.get_attribute("data-server") == "secure"
        assert "tester" in tool_message(fake)  # the account the token was issued to
        tokens: set[str] = set(as_call(servers, "/test/tokens"))
        assert len(tokens) == 2  # an access and a refresh token

        # The access token is gone (as if expired): the worker refreshes it unattended, the call goes through.
        as_call(servers, "/test/revoke-access", "POST")
        card = model_calls(page, fake, "secure__motto", {}, "Noted.")
        assert card.get_attribute("data-status") == "ok"
        assert "tokens stay in the worker" in tool_message(fake)
        assert len(events(servers, "grant.success", "refresh_token")) == 1
        tokens |= set(as_call(servers, "/test/tokens"))

        # The person revoked the app at the authorization server: invalid_grant -> the entry asks to sign in.
        as_call(servers, "/test/revoke", "POST")
        card = model_calls(page, fake, "secure__whoami", {}, "It needs a sign-in.")
        assert card.get_attribute("data-status") == "error"
        assert "sign in" in tool_message(fake)
        expect(secure).to_have_attribute("data-state", "auth-required", timeout=TIMEOUT_MS)
        expect(secure).to_have_attribute("data-tools", "0")
        assert [e["error"] for e in events(servers, "grant.error", "refresh_token")] == ["invalid_grant"]

        sign_in(page, secure)
        expect(secure).to_have_attribute("data-state", "connected", timeout=TIMEOUT_MS)
        assert len(events(servers, "registration_create.success")) == 1, "the registration is reused"
        assert len(events(servers, "grant.success", "authorization_code")) == 2
        tokens |= set(as_call(servers, "/test/tokens"))

        leaked = leaks(watched, tmp_path, tokens, fake)
        assert not leaked, leaked
        assert "mcp-oauth:" in json.dumps(dump_storage(page)), "the sealed sign-in record is where the check looks"
        secure.get_by_test_id("tool-server-remove").click()
        expect(entry(page, "secure")).to_have_count(0)
        assert "mcp-oauth:" not in json.dumps(dump_storage(page)), "removing the server left its sign-in behind"


def test_authorization_server_without_cors_is_named(page: Page) -> None:
    with oauth_servers("--no-as-cors") as servers:
        nocors = add_server(page, "nocors-as", servers["mcp"])
        expect(nocors).to_have_attribute("data-state", "auth-required", timeout=TIMEOUT_MS)
        sign_in(page, nocors)  # nothing to show: the popup closes at once
        expect(nocors).to_contain_text("send no CORS headers", timeout=TIMEOUT_MS)
        expect(nocors).to_contain_text(f"{servers['as']}/.well-known/oauth-authorization-server")
        expect(nocors).to_contain_text("Access-Control-Allow-Origin")
        expect(nocors).to_have_attribute("data-state", "auth-required")
        assert events(servers, "registration_create.success") == []
        nocors.get_by_test_id("tool-server-remove").click()
        expect(entry(page, "nocors-as")).to_have_count(0)


def test_sign_in_by_redirect_when_no_popup_may_open(page: Page, watched: Watched) -> None:
    with oauth_servers() as servers:
        server = add_server(page, "byredirect", servers["mcp"])
        expect(server).to_have_attribute("data-state", "auth-required", timeout=TIMEOUT_MS)
        page.evaluate("() => { window.open = () => null; }")  # what a browser that blocks the popup returns
        with page.expect_navigation(timeout=TIMEOUT_MS):
            server.get_by_test_id("tool-server-signin").click()
        # This tab went to the authorization page and came back with the code, which it exchanged itself.
        page.wait_for_url(lambda url: url.startswith(watched.url) and "code=" not in url, timeout=TIMEOUT_MS)
        wait_ready(page)
        open_panel(page)
        server = entry(page, "byredirect")
        expect(server).to_have_attribute("data-state", "connected", timeout=TIMEOUT_MS)
        expect(server).to_have_attribute("data-tools", "2")
        assert "code=" not in page.url and "state=" not in page.url
        assert len(events(servers, "grant.success", "authorization_code")) == 1
        pending = page.evaluate("() => Object.keys(sessionStorage).filter((k) => k.includes('mcp-signin'))")
        assert not pending, "the pending sign-in was left behind"
        server.get_by_test_id("tool-server-remove").click()
        expect(entry(page, "byredirect")).to_have_count(0)


def test_app_page_hands_a_popup_answer_to_its_opener(watched: Watched, server: str) -> None:
    """The app's own page is the return address: opened as the sign-in popup it passes the answer on and
    closes, unbooted, and the OpenRouter sign-in (which reads `?code=` too) leaves it alone."""
    page = watched.page
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
    assert not [r for r in watched.traffic.requests if "/auth/keys" in r], "the OpenRouter exchange ran"


def test_a_sign_in_whose_window_was_closed_can_be_cancelled(page: Page) -> None:
    # The page cannot see the window close (the opener policy parts them): the entry waits, and says so.
    with oauth_servers() as servers:
        server = add_server(page, "closed", servers["mcp"])
        expect(server).to_have_attribute("data-state", "auth-required", timeout=TIMEOUT_MS)
        with page.expect_popup() as popup_info:
            server.get_by_test_id("tool-server-signin").click()
        popup_info.value.close()
        expect(server).to_contain_text("Waiting for the sign-in window")
        server.get_by_test_id("tool-server-signin-cancel").click()
        expect(server).to_contain_text("the sign-in was cancelled", timeout=TIMEOUT_MS)
        expect(server.get_by_test_id("tool-server-signin")).to_be_visible()
        expect(server).to_have_attribute("data-state", "auth-required")
        server.get_by_test_id("tool-server-remove").click()
        expect(entry(page, "closed")).to_have_count(0)

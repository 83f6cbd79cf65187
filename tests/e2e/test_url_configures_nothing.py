"""A crafted link configures nothing: `?auth_base=` and `?package_index=` are ignored by the built app.

Opened with both pointing at an attacker's host, the app keeps OpenRouter as its sign-in server, stores
nothing of the link, and "Connect with OpenRouter" leaves for openrouter.ai (the test's request guard
aborts that navigation and it is the only request that tries to leave 127.0.0.1).
"""

from __future__ import annotations

import json

from playwright.sync_api import Browser, expect

from tests.e2e.conftest import guarded_context
from tests.e2e.ui import dump_storage, eventually, open_settings, wait_ready

EVIL = "http://127.0.0.1:9"
CRAFTED = f"/?auth_base={EVIL}&package_index={EVIL}/simple&authBase={EVIL}&base_url={EVIL}"


def test_a_crafted_link_changes_no_setting(browser: Browser, server: str) -> None:
    context, traffic = guarded_context(browser)
    try:
        page = context.new_page()
        page.goto(server + CRAFTED)
        wait_ready(page)
        open_settings(page)
        expect(page.get_by_test_id("auth-base-input")).to_have_value("https://openrouter.ai")
        assert EVIL not in json.dumps(dump_storage(page))
        page.get_by_test_id("oauth-connect").click()
        eventually(page, lambda: bool(traffic.external), 20, "the sign-in navigation")
        assert all(url.startswith("https://openrouter.ai/auth?") for url in traffic.external), traffic.external
        assert not any(r.split(" ", 1)[1].startswith(EVIL) for r in traffic.requests), traffic.requests
    finally:
        context.close()

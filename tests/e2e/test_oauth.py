"""OpenRouter sign-in with OAuth PKCE against the fake `/auth` page and `/api/v1/auth/keys`."""

from __future__ import annotations

import base64
import hashlib
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, expect

from scripts.fakes.fake_llm import FakeLLM
from scripts.fakes.processes import serve_process
from scripts.fakes.replies import Reply
from tests.e2e.conftest import KEY, running_app
from tests.e2e.ui import (
    REPLY_TIMEOUT_MS,
    choose_model,
    configure_provider,
    dump_storage,
    eventually,
    open_settings,
    send_for_reply,
    wait_ready,
)


@pytest.fixture(scope="module")
def oauth_server(dist: Path, fake: FakeLLM) -> Iterator[str]:
    """The app served with the fake as its sign-in server (a test-only server option: URLs configure nothing)."""
    config = json.dumps({"authBase": fake.base_url})
    with serve_process(dist, "--allow-private-host", "127.0.0.1", "--test-config", config) as url:
        yield url


def test_oauth_pkce_round_trip(browser: Browser, oauth_server: str, fake: FakeLLM) -> None:
    server = oauth_server
    fake.reset(api_key=KEY)  # the key the sign-in issues is accepted too
    with running_app(browser, f"{server}/") as app:
        page = app.page
        wait_ready(page)
        configure_provider(page, "openrouter", f"{fake.base_url}/api/v1")
        open_settings(page)
        page.get_by_test_id("oauth-connect").click()
        eventually(page, lambda: bool(fake.issued_keys), 30, "the app to exchange the code for a key")
        (issued,) = fake.issued_keys
        wait_ready(page)
        expect(page.get_by_test_id("connection-status")).to_have_attribute("data-state", "ok", timeout=30_000)
        assert page.url.startswith(server) and "code=" not in page.url

        (auth,) = fake.requests_to("/auth", "GET")
        (exchange,) = fake.requests_to("/api/v1/auth/keys", "POST")
        verifier = exchange.json()["code_verifier"]
        challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
        assert auth.query["code_challenge_method"] == "S256"
        assert auth.query["code_challenge"] == challenge
        assert auth.query["callback_url"].startswith(server)

        choose_model(page, "openai/gpt-4o-mini")
        fake.script([Reply.text("Signed in **fine**.")])
        reply = send_for_reply(page, "Am I signed in?")
        expect(reply.locator("strong")).to_have_text("fine", timeout=REPLY_TIMEOUT_MS)
        (chat,) = fake.requests_to("/api/v1/chat/completions")
        assert chat.headers["Authorization"] == f"Bearer {issued}"
        assert issued not in json.dumps(dump_storage(page))

"""Record and replay through the UI: a session's model traffic is exported (raw bytes with timing, no key),
and a fresh app with provider `replay` answers the same conversation from that file with no network."""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from aiohttp import web
from playwright.sync_api import Browser, Page, expect

from scripts.fakes.fake_llm import FakeLLM
from scripts.fakes.replies import Reply
from tests.e2e.conftest import KEY, running_app
from tests.e2e.ui import (
    REPLY_TIMEOUT_MS,
    choose_model,
    close_settings,
    configure_provider,
    messages,
    open_settings,
    send,
    wait_ready,
)
from tests.support.serve import serve_in_thread


@contextlib.contextmanager
def connected(browser: Browser, server: str, fake: FakeLLM) -> Iterator[Page]:
    """A fresh app connected to the fake OpenRouter (settings closed), for recording."""
    fake.reset(api_key=KEY)
    with running_app(browser, server + "/") as app:
        page = app.page
        wait_ready(page)
        configure_provider(page, "openrouter", f"{fake.base_url}/api/v1", KEY)
        expect(page.get_by_test_id("connection-status")).to_have_attribute("data-state", "ok", timeout=REPLY_TIMEOUT_MS)
        close_settings(page)
        yield page


def test_a_recorded_session_replays_without_network(
    browser: Browser, server: str, fake: FakeLLM, tmp_path: Path
) -> None:
    with connected(browser, server, fake) as page:
        listing = Reply.tool_call("list_files", {"path": "."}, call_id="call_rec_1")
        fake.script([listing, Reply.text("Nothing here yet.")])
        send(page, "List my files.")
        expect(messages(page, "assistant").last).to_have_text("Nothing here yet.", timeout=REPLY_TIMEOUT_MS)
        with page.expect_download() as download:
            page.get_by_test_id("recording-export").click()
        path = tmp_path / "recording.json"
        download.value.save_as(path)
    text = path.read_text()
    assert KEY not in text and "authorization" not in text.lower()
    recording = json.loads(text)
    assert (recording["format"], recording["version"], recording["provider"]) == ("tidepool.recording", 1, "openrouter")
    posts = [e for e in recording["exchanges"] if e["request"]["method"] == "POST"]
    assert len(posts) == 2 and all(e["response"]["status"] == 200 for e in posts)
    assert json.loads(posts[1]["request"]["body"])["messages"][-1]["role"] == "tool"
    chunks = posts[1]["response"]["chunks"]
    assert chunks and all(isinstance(c["t_ms"], int) and c["data"] for c in chunks)
    assert posts[1]["response"]["end_ms"] >= chunks[-1]["t_ms"]

    fake.reset(api_key=KEY)
    with running_app(browser, server + "/") as app:
        page = app.page
        wait_ready(page)
        open_settings(page)
        page.get_by_test_id("provider-select").select_option("replay")
        page.get_by_test_id("settings-save").click()
        page.get_by_test_id("replay-file-input").set_input_files(path)
        expect(page.get_by_test_id("connection-status")).to_contain_text("Connected", timeout=REPLY_TIMEOUT_MS)
        close_settings(page)
        send(page, "List my files.")
        expect(messages(page, "assistant").last).to_have_text("Nothing here yet.", timeout=REPLY_TIMEOUT_MS)
        expect(page.get_by_test_id("tool-call")).to_have_attribute("data-status", "ok")
        assert not fake.requests, "the replay must not touch the network"
        assert not [r for r in app.traffic.requests if fake.base_url in r]


def export_recording(page: Page, path: Path) -> list[dict[str, Any]]:
    """Download the open session's recording; its model calls (POSTs)."""
    with page.expect_download() as download:
        page.get_by_test_id("recording-export").click()
    download.value.save_as(path)
    exchanges = json.loads(path.read_text())["exchanges"]
    return [e for e in exchanges if e["request"]["method"] == "POST"]


def asked(post: dict[str, Any]) -> str:
    """The last user message a recorded model call sent."""
    body = json.loads(post["request"]["body"])
    return next(m["content"] for m in reversed(body["messages"]) if m["role"] == "user")


# The text of a stored session's recording in OPFS ("" while none), read as the worker writes it (the write
# holds the file only for the moment of one append).
STORED_RECORDING = """
async (sessionId) => {
  try {
    let dir = await navigator.storage.getDirectory();
    for (const part of ["tidepool", "workspaces", "default", "recordings"]) dir = await dir.getDirectoryHandle(part);
    return await (await (await dir.getFileHandle(`${sessionId}.jsonl`)).getFile()).text();
  } catch {
    return "";
  }
}
"""


def wait_stored(page: Page, session_id: str, text: str) -> None:
    """Until the session's recording in OPFS holds ``text`` (a finished call is appended after its turn)."""
    for _ in range(100):
        if text in page.evaluate(STORED_RECORDING, session_id):
            return
        page.wait_for_timeout(100)
    raise AssertionError(f"the recording of {session_id} never stored {text!r}")


def test_each_session_keeps_its_own_recording_across_reloads(
    browser: Browser, server: str, fake: FakeLLM, tmp_path: Path
) -> None:
    with connected(browser, server, fake) as page:
        fake.script([Reply.text("First answer.")])
        send(page, "In the first chat.")
        expect(messages(page, "assistant").last).to_have_text("First answer.", timeout=REPLY_TIMEOUT_MS)
        first = page.locator('[data-testid="session-entry"][aria-current="true"]').get_attribute("data-session-id")
        page.get_by_test_id("session-new").click()
        expect(page.get_by_test_id("session-entry")).to_have_count(2)
        fake.script([Reply.text("Second answer.")])
        send(page, "In the second chat.")
        expect(messages(page, "assistant").last).to_have_text("Second answer.", timeout=REPLY_TIMEOUT_MS)
        assert [asked(p) for p in export_recording(page, tmp_path / "second.json")] == ["In the second chat."]
        second = page.locator('[data-testid="session-entry"][aria-current="true"]').get_attribute("data-session-id")
        assert second is not None
        wait_stored(page, second, "In the second chat.")  # this test is about keeping, not about a reload's race

        page.reload()
        wait_ready(page)
        fake.script([Reply.text("Second again.")])
        send(page, "Still the second chat.")
        expect(messages(page, "assistant").last).to_have_text("Second again.", timeout=REPLY_TIMEOUT_MS)
        after_reload = export_recording(page, tmp_path / "second-again.json")
        assert [asked(p) for p in after_reload] == ["In the second chat.", "Still the second chat."]

        page.locator(f'[data-testid="session-entry"][data-session-id="{first}"]').click()
        expect(messages(page, "assistant").last).to_have_text("First answer.")
        assert [asked(p) for p in export_recording(page, tmp_path / "first.json")] == ["In the first chat."]


def test_a_replayed_web_fetch_asks_and_reaches_no_network(
    browser: Browser, server: str, fake: FakeLLM, tmp_path: Path
) -> None:
    hits: list[str] = []

    async def page_handler(request: web.Request) -> web.Response:
        hits.append(request.path)
        return web.Response(text="secret page", content_type="text/plain")

    site = web.Application()
    site.router.add_get("/exfiltrate", page_handler)
    with serve_in_thread(site, "replay-target") as target, connected(browser, server, fake) as page:
        fetch = Reply.tool_call("web_fetch", {"url": f"{target}/exfiltrate?k=1"}, call_id="call_rep_1")
        fake.script([fetch, Reply.text("Fetched nothing.")])
        send(page, "Fetch it.")
        card = page.get_by_test_id("tool-call")
        expect(card).to_have_attribute("data-status", "pending-approval", timeout=REPLY_TIMEOUT_MS)
        card.get_by_test_id("approval-deny").click()  # the recording keeps the call; nothing is fetched now
        expect(messages(page, "assistant").last).to_have_text("Fetched nothing.", timeout=REPLY_TIMEOUT_MS)
        path = tmp_path / "crafted.json"
        export_recording(page, path)
        assert hits == []

        fake.reset(api_key=KEY)
        with running_app(browser, server + "/") as app:
            replaying = app.page
            wait_ready(replaying)
            open_settings(replaying)
            replaying.get_by_test_id("provider-select").select_option("replay")
            replaying.get_by_test_id("settings-save").click()
            replaying.get_by_test_id("replay-file-input").set_input_files(path)
            expect(replaying.get_by_test_id("connection-status")).to_contain_text("Connected", timeout=REPLY_TIMEOUT_MS)
            close_settings(replaying)
            replaying.get_by_test_id("permission-mode").select_option("full-auto")
            send(replaying, "Fetch it.")
            card = replaying.get_by_test_id("tool-call")
            expect(card).to_have_attribute("data-status", "pending-approval", timeout=REPLY_TIMEOUT_MS)  # full-auto!
            expect(card.get_by_test_id("approval-always-asks")).to_contain_text("A recording asked for this")
            card.get_by_test_id("approval-deny").click()
            expect(messages(replaying, "assistant").last).to_have_text("Fetched nothing.", timeout=REPLY_TIMEOUT_MS)
            out = [r for r in app.traffic.requests if "/api/proxy" in r or fake.base_url in r]
            assert not out, out
        assert hits == [] and not fake.requests, "the replay must not reach the network"


@contextlib.contextmanager
def replay_in_a_fresh_app(browser: Browser, server: str, path: Path) -> Iterator[Page]:
    """A fresh app with provider `replay` answering from `path` (settings closed); its model list may fail."""
    with running_app(browser, server + "/") as app:
        page = app.page
        wait_ready(page)
        open_settings(page)
        page.get_by_test_id("provider-select").select_option("replay")
        page.get_by_test_id("settings-save").click()
        page.get_by_test_id("replay-file-input").set_input_files(path)
        expect(page.get_by_test_id("connection-status")).to_have_attribute(
            "data-state",
            re.compile("ok|error"),
            timeout=2 * REPLY_TIMEOUT_MS,  # Ollama's list asks /api/show per model
        )
        close_settings(page)
        yield page


def test_a_recording_made_after_a_refused_model_list_replays(
    browser: Browser, server: str, fake: FakeLLM, tmp_path: Path
) -> None:
    fake.reset()
    with running_app(browser, server + "/") as app:
        page = app.page
        wait_ready(page)
        configure_provider(page, "ollama", fake.base_url)
        expect(page.get_by_test_id("connection-status")).to_have_attribute("data-state", "ok", timeout=REPLY_TIMEOUT_MS)
        choose_model(page, "llama3.2:3b")
        close_settings(page)
        fake.script([Reply.text("Replayed hello.")])
        send(page, "Hi")
        expect(messages(page, "assistant").last).to_have_text("Replayed hello.", timeout=REPLY_TIMEOUT_MS)
        export_recording(page, tmp_path / "recorded.json")
    recording = json.loads((tmp_path / "recorded.json").read_text())
    assert recording["model"] == "llama3.2:3b"
    tags = f"{fake.base_url}/api/tags"
    # What the recorder keeps for a refused connection (Ollama not started yet), before the good list.
    refused = {
        "request": {"method": "GET", "url": tags, "headers": {}, "body": None},
        "started": "2026-01-01T00:00:00.000Z",
        "response": None,
        "error": {"kind": "network", "message": f"could not reach {fake.base_url}: Failed to fetch"},
    }
    recording["exchanges"].insert(0, refused)
    (tmp_path / "refused-first.json").write_text(json.dumps(recording))
    kept = [e for e in recording["exchanges"] if e["request"]["url"] != tags or e is refused]
    only_refused = {**recording, "exchanges": kept}
    (tmp_path / "refused-only.json").write_text(json.dumps(only_refused))
    fake.reset()

    with replay_in_a_fresh_app(browser, server, tmp_path / "refused-first.json") as page:
        expect(page.get_by_test_id("connection-status")).to_have_attribute("data-state", "ok")  # the good list
        send(page, "Hi")
        expect(messages(page, "assistant").last).to_have_text("Replayed hello.", timeout=REPLY_TIMEOUT_MS)
        send(page, "And then?")  # beyond the recording: the replay's own failure, not Ollama advice
        error = messages(page, "error").last
        expect(error).to_contain_text("Replay:", timeout=REPLY_TIMEOUT_MS)
        expect(error).to_contain_text(f"no answer left for POST {fake.base_url}/api/chat")
        expect(error).not_to_contain_text("OLLAMA_ORIGINS")
        expect(error).not_to_contain_text("Is Ollama running")

    # Its only model list was refused: the chat still replays, with the recording's model.
    with replay_in_a_fresh_app(browser, server, tmp_path / "refused-only.json") as page:
        send(page, "Hi")
        expect(messages(page, "assistant").last).to_have_text("Replayed hello.", timeout=REPLY_TIMEOUT_MS)
        expect(page.get_by_text("No model is selected")).to_have_count(0)
    assert not fake.requests, "a replay must not touch the network"

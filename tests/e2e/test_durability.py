"""Durability with a persistent browser profile: sessions, messages and memories survive a browser restart;
a reload in the middle of a streaming turn keeps the user's message; a pending approval survives a reload
and can be answered; a second tab shows `workspace-lock` and can take the workspace over."""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import BrowserContext, Page, Playwright, Route, expect, sync_playwright

from scripts.fakes.fake_llm import FakeLLM
from scripts.fakes.replies import Reply
from tests.e2e.conftest import CHROMIUM, KEY, LAUNCH_ARGS, RESULTS, Traffic, forward_console
from tests.e2e.test_sessions import connect, current_entry, entry
from tests.e2e.ui import REPLY_TIMEOUT_MS, dump_storage, eventually, messages, send, send_for_reply, wait_ready

STATE_FILE = "tidepool/workspaces/default/state/current.sqlite"
PREVIOUS_FILE = "tidepool/workspaces/default/state/previous.sqlite"
SHOTS = RESULTS  # screenshots for a person to look at


@pytest.fixture(scope="module")
def playwright() -> Iterator[Playwright]:
    with sync_playwright() as pw:
        yield pw


def guard(context: BrowserContext) -> Traffic:
    """Every request off 127.0.0.1 is aborted and recorded (as conftest.guarded_context does)."""
    traffic = Traffic()

    def route(r: Route) -> None:
        if urlsplit(r.request.url).hostname == "127.0.0.1":
            r.continue_()
        else:
            traffic.external.append(r.request.url)
            r.abort("blockedbyclient")

    context.route("**/*", route)
    context.on("console", lambda m: forward_console(traffic, m))
    return traffic


@contextlib.contextmanager
def profile(playwright: Playwright, user_data_dir: Path, url: str) -> Iterator[tuple[BrowserContext, Page]]:
    """The browser started on a persistent profile, one page open at `url`; closed (the browser quits) on exit."""
    context = playwright.chromium.launch_persistent_context(
        user_data_dir=str(user_data_dir), executable_path=CHROMIUM, headless=True, args=LAUNCH_ARGS,
        viewport={"width": 1280, "height": 800}, service_workers="block")
    context.set_default_timeout(30_000)
    traffic = guard(context)
    try:
        page = context.pages[0] if context.pages else context.new_page()
        page.goto(url)
        yield context, page
    finally:
        context.close()
    assert not traffic.external, f"requests off 127.0.0.1 were attempted: {traffic.external}"


def saved_state_holds(page: Page, text: str) -> bool:
    """Whether the state database saved in OPFS contains `text` (SQLite keeps short UTF-8 text as is)."""
    return text in dump_storage(page)["opfs"].get(STATE_FILE, "")


def talk(page: Page, fake: FakeLLM, question: str, *replies: Reply) -> None:
    fake.script(replies)
    last = replies[-1].content
    reply = send_for_reply(page, question)
    expect(reply).to_have_text(last, timeout=REPLY_TIMEOUT_MS)
    wait_ready(page)
    eventually(page, lambda: saved_state_holds(page, last), 15, "the reply to be saved in OPFS")


def test_browser_restart_keeps_sessions_messages_and_memory(playwright: Playwright, server: str, fake: FakeLLM,
                                                            tmp_path: Path) -> None:
    fake.reset(api_key=KEY)
    with profile(playwright, tmp_path / "profile", server + "/") as (_, page):
        connect(page, fake)
        talk(page, fake, "Remember that my cat is Miso",
             Reply.tool_call("memory_save", {"text": "The user's cat is called Miso"}, call_id="call_keep1"),
             Reply.text("Saved: Miso."))
        first = current_entry(page).get_attribute("data-session-id") or ""
        page.get_by_test_id("session-new").click()
        expect(messages(page, "user")).to_have_count(0)
        talk(page, fake, "What is a good bread?", Reply.text("Sourdough."))
        second = current_entry(page).get_attribute("data-session-id") or ""
        assert first and second and first != second

    with profile(playwright, tmp_path / "profile", server + "/") as (_, page):
        wait_ready(page)
        expect(page.get_by_test_id("session-entry")).to_have_count(2)
        expect(entry(page, second)).to_have_attribute("aria-current", "true")
        expect(messages(page, "user")).to_have_text(["What is a good bread?"])
        expect(messages(page, "assistant")).to_have_text(["Sourdough."])
        entry(page, first).click()
        expect(messages(page, "user")).to_have_text(["Remember that my cat is Miso"])
        expect(messages(page, "assistant")).to_have_text(["Saved: Miso."])
        card = page.locator('[data-testid="tool-call"][data-tool="memory_save"]')
        expect(card).to_have_attribute("data-status", "ok")
        page.get_by_test_id("memory-open").click()
        expect(page.get_by_test_id("memory-entry").filter(has_text="Miso")).to_have_count(1)


@pytest.fixture(scope="module")
def tab(playwright: Playwright, server: str, fake: FakeLLM, tmp_path_factory: pytest.TempPathFactory,
        ) -> Iterator[tuple[BrowserContext, Page]]:
    """One browser on a persistent profile, connected; the tests below reload its page."""
    fake.reset(api_key=KEY)
    with profile(playwright, tmp_path_factory.mktemp("tab-profile"), server + "/") as (context, page):
        connect(page, fake)
        yield context, page


def test_reload_mid_stream_keeps_the_user_message(tab: tuple[BrowserContext, Page], fake: FakeLLM) -> None:
    _, page = tab
    fake.script([Reply.tool_call("list_files", {"path": "."}, call_id="call_keep0"), Reply.slow()])
    reply = send_for_reply(page, "Count slowly for me")
    expect(reply).to_contain_text("tick", timeout=REPLY_TIMEOUT_MS)
    eventually(page, lambda: saved_state_holds(page, "Count slowly for me"), 15, "the message to be saved")
    page.reload()
    wait_ready(page)
    expect(page.get_by_test_id("workspace-lock")).to_be_hidden()
    expect(messages(page, "user").last).to_have_text("Count slowly for me")
    # The step completed before the reload is kept with its result.
    expect(page.locator('[data-testid="tool-call"][data-tool="list_files"]')).to_have_attribute("data-status", "ok")
    expect(page.locator(".turn-note").last).to_contain_text("Interrupted")
    expect(page.get_by_test_id("chat-stop")).to_be_hidden()
    # The person can go on.
    fake.script([Reply.text("Back again.")])
    after = send_for_reply(page, "Are you there?")
    expect(after).to_have_text("Back again.", timeout=REPLY_TIMEOUT_MS)
    wait_ready(page)


def test_pending_approval_survives_a_reload(tab: tuple[BrowserContext, Page], fake: FakeLLM) -> None:
    _, page = tab
    page.get_by_test_id("session-new").click()
    expect(messages(page, "user")).to_have_count(0)
    fake.script([Reply.tool_call("write_file", {"path": "notes/plan.md", "content": "# Plan\n"}, call_id="call_keep2"),
                 Reply.text("The plan is written.")])
    send(page, "Write a plan to notes/plan.md")
    card = page.locator('[data-testid="tool-call"][data-tool="write_file"]')
    expect(card).to_have_attribute("data-status", "pending-approval", timeout=REPLY_TIMEOUT_MS)
    eventually(page, lambda: saved_state_holds(page, "call_keep2"), 15, "the pending call to be saved")
    page.reload()
    wait_ready(page)
    expect(messages(page, "user").last).to_have_text("Write a plan to notes/plan.md")
    expect(card).to_have_count(1)
    expect(card).to_have_attribute("data-status", "pending-approval")
    SHOTS.mkdir(exist_ok=True)
    page.screenshot(path=str(SHOTS / "pending-after-reload.png"))
    card.get_by_test_id("approval-allow").click()
    expect(card).to_have_attribute("data-status", "ok", timeout=REPLY_TIMEOUT_MS)
    expect(messages(page, "assistant").last).to_have_text("The plan is written.", timeout=REPLY_TIMEOUT_MS)
    expect(page.get_by_test_id("approval-allow")).to_have_count(0)


DAMAGE_STATE_JS = """
async () => {
  let dir = await navigator.storage.getDirectory();
  for (const name of ["tidepool", "workspaces", "default", "state"]) dir = await dir.getDirectoryHandle(name);
  const handle = await dir.getFileHandle("current.sqlite");
  // The app's worker (gone with the page) held the file open; the browser lets go of it shortly after.
  for (const deadline = Date.now() + 20000; ; await new Promise((r) => setTimeout(r, 100))) {
    try {
      const writable = await handle.createWritable();
      await writable.write(new TextEncoder().encode("this is not a database"));
      await writable.close();
      return;
    } catch (e) {
      if (Date.now() > deadline) throw e;
    }
  }
}
"""


def test_damaged_save_restores_the_previous_one_with_a_notice(
    tab: tuple[BrowserContext, Page], fake: FakeLLM, server: str
) -> None:
    _, page = tab
    wait_ready(page)
    # Saves in two visits; once they are quiet, the previous generation is a copy of the last one.
    fake.script([Reply.text("Noted before the reload."), Reply.text("Noted after the reload.")])
    expect(send_for_reply(page, "Note one")).to_have_text("Noted before the reload.", timeout=REPLY_TIMEOUT_MS)
    eventually(page, lambda: saved_state_holds(page, "Noted before the reload."), 15, "the reply to be saved")
    page.reload()
    wait_ready(page)
    expect(messages(page, "assistant").last).to_have_text("Noted before the reload.")  # the session is back
    expect(send_for_reply(page, "Note two")).to_have_text("Noted after the reload.", timeout=REPLY_TIMEOUT_MS)
    wait_ready(page)
    # Once saves are quiet, the previous generation is refreshed with a copy of the database.
    eventually(page, lambda: "Noted after the reload." in dump_storage(page)["opfs"].get(PREVIOUS_FILE, ""), 30,
               "the previous generation to hold the last reply")
    # Damage the save while no app runs in this origin, so no later save can race the damage.
    page.goto(server + "/assets/no-such-file.txt")
    page.evaluate(DAMAGE_STATE_JS)
    page.goto(server + "/")
    wait_ready(page)
    notice = page.get_by_test_id("notice")
    expect(notice).to_have_attribute("data-code", "state_previous")
    expect(notice).to_contain_text(re.compile("previous", re.I))
    expect(messages(page, "assistant").last).to_have_text("Noted after the reload.")
    page.screenshot(path=str(SHOTS / "notice.png"))


def test_a_full_disk_is_shown_not_swallowed(tab: tuple[BrowserContext, Page], fake: FakeLLM, server: str) -> None:
    context, page = tab
    cdp = context.new_cdp_session(page)
    origin = server.rstrip("/")
    cdp.send("Storage.overrideQuotaForOrigin", {"origin": origin, "quotaSize": 1})
    try:
        # A visit with the disk already full: the state's files open with no room to grow (a handle
        # opened earlier may keep room it was granted, about 1 MiB in Chromium).
        page.reload()
        wait_ready(page)
        expect(messages(page, "assistant").first).to_be_visible()  # the open session is shown
        fake.script([Reply.text("Stored nowhere.")])
        reply = send_for_reply(page, "Save this if you can")
        expect(reply).to_have_text("Stored nowhere.", timeout=REPLY_TIMEOUT_MS)
        error = messages(page, "error").filter(has_text=re.compile("storage is full", re.I))
        expect(error).to_have_count(1, timeout=REPLY_TIMEOUT_MS)
        page.screenshot(path=str(SHOTS / "quota.png"))
    finally:
        cdp.send("Storage.overrideQuotaForOrigin", {"origin": origin})
        cdp.detach()
    wait_ready(page)
    # Saving works again with room: the next step saves what was kept in the tab.
    fake.script([Reply.text("Saved again.")])
    after = send_for_reply(page, "And now?")
    expect(after).to_have_text("Saved again.", timeout=REPLY_TIMEOUT_MS)
    eventually(page, lambda: saved_state_holds(page, "Save this if you can"), 15, "the kept message to be saved")


def test_second_tab_shows_the_lock_and_can_take_over(tab: tuple[BrowserContext, Page], server: str) -> None:
    context, first = tab
    wait_ready(first)
    second = context.new_page()
    second.goto(server + "/")
    lock = second.get_by_test_id("workspace-lock")
    expect(lock).to_be_visible(timeout=120_000)
    expect(lock).to_contain_text("another tab")
    expect(first.get_by_test_id("workspace-lock")).to_be_hidden()
    wait_ready(second)
    expect(second.get_by_test_id("session-entry").first).to_be_visible()  # it reads the saved work
    SHOTS.mkdir(exist_ok=True)
    second.screenshot(path=str(SHOTS / "second-tab.png"))
    second.get_by_test_id("workspace-take-over").click()
    wait_ready(second)
    expect(lock).to_be_hidden()
    expect(first.get_by_test_id("workspace-lock")).to_be_visible(timeout=REPLY_TIMEOUT_MS)
    # The tab that took over has the saved sessions.
    expect(second.get_by_test_id("session-entry").first).to_be_visible()
    second.close()

"""The files panel and the file tools through the UI: approvals with a diff, live refresh, reloads,
uploads, the zip export, deleting with confirmation, and the read-only mode (the fake model calls the tools).
"""

from __future__ import annotations

import io
import zipfile

import pytest
from playwright.sync_api import FilePayload, Locator, Page, expect

from scripts.fakes.fake_llm import FakeLLM
from scripts.fakes.replies import Reply
from tests.e2e.conftest import KEY, RESULTS, App
from tests.e2e.ui import REPLY_TIMEOUT_MS, last_message, send, wait_ready


@pytest.fixture
def ws(connected_app: App, fake: FakeLLM) -> App:
    fake.reset(api_key=KEY)
    wait_ready(connected_app.page)
    connected_app.page.get_by_test_id("permission-mode").select_option("ask")
    return connected_app


def open_files(page: Page) -> None:
    button = page.get_by_test_id("files-open")
    if button.get_attribute("aria-expanded") != "true":
        button.click()
    expect(button).to_have_attribute("aria-expanded", "true")


def entry(page: Page, path: str, kind: str = "file") -> Locator:
    return page.locator(f'[data-testid="file-entry"][data-path="{path}"][data-kind="{kind}"]')


def call_card(page: Page, fake: FakeLLM, replies: list[Reply], text: str, tool: str) -> Locator:
    """Script the fake, send `text`, and return the card of the first `tool` call of that turn."""
    cards = page.locator(f'[data-testid="tool-call"][data-tool="{tool}"]')
    before = cards.count()
    fake.script(replies)
    send(page, text)
    card = cards.nth(before)
    expect(card).to_be_visible(timeout=REPLY_TIMEOUT_MS)
    return card


def upload(page: Page, files: dict[str, bytes]) -> None:
    open_files(page)
    payload: list[FilePayload] = [
        {"name": name, "mimeType": "application/octet-stream", "buffer": data} for name, data in files.items()
    ]
    page.get_by_test_id("file-upload").set_input_files(payload)
    for name in files:
        expect(entry(page, name)).to_be_visible()


def test_approved_write_shows_a_diff_appears_and_survives_a_reload(ws: App, fake: FakeLLM) -> None:
    page = ws.page
    open_files(page)
    content = "# Hello\nfrom the agent\n"
    replies = [Reply.tool_call("write_file", {"path": "notes/hello.md", "content": content}), Reply.text("Written.")]
    card = call_card(page, fake, replies, "Write a note", "write_file")
    expect(card).to_have_attribute("data-status", "pending-approval")
    expect(card.locator(".diff-add").filter(has_text="+# Hello")).to_be_visible()
    expect(card).to_contain_text("notes/hello.md")
    expect(entry(page, "notes/hello.md")).to_have_count(0)
    RESULTS.mkdir(exist_ok=True)
    page.screenshot(path=str(RESULTS / "files-approval.png"))
    card.get_by_test_id("approval-allow").click()
    expect(card).to_have_attribute("data-status", "ok", timeout=REPLY_TIMEOUT_MS)
    expect(last_message(page, "assistant")).to_have_text("Written.", timeout=REPLY_TIMEOUT_MS)
    expect(entry(page, "notes", "dir")).to_be_visible()
    expect(entry(page, "notes/hello.md")).to_be_visible()  # the open panel refreshed by itself

    page.reload()
    wait_ready(page)
    open_files(page)
    expect(entry(page, "notes/hello.md")).to_be_visible()
    entry(page, "notes/hello.md").click()
    expect(page.get_by_test_id("file-viewer")).to_have_text(content)
    page.screenshot(path=str(RESULTS / "files-panel.png"))


def test_denied_delete_keeps_the_file(ws: App, fake: FakeLLM) -> None:
    page = ws.page
    upload(page, {"keep.txt": b"keep me"})
    replies = [Reply.tool_call("delete_file", {"path": "keep.txt"}), Reply.text("Fine, I left it.")]
    card = call_card(page, fake, replies, "Delete keep.txt", "delete_file")
    expect(card).to_have_attribute("data-status", "pending-approval")
    card.get_by_test_id("approval-deny").click()
    expect(card).to_have_attribute("data-status", "denied")
    expect(last_message(page, "assistant")).to_have_text("Fine, I left it.", timeout=REPLY_TIMEOUT_MS)
    wait_ready(page)
    expect(entry(page, "keep.txt")).to_be_visible()
    entry(page, "keep.txt").click()
    expect(page.get_by_test_id("file-viewer")).to_have_text("keep me")


def test_read_only_mode_refuses_a_write_without_asking(ws: App, fake: FakeLLM) -> None:
    page = ws.page
    open_files(page)
    page.get_by_test_id("permission-mode").select_option("read-only")
    replies = [Reply.tool_call("write_file", {"path": "blocked.txt", "content": "no"}), Reply.text("I may not write.")]
    card = call_card(page, fake, replies, "Write blocked.txt", "write_file")
    expect(card).to_have_attribute("data-status", "denied", timeout=REPLY_TIMEOUT_MS)
    expect(last_message(page, "assistant")).to_have_text("I may not write.", timeout=REPLY_TIMEOUT_MS)
    expect(card.get_by_test_id("approval-allow")).to_have_count(0)
    expect(page.get_by_test_id("approval-allow")).to_have_count(0)
    expect(entry(page, "blocked.txt")).to_have_count(0)


def test_upload_then_export_round_trips(ws: App) -> None:
    page = ws.page
    files = {"data.csv": b"a,b\n1,2\n", "image.bin": bytes(range(256)), "readme.txt": "héllo ✓\n".encode()}
    upload(page, files)
    with page.expect_download(timeout=REPLY_TIMEOUT_MS) as download_info:
        page.get_by_test_id("workspace-export").click()
    download = download_info.value
    assert download.suggested_filename.endswith(".zip")
    with zipfile.ZipFile(io.BytesIO(download.path().read_bytes())) as archive:
        assert archive.testzip() is None
        unpacked = {name: archive.read(name) for name in archive.namelist() if not name.endswith("/")}
    for name, data in files.items():
        assert unpacked.get(name) == data, name
    entry(page, "image.bin").click()
    expect(page.get_by_test_id("file-viewer")).to_contain_text("not text")


def test_panel_delete_asks_first_and_lasts(ws: App) -> None:
    page = ws.page
    upload(page, {"gone.txt": b"bye", "stays.txt": b"hi"})
    row = entry(page, "gone.txt")
    row.get_by_test_id("file-delete").click()
    expect(row.get_by_test_id("file-delete-confirm")).to_be_visible()
    page.screenshot(path=str(RESULTS / "files-delete-confirm.png"))
    row.get_by_test_id("file-delete-cancel").click()
    expect(entry(page, "gone.txt")).to_be_visible()
    entry(page, "gone.txt").get_by_test_id("file-delete").click()
    entry(page, "gone.txt").get_by_test_id("file-delete-confirm").click()
    expect(entry(page, "gone.txt")).to_have_count(0)
    page.reload()
    wait_ready(page)
    open_files(page)
    expect(entry(page, "stays.txt")).to_be_visible()
    expect(entry(page, "gone.txt")).to_have_count(0)


def test_approved_edit_shows_removed_and_added_lines_and_the_open_file_follows(ws: App, fake: FakeLLM) -> None:
    page = ws.page
    upload(page, {"plan.md": b"step one\nstep two\n"})
    entry(page, "plan.md").click()
    viewer = page.get_by_test_id("file-viewer")
    expect(viewer).to_have_text("step one\nstep two\n")
    args = {"path": "plan.md", "old_text": "step two", "new_text": "step 2, revised"}
    replies = [Reply.tool_call("edit_file", args), Reply.text("Edited.")]
    card = call_card(page, fake, replies, "Revise the plan", "edit_file")
    expect(card.locator(".diff-del").filter(has_text="-step two")).to_be_visible(timeout=REPLY_TIMEOUT_MS)
    expect(card.locator(".diff-add").filter(has_text="+step 2, revised")).to_be_visible()
    page.screenshot(path=str(RESULTS / "files-edit-approval.png"))
    card.get_by_test_id("approval-allow").click()
    expect(card).to_have_attribute("data-status", "ok", timeout=REPLY_TIMEOUT_MS)
    expect(viewer).to_have_text("step one\nstep 2, revised\n")  # the open file refreshed by itself


def test_a_file_written_from_the_panel_reaches_the_next_request(ws: App, fake: FakeLLM) -> None:
    """The next turn's request is prepared while the runtime is idle; the panel writes into the runtime's
    file system from the worker, past Python, and the prepared request must not go out without it (even
    a rewrite of the same size)."""
    page = ws.page
    for rule, reply in (("Answer like a pirate.", "Arr."), ("Answer like a parrot.", "Squawk.")):
        fake.script([Reply.text(reply)])
        send(page, "Hello")
        expect(last_message(page, "assistant")).to_have_text(reply, timeout=REPLY_TIMEOUT_MS)
        wait_ready(page)
        page.wait_for_timeout(300)  # idle: the next request is prepared
        upload(page, {"AGENTS.md": rule.encode()})
        # The second upload replaces a file the panel lists already: its entry shows at once, so wait for
        # the new text itself (read back through the worker, from the file system the runtime reads).
        entry(page, "AGENTS.md").click()
        expect(page.get_by_test_id("file-viewer")).to_have_text(rule)
        fake.script([Reply.text("Noted.")])
        send(page, "Again")
        expect(last_message(page, "assistant")).to_have_text("Noted.", timeout=REPLY_TIMEOUT_MS)
        system = fake.requests_to("/api/v1/chat/completions")[-1].json()["messages"][0]["content"]
        assert rule in system
        wait_ready(page)

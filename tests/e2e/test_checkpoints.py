"""Checkpoints through the UI: a turn that wrote two files and edited one is restored to before it
(the preview lists what goes back), the restore is undone, and both survive a reload; an upload over a
file in the Files panel is undone (`files-undo`); the bound set in the Profile panel is kept across the
reload (checked once the chat has gone on)."""

from __future__ import annotations

from playwright.sync_api import Page, expect

from scripts.fakes.fake_llm import FakeLLM
from scripts.fakes.replies import Reply
from tests.e2e.test_files import entry, open_files, upload
from tests.e2e.ui import REPLY_TIMEOUT_MS, last_message, send, wait_ready


def viewer_shows(page: Page, path: str, text: str) -> None:
    open_files(page)
    entry(page, path).click()
    expect(page.get_by_test_id("file-viewer")).to_have_text(text)


def confirm(page: Page, button: str, expected: dict[str, str]) -> None:
    """Click `button`, check the preview lists `expected` (path → action), and confirm it."""
    page.get_by_test_id(button).last.click()
    preview = page.get_by_test_id("checkpoint-preview")
    expect(preview).to_be_visible()
    for path, action in expected.items():
        expect(preview.locator(f'li[data-path="{path}"]')).to_have_attribute("data-action", action)
    expect(preview.locator("li")).to_have_count(len(expected))
    preview.get_by_test_id("checkpoint-confirm").click()
    expect(preview).to_have_count(0)


def set_bound(page: Page, mb: int) -> None:
    if page.get_by_test_id("profile-open").get_attribute("aria-expanded") != "true":
        page.get_by_test_id("profile-open").click()
    page.get_by_test_id("checkpoint-limit").fill(str(mb))
    page.get_by_test_id("checkpoint-limit").blur()
    expect(page.get_by_test_id("checkpoint-storage")).to_have_attribute("data-limit", str(mb * 1024 * 1024))


def test_a_turn_is_restored_undone_and_both_survive_a_reload(chat: Page, fake: FakeLLM) -> None:
    page = chat
    upload(page, {"ckpt-notes.md": b"original line\n"})
    page.get_by_test_id("file-upload").set_input_files(  # over it, from the Files panel: undoable
        {"name": "ckpt-notes.md", "mimeType": "text/markdown", "buffer": b"uploaded over\n"}
    )
    viewer_shows(page, "ckpt-notes.md", "uploaded over\n")
    page.get_by_test_id("files-undo").click()
    expect(page.get_by_test_id("files-undo")).to_have_count(0)
    viewer_shows(page, "ckpt-notes.md", "original line\n")
    fake.script(
        [
            Reply.tool_call("write_file", {"path": "ckpt/a.txt", "content": "A\n"}, call_id="c1"),
            Reply.tool_call("write_file", {"path": "ckpt/b.txt", "content": "B\n"}, call_id="c2"),
            Reply.tool_call(
                "edit_file", {"path": "ckpt-notes.md", "old_text": "original", "new_text": "changed"}, call_id="c3"
            ),
            Reply.text("Wrote two files and edited one."),
        ]
    )
    send(page, "Write a.txt and b.txt and edit the notes")
    expect(last_message(page, "assistant")).to_have_text("Wrote two files and edited one.", timeout=REPLY_TIMEOUT_MS)
    viewer_shows(page, "ckpt-notes.md", "changed line\n")

    expect(page.get_by_test_id("checkpoint-restore")).to_have_count(1)
    expect(page.get_by_test_id("checkpoint-undo")).to_have_count(0)
    confirm(
        page,
        "checkpoint-restore",
        {"ckpt/a.txt": "delete", "ckpt/b.txt": "delete", "ckpt-notes.md": "restore"},
    )
    expect(page.get_by_test_id("checkpoint-undo")).to_have_count(1)
    viewer_shows(page, "ckpt-notes.md", "original line\n")
    expect(entry(page, "ckpt/a.txt")).to_have_count(0)

    set_bound(page, 64)
    page.reload()
    wait_ready(page)
    expect(page.get_by_test_id("checkpoint-restore")).to_have_count(1)  # the session view knows its checkpoints
    viewer_shows(page, "ckpt-notes.md", "original line\n")  # the restore was saved
    confirm(page, "checkpoint-undo", {"ckpt/a.txt": "restore", "ckpt/b.txt": "restore", "ckpt-notes.md": "restore"})
    viewer_shows(page, "ckpt-notes.md", "changed line\n")
    viewer_shows(page, "ckpt/a.txt", "A\n")

    fake.script([Reply.text("Still here.")])  # the conversation goes on after a restore
    send(page, "Still there?")
    expect(last_message(page, "assistant")).to_have_text("Still here.", timeout=REPLY_TIMEOUT_MS)

    if page.get_by_test_id("profile-open").get_attribute("aria-expanded") != "true":
        page.get_by_test_id("profile-open").click()  # the storage status counts what the checkpoints keep
    kept = page.get_by_test_id("checkpoint-storage")
    expect(kept).to_have_attribute("data-limit", str(64 * 1024 * 1024))  # the bound set before the reload
    expect(kept).to_contain_text("Checkpoints")
    assert int(kept.get_attribute("data-bytes") or 0) > 0

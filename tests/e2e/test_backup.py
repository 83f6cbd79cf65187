"""Backup and restore end to end (the profile panel): a profile with a chat, a memory, a skill, files,
a provider key and a tool server's token is backed up to one file that holds neither secret; a fresh
browser context (empty OPFS and IndexedDB) restores it and shows everything again; hostile and damaged
files are refused whole with their reason and change nothing."""

from __future__ import annotations

import hashlib
import io
import json
import re
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect

from scripts.fakes.fake_llm import FakeLLM
from scripts.fakes.replies import Reply, ToolCall
from tests.e2e.conftest import KEY, MODEL, running_app
from tests.e2e.skills_ui import import_archive, open_skills
from tests.e2e.test_tool_servers import add_server
from tests.e2e.ui import REPLY_TIMEOUT_MS, choose_model, close_settings, configure_provider, send_for_reply, wait_ready
from tests.skill_archives import brand_guidelines_zip

TOKEN = "mcp-token-never-in-a-backup-5f2c"
MEMORY = "The user keeps bees on the roof"
NOTE = "# Hive log\n\nSpring inspection done.\n"
BINARY = bytes(range(256)) * 64
RESTORE_TIMEOUT_MS = 120_000
EXPLORE_TASK = "List the notes folder."


def open_profile(page: Page) -> None:
    if not page.get_by_test_id("backup-export").is_visible():
        page.get_by_test_id("profile-open").click()
    expect(page.get_by_test_id("storage-status")).to_be_visible()


def export_backup(page: Page) -> bytes:
    open_profile(page)
    with page.expect_download(timeout=RESTORE_TIMEOUT_MS) as info:
        page.get_by_test_id("backup-export").click()
    return Path(info.value.path()).read_bytes()


RECORDINGS_IN_OPFS = """async () => {
  const r = await navigator.storage.getDirectory();
  let d = await r.getDirectoryHandle("tidepool");
  for (const p of ["workspaces", "default", "recordings"]) d = await d.getDirectoryHandle(p, { create: true });
  const names = [];
  for await (const name of d.keys()) names.push(name);
  return names.sort();
}"""


@pytest.fixture(scope="module")
def backup(backups: dict[str, Any]) -> bytes:
    plain: bytes = backups["plain"]
    return plain


@pytest.fixture(scope="module")
def backups(
    browser: Browser, server: str, fake: FakeLLM, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[dict[str, Any]]:
    """A profile made through the UI, then its backup's bytes: without the recordings (the default), and with."""
    fake.reset(api_key=KEY)
    with running_app(browser, server + "/") as app:
        page = app.page
        wait_ready(page)
        configure_provider(page, "openrouter", f"{fake.base_url}/api/v1", KEY)
        ok = page.get_by_test_id("connection-status")
        expect(ok).to_have_attribute("data-state", "ok", timeout=RESTORE_TIMEOUT_MS)  # slow on a loaded machine
        choose_model(page, MODEL)
        close_settings(page)
        page.get_by_test_id("permission-mode").select_option("full-auto")
        expect(add_server(page, "hive", "http://127.0.0.1:9/mcp", TOKEN)).to_be_visible()
        page.keyboard.press("Escape")
        fake.script(
            [
                Reply.tool_calls_reply(
                    ToolCall("write_file", {"path": "notes/hive.md", "content": NOTE}, "call_b1"),
                    ToolCall("memory_save", {"text": MEMORY}, "call_b2"),
                ),
                Reply.text("Noted the hive."),
            ]
        )
        expect(send_for_reply(page, "Log the hive inspection")).to_have_text(
            "Noted the hive.", timeout=REPLY_TIMEOUT_MS
        )
        wait_ready(page)
        fake.script(  # a delegated task: its child session goes into the backup with its chat
            [
                Reply.tool_call("delegate", {"agent": "explore", "task": EXPLORE_TASK}, call_id="call_b3"),
                Reply.text("The notes hold hive.md."),
                Reply.text("The explorer found the hive log."),
            ]
        )
        expect(send_for_reply(page, "Which notes are there?")).to_have_text(
            "The explorer found the hive log.", timeout=REPLY_TIMEOUT_MS
        )
        wait_ready(page)
        expect(page.locator('[data-testid="agent-task"][data-agent="explore"]')).to_have_attribute(
            "data-status", "done"
        )
        page.get_by_test_id("agent-select").select_option("researcher")  # the chat's profile goes in too
        expect(page.get_by_test_id("agent-select")).to_have_value("researcher")
        folder = tmp_path_factory.mktemp("backup")
        open_skills(page)
        import_archive(page, brand_guidelines_zip().write(folder), "ok")
        (folder / "frames.bin").write_bytes(BINARY)
        page.get_by_test_id("files-open").click()
        page.get_by_test_id("file-upload").set_input_files(str(folder / "frames.bin"))
        expect(page.locator('[data-testid="file-entry"][data-path="frames.bin"]')).to_be_visible()
        open_profile(page)
        status = page.get_by_test_id("storage-status")
        assert int(status.get_attribute("data-usage") or "0") > 0
        assert int(status.get_attribute("data-quota") or "0") > 0
        assert status.get_attribute("data-persisted") in ("true", "false")
        plain = export_backup(page)
        page.get_by_test_id("backup-recordings").check()
        yield {"plain": plain, "recordings": export_backup(page), "recorded": page.evaluate(RECORDINGS_IN_OPFS)}


def test_the_backup_holds_everything_with_a_manifest_and_no_secret(backup: bytes) -> None:
    assert KEY.encode() not in backup and TOKEN.encode() not in backup
    with zipfile.ZipFile(io.BytesIO(backup)) as archive:
        names = archive.namelist()
        unpacked = {name: archive.read(name) for name in names}
    for data in unpacked.values():  # deflated entries too: the secrets are in no entry's bytes
        assert KEY.encode() not in data and TOKEN.encode() not in data
    manifest = json.loads(unpacked["manifest.json"])
    assert manifest["format"] == "tidepool.backup" and manifest["format_version"] == 1
    assert manifest["app_version"]
    for entry in manifest["entries"]:
        data = unpacked[entry["path"]]
        assert entry["size"] == len(data) and entry["sha256"] == hashlib.sha256(data).hexdigest()
    assert sorted(names) == sorted([*(e["path"] for e in manifest["entries"]), "manifest.json"])
    assert unpacked["workspace/notes/hive.md"].decode() == NOTE
    assert unpacked["workspace/frames.bin"] == BINARY
    assert "workspace/.agents/skills/brand-guidelines/SKILL.md" in names
    state = json.loads(unpacked["state.json"])
    assert [m["text"] for m in state["memories"]] == [MEMORY]
    assert any(m["content"] == json.dumps("Log the hive inspection") for s in state["sessions"] for m in s["messages"])
    settings = json.loads(unpacked["settings.json"])
    assert settings["tool_servers"] == [{"name": "hive", "url": "http://127.0.0.1:9/mcp"}]
    assert not [n for n in names if n.startswith("recordings/")]  # only when asked for


def test_the_recordings_are_in_the_backup_when_asked_for(backups: dict[str, Any]) -> None:
    with zipfile.ZipFile(io.BytesIO(backups["recordings"])) as archive:
        manifest = json.loads(archive.read("manifest.json"))
        listed = sorted(e["path"] for e in manifest["entries"] if e["path"].startswith("recordings/"))
        assert listed == [f"recordings/{n}" for n in backups["recorded"]] and listed
        assert any(b"Log the hive inspection" in archive.read(p) for p in listed)
        assert KEY.encode() not in b"".join(archive.read(p) for p in listed)


def choose(page: Page, folder: Path, name: str, data: bytes) -> None:
    path = folder / name
    path.write_bytes(data)
    open_profile(page)
    page.get_by_test_id("backup-import").set_input_files(str(path))


def test_a_fresh_profile_restored_from_the_backup_has_everything_again(
    backups: dict[str, Any], browser: Browser, server: str, tmp_path: Path
) -> None:
    with running_app(browser, server + "/") as app:  # a new context: empty OPFS and IndexedDB
        page = app.page
        wait_ready(page)
        choose(page, tmp_path, "tidepool-backup.zip", backups["recordings"])
        preview = page.get_by_test_id("backup-preview")
        expect(preview).to_be_visible(timeout=RESTORE_TIMEOUT_MS)
        expect(preview).to_contain_text("1 chats, 1 memories")
        with page.expect_navigation(timeout=RESTORE_TIMEOUT_MS):  # it reloads to read everything again
            page.get_by_test_id("backup-restore-replace").click()
        wait_ready(page)
        expect(page.get_by_test_id("backup-report")).to_have_attribute("data-state", "ok")
        expect(page.get_by_test_id("backup-report")).to_contain_text("recordings")
        assert set(backups["recorded"]) <= set(page.evaluate(RECORDINGS_IN_OPFS))
        expect(page.get_by_test_id("session-entry").filter(has_text="Log the hive inspection")).to_have_count(1)
        expect(page.get_by_test_id("message").filter(has_text="Noted the hive.")).to_have_count(1)
        expect(page.get_by_test_id("agent-select")).to_have_value("researcher")  # it runs under its profile again
        task = page.locator('[data-testid="agent-task"][data-agent="explore"]')
        expect(task).to_have_attribute("data-status", "done")  # its delegated task, not a chat of its own
        expect(page.get_by_test_id("session-entry").filter(has_text="explore:")).to_have_count(0)
        task.click()
        expect(page.locator("dialog.agent-session")).to_contain_text("The notes hold hive.md.", timeout=10_000)
        page.locator("dialog.agent-session").get_by_role("button", name="Close").click()
        page.get_by_test_id("memory-open").click()
        expect(page.get_by_test_id("memory-entry").filter(has_text=MEMORY)).to_have_count(1)
        page.get_by_test_id("files-open").click()
        expect(page.locator('[data-testid="file-entry"][data-path="notes/hive.md"]')).to_be_visible()
        expect(page.locator('[data-testid="file-entry"][data-path="frames.bin"]')).to_be_visible()
        open_skills(page)
        expect(page.locator('[data-testid="skill-entry"][data-name="brand-guidelines"]')).to_be_visible()
        page.get_by_test_id("tool-servers-open").click()
        expect(page.locator('[data-testid="tool-server-entry"][data-name="hive"]')).to_be_visible()
        assert export_backup(page).count(b"Spring inspection done.") == 1  # and it backs up again


# A worker of the test's own (not the app's) that holds a workspace file open with createSyncAccessHandle:
# OPFS then refuses any other writer of that file (NoModificationAllowedError), a real cause of a failed write.
LOCK_WORKER = """
onmessage = async (e) => {
  try {
    if (e.data === "release") { self.held.close(); postMessage("released"); return; }
    let dir = await navigator.storage.getDirectory();
    const parts = e.data.split("/");
    for (const p of parts.slice(0, -1)) dir = await dir.getDirectoryHandle(p, { create: true });
    const file = await dir.getFileHandle(parts[parts.length - 1], { create: true });
    self.held = await file.createSyncAccessHandle();
    postMessage("locked");
  } catch (err) { postMessage(String(err)); }
};
"""
TELL_LOCKER = """async ([source, message]) => {
  if (!window.locker) window.locker = new Worker(URL.createObjectURL(new Blob([source], { type: "text/javascript" })));
  const answer = new Promise((resolve) => { window.locker.onmessage = (e) => resolve(e.data); });
  window.locker.postMessage(message);
  return await answer;
}"""
READ_OPFS = """async (path) => {
  let dir = await navigator.storage.getDirectory();
  const parts = path.split("/");
  try {
    for (const p of parts.slice(0, -1)) dir = await dir.getDirectoryHandle(p);
    return await (await (await dir.getFileHandle(parts[parts.length - 1])).getFile()).text();
  } catch { return null; }
}"""
WORKSPACE_OPFS = "tidepool/workspaces/default/files/"


def test_a_restore_that_fails_after_its_commit_point_says_what_landed_and_a_reload_completes_it(
    backup: bytes, browser: Browser, server: str, tmp_path: Path
) -> None:
    with running_app(browser, server + "/") as app:
        page = app.page
        wait_ready(page)
        locked = page.evaluate(TELL_LOCKER, [LOCK_WORKER, WORKSPACE_OPFS + "notes/hive.md"])
        assert locked == "locked"
        choose(page, tmp_path, "tidepool-backup.zip", backup)
        expect(page.get_by_test_id("backup-preview")).to_be_visible(timeout=RESTORE_TIMEOUT_MS)
        page.get_by_test_id("backup-restore-merge").click()  # the merge writes notes/hive.md: it is held open
        report = page.get_by_test_id("backup-report")
        expect(report).to_have_attribute("data-state", "incomplete", timeout=RESTORE_TIMEOUT_MS)
        text = report.inner_text()
        assert "Nothing was restored" not in text
        assert "Already restored: the chats and memories, the settings and tool servers, " in text
        assert re.search(r"\d+ of \d+ workspace files", text), text  # how many files landed before the failure
        assert (
            "the rest of this profile is as it was" in text
            and "applied again, completely, when the page reloads" in text
        )
        assert page.evaluate(READ_OPFS, WORKSPACE_OPFS + "notes/hive.md") == ""  # the held file: unchanged
        assert page.evaluate(READ_OPFS, "tidepool/restore/plan.json") is not None  # the staged copy is kept

        assert page.evaluate(TELL_LOCKER, [LOCK_WORKER, "release"]) == "released"
        page.reload()  # applies the staged copy again, then reloads once more to read it all
        expect(report).to_have_attribute("data-state", "ok", timeout=RESTORE_TIMEOUT_MS)
        expect(report).to_contain_text("Restored (completed at the reload)")
        wait_ready(page)
        assert page.evaluate(READ_OPFS, WORKSPACE_OPFS + "notes/hive.md") == NOTE
        assert page.evaluate(READ_OPFS, WORKSPACE_OPFS + "frames.bin") is not None
        assert page.evaluate(READ_OPFS, "tidepool/restore/plan.json") is None  # staging removed once applied
        expect(page.get_by_test_id("session-entry").filter(has_text="Log the hive inspection")).to_have_count(1)


def _zip(files: dict[str, bytes], manifest: dict[str, object] | None = None, level: int = zipfile.ZIP_STORED) -> bytes:
    entries = [{"path": p, "size": len(d), "sha256": hashlib.sha256(d).hexdigest()} for p, d in files.items()]
    body = (
        manifest
        if manifest is not None
        else {"format": "tidepool.backup", "format_version": 1, "app_version": "0.1.0", "entries": entries}
    )
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", compression=level) as archive:
        for path, data in files.items():
            archive.writestr(path, data)
        archive.writestr("manifest.json", json.dumps(body))
    return out.getvalue()


STATE = json.dumps({"format": "tidepool.state", "version": 1, "schema": 1, "sessions": [], "memories": []}).encode()


def _hostile(good: bytes) -> dict[str, tuple[bytes, str]]:
    listed = {"state.json": STATE, "workspace/a.txt": b"one"}
    entries = [{"path": p, "size": len(d), "sha256": hashlib.sha256(d).hexdigest()} for p, d in listed.items()]
    (entries[1])["sha256"] = "0" * 64
    return {
        "traversal.zip": (_zip({"state.json": STATE, "workspace/../../evil.txt": b"x"}), "leaves its folder"),
        "altered.zip": (_zip(listed, {"format": "tidepool.backup", "format_version": 1, "entries": entries}), "sha256"),
        "bomb.zip": (
            _zip({"state.json": STATE, "workspace/zeros.bin": bytes(64 * 1024 * 1024)}, level=zipfile.ZIP_DEFLATED),
            "zip bomb",
        ),
        "truncated.zip": (good[: len(good) // 2], "cut short"),
        "foreign.zip": (_zip({"readme.txt": b"hello"}, {"format": "something-else"}), "not a Tidepool backup"),
        "newer.zip": (
            _zip({"state.json": STATE}, {"format": "tidepool.backup", "format_version": 9, "entries": []}),
            "newer Tidepool",
        ),
        "not-a-zip.zip": (b"plain text, not a zip", "not a zip"),
    }


def test_hostile_and_damaged_files_are_refused_whole_and_change_nothing(
    backup: bytes, browser: Browser, server: str, tmp_path: Path
) -> None:
    with running_app(browser, server + "/") as app:
        page: Page = app.page
        wait_ready(page)
        expect(page.get_by_test_id("session-entry")).to_have_count(1)  # the fresh chat, listed soon after ready
        open_profile(page)
        sessions_before = page.get_by_test_id("session-entry").count()
        for name, (data, reason) in _hostile(backup).items():
            choose(page, tmp_path, name, data)
            report = page.get_by_test_id("backup-report")
            expect(report).to_have_attribute("data-state", "rejected", timeout=RESTORE_TIMEOUT_MS)
            expect(report).to_contain_text(reason)
            expect(report).to_contain_text("Nothing was restored")
            expect(page.get_by_test_id("backup-preview")).to_be_hidden()
        assert page.get_by_test_id("session-entry").count() == sessions_before
        page.get_by_test_id("files-open").click()
        expect(page.locator('[data-testid="file-entry"]')).to_have_count(0)
        staged = page.evaluate(
            "async () => { const r = await navigator.storage.getDirectory();"
            " const a = await r.getDirectoryHandle('tidepool');"
            " try { await a.getDirectoryHandle('restore'); return true } catch { return false } }"
        )
        assert staged is False  # what was staged as it was checked is gone with the refusal


def test_a_week_without_a_backup_is_reminded_until_one_is_made(browser: Browser, server: str) -> None:
    with running_app(browser, server + "/") as app:
        page = app.page
        wait_ready(page)
        expect(page.get_by_test_id("backup-reminder")).to_be_hidden()  # nothing changed yet
        eight_days = 8 * 24 * 3600 * 1000
        page.evaluate("(ago) => localStorage.setItem('tidepool.backup.changed', String(Date.now() - ago))", eight_days)
        page.reload()
        wait_ready(page)
        reminder = page.get_by_test_id("backup-reminder")
        expect(reminder).to_be_visible()
        reminder.get_by_test_id("backup-reminder-open").click()
        expect(page.get_by_test_id("backup-export")).to_be_visible()
        export_backup(page)
        page.reload()
        wait_ready(page)
        expect(page.get_by_test_id("backup-reminder")).to_be_hidden()

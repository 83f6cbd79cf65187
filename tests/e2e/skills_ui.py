"""Driving the skills panel through its `data-testid`s: open it, find entries, import, remove."""

from __future__ import annotations

from pathlib import Path

from playwright.sync_api import Dialog, Locator, Page, expect

IMPORT_TIMEOUT_MS = 60_000


def open_skills(page: Page) -> None:
    if not page.get_by_test_id("skill-import-input").is_visible():
        page.get_by_test_id("skills-open").click()
    expect(page.get_by_test_id("skill-import-input")).to_be_visible()


def entries(page: Page) -> Locator:
    return page.get_by_test_id("skill-entry")


def entry(page: Page, name: str) -> Locator:
    return page.locator(f'[data-testid="skill-entry"][data-name="{name}"]')


def answer_dialogs(page: Page, accept: bool, seen: list[str]) -> None:
    def handle(dialog: Dialog) -> None:
        seen.append(dialog.message)
        dialog.accept() if accept else dialog.dismiss()

    page.once("dialog", handle)


def remove_all(page: Page) -> None:
    for name in [e.get_attribute("data-name") for e in entries(page).all()]:
        answer_dialogs(page, True, [])
        entry(page, name or "").get_by_test_id("skill-remove").click()
        expect(entry(page, name or "")).to_have_count(0)


def import_archive(page: Page, path: Path, state: str) -> Locator:
    """Choose `path` in the file input; wait for its report with `data-state` = `state`."""
    page.get_by_test_id("skill-import-input").set_input_files(str(path))
    report = page.get_by_test_id("skill-import-report")
    expect(report).to_be_visible(timeout=IMPORT_TIMEOUT_MS)
    expect(report).to_contain_text(path.name)
    expect(report).to_have_attribute("data-state", state)
    return report

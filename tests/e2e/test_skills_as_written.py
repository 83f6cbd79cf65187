"""Skills as people write them, through the skills panel: frontmatter beyond the spec's simple fields
(Claude Code's `hooks:`, a flow-map `metadata`, an unquoted colon, a name that does not follow the spec)
imports with warnings instead of being skipped; `allowed-tools` is shown with the names that are not
tools here flagged; a `.skill` file is accepted by the file picker."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Locator, Page, expect

from scripts.fakes.fake_llm import FakeLLM
from tests import skill_archives
from tests.e2e.conftest import KEY, RESULTS, App
from tests.e2e.skills_ui import entries, entry, import_archive, open_skills, remove_all
from tests.e2e.ui import REPLY_TIMEOUT_MS, wait_ready

PHONE = {"width": 390, "height": 844}


@pytest.fixture
def page(connected_app: App, fake: FakeLLM) -> Iterator[Page]:
    """The module's page with no skill installed and the skills panel open."""
    fake.reset(api_key=KEY)
    page = connected_app.page
    wait_ready(page)
    open_skills(page)
    remove_all(page)
    size = page.viewport_size
    yield page
    if size is not None:
        page.set_viewport_size(size)


def screenshots(page: Page, name: str, shown: Locator) -> None:
    """The panel scrolled to `shown`, on a desktop and on a phone-sized screen, in test-results/."""
    RESULTS.mkdir(exist_ok=True)
    shown.scroll_into_view_if_needed()
    page.screenshot(path=str(RESULTS / f"{name}-desktop.png"))
    size = page.viewport_size
    page.set_viewport_size(PHONE)
    shown.scroll_into_view_if_needed()
    page.screenshot(path=str(RESULTS / f"{name}-phone.png"))
    if size is not None:
        page.set_viewport_size(size)


def test_skills_as_people_write_them_import_with_warnings_and_flagged_tools(page: Page, tmp_path: Path) -> None:
    path = skill_archives.people_skills_zip().write(tmp_path)
    report = import_archive(page, path, "ok")
    expect(report).to_contain_text("Installed 2 skills")
    expect(report.get_by_test_id("skill-warning").filter(has_text="PDF Tools")).to_have_attribute(
        "data-code", "invalid-name"
    )
    expect(entries(page)).to_have_count(2, timeout=REPLY_TIMEOUT_MS)

    pdf = entry(page, "pdf-tools")  # "PDF Tools" does not follow the spec: kept under a safe name
    expect(pdf.get_by_test_id("skill-warning")).to_have_count(1)
    expect(pdf.get_by_test_id("skill-warning")).to_have_attribute("data-code", "invalid-name")
    expect(pdf.get_by_test_id("skill-warning")).to_contain_text("'PDF Tools'")
    expect(pdf).to_contain_text("Reads PDFs: text, tables and forms.")  # a folded block scalar
    expect(pdf.get_by_test_id("skill-allowed-tools")).to_have_count(0)

    deploy = entry(page, "safe-deploy")
    tools = deploy.get_by_test_id("skill-allowed-tools")
    expect(tools).to_contain_text("read_file")
    expect(tools).to_contain_text("run_python")
    unknown = deploy.get_by_test_id("skill-unknown-tool")
    expect(unknown).to_have_count(1)
    expect(unknown).to_have_attribute("data-tool", "Bash(git status:*)")
    expect(tools).to_have_attribute("data-unknown", "1")
    codes = deploy.get_by_test_id("skill-warning")
    expect(codes).to_have_count(2)
    expect(codes.nth(0)).to_have_attribute("data-code", "unquoted-colon")
    expect(codes.nth(1)).to_have_attribute("data-code", "unknown-field")
    expect(codes.nth(1)).to_contain_text("'hooks'")
    expect(deploy).to_contain_text("Use this when: the user asks to ship (see docs/deploy.md)")
    screenshots(page, "skills-as-written", deploy)


def test_a_dot_skill_file_is_chosen_and_imported(page: Page, tmp_path: Path) -> None:
    accept = page.get_by_test_id("skill-import-input").get_attribute("accept") or ""
    assert ".skill" in accept.split(","), accept
    path = skill_archives.dot_skill_file().write(tmp_path)
    report = import_archive(page, path, "ok")
    expect(report).to_contain_text("Installed 1 skill: meeting-notes.")
    expect(entry(page, "meeting-notes")).to_have_attribute("data-enabled", "true")
    expect(entry(page, "meeting-notes").get_by_test_id("skill-warning")).to_have_count(0)

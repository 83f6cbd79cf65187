"""A workspace already in OPFS before the app starts (seeded as a person's earlier work would be): boot
reads none of it, and yet the agent's tools, the files panel and run_python all see the same files, on
demand; an edit made by a tool is in OPFS after a reload."""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Locator, Page, expect

from runtime.prompts.workspace_map import workspace_map
from scripts.benchlib.common import BLANK, seed_opfs
from scripts.fakes.fake_llm import FakeLLM
from scripts.fakes.replies import Reply
from tests.e2e.conftest import KEY, MODEL, App, running_app
from tests.e2e.ui import REPLY_TIMEOUT_MS, connect_openrouter, last_message, send, wait_ready

RUN_TIMEOUT_MS = 120_000
NOTES = "# Plan\nalpha\nbeta\n"
SEEDED = 1_000  # filler files in seed/d000 … seed/d009, 100 each


def b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


@pytest.fixture(scope="module")
def seeded(browser: Browser, server: str, fake: FakeLLM) -> Iterator[App]:
    fake.reset(api_key=KEY)
    with running_app(browser, server + BLANK) as app:
        files = {"files/project/notes.md": b64(NOTES), "files/project/data/table.csv": b64("a,b\n1,2\n")}
        seed_opfs(app.page, server, {"prefix": "seed", "count": SEEDED, "perDir": 100, "bytes": 32, "files": files})
        app.page.goto(server + "/")
        wait_ready(app.page)
        connect_openrouter(app.page, f"{fake.base_url}/api/v1", KEY, MODEL)
        app.page.get_by_test_id("permission-mode").select_option("full-auto")
        yield app


def use(page: Page, fake: FakeLLM, tool: str, args: dict[str, object]) -> str:
    """The fake calls `tool` with `args` (no approval in full-auto), then says Done; the card's result."""
    cards = page.locator(f'[data-testid="tool-call"][data-tool="{tool}"]')
    before = cards.count()
    fake.script([Reply.tool_call(tool, args), Reply.text("Done.")])
    send(page, f"Please use {tool}")
    card: Locator = cards.nth(before)
    expect(card).to_have_attribute("data-status", re.compile("^(ok|error)$"), timeout=RUN_TIMEOUT_MS)
    expect(last_message(page, "assistant")).to_have_text("Done.", timeout=REPLY_TIMEOUT_MS)
    wait_ready(page)
    expect(card).to_have_attribute("data-status", "ok")
    return card.locator(".tool-result").text_content() or ""


def open_file(page: Page, path: str) -> Locator:
    button = page.get_by_test_id("files-open")
    if button.get_attribute("aria-expanded") != "true":
        button.click()
    page.locator(f'[data-testid="file-entry"][data-path="{path}"][data-kind="file"]').click()
    return page.get_by_test_id("file-viewer")


def test_the_prompts_map_listed_on_demand_is_the_map_of_the_whole_workspace(
    seeded: App, fake: FakeLLM, tmp_path: Path
) -> None:
    # The same tree on disk, all present: the map the prompt must show (the runtime lists only the folders
    # its walk reads: tests/unit/runtime/test_workspace_fetch.py).
    for rel, text in (("project/notes.md", NOTES), ("project/data/table.csv", "a,b\n1,2\n")):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    for i in range(SEEDED):
        (tmp_path / f"seed/d{i // 100:03}").mkdir(parents=True, exist_ok=True)
        (tmp_path / f"seed/d{i // 100:03}/f{i}.txt").write_text("x")
    lines, truncated = workspace_map(tmp_path)
    assert truncated and "seed/d000/f0.txt" in lines and "seed/d009/" in lines
    fake.script([Reply.text("Mapped.")])
    send(seeded.page, "What is in the workspace?")
    expect(last_message(seeded.page, "assistant")).to_have_text("Mapped.", timeout=REPLY_TIMEOUT_MS)
    prompt = fake.requests_to("/api/v1/chat/completions", "POST")[-1].json()["messages"][0]["content"]
    shown = prompt.split("A partial map of the workspace")[1].split("```")[1].strip().splitlines()
    assert shown == [json.dumps(line) for line in lines]


def test_the_agent_lists_reads_and_edits_a_file_that_was_there_before_boot(seeded: App, fake: FakeLLM) -> None:
    page = seeded.page
    listed = use(page, fake, "list_files", {"path": "project"})
    assert "notes.md" in listed and "data" in listed
    assert "beta" in use(page, fake, "read_file", {"path": "project/notes.md"})
    use(page, fake, "edit_file", {"path": "project/notes.md", "old_text": "beta", "new_text": "gamma"})
    assert "gamma" in use(page, fake, "read_file", {"path": "project/notes.md"})


def test_the_files_panel_lists_and_opens_the_same_files(seeded: App) -> None:
    page = seeded.page
    expect(open_file(page, "project/data/table.csv")).to_have_text("a,b\n1,2\n")
    expect(page.locator('[data-testid="file-entry"][data-path="seed/d009/f999.txt"]')).to_have_count(1)
    expect(open_file(page, "project/notes.md")).to_have_text(NOTES.replace("beta", "gamma"))


def test_run_python_sees_the_seeded_tree(seeded: App, fake: FakeLLM) -> None:
    code = (
        "import os\n"
        "print(open('project/notes.md').read().split()[-1])\n"
        "print(sum(len(files) for _, _, files in os.walk('seed')))\n"
    )
    out = use(seeded.page, fake, "run_python", {"code": code})
    assert "gamma" in out and str(SEEDED) in out


def test_an_edit_survives_a_reload(seeded: App) -> None:
    page = seeded.page
    page.reload()
    wait_ready(page)
    expect(open_file(page, "project/notes.md")).to_have_text(NOTES.replace("beta", "gamma"), timeout=REPLY_TIMEOUT_MS)
    expect(open_file(page, "project/data/table.csv")).to_have_text("a,b\n1,2\n")

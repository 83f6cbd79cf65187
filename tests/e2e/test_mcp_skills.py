"""Skills published by a tool server (the MCP skills extension) through the UI, against the Python test
server on the official SDK with ``--skills`` (three skills; ``tampered``'s manifest gives a file the
wrong digest). The server's entry lists "Skills (3)"; importing one reads and checks every file and
hands the archive to the skill importer, whose report says what became of it: ``greeting`` is installed
with its files and its origin, which the model is told; ``tampered`` is refused with the reason and
nothing is added."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Locator, Page, expect

from scripts.fakes.fake_llm import FakeLLM
from scripts.fakes.replies import Reply
from scripts.mcp.launch import python_server
from tests.e2e.conftest import App
from tests.e2e.skills_ui import IMPORT_TIMEOUT_MS, entries, open_skills, remove_all
from tests.e2e.skills_ui import entry as skill_entry
from tests.e2e.ui import REPLY_TIMEOUT_MS, eventually, send_for_reply, wait_ready

CONNECT_TIMEOUT_MS = 30_000
COMPLETIONS = "/api/v1/chat/completions"


@pytest.fixture(scope="module")
def skills_server(server: str) -> Iterator[str]:
    with python_server([server], skills=True) as url:
        yield url


@pytest.fixture(scope="module")
def docs(connected_app: App, skills_server: str) -> str:
    """The skills server added once for the module as `docs`, connected."""
    page = connected_app.page
    wait_ready(page)
    open_servers(page)
    page.get_by_test_id("tool-server-name").fill("docs")
    page.get_by_test_id("tool-server-url").fill(skills_server)
    page.get_by_test_id("tool-server-add").click()
    expect(server_entry(page)).to_have_attribute("data-state", "connected", timeout=CONNECT_TIMEOUT_MS)
    return skills_server


def open_servers(page: Page) -> None:
    if not page.get_by_test_id("tool-server-add").is_visible():
        page.get_by_test_id("tool-servers-open").click()
    expect(page.get_by_test_id("tool-server-add")).to_be_visible()


def server_entry(page: Page) -> Locator:
    return page.locator('[data-testid="tool-server-entry"][data-name="docs"]')


def import_from_server(page: Page, name: str) -> Locator:
    """Click the skill's Import in the server's entry; the skills panel opens with the import report."""
    open_servers(page)
    skill = server_entry(page).locator(f'[data-testid="tool-server-skill"][data-name="{name}"]')
    skill.get_by_test_id("tool-server-skill-import").click()
    report = page.get_by_test_id("skill-import-report")
    expect(report).to_be_visible(timeout=IMPORT_TIMEOUT_MS)
    return report


def test_server_lists_its_skills(chat: Page, docs: str) -> None:
    open_servers(chat)
    skills = server_entry(chat).get_by_test_id("tool-server-skills")
    expect(skills).to_contain_text("Skills (3)", timeout=CONNECT_TIMEOUT_MS)
    names = skills.get_by_test_id("tool-server-skill")
    expect(names).to_have_count(3)
    assert [n.get_attribute("data-name") for n in names.all()] == ["greeting", "haiku", "tampered"]
    expect(names.first).to_contain_text("3 files")


def test_import_installs_the_skill_with_its_files_and_origin(chat: Page, fake: FakeLLM, docs: str) -> None:
    open_skills(chat)
    remove_all(chat)
    report = import_from_server(chat, "greeting")
    expect(report).to_have_attribute("data-state", "ok", timeout=IMPORT_TIMEOUT_MS)
    expect(report).to_contain_text("greeting")
    installed = skill_entry(chat, "greeting")
    expect(installed).to_have_count(1)
    expect(installed.locator(".skill-origin")).to_have_text("From the tool server docs: skill://greeting/SKILL.md")
    installed.get_by_test_id("skill-show").click()
    detail = installed.get_by_test_id("skill-detail")
    expect(detail).to_contain_text("references/phrases.md")
    expect(detail).to_contain_text("scripts/hello.py")

    # The model's catalog tells it apart from the person's own skills.
    fake.script([Reply.text("Done.")])
    before = len(fake.requests_to(COMPLETIONS))
    expect(send_for_reply(chat, "Which skills do you have?")).to_contain_text("Done.", timeout=REPLY_TIMEOUT_MS)
    eventually(chat, lambda: len(fake.requests_to(COMPLETIONS)) > before, what="the chat request")
    system = " ".join(
        str(m.get("content")) for m in fake.requests_to(COMPLETIONS)[-1].json()["messages"] if m.get("role") == "system"
    )
    assert "<origin>the tool server 'docs' (skill://greeting/SKILL.md)</origin>" in system, system[-2000:]


def test_a_wrong_digest_refuses_the_skill_whole(chat: Page, docs: str) -> None:
    open_skills(chat)
    before = [e.get_attribute("data-name") for e in entries(chat).all()]
    report = import_from_server(chat, "tampered")
    expect(report).to_have_attribute("data-state", "rejected", timeout=IMPORT_TIMEOUT_MS)
    expect(report).to_contain_text("The skill tampered was refused: notes.md does not match its digest")
    expect(skill_entry(chat, "tampered")).to_have_count(0)
    assert [e.get_attribute("data-name") for e in entries(chat).all()] == before

"""Agent profiles in the real app: the Agents panel lists the built-ins and a Claude Code subagent file
already in the workspace (its Bash left out, with why) and a broken file with why; a profile created in
the panel is a file, the chat picks it with agent-select, the fake provider's request then offers only
its tools, a call to another tool is refused, and the choice survives a reload."""

from __future__ import annotations

import base64
import json

from playwright.sync_api import Browser, Locator, Page, expect

from scripts.benchlib.common import BLANK, seed_opfs
from scripts.fakes.fake_llm import FakeLLM
from scripts.fakes.replies import Reply
from tests.e2e.conftest import KEY, MODEL, RESULTS, running_app
from tests.e2e.ui import REPLY_TIMEOUT_MS, connect_openrouter, eventually, send_for_reply, wait_ready

COMPLETIONS = "/api/v1/chat/completions"
REVIEWER = (
    "---\nname: code-reviewer\ndescription: Use this agent when: code needs a review\n"
    "tools: Read, Grep, Glob, Bash\nmodel: sonnet\n---\nYou review code.\n"
)


def b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


def entry(page: Page, name: str) -> Locator:
    return page.locator(f'[data-testid="agent-entry"][data-name="{name}"]')


def create_profile(page: Page) -> None:
    panel = page.locator(".side-panel-agents")
    panel.get_by_role("button", name="New profile").click()
    form = panel.locator(".agent-form")
    form.get_by_label("Name", exact=True).fill("notes-reader")
    form.get_by_label("Description", exact=True).fill("Reads notes and says what they hold.")
    form.get_by_label("Every tool the chat has").uncheck()
    form.get_by_label("read_file", exact=True).check()
    form.get_by_label("list_files", exact=True).check()
    form.get_by_label("Prompt", exact=True).fill("You only read notes.")
    form.get_by_role("button", name="Save profile").click()
    expect(entry(page, "notes-reader")).to_have_attribute("data-builtin", "false")
    expect(entry(page, "notes-reader")).to_contain_text("Tools: list_files, read_file")


def test_profiles_panel_select_and_narrowed_request(browser: Browser, server: str, fake: FakeLLM) -> None:
    fake.reset(api_key=KEY)
    files = {
        "files/.agents/agents/code-reviewer.md": b64(REVIEWER),
        "files/.agents/agents/broken.md": b64("no frontmatter here"),
    }
    with running_app(browser, server + BLANK) as app:
        page = app.page
        seed_opfs(page, server, {"files": files})
        page.goto(server + "/")
        wait_ready(page)
        connect_openrouter(page, f"{fake.base_url}/api/v1", KEY, MODEL)
        page.get_by_test_id("permission-mode").select_option("ask")

        page.get_by_test_id("agents-open").click()
        expect(page.get_by_test_id("agent-entry")).to_have_count(5)
        for name in ("general", "explore", "researcher", "worker"):
            expect(entry(page, name)).to_have_attribute("data-builtin", "true")
        reviewer = entry(page, "code-reviewer")
        expect(reviewer).to_have_attribute("data-builtin", "false")
        expect(reviewer).to_contain_text("Tools: read_file, search_files, list_files")
        expect(reviewer).to_contain_text("Bash (Claude Code) has no equivalent here")
        expect(page.locator(".agent-problem")).to_contain_text("broken.md cannot be used")
        create_profile(page)
        RESULTS.mkdir(exist_ok=True)
        page.screenshot(path=str(RESULTS / "agent-profiles.png"))
        page.get_by_test_id("agents-open").click()  # closes it

        select = page.get_by_test_id("agent-select")
        select.select_option("notes-reader")
        expect(select).to_have_value("notes-reader")
        fake.script(
            [Reply.tool_call("write_file", {"path": "x.md", "content": "no"}), Reply.text("Done, only read.")]
        )
        reply = send_for_reply(page, "Write x.md")
        expect(reply).to_contain_text("Done, only read.", timeout=REPLY_TIMEOUT_MS)
        eventually(page, lambda: len(fake.requests_to(COMPLETIONS)) >= 2, what="two chat requests")
        first, second = (r.json() for r in fake.requests_to(COMPLETIONS)[:2])
        assert [t["function"]["name"] for t in first["tools"]] == ["list_files", "read_file"]
        system = first["messages"][0]["content"]
        assert "<agent_profile>\nYou only read notes.\n</agent_profile>" in system, system
        refused = [m for m in second["messages"] if m.get("role") == "tool"][-1]
        assert "there is no tool 'write_file'" in json.dumps(refused["content"])
        wait_ready(page)

        page.reload()
        wait_ready(page)
        expect(page.get_by_test_id("agent-select")).to_have_value("notes-reader")

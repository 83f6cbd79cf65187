"""A hostile SKILL.md already in the workspace before the app starts (written before the frontmatter caps,
or by another tool): boot and the chat are not held up by it, it is left out of the model's catalog, and
the skills panel lists it as skipped with the limit it broke, beside the good skill it still lists."""

from __future__ import annotations

import base64
import time

from playwright.sync_api import Browser, expect

from scripts.benchlib.common import BLANK, seed_opfs
from scripts.fakes.fake_llm import FakeLLM
from scripts.fakes.replies import Reply
from tests import skill_archives
from tests.e2e.conftest import KEY, MODEL, RESULTS, running_app
from tests.e2e.skills_ui import entries, entry, open_skills
from tests.e2e.test_skills import catalog_of, chat_turn, prompt_of
from tests.e2e.ui import connect_openrouter, wait_ready

GOOD = "---\nname: good\ndescription: A fine skill.\n---\nBody.\n"


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def test_a_hostile_skill_md_in_the_workspace_is_skipped_and_the_chat_answers(
    browser: Browser, server: str, fake: FakeLLM
) -> None:
    fake.reset(api_key=KEY)
    hostile = skill_archives.many_keys_skill_md("hostile", keys=100_000)  # about 1 MB: 462 s of chat stall before
    files = {
        "files/.agents/skills/hostile/SKILL.md": b64(hostile),
        "files/.agents/skills/good/SKILL.md": b64(GOOD.encode()),
    }
    with running_app(browser, server + BLANK) as app:
        page = app.page
        seed_opfs(page, server, {"files": files})
        page.goto(server + "/")
        wait_ready(page)
        connect_openrouter(page, f"{fake.base_url}/api/v1", KEY, MODEL)
        fake.script([Reply.text("Done.")])
        started = time.monotonic()
        chat_turn(page, fake, "Which skills do you have?", 1)
        assert time.monotonic() - started < 30, "the turn waited on the hostile SKILL.md"
        catalog = catalog_of(prompt_of(fake, 0))
        assert "good" in catalog and "hostile" not in catalog, catalog
        open_skills(page)
        expect(entry(page, "good")).to_have_count(1)
        expect(entries(page)).to_have_count(1)
        skipped = page.locator('[data-testid="skill-skipped"][data-folder="hostile"]')
        expect(skipped).to_contain_text("64 KiB")
        RESULTS.mkdir(exist_ok=True)
        page.screenshot(path=str(RESULTS / "skills-skipped.png"))

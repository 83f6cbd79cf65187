"""The skills panel through the UI: archive imports (file input, URL through /api/proxy), the import
report, confirm-before-replace, show / enable / disable / remove, and what the model sees (the fake's
recorded requests): the catalog only, the body after `activate_skill` or `/skill-name`, nothing when
disabled."""

from __future__ import annotations

import base64
import functools
import io
import threading
import zipfile
from collections.abc import Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from runtime.host.constants import MAX_FRAME_BYTES
from scripts.fakes.fake_llm import FakeLLM
from scripts.fakes.replies import Reply
from tests import skill_archives
from tests.e2e.conftest import KEY, RESULTS, App
from tests.e2e.skills_ui import (
    IMPORT_TIMEOUT_MS,
    answer_dialogs,
    entries,
    entry,
    import_archive,
    open_skills,
    remove_all,
)
from tests.e2e.ui import REPLY_TIMEOUT_MS, eventually, send_for_reply, wait_ready

REPO_SKILLS = sorted(skill_archives.REPO_SKILLS)
BRAND_BODY = skill_archives.BRAND_BODY
COMPLETIONS = "/api/v1/chat/completions"


@pytest.fixture(scope="module")
def archives(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder holding every real-shaped skill archive (built by the tests) and a README that is not one."""
    folder = tmp_path_factory.mktemp("archives")
    for archive in skill_archives.all_archives().values():
        archive.write(folder)
    (folder / "README.md").write_text("# Skills\n\nNot an archive.\n")
    return folder


@pytest.fixture
def page(connected_app: App, fake: FakeLLM) -> Page:
    """The module's page with no skill installed and the skills panel open."""
    fake.reset(api_key=KEY)
    page = connected_app.page
    wait_ready(page)
    open_skills(page)
    remove_all(page)
    return page


@pytest.fixture
def archive_server(archives: Path) -> Iterator[str]:
    """The archives served over http://127.0.0.1 (fetched by the app's proxy, not the browser)."""
    handler = functools.partial(SimpleHTTPRequestHandler, directory=str(archives))
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.1}, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(timeout=5)


def evil_zip(path: Path) -> Path:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("good/SKILL.md", "---\nname: good\ndescription: A fine skill.\n---\nBody.\n")
        archive.writestr("../evil/SKILL.md", "---\nname: evil\ndescription: Escapes.\n---\nGotcha.\n")
    path.write_bytes(buffer.getvalue())
    return path


# --- what the model saw ------------------------------------------------------------------------


def texts(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, list):
        for item in value:
            yield from texts(item)
    elif isinstance(value, dict):
        for item in value.values():
            yield from texts(item)


def prompt_of(fake: FakeLLM, index: int) -> str:
    """The texts of the `index`-th chat request that belong to this turn: the system prompt and the
    messages from the last user message on (earlier turns of the shared session are left out)."""
    messages = fake.requests_to(COMPLETIONS)[index].json()["messages"]
    users = [i for i, m in enumerate(messages) if m.get("role") == "user"]
    system = [m for m in messages if m.get("role") == "system"]
    return "\n".join(texts(system + messages[users[-1] if users else 0 :]))


def catalog_of(prompt: str) -> str:
    start, end = prompt.find("<available_skills>"), prompt.find("</available_skills>")
    return prompt[start:end] if 0 <= start < end else ""


def chat_turn(page: Page, fake: FakeLLM, text: str, requests: int) -> None:
    """Send `text` and wait for the final reply and `requests` chat requests in all."""
    reply = send_for_reply(page, text)
    expect(reply).to_contain_text("Done.", timeout=REPLY_TIMEOUT_MS)
    eventually(page, lambda: len(fake.requests_to(COMPLETIONS)) >= requests, what=f"{requests} chat requests")
    wait_ready(page)


# --- tests -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("archive", "names"),
    [
        pytest.param("brand-guidelines.zip", ["brand-guidelines"], id="one-skill-zip"),
        pytest.param("internal-comms.zip", ["internal-comms"], id="skill-with-references"),
        pytest.param("theme-factory.tar.gz", ["theme-factory"], id="tar-gz-with-binary"),
        pytest.param("anthropic-skills-main.zip", REPO_SKILLS, id="repository-archive"),
    ],
)
def test_fixture_archive_imports(page: Page, archive: str, names: list[str], archives: Path) -> None:
    report = import_archive(page, archives / archive, "ok")
    expect(entries(page)).to_have_count(len(names), timeout=REPLY_TIMEOUT_MS)
    for name in names:
        expect(entry(page, name)).to_have_attribute("data-enabled", "true")
        expect(report.locator(f'.skill-outcome[data-name="{name}"]')).to_have_attribute("data-status", "installed")
    expect(report).to_contain_text(f"Installed {len(names)} skill")
    expect(report.locator(".skill-compat")).to_have_count(len(names))
    RESULTS.mkdir(exist_ok=True)
    page.screenshot(path=str(RESULTS / f"skills-{archive.split('.')[0]}.png"))


def test_hostile_archive_is_rejected(page: Page, tmp_path: Path) -> None:
    report = import_archive(page, evil_zip(tmp_path / "evil.zip"), "rejected")
    expect(report).to_contain_text("Rejected")
    expect(report).to_contain_text("parent-reference")
    expect(entries(page)).to_have_count(0)
    page.screenshot(path=str(RESULTS / "skills-rejected.png"))


def test_invalid_skill_is_skipped_with_its_reason(page: Page, tmp_path: Path) -> None:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("repo/good/SKILL.md", "---\nname: good\ndescription: A fine skill.\n---\nBody.\n")
        archive.writestr("repo/bad/SKILL.md", "no frontmatter at all\n")
    path = tmp_path / "mixed.zip"
    path.write_bytes(buffer.getvalue())
    report = import_archive(page, path, "partial")
    expect(report.locator('.skill-outcome[data-status="installed"]')).to_have_attribute("data-name", "good")
    skipped = report.locator('.skill-outcome[data-status="skipped"]')
    expect(skipped).to_have_count(1)
    expect(skipped.locator(".skill-outcome-reason")).not_to_be_empty()
    expect(entries(page)).to_have_count(1)
    page.screenshot(path=str(RESULTS / "skills-partial.png"))


def test_a_skill_with_60k_frontmatter_keys_is_rejected_quickly_and_the_chat_answers(
    page: Page, fake: FakeLLM, tmp_path: Path
) -> None:
    # Before the frontmatter caps this import took 55 s and every later turn stalled 45 s on the catalog.
    path = skill_archives.many_keys_skill().write(tmp_path)
    page.get_by_test_id("skill-import-input").set_input_files(str(path))
    report = page.get_by_test_id("skill-import-report")
    expect(report).to_have_attribute("data-state", "rejected", timeout=20_000)
    expect(report).to_contain_text("64 KiB")
    expect(entries(page)).to_have_count(0)
    fake.script([Reply.text("Done.")])
    chat_turn(page, fake, "Still there?", 1)
    assert "many-keys" not in catalog_of(prompt_of(fake, 0))


SCRIPTED_SKILLS = {
    "runner/SKILL.md": "---\nname: runner\ndescription: Runs a pure-Python script.\n---\nRun scripts/go.py.\n",
    "runner/scripts/go.py": "import json\nprint(json.dumps({'ok': True}))\n",
    "shell/SKILL.md": "---\nname: shell\ndescription: Needs a shell.\n---\nRun scripts/x.sh.\n",
    "shell/scripts/x.sh": "#!/bin/sh\necho hi\n",
}


@pytest.mark.parametrize(
    ("name", "verdict", "words"),
    [
        pytest.param("runner", "runnable", "can run in the browser", id="pure-python-script"),
        pytest.param("shell", "instructions-only", "cannot run in the browser", id="shell-script"),
    ],
)
def test_report_says_whether_scripts_run(page: Page, tmp_path: Path, name: str, verdict: str, words: str) -> None:
    path = tmp_path / "scripted.zip"
    with zipfile.ZipFile(path, "w") as archive:
        for member, text in SCRIPTED_SKILLS.items():
            archive.writestr(member, text)
    report = import_archive(page, path, "ok")
    compat = report.locator(f'.skill-outcome[data-name="{name}"] .skill-compat')
    expect(compat).to_have_attribute("data-verdict", verdict)
    expect(compat).to_contain_text(words)


def test_skills_survive_a_reload(page: Page, archives: Path) -> None:
    import_archive(page, archives / "brand-guidelines.zip", "ok")
    entry(page, "brand-guidelines").get_by_test_id("skill-toggle").uncheck()
    expect(entry(page, "brand-guidelines")).to_have_attribute("data-enabled", "false")
    page.reload()
    wait_ready(page)
    open_skills(page)
    expect(entry(page, "brand-guidelines")).to_have_attribute("data-enabled", "false", timeout=REPLY_TIMEOUT_MS)


def test_removed_then_reimported_skill_is_enabled(page: Page, archives: Path) -> None:
    import_archive(page, archives / "brand-guidelines.zip", "ok")
    entry(page, "brand-guidelines").get_by_test_id("skill-toggle").uncheck()
    expect(entry(page, "brand-guidelines")).to_have_attribute("data-enabled", "false")
    remove_all(page)
    import_archive(page, archives / "brand-guidelines.zip", "ok")
    expect(entry(page, "brand-guidelines")).to_have_attribute("data-enabled", "true")


def test_an_archive_larger_than_one_frame_imports_through_the_file_system(page: Page, tmp_path: Path) -> None:
    archive = skill_archives.large_skill_zip()
    assert len(archive.data) > MAX_FRAME_BYTES  # it could not ride in a frame, even without base64
    report = import_archive(page, archive.write(tmp_path), "ok")
    expect(report).to_contain_text("big-assets")
    expect(entry(page, "big-assets")).to_be_visible()
    entry(page, "big-assets").get_by_test_id("skill-show").click()
    expect(entry(page, "big-assets")).to_contain_text("showcase-2.pdf", timeout=REPLY_TIMEOUT_MS)


def test_oversized_archive_is_refused_before_sending(page: Page, tmp_path: Path) -> None:
    big = tmp_path / "huge.zip"
    big.write_bytes(b"PK\x03\x04" + bytes(51 * 1024 * 1024))
    report = import_archive(page, big, "rejected")
    expect(report).to_contain_text("can be imported here")
    expect(entries(page)).to_have_count(0)


def test_not_an_archive_is_rejected(page: Page, tmp_path: Path) -> None:
    bogus = tmp_path / "notes.zip"
    bogus.write_text("just text, not a zip")
    report = import_archive(page, bogus, "rejected")
    expect(report).to_contain_text("unknown-format")
    expect(entries(page)).to_have_count(0)


def test_reimport_asks_before_replacing(page: Page, archives: Path) -> None:
    archive = archives / "brand-guidelines.zip"
    import_archive(page, archive, "ok")
    asked: list[str] = []
    answer_dialogs(page, False, asked)
    report = import_archive(page, archive, "rejected")
    expect(report.locator('.skill-outcome[data-name="brand-guidelines"]')).to_have_attribute("data-status", "exists")
    assert len(asked) == 1 and "brand-guidelines" in asked[0] and "Replace" in asked[0], asked
    answer_dialogs(page, True, asked)
    report = import_archive(page, archive, "ok")
    expect(report.locator('.skill-outcome[data-name="brand-guidelines"]')).to_have_attribute("data-status", "replaced")
    assert len(asked) == 2, asked
    expect(entries(page)).to_have_count(1)


@pytest.mark.parametrize(
    ("name", "state", "expected", "words"),
    [
        pytest.param("internal-comms.zip", "ok", ["internal-comms"], "Installed 1 skill", id="archive-url"),
        pytest.param("missing.zip", "rejected", [], "404", id="not-found-url"),
        pytest.param("README.md", "rejected", [], "not a .zip", id="not-an-archive-url"),
    ],
)
def test_import_from_url(
    page: Page, archive_server: str, name: str, state: str, expected: list[str], words: str
) -> None:
    url = f"{archive_server}/{name}"
    page.get_by_test_id("skill-import-url").fill(url)
    page.get_by_test_id("skill-import-url-submit").click()
    report = page.get_by_test_id("skill-import-report")
    expect(report).to_contain_text(url, timeout=IMPORT_TIMEOUT_MS)
    expect(report).to_have_attribute("data-state", state)
    expect(report).to_contain_text(words)
    expect(entries(page)).to_have_count(len(expected))
    for skill in expected:
        expect(entry(page, skill)).to_be_visible()


DROP_FILES_JS = """
([name, b64]) => {
  const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
  const transfer = new DataTransfer();
  transfer.items.add(new File([bytes], name));
  return transfer;
}
"""


def test_drop_onto_the_panel_imports(page: Page, archives: Path) -> None:
    archive = archives / "theme-factory.tar.gz"
    transfer = page.evaluate_handle(DROP_FILES_JS, [archive.name, base64.b64encode(archive.read_bytes()).decode()])
    target = page.get_by_test_id("skill-import-input")
    target.dispatch_event("dragover", {"dataTransfer": transfer})
    target.dispatch_event("drop", {"dataTransfer": transfer})
    report = page.get_by_test_id("skill-import-report")
    expect(report).to_contain_text(archive.name, timeout=IMPORT_TIMEOUT_MS)
    expect(report).to_have_attribute("data-state", "ok")
    expect(entry(page, "theme-factory")).to_have_attribute("data-enabled", "true")


def test_show_disable_and_remove(page: Page, archives: Path) -> None:
    import_archive(page, archives / "internal-comms.zip", "ok")
    skill = entry(page, "internal-comms")
    skill.get_by_test_id("skill-show").click()
    detail = skill.get_by_test_id("skill-detail")
    expect(detail).to_contain_text("examples/", timeout=REPLY_TIMEOUT_MS)
    expect(detail.locator(".skill-body")).not_to_be_empty()
    skill.get_by_test_id("skill-toggle").uncheck()
    expect(skill).to_have_attribute("data-enabled", "false")
    skill.get_by_test_id("skill-toggle").check()
    expect(skill).to_have_attribute("data-enabled", "true")
    page.screenshot(path=str(RESULTS / "skills-detail.png"))
    asked: list[str] = []
    answer_dialogs(page, False, asked)
    skill.get_by_test_id("skill-remove").click()
    eventually(page, lambda: len(asked) == 1, what="the remove confirmation")
    expect(skill).to_have_count(1)
    answer_dialogs(page, True, asked)
    skill.get_by_test_id("skill-remove").click()
    expect(skill).to_have_count(0)


def test_model_sees_catalog_then_body(page: Page, fake: FakeLLM, archives: Path) -> None:
    import_archive(page, archives / "anthropic-skills-main.zip", "ok")
    fake.script([Reply.text("Done.")])
    chat_turn(page, fake, "What can you do?", 1)
    first = prompt_of(fake, 0)
    catalog = catalog_of(first)
    for name in REPO_SKILLS:
        assert name in catalog, f"{name} missing from the catalog: {catalog[:400]}"
    assert BRAND_BODY not in first, "a skill body reached the model before it was activated"

    fake.script([Reply.tool_call("activate_skill", {"name": "brand-guidelines"}), Reply.text("Done.")])
    chat_turn(page, fake, "Make it look on-brand", 3)
    expect(page.locator('[data-testid="tool-call"][data-tool="activate_skill"]').last).to_have_attribute(
        "data-status", "ok", timeout=REPLY_TIMEOUT_MS
    )
    assert BRAND_BODY not in prompt_of(fake, 1)
    assert BRAND_BODY in prompt_of(fake, 2), "activate_skill did not bring the body into the next request"


def test_slash_command_loads_the_skill(page: Page, fake: FakeLLM, archives: Path) -> None:
    import_archive(page, archives / "brand-guidelines.zip", "ok")
    fake.script([Reply.text("Done.")])
    chat_turn(page, fake, "/brand-guidelines a poster for the launch", 1)
    prompt = prompt_of(fake, 0)
    assert BRAND_BODY in prompt, "/brand-guidelines did not load the skill body into that turn"
    assert "a poster for the launch" in prompt


def test_disabled_skill_leaves_the_catalog(page: Page, fake: FakeLLM, archives: Path) -> None:
    import_archive(page, archives / "anthropic-skills-main.zip", "ok")
    skill = entry(page, "brand-guidelines")
    skill.get_by_test_id("skill-toggle").uncheck()
    expect(skill).to_have_attribute("data-enabled", "false")
    fake.script([Reply.text("Done."), Reply.text("Done.")])
    chat_turn(page, fake, "List your skills", 1)
    catalog = catalog_of(prompt_of(fake, 0))
    assert "internal-comms" in catalog, catalog[:400]
    assert "brand-guidelines" not in catalog, "a disabled skill is still in the catalog"
    chat_turn(page, fake, "/brand-guidelines a poster", 2)
    assert BRAND_BODY not in prompt_of(fake, 1), "/name loaded a disabled skill"


def test_skills_named_in_any_script_install_under_their_names(page: Page, tmp_path: Path) -> None:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("技能/SKILL.md", "---\nname: 技能\ndescription: A skill named in Chinese.\n---\nBody.\n")
        archive.writestr("données/SKILL.md", "---\nname: données\ndescription: Une compétence.\n---\nCorps.\n")
    path = tmp_path / "unicode-names.zip"
    path.write_bytes(buffer.getvalue())
    report = import_archive(page, path, "ok")
    expect(report).to_contain_text("Installed 2 skills")
    for name in ("技能", "données"):  # valid as the reference validator reads them: neither refused nor renamed
        expect(report.locator(f'.skill-outcome[data-name="{name}"]')).to_have_attribute("data-status", "installed")
        expect(entry(page, name)).to_have_attribute("data-enabled", "true", timeout=REPLY_TIMEOUT_MS)
        expect(entry(page, name).get_by_test_id("skill-warning")).to_have_count(0)
    expect(entries(page)).to_have_count(2)

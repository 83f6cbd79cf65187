"""Delegation in the browser, with the fake model scripted to delegate: a worker child's approval is asked
in the chat naming it, its task shows done and opens its session read-only, the parent's model sees the
result and not the transcript; a background task the page reloads under is left stopped.
"""

from __future__ import annotations

from playwright.sync_api import expect

from scripts.fakes.fake_llm import FakeLLM
from scripts.fakes.replies import Reply
from tests.e2e.conftest import App
from tests.e2e.ui import REPLY_TIMEOUT_MS, last_message, send, wait_ready

COMPLETIONS = "/api/v1/chat/completions"


def _tool_names(body: dict[str, object]) -> list[str]:
    return [t["function"]["name"] for t in body.get("tools") or []]  # type: ignore[attr-defined, index]


def test_a_worker_child_asks_in_the_chat_and_its_result_comes_back(asking_app: App, fake: FakeLLM) -> None:
    page = asking_app.page
    task = "Write notes/tide.md saying high water is at 06:12."
    fake.script(
        [
            Reply.tool_call("delegate", {"agent": "worker", "task": task}, call_id="call_d1"),
            Reply.tool_call("write_file", {"path": "notes/tide.md", "content": "High water 06:12\n"}, call_id="w1"),
            Reply.text("I wrote notes/tide.md."),
            Reply.text("The worker wrote the note."),
        ]
    )
    send(page, "Have a worker write the tide note")
    asked = page.locator('[data-testid="tool-call"][data-tool="write_file"]')
    expect(asked).to_have_attribute("data-status", "pending-approval", timeout=REPLY_TIMEOUT_MS)
    expect(asked).to_have_attribute("data-agent", "worker")
    expect(asked).to_contain_text("asked by agent worker")
    asked.get_by_test_id("approval-allow").click()
    expect(last_message(page, "assistant")).to_have_text("The worker wrote the note.", timeout=REPLY_TIMEOUT_MS)
    wait_ready(page)
    entry = page.locator('[data-testid="agent-task"][data-agent="worker"]')
    expect(entry).to_have_attribute("data-status", "done")

    requests = [r.json() for r in fake.requests_to(COMPLETIONS, "POST")]
    assert len(requests) == 4
    child = requests[1]
    assert "delegate" not in _tool_names(child) and "web_fetch" not in _tool_names(child)
    assert "write_file" in _tool_names(child) and "delegate" in _tool_names(requests[0])
    assert child["messages"][-1] == {"role": "user", "content": task}
    last = requests[3]["messages"]
    result = next(m for m in last if m.get("role") == "tool" and m.get("tool_call_id") == "call_d1")
    assert "Files changed: notes/tide.md." in result["content"] and "I wrote notes/tide.md." in result["content"]
    assert not [m for m in last if m.get("tool_call_id") == "w1"]  # the child's calls stayed in the child

    entry.click()
    dialog = page.locator("dialog.agent-session")
    expect(dialog).to_contain_text("I wrote notes/tide.md.", timeout=10_000)
    expect(dialog).to_contain_text(task)
    dialog.get_by_role("button", name="Close").click()
    expect(dialog).to_have_count(0)


def test_a_reload_leaves_a_running_background_task_stopped(asking_app: App, fake: FakeLLM) -> None:
    page = asking_app.page
    fake.script(
        [
            Reply.tool_call("delegate", {"agent": "explore", "task": "Read everything", "background": True}),
            Reply.slow(),  # the child and the parent's next round, in either order: both take their time
            Reply.slow(),
        ]
    )
    send(page, "Explore in the background")
    entry = page.locator('[data-testid="agent-task"][data-agent="explore"]').last
    expect(entry).to_have_attribute("data-status", "running", timeout=REPLY_TIMEOUT_MS)
    page.reload()
    wait_ready(page)
    entry = page.locator('[data-testid="agent-task"][data-agent="explore"]').last
    expect(entry).to_have_attribute("data-status", "stopped", timeout=REPLY_TIMEOUT_MS)
    expect(entry).to_contain_text("the page was reloaded")


def test_a_chat_delegating_to_its_own_profile_is_refused_as_a_loop(asking_app: App, fake: FakeLLM) -> None:
    page = asking_app.page
    expect(page.get_by_test_id("agent-select")).to_have_value("general")
    fake.script(
        [
            Reply.tool_call("delegate", {"agent": "general", "task": "Do it all again."}, call_id="call_g1"),
            Reply.text("I will do it here."),
        ]
    )
    send(page, "Hand this to a general agent")
    expect(last_message(page, "assistant")).to_have_text("I will do it here.", timeout=REPLY_TIMEOUT_MS)
    wait_ready(page)
    requests = [r.json() for r in fake.requests_to(COMPLETIONS, "POST")]
    assert len(requests) == 2  # no child ran: the refusal cost no model call
    result = next(m for m in requests[1]["messages"] if m.get("tool_call_id") == "call_g1")
    assert "general → general is a loop" in result["content"] and "this chat runs under it" in result["content"]
    expect(page.locator('[data-testid="agent-task"][data-agent="general"]')).to_have_count(0)

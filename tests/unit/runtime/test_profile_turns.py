"""A chat under an agent profile, over frames with the scripted provider: the request offers only the
profile's tools and a call to any other is refused at lookup, the profile's prompt and model are used,
its permission mode narrows the chat's, the choice is kept with the session, and the profile requests
list, save and delete the files."""

from __future__ import annotations

from pathlib import Path

from runtime.chat.messages import SystemMessage, ToolResultMessage
from tests.support.rigs import StateRig
from tests.support.scripted import call, says

LOOKER = """---
name: looker
description: Looks keys up and nothing else.
tools: lookup, Bash
model: other/model
---
Only look things up; never write.
"""


def _write(workspace: Path, name: str, text: str) -> None:
    folder = workspace / ".agents" / "agents"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{name}.md").write_text(text)


def _offered(rig: StateRig, request: int) -> list[str]:
    return [t["function"]["name"] for t in rig.provider.calls[request][1]]


async def test_a_turn_under_a_profile_offers_its_tools_only_and_refuses_any_other(rig: StateRig) -> None:
    _write(rig.workspace, "looker", LOOKER)
    assert await rig.result("session_agent_set", agent="looker") == {"agent": "looker"}
    rig.provider.rounds = [says("", call("save_note", {"path": "n.md", "text": "x"})), says("Done.")]
    finished = await rig.turn("Note it down.")
    assert finished["reason"] == "stop"
    assert _offered(rig, 0) == ["lookup"]
    assert rig.provider.calls[0][2] == "other/model"
    system = rig.provider.calls[0][0][0]
    assert isinstance(system, SystemMessage)
    assert "<agent_profile>\nOnly look things up; never write.\n</agent_profile>" in system.content
    assert "`save_note`" not in system.content  # the prompt's tool list is the profile's too
    result = rig.provider.calls[1][0][-1]
    assert isinstance(result, ToolResultMessage)
    assert "there is no tool 'save_note'" in result.content and "Tools: lookup." in result.content
    assert not (rig.workspace / "n.md").exists()
    assert not rig.events("approval_needed")


async def test_the_chat_without_a_profile_runs_as_general(rig: StateRig) -> None:
    rig.provider.rounds = [says("Hi.")]
    await rig.turn("Hello")
    assert {"lookup", "save_note", "memory_save"} <= set(_offered(rig, 0))
    assert rig.provider.calls[0][2] == "scripted/model"
    assert (await rig.result("session_current"))["agent"] == "general"


async def test_the_profile_mode_narrows_the_chat_mode(rig: StateRig) -> None:
    text = "---\nname: reader\ndescription: d\ntools: lookup, save_note\npermission-mode: read-only\n---\n"
    _write(rig.workspace, "reader", text)
    await rig.result("session_agent_set", agent="reader")
    rig.provider.rounds = [says("", call("save_note", {"path": "n.md", "text": "x"})), says("Could not.")]
    await rig.turn("Write it.")
    result = rig.provider.calls[1][0][-1]
    assert isinstance(result, ToolResultMessage)
    assert "not allowed under the reader profile (read-only)" in result.content
    assert not rig.events("approval_needed") and not (rig.workspace / "n.md").exists()


async def test_a_wider_profile_mode_does_not_widen_the_chat_mode(rig: StateRig) -> None:
    _write(rig.workspace, "bold", "---\nname: bold\ndescription: d\npermission-mode: full-auto\n---\n")
    await rig.result("session_agent_set", agent="bold")
    rig.provider.rounds = [says("", call("save_note", {"path": "n.md", "text": "x"})), says("Saved.")]
    rig.host.send({"type": "user_message", "text": "Write it.", "turn_id": "t1"})
    asked = await rig.host.wait_for(lambda: rig.events("approval_needed"))
    assert asked[0]["name"] == "save_note"  # the chat's "ask" still asks
    rig.host.send({"type": "approval", "call_id": asked[0]["call_id"], "decision": "deny"})
    await rig.finished("t1")


async def test_the_choice_is_kept_with_the_session_and_a_missing_profile_stops_the_turn(rig: StateRig) -> None:
    _write(rig.workspace, "looker", LOOKER)
    await rig.result("session_agent_set", agent="looker")
    await rig.restart()
    assert (await rig.result("session_current"))["agent"] == "looker"
    (rig.workspace / ".agents" / "agents" / "looker.md").unlink()
    rig.provider.rounds = [says("Hi.")]
    await rig.turn("Hello")
    errors = rig.events("error")
    assert errors[-1]["code"] == "agent_missing" and "'looker'" in errors[-1]["message"]
    assert rig.provider.calls == []  # nothing was sent under a wider set of tools
    refused = await rig.request("session_agent_set", agent="nobody")
    assert not refused["ok"] and "No profile is named 'nobody'" in refused["error"]["message"]


async def test_the_profile_requests_list_save_and_delete_files(rig: StateRig) -> None:
    _write(rig.workspace, "looker", LOOKER)
    _write(rig.workspace, "broken", "no frontmatter")
    listed = await rig.result("agents_list")
    assert [a["name"] for a in listed["agents"]] == ["general", "explore", "researcher", "worker", "looker"]
    looker = listed["agents"][-1]
    assert looker["tools"] == ["lookup"] and not looker["builtin"]
    assert any("Bash (Claude Code) has no equivalent" in w for w in looker["warnings"])
    assert listed["problems"] == [
        {"path": ".agents/agents/broken.md", "message": listed["problems"][0]["message"]}
    ] and "no frontmatter" in listed["problems"][0]["message"]
    assert "save_note" in listed["tools"]

    saved = await rig.result(
        "agent_save", name="noter", description="Saves notes.", prompt="Save.", tools=["save_note"], max_rounds=3
    )
    assert saved["agents"][-1]["name"] == "noter" and saved["agents"][-1]["max_rounds"] == 3
    assert (rig.workspace / ".agents/agents/noter.md").is_file()
    assert rig.host.flushes[-1]["paths"] == [".agents/agents/noter.md"]
    bad = await rig.request("agent_save", name="x", description="d", tools=["nope"])
    assert not bad["ok"] and bad["error"]["code"] == "bad_profile" and "nope" in bad["error"]["message"]
    builtin = await rig.request("agent_delete", name="explore")
    assert not builtin["ok"] and builtin["error"]["code"] == "not_found"
    after = await rig.result("agent_delete", name="broken")
    assert after["problems"] == [] and not (rig.workspace / ".agents/agents/broken.md").exists()
    after = await rig.result("agent_delete", name="noter")
    assert "noter" not in [a["name"] for a in after["agents"]]

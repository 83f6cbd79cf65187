"""Every host request method through a real session with a state directory (docs/protocol.md)."""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path
from typing import Any

import pytest

from tests.skill_archives import people_skills_zip
from tests.support.rigs import StateRig
from tests.support.scripted import says


def _zip(files: dict[str, str], where: Path) -> str:
    """A zip of ``files`` stored as the host stores an upload: a file whose path the request names."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as zf:
        for name, text in files.items():
            zf.writestr(name, text)
    where.write_bytes(buffer.getvalue())
    return str(where)


SKILL = "---\nname: tea\ndescription: Brew tea well.\nlicense: MIT\n---\n# Tea\nSteep four minutes.\n"


async def test_sessions_new_list_rename_open_export_delete(rig: StateRig) -> None:
    rig.provider.rounds = [says("Hello!")]
    await rig.turn("first chat", "t1")
    first = rig.events("session_opened")[0]["session_id"]
    fresh = await rig.result("session_new")
    second = fresh["session"]["id"]
    assert second != first and fresh["messages"] == [] and rig.events("session_opened")[-1]["session_id"] == second
    again = await rig.result("new_session")  # the older name; an empty current session is reused
    assert again["session"]["id"] == second
    listed = await rig.result("sessions_list")
    assert [s["id"] for s in listed["sessions"]] == [second, first] and listed["current"] == second
    assert [s["current"] for s in listed["sessions"]] == [True, False]
    renamed = await rig.result("session_rename", session_id=first, title="Tea talk")
    assert renamed["session"]["title"] == "Tea talk"
    opened = await rig.result("session_open", session_id=first)
    assert [m["text"] for m in opened["messages"]] == ["first chat", "Hello!"]
    rig.provider.rounds = [says("Again.")]
    await rig.turn("second message", "t2")
    assert [m.role for m in rig.provider.calls[-1][0]] == ["system", "user", "assistant", "user"]
    markdown = await rig.result("session_export", session_id=first, format="markdown")
    assert markdown["filename"] == "Tea-talk.md" and "# Tea talk" in markdown["text"] and "Again." in markdown["text"]
    assert "- Model: scripted/model" in markdown["text"]
    exported = await rig.result("session_export", session_id=first, format="json")
    document = json.loads(exported["text"])
    assert document["format"] == "tidepool.session" and len(document["messages"]) == 4
    deleted = await rig.result("session_delete", session_id=first)
    assert deleted == {"deleted": first, "current": second}
    assert rig.events("session_opened")[-1]["session_id"] == second
    assert [s["id"] for s in (await rig.result("sessions_list"))["sessions"]] == [second]


async def test_deleting_another_session_keeps_the_current_one(rig: StateRig) -> None:
    first = rig.events("session_opened")[0]["session_id"]
    rig.provider.rounds = [says("Hi.")]
    await rig.turn("keep me", "t1")
    second = (await rig.result("session_new"))["session"]["id"]
    assert (await rig.result("session_delete", session_id=first))["current"] == second


@pytest.mark.parametrize(
    ("method", "params", "code"),
    [
        pytest.param("no_such_method", {}, "unknown_method", id="unknown method"),
        pytest.param("session_open", {"session_id": "s-missing"}, "not_found", id="open a missing session"),
        pytest.param("session_open", {}, "bad_params", id="open without an id"),
        pytest.param("session_export", {"format": "pdf"}, "bad_params", id="an unknown export format"),
        pytest.param("session_rename", {"session_id": 3, "title": "x"}, "bad_params", id="a number for an id"),
        pytest.param("memory_update", {"id": 999, "text": "x"}, "not_found", id="update a missing memory"),
        pytest.param("memory_save", {"text": "  "}, "bad_params", id="an empty memory"),
        pytest.param("memory_delete", {"id": "1"}, "bad_params", id="a memory id as text"),
        pytest.param("skill_show", {"name": "nope"}, "not-found", id="show a missing skill"),
        pytest.param("skill_import", {"filename": "a.zip", "path": "/nonexistent/a.zip"}, "bad_params", id="no file"),
        pytest.param("skill_import", {"filename": "a.zip", "path": "a.zip"}, "bad_params", id="a relative path"),
    ],
)
async def test_bad_requests_get_error_replies(rig: StateRig, method: str, params: dict[str, Any], code: str) -> None:
    reply = await rig.request(method, **params)
    assert reply["ok"] is False and reply["error"]["code"] == code, reply
    assert reply["error"]["message"] and reply["error"]["retryable"] is False


async def test_memory_panel(rig: StateRig) -> None:
    tea = (await rig.result("memory_save", text="Prefers green tea", tags=["drinks"]))["memory"]
    await rig.result("memory_save", text="Lives in Lisbon")
    await rig.result("memory_save", text="Allergic to peanuts", pinned=True)
    listed = await rig.result("memory_list")
    assert listed["total"] == 3 and listed["memories"][0]["text"] == "Allergic to peanuts"
    found = await rig.result("memory_search", query="green te")  # every word, the last one half-typed
    assert [m["id"] for m in found["memories"]] == [tea["id"]] and isinstance(found["memories"][0]["rank"], float)
    assert (await rig.result("memory_search", query="green coffee"))["memories"] == []
    updated = (await rig.result("memory_update", id=tea["id"], text="Prefers oolong", tags=[], pinned=True))["memory"]
    assert (updated["text"], updated["tags"], updated["pinned"]) == ("Prefers oolong", [], True)
    assert (await rig.result("memory_delete", id=tea["id"])) == {"deleted": tea["id"]}
    assert (await rig.result("memory_list"))["total"] == 2
    saves = [f for f in rig.host.flushes if f["what"] == "state"]
    assert len(saves) >= 6  # each change was saved


async def test_skills_panel(rig: StateRig, tmp_path: Path) -> None:
    path = _zip({"tea/SKILL.md": SKILL, "tea/notes/brew.txt": "95 C"}, tmp_path / "h1.zip")
    report = await rig.result("skill_import", filename="tea.zip", path=path)
    assert report["state"] == "ok" and report["skills"][0]["status"] == "installed"
    workspace_flushes = [f for f in rig.host.flushes if f["what"] == "workspace"]
    assert workspace_flushes[-1]["paths"] == [".agents/skills/tea"]
    again = await rig.result("skill_import", filename="tea.zip", path=path)
    assert again["needs_confirmation"] is True and again["skills"][0]["status"] == "exists"
    replaced = await rig.result("skill_import", filename="tea.zip", path=path, replace=True)
    assert replaced["skills"][0]["status"] == "replaced"
    (listed,) = (await rig.result("skills_list"))["skills"]
    assert (listed["name"], listed["enabled"], listed["description"]) == ("tea", True, "Brew tea well.")
    shown = await rig.result("skill_show", name="tea")
    assert "Steep four minutes." in shown["body"] and shown["license"] == "MIT"
    assert shown["files"] == [{"path": "notes/brew.txt", "size": 4}]
    disabled = await rig.result("skill_set_enabled", name="tea", enabled=False)
    assert disabled["skills"][0]["enabled"] is False
    assert rig.host.flushes[-1]["paths"] == [".agents/skills/state.json"]
    assert await rig.result("skill_remove", name="tea") == {"removed": "tea"}
    assert rig.host.flushes[-1]["paths"] == [".agents/skills/tea", ".agents/skills/state.json"]
    assert (await rig.result("skills_list"))["skills"] == [] and not (rig.workspace / ".agents/skills/tea").exists()
    await rig.result("skill_import", filename="tea.zip", path=path)  # a removed skill comes back enabled
    assert [s["enabled"] for s in (await rig.result("skills_list"))["skills"]] == [True]
    hostile = rig.workspace / ".agents/skills/hostile"  # as a SKILL.md written before the frontmatter caps
    hostile.mkdir()
    (hostile / "SKILL.md").write_text("---\nname: hostile\ndescription: d\n" + "k: v\n" * 20_000 + "---\n")
    listed = await rig.result("skills_list")
    assert [s["name"] for s in listed["skills"]] == ["tea"]
    assert [s["folder"] for s in listed["skipped"]] == ["hostile"] and "64 KiB" in listed["skipped"][0]["message"]


async def test_the_skills_list_shows_warnings_and_allowed_tools_against_the_tool_catalog(
    rig: StateRig, tmp_path: Path
) -> None:
    archive = people_skills_zip()
    stored = tmp_path / "h1.zip"
    stored.write_bytes(archive.data)
    assert (await rig.result("skill_import", filename=archive.filename, path=str(stored)))["state"] == "ok"
    tea = "---\nname: tea\ndescription: d\nallowed-tools: lookup Bash(git add:*), save_note Read\n---\n"
    path = _zip({"tea/SKILL.md": tea}, tmp_path / "h2.zip")
    assert (await rig.result("skill_import", filename="tea.zip", path=path))["state"] == "ok"
    listed = {s["name"]: s for s in (await rig.result("skills_list"))["skills"]}
    assert listed["tea"]["allowed_tools"] == ["lookup", "Bash(git add:*)", "save_note", "Read"]
    assert listed["tea"]["unknown_tools"] == ["Bash(git add:*)", "Read"]  # the rig's tools are lookup, save_note, ...
    deploy, pdf = listed["safe-deploy"], listed["pdf-tools"]
    assert deploy["allowed_tools"] == ["Bash(git status:*)", "read_file", "run_python"]
    assert [w["code"] for w in deploy["warnings"]] == ["unquoted-colon", "unknown-field"]
    assert (pdf["allowed_tools"], pdf["unknown_tools"]) == ([], [])
    assert [w["code"] for w in pdf["warnings"]] == ["invalid-name"]
    shown = await rig.result("skill_show", name="pdf-tools")
    assert shown["declared_name"] == "PDF Tools"
    assert shown["metadata"] == {"author": "docs-team", "links": '{"home": "https://example.com/pdf"}'}


async def test_tools_list_and_ping(rig: StateRig) -> None:
    tools = (await rig.result("tools_list"))["tools"]
    memory_tools = {t["name"]: t["effect"] for t in tools if t["name"].startswith("memory_")}
    assert memory_tools == {"memory_save": "memory", "memory_search": "memory", "memory_delete": "memory"}
    assert (await rig.result("ping"))["pong"] is True


async def test_session_open_while_a_turn_waits_keeps_the_approval(rig: StateRig) -> None:
    from tests.support.scripted import call

    rig.provider.rounds = [says("", call("save_note", {"path": "n.md", "text": "x"}, "c9")), says("Done.")]
    rig.host.send({"type": "user_message", "text": "note it", "turn_id": "t1"})
    await rig.host.wait_for(lambda: rig.events("approval_needed"))
    waiting = rig.events("session_opened")[0]["session_id"]
    await rig.result("session_new")
    assert (await rig.finished("t1"))["reason"] == "aborted"
    back = await rig.result("session_open", session_id=waiting)
    assert [p["call_id"] for p in back["pending_approvals"]] == ["c9"] and back["running_turn"] == "t1"
    await rig.host.wait_for(lambda: len(rig.events("approval_needed")) == 2)
    rig.host.send({"type": "approval", "call_id": "c9", "decision": "allow"})
    await rig.host.wait_for(lambda: len(rig.events("turn_finished")) == 2)
    assert rig.events("turn_finished")[-1]["reason"] == "stop" and (rig.workspace / "n.md").read_text() == "x"

"""Agent profile files: Claude Code's frontmatter and tool names read as ours, what is left out and why,
broken files listed with the reason (the others still load), and the panel's fields written and read back."""

from __future__ import annotations

from pathlib import Path

import pytest

from runtime.agents import files, profiles
from runtime.agents.files import ProfileFields
from runtime.agents.profiles import ProfileError, effective_mode, load, parse

KNOWN = (
    "read_file",
    "search_files",
    "list_files",
    "write_file",
    "edit_file",
    "web_fetch",
    "run_python",
    "docs__search",
)

CLAUDE_CODE_FILE = """---
name: code-reviewer
description: Use this agent when: the user asks for a review of recent changes
tools: Read, Grep, Glob, Bash
model: sonnet
---

You are a senior code reviewer. Read the changes and say what is wrong.
"""


def test_a_claude_code_subagent_reads_as_a_profile_with_our_tool_names() -> None:
    p = parse(CLAUDE_CODE_FILE, source=".agents/agents/code-reviewer.md", known_tools=KNOWN)
    assert p.name == "code-reviewer"
    assert p.description == "Use this agent when: the user asks for a review of recent changes"
    assert p.tools == ("read_file", "search_files", "list_files")
    assert p.model is None  # "sonnet" is an alias, not a model id here
    assert p.prompt.startswith("You are a senior code reviewer.")
    assert not p.builtin and p.source == ".agents/agents/code-reviewer.md"
    assert any("Bash (Claude Code) has no equivalent here" in w for w in p.warnings)
    assert any("'sonnet' is a Claude Code alias" in w for w in p.warnings)
    assert not p.allows("run_python") and p.allows("read_file")


def test_unknown_and_server_tool_names() -> None:
    text = "---\nname: mixed\ndescription: d\ntools: [docs:search, mcp__docs__search, other:thing, frobnicate]\n---\n"
    p = parse(text, known_tools=KNOWN)
    assert p.tools == ("docs__search",)  # both spellings of the server tool; once
    assert p.warnings == (
        "other:thing: the tool server 'other' has no tool 'thing', or it is not configured and connected; left out.",
        "frobnicate is not a tool here; left out.",
    )


def test_the_rest_of_the_frontmatter() -> None:
    text = (
        "---\nname: careful\ndescription: d\nmodel: qwen3:8b\nskills: pdf, notes\n"
        "permission-mode: read-only\nmax-rounds: 7\n---\nBe careful.\n"
    )
    p = parse(text, known_tools=KNOWN)
    assert (p.model, p.skills, p.permission_mode, p.max_rounds) == ("qwen3:8b", ("pdf", "notes"), "read-only", 7)
    assert p.tools is None and p.allows("anything")  # no tools line: every tool of the session


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("no frontmatter at all", "has no frontmatter"),
        ("---\ndescription: d\n---\n", "has no 'name'"),
        ("---\nname: Bad Name\ndescription: d\n---\n", "is not lowercase letters"),
        ("---\nname: a\n---\n", "has no 'description'"),
        ("---\nname: a\ndescription: d\npermission-mode: yolo\n---\n", "permission-mode is 'yolo'"),
        ("---\nname: a\ndescription: d\nmax-rounds: 0\n---\n", "max-rounds is a whole number"),
        ("---\n- a list\n---\n", "not 'key: value' fields"),
    ],
)
def test_a_file_that_cannot_be_used_says_why(text: str, reason: str) -> None:
    with pytest.raises(ProfileError, match=reason):
        parse(text, known_tools=KNOWN)


def test_load_lists_builtins_user_files_and_problems(tmp_path: Path) -> None:
    folder = tmp_path / profiles.PROFILES_DIR
    folder.mkdir(parents=True)
    (folder / "code-reviewer.md").write_text(CLAUDE_CODE_FILE)
    (folder / "broken.md").write_text("---\nname: [unclosed\n---\n")
    (folder / "notes.txt").write_text("not a profile")
    catalog = load(tmp_path, known_tools=KNOWN)
    names = [p.name for p in catalog.profiles]
    assert names == ["general", "explore", "researcher", "worker", "code-reviewer"]
    assert [p.name for p in catalog.profiles if p.builtin] == names[:4]
    assert len(catalog.problems) == 1
    path, reason = catalog.problems[0]
    assert path == ".agents/agents/broken.md" and "is not lowercase letters" in reason
    assert (folder / "broken.md").exists()  # kept as it is


def test_builtins_are_narrow_where_they_say_so() -> None:
    catalog = load(Path("/nonexistent"))
    explore, researcher, worker = (catalog.find(n) for n in ("explore", "researcher", "worker"))
    assert explore and researcher and worker
    assert not any(explore.allows(t) for t in ("write_file", "web_fetch", "run_python"))
    assert researcher.allows("web_fetch") and not researcher.allows("write_file")
    assert worker.allows("run_python") and not worker.allows("web_fetch")
    assert catalog.find("nobody") is None


def test_effective_mode_is_never_wider_than_the_chat() -> None:
    assert effective_mode("ask", "full-auto") == "ask"
    assert effective_mode("full-auto", "read-only") == "read-only"
    assert effective_mode("auto-edit", None) == "auto-edit"


def test_the_panel_fields_are_written_and_read_back(tmp_path: Path) -> None:
    fields = ProfileFields(
        "triage",
        'Sorts "issues": by area',
        "Sort them.\n\nThen say so.",
        ("read_file", "docs__search"),
        "gpt-4o-mini",
        ("pdf",),
        "auto-edit",
        12,
    )
    profile, changed = files.save(tmp_path, fields, known_tools=KNOWN)
    assert changed == [".agents/agents/triage.md"]
    again = load(tmp_path, known_tools=KNOWN).find("triage")
    assert again == profile
    assert (again.description, again.prompt, again.tools) == (fields.description, fields.prompt, fields.tools)
    assert (again.model, again.skills, again.permission_mode, again.max_rounds) == (
        "gpt-4o-mini",
        ("pdf",),
        "auto-edit",
        12,
    )


def test_saving_refuses_what_would_not_load_and_writes_nothing(tmp_path: Path) -> None:
    with pytest.raises(ProfileError, match="not tools here: Bash"):
        files.save(tmp_path, ProfileFields("a", "d", tools=("Bash",)), known_tools=KNOWN)
    with pytest.raises(ProfileError, match="is a built-in profile"):
        files.save(tmp_path, ProfileFields("explore", "d"), known_tools=KNOWN)
    with pytest.raises(ProfileError, match="not lowercase"):
        files.save(tmp_path, ProfileFields("A B", "d"), known_tools=KNOWN)
    files.save(tmp_path, ProfileFields("one", "d"), known_tools=KNOWN)
    with pytest.raises(ProfileError, match="exists already"):
        files.save(tmp_path, ProfileFields("one", "other"), known_tools=KNOWN)
    assert [p.name for p in (tmp_path / profiles.PROFILES_DIR).iterdir()] == ["one.md"]


def test_renaming_moves_the_file_and_delete_removes_it(tmp_path: Path) -> None:
    files.save(tmp_path, ProfileFields("one", "d"), known_tools=KNOWN)
    _, changed = files.save(tmp_path, ProfileFields("two", "d"), known_tools=KNOWN, previous=".agents/agents/one.md")
    assert changed == [".agents/agents/two.md", ".agents/agents/one.md"]
    assert [p.name for p in load(tmp_path).profiles][-1] == "two" and load(tmp_path).find("one") is None
    assert files.delete(tmp_path, ".agents/agents/two.md") == ".agents/agents/two.md"
    assert load(tmp_path).find("two") is None
    with pytest.raises(ProfileError, match="is not a profile file"):
        files.delete(tmp_path, "AGENTS.md")
    with pytest.raises(ProfileError, match="no profile file"):
        files.delete(tmp_path, ".agents/agents/two.md")

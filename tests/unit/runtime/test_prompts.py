"""The system prompt template: optional blocks appear only with content; bounds hold; undefined fails."""

from __future__ import annotations

from pathlib import Path

import pytest

from runtime.prompts import render
from runtime.prompts.render import PromptInputs, read_agents_md, render_system_prompt
from runtime.prompts.workspace_map import workspace_map
from runtime.skills.catalog import InstalledSkill, available_skills_block

TOOLS = [
    {"name": "read_file", "effect": "read", "description": "Read a file."},
    {"name": "write_file", "effect": "write", "description": "Write a file."},
]

SKILLS = (
    InstalledSkill("pdf-tools", "Make & split PDFs", ".agents/skills/pdf-tools/SKILL.md", True),
    InstalledSkill("off", "Disabled.", ".agents/skills/off/SKILL.md", False),
)


@pytest.mark.parametrize(
    ("inputs", "present", "absent"),
    [
        pytest.param(
            PromptInputs(tools=TOOLS),
            ["`read_file` (read): Read a file.", "**ask**"],
            ["<available_skills>", "# Workspace", "# AGENTS.md", "# Pinned memories"],
            id="minimal",
        ),
        pytest.param(
            PromptInputs(tools=TOOLS, skills_block=available_skills_block(SKILLS)),
            ["<available_skills>", "<name>pdf-tools</name>", "Make &amp; split PDFs", "activate_skill"],
            ["# Workspace", "<name>off</name>"],
            id="enabled skills, escaped once",
        ),
        pytest.param(
            PromptInputs(tools=TOOLS, workspace_map=["a.md", "notes/"], agents_md="Use British spelling."),
            [
                "The workspace contains these paths",
                '"a.md"\n"notes/"',
                "<agents_md>\nUse British spelling.\n</agents_md>",
            ],
            ["<available_skills>"],
            id="workspace map and AGENTS.md",
        ),
        pytest.param(
            PromptInputs(tools=TOOLS, workspace_map=["a.md"], workspace_truncated=True),
            ["A partial map of the workspace"],
            [],
            id="truncated map says so",
        ),
        pytest.param(
            PromptInputs(tools=TOOLS, memories=["The user's name is Ada."], permission_mode="read-only"),
            ["# Pinned memories", "- The user's name is Ada.", "**read-only**", "refused"],
            [],
            id="memories and mode",
        ),
        pytest.param(
            PromptInputs(tools=TOOLS, agents_md="x" * 30_000),
            ["[AGENTS.md truncated]"],
            ["x" * 20_001],
            id="AGENTS.md is bounded",
        ),
    ],
)
def test_blocks(inputs: PromptInputs, present: list[str], absent: list[str]) -> None:
    text = render_system_prompt(inputs)
    for phrase in present:
        assert phrase in text
    for phrase in absent:
        assert phrase not in text
    assert "\n\n\n" not in text


def test_undefined_names_fail() -> None:
    import jinja2

    template = render._get_template()
    with pytest.raises(jinja2.UndefinedError):
        template.render(agent_name="x")


def test_workspace_map_is_bounded(tmp_path: Path) -> None:
    for i in range(30):
        (tmp_path / f"d{i}" / "deep" / "deeper" / "deepest").mkdir(parents=True)
        (tmp_path / f"d{i}" / "f.txt").write_text("x")
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "HEAD").write_text("x")
    lines, truncated = workspace_map(tmp_path, limit=50, depth=3)
    assert truncated and len(lines) == 50
    assert not any(line.startswith(".git") for line in lines)
    small, small_truncated = workspace_map(tmp_path / "d0", limit=50, depth=2)
    assert small == ["deep/", "deep/deeper/", "f.txt"] and small_truncated


def test_a_cut_map_shows_each_level_before_the_next(tmp_path: Path) -> None:
    for rel in [*(f"a/x/{i}.txt" for i in range(5)), *(f"b/{i}.txt" for i in range(5))]:
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("x")
    lines, truncated = workspace_map(tmp_path, limit=6, depth=3)
    assert truncated and lines == ["a/", "a/x/", "b/", "b/0.txt", "b/1.txt", "b/2.txt"]  # b's files before a/x's
    assert workspace_map(tmp_path / "a", limit=6, depth=1) == (["x/"], True)


def test_agents_md(tmp_path: Path) -> None:
    assert read_agents_md(tmp_path) is None
    (tmp_path / "AGENTS.md").write_text("Be brief.")
    assert read_agents_md(tmp_path) == "Be brief."


def test_equal_inputs_reuse_the_last_rendering(monkeypatch: pytest.MonkeyPatch) -> None:
    renders: list[PromptInputs] = []
    real = render._render

    def counting(inputs: PromptInputs) -> str:
        renders.append(inputs)
        return real(inputs)

    monkeypatch.setattr(render, "_render", counting)
    base = PromptInputs(tools=[], permission_mode="ask", memories=("Prefers tea",))
    first = render_system_prompt(base)
    assert render_system_prompt(PromptInputs(tools=[], permission_mode="ask", memories=("Prefers tea",))) == first
    assert len(renders) == 1
    changed = render_system_prompt(PromptInputs(tools=[], permission_mode="read-only", memories=("Prefers tea",)))
    assert changed != first and len(renders) == 2
    pinned = render_system_prompt(PromptInputs(tools=[], permission_mode="read-only", memories=("Prefers coffee",)))
    assert "Prefers coffee" in pinned and len(renders) == 3

"""The catalog: listing, the persisted enabled flag, the <available_skills> block and activation."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from runtime.prompts.gather import slash_skill
from runtime.skills.catalog import InstalledSkill, activate, available_skills_block, list_skills, set_enabled
from runtime.skills.errors import SkillError
from runtime.skills.importer import import_archive
from tests.skill_archives import ARCHIVES
from tests.unit.skills.support import Item, make_zip, skill_md


@pytest.fixture
def repo_workspace(workspace: Path) -> Path:
    data = ARCHIVES["anthropic-skills-main.zip"].data
    assert import_archive(data, workspace, filename="anthropic-skills-main.zip").state == "ok"
    return workspace


def test_lists_installed_skills_sorted_and_enabled(repo_workspace: Path) -> None:
    skills = list_skills(repo_workspace)
    assert [(s.name, s.enabled) for s in skills] == [
        ("brand-guidelines", True),
        ("doc-coauthoring", True),
        ("frontend-design", True),
        ("internal-comms", True),
    ]
    assert skills[0].location == ".agents/skills/brand-guidelines/SKILL.md"
    assert skills[0].description.startswith("Applies Anthropic's official brand colors")


def test_empty_workspace_has_no_skills_and_no_block(workspace: Path) -> None:
    assert list_skills(workspace) == ()
    assert available_skills_block(list_skills(workspace)) == ""


def test_disabled_flag_persists_and_hides_the_skill_from_the_block(repo_workspace: Path) -> None:
    set_enabled(repo_workspace, "frontend-design", False)
    state = json.loads((repo_workspace / ".agents/skills/state.json").read_text())
    assert state == {"version": 1, "disabled": ["frontend-design"]}
    enabled = {s.name: s.enabled for s in list_skills(repo_workspace)}
    assert enabled["frontend-design"] is False and enabled["brand-guidelines"] is True
    block = available_skills_block(list_skills(repo_workspace))
    assert "<name>frontend-design</name>" not in block
    assert block.count("<skill>") == 3
    set_enabled(repo_workspace, "frontend-design", True)
    assert all(s.enabled for s in list_skills(repo_workspace))


def test_block_is_omitted_when_every_skill_is_disabled(repo_workspace: Path) -> None:
    for skill in list_skills(repo_workspace):
        set_enabled(repo_workspace, skill.name, False)
    assert available_skills_block(list_skills(repo_workspace)) == ""


@pytest.mark.parametrize(
    ("skills", "expected"),
    [
        pytest.param(
            (InstalledSkill("a-b", 'Use for <html> & "quotes".', ".agents/skills/a-b/SKILL.md", True),),
            "<available_skills>\n"
            "  <skill>\n"
            "    <name>a-b</name>\n"
            '    <description>Use for &lt;html&gt; &amp; "quotes".</description>\n'
            "    <location>.agents/skills/a-b/SKILL.md</location>\n"
            "  </skill>\n"
            "</available_skills>",
            id="escaped",
        ),
        pytest.param((InstalledSkill("x", "d", "l", False),), "", id="only-disabled"),
        pytest.param((), "", id="none"),
    ],
)
def test_block_rendering(skills: tuple[InstalledSkill, ...], expected: str) -> None:
    assert available_skills_block(skills) == expected


def test_block_bounds_long_descriptions() -> None:
    block = available_skills_block((InstalledSkill("x", "d" * 5000, "l", True),))
    assert "d" * 1024 in block and "d" * 1025 not in block


def test_activate_returns_body_without_frontmatter_and_the_files(repo_workspace: Path) -> None:
    activation = activate(repo_workspace, "internal-comms")
    assert activation.name == "internal-comms"
    assert activation.root == ".agents/skills/internal-comms"
    assert activation.body.startswith("## When to use this skill")
    assert "description:" not in activation.body
    assert activation.files == (
        "LICENSE.txt",
        "examples/3p-updates.md",
        "examples/company-newsletter.md",
        "examples/faq-answers.md",
        "examples/general-comms.md",
    )


@pytest.mark.parametrize(
    ("name", "disable", "reason"),
    [
        pytest.param("nope", False, "not-found", id="unknown"),
        pytest.param("../brand-guidelines", False, "not-found", id="path-like-name"),
        pytest.param("brand-guidelines", True, "disabled", id="disabled"),
    ],
)
def test_activate_refuses(repo_workspace: Path, name: str, disable: bool, reason: str) -> None:
    if disable:
        set_enabled(repo_workspace, name, False)
    with pytest.raises(SkillError) as caught:
        activate(repo_workspace, name)
    assert caught.value.reason == reason
    assert caught.value.message


def test_set_enabled_on_unknown_skill_fails(repo_workspace: Path) -> None:
    with pytest.raises(SkillError) as caught:
        set_enabled(repo_workspace, "nope", False)
    assert caught.value.reason == "not-found"
    assert not (repo_workspace / ".agents/skills/state.json").exists()


def test_broken_skill_folders_and_state_file_are_tolerated(repo_workspace: Path) -> None:
    root = repo_workspace / ".agents/skills"
    (root / "broken").mkdir()
    (root / "broken" / "SKILL.md").write_text("no frontmatter")
    (root / "empty").mkdir()
    (root / "state.json").write_text("{not json")
    assert [s.name for s in list_skills(repo_workspace)] == [
        "brand-guidelines",
        "doc-coauthoring",
        "frontend-design",
        "internal-comms",
    ]


def test_replacing_a_skill_keeps_its_disabled_flag(repo_workspace: Path) -> None:
    set_enabled(repo_workspace, "brand-guidelines", False)
    data = make_zip([Item("brand-guidelines/SKILL.md", skill_md("brand-guidelines", "v2"))])
    assert import_archive(data, repo_workspace, filename="b.zip", replace=True).state == "ok"
    skill = next(s for s in list_skills(repo_workspace) if s.name == "brand-guidelines")
    assert (skill.description, skill.enabled) == ("v2", False)


def test_an_edited_skill_md_is_read_again(workspace: Path) -> None:
    folder = workspace / ".agents" / "skills" / "tea"
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text("---\nname: tea\ndescription: Brew tea.\n---\nSteep.\n")
    assert [s.description for s in list_skills(workspace)] == ["Brew tea."]
    assert [s.description for s in list_skills(workspace)] == ["Brew tea."]  # from the parse cache
    (folder / "SKILL.md").write_text("---\nname: tea\ndescription: Brew green tea gently.\n---\nSteep.\n")
    assert [s.description for s in list_skills(workspace)] == ["Brew green tea gently."]
    (folder / "SKILL.md").write_text("no frontmatter at all\n")
    assert list_skills(workspace) == ()


def test_activate_skill_lists_the_enabled_names_as_an_enum(repo_workspace: Path, tmp_path: Path) -> None:
    from runtime.tools.skills import activate_skill

    assert activate_skill.openai_schema(tmp_path / "empty") is None  # nothing to activate: not offered
    set_enabled(repo_workspace, "frontend-design", False)
    schema = activate_skill.openai_schema(repo_workspace)
    assert schema is not None
    names = schema["function"]["parameters"]["properties"]["name"]["enum"]
    assert names == ["brand-guidelines", "doc-coauthoring", "internal-comms"]
    assert "enum" not in activate_skill.parameters["properties"]["name"]  # the definition itself is unchanged


@pytest.mark.parametrize(
    ("text", "found"),
    [
        pytest.param("/技能 do it", "技能", id="a name in another script"),
        pytest.param("/ｐｄｆ split", "pdf", id="full-width letters read after NFKC"),
        pytest.param("/技能x do it", None, id="only an exact name"),
    ],
)
def test_a_slash_command_names_a_skill_in_any_script(tmp_path: Path, text: str, found: str | None) -> None:
    for name in ("技能", "pdf"):
        folder = tmp_path / ".agents" / "skills" / name
        folder.mkdir(parents=True)
        (folder / "SKILL.md").write_text(f"---\nname: {name}\ndescription: d\n---\nBody.\n", encoding="utf-8")
    assert slash_skill(text, tmp_path) == found

"""SKILL.md validation against the Agent Skills spec, and the frontmatter as people write it."""

from __future__ import annotations

from typing import Any

import pytest
import yaml

from runtime.skills import frontmatter
from runtime.skills.spec import InvalidSkill, ValidSkill, check_skill, check_skill_bytes
from tests.skill_archives import (
    BRAND_DESCRIPTION,
    COMMS_DESCRIPTION,
    DOC_DESCRIPTION,
    LICENSE_LINE,
    THEME_DESCRIPTION,
)


def md(front: str, body: str = "Body.\n") -> str:
    return f"---\n{front}---\n{body}"


VALID = [
    pytest.param(
        md("name: pdf\ndescription: Reads PDFs.\n"),
        "pdf",
        {"name": "pdf", "description": "Reads PDFs."},
        [],
        id="minimal",
    ),
    pytest.param(
        md("name: \"pdf\"\ndescription: 'It''s: quoted'\n"),
        "pdf",
        {"description": "It's: quoted"},
        [],
        id="quoted-values-may-hold-colons",
    ),
    pytest.param(
        md("name: pdf\ndescription: Use when: the user asks\n"),
        "pdf",
        {"description": "Use when: the user asks"},
        ["unquoted-colon"],
        id="unquoted-colon-retried",
    ),
    pytest.param(
        md("name: pdf # the name\ndescription: When: asked # note\n"),
        "pdf",
        {"name": "pdf", "description": "When: asked"},
        ["unquoted-colon"],
        id="retry-still-strips-comments",
    ),
    pytest.param(
        md("name: pdf\ndescription: |\n  Line one.\n  Line two.\n"),
        "pdf",
        {"description": "Line one.\nLine two."},
        [],
        id="literal-block",
    ),
    pytest.param(
        md("name: pdf\ndescription: >-\n  Folded\n  text.\n"),
        "pdf",
        {"description": "Folded text."},
        [],
        id="folded-block",
    ),
    pytest.param(
        md("name: pdf\ndescription: A long\n  description continued\n"),
        "pdf",
        {"description": "A long description continued"},
        [],
        id="plain-multiline",
    ),
    pytest.param(
        md("name: pdf\ndescription: Reads. # a comment\n# whole-line comment\n"),
        "pdf",
        {"description": "Reads."},
        [],
        id="comments",
    ),
    pytest.param(
        md("name: pdf\ndescription: Reads.\nlicense: MIT\ncompatibility: Needs network\n"),
        "pdf",
        {"license": "MIT", "compatibility": "Needs network"},
        [],
        id="license-and-compatibility",
    ),
    pytest.param(
        md('name: pdf\ndescription: d\nmetadata:\n  author: me\n  version: "1.0"\n'),
        "pdf",
        {"metadata": {"author": "me", "version": "1.0"}},
        [],
        id="metadata-map",
    ),
    pytest.param(
        md("name: pdf\ndescription: d\nallowed-tools: Bash(git:*) Read\n"),
        "pdf",
        {"allowed_tools": ("Bash(git:*)", "Read")},
        [],
        id="allowed-tools-string",
    ),
    pytest.param(
        md("name: pdf\ndescription: d\nallowed-tools:\n- Read\n- Write\n"),
        "pdf",
        {"allowed_tools": ("Read", "Write")},
        [],
        id="allowed-tools-block-list",
    ),
    pytest.param(
        md("name: pdf\ndescription: d\nallowed-tools: [Read, 'Write']\n"),
        "pdf",
        {"allowed_tools": ("Read", "Write")},
        [],
        id="allowed-tools-flow-list",
    ),
    pytest.param(
        md("name: pdf\ndescription: d\n"), "pdf-tools", {"name": "pdf"}, ["name-mismatch"], id="folder-mismatch-warns"
    ),
    pytest.param(md("name: pdf\ndescription: d\nversion: 2\n"), "pdf", {}, ["unknown-field"], id="unknown-field"),
    pytest.param(
        md("name: pdf\ndescription: " + "d" * 1025 + "\n"),
        "pdf",
        {},
        ["description-too-long"],
        id="description-over-1024-warns",
    ),
    pytest.param(
        md("name: pdf\ndescription: d\ncompatibility: " + "c" * 501 + "\n"),
        "pdf",
        {},
        ["compatibility-too-long"],
        id="compatibility-over-500-warns",
    ),
    pytest.param(
        md("name: pdf\ndescription: d\nmetadata: text\n"),
        "pdf",
        {"metadata": {}},
        ["bad-field"],
        id="metadata-not-a-map-ignored",
    ),
    pytest.param(
        "\ufeff---\r\nname: pdf\r\ndescription: d\r\n---\r\nBody.\r\n",
        "pdf",
        {"description": "d", "body": "Body.\n"},
        [],
        id="bom-and-crlf",
    ),
    pytest.param(md("name: " + "a" * 64 + "\ndescription: d\n"), "a" * 64, {"name": "a" * 64}, [], id="name-64-chars"),
    pytest.param(
        md("name: a1-b2-c3\ndescription: d\n", "\n\n# Title\n"),
        "a1-b2-c3",
        {"body": "# Title\n"},
        [],
        id="body-without-leading-blank-lines",
    ),
]


@pytest.mark.parametrize(("text", "folder", "fields", "warnings"), VALID)
def test_valid_skills(text: str, folder: str, fields: dict[str, Any], warnings: list[str]) -> None:
    result = check_skill(text, folder)
    assert isinstance(result, ValidSkill), result
    for key, value in fields.items():
        assert getattr(result.spec, key) == value, key
    assert [w.code for w in result.warnings] == warnings


INVALID = [
    pytest.param("# No frontmatter\n", "no-frontmatter", id="no-frontmatter"),
    pytest.param("\n---\nname: x\n---\n", "no-frontmatter", id="frontmatter-not-first"),
    pytest.param("---\nname: x\ndescription: d\n", "bad-frontmatter", id="unterminated"),
    pytest.param(md("  name: x\ndescription: d\n"), "bad-frontmatter", id="bad-indentation"),
    pytest.param(md("just text\n"), "bad-frontmatter", id="a-line-of-text"),
    pytest.param(md("- name: x\n- description: d\n"), "bad-frontmatter", id="a-list"),
    pytest.param(md("name: x\ndescription: d\n  - stray\nnot a field\n"), "bad-frontmatter", id="not-key-value"),
    pytest.param(md("description: d\n"), "missing-name", id="missing-name"),
    pytest.param(md(""), "missing-name", id="empty-frontmatter"),
    pytest.param(md("name: '--'\ndescription: d\n"), "invalid-name", id="nothing-to-name-a-folder-with"),
    pytest.param(md("name: [a, b]\ndescription: d\n"), "missing-name", id="name-not-text"),
    pytest.param(md("name: pdf\n"), "missing-description", id="missing-description"),
    pytest.param(md("name: pdf\ndescription: ''\n"), "missing-description", id="empty-description"),
    pytest.param(md("name: pdf\ndescription:\n"), "missing-description", id="null-description"),
]


@pytest.mark.parametrize(("text", "reason"), INVALID)
def test_invalid_skills_are_skipped_with_a_reason(text: str, reason: str) -> None:
    result = check_skill(text, "_")
    assert isinstance(result, InvalidSkill), result
    assert result.reason == reason
    assert result.message


def test_non_utf8_is_not_text() -> None:
    result = check_skill_bytes(b"---\nname: x\ndescription: \xff\n---\n", "x")
    assert isinstance(result, InvalidSkill) and result.reason == "not-text"


# Names that do not follow the spec are kept, under a safe form of the name, with a warning.
NONCONFORMING_NAMES = [
    pytest.param("Pdf", "pdf", "pdf", id="uppercase"),
    pytest.param("PDF Tools", "pdf-tools", "pdf-tools", id="spaces"),
    pytest.param("pdf--tools", "pdf-tools", "pdf-tools", id="double-hyphen"),
    pytest.param("-pdf-", "pdf", "pdf", id="leading-and-trailing-hyphens"),
    pytest.param("pdf_tools", "pdf-tools", "pdf_tools", id="underscore"),
    pytest.param("../evil", "evil", "evil", id="path-in-name"),
    pytest.param("Café Notes", "café-notes", "x", id="letters-of-any-script-kept"),
    pytest.param("Données_Brutes", "données-brutes", "x", id="uppercase-accented-lowered"),
    pytest.param("a" * 65, "a" * 64, "a" * 65, id="name-65-chars"),
    pytest.param("☃ ☃", "jp-notes", "jp-notes", id="no-letters-takes-the-folder"),
]


@pytest.mark.parametrize(("declared", "known_as", "folder"), NONCONFORMING_NAMES)
def test_a_nonconforming_name_is_kept_with_a_warning(declared: str, known_as: str, folder: str) -> None:
    result = check_skill(md(f"name: '{declared}'\ndescription: d\n"), folder)
    assert isinstance(result, ValidSkill), result
    assert (result.spec.name, result.spec.declared_name) == (known_as, declared)
    assert [w.code for w in result.warnings] == ["invalid-name"]
    assert repr(known_as) in result.warnings[0].message


def test_a_conforming_name_is_its_own_declared_name() -> None:
    result = check_skill(md("name: pdf\ndescription: d\n"), "pdf")
    assert isinstance(result, ValidSkill)
    assert result.spec.declared_name == result.spec.name == "pdf"


CLAUDE_CODE_HOOKS = """\
name: pdf
description: Deploys with checks before every shell command.
allowed-tools: Bash(git add:*), Bash(git status:*), Read
model: claude-sonnet-4-5
hooks:
  PreToolUse:
    - matcher: "Bash"
      hooks:
        - type: command
          command: "./scripts/check.sh"
          once: true
"""

# What people write in real SKILL.md files, all valid YAML the old subset parser refused or misread.
REAL_WORLD = [
    pytest.param(
        CLAUDE_CODE_HOOKS,
        {"name": "pdf", "allowed_tools": ("Bash(git add:*)", "Bash(git status:*)", "Read")},
        ["unknown-field", "unknown-field"],
        id="claude-code-hooks-block",
    ),
    pytest.param(
        'name: pdf\ndescription: d\nmetadata: {author: x, version: "1.0"}\n',
        {"metadata": {"author": "x", "version": "1.0"}},
        [],
        id="flow-map-metadata",
    ),
    pytest.param(
        "name: pdf\ndescription: d\nmetadata:\n  author: x\n  version: 1.10\n  links:\n    home: https://x.dev\n"
        "  tags: [pdf, docs]\n",
        {
            "metadata": {
                "author": "x",
                "version": "1.10",
                "links": '{"home": "https://x.dev"}',
                "tags": '["pdf", "docs"]',
            }
        },
        [],
        id="nested-metadata-kept-as-json-text",
    ),
    pytest.param(
        "name: pdf\ndescription: >-\n  Reads PDFs: text, tables\n  and forms.\n\n  Use it for any PDF.\n",
        {"description": "Reads PDFs: text, tables and forms.\nUse it for any PDF."},
        [],
        id="folded-block-scalar",
    ),
    pytest.param(
        "name: pdf\ndescription: |\n  Line one.\n  Line two: more.\n",
        {"description": "Line one.\nLine two: more."},
        [],
        id="literal-block-scalar",
    ),
    pytest.param(
        "name: pdf\ndescription: d\nallowed-tools:\n  - Read\n  - Bash(npm run:*)\n",
        {"allowed_tools": ("Read", "Bash(npm run:*)")},
        [],
        id="allowed-tools-list",
    ),
    pytest.param(
        "name: pdf\ndescription: d\nlicense: 2024\ncompatibility: yes\n",
        {"license": "2024", "compatibility": "yes"},
        [],
        id="scalars-stay-the-text-written",
    ),
    pytest.param(
        "name: pdf\ndescription: Use this when: the user asks (see X) and it's late\nmetadata:\n  author: me\n",
        {"description": "Use this when: the user asks (see X) and it's late", "metadata": {"author": "me"}},
        ["unquoted-colon"],
        id="unquoted-colon-read-as-text-other-keys-as-yaml",
    ),
    pytest.param(
        "name: pdf\ndescription: Note: long\n  and continued: here # a comment\nlicense: MIT\n",
        {"description": "Note: long and continued: here", "license": "MIT"},
        ["unquoted-colon"],
        id="unquoted-colon-with-continuation-lines",
    ),
    pytest.param(
        "name: pdf\ndescription: d\nmetadata: {unclosed\n",
        {"metadata": {}},
        ["not-yaml", "bad-field"],
        id="broken-value-read-as-text",
    ),
    pytest.param(
        "name: pdf\ndescription: d\nbase: &b x\nother: *b\n",
        {"name": "pdf"},
        ["not-yaml", "unknown-field", "unknown-field"],
        id="aliases-refused",
    ),
    pytest.param(
        "name: x\nname: pdf\ndescription: d\n",
        {"name": "pdf"},
        ["duplicate-key"],
        id="duplicate-key-last-wins",
    ),
]


@pytest.mark.parametrize(("front", "fields", "warnings"), REAL_WORLD)
def test_real_world_frontmatter(front: str, fields: dict[str, Any], warnings: list[str]) -> None:
    result = check_skill(md(front), "pdf")
    assert isinstance(result, ValidSkill), result
    for key, value in fields.items():
        assert getattr(result.spec, key) == value, key
    assert [w.code for w in result.warnings] == warnings


def test_real_archive_descriptions_are_read_whole() -> None:
    for description in (BRAND_DESCRIPTION, COMMS_DESCRIPTION, THEME_DESCRIPTION, DOC_DESCRIPTION):
        result = check_skill(md(f"name: pdf\ndescription: {description}\n{LICENSE_LINE}"), "pdf")
        assert isinstance(result, ValidSkill), result
        assert (result.spec.description, result.spec.license) == (description, "Complete terms in LICENSE.txt")


def test_the_message_says_why_when_even_the_line_reading_fails() -> None:
    result = check_skill(md("name: pdf\ndescription: a: b\nthis line is no field\n"), "pdf")
    assert isinstance(result, InvalidSkill)
    assert result.reason == "bad-frontmatter"
    assert "not valid YAML" in result.message
    assert "'this line is no field' is not a top-level 'key: value' line" in result.message


def test_frontmatter_that_is_a_list_names_what_it_is() -> None:
    result = check_skill(md("- a\n- b\n"), "pdf")
    assert isinstance(result, InvalidSkill)
    assert "is a list, not 'key: value' fields" in result.message


def test_a_name_that_is_not_text_is_named() -> None:
    result = check_skill(md("name: {a: b}\ndescription: d\n"), "pdf")
    assert isinstance(result, InvalidSkill) and result.reason == "missing-name"
    assert "not text" in result.message


def test_parse_keeps_scalars_as_text_and_leaves_pyyaml_alone() -> None:
    parsed = frontmatter.parse("a: 1.0\nb: yes\nc: ~\nd: 2024-01-01\ne: [1, true]\n")
    assert parsed.fields == {"a": "1.0", "b": "yes", "c": None, "d": "2024-01-01", "e": ["1", "true"]}
    assert yaml.safe_load("b: yes") == {"b": True}  # the stock SafeLoader is unchanged


def test_nesting_too_deep_for_the_parser_is_read_as_text() -> None:
    result = check_skill(md("name: pdf\ndescription: d\nmetadata: " + "[" * 5000 + "]" * 5000 + "\n"), "pdf")
    assert isinstance(result, ValidSkill), result
    assert [w.code for w in result.warnings] == ["not-yaml", "bad-field"]
    assert "nested more than 32 deep" in result.warnings[0].message

"""SKILL.md validation against the Agent Skills spec, and the frontmatter subset parser."""

from __future__ import annotations

from typing import Any

import pytest

from runtime.skills import frontmatter
from runtime.skills.frontmatter import FrontmatterError
from runtime.skills.spec import InvalidSkill, ValidSkill, check_skill, check_skill_bytes


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
    pytest.param(md("name: x\nname: y\ndescription: d\n"), "bad-frontmatter", id="duplicate-key"),
    pytest.param(md("name: x\ndescription: 'not closed\n"), "bad-frontmatter", id="unclosed-quote"),
    pytest.param(md("name: x\ndescription: &anchor d\n"), "bad-frontmatter", id="anchors-unsupported"),
    pytest.param(md("name: x\ndescription: d\nmetadata:\n  a:\n    b: c\n"), "bad-frontmatter", id="nested-map"),
    pytest.param(md("just text\n"), "bad-frontmatter", id="not-key-value"),
    pytest.param(md("description: d\n"), "missing-name", id="missing-name"),
    pytest.param(md("name: Pdf\ndescription: d\n"), "invalid-name", id="uppercase-name"),
    pytest.param(md("name: pdf--tools\ndescription: d\n"), "invalid-name", id="double-hyphen"),
    pytest.param(md("name: -pdf\ndescription: d\n"), "invalid-name", id="leading-hyphen"),
    pytest.param(md("name: pdf_tools\ndescription: d\n"), "invalid-name", id="underscore"),
    pytest.param(md("name: ../evil\ndescription: d\n"), "invalid-name", id="path-in-name"),
    pytest.param(md("name: " + "a" * 65 + "\ndescription: d\n"), "invalid-name", id="name-65-chars"),
    pytest.param(md("name: [a, b]\ndescription: d\n"), "missing-name", id="name-not-text"),
    pytest.param(md("name: pdf\n"), "missing-description", id="missing-description"),
    pytest.param(md("name: pdf\ndescription: ''\n"), "missing-description", id="empty-description"),
    pytest.param(md("name: pdf\ndescription:\n"), "missing-description", id="null-description"),
]


@pytest.mark.parametrize(("text", "reason"), INVALID)
def test_invalid_skills_are_skipped_with_a_reason(text: str, reason: str) -> None:
    result = check_skill(text, "x")
    assert isinstance(result, InvalidSkill), result
    assert result.reason == reason
    assert result.message


def test_non_utf8_is_not_text() -> None:
    result = check_skill_bytes(b"---\nname: x\ndescription: \xff\n---\n", "x")
    assert isinstance(result, InvalidSkill) and result.reason == "not-text"


PARSE = [
    pytest.param("a: |+\n  keep\n\n", {"a": "keep\n\n"}, id="literal-keep"),
    pytest.param("a: |-\n  strip\n", {"a": "strip"}, id="literal-strip"),
    pytest.param("a: |\n  one\n    indented\n  two\n", {"a": "one\n  indented\ntwo\n"}, id="literal-indented"),
    pytest.param("a: >\n  one\n  two\n\n  three\n", {"a": "one two\nthree\n"}, id="folded-paragraphs"),
    pytest.param('a: "tab\\tnew\\nq\\"\\u00e9"\n', {"a": 'tab\tnew\nq"é'}, id="double-quoted-escapes"),
    pytest.param("a: 'multi\n  line'\n", {"a": "multi line"}, id="quoted-over-lines"),
    pytest.param("a: ~\nb: null\nc:\n", {"a": None, "b": None, "c": None}, id="nulls"),
    pytest.param("a: 12\nb: true\n", {"a": "12", "b": "true"}, id="scalars-stay-text"),
    pytest.param("a: C# and F#\n", {"a": "C# and F#"}, id="hash-without-space-is-text"),
    pytest.param("a:\n  - x\n  - 'y'\n", {"a": ["x", "y"]}, id="indented-list"),
    pytest.param("a: []\n", {"a": []}, id="empty-flow-list"),
    pytest.param("a: http://example.com/x\n", {"a": "http://example.com/x"}, id="url-colon-without-space"),
]


@pytest.mark.parametrize(("source", "expected"), PARSE)
def test_frontmatter_subset(source: str, expected: dict[str, Any]) -> None:
    assert frontmatter.parse(source) == expected


PARSE_ERRORS = [
    pytest.param("a: b: c\n", "unquoted-colon", id="unquoted-colon"),
    pytest.param("a: x\n\tb: y\n", "syntax", id="tab-indentation"),
    pytest.param("a: {b: c}\n", "unsupported", id="flow-map"),
    pytest.param("a: [x, [y]]\n", "unsupported", id="nested-flow-list"),
    pytest.param('a: "bad \\q escape"\n', "syntax", id="unknown-escape"),
    pytest.param('a: "x" trailing\n', "syntax", id="text-after-quote"),
    pytest.param("a: 1\na: 2\n", "duplicate-key", id="duplicate-key"),
    pytest.param("a: !tag x\n", "unsupported", id="tag"),
]


@pytest.mark.parametrize(("source", "code"), PARSE_ERRORS)
def test_frontmatter_errors(source: str, code: str) -> None:
    with pytest.raises(FrontmatterError) as caught:
        frontmatter.parse(source)
    assert caught.value.code == code
    assert caught.value.line >= 1

"""Differential test: the Agent Skills reference validator (``skills-ref``, a pinned test dependency) and our
parser read the same SKILL.md files. They agree on every one, but where a difference is intended; each
intended difference is listed below with why, and a listed case that no longer differs fails too.

What is compared: the reference's verdict (``skills_ref.validator.validate`` on the folder: no errors or
some) against ours (``check_skill_bytes``): ``clean`` (valid, no warning), ``warned`` (installed with a
warning) or ``skipped``; and, when both accept, the name and the description each reads.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import pytest
from skills_ref.parser import parse_frontmatter, read_properties
from skills_ref.validator import validate, validate_metadata

from runtime.skills.spec import InvalidSkill, check_skill_bytes

Ours = Literal["clean", "warned", "skipped"]


@dataclass(frozen=True)
class Case:
    folder: str
    text: str  # SKILL.md as written (encoded UTF-8; a BOM is a leading U+FEFF)


def skill(name: str, *, folder: str | None = None, description: str = "Does a thing.", extra: str = "") -> Case:
    return Case(
        folder if folder is not None else name, f"---\nname: {name}\ndescription: {description}\n{extra}---\nBody.\n"
    )


WIDE = "\U00020000" * 64  # 64 letters (CJK Extension B), 256 UTF-8 bytes: more than a folder name may hold

CORPUS: dict[str, Case] = {
    "ascii": skill("pdf-tools"),
    "digits": skill("v2-notes"),
    "cjk": skill("技能"),
    "accented": skill("données"),
    "greek": skill("δοκιμή"),
    "cyrillic": skill("навык-1"),
    "full-width-folder-and-name": skill("ｐｄｆ"),
    "full-width-name-ascii-folder": skill("ｐｄｆ", folder="pdf"),
    "64-chars": skill("a" * 64),
    "65-chars": skill("a" * 65),
    "uppercase": skill("PDF"),
    "uppercase-accented": skill("Données", folder="données"),
    "double-hyphen": skill("pdf--tools"),
    "leading-hyphen": skill("-pdf", folder="pdf"),
    "trailing-hyphen": skill("pdf-", folder="pdf"),
    "underscore": skill("pdf_tools"),
    "space-in-cjk": skill("'技能 工具'", folder="技能"),
    "combining-marks": skill("हिंदी"),
    "folder-mismatch": skill("pdf", folder="pdf-tools"),
    "256-byte-name": skill(WIDE),
    "missing-description": Case("pdf", "---\nname: pdf\n---\nBody.\n"),
    "missing-name": Case("pdf", "---\ndescription: d\n---\nBody.\n"),
    "long-description": skill("pdf", description="x" * 1025),
    "1024-description": skill("pdf", description="x" * 1024),
    "long-compatibility": skill("pdf", extra=f"compatibility: {'c' * 501}\n"),
    "500-compatibility": skill("pdf", extra=f"compatibility: {'c' * 500}\n"),
    "known-optional-fields": skill("pdf", extra="license: MIT\nallowed-tools: Read Bash\nmetadata:\n  author: me\n"),
    "unknown-field": skill("pdf", extra="model: claude-sonnet-4-5\n"),
    "triple-hyphen-in-description": skill("pdf", description="a---b"),
    "bom": Case("pdf", "\ufeff---\nname: pdf\ndescription: Does a thing.\n---\nBody.\n"),
    "crlf": Case("pdf", "---\r\nname: pdf\r\ndescription: Does a thing.\r\n---\r\nBody.\r\n"),
    "no-frontmatter": Case("pdf", "# pdf\n"),
}

# Where we are deliberately more lenient than the reference: it refuses, we install and warn (the spec's
# client guide: warn on cosmetic problems, skip only what cannot be used).
LENIENT = {
    "65-chars": "installed as its first 64 characters",
    "uppercase": "installed lowercased",
    "uppercase-accented": "installed lowercased",
    "double-hyphen": "installed with single hyphens",
    "leading-hyphen": "installed without the hyphen",
    "trailing-hyphen": "installed without the hyphen",
    "underscore": "installed with a hyphen for the underscore",
    "space-in-cjk": "installed with a hyphen for the space",
    "combining-marks": "installed under the letters it has (a vowel sign is not alphanumeric)",
    "folder-mismatch": "a name that differs from its folder is a warning",
    "long-description": "an over-long description is a warning",
    "long-compatibility": "an over-long compatibility is a warning",
    "unknown-field": "other clients' fields (Claude Code's model, hooks) are a warning, not an error",
}
# Where the reference is wrong and we are right (its bugs).
REFERENCE_BUGS = {
    "bom": "it refuses a file that starts with a byte order mark",
    "triple-hyphen-in-description": "it cuts the frontmatter at the first '---', so the description reads 'a'",
}
# Where we are stricter: a name the reference accepts that cannot be a folder name (runtime/names.py).
STRICTER = {
    "256-byte-name": "over 255 UTF-8 bytes (no file system takes it): installed under a shorter safe form, warned",
}


def ours(case: Case) -> tuple[Ours, str | None, str | None]:
    check = check_skill_bytes(case.text.encode("utf-8"), case.folder)
    if isinstance(check, InvalidSkill):
        return "skipped", None, None
    return ("warned" if check.warnings else "clean"), check.spec.name, check.spec.description


def reference(case: Case, tmp_path: Path) -> tuple[bool, str | None, str | None]:
    """The reference's verdict, and the name (as it compares names: NFKC) and description it reads."""
    folder = tmp_path / case.folder
    try:
        folder.mkdir()
    except OSError:  # a name no file system takes as a folder: the reference's checks without one
        metadata, _ = parse_frontmatter(case.text)
        ok = not validate_metadata(metadata, None)
        return ok, unicodedata.normalize("NFKC", metadata["name"]), metadata["description"]
    (folder / "SKILL.md").write_bytes(case.text.encode("utf-8"))
    if validate(folder):
        return False, None, None
    props = read_properties(folder)
    return True, unicodedata.normalize("NFKC", props.name), props.description


@pytest.mark.parametrize("case_id", sorted(CORPUS))
def test_the_reference_validator_and_our_parser_agree(case_id: str, tmp_path: Path) -> None:
    case = CORPUS[case_id]
    ref_ok, ref_name, ref_description = reference(case, tmp_path)
    verdict, name, description = ours(case)
    if case_id in LENIENT:
        assert (ref_ok, verdict) == (False, "warned"), LENIENT[case_id]
    elif case_id in STRICTER:
        assert (ref_ok, verdict) == (True, "warned"), STRICTER[case_id]
    elif case_id in REFERENCE_BUGS:
        assert verdict == "clean", REFERENCE_BUGS[case_id]
        assert not ref_ok or ref_description != description, REFERENCE_BUGS[case_id]
    else:
        assert ref_ok == (verdict == "clean"), (ref_ok, verdict)
        assert verdict != "warned", "a refusal that is not listed as lenient must skip"
        if ref_ok:
            assert (name, description) == (ref_name, ref_description)


def test_every_listed_difference_is_in_the_corpus() -> None:
    assert set(LENIENT) | set(REFERENCE_BUGS) | set(STRICTER) <= set(CORPUS)

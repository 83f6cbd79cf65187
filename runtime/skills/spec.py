"""SKILL.md: parse its frontmatter and validate it against the Agent Skills specification.

Rules (https://agentskills.io/specification), with the leniency the spec's client guide recommends:

- ``name``: required; ``^[a-z0-9]+(-[a-z0-9]+)*$`` and at most 64 characters, else the skill is skipped
  (the name becomes a folder name, so it must be safe). A name that differs from its folder is a warning.
- ``description``: required, 1–1024 characters; missing or empty skips the skill; longer is a warning.
- ``license``, ``compatibility`` (≤ 500 characters, else a warning), ``metadata`` (a map of strings) and
  ``allowed-tools`` (a space-separated string or a list) are optional; other keys are a warning.
- Frontmatter that YAML would refuse because a value holds an unquoted ``: `` is read again leniently,
  with a warning. Any other unparseable frontmatter skips the skill with the parser's message.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal

from runtime.skills import frontmatter
from runtime.skills.frontmatter import FrontmatterError, Value

NAME_RE = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")
MAX_NAME = 64
MAX_DESCRIPTION = 1024
MAX_COMPATIBILITY = 500
KNOWN_FIELDS = frozenset({"name", "description", "license", "compatibility", "metadata", "allowed-tools"})

SkipReason = Literal[
    "not-text",
    "no-frontmatter",
    "bad-frontmatter",
    "missing-name",
    "invalid-name",
    "missing-description",
]
WarningCode = Literal[
    "unquoted-colon",
    "name-mismatch",
    "description-too-long",
    "compatibility-too-long",
    "unknown-field",
    "bad-field",
]


@dataclass(frozen=True)
class SpecWarning:
    code: WarningCode
    message: str


@dataclass(frozen=True)
class SkillSpec:
    name: str
    description: str
    body: str
    license: str | None = None
    compatibility: str | None = None
    metadata: dict[str, str] = field(default_factory=dict)
    allowed_tools: tuple[str, ...] = ()


@dataclass(frozen=True)
class ValidSkill:
    spec: SkillSpec
    warnings: tuple[SpecWarning, ...] = ()
    status: Literal["valid"] = "valid"


@dataclass(frozen=True)
class InvalidSkill:
    reason: SkipReason
    message: str
    status: Literal["invalid"] = "invalid"


SkillCheck = ValidSkill | InvalidSkill


def check_skill_bytes(data: bytes, folder: str) -> SkillCheck:
    """Validate raw SKILL.md bytes (UTF-8, optional BOM) found in ``folder``."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return InvalidSkill("not-text", "SKILL.md is not UTF-8 text.")
    return check_skill(text, folder)


def check_skill(text: str, folder: str) -> SkillCheck:
    """Validate SKILL.md text found in a folder named ``folder``."""
    warnings: list[SpecWarning] = []
    try:
        parts = frontmatter.split(text)
    except FrontmatterError as exc:
        return InvalidSkill("bad-frontmatter", f"SKILL.md frontmatter: {exc}")
    if parts is None:
        return InvalidSkill("no-frontmatter", "SKILL.md does not start with a '---' frontmatter block.")
    source, body = parts
    try:
        fields = _parse_leniently(source, warnings)
    except FrontmatterError as exc:
        return InvalidSkill("bad-frontmatter", f"SKILL.md frontmatter: {exc}")
    name = fields.get("name")
    if not isinstance(name, str) or not name:
        return InvalidSkill("missing-name", "SKILL.md has no 'name'.")
    if len(name) > MAX_NAME or not NAME_RE.match(name):
        return InvalidSkill(
            "invalid-name",
            f"The name {name[:80]!r} must be 1-{MAX_NAME} lowercase letters, digits and single hyphens.",
        )
    description = fields.get("description")
    if not isinstance(description, str) or not description.strip():
        return InvalidSkill("missing-description", f"The skill {name!r} has no 'description'.")
    spec = SkillSpec(
        name=name,
        description=description.strip(),
        body=body.lstrip("\n"),
        license=_optional_text(fields, "license", warnings),
        compatibility=_optional_text(fields, "compatibility", warnings),
        metadata=_metadata(fields.get("metadata"), warnings),
        allowed_tools=_allowed_tools(fields.get("allowed-tools"), warnings),
    )
    warnings.extend(_soft_checks(spec, folder, fields))
    return ValidSkill(spec, tuple(warnings))


def _parse_leniently(source: str, warnings: list[SpecWarning]) -> dict[str, Value]:
    try:
        return frontmatter.parse(source)
    except FrontmatterError as exc:
        if exc.code != "unquoted-colon":
            raise
        first = exc
    fields = frontmatter.parse(source, lenient=True)
    warnings.append(SpecWarning("unquoted-colon", f"{first.message} It was read as text; quote the value."))
    return fields


def _optional_text(fields: dict[str, Value], key: str, warnings: list[SpecWarning]) -> str | None:
    value = fields.get(key)
    if value is None or isinstance(value, str):
        return value
    warnings.append(SpecWarning("bad-field", f"'{key}' should be text; it was ignored."))
    return None


def _metadata(value: Value, warnings: list[SpecWarning]) -> dict[str, str]:
    if value is None:
        return {}
    if isinstance(value, dict):
        return dict(value)
    warnings.append(SpecWarning("bad-field", "'metadata' should be a map of strings; it was ignored."))
    return {}


def _allowed_tools(value: Value, warnings: list[SpecWarning]) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        return tuple(value.split())
    if isinstance(value, list):
        return tuple(v for v in value if v)
    warnings.append(SpecWarning("bad-field", "'allowed-tools' should be a list of tool names; it was ignored."))
    return ()


def _soft_checks(spec: SkillSpec, folder: str, fields: dict[str, Value]) -> list[SpecWarning]:
    out: list[SpecWarning] = []
    if folder and spec.name != folder:
        out.append(SpecWarning("name-mismatch", f"The name {spec.name!r} differs from its folder {folder!r}."))
    if len(spec.description) > MAX_DESCRIPTION:
        out.append(SpecWarning("description-too-long", f"The description is over {MAX_DESCRIPTION} characters."))
    if spec.compatibility is not None and len(spec.compatibility) > MAX_COMPATIBILITY:
        out.append(SpecWarning("compatibility-too-long", f"'compatibility' is over {MAX_COMPATIBILITY} characters."))
    out.extend(
        SpecWarning("unknown-field", f"Unknown field {key!r} was ignored.")
        for key in sorted(set(fields) - KNOWN_FIELDS)
    )
    return out

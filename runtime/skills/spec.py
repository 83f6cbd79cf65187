"""SKILL.md: parse its frontmatter and validate it against the Agent Skills specification.

Rules (https://agentskills.io/specification), with the leniency the spec's client guide recommends:

- ``name``: required. As the reference validator (``skills-ref``) reads it: after NFKC, 1-64 characters,
  lowercase letters of any script (``str.islower``-stable, ``str.isalnum``), digits and single hyphens,
  no hyphen first or last (``技能``, ``données``; full-width ``ｐｄｆ`` is ``pdf``), and a valid folder name
  (``runtime.names``: at most 255 UTF-8 bytes). It should match its folder (both read after NFKC). The
  name becomes the skill's folder, so one that does not conform is installed under a safe form of it
  (``PDF Tools`` as ``pdf-tools``) with an ``invalid-name`` warning; only a name with no letter or digit
  to keep (in it or its folder) skips the skill. A valid name that differs from its folder is a
  ``name-mismatch`` warning. ``tests/unit/skills/test_skills_reference.py`` checks all this against
  ``skills-ref`` and lists where we are deliberately more lenient.
- ``description``: required, 1–1024 characters; missing or empty skips the skill; longer is a warning.
- ``license``, ``compatibility`` (≤ 500 characters, else a warning), ``metadata`` (a map; values that are
  not text are kept as JSON) and ``allowed-tools`` (a space- or comma-separated string, or a list) are
  optional; other keys (Claude Code's ``hooks``, ``model``, ...) are an ``unknown-field`` warning.
- Frontmatter that is not valid YAML is read key by key (see ``frontmatter``); a value read as plain
  text is a warning (``unquoted-colon`` when YAML refused an unquoted ``: ``, else ``not-yaml``).
  Frontmatter that is not ``key: value`` fields at all skips the skill with a clear message; so does one
  past the caps (64 KiB, 2,000 keys and values: ``frontmatter-too-large``, see ``frontmatter``).
"""

from __future__ import annotations

import json
import re
import unicodedata
from dataclasses import dataclass, field
from typing import Any, Literal

from runtime.names import MAX_COMPONENT_BYTES, name_problem
from runtime.skills import frontmatter
from runtime.skills.frontmatter import FrontmatterError

MAX_NAME = 64
MAX_DESCRIPTION = 1024
MAX_COMPATIBILITY = 500
KNOWN_FIELDS = frozenset({"name", "description", "license", "compatibility", "metadata", "allowed-tools"})
_TOOL_SEPARATORS = frozenset(" \t\n,")

SkipReason = Literal[
    "not-text",
    "no-frontmatter",
    "bad-frontmatter",
    "frontmatter-too-large",
    "missing-name",
    "invalid-name",
    "missing-description",
]
WarningCode = Literal[
    "unquoted-colon",
    "not-yaml",
    "duplicate-key",
    "invalid-name",
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
    """A valid skill. ``name`` is the one it is installed and activated under (safe as a folder name);
    ``declared_name`` is what its frontmatter says (the same unless that does not conform)."""

    name: str
    description: str
    body: str
    license: str | None = None
    compatibility: str | None = None
    metadata: dict[str, str] = field(default_factory=dict)
    allowed_tools: tuple[str, ...] = ()
    declared_name: str = ""


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
        if parts is None:
            return InvalidSkill("no-frontmatter", "SKILL.md does not start with a '---' frontmatter block.")
        source, body = parts
        fields = _fields(source, warnings)
    except FrontmatterError as exc:
        reason: SkipReason = "frontmatter-too-large" if exc.code == "too-large" else "bad-frontmatter"
        return InvalidSkill(reason, f"SKILL.md frontmatter: {exc}")
    declared = fields.get("name")
    if not isinstance(declared, str) or not declared.strip():
        what = "has no 'name'" if declared is None or isinstance(declared, str) else "has a 'name' that is not text"
        return InvalidSkill("missing-name", f"SKILL.md {what}.")
    name = install_name(declared, folder, warnings)
    if name is None:
        return InvalidSkill(
            "invalid-name",
            f"The name {declared[:80]!r} has no letters or digits to name a folder with; "
            f"use 1-{MAX_NAME} lowercase letters, digits and single hyphens.",
        )
    description = fields.get("description")
    if not isinstance(description, str) or not description.strip():
        return InvalidSkill("missing-description", f"The skill {declared[:80]!r} has no 'description' text.")
    spec = SkillSpec(
        name=name,
        description=description.strip(),
        body=body.lstrip("\n"),
        license=_optional_text(fields, "license", warnings),
        compatibility=_optional_text(fields, "compatibility", warnings),
        metadata=_metadata(fields.get("metadata"), warnings),
        allowed_tools=allowed_tools(fields.get("allowed-tools"), warnings),
        declared_name=declared,
    )
    warnings.extend(_soft_checks(spec, folder, fields))
    return ValidSkill(spec, tuple(warnings))


def _fields(source: str, warnings: list[SpecWarning]) -> dict[str, Any]:
    parsed = frontmatter.parse(source)
    for key, problem in parsed.as_text.items():
        colon = "mapping values are not allowed" in problem
        code: WarningCode = "unquoted-colon" if colon else "not-yaml"
        why = "holds an unquoted ': ' (quote it)" if colon else f"is not valid YAML ({problem})"
        warnings.append(SpecWarning(code, f"The value of {key!r} {why}; it was read as text."))
    warnings.extend(
        SpecWarning("duplicate-key", f"The key {key!r} appears more than once; the last one is used.")
        for key in parsed.repeated
    )
    return parsed.fields


def spec_name(text: str) -> str | None:
    """``text`` as the spec reads a name (stripped, NFKC) when it conforms and can name a folder; else None."""
    name = unicodedata.normalize("NFKC", text.strip())
    if not name or len(name) > MAX_NAME or name != name.lower() or name_problem(name) is not None:
        return None
    if name.startswith("-") or name.endswith("-") or "--" in name:
        return None
    return name if all(c.isalnum() or c == "-" for c in name) else None


def install_name(declared: str, folder: str, warnings: list[SpecWarning]) -> str | None:
    """The declared name when it conforms; otherwise a safe form of it (or of the folder), with a warning."""
    name = spec_name(declared)
    if name is not None:
        return name
    safe = slug(declared) or slug(folder)
    if not safe:
        return None
    warnings.append(
        SpecWarning(
            "invalid-name",
            f"The name {declared[:80]!r} does not follow the spec (1-{MAX_NAME} lowercase letters, digits and "
            f"single hyphens); the skill is known as {safe!r}.",
        )
    )
    return safe


def slug(text: str) -> str:
    """A conforming name made of ``text``'s lowercase letters and digits (any script) joined by single
    hyphens, at most ``MAX_NAME`` characters; its ASCII letters and digits when that does not conform; or ""."""
    lowered = unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", text).lower())
    words = "".join(c if c.isalnum() and c == c.lower() else " " for c in lowered).split()
    safe = "-".join(words)[:MAX_NAME]
    while len(safe.encode("utf-8")) > MAX_COMPONENT_BYTES:  # 64 characters of 4 bytes do not fit a folder
        safe = safe[:-1]
    safe = safe.strip("-")
    if spec_name(safe) == safe:
        return safe
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii").lower()
    return "-".join(re.findall(r"[a-z0-9]+", ascii_text))[:MAX_NAME].strip("-")


def _optional_text(fields: dict[str, Any], key: str, warnings: list[SpecWarning]) -> str | None:
    value = fields.get(key)
    if value is None or isinstance(value, str):
        return value
    warnings.append(SpecWarning("bad-field", f"'{key}' should be text; it was ignored."))
    return None


def _metadata(value: Any, warnings: list[SpecWarning]) -> dict[str, str]:
    if value is None:
        return {}
    if isinstance(value, dict):
        return {str(k): v if isinstance(v, str) else json.dumps(v, ensure_ascii=False) for k, v in value.items()}
    warnings.append(SpecWarning("bad-field", "'metadata' should be a map of 'key: value' lines; it was ignored."))
    return {}


def allowed_tools(value: Any, warnings: list[SpecWarning]) -> tuple[str, ...]:
    """Tool names from a space- or comma-separated string (``Bash(git add:*)`` stays one name) or a list."""
    if value is None:
        return ()
    if isinstance(value, str):
        return tuple(_split_tools(value))
    if isinstance(value, list) and all(isinstance(v, str) or v is None for v in value):
        return tuple(name for v in value if v for name in _split_tools(v))
    warnings.append(SpecWarning("bad-field", "'allowed-tools' should be tool names in a line or a list; ignored."))
    return ()


def _split_tools(text: str) -> list[str]:
    """Split at spaces and commas outside parentheses."""
    names: list[str] = []
    current, depth = "", 0
    for ch in text:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth = max(depth - 1, 0)
        if ch in _TOOL_SEPARATORS and depth == 0:
            names.append(current)
            current = ""
        else:
            current += ch
    names.append(current)
    return [n for n in names if n]


def _soft_checks(spec: SkillSpec, folder: str, fields: dict[str, Any]) -> list[SpecWarning]:
    out: list[SpecWarning] = []
    if folder and spec.name != unicodedata.normalize("NFKC", folder) and spec.name == spec_name(spec.declared_name):
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

"""The installed skills of a workspace: list, enable/disable, the system-prompt block, activation.

Skills live in ``<workspace>/.agents/skills/<name>/SKILL.md``. Which are disabled is kept in
``.agents/skills/state.json`` (``{"version": 1, "disabled": [...]}``); a skill not listed there is
enabled, so a new install is enabled. Skill names cannot hold a dot, so neither this file nor staging
folders (``.staging-*``) can collide with a skill.

Progressive disclosure: ``available_skills_block`` puts only names, descriptions and locations in the
system prompt (nothing when no skill is enabled); ``activate`` returns a skill's body and its files.

A folder whose SKILL.md is missing or invalid (one written before a check existed, say a frontmatter
past the caps) is left out of the catalog, logged once per version and listed by ``skipped_skills`` with
the reason, so the skills panel can say why; its check is bounded like every frontmatter's.

The catalog is read by every turn's system prompt and tool schemas and by the skills panel: it is built
once and kept until something it reads changes (``layout.catalog_stamp``); a rebuild parses again only
the SKILL.md files that changed.
"""

from __future__ import annotations

import json
import logging
import os
from dataclasses import dataclass
from pathlib import Path
from xml.sax.saxutils import escape

from runtime.names import MAX_SHOWN_NAME_CHARS, one_line
from runtime.skills.errors import SkillError
from runtime.skills.layout import SKILL_FILE, SKILLS_DIR, STATE_FILE, Identity, Stamp, catalog_stamp, skills_dir
from runtime.skills.origins import Origin, read_origins
from runtime.skills.spec import MAX_DESCRIPTION, InvalidSkill, SpecWarning, check_skill_bytes
from runtime.store.kept import Kept

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class InstalledSkill:
    name: str
    description: str
    location: str  # workspace-relative path of its SKILL.md
    enabled: bool
    allowed_tools: tuple[str, ...] = ()  # as its frontmatter lists them (names of other agents' tools too)
    warnings: tuple[SpecWarning, ...] = ()  # what does not follow the spec (the skill still works)
    origin: Origin | None = None  # the tool server it came from (origins.py); None: the person's own


@dataclass(frozen=True)
class SkippedSkill:
    folder: str  # the folder's name under .agents/skills/
    message: str  # why it is not a skill


@dataclass(frozen=True)
class _Summary:
    description: str
    allowed_tools: tuple[str, ...]
    warnings: tuple[SpecWarning, ...]


@dataclass(frozen=True)
class Activation:
    name: str
    body: str
    root: str  # workspace-relative folder of the skill
    files: tuple[str, ...]  # relative to ``root``, without SKILL.md
    origin: Origin | None = None


def list_skills(workspace: Path) -> tuple[InstalledSkill, ...]:
    """Every installed skill with a valid SKILL.md, sorted by name; broken ones are logged and left out."""
    return read_catalog(workspace)[0]


def skipped_skills(workspace: Path) -> tuple[SkippedSkill, ...]:
    """The folders under .agents/skills/ that are not skills, with why, sorted by name."""
    return read_catalog(workspace)[1]


Catalog = tuple[tuple[InstalledSkill, ...], tuple[SkippedSkill, ...]]
_catalogs: Kept[str, tuple[Stamp, Catalog]] = Kept(4)  # workspaces (one in the app; tests make many)


def read_catalog(workspace: Path) -> Catalog:
    """The installed skills and the folders that are not skills (with why), in one pass over the folders.

    Kept until what it reads changes (``layout.catalog_stamp``): a turn's prompt, its tool schemas and the
    skills panel all ask, and with 200 skills each build read 200 files."""
    stamp = catalog_stamp(workspace)
    if stamp is None:
        return (), ()
    root = skills_dir(workspace)
    kept = _catalogs.get(str(root))
    if kept is not None and kept[0] == stamp:
        return kept[1]
    catalog = _build(root, stamp)
    _catalogs.put(str(root), (stamp, catalog))
    return catalog


def _build(root: Path, stamp: Stamp) -> Catalog:
    disabled = _disabled_in(root)
    origins = read_origins(root)
    out: list[InstalledSkill] = []
    skipped: list[SkippedSkill] = []
    for name, is_dir, skill_md in stamp[2]:
        if name.startswith(".") or not is_dir:
            continue
        summary = _summary(root / name / SKILL_FILE, name, skill_md)
        if not isinstance(summary, _Summary):
            skipped.append(SkippedSkill(name, summary))
            continue
        location = f"{SKILLS_DIR}/{name}/{SKILL_FILE}"
        enabled = name not in disabled
        out.append(
            InstalledSkill(
                name, summary.description, location, enabled, summary.allowed_tools, summary.warnings, origins.get(name)
            )
        )
    return tuple(out), tuple(skipped)


# A SKILL.md is parsed again only when its identity (inode, size, modification time) changed
# (path -> (identity, summary, or why it is invalid)).
_parsed: dict[str, tuple[Identity, _Summary | str]] = {}


def _summary(skill_md: Path, folder_name: str, seen: Identity | None) -> _Summary | str:
    """What the list shows of a valid SKILL.md; why not (logged once per version) when missing or invalid."""
    if seen is None:
        return f"The folder has no {SKILL_FILE}."
    key = str(skill_md)
    cached = _parsed.get(key)
    if cached is not None and cached[0] == seen:
        return cached[1]
    try:
        data = skill_md.read_bytes()
    except OSError as exc:
        return f"{SKILL_FILE} could not be read ({exc.strerror or exc})."
    check = check_skill_bytes(data, folder_name)
    summary: _Summary | str
    if isinstance(check, InvalidSkill):
        log.warning("skill folder %s skipped: %s", folder_name, check.message)
        summary = check.message
    else:
        summary = _Summary(check.spec.description, check.spec.allowed_tools, check.warnings)
    _parsed[key] = (seen, summary)
    return summary


def set_enabled(workspace: Path, name: str, enabled: bool) -> None:
    """Enable or disable an installed skill; the flag survives reloads."""
    if name not in {s.name for s in list_skills(workspace)}:
        raise SkillError("not-found", f"No installed skill is named {name!r}.", name=name)
    disabled = _disabled(workspace)
    _write_disabled(workspace, disabled - {name} if enabled else disabled | {name})


def forget(workspace: Path, name: str) -> None:
    """Drop a removed skill's flag, so a skill imported later under that name starts enabled."""
    disabled = _disabled(workspace)
    if name in disabled:
        _write_disabled(workspace, disabled - {name})


def _write_disabled(workspace: Path, disabled: frozenset[str]) -> None:
    path = skills_dir(workspace) / STATE_FILE
    tmp = path.with_name(f".{STATE_FILE}.tmp")
    tmp.write_text(json.dumps({"version": 1, "disabled": sorted(disabled)}, indent=2) + "\n", encoding="utf-8")
    os.replace(tmp, path)


def available_skills_block(skills: tuple[InstalledSkill, ...]) -> str:
    """The ``<available_skills>`` block for the system prompt; "" when no skill is enabled.

    Names, descriptions and locations are untrusted text: each is one line (``runtime.names.one_line``:
    line breaks flattened, unsafe characters escaped, bounded) and XML-escaped, so none can end its
    element, open a heading or add a section.
    """
    enabled = [s for s in skills if s.enabled]
    if not enabled:
        return ""
    lines = ["<available_skills>"]
    for skill in enabled:
        lines += [
            "  <skill>",
            f"    <name>{escape(one_line(skill.name, MAX_SHOWN_NAME_CHARS))}</name>",
            f"    <description>{escape(one_line(skill.description, MAX_DESCRIPTION))}</description>",
            f"    <location>{escape(one_line(skill.location, MAX_SHOWN_NAME_CHARS))}</location>",
        ]
        if skill.origin is not None:  # told apart from the person's own skills
            lines.append(f"    <origin>{escape(one_line(skill.origin.describe(), MAX_DESCRIPTION))}</origin>")
        lines.append("  </skill>")
    lines.append("</available_skills>")
    return "\n".join(lines)


def activate(workspace: Path, name: str) -> Activation:
    """The body of an enabled skill's SKILL.md (frontmatter removed) and the list of its other files."""
    skill = next((s for s in list_skills(workspace) if s.name == name), None)
    if skill is None:
        raise SkillError("not-found", f"No installed skill is named {name!r}.", name=name)
    if not skill.enabled:
        raise SkillError("disabled", f"The skill {name!r} is disabled; enable it in the skills panel.", name=name)
    folder = skills_dir(workspace) / name
    check = check_skill_bytes((folder / SKILL_FILE).read_bytes(), name)
    if isinstance(check, InvalidSkill):
        raise SkillError("invalid", check.message, name=name)
    files = sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file() and p.name != SKILL_FILE)
    return Activation(name, check.spec.body, str(SKILLS_DIR / name), tuple(files), skill.origin)


def _disabled(workspace: Path) -> frozenset[str]:
    return _disabled_in(skills_dir(workspace))


def _disabled_in(root: Path) -> frozenset[str]:
    path = root / STATE_FILE
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return frozenset()
    except (OSError, ValueError) as exc:
        log.warning("%s is unreadable (%s); every skill counts as enabled", path.name, exc)
        return frozenset()
    disabled = data.get("disabled", []) if isinstance(data, dict) else []
    return frozenset(n for n in disabled if isinstance(n, str))

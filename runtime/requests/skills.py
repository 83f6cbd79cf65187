"""Skills panel requests: import an archive, list, enable/disable, remove, show one.

Every change to the workspace is saved to the host as a workspace flush; a path that names a folder
means "this whole folder" (see docs/protocol.md).
"""

import shutil
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING, NotRequired, TypedDict, cast

from runtime.host.constants import SKILL_ARCHIVE_MAX_BYTES
from runtime.host.workspace_fetch import AGENTS_DIR as AGENTS_TREE
from runtime.host.workspace_fetch import SKILLS_DIR as SKILLS_TREE
from runtime.requests.method import Method, NoParams, Table
from runtime.requests.params import RequestError, flag, text
from runtime.skills.errors import SkillError
from runtime.skills.importer import ImportState, SkillStatus
from runtime.skills.scan import FindingKind, SkillVerdict
from runtime.skills.spec import WarningCode

if TYPE_CHECKING:
    from runtime.requests.ports import Ports
    from runtime.skills.catalog import InstalledSkill
    from runtime.skills.origins import Origin

MAX_ARCHIVE_BYTES = SKILL_ARCHIVE_MAX_BYTES


class SkillWarning(TypedDict):
    """What does not follow the Agent Skills spec (the skill is installed and works)."""

    code: WarningCode
    message: str


class ScanFinding(TypedDict):
    path: str
    kind: FindingKind
    detail: str
    line: int


class SkillScan(TypedDict):
    """What the skill's scripts need of the browser (``verdict``), and why."""

    verdict: SkillVerdict
    needs: list[str]
    findings: list[ScanFinding]
    scripts: list[str]


class SkillOutcome(TypedDict):
    """What became of one SKILL.md folder of an archive (``folder``: its path in the archive)."""

    folder: str
    name: str
    status: SkillStatus
    reason: str
    message: str
    warnings: list[SkillWarning]
    scan: SkillScan | None
    location: str


class SkillOrigin(TypedDict):
    """The tool server a skill came from (the MCP skills extension): its name here and the skill's URI."""

    server: str
    uri: str


class SkillImportParams(TypedDict):
    path: str  # where the host stored the archive (under INCOMING_DIR); the host adds it
    filename: str
    size: NotRequired[int]
    replace: NotRequired[bool]
    origin: NotRequired[SkillOrigin]  # absent: the person's own archive


class AgentImportOutcome(TypedDict):
    """What became of one agent file of an archive (``runtime.agents.imports``; ``path``: in the archive)."""

    path: str
    name: str
    status: SkillStatus
    message: str
    location: str
    warnings: list[str]


class SkillImportReport(TypedDict):
    state: ImportState
    reason: str
    message: str
    needs_confirmation: bool  # some skill or profile exists: ask, then import again with ``replace``
    skills: list[SkillOutcome]
    agents: list[AgentImportOutcome]  # the archive's agent profiles (agents/<name>.md), installed beside


class ListedSkill(TypedDict):
    name: str
    description: str
    location: str
    enabled: bool
    allowed_tools: list[str]  # its ``allowed-tools``, as written
    warnings: list[SkillWarning]
    unknown_tools: list[str]  # those of ``allowed_tools`` not in the tool catalog
    origin: SkillOrigin | None  # the tool server it came from; None: the person's own


class SkippedSkill(TypedDict):
    folder: str  # a folder under .agents/skills/ that is not a skill
    message: str  # why


class SkillList(TypedDict):
    skills: list[ListedSkill]
    skipped: list[SkippedSkill]


class SkillName(TypedDict):
    name: str


class SkillEnabledParams(TypedDict):
    name: str
    enabled: bool


class SkillRemoved(TypedDict):
    removed: str


class SkillFile(TypedDict):
    path: str  # relative to the skill's folder
    size: int


class SkillDetail(ListedSkill):
    declared_name: str
    body: str
    license: str | None
    compatibility: str | None
    metadata: dict[str, str]
    files: list[SkillFile]


def _installed(ports: "Ports", name: str) -> "InstalledSkill":
    from runtime.skills.catalog import list_skills

    skill = next((s for s in list_skills(ports.workspace) if s.name == name), None)
    if skill is None:
        raise SkillError("not-found", f"No installed skill is named {name!r}.", name=name)
    return skill


async def skill_import(ports: "Ports", params: SkillImportParams) -> SkillImportReport:
    """Import the archive the host stored at ``params.path`` (an absolute path in the runtime's file
    system; the host writes it there and removes it after the reply), named ``params.filename``."""
    await ports.on_demand.tree(SKILLS_TREE)
    await ports.on_demand.tree(AGENTS_TREE)
    from runtime.agents.imports import import_with_agents
    from runtime.skills.layout import ORIGINS_FILE, SKILLS_DIR, skills_dir
    from runtime.skills.origins import record_origin

    origin = _origin(params)
    path = Path(text(params, "path"))
    if not path.is_absolute() or not path.is_file():
        raise RequestError("bad_params", "params.path must name the stored archive (an absolute path to a file)")
    if path.stat().st_size > MAX_ARCHIVE_BYTES:
        raise RequestError("too_large", f"The archive is over {MAX_ARCHIVE_BYTES // (1024 * 1024)} MiB.")
    report = cast(
        SkillImportReport,
        import_with_agents(
            path, ports.workspace, filename=text(params, "filename"), replace=flag(params, "replace", default=False)
        ),
    )
    written = [s for s in report["skills"] if s["status"] in ("installed", "replaced") and s["location"]]
    changed = [s["location"] for s in written]
    changed += [a["location"] for a in report["agents"] if a["status"] in ("installed", "replaced")]
    if record_origin(skills_dir(ports.workspace), [s["name"] for s in written], origin):
        changed.append(str(SKILLS_DIR / ORIGINS_FILE))
    await ports.state.flusher.workspace(changed)
    return report


def _origin(params: SkillImportParams) -> "Origin | None":
    from runtime.skills.origins import checked_origin

    raw = params.get("origin")
    if raw is None:
        return None
    if not isinstance(raw, dict):
        raise RequestError("bad_params", "params.origin must be an object with server and uri")
    try:
        return checked_origin(raw.get("server"), raw.get("uri"))
    except ValueError as exc:
        raise RequestError("bad_params", f"params.{exc}") from None


async def skills_list(ports: "Ports", params: NoParams) -> SkillList:
    """The installed skills, and the folders that are not skills with why (``skipped``)."""
    await ports.on_demand.tree(SKILLS_TREE)
    from runtime.skills.catalog import read_catalog

    tools = _tool_names(ports)
    installed, skipped = read_catalog(ports.workspace)
    return {
        "skills": [_listed(tools, s) for s in installed],
        "skipped": [cast(SkippedSkill, asdict(s)) for s in skipped],
    }


def _tool_names(ports: "Ports") -> frozenset[str]:
    return frozenset(t["name"] for t in ports.tools.catalog())


def _listed(tools: frozenset[str], skill: "InstalledSkill") -> ListedSkill:
    """A skill as the panel lists it; ``unknown_tools``: its ``allowed-tools`` that are not tools here."""
    return cast(ListedSkill, {**asdict(skill), "unknown_tools": [n for n in skill.allowed_tools if n not in tools]})


async def skill_set_enabled(ports: "Ports", params: SkillEnabledParams) -> SkillList:
    await ports.on_demand.tree(SKILLS_TREE)
    from runtime.skills.catalog import set_enabled
    from runtime.skills.layout import SKILLS_DIR, STATE_FILE

    set_enabled(ports.workspace, text(params, "name"), flag(params, "enabled"))
    await ports.state.flusher.workspace([str(SKILLS_DIR / STATE_FILE)])
    return await skills_list(ports, {})


async def skill_remove(ports: "Ports", params: SkillName) -> SkillRemoved:
    await ports.on_demand.tree(SKILLS_TREE)
    from runtime.skills.catalog import forget
    from runtime.skills.layout import ORIGINS_FILE, SKILLS_DIR, STATE_FILE, skills_dir
    from runtime.skills.origins import record_origin

    name = _installed(ports, text(params, "name")).name

    shutil.rmtree(skills_dir(ports.workspace) / name)
    forget(ports.workspace, name)
    changed = [str(SKILLS_DIR / name), str(SKILLS_DIR / STATE_FILE)]
    if record_origin(skills_dir(ports.workspace), [name], None):
        changed.append(str(SKILLS_DIR / ORIGINS_FILE))
    await ports.state.flusher.workspace(changed)
    return {"removed": name}


async def skill_show(ports: "Ports", params: SkillName) -> SkillDetail:
    await ports.on_demand.tree(SKILLS_TREE)
    from runtime.skills.layout import SKILL_FILE, skills_dir
    from runtime.skills.spec import InvalidSkill, check_skill_bytes

    skill = _installed(ports, text(params, "name"))
    folder = skills_dir(ports.workspace) / skill.name
    check = check_skill_bytes((folder / SKILL_FILE).read_bytes(), skill.name)
    if isinstance(check, InvalidSkill):
        raise SkillError("invalid", check.message, name=skill.name)
    spec = check.spec
    files: list[SkillFile] = [
        {"path": p.relative_to(folder).as_posix(), "size": p.stat().st_size}
        for p in sorted(folder.rglob("*"))
        if p.is_file() and p.name != SKILL_FILE
    ]
    return {
        **_listed(_tool_names(ports), skill),
        "declared_name": spec.declared_name,
        "body": spec.body,
        "license": spec.license,
        "compatibility": spec.compatibility,
        "metadata": spec.metadata,
        "files": files,
    }


METHODS: Table = {
    "skill_import": Method(SkillImportParams, SkillImportReport, skill_import, file=True),
    "skills_list": Method(NoParams, SkillList, skills_list),
    "skill_set_enabled": Method(SkillEnabledParams, SkillList, skill_set_enabled),
    "skill_remove": Method(SkillName, SkillRemoved, skill_remove),
    "skill_show": Method(SkillName, SkillDetail, skill_show),
}

"""Agent profiles that come in a skill archive: each ``agents/<name>.md`` or ``.agents/agents/<name>.md``
of the archive, at any depth (Claude Code plugin repositories keep ``plugins/<plugin>/agents/``),
installed as ``.agents/agents/<name>.md`` beside the archive's skills, and reported with them.

The skills are imported first (``runtime.skills.importer``, which reads and checks the archive); then
the same bytes are read again for the agent files, leaving out those inside a skill's folder (part of
that skill). A file is written as it was (its Claude Code tool names stay as written and are read as
ours when it loads); one that is not a profile is skipped with why, and an existing profile is only
replaced with ``replace``, as a skill is. A README.md in an agents folder is not a profile and is left out.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass
from pathlib import Path, PurePosixPath
from typing import Any, Literal

from runtime.agents.profiles import BUILTIN, PROFILES_DIR, ProfileError, parse
from runtime.skills.archive import Archive, read_archive
from runtime.skills.errors import ArchiveError
from runtime.skills.importer import ImportReport, find_skill_roots, import_archive_file

AgentStatus = Literal["installed", "replaced", "exists", "skipped"]
_AGENT_FILE = re.compile(r"(?:^|/)(?:\.agents/)?agents/[^/]+\.md$")
_CONTINUE = ("no-skill", "no-valid-skill", "exists")  # skill-level reasons: the archive itself was read


@dataclass(frozen=True)
class AgentOutcome:
    """What became of one agent file of the archive (``path``: its path in the archive)."""

    path: str
    name: str
    status: AgentStatus
    message: str = ""
    location: str = ""
    warnings: tuple[str, ...] = ()


def agent_files(archive: Archive) -> list[tuple[str, bytes]]:
    """The archive's agent files, in archive order, without those inside a skill's folder."""
    roots = [r for r in find_skill_roots(archive) if r]
    has_root_skill = "" in find_skill_roots(archive)
    out: list[tuple[str, bytes]] = []
    for entry in archive.entries:
        if entry.kind != "file" or not _AGENT_FILE.search(entry.path) or PurePosixPath(entry.path).name == "README.md":
            continue
        inside_skill = any(entry.path.startswith(root + "/") for root in roots)
        if inside_skill or (has_root_skill and entry.path.startswith("agents/")):
            continue
        out.append((entry.path, entry.data))
    return out


def import_with_agents(path: Path, workspace: Path, *, filename: str, replace: bool) -> dict[str, Any]:
    """The skill import report (``ImportReport.to_dict``) with ``agents``: what became of each agent file.
    ``state`` and ``message`` count the skills and the profiles together."""
    report = import_archive_file(path, workspace, filename=filename, replace=replace)
    if report.state == "rejected" and report.reason not in _CONTINUE:
        return {**report.to_dict(), "agents": []}
    try:
        archive = read_archive(path.read_bytes(), filename=filename)
    except (ArchiveError, OSError):  # read once already: only a file changed under us gets here
        return {**report.to_dict(), "agents": []}
    agents = install_agents(agent_files(archive), workspace, replace=replace)
    return _combined(report, agents)


def install_agents(files: list[tuple[str, bytes]], workspace: Path, *, replace: bool) -> tuple[AgentOutcome, ...]:
    outcomes: list[AgentOutcome] = []
    taken: set[str] = set()
    for archive_path, data in files:
        outcome = _one(archive_path, data, workspace, replace, taken)
        if outcome.status in ("installed", "replaced"):
            (workspace / PROFILES_DIR).mkdir(parents=True, exist_ok=True)
            (workspace / outcome.location).write_bytes(data)
            taken.add(outcome.name)
        outcomes.append(outcome)
    return tuple(outcomes)


def _one(archive_path: str, data: bytes, workspace: Path, replace: bool, taken: set[str]) -> AgentOutcome:
    try:
        profile = parse(data.decode("utf-8"))
    except UnicodeDecodeError:
        return AgentOutcome(archive_path, "", "skipped", "The file is not UTF-8 text.")
    except ProfileError as exc:
        return AgentOutcome(archive_path, "", "skipped", str(exc))
    name = profile.name
    location = (PROFILES_DIR / f"{name}.md").as_posix()
    if name in taken:
        return AgentOutcome(archive_path, name, "skipped", "Another agent file in the archive has this name.")
    if any(p.name == name for p in BUILTIN):
        return AgentOutcome(archive_path, name, "skipped", f"{name!r} is a built-in profile's name.")
    exists = (workspace / location).exists()
    if exists and not replace:
        return AgentOutcome(archive_path, name, "exists", "exists; confirm to replace", location)
    return AgentOutcome(archive_path, name, "replaced" if exists else "installed", "", location, profile.warnings)


def _combined(report: ImportReport, agents: tuple[AgentOutcome, ...]) -> dict[str, Any]:
    out = report.to_dict()
    out["agents"] = [asdict(a) for a in agents]
    if not agents:
        return out
    done_skills = sum(1 for s in report.skills if s.status in ("installed", "replaced"))
    done_agents = sum(1 for a in agents if a.status in ("installed", "replaced"))
    total = len(report.skills) + len(agents)
    done = done_skills + done_agents
    said = f"{done_skills} skill(s) and {done_agents} agent profile(s)"
    if done == total:
        out.update(state="ok", reason="", message=f"Installed {said}.")
    elif done:
        out.update(state="partial", reason="", message=f"Installed {said} of {total}.")
    elif any(a.status == "exists" for a in agents) or report.needs_confirmation:
        out.update(state="rejected", reason="exists", message="Already installed; confirm to replace.")
    else:
        out.update(state="rejected", reason="no-valid-skill", message="Nothing in the archive could be installed.")
    out["needs_confirmation"] = report.needs_confirmation or any(a.status == "exists" for a in agents)
    return out

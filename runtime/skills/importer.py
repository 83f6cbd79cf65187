"""Import every skill in an archive into ``<workspace>/.agents/skills/<name>/``.

Every folder holding a ``SKILL.md`` is one skill (a whole repository archive yields all of them); a
``SKILL.md`` at the archive root takes the archive's file name (less ``.zip``, ``.skill``, ...) as its
folder name. A skill is installed under its spec name (a safe form of it when the name does not follow
the spec, with a warning; see ``spec``). The archive (bytes, or a file the host stored:
``import_archive_file``) is read and checked in memory (``archive.read_archive``), each SKILL.md
validated (``spec``) and its scripts scanned (``scan``) before anything is written; accepted skills are
written to a staging folder and renamed into place. An installed skill is only replaced with
``replace=True``; otherwise its outcome is ``exists`` ("exists; confirm to replace"). A failure while
writing puts back what was there.

The report's ``state``: ``ok`` when every skill found was installed, ``partial`` when some were and some
were not, ``rejected`` when none was; ``reason`` then says why: an archive reason code (see
``archive``), ``no-skill`` (no SKILL.md), ``no-valid-skill`` (none passed validation) or ``exists``.
"""

from __future__ import annotations

import logging
import os
import secrets
import shutil
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path, PurePosixPath
from typing import Any, Literal

from runtime.skills.archive import Archive, Entry, Limits, first_missing_ancestor, read_archive, write_tree
from runtime.skills.errors import ArchiveError
from runtime.skills.layout import SKILL_FILE, SKILLS_DIR, skills_dir
from runtime.skills.scan import ScanResult, scan_skill
from runtime.skills.spec import InvalidSkill, SpecWarning, check_skill_bytes

log = logging.getLogger(__name__)

ARCHIVE_SUFFIXES = (".tar.gz", ".tgz", ".zip", ".tar", ".skill")  # a .skill file is a zip

SkillStatus = Literal["installed", "replaced", "exists", "skipped"]
ImportState = Literal["ok", "partial", "rejected"]


@dataclass(frozen=True)
class SkillOutcome:
    """What happened to one SKILL.md folder. ``folder`` is its path inside the archive."""

    folder: str
    name: str
    status: SkillStatus
    reason: str = ""
    message: str = ""
    warnings: tuple[SpecWarning, ...] = ()
    scan: ScanResult | None = None
    location: str = ""


@dataclass(frozen=True)
class ImportReport:
    state: ImportState
    skills: tuple[SkillOutcome, ...] = ()
    reason: str = ""
    message: str = ""

    @property
    def needs_confirmation(self) -> bool:
        """True when some skill was not installed only because it exists (import again with replace)."""
        return any(s.status == "exists" for s in self.skills)

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["needs_confirmation"] = self.needs_confirmation
        return out


@dataclass(frozen=True)
class _Plan:
    outcome: SkillOutcome
    entries: tuple[Entry, ...] = field(default=(), repr=False)


def import_archive(
    data: bytes, workspace: Path, *, filename: str = "", replace: bool = False, limits: Limits | None = None
) -> ImportReport:
    """Import every skill in the archive ``data`` (named ``filename``) into ``workspace``."""
    try:
        archive = read_archive(data, filename=filename, limits=limits)
    except ArchiveError as exc:
        log.info("archive %s rejected: %s", filename or "(unnamed)", exc.reason)
        return ImportReport("rejected", reason=exc.reason, message=exc.message)
    roots = find_skill_roots(archive)
    if not roots:
        return ImportReport("rejected", reason="no-skill", message="The archive has no SKILL.md; it holds no skill.")
    plans = _plan_all(archive, roots, archive_stem(filename), skills_dir(workspace), replace)
    to_write = [p for p in plans if p.outcome.status in ("installed", "replaced")]
    if to_write:
        try:
            _install(skills_dir(workspace), to_write)
        except ArchiveError as exc:  # everything was put back: no outcome may say installed
            outcomes = tuple(_unwritten(p.outcome, exc) if p in to_write else p.outcome for p in plans)
            return ImportReport("rejected", outcomes, exc.reason, exc.message)
    return _report(tuple(p.outcome for p in plans))


def import_archive_file(
    path: Path, workspace: Path, *, filename: str = "", replace: bool = False, limits: Limits | None = None
) -> ImportReport:
    """Import the archive stored at ``path`` (the host writes an upload there, not into a frame).

    An archive over the size limit is refused from its size alone, before a byte of it is read.
    """
    limits = limits or Limits()
    name = filename or path.name
    try:
        size = path.stat().st_size
        if size > limits.max_archive_bytes:
            message = f"The archive is {size} bytes; the limit is {limits.max_archive_bytes}."
            return ImportReport("rejected", reason="archive-too-large", message=message)
        data = path.read_bytes()
    except OSError as exc:
        return ImportReport("rejected", reason="io-error", message=f"Could not read the archive {name}: {exc}")
    return import_archive(data, workspace, filename=name, replace=replace, limits=limits)


def archive_stem(filename: str) -> str:
    name = PurePosixPath(filename.replace("\\", "/")).name
    for suffix in ARCHIVE_SUFFIXES:
        if name.lower().endswith(suffix):
            return name[: -len(suffix)]
    return name


def find_skill_roots(archive: Archive) -> list[str]:
    """Folders (archive paths, "" for the root) that hold a SKILL.md, in archive order."""
    roots: list[str] = []
    for entry in archive.entries:
        path = PurePosixPath(entry.path)
        if entry.kind == "file" and path.name == SKILL_FILE:
            roots.append("" if str(path.parent) == "." else str(path.parent))
    return roots


def skill_entries(archive: Archive, roots: list[str]) -> dict[str, tuple[Entry, ...]]:
    """Each root's entries, relative to it, without those of skills nested inside it.

    An entry belongs to the nearest root among its parent folders (found by walking up its at most
    ``max_depth`` parents in a set), so the cost is the entries times their depth, not times the roots.
    """
    known = set(roots)
    owned: dict[str, list[Entry]] = {root: [] for root in roots}
    for entry in archive.entries:
        if entry.path in known:
            continue  # a nested skill's own folder: neither its parent's nor its own entry
        parts = entry.path.split("/")
        for depth in range(len(parts) - 1, -1, -1):
            root = "/".join(parts[:depth])
            if root in known:
                owned[root].append(Entry("/".join(parts[depth:]), entry.kind, entry.data))
                break
    return {root: tuple(entries) for root, entries in owned.items()}


def _plan_all(archive: Archive, roots: list[str], stem: str, target_dir: Path, replace: bool) -> list[_Plan]:
    plans: list[_Plan] = []
    taken: set[str] = set()
    grouped = skill_entries(archive, roots)
    for root in roots:
        entries = grouped[root]
        folder = PurePosixPath(root).name if root else stem
        plan = _plan_one(root, folder, entries, target_dir, replace)
        if plan.outcome.status != "skipped" and plan.outcome.name in taken:
            plan = _Plan(
                _skipped(root, plan.outcome.name, "duplicate-name", "Another skill in the archive has this name.")
            )
        taken.add(plan.outcome.name)
        plans.append(plan)
    return plans


def _plan_one(root: str, folder: str, entries: tuple[Entry, ...], target_dir: Path, replace: bool) -> _Plan:
    files = {e.path: e.data for e in entries if e.kind == "file"}
    check = check_skill_bytes(files[SKILL_FILE], folder)
    if isinstance(check, InvalidSkill):
        return _Plan(_skipped(root, folder, check.reason, check.message))
    name = check.spec.name
    location = str(SKILLS_DIR / name)
    scan = scan_skill(files)
    exists = (target_dir / name).exists()
    if exists and not replace:
        outcome = SkillOutcome(
            root, name, "exists", "exists", "exists; confirm to replace", check.warnings, scan, location
        )
        return _Plan(outcome)
    status: SkillStatus = "replaced" if exists else "installed"
    return _Plan(SkillOutcome(root, name, status, "", "", check.warnings, scan, location), entries)


def _unwritten(outcome: SkillOutcome, exc: ArchiveError) -> SkillOutcome:
    return replace(outcome, status="skipped", reason=exc.reason, message=exc.message)


def _skipped(root: str, name: str, reason: str, message: str) -> SkillOutcome:
    return SkillOutcome(root, name, "skipped", reason, message)


def _report(outcomes: tuple[SkillOutcome, ...]) -> ImportReport:
    done = [o for o in outcomes if o.status in ("installed", "replaced")]
    if len(done) == len(outcomes):
        return ImportReport("ok", outcomes, message=f"Installed {len(done)} skill(s).")
    if done:
        return ImportReport("partial", outcomes, message=f"Installed {len(done)} of {len(outcomes)} skills.")
    if any(o.status == "exists" for o in outcomes):
        return ImportReport("rejected", outcomes, "exists", "Already installed; confirm to replace.")
    return ImportReport("rejected", outcomes, "no-valid-skill", "No skill in the archive passed validation.")


def _install(target_dir: Path, plans: list[_Plan]) -> None:
    """Stage every skill, then swap each into place; on failure restore what was there."""
    token = secrets.token_hex(4)
    created = first_missing_ancestor(target_dir)
    staging, trash = target_dir / f".staging-{token}", target_dir / f".trash-{token}"
    moved_in: list[Path] = []
    trashed: list[tuple[Path, Path]] = []
    try:
        for plan in plans:
            write_tree(plan.entries, staging / plan.outcome.name)
        for plan in plans:
            target = target_dir / plan.outcome.name
            if target.exists():
                trash.mkdir(exist_ok=True)
                os.rename(target, trash / plan.outcome.name)
                trashed.append((target, trash / plan.outcome.name))
            os.rename(staging / plan.outcome.name, target)
            moved_in.append(target)
    except (OSError, ArchiveError) as exc:
        for path in moved_in:
            shutil.rmtree(path, ignore_errors=True)
        for original, kept in trashed:
            os.rename(kept, original)
        shutil.rmtree(staging, ignore_errors=True)
        shutil.rmtree(trash, ignore_errors=True)
        if created is not None:
            shutil.rmtree(created, ignore_errors=True)
        raise ArchiveError("io-error", f"Could not install the skills ({exc}); nothing was changed.") from exc
    shutil.rmtree(staging, ignore_errors=True)
    shutil.rmtree(trash, ignore_errors=True)

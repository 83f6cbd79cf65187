"""Where a workspace's skills live, and the stamp that tells when anything the catalog reads changed.

``<workspace>/.agents/skills/<name>/SKILL.md`` per skill, beside ``state.json`` (which are disabled) and
``origins.json`` (which came from a tool server). This module imports nothing of the skills code, so the
request prepared before Send (``runtime.conversation.prepared``) can stamp the catalog at boot cheaply.

``catalog_stamp`` is the identity (inode, size, modification time) of every file the catalog reads, from
one listing of the folder and one ``stat`` per skill: the catalog (``runtime.skills.catalog``) is built
again only when the stamp differs, however often a turn's prompt, tool schemas and the skills panel ask.
"""

from __future__ import annotations

import os
from pathlib import Path, PurePosixPath

SKILLS_DIR = PurePosixPath(".agents") / "skills"
SKILL_FILE = "SKILL.md"
STATE_FILE = "state.json"
ORIGINS_FILE = "origins.json"

Identity = tuple[int, int, int]  # st_ino, st_size, st_mtime_ns
# One entry of the skills folder: its name, whether it is a folder, and its SKILL.md's identity (None: none).
Entry = tuple[str, bool, Identity | None]
Stamp = tuple[Identity | None, Identity | None, tuple[Entry, ...]]  # state.json, origins.json, the entries


def skills_dir(workspace: Path) -> Path:
    return workspace.joinpath(*SKILLS_DIR.parts)


def identity(path: str) -> Identity | None:
    try:
        s = os.stat(path)
    except OSError:
        return None
    return (s.st_ino, s.st_size, s.st_mtime_ns)


def catalog_stamp(workspace: Path) -> Stamp | None:
    """What the catalog of ``workspace`` reads, by identity, sorted by name; None when there is no skills folder."""
    root = str(skills_dir(workspace))
    try:
        with os.scandir(root) as listing:
            found = sorted((e.name, e.is_dir()) for e in listing)
    except OSError:  # no folder (or not one): no skills
        return None
    entries = tuple(
        (name, is_dir, identity(f"{root}/{name}/{SKILL_FILE}") if is_dir else None) for name, is_dir in found
    )
    return (identity(f"{root}/{STATE_FILE}"), identity(f"{root}/{ORIGINS_FILE}"), entries)

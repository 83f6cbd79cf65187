"""Where an installed skill came from, when it is not from the person's own archive: a tool server.

A skill imported from an MCP server (the skills extension) keeps its origin, the server's name as the
person gave it and the skill's URI there, in ``.agents/skills/origins.json``
(``{"version": 1, "skills": {name: {"server": ..., "uri": ...}}}``). The catalog shows it to the person
and to the model (the skill is told apart from a local one). Importing an archive over such a skill, or
removing it, drops its origin. Skill names cannot hold a dot, so this file cannot collide with a skill.
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from runtime.names import MAX_SHOWN_NAME_CHARS
from runtime.skills.layout import ORIGINS_FILE

log = logging.getLogger(__name__)

MAX_URI_CHARS = 1000


@dataclass(frozen=True)
class Origin:
    server: str
    uri: str

    def describe(self) -> str:
        return f"the tool server '{self.server}' ({self.uri})"


def read_origins(skills_root: Path) -> dict[str, Origin]:
    """Every recorded origin by skill name; {} when there is none or the file is unreadable (logged)."""
    path = skills_root / ORIGINS_FILE
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as exc:
        log.warning("%s is unreadable (%s); no skill has a recorded origin", path.name, exc)
        return {}
    skills = data.get("skills") if isinstance(data, dict) else None
    if not isinstance(skills, dict):
        return {}
    out: dict[str, Origin] = {}
    for name, value in skills.items():
        if isinstance(value, dict) and isinstance(value.get("server"), str) and isinstance(value.get("uri"), str):
            out[str(name)] = Origin(value["server"], value["uri"])
    return out


def record_origin(skills_root: Path, names: Iterable[str], origin: Origin | None) -> bool:
    """Set (or, with ``None``, drop) the origin of ``names``; True when the file changed."""
    origins = read_origins(skills_root)
    before = dict(origins)
    for name in names:
        if origin is None:
            origins.pop(name, None)
        else:
            origins[name] = origin
    if origins == before:
        return False
    _write(skills_root, origins)
    return True


def checked_origin(server: object, uri: object) -> Origin:
    """An origin from request params, bounded; ValueError says what is wrong."""
    if not isinstance(server, str) or not server or len(server) > MAX_SHOWN_NAME_CHARS:
        raise ValueError("origin.server must be the tool server's name")
    if not isinstance(uri, str) or not uri or len(uri) > MAX_URI_CHARS:
        raise ValueError(f"origin.uri must be the skill's URI (at most {MAX_URI_CHARS} characters)")
    return Origin(server, uri)


def _write(skills_root: Path, origins: dict[str, Origin]) -> None:
    skills_root.mkdir(parents=True, exist_ok=True)
    path = skills_root / ORIGINS_FILE
    tmp = path.with_name(f".{ORIGINS_FILE}.tmp")
    body = {"version": 1, "skills": {n: {"server": o.server, "uri": o.uri} for n, o in sorted(origins.items())}}
    tmp.write_text(json.dumps(body, indent=2) + "\n", encoding="utf-8")
    os.replace(tmp, path)

"""Where the checkpoints are listed: one small file per checkpoint, so keeping one costs the same with 1 or 200.

    .agent/checkpoints/turns/<name>.json   one checkpoint (``Checkpoint.to_json``); <name> is the turn id,
                                           or its sha256 when the id is not a plain file name
    .agent/checkpoints/index.json          the older form (every checkpoint in one file, rewritten on each):
                                           still read; moved into ``turns/`` on the next write
    .agent/checkpoints/settings.json       ``{"limit_bytes": N}``: the bound a person chose (absent: the default)

Every function that writes returns the hidden paths it wrote or removed, for the caller to save.
"""

from __future__ import annotations

import hashlib
import json
import logging
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

CHECKPOINTS_DIR = ".agent/checkpoints"
BLOBS_DIR = f"{CHECKPOINTS_DIR}/blobs"
TURNS_DIR = f"{CHECKPOINTS_DIR}/turns"
INDEX = f"{CHECKPOINTS_DIR}/index.json"  # the older, single-file form
SETTINGS = f"{CHECKPOINTS_DIR}/settings.json"
PLAIN_NAME = re.compile(r"[A-Za-z0-9_-][A-Za-z0-9_.-]{0,119}")


@dataclass
class Checkpoint:
    turn_id: str
    session_id: str | None
    kind: str  # "turn", "restore" or "files" (before a change made in the Files panel)
    created: float
    files: dict[str, str | None] = field(default_factory=dict)  # path → sha256, None: did not exist
    undoes: str | None = None
    skipped: list[str] = field(default_factory=list)  # too large to keep

    def to_json(self) -> dict[str, Any]:
        return {
            "turn_id": self.turn_id,
            "session_id": self.session_id,
            "kind": self.kind,
            "created": self.created,
            "files": self.files,
            "undoes": self.undoes,
            "skipped": self.skipped,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Checkpoint:
        files = data.get("files")
        return cls(
            str(data["turn_id"]),
            data.get("session_id") if isinstance(data.get("session_id"), str) else None,
            data["kind"] if data.get("kind") in ("restore", "files") else "turn",
            float(data.get("created") or 0),
            {str(k): (v if isinstance(v, str) else None) for k, v in files.items()} if isinstance(files, dict) else {},
            data.get("undoes") if isinstance(data.get("undoes"), str) else None,
            [str(s) for s in data.get("skipped") or []],
        )


def turn_path(turn_id: str) -> str:
    """The workspace-relative file that holds ``turn_id``'s checkpoint."""
    name = turn_id if PLAIN_NAME.fullmatch(turn_id) else hashlib.sha256(turn_id.encode()).hexdigest()
    return f"{TURNS_DIR}/{name}.json"


def _entry(raw: Any) -> Checkpoint | None:
    try:
        return Checkpoint.from_json(raw)
    except (KeyError, TypeError, ValueError, AttributeError):
        log.warning("a checkpoint entry is unreadable; skipped")
        return None


def _legacy(workspace: Path) -> list[Checkpoint]:
    try:
        data = json.loads((workspace / INDEX).read_text(encoding="utf-8"))
    except FileNotFoundError:
        return []
    except (OSError, ValueError) as exc:
        log.warning("the old checkpoint index is unreadable (%s); its checkpoints are skipped", exc)
        return []
    entries = data.get("checkpoints") if isinstance(data, dict) else None
    found = (_entry(e) for e in (entries if isinstance(entries, list) else []))
    return [c for c in found if c is not None]


def read_one(workspace: Path, turn_id: str) -> Checkpoint | None:
    """``turn_id``'s checkpoint, without reading the others (the older index is read only if it is there)."""
    try:
        found = _entry(json.loads((workspace / turn_path(turn_id)).read_text(encoding="utf-8")))
    except FileNotFoundError:
        found = None
    except (OSError, ValueError) as exc:
        log.warning("the checkpoint of %s is unreadable (%s)", turn_id, exc)
        found = None
    if found is None and (workspace / INDEX).is_file():
        found = next((c for c in _legacy(workspace) if c.turn_id == turn_id), None)
    return found if found is not None and found.turn_id == turn_id else None


def read_all(workspace: Path) -> list[Checkpoint]:
    """Every checkpoint, oldest first (both forms; a turn in both: the file in ``turns/`` wins)."""
    by_id = {c.turn_id: c for c in _legacy(workspace)}
    turns = workspace / TURNS_DIR
    for path in sorted(turns.glob("*.json")) if turns.is_dir() else []:
        try:
            found = _entry(json.loads(path.read_text(encoding="utf-8")))
        except (OSError, ValueError) as exc:
            log.warning("a checkpoint file is unreadable (%s); skipped", exc)
            continue
        if found is not None:
            by_id[found.turn_id] = found
    return sorted(by_id.values(), key=lambda c: c.created)  # stable: the old index's order among equal times


def write_one(workspace: Path, checkpoint: Checkpoint) -> str:
    rel = turn_path(checkpoint.turn_id)
    path = workspace / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(json.dumps({"version": 2, **checkpoint.to_json()}), encoding="utf-8")
    tmp.replace(path)
    return rel


def remove_one(workspace: Path, turn_id: str) -> str:
    rel = turn_path(turn_id)
    (workspace / rel).unlink(missing_ok=True)
    return rel


def migrate(workspace: Path) -> list[str]:
    """Move the older single index into one file per checkpoint (once; nothing to do afterwards)."""
    if not (workspace / INDEX).is_file():
        return []
    written = [write_one(workspace, c) for c in _legacy(workspace) if not (workspace / turn_path(c.turn_id)).exists()]
    (workspace / INDEX).unlink()
    return [*written, INDEX]


def read_limit(workspace: Path, default: int) -> int:
    try:
        value = json.loads((workspace / SETTINGS).read_text(encoding="utf-8")).get("limit_bytes")
    except (OSError, ValueError, AttributeError):
        return default
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else default


def write_limit(workspace: Path, limit_bytes: int) -> str:
    path = workspace / SETTINGS
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"limit_bytes": limit_bytes}), encoding="utf-8")
    return SETTINGS

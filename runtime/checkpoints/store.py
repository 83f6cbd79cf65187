"""A turn's checkpoint: the files it changed, as they were before its first change to each.

Kept in the workspace's hidden area, so the host saves it to its storage like any workspace file::

    .agent/checkpoints/blobs/<sha256>   a file's bytes, once however many checkpoints name them
    .agent/checkpoints/index.json       the checkpoints, oldest first: turn id, session, kind, and
                                        path → sha256 (or null: the file did not exist)

``keep`` is called before a write, once per path per turn (a later write of the same path in the turn
keeps nothing). Restoring a checkpoint is itself a checkpoint (``kind: "restore"``, ``undoes``), so a
restore can be undone by restoring that one. The blobs are bounded by ``limit_bytes``: the oldest
checkpoints are dropped first (never the newest). Every method returns the hidden paths it wrote or
removed, for the caller to save.
"""

from __future__ import annotations

import hashlib
import json
import logging
import time
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from runtime.tools.base import ToolError
from runtime.tools.paths import relative, resolve

log = logging.getLogger(__name__)

CHECKPOINTS_DIR = ".agent/checkpoints"
BLOBS_DIR = f"{CHECKPOINTS_DIR}/blobs"
INDEX = f"{CHECKPOINTS_DIR}/index.json"
DEFAULT_LIMIT_BYTES = 200 * 1024 * 1024
MAX_KEPT_FILE_BYTES = 50 * 1024 * 1024  # a file bigger than this is not kept (its checkpoint says so)
INTERNAL_DIRS = frozenset({".agent", ".git"})


@dataclass
class Checkpoint:
    turn_id: str
    session_id: str | None
    kind: str  # "turn" or "restore"
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
            "restore" if data.get("kind") == "restore" else "turn",
            float(data.get("created") or 0),
            {str(k): (v if isinstance(v, str) else None) for k, v in files.items()} if isinstance(files, dict) else {},
            data.get("undoes") if isinstance(data.get("undoes"), str) else None,
            [str(s) for s in data.get("skipped") or []],
        )


@dataclass(frozen=True)
class PreviewFile:
    path: str
    action: str  # "restore": put back as it was; "delete": the turn created it
    size: int  # bytes put back (0 for a delete)
    current_size: int | None  # bytes now, None: absent now


def is_internal(rel: str) -> bool:
    parts = PurePosixPath(rel).parts
    return not parts or parts[0].casefold() in INTERNAL_DIRS


class CheckpointStore:
    """The checkpoints of one workspace (see the module docstring)."""

    def __init__(self, workspace: Path, limit_bytes: int = DEFAULT_LIMIT_BYTES) -> None:
        self.workspace = workspace
        self.limit_bytes = limit_bytes

    # --- reading ---------------------------------------------------------------------------------

    def load(self) -> list[Checkpoint]:
        path = self.workspace / INDEX
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return []
        except (OSError, ValueError) as exc:
            log.warning("the checkpoint index is unreadable (%s); starting a new one", exc)
            return []
        entries = data.get("checkpoints") if isinstance(data, dict) else None
        out: list[Checkpoint] = []
        for entry in entries if isinstance(entries, list) else []:
            try:
                out.append(Checkpoint.from_json(entry))
            except (KeyError, TypeError, ValueError, AttributeError):
                log.warning("a checkpoint entry is unreadable; skipped")
        return out

    def get(self, turn_id: str) -> Checkpoint:
        for checkpoint in self.load():
            if checkpoint.turn_id == turn_id:
                return checkpoint
        raise ToolError(f"there is no checkpoint for turn {turn_id!r} (it may have been dropped to stay in bounds)")

    def total_bytes(self) -> int:
        blobs = self.workspace / BLOBS_DIR
        if not blobs.is_dir():
            return 0
        return sum(p.stat().st_size for p in blobs.iterdir() if p.is_file())

    def preview(self, turn_id: str) -> list[PreviewFile]:
        checkpoint = self.get(turn_id)
        out: list[PreviewFile] = []
        for rel, sha in sorted(checkpoint.files.items()):
            now = self.workspace / rel
            current = now.stat().st_size if now.is_file() else None
            if sha is None:
                out.append(PreviewFile(rel, "delete", 0, current))
            else:
                blob = self.workspace / BLOBS_DIR / sha
                out.append(PreviewFile(rel, "restore", blob.stat().st_size if blob.is_file() else 0, current))
        return out

    # --- keeping ---------------------------------------------------------------------------------

    def keep(self, turn_id: str, session_id: str | None, rels: list[str], *, kind: str = "turn") -> list[str]:
        """Keep the current state of ``rels`` in ``turn_id``'s checkpoint (paths it holds already: skipped)."""
        checkpoints = self.load()
        checkpoint = next((c for c in checkpoints if c.turn_id == turn_id), None)
        wanted = [r for r in dict.fromkeys(self._files_of(rels)) if checkpoint is None or r not in checkpoint.files]
        if not wanted:
            return []
        if checkpoint is None:
            checkpoint = Checkpoint(turn_id, session_id, kind, time.time())
            checkpoints.append(checkpoint)
        written: list[str] = []
        for rel in wanted:
            sha = self._blob_of(rel, checkpoint, written)
            if sha != "":
                checkpoint.files[rel] = sha
        if written:  # only new bytes can take the blobs over the bound (no walk over them otherwise)
            written.extend(self._prune(checkpoints))
        written.append(self._save(checkpoints))
        return written

    def _files_of(self, rels: list[str]) -> list[str]:
        """The files ``rels`` name (a folder: every file below it), workspace-relative; internal ones left out."""
        out: list[str] = []
        for rel in rels:
            try:
                target = resolve(self.workspace, rel, follow_last=False)
            except ToolError:
                continue
            name = relative(self.workspace, target)
            if is_internal(name):
                continue
            if target.is_dir() and not target.is_symlink():
                out.extend(relative(self.workspace, p) for p in sorted(target.rglob("*")) if p.is_file())
            else:
                out.append(name)
        return [r for r in out if not is_internal(r)]

    def _blob_of(self, rel: str, checkpoint: Checkpoint, written: list[str]) -> str | None:
        """The sha256 of ``rel``'s bytes, stored once; None when absent; "" when too large to keep."""
        target = self.workspace / rel
        if target.is_symlink() or not target.is_file():
            return None
        if target.stat().st_size > MAX_KEPT_FILE_BYTES:
            checkpoint.skipped.append(rel)
            return ""
        data = target.read_bytes()
        sha = hashlib.sha256(data).hexdigest()
        blob = self.workspace / BLOBS_DIR / sha
        if not blob.exists():
            blob.parent.mkdir(parents=True, exist_ok=True)
            blob.write_bytes(data)
            written.append(f"{BLOBS_DIR}/{sha}")
        return sha

    def _prune(self, checkpoints: list[Checkpoint]) -> list[str]:
        """Drop the oldest checkpoints until the blobs fit ``limit_bytes`` (the newest always stays)."""
        removed: list[str] = []
        total = self.total_bytes()
        while total > self.limit_bytes and len(checkpoints) > 1:
            dropped = checkpoints.pop(0)
            alive = {sha for c in checkpoints for sha in c.files.values() if sha}
            for sha in {s for s in dropped.files.values() if s and s not in alive}:
                blob = self.workspace / BLOBS_DIR / sha
                if blob.is_file():
                    total -= blob.stat().st_size
                    blob.unlink()
                    removed.append(f"{BLOBS_DIR}/{sha}")
        return removed

    def _save(self, checkpoints: list[Checkpoint]) -> str:
        path = self.workspace / INDEX
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(".index.json.tmp")
        tmp.write_text(json.dumps({"version": 1, "checkpoints": [c.to_json() for c in checkpoints]}), encoding="utf-8")
        tmp.replace(path)
        return INDEX

    # --- restoring -------------------------------------------------------------------------------

    def restore(self, turn_id: str, restore_id: str, session_id: str | None) -> tuple[list[str], list[str]]:
        """Put ``turn_id``'s files back as they were; first kept as checkpoint ``restore_id`` (its undo).

        Returns (the workspace files changed, the hidden paths written)."""
        checkpoint = self.get(turn_id)
        missing = [s for s in checkpoint.files.values() if s and not (self.workspace / BLOBS_DIR / s).is_file()]
        if missing:
            raise ToolError(f"the checkpoint of turn {turn_id!r} is damaged: {len(missing)} kept files are missing")
        hidden = self.keep(restore_id, session_id, list(checkpoint.files), kind="restore")
        self._mark_undoes(restore_id, turn_id)
        changed: list[str] = []
        for rel, sha in sorted(checkpoint.files.items()):
            target = self.workspace / rel
            if sha is None:
                if target.is_file() or target.is_symlink():
                    target.unlink()
                    changed.append(rel)
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes((self.workspace / BLOBS_DIR / sha).read_bytes())
            changed.append(rel)
        return changed, [*hidden, INDEX]

    def _mark_undoes(self, restore_id: str, turn_id: str) -> None:
        checkpoints = self.load()
        for c in checkpoints:
            if c.turn_id == restore_id:
                c.undoes = turn_id
        self._save(checkpoints)

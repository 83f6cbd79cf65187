"""A turn's checkpoint: the files it changed, as they were before its first change to each.

Kept in the workspace's hidden area, so the host saves it to its storage like any workspace file::

    .agent/checkpoints/blobs/<sha256>   a file's bytes, once however many checkpoints name them
    .agent/checkpoints/turns/<id>.json  one checkpoint: turn id, session, kind, and path → sha256
                                        (or null: the file did not exist); see ``runtime.checkpoints.index``

``keep`` is called before a write, once per path per turn (a later write of the same path in the turn
keeps nothing); it reads and writes only that turn's file, so its cost does not grow with the number of
checkpoints. Restoring a checkpoint is itself a checkpoint (``kind: "restore"``, ``undoes``), so a
restore can be undone by restoring that one. The blobs are bounded by the limit (a setting, default
200 MB; 0 keeps none): the oldest checkpoints are dropped first (never the newest while the limit is
above 0). Every method returns the hidden paths it wrote or removed, for the caller to save.
"""

from __future__ import annotations

import hashlib
import logging
import time
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from runtime.checkpoints import index
from runtime.checkpoints.index import BLOBS_DIR, CHECKPOINTS_DIR, INDEX, TURNS_DIR, Checkpoint
from runtime.tools.base import ToolError
from runtime.tools.paths import relative, resolve

log = logging.getLogger(__name__)

__all__ = ["BLOBS_DIR", "CHECKPOINTS_DIR", "INDEX", "TURNS_DIR", "Checkpoint", "CheckpointStore", "PreviewFile"]

DEFAULT_LIMIT_BYTES = 200 * 1024 * 1024
MAX_KEPT_FILE_BYTES = 50 * 1024 * 1024  # a file bigger than this is not kept (its checkpoint says so)
INTERNAL_DIRS = frozenset({".agent", ".git"})


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

    def __init__(self, workspace: Path, limit_bytes: int | None = None) -> None:
        self.workspace = workspace
        self._limit = limit_bytes  # None: the setting in the workspace (or the default)
        self._blob_bytes: tuple[int, int] | None = None  # (the blobs folder's mtime, their total) when last counted
        self._last_created = 0.0

    # --- reading ---------------------------------------------------------------------------------

    @property
    def limit_bytes(self) -> int:
        return self._limit if self._limit is not None else index.read_limit(self.workspace, DEFAULT_LIMIT_BYTES)

    def load(self) -> list[Checkpoint]:
        return index.read_all(self.workspace)

    def get(self, turn_id: str) -> Checkpoint:
        found = index.read_one(self.workspace, turn_id)
        if found is None:
            raise ToolError(f"there is no checkpoint for turn {turn_id!r} (it may have been dropped to stay in bounds)")
        return found

    def total_bytes(self) -> int:
        """The blobs' bytes; counted again only when the blobs folder changed since the last count."""
        blobs = self.workspace / BLOBS_DIR
        try:
            mtime = blobs.stat().st_mtime_ns
        except FileNotFoundError:
            return 0
        if self._blob_bytes is None or self._blob_bytes[0] != mtime:
            self._blob_bytes = (mtime, sum(p.stat().st_size for p in blobs.iterdir() if p.is_file()))
        return self._blob_bytes[1]

    def _counted(self, delta: int) -> None:
        """Our own change of ``delta`` bytes to the blobs: the count follows without walking them again."""
        if self._blob_bytes is not None:
            self._blob_bytes = ((self.workspace / BLOBS_DIR).stat().st_mtime_ns, self._blob_bytes[1] + delta)

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

    def keep(
        self, turn_id: str, session_id: str | None, rels: list[str], *, kind: str = "turn", undoes: str | None = None
    ) -> list[str]:
        """Keep the current state of ``rels`` in ``turn_id``'s checkpoint (paths it holds already: skipped)."""
        limit = self.limit_bytes
        if limit <= 0:  # checkpoints are off
            return []
        checkpoint = index.read_one(self.workspace, turn_id)
        wanted = [r for r in dict.fromkeys(self._files_of(rels)) if checkpoint is None or r not in checkpoint.files]
        if not wanted:
            return []
        written = index.migrate(self.workspace)
        if checkpoint is None:
            self._last_created = max(time.time(), self._last_created + 1e-6)  # strictly after the last one kept
            checkpoint = Checkpoint(turn_id, session_id, kind, self._last_created, undoes=undoes)
        new_blobs = len(written)
        for rel in wanted:
            sha = self._blob_of(rel, checkpoint, written)
            if sha != "":
                checkpoint.files[rel] = sha
        written.append(index.write_one(self.workspace, checkpoint))
        if len(written) > new_blobs + 1:  # only new bytes can take the blobs over the bound
            written.extend(self._prune(limit))
        return written

    def set_limit(self, limit_bytes: int) -> list[str]:
        """Keep ``limit_bytes`` as the bound (0: keep none) and drop the oldest checkpoints above it now."""
        written = [index.write_limit(self.workspace, limit_bytes), *index.migrate(self.workspace)]
        self._limit = None
        return [*written, *self._prune(limit_bytes)]

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
            self.total_bytes()  # counted before the change, so the change can be added to it
            blob.parent.mkdir(parents=True, exist_ok=True)
            blob.write_bytes(data)
            self._counted(len(data))
            written.append(f"{BLOBS_DIR}/{sha}")
        return sha

    def _prune(self, limit: int) -> list[str]:
        """Drop the oldest checkpoints until the blobs fit ``limit`` (the newest stays unless the limit is 0)."""
        total = self.total_bytes()
        if limit > 0 and total <= limit:
            return []
        checkpoints = self.load()
        removed: list[str] = []
        while checkpoints and (total > limit or limit <= 0) and (len(checkpoints) > 1 or limit <= 0):
            dropped = checkpoints.pop(0)
            removed.append(index.remove_one(self.workspace, dropped.turn_id))
            alive = {sha for c in checkpoints for sha in c.files.values() if sha}
            for sha in {s for s in dropped.files.values() if s and s not in alive}:
                blob = self.workspace / BLOBS_DIR / sha
                if blob.is_file():
                    size = blob.stat().st_size
                    total -= size
                    blob.unlink()
                    self._counted(-size)
                    removed.append(f"{BLOBS_DIR}/{sha}")
        return removed

    # --- restoring -------------------------------------------------------------------------------

    def restore(self, turn_id: str, restore_id: str, session_id: str | None) -> tuple[list[str], list[str]]:
        """Put ``turn_id``'s files back as they were; first kept as checkpoint ``restore_id`` (its undo).

        Returns (the workspace files changed, the hidden paths written)."""
        checkpoint = self.get(turn_id)
        missing = [s for s in checkpoint.files.values() if s and not (self.workspace / BLOBS_DIR / s).is_file()]
        if missing:
            raise ToolError(f"the checkpoint of turn {turn_id!r} is damaged: {len(missing)} kept files are missing")
        blobs = {sha: (self.workspace / BLOBS_DIR / sha).read_bytes() for sha in set(checkpoint.files.values()) if sha}
        hidden = self.keep(restore_id, session_id, list(checkpoint.files), kind="restore", undoes=turn_id)
        changed: list[str] = []
        for rel, sha in sorted(checkpoint.files.items()):
            target = self.workspace / rel
            if sha is None:
                if target.is_file() or target.is_symlink():
                    target.unlink()
                    changed.append(rel)
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(blobs[sha])
            changed.append(rel)
        return changed, hidden

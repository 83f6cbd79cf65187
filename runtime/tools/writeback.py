"""What a run_python run may change in the workspace: only what a file tool could, and never instructions.

The sandbox answers with the files its code created or changed and the handed-in files it deleted. They
are applied here, each through the same path checks as every file tool (``resolve``: no ``..``, no
absolute paths, no symlink out of the workspace), with three more rules:

* paths that steer the agent are never written or deleted by a run: ``AGENTS.md`` (it enters every system
  prompt) and everything under ``.agents/`` (skills and their state); a person or a file tool call, which
  is approved on its own card, changes those;
* the runtime's own folders (``.agent/``, ``.git/``) are never written or deleted by a run;
* a run deletes only files it was handed: anything else it reports as gone is left alone.

Each path left alone gets a note in the tool result, so the model and the person see what did not happen.
Checks apply to the resolved location too, so a symlink inside the workspace cannot lead a run around them.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Collection, Mapping, Sequence
from pathlib import Path, PurePosixPath

from runtime.tools.base import ToolError
from runtime.tools.instructions import is_instructions
from runtime.tools.paths import relative, resolve

MAX_FILE_RECEIVE_BYTES = 10 * 1024 * 1024
INTERNAL_DIRS = frozenset({".agent", ".git"})


def protected_reason(rel: str) -> str | None:
    """Why a run may not change the workspace-relative path ``rel``, or None when it may."""
    parts = PurePosixPath(rel).parts
    if not parts:
        return None
    if is_instructions(rel):  # the one definition of instructions (runtime.tools.instructions)
        return "runs never change AGENTS.md or .agents/; use the file tools, which ask first"
    if parts[0].casefold() in INTERNAL_DIRS:
        return "runs never change the runtime's own folders"
    return None


def apply_run_changes(
    workspace: Path, files: Mapping[str, str], deleted: Sequence[str], handed: Collection[str]
) -> tuple[tuple[str, ...], list[str]]:
    """Write ``files`` (path → base64) and delete ``deleted`` under the rules above.

    ``handed`` are the paths the run was given. Returns the changed paths (workspace-relative) and notes
    for everything left alone.
    """
    changed: list[str] = []
    notes: list[str] = []
    for path, encoded in sorted(files.items()):
        written, note = _write(workspace, path, encoded)
        if written is not None:
            changed.append(written)
        if note is not None:
            notes.append(note)
    for path in deleted:
        outcome = _delete(workspace, path, handed)
        if outcome is None:
            changed.append(path)
        elif outcome:
            notes.append(outcome)
    return tuple(changed), notes


def _write(workspace: Path, path: str, encoded: str) -> tuple[str | None, str | None]:
    """(the workspace-relative path written, None), or (None, the note saying why not)."""
    try:
        target = resolve(workspace, path)
        data = base64.b64decode(encoded, validate=True)
    except (ToolError, binascii.Error) as e:
        return None, f"not written back: {path!r} ({e})"
    reason = _reason(workspace, path, target)
    if reason:
        return None, f"not written back: {path!r} ({reason})"
    if len(data) > MAX_FILE_RECEIVE_BYTES or target.is_dir():
        return None, f"not written back: {path!r} (too large, or a folder)"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(data)
    return relative(workspace, target), None


def _delete(workspace: Path, path: str, handed: Collection[str]) -> str | None:
    """None when deleted, "" when there was nothing to delete, else the note saying why not."""
    try:
        target = resolve(workspace, path, follow_last=False)
    except ToolError as e:
        return f"not deleted: {path!r} ({e})"
    reason = _reason(workspace, path, target)
    if reason:
        return f"not deleted: {path!r} ({reason})"
    if path not in handed:
        return f"not deleted: {path!r} (it was not handed to the run)"
    if not (target.is_file() or target.is_symlink()):
        return ""
    target.unlink()
    return None


def _reason(workspace: Path, path: str, target: Path) -> str | None:
    """The protection that applies to the path as written or to where it resolves, if any."""
    return protected_reason(PurePosixPath(path).as_posix()) or protected_reason(relative(workspace, target))

"""The agent's instructions in the workspace: the one definition of which paths they are.

*Instructions* are the paths whose text the agent obeys: ``AGENTS.md`` at the workspace root (read into
every system prompt) and everything under ``.agents/`` (skills, their state, agent profiles). Names are
compared case-folded, so ``agents.md`` or ``.Agents/`` on a file system that ignores case count too.
The permission policy (``runtime.policy.protected``: every change asks, in every mode), the approval
card's preview (``files.py``) and the sandbox's write-back (``writeback.py``: a run never changes them)
all ask this module.
"""

from __future__ import annotations

import posixpath
from pathlib import PurePosixPath

INSTRUCTION_FILES = frozenset({"agents.md"})  # case-folded, at the workspace root
INSTRUCTION_DIRS = frozenset({".agents"})  # case-folded, at the workspace root: everything under it


def is_instructions(rel: str) -> bool:
    """True when the workspace-relative path ``rel`` is instructions (``AGENTS.md``, or under ``.agents/``)."""
    text = posixpath.normpath(rel.strip()) if rel.strip() else "."
    parts = [p for p in PurePosixPath(text).parts if p not in ("", ".")]
    if not parts:
        return False
    first = parts[0].casefold()
    return first in INSTRUCTION_DIRS or (len(parts) == 1 and first in INSTRUCTION_FILES)

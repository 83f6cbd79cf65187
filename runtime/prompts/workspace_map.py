"""The workspace map in the system prompt: up to ``MAX_MAP_ENTRIES`` workspace-relative paths, folders
ending with ``/``, ``MAX_MAP_DEPTH`` levels deep, and whether more exist.

The map is read breadth first: the workspace, then each level's folders in name order, each giving its
subfolders and then its files, by name; it stops at the limit. It reads one folder at a time and can say
which folders it reads next (``MapWalk.upcoming``), so a workspace on demand lists those before it reads
them (``OnDemand.for_prompt``), not every folder of a level: with a folder of 100 folders of 100 files
the map reads three folders, where listing its levels whole read all 10,000 files. The lines come back
sorted.
"""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable
from pathlib import Path

MAX_MAP_ENTRIES = 200
MAX_MAP_DEPTH = 3
SKIP_DIRS = frozenset({".git", "node_modules", "__pycache__", ".venv", ".agents"})


class MapWalk:
    """One walk of the map over ``root``: ``upcoming`` says what it reads next, ``read`` reads it, ``result``
    reads the rest."""

    def __init__(self, root: Path, limit: int = MAX_MAP_ENTRIES, depth: int = MAX_MAP_DEPTH) -> None:
        self.root = root
        self.limit = limit
        self.depth = depth
        self.lines: list[str] = []
        self.truncated = False
        self._level: list[str] = [""]  # the folders of the level being read, in order
        self._below: list[str] = []  # the next level's, as they are found
        self._at = 0  # the next folder of the level to read
        self._d = 0  # the level's depth
        self._stopped = depth <= 0

    def upcoming(self) -> list[str]:
        """The next folders (workspace-relative) the walk reads, in order; [] once it is done. As many as it read
        of their level so far (at least one): a listing ahead of the walk lists at most twice what it reads."""
        self._next_level()
        return [] if self._stopped else self._level[self._at : self._at + max(1, self._at)]

    def read(self, count: int) -> None:
        """Read the next ``count`` folders."""
        for _ in range(count):
            self._next_level()
            if self._stopped:
                return
            self._read(self._level[self._at])
            self._at += 1

    def result(self) -> tuple[list[str], bool]:
        """The map's lines (sorted) and whether more exist, reading what is left to read."""
        while folders := self.upcoming():
            self.read(len(folders))
        return sorted(self.lines), self.truncated

    def _read(self, rel: str) -> None:
        dirs, files, walked = _entries(self.root / rel if rel else self.root)
        for name in [*(f"{d}/" for d in dirs), *files]:
            if len(self.lines) >= self.limit:
                self.truncated = self._stopped = True
                return
            self.lines.append(f"{rel}/{name}" if rel else name)
        if self._d + 1 < self.depth:
            self._below += [f"{rel}/{d}" if rel else d for d in walked]
        elif dirs:
            self.truncated = True

    def _next_level(self) -> None:
        if self._stopped or self._at < len(self._level):
            return
        if not self._below:
            self._stopped = True
            return
        self._level, self._below, self._at, self._d = self._below, [], 0, self._d + 1


Listing = tuple[list[str], bool]  # the map's lines and whether more exist


def workspace_map(root: Path, limit: int = MAX_MAP_ENTRIES, depth: int = MAX_MAP_DEPTH) -> Listing:
    """Up to ``limit`` workspace-relative paths (directories end with ``/``), and whether more exist."""
    return MapWalk(root, limit, depth).result()


def prompt_map(workspace: Path) -> Listing:
    """The map the system prompt shows; an empty one for a workspace that is not a folder."""
    return workspace_map(workspace) if workspace.is_dir() else ([], False)


async def listed_map(workspace: Path, list_ahead: Callable[[MapWalk], Awaitable[None]]) -> Listing:
    """The map the system prompt shows, its folders listed on demand as the walk reaches them
    (``OnDemand.for_prompt``): the walk that lists is the one shown, not walked again."""
    walk = MapWalk(workspace)
    await list_ahead(walk)
    return walk.result() if workspace.is_dir() else ([], False)


def _entries(folder: Path) -> tuple[list[str], list[str], list[str]]:
    """A folder's subfolders (those skipped left out) and files, by name, and the subfolders the map goes
    into (not links to folders); nothing for a folder that cannot be read."""
    try:
        with os.scandir(folder) as it:
            entries = list(it)
    except OSError:
        return [], [], []
    dirs = [e for e in entries if _is_dir(e)]
    shown = sorted(e.name for e in dirs if e.name not in SKIP_DIRS)
    walked = sorted(e.name for e in dirs if e.name not in SKIP_DIRS and not e.is_symlink())
    return shown, sorted(e.name for e in entries if not _is_dir(e)), walked


def _is_dir(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir()
    except OSError:
        return False

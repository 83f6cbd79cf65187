"""What an archive entry may be: the ``Limits`` record, the ``Entry`` value and the path rules.

A name is checked exactly as it is stored in the archive, before anything is written:

- ``nul-byte``: a NUL anywhere (zip readers silently cut the name there);
- ``bad-name``: other control characters (C0, DEL, C1, line separators), or bytes that are not valid text;
- ``bidi-control``: a bidirectional control (U+202A–U+202E, U+2066–U+2069, U+200E/U+200F, U+061C) that
  makes a name display as another (``evil<U+202E>dm.exe`` shows as ``evilexe.md``), or another invisible
  formatting character (U+200B, U+FEFF, ...);

the characters are the file tools' own rule (``runtime.names``), so an archive installs no name that
a file tool would refuse;
- ``backslash``: a ``\\`` anywhere (a Windows separator, or a way to smuggle one);
- ``drive-letter``: ``C:`` or ``C:/...``;
- ``absolute-path``: a leading ``/``;
- ``parent-reference``: any ``..`` component;
- ``path-too-long``: over ``Limits.max_path_chars`` characters, ``Limits.max_depth`` components, or a
  component over 255 bytes (file systems refuse longer names).

Across entries: one path twice is ``duplicate-entry``, a path that is both a file and a folder is
``path-conflict``, and two paths that differ only in letter case or Unicode normalization (``A.md`` and
``a.md``; ``é`` composed and decomposed) are ``name-collision``: on case-insensitive or normalizing file
systems they are one file, so one would silently replace the other.

``.`` and empty components are dropped, so ``./skill//SKILL.md`` becomes ``skill/SKILL.md``; a name that
is nothing but those (``./``) is the archive root and is skipped.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from typing import Literal

from runtime.names import MAX_COMPONENT_BYTES, first_unsafe
from runtime.names import shown as safe_text
from runtime.skills.errors import ArchiveError

MiB = 1024 * 1024
_DRIVE = re.compile(r"^[A-Za-z]:")


@dataclass(frozen=True)
class Limits:
    """Bounds on what an archive may expand to. The defaults fit a whole repository of skills."""

    max_archive_bytes: int = 50 * MiB
    max_entries: int = 10_000
    max_file_bytes: int = 10 * MiB
    max_total_bytes: int = 50 * MiB
    max_ratio: float = 100.0
    ratio_floor_bytes: int = 1 * MiB
    max_path_chars: int = 1024
    max_depth: int = 32

    def ratio_exceeded(self, expanded: int, compressed: int) -> bool:
        """True when ``expanded`` is past the floor and more than ``max_ratio`` times ``compressed``."""
        return expanded > self.ratio_floor_bytes and expanded > self.max_ratio * max(compressed, 1)


EntryKind = Literal["file", "dir"]


@dataclass(frozen=True)
class Entry:
    """One checked entry: a normalized relative path (``/``-separated) and, for a file, its bytes."""

    path: str
    kind: EntryKind
    data: bytes = b""


def normalize_path(name: str, limits: Limits) -> str:
    """Return the checked, normalized form of an entry name ("" for the archive root) or raise."""
    shown = safe_text(name)
    _check_characters(name, shown)
    if "\\" in name:
        raise ArchiveError("backslash", f"Entry name contains a backslash: {name!r}.", path=name)
    if _DRIVE.match(name):
        raise ArchiveError("drive-letter", f"Entry name starts with a drive letter: {name!r}.", path=name)
    if name.startswith("/"):
        raise ArchiveError("absolute-path", f"Entry name is an absolute path: {name!r}.", path=name)
    parts = [p for p in name.split("/") if p not in ("", ".")]
    if ".." in parts:
        raise ArchiveError("parent-reference", f"Entry name climbs out with '..': {name!r}.", path=name)
    too_long = any(len(p.encode("utf-8", "surrogateescape")) > MAX_COMPONENT_BYTES for p in parts)
    if too_long or len(name) > limits.max_path_chars or len(parts) > limits.max_depth:
        raise ArchiveError(
            "path-too-long",
            f"Entry name is over {limits.max_path_chars} characters, {limits.max_depth} levels deep, "
            f"or has a part over {MAX_COMPONENT_BYTES} bytes.",
            path=name[:200],
        )
    return "/".join(parts)


def _check_characters(name: str, shown: str) -> None:
    bad = first_unsafe(name)
    if bad is None:
        return
    if bad.char == "\x00":
        raise ArchiveError("nul-byte", f"Entry name contains a NUL byte: {shown!r}.", path=shown)
    if bad.kind == "format":
        raise ArchiveError("bidi-control", f"Entry name has {bad.describe()}: {shown!r}.", path=shown)
    raise ArchiveError("bad-name", f"Entry name has {bad.describe()}: {shown!r}.", path=shown)


def check_tree(entries: list[Entry]) -> None:
    """Refuse two entries for one file, and a path that is both a file and a folder."""
    files: set[str] = set()
    dirs: set[str] = set()
    for entry in entries:
        if entry.kind == "dir":
            dirs.add(entry.path)
            continue
        if entry.path in files:
            raise ArchiveError("duplicate-entry", f"The archive holds {entry.path!r} twice.", path=entry.path)
        files.add(entry.path)
        parts = entry.path.split("/")
        dirs.update("/".join(parts[:i]) for i in range(1, len(parts)))
    clash = sorted(files & dirs)
    if clash:
        raise ArchiveError("path-conflict", f"{clash[0]!r} is both a file and a folder.", path=clash[0])
    check_collisions(files | dirs)


def collision_key(path: str) -> str:
    """The form in which two names are one file somewhere: NFC-normalized and case-folded."""
    return unicodedata.normalize("NFC", unicodedata.normalize("NFC", path).casefold())


def check_collisions(paths: set[str]) -> None:
    """Refuse two paths that differ only in case or Unicode normalization."""
    seen: dict[str, str] = {}
    for path in sorted(paths):
        other = seen.setdefault(collision_key(path), path)
        if other != path:
            raise ArchiveError(
                "name-collision",
                f"{other!r} and {path!r} differ only in letter case or Unicode form; they would be one file.",
                path=path,
            )

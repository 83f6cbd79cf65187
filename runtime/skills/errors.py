"""Errors raised by the skills package: each carries a ``reason`` code callers branch on, and a message.

``ArchiveError`` is raised while reading an archive (nothing has been written when it is raised);
``SkillError`` by the catalog (unknown or disabled skill, unreadable SKILL.md).
"""

from __future__ import annotations

from typing import Literal

from runtime.errors import TidepoolError

ArchiveReason = Literal[
    "archive-too-large",
    "unknown-format",
    "corrupt",
    "encrypted",
    "absolute-path",
    "parent-reference",
    "backslash",
    "drive-letter",
    "nul-byte",
    "bad-name",
    "bidi-control",
    "path-too-long",
    "symlink",
    "hard-link",
    "special-file",
    "unsupported-entry",
    "duplicate-entry",
    "path-conflict",
    "name-collision",
    "too-many-entries",
    "file-too-large",
    "total-too-large",
    "compression-ratio",
    "destination-exists",
    "io-error",
]

SkillErrorReason = Literal["not-found", "disabled", "invalid", "io-error"]


class ArchiveError(TidepoolError):
    """An archive was refused. ``path`` names the offending entry when there is one."""

    def __init__(self, reason: ArchiveReason, message: str, *, path: str = "") -> None:
        super().__init__(message)
        self.code = reason
        self.reason: ArchiveReason = reason
        self.path = path

    def __repr__(self) -> str:
        return f"ArchiveError(reason={self.reason!r}, path={self.path!r}, message={self.message!r})"


class SkillError(TidepoolError):
    """A catalog operation failed for the skill ``name``."""

    def __init__(self, reason: SkillErrorReason, message: str, *, name: str = "") -> None:
        super().__init__(message)
        self.code = reason
        self.reason: SkillErrorReason = reason
        self.name = name

"""Workspace paths: turn a path the model wrote into a real path that is certainly inside the workspace.

Refused, each with a ``ToolError`` that says why: empty paths, absolute paths (``/etc/passwd``,
``C:\\x``, ``\\\\server``), backslashes, any ``..`` component, a name that ``runtime.names`` refuses (a
control, invisible or bidirectional character, named by its code point, e.g. ``U+000A``; a part over
255 bytes), and anything whose resolved location (symlinks followed) is outside the workspace root.
"""

from __future__ import annotations

import re
from pathlib import Path, PurePosixPath

from runtime.names import name_problem
from runtime.tools.base import ToolError

_DRIVE = re.compile(r"^[A-Za-z]:")


class PathRefused(ToolError):
    """A path the workspace does not allow; ``path`` is what was asked, ``reason`` why not."""

    def __init__(self, path: str, reason: str) -> None:
        super().__init__(f"path {path!r} refused: {reason}")
        self.path = path
        self.reason = reason


def _check_lexically(user_path: str) -> PurePosixPath:
    if not isinstance(user_path, str) or not user_path.strip():
        raise PathRefused(str(user_path), "the path is empty")
    problem = name_problem(user_path)
    if problem is not None:
        raise PathRefused(user_path, problem)
    if "\\" in user_path:
        raise PathRefused(user_path, "use '/' to separate folders, not '\\'")
    if user_path.startswith("/") or _DRIVE.match(user_path):
        raise PathRefused(user_path, "absolute paths are not allowed; use a path relative to the workspace")
    pure = PurePosixPath(user_path)
    if ".." in pure.parts:
        raise PathRefused(user_path, "'..' is not allowed; paths stay inside the workspace")
    return pure


def resolve(workspace: Path, user_path: str, *, follow_last: bool = True) -> Path:
    """The real path of ``user_path`` inside ``workspace``; raises ``PathRefused`` for anything else.

    With ``follow_last=False`` the last component is not followed if it is a symlink (for deleting or
    moving the link itself); its parent folder still must resolve inside the workspace, and so must the
    link's target.
    """
    pure = _check_lexically(user_path)
    root = workspace.resolve()
    lexical = root.joinpath(*pure.parts) if pure.parts else root
    real = lexical.resolve()
    if not _inside(real, root):
        raise PathRefused(user_path, "it leads outside the workspace (through a symbolic link)")
    if not follow_last and lexical != root and lexical.is_symlink():
        parent = lexical.parent.resolve()
        if not _inside(parent, root):
            raise PathRefused(user_path, "it leads outside the workspace (through a symbolic link)")
        return parent / lexical.name
    return real


def _inside(path: Path, root: Path) -> bool:
    return path == root or path.is_relative_to(root)


def relative(workspace: Path, path: Path) -> str:
    """The workspace-relative POSIX form of a path inside the workspace (``.`` for the root)."""
    text = path.relative_to(workspace.resolve()).as_posix()
    return text if text else "."


def display(user_path: str) -> str:
    """The normalized form of a user path for messages (``./a//b`` → ``a/b``)."""
    text = PurePosixPath(user_path).as_posix()
    return text if text else "."

"""What an approval saw: a fingerprint of the files a write call would change, taken when it was shown.

An approval holds for the call the person saw *and* for the files as they were then. Just before the call
runs the fingerprint is taken again; if a file changed in between (an earlier call, a hook, another tab)
the call does not run on text nobody saw. The fingerprint covers each path argument of a ``write`` tool
(its ``WorkspacePath`` parameters: ``path``, ``src``, ``dst``): missing, a link and its target, a file's
bytes, or a folder's tree. A folder's walk is bounded (``MAX_FILES`` entries, ``MAX_BYTES`` hashed); past
that, sizes and change times stand in.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Any

from runtime.tools.base import ToolDefinition, ToolError
from runtime.tools.paths import resolve

MAX_FILES = 2_000
MAX_BYTES = 64 * 1024 * 1024


def fingerprint(workspace: Path, tool: ToolDefinition, arguments: dict[str, Any]) -> str:
    """A digest of what the call's path arguments name now; "" for a tool that changes no named files."""
    if tool.effect != "write":
        return ""
    digest = hashlib.sha256()
    budget = [MAX_FILES, MAX_BYTES]
    for name in tool.paths:
        value = arguments.get(name)
        if not isinstance(value, str):
            continue
        digest.update(f"\0{name}={value}\0".encode())
        try:
            target = resolve(workspace, value, follow_last=False)
        except (ToolError, OSError, ValueError):
            digest.update(b"refused")
            continue
        _entry(digest, target, budget)
    return digest.hexdigest()


def _entry(digest: Any, path: Path, budget: list[int]) -> None:
    budget[0] -= 1
    if path.is_symlink():
        digest.update(b"link:" + os.fsencode(os.readlink(path)))
    elif path.is_file():
        stat = path.stat()
        if budget[0] < 0 or stat.st_size > budget[1]:
            digest.update(f"file:{stat.st_size}:{stat.st_mtime_ns}".encode())
            return
        budget[1] -= stat.st_size
        digest.update(b"file:" + hashlib.sha256(path.read_bytes()).digest())
    elif path.is_dir():
        digest.update(b"dir:")
        for child in sorted(path.iterdir()):
            if budget[0] < 0:
                digest.update(b"...")
                return
            digest.update(os.fsencode(child.name) + b"/")
            _entry(digest, child, budget)
    else:
        digest.update(b"missing")

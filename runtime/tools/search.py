"""search_files: a regex over the workspace's text files, bounded in matches, files, bytes and time.

Skipped: binary files, files over ``MAX_FILE_BYTES``, links that lead outside the workspace, and the
``.agent/`` (spilled results) and ``.git/`` folders. The search yields to the event loop between files so
an abort is never blocked for long.
"""

from __future__ import annotations

import asyncio
import fnmatch
import io
import os
import re
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

from runtime.tools.base import ToolContext, ToolDefinition, ToolError, tool
from runtime.tools.files import BINARY_SNIFF_BYTES, looks_binary
from runtime.tools.paths import display, relative, resolve
from runtime.tools.traits import Walk, WorkspacePath
from runtime.tools.untrusted import wrap_untrusted

MAX_MATCHES = 200
MAX_FILES = 5000
MAX_FILE_BYTES = 2 * 1024 * 1024
MAX_LINE_CHARS = 300
MAX_PATTERN_CHARS = 1000
TIME_LIMIT_S = 5.0
SKIPPED_DIRS = frozenset({".agent", ".git"})


@dataclass(frozen=True)
class SearchLimits:
    matches: int = MAX_MATCHES
    files: int = MAX_FILES
    seconds: float = TIME_LIMIT_S


@dataclass
class _Scan:
    """What one search has found and spent so far."""

    limits: SearchLimits
    deadline: float
    matches: list[str]
    files: int = 0
    stopped: str = ""


@tool("read", walks=Walk("path"))
async def search_files(
    ctx: ToolContext,
    pattern: Annotated[str, "Regular expression (Python syntax) to look for, line by line"],
    path: Annotated[WorkspacePath, "File or folder to search, relative to the workspace"] = ".",
    glob: Annotated[str | None, "Only files whose name (or path, if it has a '/') matches, e.g. '*.md'"] = None,
) -> str:
    """Search the workspace's text files for a regular expression; returns matching lines as path:line: text."""
    return await search(ctx.workspace, pattern, path, glob, SearchLimits())


async def search(workspace: Path, pattern: str, path: str, glob: str | None, limits: SearchLimits) -> str:
    """The search behind ``search_files``, with its limits as a value (tests shrink them)."""
    if not pattern or len(pattern) > MAX_PATTERN_CHARS:
        raise ToolError(f"pattern must be 1 to {MAX_PATTERN_CHARS} characters")
    try:
        regex = re.compile(pattern)
    except re.error as e:
        raise ToolError(f"pattern is not a valid regular expression: {e}") from None
    target = resolve(workspace, path)
    if not target.exists():
        raise ToolError(f"{display(path)} does not exist")
    scan = _Scan(limits, time.monotonic() + limits.seconds, [])
    for file in _candidates(workspace, target, glob):
        if scan.files >= limits.files:
            scan.stopped = f"stopped after {limits.files:,} files"
            break
        if time.monotonic() > scan.deadline:
            scan.stopped = f"stopped after {limits.seconds:g} s"
            break
        scan.files += 1
        _search_file(workspace, file, regex, scan)
        if scan.stopped:
            break
        await asyncio.sleep(0)
    return _report(scan, pattern)


def _report(scan: _Scan, pattern: str) -> str:
    if scan.matches:
        text = wrap_untrusted("\n".join(scan.matches), "search_files", "file")
    else:
        text = f"no match for {pattern!r} in {scan.files:,} files"
    if scan.stopped:
        text += f"\n[search incomplete: {scan.stopped}; narrow it with path or glob]"
    return text


def _candidates(workspace: Path, target: Path, glob: str | None) -> Iterator[Path]:
    if target.is_file():
        yield target
        return
    for folder, dirs, files in os.walk(target):
        dirs[:] = sorted(d for d in dirs if d not in SKIPPED_DIRS)
        for name in sorted(files):
            file = Path(folder) / name
            rel = relative(workspace, file)
            if glob is not None and not _glob_match(glob, rel, name):
                continue
            yield file


def _glob_match(glob: str, rel: str, name: str) -> bool:
    if "/" in glob:
        return fnmatch.fnmatchcase(rel, glob) or fnmatch.fnmatchcase(rel, glob.replace("**/", ""))
    return fnmatch.fnmatchcase(name, glob)


def _search_file(workspace: Path, file: Path, regex: re.Pattern[str], scan: _Scan) -> None:
    rel = relative(workspace, file)
    try:
        real = resolve(workspace, rel)
        if real.stat().st_size > MAX_FILE_BYTES:
            return
        data = real.read_bytes()
    except (ToolError, OSError):
        return  # a link out of the workspace, a vanished or unreadable file: skipped silently
    if looks_binary(data[:BINARY_SNIFF_BYTES]):
        return
    text = data.decode("utf-8", errors="replace")
    # Lines split as read_file splits them (\n, \r\n or \r), so the numbers agree.
    for number, raw in enumerate(io.StringIO(text, newline=""), start=1):
        line = raw.rstrip("\r\n")
        if regex.search(line):
            shown = line if len(line) <= MAX_LINE_CHARS else line[:MAX_LINE_CHARS] + " [...]"
            scan.matches.append(f"{rel}:{number}: {shown}")
            if len(scan.matches) >= scan.limits.matches:
                scan.stopped = f"the first {scan.limits.matches:,} matches are shown"
                return
        if number % 2000 == 0 and time.monotonic() > scan.deadline:
            scan.stopped = f"stopped after {scan.limits.seconds:g} s"
            return


TOOLS: tuple[ToolDefinition, ...] = (search_files,)

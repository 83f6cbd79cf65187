"""Workspace file tools: list, read, write, edit, delete, move.

Every path goes through ``paths.resolve``. Tools that change files return a ``ToolOutput`` whose
``changed_paths`` name what changed, so the host flushes only those. ``write_file``, ``edit_file``,
``delete_file`` and ``move_file`` have a preview for the approval card (a diff, or what would go).
"""

from __future__ import annotations

import logging
import os
from pathlib import Path
from typing import Annotated, Any

from runtime.names import shown
from runtime.tools.base import ToolContext, ToolDefinition, ToolError, ToolOutput, tool
from runtime.tools.instructions import is_instructions
from runtime.tools.paths import PathRefused, display, relative, resolve
from runtime.tools.preview_text import moved_text
from runtime.tools.traits import WorkspacePath
from runtime.tools.untrusted import wrap_untrusted

log = logging.getLogger(__name__)

MAX_LIST_ENTRIES = 500
MAX_READ_LINES = 2000
MAX_LINE_CHARS = 2000
MAX_READ_CHARS = 100_000
MAX_TEXT_BYTES = 10 * 1024 * 1024
MAX_DIFF_CHARS = 32_000
BINARY_SNIFF_BYTES = 8192


def looks_binary(head: bytes) -> bool:
    """A NUL byte in the first block, or bytes that are not UTF-8, mean binary."""
    if b"\x00" in head:
        return True
    try:
        head.decode("utf-8")
    except UnicodeDecodeError as e:
        # A multi-byte character cut off at the end of the block is still text.
        return e.start < len(head) - 3
    return False


def read_text(path: Path, rel: str) -> str:
    """A whole text file, or a polite ``ToolError`` for folders, binaries and very large files."""
    if not path.exists():
        raise ToolError(f"{rel} does not exist")
    if path.is_dir():
        raise ToolError(f"{rel} is a folder; use list_files to see what it holds")
    size = path.stat().st_size
    if size > MAX_TEXT_BYTES:
        raise ToolError(f"{rel} is {size:,} bytes, over the {MAX_TEXT_BYTES:,}-byte limit for whole-file edits")
    data = path.read_bytes()
    if looks_binary(data[:BINARY_SNIFF_BYTES]):
        raise ToolError(f"{rel} is a binary file ({size:,} bytes); it cannot be shown or edited as text")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise ToolError(f"{rel} is not UTF-8 text ({size:,} bytes); it cannot be shown or edited as text") from None


def unified_diff(old: str, new: str, rel: str, *, new_file: bool = False, whole: bool = False) -> str:
    """A unified diff of two texts, bounded in size; marks a missing final newline like ``diff`` does.

    ``whole``: every line is context, so the diff shows the whole resulting text (the approval card of a
    change to the agent's instructions shows all of what they would say)."""

    def lines(text: str) -> list[str]:
        out = text.splitlines(keepends=True)
        if out and not out[-1].endswith("\n"):
            out[-1] += "\n\\ No newline at end of file\n"
        return out

    fromfile = "/dev/null" if new_file else f"a/{rel}"
    import difflib  # on first use: ~60 ms to import in Pyodide, not on the way to `ready`

    context = max(old.count("\n"), new.count("\n")) + 1 if whole else 3
    diff = "".join(difflib.unified_diff(lines(old), lines(new), fromfile=fromfile, tofile=f"b/{rel}", n=context))
    if len(diff) > MAX_DIFF_CHARS:
        diff = diff[:MAX_DIFF_CHARS] + f"\n[diff truncated: {len(diff):,} characters in all]\n"
    return diff or "(no change)\n"


# --- read ---------------------------------------------------------------------------------------


@tool("read")
def list_files(
    ctx: ToolContext, path: Annotated[WorkspacePath, "Folder to list, relative to the workspace"] = "."
) -> str:
    """List the files and folders in a workspace folder (one level; folders end with '/').

    Paths in the listing are relative to the workspace and can be passed to the other tools.
    """
    target = resolve(ctx.workspace, path)
    rel = relative(ctx.workspace, target)
    if not target.exists():
        raise ToolError(f"{display(path)} does not exist")
    if not target.is_dir():
        return f"{rel} ({target.stat().st_size:,} bytes)"
    entries = sorted(target.iterdir(), key=lambda p: (not p.is_dir(), p.name))
    lines = [_list_line(ctx.workspace, rel, e) for e in entries[:MAX_LIST_ENTRIES]]
    if len(entries) > MAX_LIST_ENTRIES:
        lines.append(f"... and {len(entries) - MAX_LIST_ENTRIES:,} more entries")
    return "\n".join(lines) if lines else f"{rel} is empty"


def _list_line(workspace: Path, folder: str, entry: Path) -> str:
    name = entry.name if folder == "." else f"{folder}/{entry.name}"
    try:
        resolve(workspace, name)
    except PathRefused as e:
        return f"{shown(name)} (not accessible: {e.reason})"  # a name made before the rule: printed escaped
    if entry.is_dir():
        return f"{name}/"
    return f"{name} ({entry.stat().st_size:,} bytes)"


@tool("read")
def read_file(
    ctx: ToolContext,
    path: Annotated[WorkspacePath, "File to read, relative to the workspace"],
    offset: Annotated[int | None, "First line to show (1-based)"] = None,
    limit: Annotated[int | None, "Number of lines to show"] = None,
) -> str:
    """Read a text file from the workspace, with line numbers; use offset and limit for long files."""
    target = resolve(ctx.workspace, path)
    rel = relative(ctx.workspace, target)
    start = 1 if offset is None else offset
    if start < 1:
        raise ToolError("offset is a line number and starts at 1")
    if limit is not None and limit < 1:
        raise ToolError("limit is a number of lines and must be at least 1")
    count = MAX_READ_LINES if limit is None else min(limit, MAX_READ_LINES)
    _check_readable(target, rel)
    shown, total, complete = _numbered_lines(target, rel, start, count)
    if total == 0:
        return f"({rel} is empty)"
    if not shown:
        raise ToolError(f"{rel} has {total:,} lines; offset {start:,} is past its end")
    last = start + len(shown) - 1
    text = wrap_untrusted("\n".join(shown), rel, "file")
    if last < total or not complete:
        of = f"{total:,}" if complete else "more"
        text += f"\n[lines {start:,}-{last:,} of {of}; continue with offset={last + 1}]"
    return text


def _check_readable(target: Path, rel: str) -> None:
    if not target.exists():
        raise ToolError(f"{rel} does not exist")
    if target.is_dir():
        raise ToolError(f"{rel} is a folder; use list_files to see what it holds")
    with target.open("rb") as f:
        head = f.read(BINARY_SNIFF_BYTES)
    if looks_binary(head):
        size = target.stat().st_size
        raise ToolError(f"{rel} is a binary file ({size:,} bytes); read_file shows text files only")


def _numbered_lines(target: Path, rel: str, start: int, count: int) -> tuple[list[str], int, bool]:
    """The numbered lines [start, start+count), the total line count, and whether the count is exact."""
    shown: list[str] = []
    chars = 0
    seen = 0
    total = 0
    with target.open("r", encoding="utf-8", errors="strict", newline="") as f:
        try:
            for total, line in enumerate(f, start=1):
                seen += len(line)
                if start <= total < start + count and chars < MAX_READ_CHARS:
                    body = line.rstrip("\r\n")
                    if len(body) > MAX_LINE_CHARS:
                        body = body[:MAX_LINE_CHARS] + f" [line cut at {MAX_LINE_CHARS:,} characters]"
                    shown.append(f"{total:>6}\t{body}")
                    chars += len(body) + 8
                elif total >= start + count and seen > MAX_TEXT_BYTES:
                    return shown, total, False
        except UnicodeDecodeError:
            raise ToolError(f"{rel} is not UTF-8 text; read_file shows text files only") from None
    return shown, total, True


# --- write --------------------------------------------------------------------------------------


def _preview_write(ctx: ToolContext, arguments: dict[str, Any]) -> str | None:
    try:
        target = resolve(ctx.workspace, str(arguments["path"]))
        rel = relative(ctx.workspace, target)
        content = str(arguments.get("content", ""))
        if not target.exists():
            return unified_diff("", content, rel, new_file=True)
        return unified_diff(read_text(target, rel), content, rel, whole=is_instructions(rel))
    except (ToolError, KeyError, OSError) as e:
        return f"(no preview: {e})"


@tool("write", preview=_preview_write)
def write_file(
    ctx: ToolContext,
    path: Annotated[WorkspacePath, "File to write, relative to the workspace"],
    content: Annotated[str, "The whole new content of the file"],
) -> ToolOutput:
    """Create or overwrite a text file in the workspace (missing folders are created)."""
    target = resolve(ctx.workspace, path)
    rel = relative(ctx.workspace, target)
    if target == ctx.workspace.resolve() or target.is_dir():
        raise ToolError(f"{display(path)} is a folder; give a file path")
    data = content.encode("utf-8")
    if len(data) > MAX_TEXT_BYTES:
        raise ToolError(f"content is {len(data):,} bytes, over the {MAX_TEXT_BYTES:,}-byte limit")
    existed = target.exists()
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(data)
    lines = content.count("\n") + (0 if content.endswith("\n") or not content else 1)
    what = "overwrote" if existed else "created"
    return ToolOutput(f"{what} {rel} ({len(data):,} bytes, {lines:,} lines)", changed_paths=(rel,))


def _plan_edit(ctx: ToolContext, path: str, old_text: str, new_text: str) -> tuple[Path, str, str, str]:
    """The target, its relative path, and the old and new contents; raises ToolError if it cannot apply."""
    target = resolve(ctx.workspace, path)
    rel = relative(ctx.workspace, target)
    if not old_text:
        raise ToolError("old_text is empty; give the exact text to replace (use write_file for a new file)")
    if old_text == new_text:
        raise ToolError("old_text and new_text are the same; nothing to change")
    before = read_text(target, rel)
    found = before.count(old_text)
    if found == 0 and "\r\n" in before and "\n" in old_text and "\r\n" not in old_text:
        # A file with Windows line ends, and the model wrote "\n": match (and write) with "\r\n".
        old_text, new_text = old_text.replace("\n", "\r\n"), new_text.replace("\r\n", "\n").replace("\n", "\r\n")
        found = before.count(old_text)
    if found == 0:
        raise ToolError(
            f"old_text was not found in {rel}; it must match exactly, whitespace and indentation included "
            "(read_file shows the current text)"
        )
    if found > 1:
        raise ToolError(
            f"old_text matches {found} places in {rel}; it must match exactly once: include more of the "
            "surrounding lines to make it unique"
        )
    return target, rel, before, before.replace(old_text, new_text, 1)


def _preview_edit(ctx: ToolContext, arguments: dict[str, Any]) -> str | None:
    try:
        _, rel, before, after = _plan_edit(
            ctx, str(arguments["path"]), str(arguments["old_text"]), str(arguments["new_text"])
        )
    except (ToolError, KeyError, OSError) as e:
        return f"(this edit would fail: {e})"
    return unified_diff(before, after, rel, whole=is_instructions(rel))


@tool("write", preview=_preview_edit)
def edit_file(
    ctx: ToolContext,
    path: Annotated[WorkspacePath, "File to edit, relative to the workspace"],
    old_text: Annotated[str, "Exact text to replace; must occur exactly once in the file"],
    new_text: Annotated[str, "Text to put in its place"],
) -> ToolOutput:
    """Replace one exact occurrence of old_text with new_text in a file; returns the unified diff."""
    target, rel, before, after = _plan_edit(ctx, path, old_text, new_text)
    target.write_bytes(after.encode("utf-8"))
    return ToolOutput(f"edited {rel}\n{unified_diff(before, after, rel)}", changed_paths=(rel,))


def _existing(ctx: ToolContext, path: str) -> tuple[Path, str]:
    target = resolve(ctx.workspace, path, follow_last=False)
    if target == ctx.workspace.resolve():
        raise ToolError("the workspace root itself cannot be deleted or moved")
    if not target.exists() and not target.is_symlink():
        raise ToolError(f"{display(path)} does not exist")
    return target, relative(ctx.workspace, target)


def _preview_delete(ctx: ToolContext, arguments: dict[str, Any]) -> str | None:
    try:
        target, rel = _existing(ctx, str(arguments["path"]))
    except (ToolError, KeyError, OSError) as e:
        return f"(this delete would fail: {e})"
    if target.is_dir() and not target.is_symlink():
        return f"delete the empty folder {rel}/"
    return f"delete {rel} ({target.lstat().st_size:,} bytes)"


@tool("write", preview=_preview_delete)
def delete_file(ctx: ToolContext, path: Annotated[WorkspacePath, "File (or empty folder) to delete"]) -> ToolOutput:
    """Delete a file (or an empty folder) from the workspace."""
    target, rel = _existing(ctx, path)
    if target.is_dir() and not target.is_symlink():
        held = sum(1 for _ in target.iterdir())
        if held:
            raise ToolError(f"{rel} is a folder holding {held} entries; delete its files first")
        target.rmdir()
        return ToolOutput(f"deleted the empty folder {rel}/", changed_paths=(rel,))
    target.unlink()
    return ToolOutput(f"deleted {rel}", changed_paths=(rel,))


def _plan_move(ctx: ToolContext, src: str, dst: str) -> tuple[Path, str, Path, str]:
    source, src_rel = _existing(ctx, src)
    dest = resolve(ctx.workspace, dst, follow_last=False)
    dst_rel = relative(ctx.workspace, dest)
    if dest.exists() or dest.is_symlink():
        raise ToolError(f"{dst_rel} already exists; delete it first or choose another name")
    if dest.is_relative_to(source):
        raise ToolError(f"cannot move {src_rel} into itself")
    return source, src_rel, dest, dst_rel


def _preview_move(ctx: ToolContext, arguments: dict[str, Any]) -> str | None:
    try:
        source, src_rel, _, dst_rel = _plan_move(ctx, str(arguments["src"]), str(arguments["dst"]))
    except (ToolError, KeyError, OSError) as e:
        return f"(this move would fail: {e})"
    if is_instructions(dst_rel):  # what becomes the agent's instructions, read now
        return f"move {src_rel} → {dst_rel}; {dst_rel} will then say:\n{moved_text(source, src_rel)}"
    return f"move {src_rel} → {dst_rel}"


@tool("write", preview=_preview_move)
def move_file(
    ctx: ToolContext,
    src: Annotated[WorkspacePath, "File or folder to move, relative to the workspace"],
    dst: Annotated[WorkspacePath, "New path, relative to the workspace; must not exist yet"],
) -> ToolOutput:
    """Move or rename a file or folder inside the workspace (missing folders are created)."""
    source, src_rel, dest, dst_rel = _plan_move(ctx, src, dst)
    dest.parent.mkdir(parents=True, exist_ok=True)
    os.replace(source, dest)
    return ToolOutput(f"moved {src_rel} → {dst_rel}", changed_paths=(src_rel, dst_rel))


# The file tools, for the registry (search_files lives in ``search.py``).
TOOLS: tuple[ToolDefinition, ...] = (list_files, read_file, write_file, edit_file, delete_file, move_file)

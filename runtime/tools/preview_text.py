"""The text a move would put into the agent's instructions, for its approval card: read now, bounded.

A file is shown as its text (a binary or non-UTF-8 file as a note of its size); a folder as the list of
its files, each text file's content after it, in path order. At most ``MAX_MOVED_CHARS`` characters are
shown, and at most ``MAX_MOVED_FILES`` files are listed; whatever is left out is marked where it is cut
("[… cut: N more characters]", "[… and N more files]"), so the person knows the card is not all of it.
"""

from __future__ import annotations

from pathlib import Path

MAX_MOVED_CHARS = 32_000
MAX_MOVED_FILES = 200
_SNIFF_BYTES = 8192


def moved_text(source: Path, rel: str) -> str:
    """What ``source`` (workspace-relative ``rel``) holds, as the approval card shows it."""
    if source.is_symlink() or not source.is_dir():
        return file_text(source, MAX_MOVED_CHARS)
    files = sorted(p for p in source.rglob("*") if p.is_file() and not p.is_symlink())
    listed = [f"{rel}/{p.relative_to(source).as_posix()} ({p.stat().st_size:,} bytes)" for p in files]
    more = len(listed) - MAX_MOVED_FILES
    parts = ["files:", *listed[:MAX_MOVED_FILES], *([f"[… and {more:,} more files]"] if more > 0 else [])]
    budget = MAX_MOVED_CHARS - sum(len(p) + 1 for p in parts)
    for path in files[:MAX_MOVED_FILES]:
        if budget <= 0:
            parts.append("[… cut: the other files' text is not shown]")
            break
        body = file_text(path, budget)
        parts.append(f"--- {rel}/{path.relative_to(source).as_posix()} ---\n{body}")
        budget -= len(body)
    return "\n".join(parts)


def file_text(path: Path, limit: int) -> str:
    """At most ``limit`` characters of a text file (the cut marked), or a note for a binary one."""
    try:
        size = path.stat().st_size
        with path.open("rb") as f:
            data = f.read(limit * 4 + 4)  # a character is at most 4 bytes of UTF-8
        if b"\x00" in data[:_SNIFF_BYTES]:
            return f"(a binary file, {size:,} bytes)"
        text = _decode(data, complete=len(data) >= size)
    except UnicodeDecodeError:
        return f"(not UTF-8 text, {size:,} bytes)"
    except OSError as exc:
        return f"(cannot be read: {exc})"
    if len(text) <= limit and len(data) >= size:
        return text
    return f"{text[:limit]}\n[… cut: the file has {size:,} bytes; the first {limit:,} characters are shown]"


def _decode(data: bytes, *, complete: bool) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        if complete or exc.start < len(data) - 3:
            raise
        return data[: exc.start].decode("utf-8")  # a character cut off where the read stopped

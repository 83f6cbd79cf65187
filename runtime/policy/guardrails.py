"""Guardrails the agent loop uses: stop the same failing call repeated, spill big results to a file.

- ``RepeatedFailures`` counts failures per (tool, arguments); the third identical failure trips it, and
  the loop tells the model to change course instead of running the call again.
- ``spill`` keeps a tool result over the inline cap out of the conversation: the whole text goes to
  ``.agent/results/<call_id>.txt`` in the workspace, the model gets a reference and the head.
"""

from __future__ import annotations

import hashlib
import json
import logging
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from runtime.tools.base import ToolError
from runtime.tools.paths import resolve

log = logging.getLogger(__name__)

REPEAT_LIMIT = 3
INLINE_CAP_BYTES = 16 * 1024
HEAD_BYTES = 4 * 1024
RESULTS_DIR = ".agent/results"
_SAFE_ID = re.compile(r"^[A-Za-z0-9_-]{1,80}$")


def call_key(name: str, arguments: dict[str, Any]) -> str:
    """Two calls are the same when the tool and the arguments (in any key order) are the same."""
    return name + " " + json.dumps(arguments, sort_keys=True, ensure_ascii=False, default=str)


@dataclass(frozen=True)
class RepeatTripped:
    name: str
    count: int
    message: str


class RepeatedFailures:
    """Counts failures of identical calls within a turn; a success of that call clears its count."""

    def __init__(self, limit: int = REPEAT_LIMIT) -> None:
        self.limit = limit
        self._failures: dict[str, int] = {}

    def failures(self, name: str, arguments: dict[str, Any]) -> int:
        return self._failures.get(call_key(name, arguments), 0)

    def blocked(self, name: str, arguments: dict[str, Any]) -> bool:
        """True once this exact call has failed ``limit`` times: the loop should not run it again."""
        return self.failures(name, arguments) >= self.limit

    def record(self, name: str, arguments: dict[str, Any], ok: bool) -> RepeatTripped | None:
        """Record an outcome; returns what to tell the model when this failure reaches the limit."""
        key = call_key(name, arguments)
        if ok:
            self._failures.pop(key, None)
            return None
        count = self._failures.get(key, 0) + 1
        self._failures[key] = count
        if count < self.limit:
            return None
        log.info("%s failed %d times with the same arguments", name, count)
        return RepeatTripped(
            name,
            count,
            f"{name} has failed {count} times with exactly these arguments. Do not call it again the same "
            "way: read the error, change the arguments or the approach, or ask the user.",
        )

    def reset(self) -> None:
        """A new turn starts with clean counts."""
        self._failures.clear()


@dataclass(frozen=True)
class Spilled:
    """What goes into the conversation, and the workspace path written (None when kept inline)."""

    text: str
    path: str | None = None


def result_file_name(call_id: str) -> str:
    """A safe file name for a call id (ids come from the provider; anything odd is hashed)."""
    if _SAFE_ID.match(call_id):
        return f"{call_id}.txt"
    return f"call-{hashlib.sha256(call_id.encode()).hexdigest()[:16]}.txt"


def spill(workspace: Path, call_id: str, text: str, *, cap: int = INLINE_CAP_BYTES, head: int = HEAD_BYTES) -> Spilled:
    """Keep ``text`` inline when it is at most ``cap`` bytes (UTF-8); else write it out and reference it."""
    data = text.encode("utf-8")
    if len(data) <= cap:
        return Spilled(text)
    rel = f"{RESULTS_DIR}/{result_file_name(call_id)}"
    shown = data[:head].decode("utf-8", errors="ignore")
    lines = text.count("\n") + 1
    try:
        target = resolve(workspace, rel)  # .agent/ could be a link out of the workspace
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    except (ToolError, OSError) as e:
        log.warning("could not spill the result of %s: %r", call_id, e)
        note = f"[The result is {len(data):,} bytes; it could not be saved ({e}), so only its head is shown.]"
        return Spilled(f"{note}\n{shown}")
    note = (
        f"[The result is {len(data):,} bytes ({lines:,} lines), over the {cap:,}-byte inline limit. "
        f"It was saved to {rel}; the first {len(shown.encode()):,} bytes follow. Use read_file with "
        f"path={rel!r} and offset/limit, or search_files, to see the rest.]"
    )
    return Spilled(f"{note}\n{shown}", rel)

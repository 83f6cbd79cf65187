"""Open the workspace's state database from its state directory, choosing the newest intact save.

The state directory (``/state`` in Pyodide, ``--state-dir`` under CPython) holds::

    current.sqlite    the live database (the host copies it to OPFS after each committed step)
    previous.sqlite   the generation before it (placed by the host before start; read-only here)
    saved_at.json     optional, from the host: {"current": ISO-8601, "previous": ISO-8601}

``Generations`` decides: a damaged ``current.sqlite`` falls back to ``previous.sqlite`` (copied over
the live file) with a notice for the person. A database written by a newer Tidepool, or a directory
that cannot be used, gives an in-memory store that is never saved, with a notice saying so.
"""

from __future__ import annotations

import json
import logging
import os
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from runtime.store import Generations, Store, StoreError

log = logging.getLogger(__name__)

CURRENT = "current.sqlite"
PREVIOUS = "previous.sqlite"
SAVED_AT = "saved_at.json"


@dataclass(frozen=True)
class OpenedState:
    """``persistent``: the store lives in ``current.sqlite`` and is saved after each step.

    ``rotate_first``: whether the first save may push the host's current file into the previous slot
    (not after a fallback: that file is the damaged one). ``notice`` is for the person, or None.
    """

    store: Store
    persistent: bool
    rotate_first: bool
    source: str
    notice: str | None = None


def open_state(state_dir: Path | None) -> OpenedState:
    if state_dir is None:
        return OpenedState(Store(), False, False, "memory")
    try:
        state_dir.mkdir(parents=True, exist_ok=True)
        return _open_dir(state_dir)
    except StoreError as exc:
        log.error("the state database could not be opened: %r", exc)
        notice = (
            f"{exc.message} Sessions and memories are kept in this tab only and will not be saved "
            "until this is resolved."
        )
        return OpenedState(Store(), False, False, "memory", notice)
    except OSError as exc:
        log.error("the state directory %s is not usable: %s", state_dir, exc)
        notice = f"The saved state could not be read ({exc}); sessions and memories will not be saved."
        return OpenedState(Store(), False, False, "memory", notice)


def _open_dir(state_dir: Path) -> OpenedState:
    live = state_dir / CURRENT
    current = live if live.exists() else None
    previous = state_dir / PREVIOUS
    choice = Generations().choose_files(
        current, previous if previous.exists() else None, _saved_at(state_dir, "previous")
    )
    if choice.source == "previous" and choice.data is not None:
        _write_atomic(live, choice.data)
    elif choice.source == "fresh" and current is not None:
        os.replace(live, state_dir / f"current.damaged-{os.getpid()}.sqlite")  # keep it aside, never reuse
    store = Store(live)
    return OpenedState(store, True, choice.rotate_on_next_save, choice.source, choice.notice)


def _saved_at(state_dir: Path, slot: str) -> datetime | None:
    try:
        data = json.loads((state_dir / SAVED_AT).read_text(encoding="utf-8"))
        value = data.get(slot) if isinstance(data, dict) else None
        return datetime.fromisoformat(value.replace("Z", "+00:00")) if isinstance(value, str) else None
    except (OSError, ValueError) as exc:
        if not isinstance(exc, FileNotFoundError):
            log.warning("%s is unreadable: %s", SAVED_AT, exc)
        return None


def _write_atomic(path: Path, data: bytes) -> None:
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_bytes(data)
    os.replace(tmp, path)

"""Profile backup requests: the store as one JSON dump (``backup_state``), and a dump put back
(``backup_restore``, merge or replace, one transaction). The page packs and unpacks the backup file
(web/src/profile/); the runtime only ever sees its own part. docs/storage.md, "Backup"."""

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, NotRequired, TypedDict

from runtime import __version__
from runtime.requests.method import Method, NoParams, Table
from runtime.requests.params import RequestError, flag, text

if TYPE_CHECKING:
    from runtime.requests.ports import Ports

MAX_DUMP_BYTES = 1024 * 1024 * 1024


class BackupState(TypedDict):
    app_version: str
    dump: dict[str, Any]  # format "tidepool.state" (runtime/store/backup.py)


class BackupRestoreParams(TypedDict):
    path: str  # where the host stored the dump (under INCOMING_DIR); the host adds it
    size: NotRequired[int]
    mode: Literal["merge", "replace"]
    dry_run: NotRequired[bool]  # check that it restores (one transaction, rolled back); nothing changes


class BackupRestored(TypedDict):
    sessions: int
    memories: int
    current: str | None


async def backup_state(ports: "Ports", params: NoParams) -> BackupState:
    store = await ports.state.store()
    return {"app_version": __version__, "dump": store.backup_dump()}


async def backup_restore(ports: "Ports", params: BackupRestoreParams) -> BackupRestored:
    """Put the dump at ``params.path`` back; the open session is left first and the latest opened after."""
    mode = params.get("mode")
    if mode not in ("merge", "replace"):
        raise RequestError("bad_params", 'params.mode must be "merge" or "replace"')
    if ports.sessions.turn_running:
        raise RequestError("busy", "A turn is running: stop it, then restore.")
    path = Path(text(params, "path"))
    if not path.is_absolute() or not path.is_file():
        raise RequestError("bad_params", "params.path must name the stored dump (an absolute path to a file)")
    if path.stat().st_size > MAX_DUMP_BYTES:
        raise RequestError("too_large", "The backup's state is over 1 GiB.")
    try:
        dump = json.loads(path.read_bytes())
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise RequestError("invalid", f"The backup's state is not JSON: {exc}") from exc
    store = await ports.state.store()
    if flag(params, "dry_run", default=False):
        would = store.backup_restore(dump, mode, dry_run=True)
        return {"sessions": would["sessions"], "memories": would["memories"], "current": ports.state.session_id}
    await ports.sessions.leave()
    try:
        written = store.backup_restore(dump, mode)
    finally:
        await ports.sessions.switch(None)
    await ports.state.save()
    return {"sessions": written["sessions"], "memories": written["memories"], "current": ports.state.session_id}


METHODS: Table = {
    "backup_state": Method(NoParams, BackupState, backup_state),
    "backup_restore": Method(BackupRestoreParams, BackupRestored, backup_restore, file=True),
}

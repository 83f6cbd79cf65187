"""Checkpoint requests: list a session's checkpoints, preview one, restore one (itself undoable), set their bound.

A checkpoint is what a turn's changes replaced (``runtime.checkpoints.store``). Restoring is refused
while a turn runs; it first keeps the files it is about to put back, as a ``restore`` checkpoint whose
restore undoes it. Every change is saved to the host as a workspace flush.
"""

import secrets
from typing import TYPE_CHECKING, Literal, NotRequired, TypedDict

from runtime.checkpoints.store import CHECKPOINTS_DIR, CheckpointStore
from runtime.requests.method import Method, Table
from runtime.requests.params import RequestError, integer, optional_text, text
from runtime.tools.base import ToolError

MAX_LIMIT_BYTES = 100 * 1024**3

if TYPE_CHECKING:
    from runtime.requests.ports import Ports


class CheckpointListParams(TypedDict):
    session_id: NotRequired[str]  # default: the open session


class CheckpointRow(TypedDict):
    turn_id: str
    kind: Literal["turn", "restore", "files"]  # restore: what a restore replaced (restoring it undoes that
    # restore); files: what a change in the Files panel replaced
    undoes: str | None  # for a restore: the turn whose checkpoint it restored
    created: float  # seconds since the epoch
    files: list[str]


class CheckpointList(TypedDict):
    checkpoints: list[CheckpointRow]
    total_bytes: int  # all checkpoints of the workspace, for the storage status
    limit_bytes: int


class CheckpointLimitParams(TypedDict):
    limit_bytes: int  # the bound on the checkpoints' storage; 0 keeps none


class CheckpointLimit(TypedDict):
    limit_bytes: int
    total_bytes: int  # after the oldest were dropped to fit


class CheckpointKeepParams(TypedDict):
    paths: list[str]  # workspace files (or folders) about to be changed outside a turn (the Files panel)


class CheckpointKept(TypedDict):
    turn_id: str | None  # restore this checkpoint to put the files back; None: nothing kept (checkpoints off)


class CheckpointId(TypedDict):
    turn_id: str


class CheckpointFile(TypedDict):
    path: str
    action: Literal["restore", "delete"]  # put back as it was, or delete (the turn created it)
    size: int
    current_size: int | None  # None: the file is absent now


class CheckpointPreview(TypedDict):
    turn_id: str
    files: list[CheckpointFile]


class CheckpointRestored(TypedDict):
    turn_id: str
    undo_id: str  # restore this checkpoint to undo the restore
    changed: list[str]


async def _store(ports: "Ports") -> CheckpointStore:
    await ports.on_demand.tree(CHECKPOINTS_DIR)
    return CheckpointStore(ports.workspace)


async def checkpoints_list(ports: "Ports", params: CheckpointListParams) -> CheckpointList:
    session_id = optional_text(params, "session_id") or ports.state.session_id
    store = await _store(ports)
    rows: list[CheckpointRow] = [
        {
            "turn_id": c.turn_id,
            "kind": "restore" if c.kind == "restore" else "files" if c.kind == "files" else "turn",
            "undoes": c.undoes,
            "created": c.created,
            "files": sorted(c.files),
        }
        for c in store.load()
        if c.session_id == session_id and c.files
    ]
    return {"checkpoints": rows, "total_bytes": store.total_bytes(), "limit_bytes": store.limit_bytes}


async def checkpoint_preview(ports: "Ports", params: CheckpointId) -> CheckpointPreview:
    turn_id = text(params, "turn_id")
    store = await _store(ports)
    try:
        files = store.preview(turn_id)
    except ToolError as exc:
        raise RequestError("not_found", str(exc)) from None
    await ports.on_demand.paths([f.path for f in files])
    shown: list[CheckpointFile] = [
        {
            "path": f.path,
            "action": "delete" if f.action == "delete" else "restore",
            "size": f.size,
            "current_size": f.current_size,
        }
        for f in files
    ]
    return {"turn_id": turn_id, "files": shown}


async def checkpoint_restore(ports: "Ports", params: CheckpointId) -> CheckpointRestored:
    turn_id = text(params, "turn_id")
    if ports.sessions.turn_running:
        raise RequestError("busy", "a turn is running; restore its files when it has finished (or stop it)")
    store = await _store(ports)
    try:
        await ports.on_demand.paths(list(store.get(turn_id).files))
        undo_id = f"restore-{secrets.token_hex(6)}"
        changed, hidden = store.restore(turn_id, undo_id, ports.state.session_id)
    except ToolError as exc:
        raise RequestError("not_found", str(exc)) from None
    except OSError as exc:
        raise RequestError("restore_failed", f"the files could not be put back: {exc}") from None
    if not await ports.state.flusher.workspace([*hidden, *changed]):
        raise RequestError("save_failed", "the files were put back in this tab but could not be saved")
    return {"turn_id": turn_id, "undo_id": undo_id, "changed": changed}


async def checkpoint_keep(ports: "Ports", params: CheckpointKeepParams) -> CheckpointKept:
    """Keep ``paths`` as they are now, before the Files panel changes them: a checkpoint of its own."""
    paths = params.get("paths")
    if not isinstance(paths, list) or not paths or not all(isinstance(p, str) and p for p in paths):
        raise RequestError("bad_params", "params.paths must be a non-empty list of workspace paths")
    store = await _store(ports)
    await ports.on_demand.paths(paths)
    turn_id = f"files-{secrets.token_hex(6)}"
    try:
        hidden = store.keep(turn_id, ports.state.session_id, paths, kind="files")
    except OSError as exc:
        raise RequestError("keep_failed", f"the files' earlier content could not be kept: {exc}") from None
    if hidden and not await ports.state.flusher.workspace(hidden):
        raise RequestError("save_failed", "the files' earlier content was kept in this tab but could not be saved")
    return {"turn_id": turn_id if hidden else None}


async def checkpoints_limit(ports: "Ports", params: CheckpointLimitParams) -> CheckpointLimit:
    limit = integer(params, "limit_bytes", high=MAX_LIMIT_BYTES)
    if ports.sessions.turn_running:
        raise RequestError("busy", "a turn is running; change the bound when it has finished")
    store = await _store(ports)
    changed = store.set_limit(limit)
    if not await ports.state.flusher.workspace(changed):
        raise RequestError("save_failed", "the bound was applied in this tab but could not be saved")
    return {"limit_bytes": store.limit_bytes, "total_bytes": store.total_bytes()}


METHODS: Table = {
    "checkpoint_keep": Method(CheckpointKeepParams, CheckpointKept, checkpoint_keep),
    "checkpoints_limit": Method(CheckpointLimitParams, CheckpointLimit, checkpoints_limit),
    "checkpoints_list": Method(CheckpointListParams, CheckpointList, checkpoints_list),
    "checkpoint_preview": Method(CheckpointId, CheckpointPreview, checkpoint_preview),
    "checkpoint_restore": Method(CheckpointId, CheckpointRestored, checkpoint_restore),
}

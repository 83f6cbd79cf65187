"""The concrete ``ToolContext``: what a running tool may use (workspace root, fetch, host requests, store)."""

from __future__ import annotations

import copy
import logging
from collections.abc import Awaitable, Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from runtime.agent.live_output import LiveOutput
from runtime.checkpoints.store import CHECKPOINTS_DIR, CheckpointStore
from runtime.errors import HostRequestError
from runtime.host.http import HttpClient, Response
from runtime.host.messages import FlushRequest, RuntimeRequest
from runtime.host.rpc import Rpc
from runtime.host.workspace_fetch import OnDemand
from runtime.tools.base import ToolError

if TYPE_CHECKING:
    from runtime.store import Store

log = logging.getLogger(__name__)

SaveWorkspace = Callable[[tuple[str, ...]], Awaitable[bool]]


class AgentToolContext:
    def __init__(
        self,
        workspace: Path,
        rpc: Rpc,
        http: HttpClient,
        save_workspace: SaveWorkspace | None = None,
        store: Callable[[], Store | None] = lambda: None,
        live: LiveOutput | None = None,
        on_demand: OnDemand | None = None,
    ) -> None:
        self._workspace = workspace
        self._on_demand = on_demand or OnDemand.present()
        self._rpc = rpc
        self._http = http
        self._save_workspace = save_workspace
        self._store = store
        self.live = live or LiveOutput()  # output of the running call, as it comes
        self.checkpoints = CheckpointStore(workspace)
        self.session_id: Callable[[], str | None] = lambda: None
        self._kept: list[str] = []  # checkpoint files written during the running call, saved with its changes
        self.agents: tuple[str, ...] = ()  # the delegated agents this context runs for, outermost first
        self.delegation: Any = None  # the conversation's ``runtime.agents.delegation.Delegation`` (None: none)
        self.changed: list[str] | None = None  # a child's: every path its calls flushed
        self.mode: str | None = None  # a child's permission mode (None: the chat's turn's)

    def for_child(self, agent: str, session_id: str, live: LiveOutput, mode: str) -> AgentToolContext:
        """The same workspace, host and store for a delegated agent's run, with its own call tracking."""
        child = copy.copy(self)
        child.agents = (*self.agents, agent)
        child.session_id = lambda: session_id
        child.live = live
        child.changed = []
        child.mode = mode
        child._kept = []
        return child

    @property
    def workspace(self) -> Path:
        return self._workspace

    @property
    def on_demand(self) -> OnDemand:
        """Lists the workspace's folders from the host's storage (the conversation's one ``OnDemand``)."""
        return self._on_demand

    @property
    def store(self) -> Store:
        """The workspace's open store (memory tools); a turn only starts once it is open."""
        store = self._store()
        if store is None:
            raise ToolError("The memory store is not open yet; try again in a moment.")
        return store

    async def fetch(
        self,
        url: str,
        *,
        method: str = "GET",
        headers: dict[str, str] | None = None,
        body: str | None = None,
        timeout_s: float = 30.0,
        max_bytes: int = 5_000_000,
    ) -> Response:
        """A request without credentials (``auth: "none"``): the host's egress rule decides."""
        return await self._http.fetch(
            url, method=method, headers=headers, body=body, timeout_s=timeout_s, max_bytes=max_bytes, auth="none"
        )

    async def host_request(self, type: str, payload: dict[str, Any], timeout_s: float = 60.0) -> dict[str, Any]:
        """Send ``type`` with a fresh id and return the host's answer; an ``error`` answer raises."""
        # ``payload`` is the typed body of a RuntimeRequest (e.g. ExecRequestBody); the tag and id make it one.
        message = cast(RuntimeRequest, {**payload, "type": type, "id": self._rpc.new_id()})
        with self.live.request(message["id"]):
            reply = await self._rpc.call(message, timeout_s)
        if reply.get("type") == "error":
            raise HostRequestError(
                str(reply.get("code") or "error"), str(reply.get("message") or "the host refused"), message["id"]
            )
        return reply

    async def keep_before(self, paths: Iterable[str]) -> None:
        """Keep ``paths`` as they are now in the running turn's checkpoint (before the call changes them)."""
        current = self.live.current
        wanted = list(paths)
        if current is None or not wanted:
            return
        await self._on_demand.tree(CHECKPOINTS_DIR)
        try:
            self._kept.extend(self.checkpoints.keep(current[0], self.session_id(), wanted))
        except OSError as exc:  # the change goes ahead; only its undo is lost, and the log says so
            log.warning("the checkpoint of %s could not be kept: %s", wanted, exc)

    def take_kept(self) -> tuple[str, ...]:
        """The checkpoint files written since the last call (for the host to save)."""
        kept, self._kept = tuple(self._kept), []
        return kept

    async def flush_changed(self, paths: tuple[str, ...]) -> bool:
        """Ask the host to persist changed workspace files and wait for its answer (see ``Flusher``)."""
        if not paths:
            return True
        if self.changed is not None:
            self.changed.extend(p for p in paths if p not in self.changed)
        if self._save_workspace is not None:
            return await self._save_workspace(paths)
        request: FlushRequest = {
            "type": "flush_request",
            "id": self._rpc.new_id(),
            "what": "workspace",
            "paths": list(paths),
        }
        self._rpc.send(request)
        return True

"""The next turn's request, prepared before Send (time to first token).

While the runtime is idle (after a turn, a setting, a request, a session switch) the ``Preparer`` builds
what a plain turn's first request is made of — the system prompt and tools planned against the model's
window, the tool schemas, the session's stored messages and the model's view of them — with the same
functions the turn uses, and keeps it with its *key*: everything those functions read. At Send the key is
taken again; only when it is equal is the prepared part used, and the turn adds the person's message and
goes on exactly as a fresh build would (``runtime.agent.context.ContextWindow``): what is sent is what
would have been built. Any difference throws the prepared part away and the turn builds as before.

The key: the session's journal and store (by identity), the store's count of changed rows (SQLite's
``total_changes``: every message, summary, branch switch and memory written through it), the settings,
the window and vision the provider reports, the registry's version (tool servers' tools come and go),
and the workspace's stamp — the map (the same bounded walk) and the identity (inode, size, mtime) of
AGENTS.md and of every file the skills catalog and the tool schemas read.

Edits, regenerates, attachments and ``/skill`` turns never use it (``TurnRunner.start``).
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from runtime.agent.context import Ready
from runtime.agents.profiles import PROFILES_DIR
from runtime.chat.history import model_view
from runtime.prompts.fit import PromptPlan
from runtime.prompts.workspace_map import workspace_map
from runtime.skills.layout import catalog_stamp
from runtime.store.values import StoredMessage

log = logging.getLogger(__name__)

PREPARE_DELAY_S = 0.01  # after the last message or turn: what just happened has settled
# After a session opens the page draws its view: a long session's request (its whole context read and
# estimated) is prepared once that is done, not beside it on the machine's cores. Nobody types that fast.
OPENED_SETTLE_S = 0.3
BUSY_RECHECK_S = 0.02  # while a request or a session switch runs
# After an event sent while idle (a background agent's progress drops the host's offer): prepared and offered
# again once such events pause, not after each of a stream of them.
EVENT_SETTLE_S = 0.3
Stat = tuple[int, int, int] | None


@dataclass(frozen=True)
class Prepared:
    key: tuple[object, ...]
    plan: PromptPlan
    ready: Ready


def _stat(path: Path) -> Stat:
    try:
        s = path.stat()
    except OSError:
        return None
    return (s.st_ino, s.st_size, s.st_mtime_ns)


def _profiles_stamp(root: Path) -> tuple[object, ...]:
    """Every entry of the agent profiles' folder, by identity."""
    try:
        names = sorted(os.listdir(root))
    except OSError:
        return ()
    return tuple((name, _stat(root / name)) for name in names)


def workspace_stamp(workspace: Path) -> tuple[object, ...]:
    """What the system prompt and the tool schemas read from ``workspace``, cheaply compared."""
    if not workspace.is_dir():
        return ()
    paths, truncated = workspace_map(workspace)
    agents = _profiles_stamp(workspace / PROFILES_DIR)  # the chat's profile file (its tools, prompt, skills)
    return (tuple(paths), truncated, _stat(workspace / "AGENTS.md"), catalog_stamp(workspace), agents)


class Preparer:
    """Keeps at most one prepared request; ``build`` makes one (None: nothing to prepare now)."""

    def __init__(
        self,
        key: Callable[[], tuple[object, ...] | None],
        build: Callable[[], tuple[PromptPlan, Ready] | None],
        listed: Callable[[], Awaitable[None]],
        busy: Callable[[], bool],
        turning: Callable[[], bool],
        offer: Callable[[Prepared | None], Awaitable[None]] | None = None,
    ) -> None:
        self._key = key
        self._build = build
        self._listed = listed  # awaitable: what the prompt reads from the workspace is listed
        self._busy = busy  # a request or a session switch: prepare after it (checked again soon)
        self._turning = turning  # a turn: its end prepares again
        self._offer = offer  # hands the host the request a plain message would send now (conversation/offer.py)
        self._prepared: Prepared | None = None
        self._nothing: tuple[object, ...] | None = None  # the key ``build`` had nothing to prepare for
        self._timer: asyncio.TimerHandle | None = None
        self._task: asyncio.Task[None] | None = None
        self._again = False  # something happened while one was under way: prepare once more after it
        self.used = 0  # turns that went out with the prepared request (tests, benchmarks)

    def soon(self, delay_s: float = PREPARE_DELAY_S) -> None:
        """Prepare once nothing has happened for ``delay_s`` (a later call moves it)."""
        if self._timer is not None:
            self._timer.cancel()
        self._timer = asyncio.get_running_loop().call_later(delay_s, self._start)

    def _start(self) -> None:
        self._timer = None
        if self._turning():
            return
        if self._busy():
            self.soon(BUSY_RECHECK_S)
            return
        if self._task is None or self._task.done():
            self._task = asyncio.ensure_future(self._run())
        else:  # the one under way may have read what just changed before it changed
            self._again = True

    async def _run(self) -> None:
        await self.prepare()
        if self._again:
            self._again = False
            if self._timer is None:  # else a later change has its own due (an event's settling time)
                self.soon()

    async def prepare(self) -> Prepared | None:
        """Build the request's prepared part unless the one kept is still current; the one kept."""
        try:
            key = self._key()
            if key is None or (self._prepared is not None and self._prepared.key == key) or key == self._nothing:
                await self._offered()
                return self._prepared
            await self._listed()
            key = self._key()  # the listing may have added files
            built = None
            if key is not None and not self._busy() and not self._turning():
                built = self._build()
                self._nothing = key if built is None else None  # nothing to prepare until the key changes
        except Exception:  # a turn built afresh says what is wrong; preparing stays quiet
            log.exception("preparing the next request failed")
            built = None
        self._prepared = None if built is None or key is None else Prepared(key, *built)
        await self._offered()
        return self._prepared

    async def _offered(self) -> None:
        """Offer the prepared request again (the host drops its offer whenever anything else happens); with
        nothing prepared, withdraw the one out."""
        if self._offer is None:
            return
        try:
            await self._offer(self._prepared)
        except Exception:  # the turn builds its request anyway
            log.exception("offering the next request failed")

    def _now(self) -> tuple[object, ...] | None:
        try:
            return self._key()
        except Exception:
            log.exception("reading the prepared request's inputs failed")
            return None

    def current(self) -> bool:
        """Whether a prepared part is kept and still what the turn would read now."""
        return self._prepared is not None and self._prepared.key == self._now()

    def ready(self) -> Ready | None:
        """The prepared request's parts while they are current (the gauge counts them), else None."""
        prepared = self._prepared
        return prepared.ready if prepared is not None and self.current() else None

    def take(self) -> Prepared | None:
        """The prepared part, when its key equals what the turn would read now; kept only once."""
        prepared, self._prepared = self._prepared, None
        if prepared is None:
            return None
        if prepared.key != self._now():
            log.debug("the prepared request is out of date; building it afresh")
            return None
        self.used += 1
        return prepared

    def drop(self) -> None:
        """Forget the prepared part (the next turn builds as before)."""
        self._prepared = None

    def close(self) -> None:
        """Prepare nothing more (the conversation ends)."""
        if self._timer is not None:
            self._timer.cancel()
        if self._task is not None:
            self._task.cancel()
        self._timer = self._task = None
        self._prepared = None


def build_ready(plan: PromptPlan, stored: Sequence[StoredMessage], workspace: Path) -> Ready:
    """The request's parts as the turn builds them: the plan's tools, the stored messages, the model's view."""
    tools = plan.tools.openai_tools(workspace)
    return Ready(plan.text, tools, list(stored), model_view(plan.text, stored))

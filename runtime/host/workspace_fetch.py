"""The workspace on demand: the host fills ``/workspace`` from its storage only as far as it is used.

In the browser the workspace's files live in OPFS; boot copies nothing. The runtime's file system shows
a folder's entries only once the host has *listed* it (files appear with their real size, and the first
read of a file fetches its bytes), so before code walks or opens workspace paths it awaits a
``workspace_fetch`` request naming the folders it needs:

* ``path(rel)``: every folder on the way to ``rel``, and ``rel`` itself when it is a folder (read,
  write, edit, move, list one folder);
* ``tree(rel)``: ``rel`` and everything below it (search, run_python's copy of the workspace, skills),
  in one round trip (the host lists the folders on the way first). The skills' tree comes with the bytes
  of the files the catalog reads (``SKILLS_LOAD``), so a catalog of 200 skills costs one request, not
  one synchronous read per SKILL.md;
* ``dirs(rels, depth)``: folders ``depth`` levels down;
* ``for_prompt(walk)``: what the system prompt reads, the workspace map's folders as its walk reaches them.

What a tool call needs is its ``Reach``, derived from what its tool declares (``runtime.tools.traits``:
its ``WorkspacePath`` parameters and what it walks); this module knows no tool by name. Each conversation
has one ``OnDemand``, handed to whatever lists: the agent's tool context, the turn runner and the request
ports carry it.

What the runtime writes stays in its file system and reaches the host's storage at the flush, as before;
a listing never replaces what is already there. Each folder is fetched once: the host remembers what it
listed, and so does this module (so a second ask costs no round trip). A host without the
``workspace_fetch`` capability (tests, the CLI) has the whole workspace in the file system already: then
every call here returns at once.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Protocol

from runtime.errors import HostRequestError
from runtime.host.messages import WorkspaceFetch
from runtime.host.rpc import Rpc

log = logging.getLogger(__name__)

FETCH_TIMEOUT_S = 120.0
CAPABILITY = "workspace_fetch"
SKILLS_DIR = ".agents/skills"
AGENTS_DIR = ".agents/agents"  # agent profiles (runtime.agents.profiles.PROFILES_DIR)
# What runtime.skills.catalog reads of the skills' tree: each SKILL.md, state.json, origins.json.
SKILLS_LOAD = ("SKILL.md", "state.json", "origins.json")


class Walk(Protocol):
    """A walk over the workspace that says which folders it reads next (``runtime.prompts.workspace_map``)."""

    def upcoming(self) -> list[str]: ...

    def read(self, count: int) -> None: ...


@dataclass(frozen=True)
class Reach:
    """What one use needs listed: ``paths`` (each with the folders on the way) and ``trees`` (all below).
    A tool call's reach comes from its tool's declarations (``runtime.tools.traits``)."""

    paths: tuple[str, ...] = ()
    trees: tuple[str, ...] = ()


class OnDemand:
    """The workspace on demand of one conversation; the agent's tool context and the request ports carry it."""

    def __init__(self, rpc: Rpc | None, enabled: Callable[[], bool]) -> None:
        self._rpc = rpc
        self._enabled = enabled
        self._done: set[tuple[str, int | None]] = set()  # asks already answered

    @classmethod
    def present(cls) -> OnDemand:
        """For a workspace that is all in the file system already (tests, the CLI): it never asks."""
        return cls(None, lambda: False)

    async def path(self, rel: str) -> None:
        """Every folder on the way to ``rel`` and ``rel`` itself (when a folder) is listed."""
        parts = _parts(rel)
        await self.dirs(["/".join(parts[:i]) for i in range(len(parts) + 1)], depth=0)

    async def paths(self, rels: Iterable[str]) -> None:
        for rel in rels:
            await self.path(rel)

    async def tree(self, rel: str = "") -> None:
        """``rel`` and everything below it is listed (the skills' tree with the bytes the catalog reads)."""
        parts = _parts(rel)
        top = "/".join(parts)
        load = SKILLS_LOAD if top == SKILLS_DIR else ()
        if await self.dirs([top], depth=None, load=load):  # the host lists the folders on the way first
            self._done.update(("/".join(parts[:i]), 0) for i in range(len(parts) + 1))

    async def dirs(
        self, rels: list[str], depth: int | None = 0, load: tuple[str, ...] = ()
    ) -> bool:
        """List ``rels`` (workspace-relative folders) and ``depth`` levels below them (None: all).

        True when the host listed them (now or before)."""
        if not self._enabled() or self._rpc is None:
            return False
        wanted = [r for r in dict.fromkeys(_norm(r) for r in rels) if (r, depth) not in self._done]
        if not wanted:
            return True
        message: WorkspaceFetch = {"type": "workspace_fetch", "id": self._rpc.new_id(), "dirs": wanted, "depth": depth}
        if load:
            message["load"] = list(load)
        try:
            reply = await self._rpc.call(message, FETCH_TIMEOUT_S)
        except HostRequestError as exc:
            log.warning("the workspace could not be listed (%s): %s", exc.code, exc.message)
            return False
        if reply.get("type") == "reply" and reply.get("ok") is True:
            self._done.update((r, depth) for r in wanted)
            return True
        log.warning("the host did not list %s: %s", wanted, reply.get("error") or reply.get("message"))
        return False

    async def reach(self, reach: Reach) -> None:
        """What a use needs is listed: a tool call's reach before it runs (and before its preview)."""
        await self.paths(reach.paths)
        for top in reach.trees:
            await self.tree(top)

    async def for_prompt(self, walk: Walk) -> None:
        """What the system prompt shows: AGENTS.md, the installed skills, the agent profiles, and the folders
        the workspace map's ``walk`` reads, as it reaches them."""
        if not self._enabled():
            return
        await self.path("AGENTS.md")
        await self.tree(SKILLS_DIR)
        await self.tree(AGENTS_DIR)
        while folders := walk.upcoming():
            await self.dirs(folders, depth=0)
            walk.read(len(folders))


def _parts(rel: str) -> list[str]:
    return [p for p in PurePosixPath(rel.replace("\\", "/")).parts if p not in ("", ".", "/") and p != ".."]


def _norm(rel: str) -> str:
    return "/".join(_parts(rel))

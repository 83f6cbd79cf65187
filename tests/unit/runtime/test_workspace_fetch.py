"""The workspace on demand (runtime/host/workspace_fetch.py): before code uses workspace paths it asks the
host to list the folders they are in, once each; a host that lists from its own storage into the runtime's
folder makes exactly those files appear."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from runtime.host.codec import Decoder, Frame
from runtime.host.rpc import Rpc
from runtime.host.transport import FeedTransport
from runtime.host.workspace_fetch import OnDemand, on_demand, register


class ListingHost:
    """A host whose storage is ``store``: each ``workspace_fetch`` copies the named folders' entries
    (files and empty sub-folders, not their contents) into ``workspace``, as the browser adapter does."""

    def __init__(self, store: Path, workspace: Path, *, fail: bool = False) -> None:
        self.store, self.workspace, self.fail = store, workspace, fail
        self.asks: list[dict[str, Any]] = []
        self._decoder = Decoder()
        self.transport = FeedTransport(self._from_runtime)
        self.rpc = Rpc(self.transport)

    def _from_runtime(self, data: bytes) -> None:
        for item in self._decoder.feed(data):
            assert isinstance(item, Frame) and item.message["type"] == "workspace_fetch"
            self.asks.append(item.message)
            self._list(item.message["dirs"], item.message["depth"])
            reply = {"type": "reply", "id": item.message["id"], "ok": not self.fail}
            reply.update({"error": {"code": "storage_failed", "message": "no"}} if self.fail else {"result": {}})
            self.rpc.dispatch(reply)  # the answer arrives as the transport would hand it on

    def _list(self, dirs: list[str], depth: int | None) -> None:
        for rel in dirs:
            source, target = self.store / rel, self.workspace / rel
            if not source.is_dir() or not target.is_dir():
                continue
            for entry in source.iterdir():
                if (target / entry.name).exists():
                    continue
                if entry.is_dir():
                    (target / entry.name).mkdir()
                else:
                    shutil.copyfile(entry, target / entry.name)
            if depth is None or depth > 0:
                children = [f"{rel}/{e.name}".lstrip("/") for e in source.iterdir() if e.is_dir()]
                self._list(children, None if depth is None else depth - 1)


@pytest.fixture
def host(tmp_path: Path) -> ListingHost:
    store = tmp_path / "opfs"
    for rel in ("src/app/main.py", "src/app/util.py", "docs/guide.md", "AGENTS.md", ".agents/skills/tea/SKILL.md"):
        (store / rel).parent.mkdir(parents=True, exist_ok=True)
        (store / rel).write_text(rel)
    workspace = tmp_path / "ws"
    workspace.mkdir()
    return ListingHost(store, workspace)


def fetcher(host: ListingHost, enabled: bool = True) -> OnDemand:
    return OnDemand(host.rpc, lambda: enabled)


async def test_nothing_is_there_until_it_is_asked_for(host: ListingHost) -> None:
    assert list(host.workspace.iterdir()) == []
    await fetcher(host).path("src/app/main.py")
    assert (host.workspace / "src/app/main.py").read_text() == "src/app/main.py"
    assert not (host.workspace / "docs/guide.md").exists() and (host.workspace / "docs").is_dir()
    assert host.asks[0]["dirs"] == ["", "src", "src/app", "src/app/main.py"] and host.asks[0]["depth"] == 0


async def test_each_folder_is_asked_for_once(host: ListingHost) -> None:
    fetch = fetcher(host)
    await fetch.path("src/app/main.py")
    await fetch.path("src/app/util.py")  # the same folders: no new ask
    await fetch.path("docs/guide.md")  # only what is new
    asked = [a["dirs"] for a in host.asks]
    assert asked == [["", "src", "src/app", "src/app/main.py"], ["src/app/util.py"], ["docs", "docs/guide.md"]]


async def test_a_tree_lists_everything_below(host: ListingHost) -> None:
    await fetcher(host).tree("src")
    assert sorted(p.name for p in (host.workspace / "src/app").iterdir()) == ["main.py", "util.py"]
    assert host.asks[-1] == {"type": "workspace_fetch", "id": host.asks[-1]["id"], "dirs": ["src"], "depth": None}


@pytest.mark.parametrize(
    ("tool", "arguments", "present"),
    [
        pytest.param("read_file", {"path": "docs/guide.md"}, "docs/guide.md", id="a file tool's path"),
        pytest.param("move_file", {"src": "docs/guide.md", "dst": "old/guide.md"}, "docs/guide.md", id="move"),
        pytest.param("search_files", {"pattern": "x"}, "src/app/util.py", id="search walks everything"),
        pytest.param("search_files", {"pattern": "x", "path": "src"}, "src/app/main.py", id="search one folder"),
        pytest.param("run_python", {"code": "print(1)"}, "docs/guide.md", id="run_python gets a copy of it all"),
        pytest.param("activate_skill", {"name": "tea"}, ".agents/skills/tea/SKILL.md", id="skills"),
    ],
)
async def test_a_tool_call_has_what_it_uses_listed_first(
    host: ListingHost, tool: str, arguments: dict[str, Any], present: str
) -> None:
    await fetcher(host).for_call(tool, arguments)
    assert (host.workspace / present).is_file()


async def test_the_system_prompt_inputs_are_listed(host: ListingHost) -> None:
    await fetcher(host).for_prompt(map_depth=2, map_entries=200)
    assert (host.workspace / "AGENTS.md").is_file() and (host.workspace / ".agents/skills/tea/SKILL.md").is_file()
    assert (host.workspace / "src/app").is_dir() and not (host.workspace / "src/app/main.py").exists()  # map depth 2


async def test_a_failed_listing_is_asked_for_again(host: ListingHost) -> None:
    host.fail = True
    fetch = fetcher(host)
    await fetch.path("docs")
    host.fail = False
    await fetch.path("docs")
    assert len(host.asks) == 2 and (host.workspace / "docs/guide.md").is_file()


async def test_without_the_capability_nothing_is_asked(host: ListingHost) -> None:
    await fetcher(host, enabled=False).tree("")
    assert host.asks == []


def test_an_unregistered_workspace_gets_a_fetcher_that_does_nothing(tmp_path: Path, host: ListingHost) -> None:
    fetch = fetcher(host)
    register(tmp_path / "ws-registered", fetch)
    assert on_demand(tmp_path / "ws-registered") is fetch
    assert on_demand(tmp_path / "elsewhere") is not fetch


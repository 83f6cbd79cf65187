"""The workspace on demand (runtime/host/workspace_fetch.py): before code uses workspace paths it asks the
host to list the folders they are in, once each; a host that lists from its own storage into the runtime's
folder makes exactly those files appear."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from runtime.host.workspace_fetch import SKILLS_LOAD, OnDemand, Reach
from runtime.prompts.workspace_map import MapWalk, workspace_map
from runtime.skills.layout import ORIGINS_FILE, SKILL_FILE, STATE_FILE
from runtime.tools.registry import builtin_registry
from tests.support.listing_host import ListingHost
from tests.support.rigs import StateRig
from tests.support.scripted import call, says


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
    return host.on_demand(enabled)


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
    assert host.asks == [{"type": "workspace_fetch", "id": host.asks[-1]["id"], "dirs": ["src"], "depth": None}]


async def test_the_skills_tree_comes_with_what_the_catalog_reads_in_one_ask(host: ListingHost) -> None:
    fetch = fetcher(host)
    await fetch.tree(".agents/skills")
    await fetch.path(".agents/skills")  # the folders on the way were listed with the tree: no second ask
    assert len(host.asks) == 1 and host.asks[0]["load"] == list(SKILLS_LOAD)
    assert set(SKILLS_LOAD) == {SKILL_FILE, STATE_FILE, ORIGINS_FILE}  # what runtime.skills.catalog reads
    assert (host.workspace / ".agents/skills/tea/SKILL.md").is_file()


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
    await fetcher(host).reach(builtin_registry().get(tool).reach(arguments))  # as the agent does before a call
    assert (host.workspace / present).is_file()


async def test_the_system_prompt_inputs_are_listed(host: ListingHost) -> None:
    await fetcher(host).for_prompt(MapWalk(host.workspace, depth=2))
    assert (host.workspace / "AGENTS.md").is_file() and (host.workspace / ".agents/skills/tea/SKILL.md").is_file()
    assert (host.workspace / "src/app").is_dir() and not (host.workspace / "src/app/main.py").exists()  # map depth 2


def _wide(store: Path, folders: int, files: int) -> None:
    """The benchmarks' many-file workspace: ``seed/dNNN/fI.txt``, ``folders`` × ``files``."""
    for d in range(folders):
        (store / "seed" / f"d{d:03}").mkdir(parents=True)
        for i in range(files):
            (store / "seed" / f"d{d:03}" / f"f{i}.txt").write_text("x")


async def test_the_map_lists_only_the_folders_it_reads(tmp_path: Path) -> None:
    _wide(tmp_path / "opfs", folders=100, files=100)
    (tmp_path / "ws").mkdir()
    host = ListingHost(tmp_path / "opfs", tmp_path / "ws")
    walk = MapWalk(host.workspace)
    await host.on_demand().for_prompt(walk)
    mapped = [a["dirs"] for a in host.asks if a["depth"] == 0][1:]  # after AGENTS.md's path (the workspace)
    assert mapped == [["seed"], ["seed/d000"]]  # not the 100 folders of level 2 (10,000 files)
    assert walk.result() == workspace_map(tmp_path / "opfs")  # what a workspace all present shows
    assert len(list((host.workspace / "seed").iterdir())) == 100 and not any((host.workspace / "seed/d001").iterdir())


def _folders_mapped(store: Path, limit: int) -> set[str]:
    """The folders the map of a workspace all present reads."""
    walk = MapWalk(store, limit=limit)
    read: set[str] = set()
    while folders := walk.upcoming():
        read.add(folders[0])  # one at a time: each one it says is read
        walk.read(1)
    return read


@pytest.mark.parametrize(
    ("folders", "files", "limit"),
    [(20, 1, 200), (20, 1, 25), (3, 2, 200), (40, 3, 90), (1, 250, 200)],
    ids=["all-fits", "cut-in-level-2", "small", "cut-after-doubling", "one-big-folder"],
)
async def test_the_map_on_demand_is_the_map_of_the_whole_workspace(
    tmp_path: Path, folders: int, files: int, limit: int
) -> None:
    store = tmp_path / "opfs"
    _wide(store, folders, files)
    for rel in ("README.md", "docs/a/b/c/deep.md", ".git/HEAD", "node_modules/x/index.js"):
        (store / rel).parent.mkdir(parents=True, exist_ok=True)
        (store / rel).write_text("x")
    (tmp_path / "ws").mkdir()
    host = ListingHost(store, tmp_path / "ws")
    walk = MapWalk(host.workspace, limit=limit)
    await host.on_demand().for_prompt(walk)
    assert walk.result() == workspace_map(store, limit=limit)
    asked = [d for a in host.asks if a["depth"] == 0 for d in a["dirs"]]
    read = [rel for rel in asked if rel in _folders_mapped(store, limit)]
    assert len(asked) - 2 <= 2 * len(read), (asked, read)  # at most twice what it reads (AGENTS.md's ask aside)


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


async def test_a_reach_lists_its_paths_and_its_trees(host: ListingHost) -> None:
    await fetcher(host).reach(Reach(paths=("docs/guide.md",), trees=("src",)))
    assert (host.workspace / "docs/guide.md").is_file() and (host.workspace / "src/app/util.py").is_file()
    assert not (host.workspace / ".agents/skills/tea/SKILL.md").exists()


async def test_a_present_workspace_asks_nothing(host: ListingHost) -> None:
    await OnDemand.present().reach(Reach(("docs",), ("",)))
    assert host.asks == [] and list(host.workspace.iterdir()) == []


async def test_a_conversation_lists_what_its_requests_and_calls_use(tmp_path: Path, host: ListingHost) -> None:
    """The conversation's one OnDemand reaches the request ports and the agent's tool context: a request
    lists the skills, a call lists the folders of the path its tool declares (deeper than the prompt's map)."""
    (host.store / "a/b/c").mkdir(parents=True)
    (host.store / "a/b/c/old.md").write_text("old")
    (host.store / ".agents/skills/tea/SKILL.md").write_text("---\nname: tea\ndescription: Brew tea.\n---\nBoil.\n")
    capabilities = ("http", "flush", "workspace_fetch")
    rig = await StateRig(host.workspace, tmp_path / "state", capabilities=capabilities, storage=host.store).start()
    try:
        assert [s["name"] for s in (await rig.result("skills_list"))["skills"]] == ["tea"]
        assert rig.host.listed and not (host.workspace / "a/b/c").exists()
        rig.provider.rounds = [says("", call("save_note", {"path": "a/b/c/new.md", "text": "new"})), says("Saved.")]
        rig.host.send({"type": "user_message", "text": "note it", "turn_id": "t1"})
        await rig.host.wait_for(lambda: rig.events("approval_needed"))
        rig.host.send({"type": "approval", "call_id": "c1", "decision": "allow"})
        assert (await rig.finished("t1"))["reason"] == "stop"
    finally:
        await rig.stop()
    (done,) = rig.events("tool_finished")
    assert done["ok"] is True, done
    assert (host.workspace / "a/b/c/new.md").read_text() == "new" and (host.workspace / "a/b/c/old.md").is_file()
    assert any("a/b/c" in m["dirs"] for m in rig.host.listed)

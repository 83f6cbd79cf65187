"""What a tool uses of the workspace comes from its own declaration, and that declaration is enough.

In the browser the workspace is listed on demand: a folder's files appear only once the host has listed it,
and before a call the agent lists what the call's tool declares (``ToolDefinition.reach``). Each tool of the
real registry is run twice here, on the whole workspace (as every CPython test sees it) and on a workspace a
``ListingHost`` fills on demand (as the browser's runtime sees it); both must give the same answer. A tool
that walks a folder without declaring it sees only the folders listed already, and fails this.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any

import pytest

from runtime.errors import HostRequestError
from runtime.policy.permissions import Policy
from runtime.policy.protected import instruction_paths
from runtime.store import Store
from runtime.tools.base import ToolContext, ToolDefinition, ToolError, tool
from runtime.tools.registry import builtin_registry
from runtime.tools.traits import Walk, WorkspacePath
from tests.support.listing_host import ListingHost
from tests.unit.tools.support import CannedResponse, FakeContext

REGISTRY = builtin_registry()
SKILL = "---\nname: tea\ndescription: Brew tea well.\n---\nBoil the water, then wait.\n"
FILES = {
    "AGENTS.md": "Be brief.\n",
    "src/app/main.py": "print('main')\n",
    "src/app/deep/util.py": "def util(): return 'needle'\n",
    "docs/guide.md": "# Guide\nneedle in the docs\n",
    ".agents/skills/tea/SKILL.md": SKILL,
    ".agents/skills/tea/notes/steep.md": "Three minutes.\n",
}
EXEC_REPLY = {"type": "exec_result", "id": "r1", "ok": True, "stdout": "ran\n", "stderr": "", "files": {}}

# One call of each registered tool: what it is run with on both workspaces.
EXAMPLES: dict[str, dict[str, Any]] = {
    "list_files": {"path": "src/app"},
    "read_file": {"path": "src/app/deep/util.py"},
    "write_file": {"path": "docs/new/notes.md", "content": "new\n"},
    "edit_file": {"path": "docs/guide.md", "old_text": "needle", "new_text": "pin"},
    "delete_file": {"path": "src/app/main.py"},
    "move_file": {"src": "docs/guide.md", "dst": "old/guide.md"},
    "search_files": {"pattern": "needle"},
    "web_fetch": {"url": "https://example.org/page"},
    "run_python": {"code": "print('ran')"},
    "memory_save": {"text": "Likes green tea"},
    "memory_search": {"query": "tea"},
    "memory_delete": {"id": 1},
    "activate_skill": {"name": "tea"},
    "delegate": {"agent": "explore", "task": "look"},
    "task_result": {"task_id": "task-1"},
}

# Tools that act through the conversation's delegation (a child agent's run), which a bare context has not.
THROUGH_THE_CONVERSATION = {"delegate", "task_result"}


@dataclass
class StoreContext(FakeContext):
    """The fake host boundary plus the workspace's store (the memory tools' ``MemoryContext``)."""

    store: Store = field(default_factory=Store)


@dataclass
class Seen:
    """What a call gave back and what it asked of the host, with its workspace's root written ``<ws>``."""

    result: str
    requested: list[str]


def make_store(root: Path) -> Path:
    for rel, text in FILES.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root


async def run(definition: ToolDefinition, ctx: StoreContext, arguments: dict[str, Any]) -> Seen:
    ctx.responses["/api/proxy?url=https%3A%2F%2Fexample.org%2Fpage"] = CannedResponse(
        200, {"content-type": "text/plain"}, b"a page"
    )
    ctx.replies.append(dict(EXEC_REPLY))
    ctx.store.memory_save("Drinks tea at four")
    await ctx.on_demand.reach(definition.reach(arguments))  # what the agent does before every call
    try:
        result = str(await definition.call(ctx, arguments))
    except (ToolError, HostRequestError) as exc:
        result = f"error: {exc}"
    root = str(ctx.workspace)
    return Seen(result.replace(root, "<ws>"), [repr(r).replace(root, "<ws>") for r in ctx.requested])


async def whole_and_on_demand(tmp_path: Path, definition: ToolDefinition, arguments: dict[str, Any]) -> list[Seen]:
    """The call on the whole workspace, then on one listed on demand from the same files."""
    store = make_store(tmp_path / "store")
    whole = tmp_path / "whole"
    shutil.copytree(store, whole)
    lazy = tmp_path / "lazy"
    lazy.mkdir()
    host = ListingHost(store, lazy)
    seen = [await run(definition, StoreContext(whole), arguments)]
    seen.append(await run(definition, StoreContext(lazy, lister=host.on_demand()), arguments))
    return seen


def test_every_registered_tool_has_an_example_call() -> None:
    missing = sorted(t.name for t in REGISTRY if t.name not in EXAMPLES)
    assert missing == [], f"add an example call of {missing} to EXAMPLES: it must work on a workspace on demand"
    assert sorted(EXAMPLES) == sorted(t.name for t in REGISTRY)


@pytest.mark.parametrize("definition", [pytest.param(t, id=t.name) for t in REGISTRY])
async def test_each_tool_sees_on_demand_what_it_sees_in_the_whole_workspace(
    tmp_path: Path, definition: ToolDefinition
) -> None:
    whole, on_demand = await whole_and_on_demand(tmp_path, definition, EXAMPLES[definition.name])
    assert on_demand == whole
    if definition.name in THROUGH_THE_CONVERSATION:  # their runs: tests/unit/runtime/test_delegation.py
        assert whole.result == "error: Delegation is not available here."
        return
    assert "does not exist" not in whole.result and not whole.result.startswith("error:"), whole.result


async def walk_count(ctx: ToolContext, folder: str) -> str:
    return f"{sum(len(files) for _, _, files in os.walk(ctx.workspace / folder))} files"


@tool("read", walks=Walk("folder"))
async def count_files(ctx: ToolContext, folder: Annotated[WorkspacePath, "Folder to count"] = ".") -> str:
    """Count the files below a folder (a new tool: no list anywhere names it)."""
    return await walk_count(ctx, folder)


@tool("read")
async def count_files_undeclared(ctx: ToolContext, folder: Annotated[str, "Folder to count"] = ".") -> str:
    """Count the files below a folder, declaring nothing (the hole this file guards against)."""
    return await walk_count(ctx, folder)


async def test_a_new_walking_tool_works_on_demand_by_its_declaration_alone(tmp_path: Path) -> None:
    whole, on_demand = await whole_and_on_demand(tmp_path, count_files, {"folder": "src"})
    assert whole.result == on_demand.result == "2 files"


async def test_a_walking_tool_that_declares_nothing_sees_less_on_demand(tmp_path: Path) -> None:
    whole, on_demand = await whole_and_on_demand(tmp_path, count_files_undeclared, {"folder": "src"})
    assert (whole.result, on_demand.result) == ("2 files", "0 files")  # what the registry test above catches


def test_a_walk_must_name_a_workspace_path_parameter() -> None:
    def count(ctx: ToolContext, folder: Annotated[str, "Folder"] = ".") -> str:
        """Count."""
        return folder

    with pytest.raises(TypeError, match="names no WorkspacePath parameter"):
        tool("read", walks=Walk("folder"))(count)


def test_the_traits_of_the_builtin_tools() -> None:
    traits = {t.name: (t.paths, t.walks) for t in REGISTRY if t.paths or t.walks}
    assert traits == {
        "list_files": (("path",), None),
        "read_file": (("path",), None),
        "write_file": (("path",), None),
        "edit_file": (("path",), None),
        "delete_file": (("path",), None),
        "move_file": (("src", "dst"), None),
        "search_files": (("path",), Walk("path")),
        "run_python": ((), Walk()),
        "activate_skill": ((), Walk(top=".agents/skills")),
        "delegate": ((), Walk(top=".agents/agents")),
    }


PATH_NAMES = {"path", "src", "dst", "file", "folder", "dir", "directory", "target", "source"}


@pytest.mark.parametrize("definition", [pytest.param(t, id=t.name) for t in REGISTRY])
def test_every_parameter_that_names_a_workspace_path_is_declared_one(definition: ToolDefinition) -> None:
    properties: dict[str, dict[str, Any]] = definition.parameters["properties"]
    looks_like_a_path = {
        name
        for name, schema in properties.items()
        if name in PATH_NAMES or "workspace" in str(schema.get("description", "")).lower()
    }
    assert looks_like_a_path <= set(definition.paths)


@tool("write")
def copy_file(
    ctx: ToolContext, source: Annotated[WorkspacePath, "From"], target: Annotated[WorkspacePath, "To"]
) -> str:
    """Copy a file (a new write tool whose path arguments the policy has never heard of)."""
    return f"{source} -> {target}"


def test_a_new_write_tool_is_guarded_by_its_own_path_parameters() -> None:
    arguments = {"source": "notes.md", "target": "AGENTS.md"}
    assert instruction_paths(copy_file, arguments, None) == ("AGENTS.md",)


def test_a_rule_compares_a_new_tools_path_parameters_normalized() -> None:
    policy = Policy("full-auto", deny_rules=["copy_file(target=secret/*)"])
    assert policy.decide(copy_file, {"source": "a", "target": "./secret//k"})[0] == "deny"

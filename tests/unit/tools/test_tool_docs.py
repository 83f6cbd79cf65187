"""docs/adding-a-tool.md lists every tool of the real registry with its effect class and its traits."""

from __future__ import annotations

from pathlib import Path

import pytest

from runtime.tools.base import ToolDefinition
from runtime.tools.registry import builtin_registry

DOC = Path(__file__).resolve().parents[3] / "docs" / "adding-a-tool.md"
REGISTRY = builtin_registry()


def documented() -> dict[str, list[str]]:
    """The rows of the doc's table of built-in tools: name → [effect, workspace paths, walks]."""
    section = DOC.read_text().split("## The built-in tools", 1)[1].split("\n## ", 1)[0]
    rows = [line.strip().strip("|").split("|") for line in section.splitlines() if line.startswith("| `")]
    return {cells[0].strip().strip("`"): [c.strip() for c in cells[1:]] for cells in rows}


def walks_text(definition: ToolDefinition) -> str:
    walk = definition.walks
    if walk is None:
        return ""
    if walk.argument is not None:
        return f"the folder `{walk.argument}` names"
    return f"`{walk.top}`" if walk.top else "the whole workspace"


def test_the_table_names_exactly_the_registered_tools() -> None:
    assert sorted(documented()) == sorted(t.name for t in REGISTRY)


@pytest.mark.parametrize("definition", [pytest.param(t, id=t.name) for t in REGISTRY])
def test_each_tool_is_documented_as_it_is_defined(definition: ToolDefinition) -> None:
    paths = ", ".join(f"`{p}`" for p in definition.paths)
    assert documented().get(definition.name) == [definition.effect, paths, walks_text(definition)]

"""The memory tools through the real Registry, with a real Store on the context."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest

from runtime.store import Store
from runtime.tools.base import ToolError
from runtime.tools.memory import TOOLS
from runtime.tools.registry import Registry


@dataclass(frozen=True)
class Context:
    """The part of the agent's context the memory tools use."""

    store: Store


@pytest.fixture
def ctx() -> Iterator[Context]:
    store = Store()
    yield Context(store)
    store.close()


@pytest.fixture
def registry() -> Registry:
    return Registry(TOOLS)


async def call(registry: Registry, ctx: Context, name: str, **arguments: Any) -> Any:
    return await registry.get(name).call(ctx, arguments)


@pytest.mark.parametrize(
    ("name", "required", "optional"),
    [
        pytest.param("memory_save", ["text"], {"tags"}, id="memory_save"),
        pytest.param("memory_search", ["query"], {"limit"}, id="memory_search"),
        pytest.param("memory_delete", ["id"], set(), id="memory_delete"),
    ],
)
def test_definitions_match_the_contract(registry: Registry, name: str, required: list[str], optional: set[str]) -> None:
    definition = registry.get(name)
    assert definition.effect == "memory" and definition.takes_context
    params = definition.parameters
    assert params["required"] == required
    assert set(params["properties"]) == set(required) | optional
    assert definition.description and name in [t["function"]["name"] for t in registry.openai_tools()]


def test_schema_types(registry: Registry) -> None:
    save = registry.get("memory_save").parameters["properties"]
    assert save["tags"]["type"] == "array" and save["tags"]["items"] == {"type": "string"}
    assert registry.get("memory_search").parameters["properties"]["limit"] == {
        "type": "integer",
        "description": "How many results at most",
        "default": 10,
    }
    assert registry.get("memory_delete").parameters["properties"]["id"]["type"] == "integer"


async def test_save_search_delete(registry: Registry, ctx: Context) -> None:
    assert await call(registry, ctx, "memory_save", text="Prefers trains over planes", tags=["travel"]) == (
        "Saved memory 1."
    )
    await call(registry, ctx, "memory_save", text="Works on project Lisbon")
    found = await call(registry, ctx, "memory_search", query="how does the user like to travel? trains")
    assert found.splitlines()[0] == "[1] Prefers trains over planes (tags: travel)"
    assert await call(registry, ctx, "memory_delete", id=1) == "Deleted memory 1."
    assert await call(registry, ctx, "memory_search", query="trains") == "No memories match 'trains'."
    assert [m.text for m in ctx.store.memory_list()] == ["Works on project Lisbon"]


@pytest.mark.parametrize(
    "query",
    [
        pytest.param('"', id="quote"),
        pytest.param("*", id="star"),
        pytest.param("AND", id="and"),
        pytest.param("-", id="minus"),
        pytest.param('lisbon" OR *', id="mixed"),
    ],
)
async def test_search_with_odd_input_answers_normally(registry: Registry, ctx: Context, query: str) -> None:
    await call(registry, ctx, "memory_save", text="Works on project Lisbon")
    result = await call(registry, ctx, "memory_search", query=query, limit=3)
    assert isinstance(result, str)
    assert ("Lisbon" in result) == ("lisbon" in query)


async def test_limit_is_bounded(registry: Registry, ctx: Context) -> None:
    for i in range(60):
        ctx.store.memory_save(f"note {i} about gardening")
    assert len((await call(registry, ctx, "memory_search", query="gardening", limit=500)).splitlines()) == 50
    assert len((await call(registry, ctx, "memory_search", query="gardening", limit=0)).splitlines()) == 1


@pytest.mark.parametrize(
    ("name", "arguments", "message_part"),
    [
        pytest.param("memory_save", {"text": "   "}, "needs some text", id="empty-text"),
        pytest.param("memory_delete", {"id": 404}, "No memory with id 404", id="unknown-id"),
        pytest.param("memory_delete", {"id": "abc"}, "not a memory id", id="not-a-number"),
        pytest.param("memory_search", {"query": "x", "limit": "many"}, "whole number", id="bad-limit"),
    ],
)
async def test_failures_are_tool_errors(
    registry: Registry, ctx: Context, name: str, arguments: dict[str, Any], message_part: str
) -> None:
    with pytest.raises(ToolError) as err:
        await registry.get(name).call(ctx, arguments)
    assert message_part in str(err.value)


async def test_delete_accepts_a_numeric_string(registry: Registry, ctx: Context) -> None:
    ctx.store.memory_save("x")
    assert await call(registry, ctx, "memory_delete", id="1") == "Deleted memory 1."


async def test_a_single_tag_string_is_one_tag(registry: Registry, ctx: Context) -> None:
    await call(registry, ctx, "memory_save", text="Uses vim", tags="editor")
    assert ctx.store.memory_list()[0].tags == ("editor",)

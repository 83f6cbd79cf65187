"""The tools' JSON schemas: names, arguments, requiredness and effect classes exactly as the UI contract says.

Every tool of the real registry (``builtin_registry``) is checked; a tool added there without a row here fails.
"""

from __future__ import annotations

from typing import Any

import pytest

from runtime.tools.base import ToolDefinition
from runtime.tools.registry import Registry, builtin_registry

ALL: tuple[ToolDefinition, ...] = tuple(builtin_registry())
BY_NAME = {t.name: t for t in ALL}

# (effect, {argument: JSON type}, required, defaults) — from the UI contract's table of built-in tools.
CONTRACT: dict[str, tuple[str, dict[str, str], list[str], dict[str, Any]]] = {
    "list_files": ("read", {"path": "string"}, [], {"path": "."}),
    "read_file": ("read", {"path": "string", "offset": "integer", "limit": "integer"}, ["path"], {}),
    "search_files": ("read", {"pattern": "string", "path": "string", "glob": "string"}, ["pattern"], {"path": "."}),
    "write_file": ("write", {"path": "string", "content": "string"}, ["path", "content"], {}),
    "edit_file": ("write", {"path": "string", "old_text": "string", "new_text": "string"},
                  ["path", "old_text", "new_text"], {}),
    "delete_file": ("write", {"path": "string"}, ["path"], {}),
    "move_file": ("write", {"src": "string", "dst": "string"}, ["src", "dst"], {}),
    "web_fetch": ("network", {"url": "string"}, ["url"], {}),
    "run_python": ("execute", {"code": "string", "timeout_s": "integer", "packages": "array", "network": "boolean"},
                   ["code"], {"timeout_s": 30, "network": False}),
    "memory_save": ("memory", {"text": "string", "tags": "array"}, ["text"], {}),
    "memory_search": ("memory", {"query": "string", "limit": "integer"}, ["query"], {"limit": 10}),
    "memory_delete": ("memory", {"id": "integer"}, ["id"], {}),
    "activate_skill": ("read", {"name": "string"}, ["name"], {}),
    "delegate": ("read", {"agent": "string", "task": "string", "background": "boolean"}, ["agent", "task"],
                 {"background": False}),
    "task_result": ("read", {"task_id": "string"}, ["task_id"], {}),
}  # fmt: skip


def test_every_contract_tool_is_defined_once() -> None:
    assert sorted(BY_NAME) == sorted(CONTRACT)
    assert len(ALL) == len(BY_NAME)


@pytest.mark.parametrize("name", [pytest.param(t.name, id=t.name) for t in ALL])
def test_schema_matches_the_contract(name: str) -> None:
    assert name in CONTRACT, f"{name} is registered but not in the UI contract's table of tools"
    effect, types, required, defaults = CONTRACT[name]
    tool = BY_NAME[name]
    params = tool.parameters
    assert tool.effect == effect
    assert params["type"] == "object" and params["additionalProperties"] is False
    assert {arg: schema["type"] for arg, schema in params["properties"].items()} == types
    assert params["required"] == required
    assert {arg: s["default"] for arg, s in params["properties"].items() if "default" in s} == defaults
    assert all(schema.get("description") for schema in params["properties"].values())
    assert tool.description and tool.takes_context


@pytest.mark.parametrize("name", [pytest.param(t.name, id=t.name) for t in ALL])
def test_openai_schema_and_catalog_come_from_the_definition(name: str) -> None:
    tool = BY_NAME[name]
    assert tool.openai_schema() == {
        "type": "function",
        "function": {"name": name, "description": tool.description, "parameters": tool.parameters},
    }
    assert tool.catalog_entry()["effect"] == tool.effect


@pytest.mark.parametrize(
    ("name", "has_preview"),
    [pytest.param(t.name, t.effect == "write", id=t.name) for t in ALL],
)
def test_changing_tools_have_previews(name: str, has_preview: bool) -> None:
    assert (BY_NAME[name].preview is not None) is has_preview


def test_the_registry_takes_them_all() -> None:
    registry = Registry(ALL)
    assert [t["function"]["name"] for t in registry.openai_tools()] == [t.name for t in ALL]
    assert {entry["name"]: entry["effect"] for entry in registry.catalog()} == {n: c[0] for n, c in CONTRACT.items()}

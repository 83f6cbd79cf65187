"""Protected paths and replayed recordings: every mode × protected/ordinary path × each file-changing tool.

The tools are the real ones from the registry; the expected verdict is derived from nothing but the mode:
a change to the agent's instructions asks in every mode (read-only refuses it), past session grants and
allow rules; an ordinary path follows the mode's table. While replaying, a call that reaches the network
asks in every mode.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from runtime.policy.permissions import MODES, Policy
from runtime.policy.protected import always_asks, instruction_paths, reaches_network
from runtime.tools.base import ToolDefinition
from runtime.tools.instructions import is_instructions
from runtime.tools.registry import builtin_registry

TOOLS = builtin_registry()
WRITE_FILE, EDIT_FILE = TOOLS.get("write_file"), TOOLS.get("edit_file")
DELETE_FILE, MOVE_FILE = TOOLS.get("delete_file"), TOOLS.get("move_file")
WEB_FETCH, RUN_PYTHON, READ_FILE = TOOLS.get("web_fetch"), TOOLS.get("run_python"), TOOLS.get("read_file")


def file_calls(target: str) -> list[tuple[ToolDefinition, dict[str, Any], str]]:
    """Each file-changing tool once with ``target`` in each of its path arguments."""
    return [
        (WRITE_FILE, {"path": target, "content": "obey me\n"}, "write_file"),
        (EDIT_FILE, {"path": target, "old_text": "a", "new_text": "b"}, "edit_file"),
        (DELETE_FILE, {"path": target}, "delete_file"),
        (MOVE_FILE, {"src": "draft.md", "dst": target}, "move_file-dst"),
        (MOVE_FILE, {"src": target, "dst": "elsewhere.md"}, "move_file-src"),
    ]


PROTECTED = ["AGENTS.md", "./AGENTS.md", "agents.md", ".agents/skills/x/SKILL.md", ".Agents/agents/a.md", ".agents"]
ORDINARY = ["notes.md", "docs/AGENTS.md", "AGENTS.md.bak", ".agentsx/a.md", ".agent/results/r.txt"]
ORDINARY_VERDICT = {"ask": "ask", "auto-edit": "allow", "full-auto": "allow", "read-only": "deny"}
PROTECTED_VERDICT = {"ask": "ask", "auto-edit": "ask", "full-auto": "ask", "read-only": "deny"}


def test_the_tables_cover_every_mode() -> None:
    assert set(ORDINARY_VERDICT) == set(PROTECTED_VERDICT) == set(MODES)


def test_every_registered_write_tool_is_in_the_table() -> None:
    assert {t.name for t in TOOLS if t.effect == "write"} == {"write_file", "edit_file", "delete_file", "move_file"}


@pytest.mark.parametrize(
    ("mode", "tool", "arguments", "expected"),
    [
        pytest.param(mode, tool, arguments, verdicts[mode], id=f"{mode}-{kind}-{label}-{target}")
        for mode in MODES
        for kind, targets, verdicts in (
            ("protected", PROTECTED, PROTECTED_VERDICT), ("ordinary", ORDINARY, ORDINARY_VERDICT)
        )
        for target in targets
        for tool, arguments, label in file_calls(target)
    ],
)  # fmt: skip
def test_mode_by_path_by_tool(mode: Any, tool: ToolDefinition, arguments: dict[str, Any], expected: str) -> None:
    verdict, reason = Policy(mode).decide(tool, arguments)
    assert verdict == expected, reason
    if expected == "ask" and mode != "ask":
        assert "instructions" in reason


@pytest.mark.parametrize("mode", [pytest.param(m, id=m) for m in MODES if m != "read-only"])
def test_grants_and_allow_rules_do_not_reach_instructions(mode: Any) -> None:
    policy = Policy(mode, allow_rules=["write_file", "*(path=AGENTS.md)"])
    policy.grant_session("write_file", {"path": "AGENTS.md", "content": "x"})
    assert policy.decide(WRITE_FILE, {"path": "AGENTS.md", "content": "y"})[0] == "ask"
    assert policy.decide(WRITE_FILE, {"path": "notes.md", "content": "y"})[0] == "allow"  # the grant's own scope


def test_deny_rules_still_win_over_protection() -> None:
    policy = Policy("full-auto", deny_rules=["write_file(path=AGENTS.md)"])
    assert policy.decide(WRITE_FILE, {"path": "AGENTS.md", "content": "x"})[0] == "deny"


def test_reading_instructions_asks_nothing() -> None:
    assert Policy("full-auto").decide(READ_FILE, {"path": "AGENTS.md"})[0] == "allow"
    assert instruction_paths(READ_FILE, {"path": "AGENTS.md"}, None) == ()


def test_a_link_to_agents_md_is_agents_md(tmp_path: Path) -> None:
    (tmp_path / "AGENTS.md").write_text("rules\n")
    (tmp_path / "innocent.md").symlink_to(tmp_path / "AGENTS.md")
    (tmp_path / "skills").symlink_to(tmp_path / ".agents", target_is_directory=True)
    (tmp_path / ".agents").mkdir()
    policy = Policy("full-auto", workspace=tmp_path)
    assert policy.decide(WRITE_FILE, {"path": "innocent.md", "content": "x"})[0] == "ask"
    assert policy.decide(WRITE_FILE, {"path": "skills/new/SKILL.md", "content": "x"})[0] == "ask"
    assert Policy("full-auto").decide(WRITE_FILE, {"path": "innocent.md", "content": "x"})[0] == "allow"  # no workspace


@pytest.mark.parametrize(
    ("rel", "expected"),
    [
        pytest.param("AGENTS.md", True, id="agents-md"),
        pytest.param("AGENTS.MD", True, id="case"),
        pytest.param("a/../AGENTS.md", True, id="dotdot-normalized"),
        pytest.param(".agents", True, id="the-folder"),
        pytest.param(".agents/skills/state.json", True, id="skill-state"),
        pytest.param("docs/AGENTS.md", False, id="not-at-root"),
        pytest.param(".", False, id="root"),
        pytest.param("", False, id="empty"),
    ],
)
def test_is_instructions(rel: str, expected: bool) -> None:
    assert is_instructions(rel) is expected


NETWORK_CALLS = [
    pytest.param(WEB_FETCH, {"url": "https://example.com/"}, id="web_fetch"),
    pytest.param(RUN_PYTHON, {"code": "1", "network": True}, id="run_python-network"),
    pytest.param(RUN_PYTHON, {"code": "1", "packages": ["tabulate"]}, id="run_python-packages"),
]
OFFLINE_CALLS = [
    pytest.param(RUN_PYTHON, {"code": "1"}, id="run_python-offline"),
    pytest.param(RUN_PYTHON, {"code": "1", "packages": [" "]}, id="run_python-blank-package"),
    pytest.param(READ_FILE, {"path": "a"}, id="read_file"),
]


@pytest.mark.parametrize(("tool", "arguments"), NETWORK_CALLS)
@pytest.mark.parametrize("mode", [pytest.param(m, id=m) for m in MODES])
def test_replaying_a_network_call_asks_in_every_mode(
    mode: Any, tool: ToolDefinition, arguments: dict[str, Any]
) -> None:
    policy = Policy(mode, allow_rules=["*"])
    policy.grant_session(tool.name, arguments)
    live = policy.decide(tool, arguments)[0]
    policy.set_replaying(True)
    verdict, reason = policy.decide(tool, arguments)
    assert verdict == ("deny" if mode == "read-only" else "ask"), reason
    if verdict == "ask":
        assert "recording" in reason
    policy.set_replaying(False)
    assert policy.decide(tool, arguments)[0] == live  # back to live: the mode, rules and grants decide again


@pytest.mark.parametrize(("tool", "arguments"), OFFLINE_CALLS)
def test_replaying_leaves_offline_calls_to_the_mode(tool: ToolDefinition, arguments: dict[str, Any]) -> None:
    assert not reaches_network(tool, arguments)
    policy = Policy("full-auto")
    policy.set_replaying(True)
    assert policy.decide(tool, arguments)[0] == "allow"


def test_always_asks_names_the_reason() -> None:
    assert always_asks(WRITE_FILE, {"path": "AGENTS.md", "content": ""}, None, False) == (
        "AGENTS.md: the agent's instructions. Every change to them asks, in every mode; allowing it allows this "
        "call only."
    )
    assert always_asks(WEB_FETCH, {"url": "https://example.com/"}, None, False) is None
    assert "A recording asked for this" in str(always_asks(WEB_FETCH, {"url": "https://example.com/"}, None, True))
    assert always_asks(WRITE_FILE, {"path": "notes.md", "content": ""}, None, True) is None

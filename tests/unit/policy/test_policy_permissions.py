"""Policy.decide: the full mode × effect table, deny-rule precedence, allow rules and session grants."""

from __future__ import annotations

from typing import Any

import pytest

from runtime.policy.permissions import MODES, Policy, Rule, RuleSyntaxError, UnknownMode
from runtime.tools.base import EFFECTS, Effect, ToolDefinition, define
from runtime.tools.traits import WorkspacePath


def make_tool(name: str, effect: Effect) -> ToolDefinition:
    def func(path: WorkspacePath = ".") -> str:
        """A tool for policy tests."""
        return path

    return define(func, effect, name=name)


TOOL_FOR: dict[Effect, ToolDefinition] = {e: make_tool(f"{e}_tool", e) for e in EFFECTS}
DELETE = make_tool("delete_file", "write")
MOVE = make_tool("move_file", "write")
READ = make_tool("read_file", "read")

TABLE = {
    ("ask", "read"): "allow", ("ask", "memory"): "allow", ("ask", "write"): "ask",
    ("ask", "network"): "ask", ("ask", "execute"): "ask",
    ("auto-edit", "read"): "allow", ("auto-edit", "memory"): "allow", ("auto-edit", "write"): "allow",
    ("auto-edit", "network"): "ask", ("auto-edit", "execute"): "ask",
    ("full-auto", "read"): "allow", ("full-auto", "memory"): "allow", ("full-auto", "write"): "allow",
    ("full-auto", "network"): "allow", ("full-auto", "execute"): "allow",
    ("read-only", "read"): "allow", ("read-only", "memory"): "ask", ("read-only", "write"): "deny",
    ("read-only", "network"): "deny", ("read-only", "execute"): "deny",
}  # fmt: skip


def test_the_table_covers_every_mode_and_effect() -> None:
    assert set(TABLE) == {(m, e) for m in MODES for e in EFFECTS}


@pytest.mark.parametrize(
    ("mode", "effect", "expected"), [pytest.param(m, e, d, id=f"{m}-{e}") for (m, e), d in TABLE.items()]
)
def test_mode_by_effect(mode: Any, effect: Effect, expected: str) -> None:
    decision, reason = Policy(mode).decide(TOOL_FOR[effect], {})
    assert decision == expected
    assert mode in reason and effect in reason


@pytest.mark.parametrize(
    ("deny", "allow", "mode", "tool", "arguments", "expected", "reason"),
    [
        pytest.param(["delete_file"], [], "full-auto", DELETE, {"path": "a"}, "deny", "rule delete_file",
                     id="deny-name"),
        pytest.param(["delete_file(path=*.md)"], [], "full-auto", DELETE, {"path": "notes/a.md"}, "deny",
                     "rule delete_file(path=*.md)", id="deny-glob-nested"),
        pytest.param(["delete_file(path=*.md)"], [], "full-auto", DELETE, {"path": "a.txt"}, "allow", "full-auto",
                     id="deny-glob-no-match"),
        pytest.param(["delete_file(path=secret/*)"], [], "full-auto", DELETE, {"path": "./secret//k"}, "deny",
                     "rule", id="deny-normalized-path"),
        pytest.param(["delete_file(path=*.md)"], [], "full-auto", DELETE, {}, "allow", "full-auto",
                     id="rule-argument-missing"),
        pytest.param(["*"], [], "full-auto", READ, {"path": "a"}, "deny", "rule *", id="deny-everything"),
        pytest.param(["move_file(src=keep/*, dst=*)"], [], "full-auto", MOVE, {"src": "keep/x", "dst": "y"}, "deny",
                     "rule move_file(src=keep/*, dst=*)", id="deny-two-conditions"),
        pytest.param(["move_file(src=keep/*, dst=z*)"], [], "full-auto", MOVE, {"src": "keep/x", "dst": "y"},
                     "allow", "full-auto", id="two-conditions-one-fails"),
        pytest.param(["delete_file"], ["delete_file"], "ask", DELETE, {"path": "a"}, "deny", "rule",
                     id="deny-beats-allow-rule"),
        pytest.param([], ["delete_file(path=tmp/*)"], "ask", DELETE, {"path": "tmp/x"}, "allow",
                     "rule delete_file(path=tmp/*)", id="allow-rule"),
        pytest.param([], ["delete_file(path=tmp/*)"], "ask", DELETE, {"path": "src/x"}, "ask", "approval",
                     id="allow-rule-no-match-asks"),
        pytest.param([], ["delete_file"], "read-only", DELETE, {"path": "a"}, "deny", "read-only mode",
                     id="read-only-beats-allow-rule"),
        pytest.param([], ["*_file"], "ask", DELETE, {"path": "a"}, "allow", "rule *_file", id="tool-glob"),
    ],
)  # fmt: skip
def test_rules(
    deny: list[str], allow: list[str], mode: Any, tool: ToolDefinition, arguments: dict[str, Any], expected: str,
    reason: str,
) -> None:  # fmt: skip
    decision, why = Policy(mode, deny_rules=deny, allow_rules=allow).decide(tool, arguments)
    assert (decision, reason in why) == (expected, True), why


@pytest.mark.parametrize(
    ("mode", "deny", "expected"),
    [
        pytest.param("ask", [], "allow", id="grant-allows"),
        pytest.param("auto-edit", [], "allow", id="grant-in-auto-edit"),
        pytest.param("ask", ["delete_file"], "deny", id="deny-rule-beats-grant"),
        pytest.param("read-only", [], "deny", id="read-only-beats-grant"),
    ],
)
def test_session_grants(mode: Any, deny: list[str], expected: str) -> None:
    policy = Policy(mode, deny_rules=deny)
    policy.grant_session("delete_file")
    assert policy.decide(DELETE, {"path": "a"})[0] == expected
    assert policy.decide(TOOL_FOR["execute"], {})[0] in {"ask", "deny"}  # only the granted tool


def test_a_session_grant_for_offline_runs_does_not_cover_networked_ones() -> None:
    policy = Policy("ask")
    run = TOOL_FOR["execute"]
    policy.grant_session(run.name, {"code": "print(1)", "network": False})
    assert policy.decide(run, {"code": "print(2)"})[0] == "allow"
    assert policy.decide(run, {"code": "print(3)", "network": True})[0] == "ask"
    policy.grant_session(run.name, {"code": "x", "network": True})
    assert policy.decide(run, {"code": "print(4)", "network": True})[0] == "allow"


def test_grants_last_for_the_session_only_and_survive_a_mode_change() -> None:
    policy = Policy("ask")
    policy.grant_session("delete_file")
    policy.set_mode("auto-edit")
    assert policy.decide(DELETE, {}) == ("allow", "delete_file is allowed for this session")
    assert policy.granted == frozenset({"delete_file"})
    policy.set_mode("ask")
    policy.clear_session()
    assert policy.decide(DELETE, {})[0] == "ask"


@pytest.mark.parametrize(
    ("text", "rule"),
    [
        pytest.param("web_fetch", Rule("web_fetch"), id="name"),
        pytest.param(" delete_file ( path = *.md ) ", Rule("delete_file", (("path", "*.md"),)), id="spaces"),
        pytest.param("move_file(src=a/*,dst=b/*)", Rule("move_file", (("src", "a/*"), ("dst", "b/*"))), id="two"),
        pytest.param("*", Rule("*"), id="star"),
    ],
)
def test_rule_parse(text: str, rule: Rule) -> None:
    assert Rule.parse(text) == rule
    assert Rule.parse(str(rule)) == rule


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("", id="empty"),
        pytest.param("delete_file(path)", id="no-glob"),
        pytest.param("delete_file(path=)", id="empty-glob"),
        pytest.param("delete_file()", id="empty-parens"),
        pytest.param("delete file", id="space-in-name"),
        pytest.param("delete_file(path=*.md", id="unclosed"),
    ],
)
def test_rule_syntax_errors(text: str) -> None:
    with pytest.raises(RuleSyntaxError) as info:
        Policy("ask", deny_rules=[text])
    assert info.value.rule == text


def test_unknown_mode() -> None:
    with pytest.raises(UnknownMode, match="use one of ask, auto-edit, full-auto, read-only"):
        Policy("yolo")  # type: ignore[arg-type]
    with pytest.raises(UnknownMode):
        Policy("ask").set_mode("ASK")


def test_non_string_arguments_match_as_json() -> None:
    tags = make_tool("memory_save", "memory")
    policy = Policy("full-auto", deny_rules=['memory_save(tags=*"secret"*)'])
    assert policy.decide(tags, {"tags": ["a", "secret"]})[0] == "deny"
    assert policy.decide(tags, {"tags": ["a"]})[0] == "allow"


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        pytest.param("memory_save", "ask", id="saving-asks"),
        pytest.param("memory_delete", "ask", id="deleting-asks"),
        pytest.param("memory_search", "allow", id="searching-runs"),
    ],
)
def test_read_only_mode_asks_before_memories_change(name: str, expected: str) -> None:
    from runtime.tools.memory import TOOLS as MEMORY_TOOLS

    (tool,) = [t for t in MEMORY_TOOLS if t.name == name]
    assert Policy("read-only").decide(tool, {})[0] == expected
    assert Policy("ask").decide(tool, {})[0] == "allow"  # other modes keep running them

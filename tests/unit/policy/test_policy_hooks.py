"""Hooks: pre-hooks rewrite or deny in order, post-hooks rewrite results in order, failures fail closed."""

from __future__ import annotations

from typing import Any

import pytest

from runtime.policy.hooks import (
    REDACTED,
    Denied,
    HookCall,
    HookResult,
    Hooks,
    PostHook,
    PreHook,
    default_hooks,
    redact,
    result_of,
)
from runtime.tools.base import ToolOutput, define


def _echo(path: str) -> str:
    """Echo a path."""
    return path


ECHO = define(_echo, "write", name="write_file")
CALL = HookCall("c1", ECHO, {"path": "a.txt"})


def add_prefix(call: HookCall) -> HookCall:
    return HookCall(call.call_id, call.tool, {**call.arguments, "path": "sandbox/" + call.arguments["path"]})


async def add_suffix(call: HookCall) -> HookCall:
    return HookCall(call.call_id, call.tool, {**call.arguments, "path": call.arguments["path"] + ".bak"})


def deny_env(call: HookCall) -> Denied | None:
    return Denied("no .env files", "deny_env") if ".env" in call.arguments["path"] else None


def observe(call: HookCall) -> None:
    return None


def broken(call: HookCall) -> HookCall:
    raise RuntimeError("boom")


def wrong_type(call: HookCall) -> Any:
    return "yes"


@pytest.mark.parametrize(
    ("pre", "arguments", "expected"),
    [
        pytest.param([], {"path": "a.txt"}, {"path": "a.txt"}, id="no-hooks"),
        pytest.param([observe], {"path": "a.txt"}, {"path": "a.txt"}, id="observer"),
        pytest.param([add_prefix, add_suffix], {"path": "a"}, {"path": "sandbox/a.bak"}, id="in-order"),
        pytest.param([add_suffix, add_prefix], {"path": "a"}, {"path": "sandbox/a.bak"}, id="either-order-here"),
        pytest.param([add_prefix, deny_env], {"path": ".env"}, Denied("no .env files", "deny_env"), id="deny"),
        pytest.param([deny_env, broken], {"path": ".env"}, Denied("no .env files", "deny_env"), id="deny-stops"),
        pytest.param([broken], {"path": "a"}, Denied("the pre-hook broken failed: boom", "broken"), id="raises"),
        pytest.param([wrong_type], {"path": "a"}, Denied("the pre-hook wrong_type returned str", "wrong_type"),
                     id="bad-return"),
    ],
)  # fmt: skip
async def test_pre_hooks(pre: list[PreHook], arguments: dict[str, Any], expected: Any) -> None:
    outcome = await Hooks(pre=pre).before(HookCall("c1", ECHO, arguments))
    if isinstance(expected, Denied):
        assert outcome == expected
    else:
        assert isinstance(outcome, HookCall) and outcome.arguments == expected


async def test_a_pre_hook_sees_what_the_previous_one_wrote() -> None:
    seen: list[str] = []

    def record(call: HookCall) -> None:
        seen.append(call.arguments["path"])

    hooks = Hooks()
    hooks.add_pre(add_prefix)
    hooks.add_pre(record)
    await hooks.before(CALL)
    assert seen == ["sandbox/a.txt"]


def upper(call: HookCall, result: HookResult) -> HookResult:
    return HookResult(result.text.upper(), result.ok, result.changed_paths)


async def tag(call: HookCall, result: HookResult) -> HookResult:
    return HookResult(f"[{call.tool.name}] {result.text}", result.ok, result.changed_paths)


def post_broken(call: HookCall, result: HookResult) -> HookResult:
    raise ValueError("bad")


@pytest.mark.parametrize(
    ("post", "expected"),
    [
        pytest.param([], HookResult("done", True, ("a.txt",)), id="no-hooks"),
        pytest.param([upper, tag], HookResult("[write_file] DONE", True, ("a.txt",)), id="in-order"),
        pytest.param([tag, upper], HookResult("[WRITE_FILE] DONE", True, ("a.txt",)), id="other-order"),
        pytest.param(
            [upper, post_broken, tag],
            HookResult("[result withheld: the post-hook post_broken failed: bad]", False, ("a.txt",)),
            id="raises-withholds",
        ),
    ],
)
async def test_post_hooks(post: list[PostHook], expected: HookResult) -> None:
    hooks = Hooks(post=post)
    assert await hooks.after(CALL, HookResult("done", True, ("a.txt",))) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param("key sk-or-v1-" + "ab12" * 16 + " end", f"key {REDACTED} end", id="openrouter"),
        pytest.param("OPENAI=sk-proj-" + "x" * 40, f"OPENAI={REDACTED}", id="openai"),
        pytest.param("Authorization: Bearer abcdefghijklmnop1234", f"Authorization: Bearer {REDACTED}", id="bearer"),
        pytest.param("token ghp_" + "a" * 36, f"token {REDACTED}", id="github"),
        pytest.param("sk-short and task-list", "sk-short and task-list", id="not-a-key"),
        pytest.param("plain text", "plain text", id="nothing"),
    ],
)
def test_redact(text: str, expected: str) -> None:
    assert redact(text) == expected


async def test_default_hooks_redact_keys_in_results() -> None:
    key = "sk-or-v1-" + "0123456789abcdef" * 4
    result = await default_hooks().after(CALL, result_of(ToolOutput(f"found {key}", ("a.txt",))))
    assert result == HookResult(f"found {REDACTED}", True, ("a.txt",))


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        pytest.param("text", HookResult("text"), id="str"),
        pytest.param(ToolOutput("t", ("p",), ok=False), HookResult("t", False, ("p",)), id="tool-output"),
        pytest.param({"id": 3}, HookResult('{"id": 3}'), id="json"),
        pytest.param(None, HookResult("(no result)"), id="none"),
    ],
)
def test_result_of(value: Any, expected: HookResult) -> None:
    assert result_of(value) == expected

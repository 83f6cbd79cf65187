"""Permissions: allow, ask or deny a tool call, by permission mode, effect class, rules and session grants.

Precedence, first that applies wins:

1. a deny rule that matches the call → deny (deny rules win over everything);
2. ``read-only`` mode and an effect other than read or memory → deny, without asking; there, memory
   tools that change memories (``memory_save``, ``memory_delete``: what every later session is told)
   ask, and ``memory_search`` (``MEMORY_READERS``) runs;
3. a call that changes the agent's instructions (``AGENTS.md``, ``.agents/``), or, while the model's
   answers come from a recording, one that reaches the network → ask, in every mode, past session grants
   and allow rules (``runtime.policy.protected``);
4. a session grant for the tool ("allow for this session") → allow;
5. an allow rule that matches the call → allow;
6. the mode's table for the tool's effect class (``MODE_TABLE``).

Rules are written ``tool`` or ``tool(arg=glob, ...)``: the tool name is a glob too (``*`` matches every
tool), each ``arg=glob`` must match that argument's value (``fnmatch``, case-sensitive; ``*`` also matches
``/``). A tool's path arguments (its ``WorkspacePath`` parameters: ``path``, ``src``, ``dst``) are
normalized first (``./a//b.md`` → ``a/b.md``). A rule that names an argument never matches a call without
it. Commas cannot appear inside a glob.
"""

from __future__ import annotations

import fnmatch
import json
import logging
import posixpath
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, get_args

from runtime.host.constants import PermissionMode
from runtime.policy.protected import always_asks
from runtime.tools.base import Effect, ToolDefinition

log = logging.getLogger(__name__)

Mode = PermissionMode
MODES: tuple[Mode, ...] = get_args(Mode)
Verdict = Literal["allow", "ask", "deny"]

MODE_TABLE: dict[Mode, dict[Effect, Verdict]] = {
    "ask": {"read": "allow", "memory": "allow", "write": "ask", "network": "ask", "execute": "ask"},
    "auto-edit": {"read": "allow", "memory": "allow", "write": "allow", "network": "ask", "execute": "ask"},
    "full-auto": {"read": "allow", "memory": "allow", "write": "allow", "network": "allow", "execute": "allow"},
    "read-only": {"read": "allow", "memory": "ask", "write": "deny", "network": "deny", "execute": "deny"},
}
# Memory tools that change nothing: they run without asking even in read-only mode.
MEMORY_READERS = frozenset({"memory_search"})

_RULE = re.compile(r"^\s*(?P<tool>[A-Za-z0-9_*?\[\]!-]+)\s*(?:\((?P<args>.*)\))?\s*$", re.DOTALL)
_CONDITION = re.compile(r"^\s*(?P<name>[A-Za-z_][A-Za-z0-9_]*)\s*=\s*(?P<glob>.*?)\s*$", re.DOTALL)


class RuleSyntaxError(ValueError):
    """A permission rule that cannot be parsed; ``rule`` is its text, ``reason`` what is wrong."""

    def __init__(self, rule: str, reason: str) -> None:
        super().__init__(f"permission rule {rule!r}: {reason} (write it as tool or tool(arg=glob))")
        self.rule = rule
        self.reason = reason


class UnknownMode(ValueError):
    def __init__(self, mode: str) -> None:
        super().__init__(f"unknown permission mode {mode!r}; use one of {', '.join(MODES)}")
        self.mode = mode


def parse_mode(text: str) -> Mode:
    for mode in MODES:
        if text == mode:
            return mode
    raise UnknownMode(text)


@dataclass(frozen=True)
class Rule:
    """``tool`` (a glob over tool names) and the argument globs that must all match."""

    tool: str
    conditions: tuple[tuple[str, str], ...] = ()

    @classmethod
    def parse(cls, text: str) -> Rule:
        match = _RULE.match(text)
        if match is None:
            raise RuleSyntaxError(text, "not a tool name with optional (arg=glob) conditions")
        conditions: list[tuple[str, str]] = []
        args = match.group("args")
        if args is not None:
            for part in args.split(","):
                cond = _CONDITION.match(part)
                if cond is None or not cond.group("glob"):
                    raise RuleSyntaxError(text, f"condition {part.strip()!r} is not arg=glob")
                conditions.append((cond.group("name"), cond.group("glob")))
            if not conditions:
                raise RuleSyntaxError(text, "empty parentheses")
        return cls(match.group("tool"), tuple(conditions))

    def matches(self, tool: ToolDefinition, arguments: Mapping[str, Any]) -> bool:
        if not fnmatch.fnmatchcase(tool.name, self.tool):
            return False
        for name, glob in self.conditions:
            if name not in arguments:
                return False
            if not fnmatch.fnmatchcase(_comparable(name in tool.paths, arguments[name]), glob):
                return False
        return True

    def __str__(self) -> str:
        if not self.conditions:
            return self.tool
        return f"{self.tool}({', '.join(f'{n}={g}' for n, g in self.conditions)})"


def _comparable(is_path: bool, value: Any) -> str:
    if isinstance(value, str):
        if is_path and value:
            return posixpath.normpath(value)
        return value
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


def _rules(rules: Iterable[Rule | str]) -> tuple[Rule, ...]:
    return tuple(r if isinstance(r, Rule) else Rule.parse(r) for r in rules)


def grant_scope(tool_name: str, arguments: dict[str, Any]) -> str:
    """What an "allow for this session" covers: the tool, and for a call with ``network: true`` the tool
    with the network (a wider permission, granted apart)."""
    return f"{tool_name} with network" if arguments.get("network") is True else tool_name


class Policy:
    """The agent loop's gate: ``decide`` for each call, ``grant_session`` after "allow for this session"."""

    def __init__(
        self,
        mode: Mode = "ask",
        deny_rules: Iterable[Rule | str] = (),
        allow_rules: Iterable[Rule | str] = (),
        workspace: Path | None = None,
    ) -> None:
        self._mode = parse_mode(mode)
        self.deny_rules = _rules(deny_rules)
        self.allow_rules = _rules(allow_rules)
        self._granted: set[str] = set()
        self._workspace = workspace  # where path arguments resolve (a link to AGENTS.md is AGENTS.md)
        self._replaying = False

    @property
    def replaying(self) -> bool:
        return self._replaying

    def set_replaying(self, replaying: bool) -> None:
        """The model's answers come from a recording (a ``config`` frame's ``replay``): network calls ask."""
        self._replaying = replaying

    def always_asks(self, tool: ToolDefinition, arguments: dict[str, Any]) -> str | None:
        """Why this call asks in every mode and is never granted for the session, or None."""
        return always_asks(tool, arguments, self._workspace, self._replaying)

    @property
    def mode(self) -> Mode:
        return self._mode

    def set_mode(self, mode: str) -> None:
        """Change the mode (a ``config`` frame); session grants stay."""
        self._mode = parse_mode(mode)

    @property
    def granted(self) -> frozenset[str]:
        return frozenset(self._granted)

    def grant_session(self, tool_name: str, arguments: dict[str, Any] | None = None) -> None:
        """Allow this tool without asking for the rest of the session (never past a deny or read-only).

        The grant covers calls like the approved one: a call that asks for the network (``network: true``)
        is its own scope, so allowing offline runs for the session never lets a networked one through."""
        self._granted.add(grant_scope(tool_name, arguments or {}))

    def clear_session(self) -> None:
        """A new session starts with no grants."""
        self._granted.clear()

    def decide(self, tool: ToolDefinition, arguments: dict[str, Any]) -> tuple[Verdict, str]:
        for rule in self.deny_rules:
            if rule.matches(tool, arguments):
                return "deny", f"{tool.name} is denied by the rule {rule}"
        table = MODE_TABLE[self._mode]
        if table[tool.effect] == "deny":
            return "deny", f"{tool.name} ({tool.effect}) is not allowed in {self._mode} mode"
        standing = self.always_asks(tool, arguments)
        if standing is not None:
            return "ask", standing
        scope = grant_scope(tool.name, arguments)
        if scope in self._granted:
            return "allow", f"{scope} is allowed for this session"
        for rule in self.allow_rules:
            if rule.matches(tool, arguments):
                return "allow", f"{tool.name} is allowed by the rule {rule}"
        if table[tool.effect] == "allow" or (tool.effect == "memory" and tool.name in MEMORY_READERS):
            return "allow", f"{tool.effect} tools run without asking in {self._mode} mode"
        return "ask", f"{tool.effect} tools need approval in {self._mode} mode"

"""Pre- and post-hooks around every tool call, composed in the order they were added.

A pre-hook sees the call (after the permission check, before the tool runs) and returns it unchanged
(``None``), a rewritten ``HookCall`` (new arguments), or ``Denied``; the first denial stops the chain. A
post-hook sees the call and its ``HookResult`` and returns it unchanged (``None``) or rewritten. Hooks may be
plain or async functions. Hooks fail closed: a pre-hook that raises denies the call, a post-hook that raises
withholds the result (a redaction hook that breaks must not leak what it was meant to hide).

``redact_secrets`` is the built-in post-hook that masks anything that looks like an API key.
"""

from __future__ import annotations

import inspect
import json
import logging
import re
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, replace
from typing import Any, Literal

from runtime.tools.base import ToolDefinition, ToolOutput

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class HookCall:
    """One tool call as hooks see it: the definition, the model's call id and the parsed arguments."""

    call_id: str
    tool: ToolDefinition
    arguments: dict[str, Any]


@dataclass(frozen=True)
class Denied:
    reason: str
    hook: str
    kind: Literal["denied"] = "denied"


@dataclass(frozen=True)
class HookResult:
    """A tool's outcome as post-hooks (and the model) see it."""

    text: str
    ok: bool = True
    changed_paths: tuple[str, ...] = ()
    images: tuple[str, ...] = ()


PreOutcome = HookCall | Denied | None
PostOutcome = HookResult | None
PreHook = Callable[[HookCall], PreOutcome | Awaitable[PreOutcome]]
PostHook = Callable[[HookCall, HookResult], PostOutcome | Awaitable[PostOutcome]]


def result_of(value: Any) -> HookResult:
    """A tool's return value as a ``HookResult``: text as is, ``ToolOutput`` unpacked, other values as JSON."""
    if isinstance(value, HookResult):
        return value
    if isinstance(value, ToolOutput):
        return HookResult(value.text, value.ok, value.changed_paths, value.images)
    if isinstance(value, str):
        return HookResult(value)
    if value is None:
        return HookResult("(no result)")
    return HookResult(json.dumps(value, ensure_ascii=False, default=str))


def _name(hook: object) -> str:
    return str(getattr(hook, "__name__", type(hook).__name__))


class Hooks:
    def __init__(self, pre: Iterable[PreHook] = (), post: Iterable[PostHook] = ()) -> None:
        self.pre: list[PreHook] = list(pre)
        self.post: list[PostHook] = list(post)

    def add_pre(self, hook: PreHook) -> None:
        self.pre.append(hook)

    def add_post(self, hook: PostHook) -> None:
        self.post.append(hook)

    async def before(self, call: HookCall) -> HookCall | Denied:
        """Run the pre-hooks in order; the call as rewritten by them, or the first denial."""
        for hook in self.pre:
            try:
                outcome = hook(call)
                if inspect.isawaitable(outcome):
                    outcome = await outcome
            except Exception as e:
                log.warning("pre-hook %s failed on %s: %r", _name(hook), call.tool.name, e)
                return Denied(f"the pre-hook {_name(hook)} failed: {e}", _name(hook))
            if isinstance(outcome, Denied):
                return outcome
            if isinstance(outcome, HookCall):
                call = outcome
            elif outcome is not None:
                return Denied(f"the pre-hook {_name(hook)} returned {type(outcome).__name__}", _name(hook))
        return call

    async def after(self, call: HookCall, result: HookResult) -> HookResult:
        """Run the post-hooks in order, each on the result the previous one returned."""
        for hook in self.post:
            try:
                outcome = hook(call, result)
                if inspect.isawaitable(outcome):
                    outcome = await outcome
            except Exception as e:
                log.warning("post-hook %s failed on %s: %r", _name(hook), call.tool.name, e)
                what = f"[result withheld: the post-hook {_name(hook)} failed: {e}]"
                return HookResult(what, ok=False, changed_paths=result.changed_paths)
            if isinstance(outcome, HookResult):
                result = outcome
            elif outcome is not None:
                what = f"[result withheld: the post-hook {_name(hook)} returned {type(outcome).__name__}]"
                return HookResult(what, ok=False, changed_paths=result.changed_paths)
        return result


# --- built-in: redaction ------------------------------------------------------------------------

REDACTED = "[REDACTED]"
SECRET_PATTERNS: tuple[re.Pattern[str], ...] = (
    re.compile(r"sk-or-v1-[A-Za-z0-9]{16,}"),  # OpenRouter
    re.compile(r"sk-(?:proj-|ant-)?[A-Za-z0-9_-]{20,}"),  # OpenAI / Anthropic style
    re.compile(r"(?i)(?<=bearer )[A-Za-z0-9._~+/=-]{16,}"),  # Authorization: Bearer <token>
    re.compile(r"gh[pousr]_[A-Za-z0-9]{30,}"),  # GitHub tokens
)


def redact(text: str) -> str:
    """``text`` with everything that looks like a key replaced by ``[REDACTED]``."""
    for pattern in SECRET_PATTERNS:
        text = pattern.sub(REDACTED, text)
    return text


def redact_secrets(call: HookCall, result: HookResult) -> HookResult | None:
    """Post-hook: mask keys in a tool's result before the model (or the ledger) sees it."""
    masked = redact(result.text)
    if masked == result.text:
        return None
    log.info("redacted a secret-looking string from the result of %s", call.tool.name)
    return replace(result, text=masked)


def default_hooks() -> Hooks:
    """The hooks every session starts with."""
    return Hooks(post=[redact_secrets])

"""delegate and task_result: hand a task to an agent profile, fetch a background task's result.

The tools are thin: ``runtime.agents.delegation.Delegation`` (the conversation's, on the tool context)
checks, runs and bounds the child. Their effect is ``read``: each call the child makes is gated by
itself, under a mode never wider than the parent's.
"""

from __future__ import annotations

from typing import Annotated, Any

from runtime.tools.base import ToolDefinition, ToolError, ToolOutput, tool


def _delegation(ctx: Any) -> Any:
    delegation = getattr(ctx, "delegation", None)
    if delegation is None:
        raise ToolError("Delegation is not available here.")
    return delegation


@tool("read")
async def delegate(
    ctx: Any,
    agent: Annotated[
        str, "The agent profile to hand the task to: explore, researcher, worker, general, or one of the workspace's"
    ],
    task: Annotated[str, "The whole task, self-contained: the agent sees nothing of this conversation"],
    background: Annotated[bool, "Return at once with a task id and fetch the result later with task_result"] = False,
) -> ToolOutput:
    """Hand a task to another agent (a profile with its own tools and prompt) and get back its answer,
    the files it changed and its cost, not its transcript."""
    result: ToolOutput = await _delegation(ctx).delegate(ctx, agent, task, background)
    return result


@tool("read")
def task_result(ctx: Any, task_id: Annotated[str, "The id delegate returned for a background task"]) -> ToolOutput:
    """Get a background task's result: its answer when done, what went wrong and what to do when it
    failed, or that it is still running."""
    result: ToolOutput = _delegation(ctx).result(task_id, ctx.session_id())
    return result


TOOLS: tuple[ToolDefinition, ...] = (delegate, task_result)

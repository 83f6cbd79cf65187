"""delegate and task_result: hand a task to an agent profile, fetch a background task's result.

The tools are thin: ``runtime.agents.delegation.Delegation`` (the conversation's, on the tool context)
checks, runs and bounds the child. Their effect is ``read``: each call the child makes is gated by
itself, under a mode never wider than the parent's.
"""

from __future__ import annotations

from typing import Annotated, Any

from runtime.host.workspace_fetch import AGENTS_DIR
from runtime.tools.base import ToolDefinition, ToolError, ToolOutput, tool
from runtime.tools.traits import Walk


def _delegation(ctx: Any) -> Any:
    delegation = getattr(ctx, "delegation", None)
    if delegation is None:
        raise ToolError("Delegation is not available here.")
    return delegation


@tool("read", walks=Walk(top=AGENTS_DIR))  # the profiles are read at the call
async def delegate(
    ctx: Any,
    agent: Annotated[str, "Profile: explore, researcher, worker, general, or a custom one"],
    task: Annotated[str, "The whole task; the agent sees nothing else"],
    background: Annotated[bool, "Return a task id at once (see task_result)"] = False,
) -> ToolOutput:
    """Hand a task to another agent; get back its answer, changed files and cost.

    Not its transcript: the child's session keeps that (``runtime.agents.delegation``).
    """
    result: ToolOutput = await _delegation(ctx).delegate(ctx, agent, task, background)
    return result


@tool("read")
def task_result(ctx: Any, task_id: Annotated[str, "From delegate"]) -> ToolOutput:
    """A background task's result, its failure, or that it still runs."""
    result: ToolOutput = _delegation(ctx).result(task_id, ctx.session_id())
    return result


TOOLS: tuple[ToolDefinition, ...] = (delegate, task_result)

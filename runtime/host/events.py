"""UI events: what the runtime tells the person's screen, inside an ``event`` frame (``event.kind``).

Part of the one definition of the protocol (with ``messages.py`` and ``constants.py``); the TypeScript
types and checks are generated from here by ``scripts/gen_protocol.py``. A new event is a TypedDict
with a ``kind: Literal[...]`` tag added to ``Event`` below, then ``npm run protocol:gen``.
"""

from typing import Any, Literal, NotRequired, TypedDict, Union

from runtime.host.constants import ToolEffect, ToolStatus, TurnEndReason


class ToolInfo(TypedDict):
    """One tool of the registry's catalog (``ready.tools``, the ``tools_list`` reply)."""

    name: str
    description: str
    effect: ToolEffect
    parameters: dict[str, Any]  # JSON Schema of the arguments


class Ready(TypedDict):
    kind: Literal["ready"]
    models_known: bool
    tools: list[ToolInfo]


class TurnStarted(TypedDict):
    kind: Literal["turn_started"]
    turn_id: str


class TextDelta(TypedDict):
    kind: Literal["text_delta"]
    turn_id: str
    text: str


class ReasoningDelta(TypedDict):
    """A piece of the model's reasoning for the reply that follows (shown folded once the reply starts)."""

    kind: Literal["reasoning_delta"]
    turn_id: str
    text: str


class ReplyFinished(TypedDict):
    """A reply ended for a reason the person should see: ``length`` (cut off) or ``content_filter``."""

    kind: Literal["reply_finished"]
    turn_id: str
    finish_reason: str


class ToolStarted(TypedDict):
    kind: Literal["tool_started"]
    turn_id: str
    call_id: str
    name: str
    arguments: dict[str, Any]


class ToolFinished(TypedDict):
    kind: Literal["tool_finished"]
    turn_id: str
    call_id: str
    name: str
    arguments: dict[str, Any]
    ok: bool
    result: str
    status: ToolStatus
    images: NotRequired[list[str]]  # workspace-relative image files the call wrote (run_python's plots)


class ToolOutput(TypedDict):
    """Output of a running call as it comes (run_python's stdout/stderr), bounded."""

    kind: Literal["tool_output"]
    turn_id: str
    call_id: str
    stream: Literal["stdout", "stderr"]
    text: str


class ApprovalNeeded(TypedDict):
    kind: Literal["approval_needed"]
    turn_id: str
    call_id: str
    name: str
    arguments: dict[str, Any]
    effect: ToolEffect
    preview: NotRequired[str]
    # Why this call asks in every mode (it changes the agent's instructions, or a recording asked for the
    # network); "allow for this session" then allows this call only.
    always_asks: NotRequired[str]
    agent: NotRequired[str]  # a delegated agent asks (its profile's name): the card says so


class Usage(TypedDict):
    kind: Literal["usage"]
    turn_id: str
    prompt_tokens: int
    completion_tokens: int
    total_tokens: int
    cost: float | None


class TurnFinished(TypedDict):
    kind: Literal["turn_finished"]
    turn_id: str
    reason: TurnEndReason


class ErrorEvent(TypedDict):
    kind: Literal["error"]
    turn_id: str | None
    code: str
    message: str
    retryable: bool


class Notice(TypedDict):
    """Something the person should know that is not an error of a turn (a restored save, a compaction)."""

    kind: Literal["notice"]
    code: str
    text: str


class SessionOpened(TypedDict):
    """The conversation the runtime now works in (at boot, after session_new/open/delete)."""

    kind: Literal["session_opened"]
    session_id: str
    title: str
    resumed_turn: str | None
    # The session as ``session_current`` answers it (its last messages): the page shows it without asking.
    view: dict[str, Any]


AgentTaskStatus = Literal["running", "done", "failed", "stopped"]


class AgentTask(TypedDict):
    """A delegated task (``delegate``) started or ended: the chat shows it, and opens its child session."""

    kind: Literal["agent_task"]
    turn_id: str  # the parent's turn that delegated it
    call_id: str  # its ``delegate`` call
    task_id: str
    agent: str
    status: AgentTaskStatus
    session_id: str  # the child session (readable with ``session_export``)
    background: bool
    summary: NotRequired[str]  # how it ended, in a line


Event = Union[  # noqa: UP007 - a runtime value: the generator and the checks iterate it
    Ready,
    TurnStarted,
    TextDelta,
    ReasoningDelta,
    ReplyFinished,
    ToolStarted,
    ToolFinished,
    ToolOutput,
    ApprovalNeeded,
    Usage,
    TurnFinished,
    ErrorEvent,
    Notice,
    SessionOpened,
    AgentTask,
]

"""The one definition of the frame messages: TypedDicts with Literal tags, both directions.

Messages from the host are checked once, here, at the boundary (``parse_host_message``) against these
definitions; past this point the runtime trusts their shape. docs/protocol.md describes the same
types for people; ``tests/unit/runtime/test_messages.py`` checks that the two agree.
"""

import logging
import typing
from typing import Any, Literal, NotRequired, TypedDict, Union, get_args, get_origin

from runtime.host.reply_events import ReasoningDelta, ReplyFinished

log = logging.getLogger(__name__)

PermissionMode = Literal["ask", "auto-edit", "full-auto", "read-only"]
Decision = Literal["allow", "allow_session", "deny"]
HttpErrorKind = Literal["network", "timeout", "refused", "aborted"]
TurnEndReason = Literal["stop", "aborted", "max_rounds", "error"]
ToolStatus = Literal["ok", "error", "denied"]


# ---- host → runtime -------------------------------------------------------------------------------


class Hello(TypedDict):
    type: Literal["hello"]
    protocol: int
    capabilities: NotRequired[list[str]]
    agent: NotRequired[str]


class HttpHead(TypedDict):
    type: Literal["http_head"]
    id: str
    status: int
    headers: dict[str, str]


class HttpChunk(TypedDict):
    type: Literal["http_chunk"]
    id: str
    data: str  # base64


class HttpEnd(TypedDict):
    type: Literal["http_end"]
    id: str


class HttpError(TypedDict):
    type: Literal["http_error"]
    id: str
    kind: HttpErrorKind
    message: str


class ProviderSettings(TypedDict):
    kind: str
    base_url: str
    has_key: bool


class Config(TypedDict):
    type: Literal["config"]
    provider: NotRequired[ProviderSettings]
    model: NotRequired[str | None]
    permission_mode: NotRequired[PermissionMode]
    page_origin: NotRequired[str | None]
    context_length: NotRequired[int | None]
    reasoning: NotRequired[Literal["auto", "off", "low", "medium", "high"]]
    package_index_urls: NotRequired[list[str] | None]


class UserMessage(TypedDict):
    type: Literal["user_message"]
    text: str
    turn_id: NotRequired[str | None]


class AbortTurn(TypedDict):
    type: Literal["abort_turn"]


class Approval(TypedDict):
    type: Literal["approval"]
    call_id: str
    decision: Decision


class Request(TypedDict):
    type: Literal["request"]
    id: str
    method: str
    params: NotRequired[dict[str, Any] | None]


class ExecResult(TypedDict):
    type: Literal["exec_result"]
    id: str
    ok: bool
    stdout: NotRequired[str]
    stderr: NotRequired[str]
    files: NotRequired[dict[str, Any] | list[Any] | None]
    error: NotRequired[Any]


class Reply(TypedDict):
    type: Literal["reply"]
    id: str
    ok: bool
    result: NotRequired[Any]
    error: NotRequired[Any]


class Cancel(TypedDict):
    type: Literal["cancel"]
    id: str


class Error(TypedDict):
    type: Literal["error"]
    code: str
    message: str
    id: NotRequired[str | None]


HostMessage = Union[  # noqa: UP007 - a runtime value, iterated below
    Hello,
    HttpHead,
    HttpChunk,
    HttpEnd,
    HttpError,
    Config,
    UserMessage,
    AbortTurn,
    Approval,
    Request,
    ExecResult,
    Reply,
    Cancel,
    Error,
]

# ---- runtime → host -------------------------------------------------------------------------------


class HttpRequest(TypedDict):
    type: Literal["http_request"]
    id: str
    method: str
    url: str
    headers: dict[str, str]
    body: str | None
    stream: bool
    auth: Literal["provider", "none"]
    timeout_s: float


class ExecRequest(TypedDict):
    type: Literal["exec_request"]
    id: str
    code: str
    timeout_s: float
    files: dict[str, Any]


class FlushRequest(TypedDict):
    type: Literal["flush_request"]
    id: str
    what: Literal["workspace", "state"]
    paths: list[str]
    rotate: NotRequired[bool]


class Log(TypedDict):
    type: Literal["log"]
    level: str
    logger: str
    message: str


# ---- UI events (runtime → host, inside an ``event`` message) ---------------------------------------


class Ready(TypedDict):
    kind: Literal["ready"]
    models_known: bool
    tools: list[dict[str, Any]]


class TurnStarted(TypedDict):
    kind: Literal["turn_started"]
    turn_id: str


class TextDelta(TypedDict):
    kind: Literal["text_delta"]
    turn_id: str
    text: str


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


class ApprovalNeeded(TypedDict):
    kind: Literal["approval_needed"]
    turn_id: str
    call_id: str
    name: str
    arguments: dict[str, Any]
    effect: str
    preview: NotRequired[str]


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


Event = Union[  # noqa: UP007
    Ready,
    TurnStarted,
    TextDelta,
    ReasoningDelta,
    ReplyFinished,
    ToolStarted,
    ToolFinished,
    ApprovalNeeded,
    Usage,
    TurnFinished,
    ErrorEvent,
    Notice,
    SessionOpened,
]


class EventMessage(TypedDict):
    type: Literal["event"]
    event: Event


RuntimeMessage = Union[  # noqa: UP007
    Hello, HttpRequest, Cancel, EventMessage, ExecRequest, FlushRequest, Log, Reply, Error
]


def _tag(cls: Any, key: str) -> str:
    (value,) = get_args(_hints(cls)[key])
    return str(value)


_HINTS: dict[type, dict[str, Any]] = {}


def _hints(cls: Any) -> dict[str, Any]:
    hints = _HINTS.get(cls)
    if hints is None:
        hints = typing.get_type_hints(cls)
        _HINTS[cls] = hints
    return hints


def host_message_types() -> dict[str, type]:
    """Every host → runtime message type by its ``type`` tag."""
    return {_tag(cls, "type"): cls for cls in get_args(HostMessage)}


def runtime_message_types() -> dict[str, type]:
    return {_tag(cls, "type"): cls for cls in get_args(RuntimeMessage)}


def event_kinds() -> dict[str, type]:
    return {_tag(cls, "kind"): cls for cls in get_args(Event)}


class BadMessage(ValueError):
    """A message from the host has a known ``type`` but fields of the wrong shape."""

    def __init__(self, type_: str, detail: str, request_id: str | None = None) -> None:
        super().__init__(f"bad {type_!r} message: {detail}")
        self.type = type_
        self.detail = detail
        self.request_id = request_id


_HOST_TYPES: dict[str, type] = {}


def parse_host_message(raw: dict[str, Any]) -> HostMessage | None:
    """Check a decoded message against its definition. ``None`` for an unknown type (skipped).

    Raises ``BadMessage`` when a known type has missing or mistyped fields.
    """
    if not _HOST_TYPES:
        _HOST_TYPES.update(host_message_types())
    type_ = raw.get("type")
    cls = _HOST_TYPES.get(type_) if isinstance(type_, str) else None
    if cls is None:
        log.debug("skipping a message of unknown type %r", type_)
        return None
    problem = _check_typed_dict(raw, cls)
    if problem:
        rid = raw.get("id")
        raise BadMessage(str(type_), problem, rid if isinstance(rid, str) else None)
    return typing.cast(HostMessage, raw)


def _check_typed_dict(value: dict[str, Any], cls: Any) -> str:
    hints = _hints(cls)
    for key in cls.__required_keys__:
        if key not in value:
            return f"missing field {key!r}"
    for key, hint in hints.items():
        if key in value and not _conforms(value[key], hint):
            return f"field {key!r} is not {_describe(hint)}"
    return ""


def _conforms(value: Any, hint: Any) -> bool:
    if hint is Any:
        return True
    origin = get_origin(hint)
    if origin is Literal:
        return value in get_args(hint)
    if origin in (Union, typing.get_origin(int | None)):
        return any(_conforms(value, arm) for arm in get_args(hint))
    if hint is type(None):
        return value is None
    if origin is dict or hint is dict:
        args = get_args(hint)
        return isinstance(value, dict) and (not args or all(_conforms(v, args[1]) for v in value.values()))
    if origin is list or hint is list:
        args = get_args(hint)
        return isinstance(value, list) and (not args or all(_conforms(v, args[0]) for v in value))
    if isinstance(hint, type) and typing.is_typeddict(hint):
        return isinstance(value, dict) and not _check_typed_dict(value, hint)
    if hint is float:
        return isinstance(value, int | float) and not isinstance(value, bool)
    if hint is int:
        return isinstance(value, int) and not isinstance(value, bool)
    return isinstance(hint, type) and isinstance(value, hint)


def _describe(hint: Any) -> str:
    if get_origin(hint) is None and hasattr(hint, "__name__"):
        return str(hint.__name__)
    return str(hint).replace("typing.", "")

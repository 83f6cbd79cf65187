"""The one definition of the frames: TypedDicts with a ``type: Literal[...]`` tag, both directions.

With ``events.py`` (the UI events inside ``event``) and ``constants.py`` (version, enumerations, limits)
this is the protocol. ``scripts/gen_protocol.py`` writes the TypeScript types and the adapter's field
checks from it (``web/src/protocol/*.gen.ts``; ``npm run protocol:gen``, ``npm run protocol:check``).
Messages from the host are checked once at the boundary (``runtime/host/validate.py``); past it the
runtime trusts their shape. Frames the runtime sends are built as these types, so mypy checks them.

To add a frame: a TypedDict here (``type`` tag first), listed in ``HostMessage`` and/or
``RuntimeMessage``, a row in docs/protocol.md, then ``npm run protocol:gen``. (No ``from __future__
import annotations`` in these modules: TypedDict would not see ``NotRequired`` in string annotations.)
"""

from typing import Any, Literal, NotRequired, TypedDict, Union

from runtime.host.constants import Decision as Decision
from runtime.host.constants import ExecErrorKind, FlushWhat, HttpAuth, ImageMediaType
from runtime.host.constants import HttpErrorKind as HttpErrorKind
from runtime.host.constants import PermissionMode as PermissionMode
from runtime.host.constants import ReasoningEffort as ReasoningEffort
from runtime.host.constants import ToolStatus as ToolStatus
from runtime.host.constants import TurnEndReason as TurnEndReason
from runtime.host.events import ApprovalNeeded as ApprovalNeeded
from runtime.host.events import Event as Event

# ---- parts of frames ------------------------------------------------------------------------------


class ProviderSettings(TypedDict):
    kind: str  # a registered provider: ProviderKind for the built-in ones
    base_url: str
    has_key: bool


class ReplyError(TypedDict):
    code: str
    message: str
    retryable: NotRequired[bool]


class ExecError(TypedDict):
    kind: ExecErrorKind
    message: str


class ImageAttachment(TypedDict):
    """An image pasted or dropped into a message (``user_message.images``)."""

    media_type: ImageMediaType
    name: str
    data: str  # base64, no data: prefix


class AttachedResource(TypedDict):
    """A tool server's resource attached to a message (``user_message.resources``): read by the worker; a
    text one carries its text, a blob only its type and size (an image blob travels in ``images``)."""

    server: str
    uri: str
    name: str
    size: int  # bytes, as read
    mime_type: NotRequired[str]
    text: NotRequired[str]
    image: NotRequired[bool]  # the blob was sent as one of the message's images


class ExecRequestBody(TypedDict):
    """What run_python asks the sandbox for (``ExecRequest`` without its tag and id)."""

    code: str
    timeout_s: float
    files: dict[str, str]  # workspace-relative path → base64 content
    packages: NotRequired[list[str]]  # installed with micropip before the code runs
    network: NotRequired[bool]  # approved to reach the web, only through the app's /api/proxy; else no network


class McpToolSpec(TypedDict):
    """One tool as a tool server lists it (``mcp_tools``); the worker copies the server's own fields."""

    name: str
    description: str
    input_schema: dict[str, Any]  # the server's JSON Schema of the arguments, given to the model as it is
    annotations: NotRequired[dict[str, Any]]  # readOnlyHint, destructiveHint, …: shown, never trusted


class McpContent(TypedDict):
    """One block of a tool server's result: text, an image, an embedded resource or a resource link."""

    type: Literal["text", "image", "audio", "resource", "resource_link"]
    text: NotRequired[str]
    data: NotRequired[str]  # base64 (image, audio, a binary embedded resource)
    media_type: NotRequired[str]
    uri: NotRequired[str]
    name: NotRequired[str]


# ---- both directions ------------------------------------------------------------------------------


class Hello(TypedDict):
    type: Literal["hello"]
    protocol: int
    capabilities: NotRequired[list[str]]
    agent: NotRequired[str]


class Reply(TypedDict):
    type: Literal["reply"]
    id: str
    ok: bool
    result: NotRequired[Any]
    error: NotRequired[ReplyError]
    result_file: NotRequired[str]  # instead of ``result`` when it is too large for a frame (host/outgoing.py)


class Cancel(TypedDict):
    type: Literal["cancel"]
    id: str


class Error(TypedDict):
    type: Literal["error"]
    code: str
    message: str
    id: NotRequired[str | None]


# ---- host → runtime -------------------------------------------------------------------------------


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


class Config(TypedDict):
    type: Literal["config"]
    provider: NotRequired[ProviderSettings]
    model: NotRequired[str | None]
    permission_mode: NotRequired[PermissionMode]
    page_origin: NotRequired[str | None]
    context_length: NotRequired[int | None]
    max_output: NotRequired[int | None]  # the most tokens one answer may take (max_tokens); null: the default
    reasoning: NotRequired[ReasoningEffort]
    # True while the model's answers come from a recording (provider "replay"; ``provider`` is then the
    # recorded one): calls that reach the network ask in every mode (runtime.policy.protected).
    replay: NotRequired[bool]


class McpPromptOrigin(TypedDict):
    """Where a ``user_message``'s text came from when the person sent a tool server's prompt (``/server:prompt``)."""

    server: str
    name: str


class PresendUse(TypedDict):
    """The offer the host sent at Send, and the text it put between the offer's two parts (JSON-escaped)."""

    id: str
    text: str


class UserMessage(TypedDict):
    type: Literal["user_message"]
    text: str
    turn_id: NotRequired[str | None]
    replaces_turn: NotRequired[str | None]
    images: NotRequired[list[ImageAttachment]]  # for models that take images (IMAGE_MAX_BYTES each)
    resources: NotRequired[list[AttachedResource]]  # tool servers' resources (runtime/tools/mcp_resources.py)
    prompt: NotRequired[McpPromptOrigin]  # the text is a tool server's prompt: it reaches the model as outside text
    presend: NotRequired[PresendUse]  # the host sent the runtime's offered request with this text (host/presend.py)


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
    stdout: str
    stderr: str
    files: dict[str, str]  # created or changed: workspace-relative path → base64 content
    deleted: NotRequired[list[str]]  # files handed in that the code deleted
    error: ExecError | None


class ExecOutput(TypedDict):
    """A piece of a running ``exec_request``'s stdout or stderr, as the sandbox writes it."""

    type: Literal["exec_output"]
    id: str
    stream: Literal["stdout", "stderr"]
    text: str


class McpTools(TypedDict):
    """The tools a configured tool server offers now (an empty list withdraws them: down or removed).

    The runtime answers with a ``reply`` of the same id: ``{"accepted": [model-facing names],
    "refused": [{"name": ..., "reason": ...}]}`` (docs/mcp.md)."""

    type: Literal["mcp_tools"]
    id: str
    server: str
    tools: list[McpToolSpec]


class McpResult(TypedDict):
    """The answer to ``mcp_call``: the server's content blocks, or why there are none (``error``)."""

    type: Literal["mcp_result"]
    id: str
    ok: bool  # false: the call did not complete (unreachable, timeout, too large, refused)
    is_error: bool  # the server's own isError: the tool ran and failed
    content: list[McpContent]
    error: NotRequired[str]


HostMessage = Union[  # noqa: UP007 - a runtime value: the generator and the checks iterate it
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
    ExecOutput,
    McpTools,
    McpResult,
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
    auth: HttpAuth
    timeout_s: float


class OfferedRequest(TypedDict):
    """The next plain turn's first request, split where the person's text goes (host/presend.py)."""

    id: str  # reserved: the host sends it under this id
    method: str
    url: str
    headers: dict[str, str]
    auth: HttpAuth
    timeout_s: float
    before: str  # the body up to the text
    after: str  # the body after it
    room: int  # the longest JSON-escaped text that leaves the rest of the body as it is
    heard: int  # the host's frames the runtime had read: the host uses it only when it has sent no more


class HttpOffer(TypedDict):
    """The request a plain message would send now (``None``: none); the host may send it at Send."""

    type: Literal["http_offer"]
    offer: OfferedRequest | None


class ExecRequest(ExecRequestBody):
    type: Literal["exec_request"]
    id: str


class FlushRequest(TypedDict):
    type: Literal["flush_request"]
    id: str
    what: FlushWhat
    paths: list[str]
    rotate: NotRequired[bool]


class WorkspaceFetch(TypedDict):
    """List workspace folders from the host's storage into the runtime's file system (host/workspace_fetch.py)."""

    type: Literal["workspace_fetch"]
    id: str
    dirs: list[str]  # workspace-relative folders ("" is the workspace)
    depth: int | None  # levels below each to list too; None: all
    load: NotRequired[list[str]]  # file names (in any folder listed) whose bytes come with the listing


class McpCall(TypedDict):
    """Call a tool of a configured tool server; the worker makes the call (the runtime never reaches it)."""

    type: Literal["mcp_call"]
    id: str
    server: str
    tool: str  # the server's own name of the tool (not the prefixed one the model sees)
    arguments: dict[str, Any]
    timeout_s: float


class Log(TypedDict):
    type: Literal["log"]
    level: str
    logger: str
    message: str


class EventMessage(TypedDict):
    type: Literal["event"]
    event: Event


RuntimeMessage = Union[  # noqa: UP007
    Hello,
    HttpRequest,
    HttpOffer,
    Cancel,
    EventMessage,
    ExecRequest,
    FlushRequest,
    WorkspaceFetch,
    McpCall,
    Log,
    Reply,
    Error,
]

RuntimeRequest = HttpRequest | ExecRequest | FlushRequest | WorkspaceFetch | McpCall
"""The runtime's frames that the host answers (by their ``id``)."""

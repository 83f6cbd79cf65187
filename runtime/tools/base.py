"""@tool turns a plain function into a ToolDefinition: name, description, schema, effect class, traits.

The name comes from the function, the description from its docstring's first paragraph, and the JSON
schema from its signature (type hints and defaults). ``Annotated[str, "help"]`` adds a description to a
parameter. The first parameter may be ``ctx: ToolContext``; it is not part of the schema. What the tool
uses of the workspace comes from the signature too (``WorkspacePath`` parameters) and from ``walks``
(``runtime.tools.traits``).
"""

from __future__ import annotations

import inspect
import types
import typing
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal, Protocol, Union, get_args, get_origin

from runtime.host.constants import ToolEffect
from runtime.host.events import ToolInfo
from runtime.host.workspace_fetch import OnDemand, Reach
from runtime.tools.traits import Walk, check_walk, is_workspace_path, reach

Effect = ToolEffect
EFFECTS: tuple[Effect, ...] = ("read", "write", "network", "execute", "memory")

JSONSchema = dict[str, Any]


class HttpResult(Protocol):
    """A complete (non-streamed) HTTP response fetched through the host."""

    status: int
    headers: dict[str, str]  # lower-case names
    body: bytes


class ToolContext(Protocol):
    """What a tool may use from the running agent. The loop provides the concrete context.

    ``workspace`` is the root every path is resolved in (``/workspace`` in the browser, a temporary
    directory in tests); ``on_demand`` lists its folders from the host's storage (what a call's traits
    declare is listed before it runs; a tool that finds more to read mid-call asks it). ``fetch`` goes
    through the host without credentials (``auth: "none"``), so the adapter's egress rule applies.
    ``host_request`` sends a request frame such as ``exec_request`` or ``flush_request`` (with a fresh
    ``id``) and returns the reply message.
    """

    @property
    def workspace(self) -> Path: ...

    @property
    def on_demand(self) -> OnDemand: ...

    async def fetch(
        self,
        url: str,
        *,
        method: str = "GET",
        headers: dict[str, str] | None = None,
        body: str | None = None,
        timeout_s: float = 30.0,
        max_bytes: int = 5_000_000,
    ) -> HttpResult: ...

    async def host_request(self, type: str, payload: dict[str, Any], timeout_s: float = 60.0) -> dict[str, Any]: ...

    async def keep_before(self, paths: Iterable[str]) -> None:
        """Keep ``paths`` as they are now in the turn's checkpoint, before the call changes them."""
        ...


class ToolError(Exception):
    """A failure the model should see as the tool's result (bad path, no match, ...)."""


@dataclass(frozen=True)
class ToolOutput:
    """A tool's result with what the host needs besides the text.

    ``changed_paths`` are the workspace-relative paths the call created, changed or removed (the host
    flushes only those to OPFS; a listed path that no longer exists was deleted). ``ok`` is False for a
    result that is a failure the model should see in full (a Python traceback), yet still changed files.
    ``images`` are image files the call wrote: shown in its card, and to a model that takes images.
    """

    text: str
    changed_paths: tuple[str, ...] = ()
    ok: bool = True
    images: tuple[str, ...] = ()  # workspace-relative image files to show (run_python's plots)

    def __str__(self) -> str:
        return self.text


ToolFunc = Callable[..., Awaitable[Any] | Any]
# preview(ctx, arguments) -> what the approval card shows (e.g. the diff a write would apply), or None.
PreviewFunc = Callable[[Any, dict[str, Any]], str | None]
# parameters_for(workspace) -> the parameters schema as the model should see it now (e.g. installed
# names as an enum), or None to leave the tool out of this request (nothing to choose from).
ParametersFunc = Callable[[Path], JSONSchema | None]


@dataclass(frozen=True)
class ToolDefinition:
    name: str
    description: str
    parameters: JSONSchema
    effect: Effect
    func: ToolFunc = field(repr=False, compare=False)
    takes_context: bool = False
    preview: PreviewFunc | None = field(default=None, repr=False, compare=False)
    parameters_for: ParametersFunc | None = field(default=None, repr=False, compare=False)
    paths: tuple[str, ...] = ()  # the parameters typed WorkspacePath: what a call reads, or changes
    walks: Walk | None = None  # the subtree a call walks

    def reach(self, arguments: dict[str, Any]) -> Reach:
        """What a call with these arguments uses of the workspace (listed before it runs)."""
        return reach(self.paths, self.walks, arguments)

    def render_preview(self, ctx: Any, arguments: dict[str, Any]) -> str | None:
        """What the approval card shows besides the arguments; None when the tool has no preview."""
        return self.preview(ctx, arguments) if self.preview is not None else None

    def openai_schema(self, workspace: Path | None = None) -> dict[str, Any] | None:
        """The model's view of the tool; with a workspace, tailored to it (None: not offered now)."""
        parameters: JSONSchema | None = self.parameters
        if workspace is not None and self.parameters_for is not None:
            parameters = self.parameters_for(workspace)
            if parameters is None:
                return None
        return {
            "type": "function",
            "function": {"name": self.name, "description": self.description, "parameters": parameters},
        }

    def catalog_entry(self) -> ToolInfo:
        """What the UI's tool catalog shows."""
        return {
            "name": self.name,
            "description": self.description,
            "effect": self.effect,
            "parameters": self.parameters,
        }

    async def call(self, ctx: Any, arguments: dict[str, Any]) -> Any:
        args = (ctx,) if self.takes_context else ()
        result = self.func(*args, **arguments)
        if inspect.isawaitable(result):
            result = await result
        return result


def tool(
    effect: Effect,
    *,
    name: str | None = None,
    preview: PreviewFunc | None = None,
    parameters_for: ParametersFunc | None = None,
    walks: Walk | None = None,
) -> Callable[[ToolFunc], ToolDefinition]:
    """Decorator: ``@tool("read")`` on a function makes it a ToolDefinition; ``walks``: the subtree it walks."""

    def make(func: ToolFunc) -> ToolDefinition:
        definition = replace(define(func, effect, name=name, preview=preview), parameters_for=parameters_for)
        check_walk(walks, definition.paths, definition.name)
        return replace(definition, walks=walks)

    return make


def define(
    func: ToolFunc, effect: Effect, *, name: str | None = None, preview: PreviewFunc | None = None
) -> ToolDefinition:
    if effect not in EFFECTS:
        raise ValueError(f"unknown effect class {effect!r}")
    sig = inspect.signature(func)
    hints = typing.get_type_hints(func, include_extras=True)
    params = list(sig.parameters.values())
    takes_context = bool(params) and params[0].name == "ctx"
    if takes_context:
        params = params[1:]
    properties: dict[str, JSONSchema] = {}
    required: list[str] = []
    paths = tuple(p.name for p in params if is_workspace_path(hints.get(p.name, str)))
    for p in params:
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            raise TypeError(f"{func.__name__}: *args/**kwargs cannot be described to a model")
        schema = _schema_for(hints.get(p.name, str))
        if p.default is inspect.Parameter.empty:
            required.append(p.name)
        elif p.default is not None:
            schema["default"] = p.default
        properties[p.name] = schema
    parameters: JSONSchema = {
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": False,
    }
    doc = inspect.getdoc(func) or ""
    description = doc.split("\n\n", 1)[0].replace("\n", " ").strip()
    if not description:
        raise TypeError(f"{func.__name__}: a tool needs a docstring; it is the model's description")
    return ToolDefinition(
        name or func.__name__, description, parameters, effect, func, takes_context, preview, paths=paths
    )


_SIMPLE: dict[Any, str] = {str: "string", int: "integer", float: "number", bool: "boolean"}


def _schema_for(hint: Any) -> JSONSchema:
    origin = get_origin(hint)
    if origin is typing.Annotated:
        base, *extra = get_args(hint)
        schema = _schema_for(base)
        notes = [e for e in extra if isinstance(e, str)]
        if notes:
            schema["description"] = " ".join(notes)
        return schema
    if origin in (Union, types.UnionType):
        args = [a for a in get_args(hint) if a is not type(None)]
        if len(args) == 1:
            return _schema_for(args[0])
        return {"anyOf": [_schema_for(a) for a in args]}
    if origin is Literal:
        values = list(get_args(hint))
        return {"type": _SIMPLE.get(type(values[0]), "string"), "enum": values}
    if origin in (list, tuple, typing.Sequence) or hint in (list, tuple):
        item_args = get_args(hint)
        item = _schema_for(item_args[0]) if item_args else {}
        return {"type": "array", "items": item}
    if origin is dict or hint is dict:
        return {"type": "object"}
    if hint in _SIMPLE:
        return {"type": _SIMPLE[hint]}
    raise TypeError(f"no JSON schema for type hint {hint!r}")

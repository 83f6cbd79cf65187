"""Tools from tool servers (MCP): the worker lists them (``mcp_tools``), they join the one registry.

The worker connects to each configured server, lists its tools and sends them in an ``mcp_tools``
frame; an empty list withdraws them (the server is down or was removed). Each tool becomes a
``ToolDefinition`` named ``<server>__<tool>`` with the server's own JSON schema and effect class
``network``, so a mode that asks before the network asks before it; annotations such as
``readOnlyHint`` are shown in its description but never change its effect class. A call goes
runtime → ``mcp_call`` → worker → server, and the answer (``mcp_result``) comes back as text wrapped
as outside text, with images written to the workspace for a vision model (as run_python's plots).

Refused, each with its reason in the reply: a tool whose name is a built-in tool's, a name that after
the prefix is not a function name a provider takes (a look-alike letter from another script is
refused so), a second tool with a name already taken, and an input schema a provider would refuse
(not an object, a combinator at the top, a remote ``$ref``, over 32 kB).
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from runtime.errors import HostRequestError
from runtime.host.messages import McpContent, McpToolSpec
from runtime.tools.base import ToolContext, ToolDefinition, ToolError, ToolOutput
from runtime.tools.registry import Registry
from runtime.tools.untrusted import wrap_untrusted

SEPARATOR = "__"
SERVER_NAME = re.compile(r"^[a-z][a-z0-9-]{0,31}$")
TOOL_NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")  # what OpenAI-style function names allow
MAX_DESCRIPTION_CHARS = 2_000
MAX_SCHEMA_CHARS = 32_000  # a schema is sent with every model request: a huge one crowds the context
CALL_TIMEOUT_S = 60.0
HOST_GRACE_S = 10.0
IMAGE_DIR = "tool-images"
IMAGE_TYPES = {"image/png": ".png", "image/jpeg": ".jpg", "image/gif": ".gif", "image/webp": ".webp"}
SHOWN_HINTS = ("readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint")


@dataclass(frozen=True)
class Refusal:
    name: str
    reason: str


def server_name_problem(server: str) -> str | None:
    """Why ``server`` cannot name a tool server (its name prefixes its tools), or None."""
    if SERVER_NAME.match(server):
        return None
    return "a server's name is 1-32 lower-case letters, digits or '-', starting with a letter"


class ToolServers:
    """The tools each server offers now, kept in the registry under their prefixed names."""

    def __init__(self, registry: Registry, builtins: Callable[[], frozenset[str]] | None = None) -> None:
        self._registry = registry
        self._by_server: dict[str, list[str]] = {}
        taken = frozenset(t.name for t in registry)
        self._builtins = builtins or (lambda: taken)

    def owner(self, tool_name: str) -> str | None:
        """The server a registered tool comes from, or None for a built-in tool."""
        return next((s for s, names in self._by_server.items() if tool_name in names), None)

    def update(self, server: str, tools: list[McpToolSpec]) -> tuple[list[str], list[Refusal]]:
        """Replace ``server``'s tools by ``tools``; returns the names the model sees and the refusals."""
        for name in self._by_server.pop(server, []):
            self._registry.unregister(name)
        problem = server_name_problem(server)
        if problem is not None:
            return [], [Refusal(spec["name"], problem) for spec in tools]
        accepted: list[str] = []
        refused: list[Refusal] = []
        for spec in tools:
            reason = self._problem(server, spec)
            if reason is not None:
                refused.append(Refusal(spec["name"], reason))
                continue
            self._registry.register(definition(server, spec))
            accepted.append(prefixed(server, spec["name"]))
        if accepted:
            self._by_server[server] = accepted
        return accepted, refused

    def _problem(self, server: str, spec: McpToolSpec) -> str | None:
        name = spec["name"]
        if name in self._builtins():
            return f"'{name}' is the name of a built-in tool; a server's tool may not imitate one"
        full = prefixed(server, name)
        if not TOOL_NAME.match(full):
            return f"'{full}' is not a tool name a model takes (letters, digits, '_' or '-', at most 64)"
        if full in self._registry:
            return f"'{full}' is already a tool's name"
        return schema_problem(spec["input_schema"])


def schema_problem(schema: dict[str, Any]) -> str | None:
    """Why a model provider would refuse ``schema`` as a tool's parameters, or None."""
    if schema.get("type", "object") != "object":
        return "its input schema does not describe an object of arguments"
    combined = [k for k in ("anyOf", "oneOf", "allOf", "not", "enum") if k in schema]
    if combined:
        return f"its input schema has '{combined[0]}' at the top, which model providers refuse for a tool's parameters"
    refs = _remote_refs(schema)
    if refs:
        return f"its input schema refers to another document ({refs[0][:100]}), which nothing here fetches"
    size = len(json.dumps(schema))
    if size > MAX_SCHEMA_CHARS:
        return f"its input schema is {size // 1000} kB, over the {MAX_SCHEMA_CHARS // 1000} kB a tool's schema may be"
    return None


def _remote_refs(node: object) -> list[str]:
    if isinstance(node, dict):
        own = [v for k, v in node.items() if k == "$ref" and isinstance(v, str) and not v.startswith("#")]
        return own + [r for v in node.values() for r in _remote_refs(v)]
    if isinstance(node, list):
        return [r for v in node for r in _remote_refs(v)]
    return []


def prefixed(server: str, tool_name: str) -> str:
    return f"{server}{SEPARATOR}{tool_name}"


def definition(server: str, spec: McpToolSpec) -> ToolDefinition:
    """The registry's entry for one server tool: the server's schema, effect ``network``."""
    tool_name = spec["name"]

    async def call(ctx: ToolContext, **arguments: Any) -> ToolOutput:
        return await call_tool(ctx, server, tool_name, arguments)

    schema = dict(spec["input_schema"])
    schema.setdefault("type", "object")
    schema.setdefault("properties", {})
    return ToolDefinition(
        name=prefixed(server, tool_name),
        description=describe(server, spec),
        parameters=schema,
        effect="network",
        func=call,
        takes_context=True,
    )


def describe(server: str, spec: McpToolSpec) -> str:
    """The server's description, cut, with where the tool comes from and the hints it claims."""
    text = " ".join(spec["description"].split())[:MAX_DESCRIPTION_CHARS] or "(no description)"
    hints = [h for h in SHOWN_HINTS if (spec.get("annotations") or {}).get(h) is True]
    claims = f"; the server says: {', '.join(hints)}" if hints else ""
    return f"{text} [tool server '{server}'{claims}]"


async def call_tool(ctx: ToolContext, server: str, tool_name: str, arguments: dict[str, Any]) -> ToolOutput:
    payload = {"server": server, "tool": tool_name, "arguments": arguments, "timeout_s": CALL_TIMEOUT_S}
    try:
        reply = await ctx.host_request("mcp_call", payload, timeout_s=CALL_TIMEOUT_S + HOST_GRACE_S)
    except HostRequestError as e:
        raise ToolError(f"the tool server '{server}' was not reached ({e.code}): {e.message}") from None
    if reply.get("ok") is not True:
        raise ToolError(f"the tool server '{server}' did not answer: {reply.get('error') or 'no reason given'}")
    content = reply.get("content")
    if not isinstance(content, list):
        raise ToolError(f"the tool server '{server}' answered without content")
    text, images = render(ctx.workspace, server, content)
    return ToolOutput(text, changed_paths=images, ok=reply.get("is_error") is not True, images=images)


def render(workspace: Path, server: str, content: list[McpContent]) -> tuple[str, tuple[str, ...]]:
    """The blocks as one wrapped text, and the image files written for a vision model."""
    parts: list[str] = []
    images: list[str] = []
    for block in content:
        kind = block.get("type")
        if kind == "text":
            parts.append(block.get("text", ""))
        elif kind == "image":
            saved = save_image(workspace, server, block)
            images.extend([saved] if saved else [])
            parts.append(f"[image {saved}]" if saved else f"[an image of type {block.get('media_type')} left out]")
        elif kind == "resource":
            uri = block.get("uri", "")
            body = block.get("text")
            parts.append(f"[resource {uri}]\n{body}" if body is not None else f"[binary resource {uri}]")
        elif kind == "resource_link":
            parts.append(f"[resource link {block.get('name', '')}: {block.get('uri', '')}]")
        else:
            parts.append(f"[{kind} content left out]")
    body = "\n".join(parts) if parts else "(no content)"
    return wrap_untrusted(body, f"tool server {server}", "tool"), tuple(images)


def save_image(workspace: Path, server: str, block: McpContent) -> str | None:
    suffix = IMAGE_TYPES.get(block.get("media_type", ""))
    if suffix is None:
        return None
    try:
        data = base64.b64decode(block.get("data", ""), validate=True)
    except (binascii.Error, ValueError):
        return None
    folder = workspace / IMAGE_DIR
    folder.mkdir(parents=True, exist_ok=True)
    n = sum(1 for _ in folder.glob(f"{server}-*")) + 1
    rel = f"{IMAGE_DIR}/{server}-{n}{suffix}"
    (workspace / rel).write_bytes(data)
    return rel

"""What llama.cpp's ``llama-server`` refuses in a chat request, refused with its own bodies.

Its errors are ``{"error": {"code", "message", "type"}}`` (``format_error_response`` in
``tools/server/server-common.cpp``); a type is one of ``invalid_request_error`` (400),
``exceed_context_size_error`` (400, with ``n_prompt_tokens`` and ``n_ctx``), ``not_found_error``
(404), ``server_error`` (500), ….

- An assistant tool call in the history whose ``arguments`` do not parse as JSON: llama-server parses
  them (nlohmann::json) while it renders the chat template, and answers HTTP 500 "Failed to parse tool
  call arguments as JSON: [json.exception.parse_error.101] …" to that request and every later one of
  the chat. The fakes refuse it on every OpenAI-wire route, so a client that sends a cut-off call back
  fails its tests the way it fails for real.
- A prompt over the window: HTTP 400 "request (N tokens) exceeds the available context size (M
  tokens), try increasing it".

Ollama's native ``/api/chat`` takes ``arguments`` as an object; anything else fails Go's JSON decoder
(HTTP 400 "json: cannot unmarshal string into Go struct field …"), as ``ollama_arguments_refusal`` says.
"""

from __future__ import annotations

import json
from typing import Any

PARSE_ERROR = "[json.exception.parse_error.101] parse error at line {line}, column {column}: syntax error while " \
    "parsing value - {what}; last read: '{last}'"
OVERFLOW = "request ({asked} tokens) exceeds the available context size ({n_ctx} tokens), try increasing it"
OLLAMA_NOT_OBJECT = ("json: cannot unmarshal {kind} into Go struct field ToolCallFunction.messages.tool_calls.function"
                     ".arguments of type api.ToolCallFunctionArguments")


def error(code: int, message: str, kind: str, **extra: Any) -> dict[str, Any]:
    """llama-server's error body."""
    return {"error": {"code": code, "message": message, "type": kind, **extra}}


def overflow_body(asked: int, n_ctx: int) -> dict[str, Any]:
    return error(400, OVERFLOW.format(asked=asked, n_ctx=n_ctx), "exceed_context_size_error",
                 n_prompt_tokens=asked, n_ctx=n_ctx)


def _calls(payload: dict[str, Any]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for message in payload.get("messages") or []:
        if isinstance(message, dict) and message.get("role") == "assistant":
            out.extend(c for c in message.get("tool_calls") or [] if isinstance(c, dict))
    return out


def invalid_arguments_refusal(payload: dict[str, Any]) -> tuple[int, dict[str, Any]] | None:
    """(500, llama-server's body) when a tool call of the history has arguments that are not JSON."""
    for call in _calls(payload):
        raw = (call.get("function") or {}).get("arguments")
        if not isinstance(raw, str):
            continue
        try:
            json.loads(raw)
        except json.JSONDecodeError as exc:
            what = "invalid string: missing closing quote" if "Unterminated string" in exc.msg else exc.msg
            detail = PARSE_ERROR.format(line=exc.lineno, column=exc.colno, what=what, last=raw[-60:])
            return 500, error(500, f"Failed to parse tool call arguments as JSON: {detail}", "server_error")
    return None


def ollama_arguments_refusal(payload: dict[str, Any]) -> tuple[int, str] | None:
    """(400, Ollama's error) when a tool call of the history has arguments that are not a JSON object."""
    for call in _calls(payload):
        raw = (call.get("function") or {}).get("arguments")
        if raw is not None and not isinstance(raw, dict):
            kind = {str: "string", list: "array", bool: "bool"}.get(type(raw), "number")
            return 400, OLLAMA_NOT_OBJECT.format(kind=kind)
    return None

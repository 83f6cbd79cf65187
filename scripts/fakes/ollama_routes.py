"""The fake's Ollama native API (``/api/tags``, ``/api/show``, ``/api/version``, ``/api/chat`` as NDJSON, and the
OpenAI-style ``/v1/models`` Ollama also serves), mixed into ``FakeLLM``; and how the fake writes an event."""

from __future__ import annotations

import asyncio
import json
from collections import deque

from aiohttp import web

from .catalog import ollama_openai_models, ollama_show, ollama_tags
from .llamacpp import ollama_arguments_refusal
from .replies import Reply, ollama_lines
from .strict import ollama_refusal

DROP_AFTER_S = 0.3  # a dropped reply's text is on the wire before the connection goes
SPLIT_PAUSE_S = 0.002  # between the two halves of an event, so they travel in separate TCP writes


async def write_split(response: web.StreamResponse, event: bytes) -> None:
    """Write an event in two pieces, cut mid-event, as real servers and proxies do."""
    cut = max(1, len(event) // 2)
    await response.write(event[:cut])
    await asyncio.sleep(SPLIT_PAUSE_S)
    await response.write(event[cut:])


class OllamaRoutes:
    """The Ollama handlers; ``FakeLLM`` provides the script, the CORS answer and the stream counters."""

    _queue: deque[Reply]
    default_reply: Reply
    allow_origin: str | None
    streams_aborted: int
    streams_completed: int

    def _add_cors(self, response: web.StreamResponse, origin: str) -> None:
        raise NotImplementedError

    async def _ollama_chat(self, request: web.Request) -> web.StreamResponse:
        """Ollama's native chat: NDJSON lines; a model without the tools capability refuses tools."""
        payload = await request.json()
        model = str(payload.get("model") or "")
        shown = ollama_show(model)
        if shown is None:
            return web.json_response({"error": f"model '{model}' not found"}, status=404)
        refusal = ollama_refusal(payload, model, shown["capabilities"]) or ollama_arguments_refusal(payload)
        if refusal is not None:
            return web.json_response({"error": refusal[1]}, status=refusal[0])
        reply = self._queue.popleft() if self._queue else self.default_reply
        if reply.kind == "http_error":
            return web.json_response({"error": reply.message}, status=reply.status)
        response = web.StreamResponse(headers={"Content-Type": "application/x-ndjson"})
        origin = request.headers.get("Origin")
        if origin and self.allow_origin is not None:
            self._add_cors(response, origin)
        await response.prepare(request)
        prompt = max(1, len(json.dumps(payload.get("messages", []))) // 4)
        try:
            for line in ollama_lines(reply, model, prompt, bool(payload.get("think"))):
                await write_split(response, (json.dumps(line) + "\n").encode())
                if reply.delay_s:
                    await asyncio.sleep(reply.delay_s)
            if reply.kind == "drop" and request.transport is not None:
                await asyncio.sleep(DROP_AFTER_S)
                request.transport.abort()
                return response
            await response.write_eof()
        except (ConnectionResetError, ConnectionError):
            self.streams_aborted += 1
            return response
        self.streams_completed += 1
        return response

    async def _ollama_tags(self, request: web.Request) -> web.StreamResponse:
        return web.json_response(ollama_tags())

    async def _ollama_show(self, request: web.Request) -> web.StreamResponse:
        body = await request.json()
        shown = ollama_show(str(body.get("model") or body.get("name") or ""))
        if shown is None:
            return web.json_response({"error": f"model '{body.get('model')}' not found"}, status=404)
        return web.json_response(shown)

    async def _ollama_version(self, request: web.Request) -> web.StreamResponse:
        return web.json_response({"version": "0.12.3"})

    async def _ollama_models(self, request: web.Request) -> web.StreamResponse:
        return web.json_response(ollama_openai_models())

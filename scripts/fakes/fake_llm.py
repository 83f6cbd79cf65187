"""A scriptable fake of OpenRouter, Ollama and llama.cpp's llama-server: a real aiohttp server on 127.0.0.1.

    fake = FakeLLM(api_key="sk-or-v1-test")
    base = await fake.start()                     # or: with fake.running_in_thread() as base: ...
    fake.script([Reply.text("Hello **world**"), Reply.error(402)])  # then point the app at the base URL
    fake.requests_to("/api/v1/chat/completions")  # what it saw: method, path, headers, body

Base URLs: OpenRouter f"{base}/api/v1" (models, chat/completions, key, auth/keys; OAuth page /auth), Ollama
base (/api/tags, /api/show, /api/chat, /v1/...), an OpenAI-compatible llama-server f"{base}/llamacpp/v1"
(``llama_server.py``); /bench/bytes?n=N for benchmarks. Standalone: `python -m scripts.fakes.fake_llm --port 8011`.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import contextlib
import hashlib
import json
import logging
import secrets
import threading
from collections import deque
from collections.abc import Awaitable, Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from aiohttp import web
from yarl import URL

from .catalog import OPENROUTER_MODELS
from .llama_server import N_CTX, LlamaServerMode
from .llamacpp import invalid_arguments_refusal
from .ollama_routes import DROP_AFTER_S, OllamaRoutes, write_split
from .replies import (
    ChunkMaker,
    Flavor,
    Reply,
    completion_json,
    error_body,
    reasoning_details,
    stream_chunks,
    usage_for,
)
from .strict import MAX_BODY_BYTES, ReceivedImage, openrouter_refusal, received, unsigned_call

log = logging.getLogger(__name__)

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]
KEY_INFO = {"label": "sk-or-v1-fak...e00", "limit": None, "limit_reset": None, "limit_remaining": None,
            "usage": 0.0123, "usage_daily": 0.0123, "is_free_tier": False}


@dataclass(frozen=True)
class RecordedRequest:
    method: str
    path: str
    query: dict[str, str]
    headers: dict[str, str]
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body or b"null")


class FakeLLM(OllamaRoutes):
    def __init__(self, *, api_key: str | None = None, allow_origin: str | None = "*",
                 default_reply: Reply | None = None) -> None:
        self.api_key = api_key  # None: any key (or none) is accepted
        self.allow_origin = allow_origin  # None: refuse cross-origin requests, as Ollama does by default
        self.default_reply = default_reply or Reply.text("Hello from the fake model.")
        self.requests: list[RecordedRequest] = []
        self.streams_completed = 0
        self.streams_aborted = 0
        self.issued_keys: list[str] = []
        self.issued_reasoning: dict[str, list[dict[str, Any]]] = {}  # tool call id -> reasoning_details sent
        self.key_info: dict[str, Any] = dict(KEY_INFO)  # what GET /api/v1/key says about the key
        self._queue: deque[Reply] = deque()
        self._codes: dict[str, str] = {}
        self._generation = 0
        self._runner: web.AppRunner | None = None
        self.base_url = ""
        self.llamacpp = LlamaServerMode(self._chat("ollama"))  # its chat speaks plain OpenAI chunks

    # --- scripting and assertions -------------------------------------------------------------

    def script(self, replies: Iterable[Reply]) -> None:
        """Queue replies; each chat/completions request takes the next (then the default reply)."""
        self._queue.extend(replies)

    def reset(self, *, api_key: str | None = None, allow_origin: str | None = "*") -> None:
        """Forget scripted replies and recorded traffic; set the accepted key and the CORS origin."""
        for kept in (self._queue, self.requests, self.issued_reasoning):
            kept.clear()
        self.key_info = dict(KEY_INFO)
        self.api_key = api_key
        self.allow_origin = allow_origin
        self.streams_completed, self.streams_aborted, self.llamacpp.n_ctx = 0, 0, N_CTX

    def requests_to(self, path: str, method: str | None = None) -> list[RecordedRequest]:
        return [r for r in list(self.requests) if r.path == path and (method is None or r.method == method)]

    def images_received(self, path: str) -> list[list[ReceivedImage]]:  # per chat request, decoded
        return [received(r.json()) for r in self.requests_to(path, "POST")]

    def valid_keys(self) -> set[str]:
        return {k for k in [self.api_key, *self.issued_keys] if k}

    # --- lifecycle ----------------------------------------------------------------------------

    def make_app(self) -> web.Application:
        app = web.Application(middlewares=[self._record, self._cors], client_max_size=MAX_BODY_BYTES)
        r = app.router
        r.add_get("/api/v1/models", self._openrouter_models)
        r.add_post("/api/v1/chat/completions", self._chat("openrouter"))
        r.add_get("/api/v1/key", self._key_info)
        r.add_post("/api/v1/auth/keys", self._auth_keys)
        r.add_get("/auth", self._auth_page)
        r.add_get("/api/tags", self._ollama_tags)
        r.add_post("/api/show", self._ollama_show)
        r.add_get("/api/version", self._ollama_version)
        r.add_get("/v1/models", self._ollama_models)
        r.add_post("/v1/chat/completions", self._chat("ollama"))
        r.add_post("/api/chat", self._ollama_chat)
        r.add_get("/bench/bytes", self._bench_bytes)
        self.llamacpp.add_routes(r)
        r.add_route("OPTIONS", "/{tail:.*}", self._preflight)
        return app

    async def start(self, host: str = "127.0.0.1", port: int = 0) -> str:
        self._runner = web.AppRunner(self.make_app(), access_log=None, shutdown_timeout=0.5)
        await self._runner.setup()
        site = web.TCPSite(self._runner, host, port)
        await site.start()
        self.base_url = f"http://{host}:{self._runner.addresses[0][1]}"
        return self.base_url

    async def stop(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    @contextlib.contextmanager
    def running_in_thread(self, timeout_s: float = 10.0) -> Iterator[str]:
        """Serve from a background thread with its own event loop (for synchronous tests)."""
        loop = asyncio.new_event_loop()
        started = threading.Event()

        def run() -> None:
            asyncio.set_event_loop(loop)
            loop.run_until_complete(self.start())
            started.set()
            loop.run_forever()
            loop.run_until_complete(self.stop())
            loop.close()

        thread = threading.Thread(target=run, name="fake-llm", daemon=True)
        thread.start()
        if not started.wait(timeout_s):
            raise TimeoutError("the fake LLM server did not start")
        try:
            yield self.base_url
        finally:
            loop.call_soon_threadsafe(loop.stop)
            thread.join(timeout_s)

    # --- middlewares --------------------------------------------------------------------------

    @web.middleware
    async def _record(self, request: web.Request, handler: Handler) -> web.StreamResponse:
        body = await request.read()
        self.requests.append(RecordedRequest(request.method, request.path, dict(request.query),
                                             dict(request.headers), body))
        return await handler(request)

    @web.middleware
    async def _cors(self, request: web.Request, handler: Handler) -> web.StreamResponse:
        origin = request.headers.get("Origin")
        if origin and self.allow_origin not in ("*", origin):  # Ollama: 403 and no CORS headers at all
            return web.Response(status=403, text="origin not allowed")
        response = await handler(request)
        if origin and self.allow_origin is not None and not response.prepared:
            self._add_cors(response, origin)
        return response

    def _add_cors(self, response: web.StreamResponse, origin: str) -> None:
        response.headers["Access-Control-Allow-Origin"] = "*" if self.allow_origin == "*" else self.allow_origin or ""
        response.headers["Access-Control-Expose-Headers"] = "Retry-After, Content-Type"
        response.headers["Vary"] = "Origin"

    async def _preflight(self, request: web.Request) -> web.StreamResponse:
        asked = request.headers.get("Access-Control-Request-Headers", "authorization, content-type")
        return web.Response(status=204, headers={
            "Access-Control-Allow-Methods": "GET, POST, OPTIONS",
            "Access-Control-Allow-Headers": asked,
            "Access-Control-Max-Age": "600",
        })

    # --- OpenRouter ---------------------------------------------------------------------------

    def _authorized(self, request: web.Request) -> bool:
        if self.api_key is None and not self.issued_keys:
            return True
        header = request.headers.get("Authorization", "")
        return header.startswith("Bearer ") and header[len("Bearer "):] in self.valid_keys()

    async def _openrouter_models(self, request: web.Request) -> web.StreamResponse:
        return web.json_response({"data": OPENROUTER_MODELS})

    async def _key_info(self, request: web.Request) -> web.StreamResponse:
        if not self._authorized(request):
            return web.json_response(error_body(Reply.error(401)), status=401)
        return web.json_response({"data": self.key_info})

    async def _auth_page(self, request: web.Request) -> web.StreamResponse:
        callback = request.query.get("callback_url")
        if not callback:
            return web.Response(status=400, text="callback_url is required")
        code = f"code-{secrets.token_hex(8)}"
        self._codes[code] = request.query.get("code_challenge", "")
        raise web.HTTPFound(str(URL(callback).update_query(code=code)))

    async def _auth_keys(self, request: web.Request) -> web.StreamResponse:
        body = await request.json()
        challenge = self._codes.pop(str(body.get("code")), None)
        verifier = str(body.get("code_verifier") or "")
        digest = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
        if challenge is None or (challenge and digest != challenge):
            return web.json_response({"error": {"code": 403, "message": "Invalid code or code_verifier"}}, status=403)
        key = f"sk-or-v1-oauth-{secrets.token_hex(16)}"
        self.issued_keys.append(key)
        return web.json_response({"key": key, "user_id": "user_fake_1"})

    # --- chat/completions (both flavours) -----------------------------------------------------

    def _chat(self, flavor: Flavor) -> Handler:
        async def handler(request: web.Request) -> web.StreamResponse:
            if flavor == "openrouter" and not self._authorized(request):
                return web.json_response(error_body(Reply.error(401)), status=401)
            payload = await request.json()
            if (invalid := invalid_arguments_refusal(payload)) is not None:  # llama.cpp's 500, every wire
                return web.json_response(invalid[1], status=invalid[0])
            unsigned = unsigned_call(payload, self.issued_reasoning)
            refusal = (400, unsigned) if unsigned is not None else openrouter_refusal(payload, flavor == "openrouter")
            if refusal is not None:
                return web.json_response(error_body(Reply.error(*refusal)), status=refusal[0])
            reply = self._queue.popleft() if self._queue else self.default_reply
            if reply.kind == "http_error":
                headers = {"Retry-After": str(reply.retry_after)} if reply.retry_after is not None else {}
                return web.json_response(error_body(reply), status=reply.status, headers=headers)
            self._generation += 1
            maker = ChunkMaker(flavor, str(payload.get("model", "unknown")), self._generation)
            if reply.reasoning and reply.tool_calls:
                for call in reply.tool_calls:
                    self.issued_reasoning[call.call_id] = reasoning_details(reply, maker.id)
            usage = usage_for(reply, flavor, len(json.dumps(payload.get("messages", []))))
            if not payload.get("stream"):
                return web.json_response(completion_json(reply, maker, usage))
            wants_usage = flavor == "openrouter" or bool((payload.get("stream_options") or {}).get("include_usage"))
            return await self._stream(request, reply, maker, usage if wants_usage else None)

        return handler

    async def _stream(self, request: web.Request, reply: Reply, maker: ChunkMaker,
                      usage: dict[str, Any] | None) -> web.StreamResponse:
        response = web.StreamResponse(headers={"Content-Type": "text/event-stream", "Cache-Control": "no-cache",
                                               "X-Accel-Buffering": "no"})
        origin = request.headers.get("Origin")
        if origin and self.allow_origin is not None:
            self._add_cors(response, origin)
        await response.prepare(request)
        try:
            if maker.flavor == "openrouter":
                await response.write(b": OPENROUTER PROCESSING\n\n")
                await response.write(b": OPENROUTER PROCESSING\n\n")
            for chunk in stream_chunks(reply, maker, usage):
                await write_split(response, f"data: {json.dumps(chunk)}\n\n".encode())
                delta = chunk["choices"][0]["delta"] if chunk["choices"] else {}
                if reply.delay_s and (delta.get("content") or delta.get("reasoning")):
                    await asyncio.sleep(reply.delay_s)
            if reply.kind == "drop" and request.transport is not None:  # the server went away mid-reply
                await asyncio.sleep(DROP_AFTER_S)  # what was written reaches the client first
                request.transport.abort()
                return response
            if reply.kind not in ("stream_error", "empty_stream"):
                await write_split(response, b"data: [DONE]\n\n")
            await response.write_eof()
        except (ConnectionResetError, ConnectionError):
            self.streams_aborted += 1
            log.info("client closed the stream %s", maker.id)
            return response
        self.streams_completed += 1
        return response

    async def _bench_bytes(self, request: web.Request) -> web.StreamResponse:
        size = min(int(request.query.get("n", "1048576")), 256 * 1024 * 1024)
        response = web.StreamResponse(headers={"Content-Type": "application/octet-stream",
                                               "Content-Length": str(size)})
        origin = request.headers.get("Origin")
        if origin and self.allow_origin is not None:
            self._add_cors(response, origin)
        await response.prepare(request)
        block = b"x" * 65536
        for start in range(0, size, len(block)):
            await response.write(block[: size - start])
        await response.write_eof()
        return response


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Fake OpenRouter + Ollama server for manual runs and benchmarks")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8011)
    parser.add_argument("--api-key", default=None, help="require this key (default: accept any)")
    parser.add_argument("--allow-origin", default="*", help="CORS origin to allow ('none' refuses all)")
    parser.add_argument("--reply", default="Hello from the fake model. This is **markdown**.")
    parser.add_argument("--delay-ms", type=float, default=0.0, help="pause between text chunks")
    args = parser.parse_args(argv)
    fake = FakeLLM(api_key=args.api_key, allow_origin=None if args.allow_origin == "none" else args.allow_origin,
                   default_reply=Reply.text(args.reply, delay_s=args.delay_ms / 1000))

    async def serve() -> None:
        base = await fake.start(args.host, args.port)
        print(f"fake LLM at {base}  (OpenRouter base URL {base}/api/v1, Ollama base URL {base})", flush=True)
        try:
            await asyncio.Event().wait()
        finally:
            await fake.stop()

    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(serve())


if __name__ == "__main__":
    main()

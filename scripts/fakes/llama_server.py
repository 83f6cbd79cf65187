"""The fake's OpenAI-compatible server mode, shaped like llama.cpp's llama-server (b6xxx) answers.

Under ``/llamacpp`` (base URL ``{fake}/llamacpp/v1``): ``GET /v1/models`` lists one GGUF model with
``owned_by: "llamacpp"`` and its ``meta`` (``n_ctx`` the window in use, ``n_ctx_train`` the model's
maximum), ``GET /props`` says ``default_generation_settings.n_ctx``, there is no ``/key``, and
``POST /v1/chat/completions`` streams plain OpenAI chunks (the fake's scripted replies). A prompt
over the window is refused with llama-server's own 400 body, which names ``n_ctx``.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Any

from aiohttp import web

from .llamacpp import overflow_body

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]

PREFIX = "/llamacpp"
MODEL = "qwen2.5-0.5b-instruct-q4_k_m.gguf"
N_CTX = 8192  # what `llama-server -c 8192` runs with
N_CTX_TRAIN = 32768
CHARS_PER_TOKEN = 4


def models(n_ctx: int) -> dict[str, Any]:
    meta = {"vocab_type": 2, "n_vocab": 151936, "n_ctx": n_ctx, "n_ctx_train": N_CTX_TRAIN, "n_embd": 896,
            "n_params": 630167424, "size": 491400032}
    return {"models": [{"name": MODEL, "model": MODEL, "type": "model", "capabilities": ["completion"]}],
            "object": "list",
            "data": [{"id": MODEL, "object": "model", "created": 1767225600, "owned_by": "llamacpp", "meta": meta}]}


def props(n_ctx: int) -> dict[str, Any]:
    return {"default_generation_settings": {"n_ctx": n_ctx, "params": {"n_predict": -1, "temperature": 0.8}},
            "total_slots": 1, "model_path": f"/models/{MODEL}", "modalities": {"vision": False, "audio": False},
            "chat_template": "{% for message in messages %}…{% endfor %}", "build_info": "b6500-fake"}


class LlamaServerMode:
    """The routes of the mode; ``n_ctx`` may be changed by a test (what the server was started with)."""

    def __init__(self, chat: Handler) -> None:
        self._chat = chat
        self.n_ctx = N_CTX

    def add_routes(self, router: web.UrlDispatcher) -> None:
        router.add_get(f"{PREFIX}/v1/models", self._models)
        router.add_get(f"{PREFIX}/props", self._props)
        router.add_post(f"{PREFIX}/v1/chat/completions", self._completions)

    async def _models(self, request: web.Request) -> web.StreamResponse:
        return web.json_response(models(self.n_ctx))

    async def _props(self, request: web.Request) -> web.StreamResponse:
        return web.json_response(props(self.n_ctx))

    async def _completions(self, request: web.Request) -> web.StreamResponse:
        payload = await request.json()
        prompt = len(json.dumps([payload.get("messages"), payload.get("tools")])) // CHARS_PER_TOKEN
        if prompt > self.n_ctx:
            return web.json_response(overflow_body(prompt, self.n_ctx), status=400)
        return await self._chat(request)

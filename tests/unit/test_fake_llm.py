"""The fake provider speaks the real wire formats: what the runtime and the app are tested against."""

from __future__ import annotations

import base64
import hashlib
import json
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import pytest

from scripts.fakes.fake_llm import FakeLLM
from scripts.fakes.replies import Reply, ToolCall

KEY = "sk-or-v1-fake-test-key"


@pytest.fixture
async def fake() -> AsyncIterator[FakeLLM]:
    llm = FakeLLM(api_key=KEY)
    await llm.start()
    yield llm
    await llm.stop()


@pytest.fixture
async def http() -> AsyncIterator[aiohttp.ClientSession]:
    async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=10)) as session:
        yield session


async def stream(http: aiohttp.ClientSession, url: str, **body: Any) -> tuple[list[bytes], list[str]]:
    """POST a streaming chat request; the raw reads as they arrived, and the `data:` payloads."""
    payload = {"model": "m", "stream": True, "messages": [{"role": "user", "content": "hi"}], **body}
    async with http.post(url, json=payload, headers={"Authorization": f"Bearer {KEY}"}) as resp:
        assert resp.status == 200
        assert resp.headers["Content-Type"] == "text/event-stream"
        reads = [chunk async for chunk in resp.content.iter_any()]
    text = b"".join(reads).decode()
    data = [line[len("data: "):] for line in text.split("\n") if line.startswith("data: ")]
    return reads, data


async def test_openrouter_text_stream(fake: FakeLLM, http: aiohttp.ClientSession) -> None:
    fake.script([Reply.text("Hello **world**")])
    reads, data = await stream(http, f"{fake.base_url}/api/v1/chat/completions")
    assert reads[0].startswith(b": OPENROUTER PROCESSING")
    assert any(not r.endswith(b"\n\n") for r in reads), "events should be cut across writes"
    assert data[-1] == "[DONE]"
    chunks = [json.loads(d) for d in data[:-1]]
    text = "".join(c["choices"][0]["delta"].get("content") or "" for c in chunks if c["choices"])
    assert text == "Hello **world**"
    assert chunks[-1]["usage"]["cost"] > 0
    assert chunks[-2]["choices"][0]["finish_reason"] == "stop"


async def test_tool_call_fragments_join(fake: FakeLLM, http: aiohttp.ClientSession) -> None:
    calls = (ToolCall("read_file", {"path": "notes/a.md"}, "call_a"), ToolCall("list_files", {"path": "."}, "call_b"))
    fake.script([Reply.tool_calls_reply(*calls)])
    _, data = await stream(http, f"{fake.base_url}/api/v1/chat/completions")
    args: dict[int, str] = {}
    names: dict[int, str] = {}
    for chunk in (json.loads(d) for d in data[:-1]):
        for call in (chunk["choices"][0]["delta"].get("tool_calls") or []) if chunk["choices"] else []:
            names.setdefault(call["index"], call["function"].get("name", ""))
            args[call["index"]] = args.get(call["index"], "") + call["function"]["arguments"]
    assert names == {0: "read_file", 1: "list_files"}
    assert {i: json.loads(a) for i, a in args.items()} == {0: {"path": "notes/a.md"}, 1: {"path": "."}}


async def test_error_event_mid_stream(fake: FakeLLM, http: aiohttp.ClientSession) -> None:
    fake.script([Reply.stream_error("Provider disconnected unexpectedly")])
    _, data = await stream(http, f"{fake.base_url}/api/v1/chat/completions")
    last = json.loads(data[-1])
    assert last["error"]["message"] == "Provider disconnected unexpectedly"
    assert last["choices"][0]["finish_reason"] == "error"


ERRORS = [
    pytest.param(Reply.error(402), 402, "credits", None, id="402"),
    pytest.param(Reply.error(429, retry_after=7), 429, "Rate limit", "7", id="429-retry-after"),
    pytest.param(Reply.error(500), 500, "Internal", None, id="500"),
]


@pytest.mark.parametrize(("reply", "status", "words", "retry_after"), ERRORS)
async def test_scripted_http_errors(fake: FakeLLM, http: aiohttp.ClientSession, reply: Reply, status: int,
                                    words: str, retry_after: str | None) -> None:
    fake.script([reply])
    async with http.post(f"{fake.base_url}/api/v1/chat/completions", json={"model": "m", "stream": True},
                         headers={"Authorization": f"Bearer {KEY}"}) as resp:
        body = await resp.json()
    assert resp.status == status
    assert body["error"]["code"] == status and words in body["error"]["message"]
    assert resp.headers.get("Retry-After") == retry_after


async def test_wrong_key_is_401_and_recorded(fake: FakeLLM, http: aiohttp.ClientSession) -> None:
    async with http.post(f"{fake.base_url}/api/v1/chat/completions", json={"model": "m"},
                         headers={"Authorization": "Bearer nope"}) as resp:
        assert resp.status == 401
    (seen,) = fake.requests_to("/api/v1/chat/completions", "POST")
    assert seen.headers["Authorization"] == "Bearer nope"


@pytest.mark.parametrize(("allow", "status", "acao"), [
    pytest.param("*", 204, "*", id="allowed"),
    pytest.param(None, 403, None, id="refused-like-ollama"),
])
async def test_cors_preflight(fake: FakeLLM, http: aiohttp.ClientSession, allow: str | None, status: int,
                              acao: str | None) -> None:
    fake.allow_origin = allow
    headers = {"Origin": "http://127.0.0.1:8000", "Access-Control-Request-Method": "POST",
               "Access-Control-Request-Headers": "content-type"}
    async with http.options(f"{fake.base_url}/v1/chat/completions", headers=headers) as resp:
        assert resp.status == status
        assert resp.headers.get("Access-Control-Allow-Origin") == acao


async def test_ollama_tags_and_show(fake: FakeLLM, http: aiohttp.ClientSession) -> None:
    async with http.get(f"{fake.base_url}/api/tags") as resp:
        names = [m["name"] for m in (await resp.json())["models"]]
    async with http.post(f"{fake.base_url}/api/show", json={"model": names[0]}) as resp:
        shown = await resp.json()
    assert names == ["llama3.2:3b", "qwen3:8b", "llava:7b"]
    assert shown["model_info"]["llama.context_length"] == 131072
    assert "tools" in shown["capabilities"]


@pytest.mark.parametrize(("tamper", "status"), [pytest.param(False, 200, id="right-verifier"),
                                                 pytest.param(True, 403, id="wrong-verifier")])
async def test_oauth_pkce(fake: FakeLLM, http: aiohttp.ClientSession, tamper: bool, status: int) -> None:
    verifier = "v" * 43
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
    query = {"callback_url": "http://127.0.0.1:8000/", "code_challenge": challenge, "code_challenge_method": "S256"}
    async with http.get(f"{fake.base_url}/auth", params=query, allow_redirects=False) as resp:
        location = resp.headers["Location"]
    assert resp.status == 302 and location.startswith("http://127.0.0.1:8000/?code=")
    code = location.split("code=", 1)[1]
    body = {"code": code, "code_verifier": verifier + ("x" if tamper else ""), "code_challenge_method": "S256"}
    async with http.post(f"{fake.base_url}/api/v1/auth/keys", json=body) as resp:
        assert resp.status == status
        answer = await resp.json()
    assert (answer.get("key") in fake.issued_keys) == (not tamper)


async def test_a_reasoning_model_refuses_a_tool_round_sent_back_without_its_reasoning_details(
    fake: FakeLLM, http: aiohttp.ClientSession
) -> None:
    fake.script([Reply.tool_call("read_file", {"path": "a.md"}, call_id="call_g1").with_reasoning("Read a.md first.")])
    url = f"{fake.base_url}/api/v1/chat/completions"
    _, data = await stream(http, url)
    chunks = [json.loads(d) for d in data[:-1]]
    deltas = [c["choices"][0]["delta"] for c in chunks if c["choices"]]
    assert "".join(d.get("reasoning") or "" for d in deltas) == "Read a.md first."
    pieces = [p for d in deltas for p in d.get("reasoning_details") or []]
    assert {p["index"] for p in pieces} == {0, 1} and len(pieces) > 3  # blocks arrive in pieces
    issued = fake.issued_reasoning["call_g1"]
    call = {"id": "call_g1", "type": "function", "function": {"name": "read_file", "arguments": '{"path": "a.md"}'}}
    tool = {"role": "tool", "tool_call_id": "call_g1", "content": "hello"}
    headers = {"Authorization": f"Bearer {KEY}"}
    for sent, status in [(None, 400), ([{**issued[0], "text": "edited"}, issued[1]], 400), (issued, 200)]:
        assistant: dict[str, Any] = {"role": "assistant", "content": None, "tool_calls": [call]}
        if sent is not None:
            assistant["reasoning_details"] = sent
        messages = [{"role": "user", "content": "hi"}, assistant, tool]
        payload = {"model": "google/gemini-3-pro-preview", "stream": True, "messages": messages}
        async with http.post(url, json=payload, headers=headers) as resp:
            assert resp.status == status
            if status == 400:
                assert "missing a thought_signature" in (await resp.json())["error"]["message"]
            else:
                await resp.read()


# --- images: as strict as the real providers ----------------------------------------------------

PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 16


def _with_image(url: str, model: str) -> dict[str, Any]:
    content = [{"type": "text", "text": "What is this?"}, {"type": "image_url", "image_url": {"url": url}}]
    return {"model": model, "stream": True, "messages": [{"role": "user", "content": content}]}


@pytest.mark.parametrize(
    ("model", "url", "status", "says"),
    [
        pytest.param("meta-llama/llama-3.2-3b-instruct:free", "data:image/png;base64," + base64.b64encode(PNG).decode(),
                     404, "No endpoints found that support image input", id="no-vision"),
        pytest.param("openai/gpt-4o-mini", "data:image/png;base64,!!!", 400, "Invalid image_url", id="bad-base64"),
        pytest.param("openai/gpt-4o-mini", "data:image/svg+xml;base64,PHN2Zz4=", 400, "Invalid image_url", id="svg"),
        pytest.param("openai/gpt-4o-mini", "data:image/png;base64," + base64.b64encode(b"GIF89a").decode(), 400,
                     "Invalid image_url", id="bytes-not-that-type"),
    ],
)
async def test_openrouter_refuses_images_it_would_refuse(
    fake: FakeLLM, http: aiohttp.ClientSession, model: str, url: str, status: int, says: str
) -> None:
    async with http.post(f"{fake.base_url}/api/v1/chat/completions", json=_with_image(url, model),
                         headers={"Authorization": f"Bearer {KEY}"}) as resp:
        assert resp.status == status
        assert says in (await resp.json())["error"]["message"]


async def test_openrouter_takes_an_image_for_a_vision_model_and_shows_what_came(
    fake: FakeLLM, http: aiohttp.ClientSession
) -> None:
    url = "data:image/png;base64," + base64.b64encode(PNG).decode()
    async with http.post(f"{fake.base_url}/api/v1/chat/completions", json=_with_image(url, "openai/gpt-4o-mini"),
                         headers={"Authorization": f"Bearer {KEY}"}) as resp:
        assert resp.status == 200
        await resp.read()
    [images] = fake.images_received("/api/v1/chat/completions")
    assert [(i.media_type, i.data) for i in images] == [("image/png", PNG)]


@pytest.mark.parametrize(
    ("model", "image", "status", "says"),
    [
        pytest.param("llama3.2:3b", base64.b64encode(PNG).decode(), 500, "missing data required for image input",
                     id="no-vision"),
        pytest.param("llava:7b", "data:image/png;base64,AAAA", 400, "illegal base64 data at input byte 4",
                     id="data-url-prefix"),
    ],
)
async def test_ollama_refuses_images_it_would_refuse(
    fake: FakeLLM, http: aiohttp.ClientSession, model: str, image: str, status: int, says: str
) -> None:
    body = {"model": model, "messages": [{"role": "user", "content": "hi", "images": [image]}]}
    async with http.post(f"{fake.base_url}/api/chat", json=body) as resp:
        assert resp.status == status
        assert says in (await resp.json())["error"]


async def test_ollama_takes_bare_base64_for_a_vision_model(fake: FakeLLM, http: aiohttp.ClientSession) -> None:
    body = {"model": "llava:7b", "messages": [{"role": "user", "content": "hi",
                                                "images": [base64.b64encode(PNG).decode()]}]}
    async with http.post(f"{fake.base_url}/api/chat", json=body) as resp:
        assert resp.status == 200
        await resp.read()
    assert [i.data for i in fake.images_received("/api/chat")[0]] == [PNG]


# --- the context window: as strict as OpenRouter ------------------------------------------------

def _long_request(model: str, chars: int) -> dict[str, Any]:
    return {"model": model, "stream": True, "messages": [{"role": "user", "content": "x" * chars}]}


async def test_openrouter_refuses_a_prompt_over_the_models_context_length(
    fake: FakeLLM, http: aiohttp.ClientSession
) -> None:
    body = _long_request("openai/gpt-4o-mini", 8 * 1024 * 1024)  # ~2.1M tokens against 128,000
    async with http.post(f"{fake.base_url}/api/v1/chat/completions", json=body,
                         headers={"Authorization": f"Bearer {KEY}"}) as resp:
        assert resp.status == 400
        error = (await resp.json())["error"]
    assert error["code"] == 400
    assert error["message"].startswith("This endpoint's maximum context length is 128000 tokens. However, you "
                                       "requested about 2097")
    assert "of text input). Please reduce the length of either one" in error["message"]
    assert len(fake.requests_to("/api/v1/chat/completions")[0].body) > 8 * 1024 * 1024  # read whole, not a 413


@pytest.mark.parametrize(
    ("path", "model", "chars"),
    [
        pytest.param("/api/v1/chat/completions", "openai/gpt-4o-mini", 4 * 120_000, id="openrouter-under-the-window"),
        pytest.param("/v1/chat/completions", "llama3.2:3b", 4 * 1024 * 1024, id="ollama-truncates-instead"),
    ],
)
async def test_a_prompt_the_provider_takes_is_answered(
    fake: FakeLLM, http: aiohttp.ClientSession, path: str, model: str, chars: int
) -> None:
    async with http.post(f"{fake.base_url}{path}", json=_long_request(model, chars),
                         headers={"Authorization": f"Bearer {KEY}"}) as resp:
        assert resp.status == 200
        await resp.read()


def test_images_count_at_a_flat_cost_not_their_bytes() -> None:
    from scripts.fakes.strict import IMAGE_TOKENS, prompt_tokens

    url = "data:image/png;base64," + base64.b64encode(PNG * 100_000).decode()
    payload = _with_image(url, "openai/gpt-4o-mini")
    assert IMAGE_TOKENS <= prompt_tokens(payload) < IMAGE_TOKENS + 100


async def test_llama_server_mode_answers_like_llama_server(fake: FakeLLM, http: aiohttp.ClientSession) -> None:
    base = f"{fake.base_url}/llamacpp"
    async with http.get(f"{base}/v1/models") as resp:
        (model,) = (await resp.json())["data"]
    assert (model["owned_by"], model["meta"]["n_ctx"], model["meta"]["n_ctx_train"]) == ("llamacpp", 8192, 32768)
    async with http.get(f"{base}/props") as resp:
        assert (await resp.json())["default_generation_settings"]["n_ctx"] == 8192
    async with http.get(f"{base}/v1/key") as resp:
        assert resp.status in (404, 405)  # no key endpoint (the fake answers OPTIONS on every path)
    fake.script([Reply.text("Paris.")])
    _, data = await stream(http, f"{base}/v1/chat/completions")
    chunks = [json.loads(d) for d in data[:-1]]
    text = "".join(c["choices"][0]["delta"].get("content") or "" for c in chunks if c["choices"])
    assert (data[-1], text) == ("[DONE]", "Paris.")
    fake.llamacpp.n_ctx = 16
    long = {"messages": [{"role": "user", "content": "x" * 100}]}
    async with http.post(f"{base}/v1/chat/completions", json=long) as resp:
        body = await resp.json()
    assert resp.status == 400 and body["error"]["type"] == "exceed_context_size_error" and body["error"]["n_ctx"] == 16

"""The runtime against the scripted OpenAI-compatible server (scripts/fakes) on 127.0.0.1, through an
adapter that performs the runtime's HTTP frames for real."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pytest

from runtime.boot import BootConfig, boot
from scripts.fakes.fake_llm import FakeLLM
from scripts.fakes.replies import Reply
from scripts.fakes.strict import prompt_tokens
from tests.support.gates import AllowReadsGate
from tests.support.loopback_host import LoopbackAdapter
from tests.support.rigs import Driver

KEY = "sk-or-v1-test-loopback-key"  # a made-up key, shaped like a real one only in its prefix


@dataclass
class Rig(Driver):
    fake: FakeLLM
    host: LoopbackAdapter
    flavor: str

    def text(self, turn_id: str) -> str:
        return "".join(e["text"] for e in self.host.events("text_delta") if e["turn_id"] == turn_id)


@pytest.fixture(params=["openrouter", "ollama"])
async def rig(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Rig]:
    flavor = request.param
    fake = FakeLLM(api_key=KEY if flavor == "openrouter" else None)
    base = await fake.start()
    provider_base = f"{base}/api/v1" if flavor == "openrouter" else base
    host = LoopbackAdapter(provider_base, KEY if flavor == "openrouter" else None)
    (tmp_path / "notes.md").write_text("remember the milk\n")
    conversation = boot(BootConfig(workspace=tmp_path, gate=lambda mode: AllowReadsGate()), host.transport)
    task = asyncio.get_running_loop().create_task(conversation.run())
    host.send({"type": "hello", "protocol": 1})
    host.send(
        {
            "type": "config",
            "provider": {"kind": flavor, "base_url": provider_base, "has_key": True},
            "model": "openai/gpt-4o-mini" if flavor == "openrouter" else "llama3.2:3b",
        }
    )
    await host.wait_for(lambda: host.events("ready"))
    yield Rig(fake, host, flavor)
    await host.close()
    await asyncio.wait_for(task, 5)
    await fake.stop()


async def test_models(rig: Rig) -> None:
    rig.host.send({"type": "request", "id": "h1", "method": "list_models"})
    reply = await rig.host.wait_for(lambda: next((m for m in rig.host.received if m["type"] == "reply"), None))
    assert reply["ok"], reply
    models = reply["result"]["models"]
    assert models and all(m["id"] and m["name"] for m in models)
    assert any(m["tools"] for m in models) and any(m["context_length"] for m in models)


async def test_text_and_a_tool_call(rig: Rig) -> None:
    rig.fake.script([Reply.tool_call("read_file", {"path": "notes.md"}), Reply.text("You wrote: remember the milk.")])
    assert (await rig.turn("what did I note?", "t1"))["reason"] == "stop"
    (tool,) = rig.host.events("tool_finished")
    assert tool["ok"] and "remember the milk" in tool["result"]
    assert rig.text("t1") == "You wrote: remember the milk."
    assert rig.host.events("usage")
    chats = [r for r in rig.fake.requests if r.path.endswith(("/chat/completions", "/api/chat"))]
    assert len(chats) == 2 and chats[1].json()["messages"][-1]["role"] == "tool"
    auth = chats[0].headers.get("Authorization")
    assert auth == (f"Bearer {KEY}" if rig.flavor == "openrouter" else None)


@pytest.mark.parametrize(
    ("reply", "code", "phrase"),
    [
        pytest.param(Reply.error(402), "credits", "{credits advice}", id="402"),
        pytest.param(Reply.error(400, "model not found"), "bad_request", "model not found", id="400"),
        pytest.param(
            Reply.stream_error("Provider disconnected"),
            "provider_error",
            "Provider disconnected",
            id="error mid-stream",
        ),
    ],
)
async def test_errors_reach_the_person(rig: Rig, reply: Reply, code: str, phrase: str) -> None:
    rig.fake.script([reply])
    assert (await rig.turn("hi", "t1"))["reason"] == "error"
    (error,) = rig.host.events("error")
    if phrase == "{credits advice}":  # advice for the provider that answered: only OpenRouter sells credits
        phrase = "openrouter.ai/settings/credits" if rig.flavor == "openrouter" else "Ollama itself does not charge"
    assert error["code"] == code and phrase in error["message"]


async def test_abort_stops_the_stream_at_the_server(rig: Rig) -> None:
    rig.fake.script([Reply.slow("tick " * 400, delay_s=0.02)])
    rig.host.send({"type": "user_message", "text": "count", "turn_id": "t1"})
    await rig.host.wait_for(lambda: len(rig.host.events("text_delta")) >= 3)
    rig.host.send({"type": "abort_turn"})
    assert (await rig.finished("t1"))["reason"] == "aborted"
    for _ in range(100):  # the server notices the closed connection at its next write
        if rig.fake.streams_aborted:
            break
        await asyncio.sleep(0.05)
    assert rig.fake.streams_aborted == 1
    assert rig.fake.streams_completed == 0
    assert rig.text("t1").startswith("tick tick")


# --- a conversation bigger than the model's context window -------------------------------------

HUGE = "START " + "all work and no play " * 200_000 + " END"  # 4.2 MB: ~1M tokens, ~8 × the window
MARKER = "characters cut here to fit the model's context window; the full text stays in the session"


def _chats(rig: Rig) -> list[dict[str, Any]]:
    return [r.json() for r in rig.fake.requests if r.path.endswith(("/chat/completions", "/api/chat"))]


async def test_a_reply_far_over_the_window_is_cut_in_what_the_model_reads_and_kept_whole(rig: Rig) -> None:
    window = next(m for m in (await rig.result("list_models"))["models"] if m["id"] == _model(rig))["context_length"]
    huge = replace(Reply.tool_call("read_file", {"path": "notes.md"}, text=HUGE), chunk_chars=65_536)
    rig.fake.script([huge, Reply.text("Read it."), Reply.text("SUMMARY: a long text was written."),
                     Reply.text("Short answer.")])
    assert (await rig.turn("write a lot, then read my notes", "t1"))["reason"] == "stop"
    assert (await rig.turn("and now?", "t2"))["reason"] == "stop"  # the next message goes through too
    _, after_tool, summary, last = _chats(rig)
    for request in (after_tool, summary, last):  # each fits the window the provider checks
        assert prompt_tokens(request) <= window
    sent_reply = next(m for m in after_tool["messages"] if m["role"] == "assistant")
    assert MARKER in sent_reply["content"]
    assert sent_reply["content"].startswith("START ") and sent_reply["content"].endswith(" END")
    assert "START " not in json.dumps(last["messages"])  # the earlier turn is summarized now
    codes = [e["code"] for e in rig.host.events("notice")]
    assert codes.count("trimmed") == 1 and codes.count("compacted") == 1
    view = await rig.result("session_current")
    assert HUGE in [m["text"] for m in view["messages"] if m["role"] == "assistant"]  # the store keeps it whole


@pytest.mark.parametrize("rig", ["openrouter"], indirect=True)  # Ollama truncates an over-long prompt instead
async def test_a_window_bigger_than_the_models_meets_the_providers_refusal_with_advice(rig: Rig) -> None:
    rig.host.send({"type": "config", "context_length": 10_000_000})  # the setting is wrong: the model has 128,000
    rig.fake.script([replace(Reply.text(HUGE), chunk_chars=65_536)])
    await rig.turn("write a lot", "t1")
    assert (await rig.turn("and now?", "t2"))["reason"] == "error"
    (error,) = rig.host.events("error")
    assert "maximum context length is 128000 tokens" in error["message"]
    assert "start a new chat, or choose a model with a larger context window" in error["message"]
    assert not error["retryable"] and len(_chats(rig)) == 2  # refused once, not retried


def _model(rig: Rig) -> str:
    return "openai/gpt-4o-mini" if rig.flavor == "openrouter" else "llama3.2:3b"

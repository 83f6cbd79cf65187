"""The request that leaves at Send (``runtime.host.presend``), through a real session over frames with the real
provider clients: the runtime offers the request a plain message would send; the host sends it at Send with
the text put in; the turn reads that answer when its own request is the same byte for byte, and cancels it and
sends its own otherwise. A host that never says ``presend`` is never offered anything."""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from runtime.conversation import turns as turns_module
from tests.support.framehost import HttpReply
from tests.support.recording import Message
from tests.support.rigs import StateRig

BASE = "https://openrouter.ai/api/v1"
PROVIDERS = {  # kind: its base URL
    "openrouter": BASE,
    "ollama": "http://localhost:11434",
    "openai-compatible": "http://127.0.0.1:8080/v1",
}


def _sse(text: str) -> bytes:
    chunks = [{"choices": [{"delta": {"content": text}}]}, {"choices": [{"delta": {}, "finish_reason": "stop"}]}]
    return b"".join(b"data: " + json.dumps(c).encode() + b"\n\n" for c in chunks) + b"data: [DONE]\n\n"


def _answer(request: Message) -> HttpReply:
    """Ollama's own chat answers NDJSON; the others, OpenAI's SSE."""
    if request.get("url", "").endswith("/api/chat"):
        lines = [{"message": {"role": "assistant", "content": "Sure."}, "done": False}, {"done": True}]
        body = tuple(json.dumps(x).encode() + b"\n" for x in lines)
        return HttpReply(200, {"content-type": "application/x-ndjson"}, body)
    return HttpReply.sse(_sse("Sure."))


@dataclass
class Rig(StateRig):
    """A session on a real provider client (``presend_rig``), in a workspace with one note."""

    async def start(self, *, configure: bool = True, session_id: str | None = None) -> Rig:
        self.workspace.mkdir(parents=True, exist_ok=True)
        (self.workspace / "notes.md").write_text("hello")
        await super().start(configure=configure, session_id=session_id)
        return self

    def offers(self) -> list[Any]:
        return [m["offer"] for m in self.host.received if m["type"] == "http_offer"]

    async def offer(self, after: int = 0) -> dict[str, Any]:
        """The offer out once the runtime is idle (the last one said after ``after`` offers)."""

        def current() -> Any:
            offers = self.offers()
            return offers[-1] if len(offers) > after and offers[-1] is not None else None

        return await self.host.wait_for(current)  # type: ignore[no-any-return]

    async def send(
        self, text: str, turn_id: str, presend: dict[str, Any] | None = None, answer: bool = True, **extra: Any
    ) -> Message:
        """Send a message (``presend``: with the offer the host sent; ``answer``: and answer that request, as
        the worker's fetch would be) and wait for its turn to finish."""
        message: Message = {"type": "user_message", "text": text, "turn_id": turn_id, **extra}
        if presend is not None:
            message["presend"] = presend
        self.host.send(message)
        if presend is not None and answer:  # the request left under the offer's id
            offers = [o for o in self.offers() if o is not None and o["id"] == presend["id"]]
            request = {**offers[-1], "type": "http_request"} if offers else {"id": presend["id"], "url": ""}
            self.host.answer(request)
        return await self.finished(turn_id)

    def counts(self) -> dict[str, int]:
        assert self.conversation is not None
        return self.conversation.presends.counts

    def chat_requests(self) -> list[Message]:
        return [r for r in self.host.requests if r["method"] == "POST"]


def presend_rig(path: Path, capabilities: tuple[str, ...] = ("http", "presend"), kind: str = "openrouter") -> Rig:
    provider = {"kind": kind, "base_url": PROVIDERS[kind], "has_key": kind == "openrouter"}
    return Rig(path / "ws", None, capabilities=capabilities, real=({"provider": provider, "model": "x/model"}, _answer))


def escaped(text: str) -> str:
    return json.dumps(text)[1:-1]


def texts(rig: Rig, turn_id: str) -> str:
    return "".join(e["text"] for e in rig.host.events("text_delta") if e["turn_id"] == turn_id)


@pytest.mark.parametrize("kind", list(PROVIDERS))
async def test_the_request_sent_at_send_is_the_one_the_turn_would_send(tmp_path: Path, kind: str) -> None:
    offered = await presend_rig(tmp_path / "a", kind=kind).start()
    plain = await presend_rig(tmp_path / "b", ("http",), kind).start()
    try:
        text = 'Ünïcödé "quotes" \\ tab\t and 😀, line\nbreak'
        offer = await offered.offer()
        assert offer["room"] > len(escaped(text))
        finished = await offered.send(text, "t1", {"id": offer["id"], "text": escaped(text)})
        assert finished["reason"] == "stop" and texts(offered, "t1") == "Sure."
        assert offered.chat_requests() == [], "the turn sent a request of its own"
        assert offered.host.cancelled == []
        assert offered.counts()["adopted"] == 1

        await asyncio.sleep(0.1)
        assert plain.offers() == []  # never offered to a host that did not ask
        await plain.send(text, "t1")
        assert [r["body"] for r in plain.chat_requests()] == [offer["before"] + escaped(text) + offer["after"]]
        assert {k: offer[k] for k in ("method", "url", "headers", "auth", "timeout_s")} == {
            k: plain.chat_requests()[0][k] for k in ("method", "url", "headers", "auth", "timeout_s")
        }

        # The next turn's offer holds the first exchange; a second Send goes out with it again.
        second = await offered.offer(after=len(offered.offers()) - 1)
        if second["id"] == offer["id"]:
            second = await offered.offer(after=len(offered.offers()))
        assert "Sure." in second["before"] and second["id"] != offer["id"]
        await offered.send("And then?", "t2", {"id": second["id"], "text": escaped("And then?")})
        assert texts(offered, "t2") == "Sure." and offered.counts()["adopted"] == 2
        assert offered.chat_requests() == []
    finally:
        await offered.stop()
        await plain.stop()


async def test_a_request_that_is_not_the_turns_is_cancelled_and_the_turn_sends_its_own(tmp_path: Path) -> None:
    rig = await presend_rig(tmp_path).start()
    try:
        offer = await rig.offer()
        # The host put in another text than the message's (an escaper that disagrees would do the same).
        finished = await rig.send("Hello", "t1", {"id": offer["id"], "text": escaped("Hello!")})
        assert finished["reason"] == "stop" and texts(rig, "t1") == "Sure."
        assert rig.host.cancelled == [offer["id"]]
        [request] = rig.chat_requests()
        assert request["body"] == offer["before"] + escaped("Hello") + offer["after"]
        assert rig.counts()["differed"] == 1 and "adopted" not in rig.counts()
    finally:
        await rig.stop()


async def test_an_offer_withdrawn_or_unknown_is_cancelled_at_once(tmp_path: Path) -> None:
    rig = await presend_rig(tmp_path).start()
    try:
        offer = await rig.offer()
        await rig.send("Hello", "t1", {"id": "r999", "text": escaped("Hello")})
        assert "r999" in rig.host.cancelled and rig.counts()["unknown"] == 1
        assert len(rig.chat_requests()) == 1  # the turn sent its own
        # The offer was spent by that message: using it afterwards is unknown too.
        await rig.send("Again", "t2", {"id": offer["id"], "text": escaped("Again")})
        assert offer["id"] in rig.host.cancelled and len(rig.chat_requests()) == 2
    finally:
        await rig.stop()


async def test_an_edit_or_a_slash_turn_cancels_what_left_at_send(tmp_path: Path) -> None:
    rig = await presend_rig(tmp_path).start()
    try:
        await rig.send("Hello", "t1")
        offer = await rig.offer(after=len(rig.offers()))
        await rig.send("Hi", "t2", {"id": offer["id"], "text": escaped("Hi")}, replaces_turn="t1")
        assert offer["id"] in rig.host.cancelled  # an edit builds afresh: the stored turn it replaces goes
        assert rig.counts()["differed"] == 1
    finally:
        await rig.stop()


async def test_a_change_while_idle_is_offered_again(tmp_path: Path) -> None:
    rig = await presend_rig(tmp_path).start()
    try:
        first = await rig.offer()
        provider = {"kind": "openrouter", "base_url": BASE, "has_key": True}
        rig.host.send({"type": "config", "provider": provider, "model": "y/other", "permission_mode": "ask"})
        second = await rig.offer(after=len(rig.offers()))
        assert '"model": "y/other"' in second["before"] + second["after"]
        assert second["id"] != first["id"]
    finally:
        await rig.stop()


async def test_an_offer_says_how_many_of_the_hosts_frames_it_was_built_after(tmp_path: Path) -> None:
    """The worker uses an offer only when the runtime had read all it had sent (presend.test.ts): one that
    crossed a message on its way is out of date."""
    rig = await presend_rig(tmp_path).start()
    try:
        first = await rig.offer()
        assert first["heard"] == rig.host.sent
        rig.host.send({"type": "request", "id": "h1", "method": "ping", "params": {}})
        again = await rig.offer(after=len(rig.offers()))
        assert again["heard"] == rig.host.sent == first["heard"] + 1
    finally:
        await rig.stop()


async def test_an_offer_built_across_a_change_is_not_sent_and_the_change_is_offered(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A setting that arrives while an offer is being built: that offer, made of the old one, never goes out
    (the host would send it, and the byte check cancel it only once the provider has it); the next has it."""
    rig = await presend_rig(tmp_path).start()
    try:
        await rig.offer()
        provider = {"kind": "openrouter", "base_url": BASE, "has_key": True}
        build = turns_module.build_offer
        crossed: list[int] = []

        config = {"type": "config", "provider": provider, "permission_mode": "ask"}

        async def build_across_a_change(*args: Any) -> Any:
            if not crossed:  # the build for y/other: the person picks z/third meanwhile
                crossed.append(len(rig.offers()))
                rig.host.send({**config, "model": "z/third"})
                await asyncio.sleep(0.05)  # the config is handled while this build goes on
            return await build(*args)

        monkeypatch.setattr(turns_module, "build_offer", build_across_a_change)
        rig.host.send({**config, "model": "y/other"})
        second = await rig.offer(after=len(rig.offers()))
        assert crossed
        after = [o["before"] for o in rig.offers()[crossed[0] :] if o is not None]
        assert after and all('"model": "z/third"' in b for b in after), "an offer of the old model went out"
        assert second["heard"] == rig.host.sent
    finally:
        await rig.stop()


def test_the_shared_escape_cases_are_what_json_dumps_writes() -> None:
    """tests/fixtures/json-escape.json: the worker's escaper is checked against the same cases (presend.test.ts)."""
    cases = json.loads((Path(__file__).parents[2] / "fixtures" / "json-escape.json").read_text())
    assert len(cases) >= 10
    for case in cases:
        assert json.dumps(case["text"])[1:-1] == case["escaped"]


async def test_a_message_that_changes_nothing_is_followed_by_the_same_offer(tmp_path: Path) -> None:
    rig = await presend_rig(tmp_path).start()
    try:
        first = await rig.offer()
        rig.host.send({"type": "request", "id": "h1", "method": "ping", "params": {}})  # the host dropped its offer
        again = await rig.offer(after=len(rig.offers()))
        assert again["heard"] == first["heard"] + 1  # one more message read
        assert {k: v for k, v in again.items() if k != "heard"} == {k: v for k, v in first.items() if k != "heard"}
        await rig.send("Hi", "t1", {"id": again["id"], "text": escaped("Hi")})
        assert rig.counts()["adopted"] == 1 and rig.chat_requests() == []
        # Once used, the offer is spent: the next one has an id of its own.
        after_turn = await rig.offer(after=len(rig.offers()))
        assert after_turn["id"] != first["id"]
    finally:
        await rig.stop()


async def test_a_send_that_crosses_the_same_offer_made_again_is_the_turns_own(tmp_path: Path) -> None:
    """The runtime offers again what it offered (prepared once more, nothing changed) while the host, not
    having read that yet, sends the first at Send: the request that left is still the turn's, not a second
    one the provider bills."""
    rig = await presend_rig(tmp_path).start()
    try:
        first = await rig.offer()
        assert rig.conversation is not None
        rig.conversation.turns.preparer.soon()  # prepared again with no message from the host: a settled event's
        again = await rig.offer(after=len(rig.offers()))
        assert again["id"] == first["id"]
        await rig.send("Hi", "t1", {"id": first["id"], "text": escaped("Hi")})
        assert rig.counts()["adopted"] == 1 and "unknown" not in rig.counts()
        assert rig.chat_requests() == [] and first["id"] not in rig.host.cancelled
    finally:
        await rig.stop()


async def test_a_conversation_too_long_to_offer_is_not_offered(tmp_path: Path) -> None:
    """Over a MiB of stored text the offer is not even built (its JSON would cost a while each time)."""
    rig = await presend_rig(tmp_path).start()
    try:
        provider = {"kind": "openrouter", "base_url": BASE, "has_key": True}
        config = {"type": "config", "provider": provider, "model": "x/model", "permission_mode": "ask"}
        rig.host.send({**config, "context_length": 4_000_000})  # room for it in the window
        await rig.offer(after=len(rig.offers()))
        offered = len(rig.offers())
        await rig.send("x" * (1 << 20), "t1")  # spends the offer out (the host sent none with it)
        await asyncio.sleep(0.3)  # idle: prepared again
        assert rig.conversation is not None and rig.conversation.turns.preparer.current()
        assert rig.offers()[offered:] == []
        await rig.send("Short", "t2")
        assert rig.offers()[offered:] == []
    finally:
        await rig.stop()


async def test_an_answer_that_comes_before_the_message_still_reaches_the_turn(tmp_path: Path) -> None:
    """The host may fail the request it sends at Send at once (its egress rule, a replay with no answer left),
    so that failure can reach the runtime before the message that names it."""
    rig = await presend_rig(tmp_path).start()
    try:
        offer = await rig.offer()
        rig.host.send({"type": "http_error", "id": offer["id"], "kind": "replay", "message": "no answer left"})
        finished = await rig.send("Hi", "t1", {"id": offer["id"], "text": escaped("Hi")}, answer=False)
        assert finished["reason"] == "error"
        [error] = rig.host.events("error")
        assert "no answer left" in error["message"]
        assert rig.counts()["adopted"] == 1 and rig.chat_requests() == []
    finally:
        await rig.stop()

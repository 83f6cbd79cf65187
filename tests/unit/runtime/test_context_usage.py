"""``context_usage``: the next request's estimated size against the window compaction budgets with."""

from __future__ import annotations

from runtime.agent.context import DEFAULT_CONTEXT_TOKENS, TRIGGER
from tests.support.rigs import StateRig
from tests.support.scripted import says


async def test_usage_grows_with_the_conversation_and_follows_the_models_window(rig: StateRig) -> None:
    empty = await rig.result("context_usage")
    assert empty["limit"] == DEFAULT_CONTEXT_TOKENS and empty["compact_at"] == int(TRIGGER * DEFAULT_CONTEXT_TOKENS)
    assert empty["used"] > 0, "the system prompt and the tools count"
    rig.provider.rounds = [says("word " * 2000)]
    await rig.turn("Say a lot", "t1")
    after = await rig.result("context_usage")
    assert after["used"] > empty["used"] + 2000  # ~10 000 characters of reply
    await rig.result("list_models")  # the model's own window (8192) from the provider's list
    assert (await rig.result("context_usage"))["limit"] == rig.provider.context_length
    rig.host.send({"type": "config", "context_length": 4096})
    assert (await rig.result("context_usage"))["limit"] == 4096

"""Which prompt a turn sends: the full one, or for a small context window a compact one with fewer tools.

The system prompt and the tool schemas go with every request, before the conversation. They are
measured the way compaction measures a request (``estimate_tokens`` over the wire form). When the full
ones would take more than ``FULL_MAX_SHARE`` of the window, the turn gets the compact prompt
(``render.COMPACT_TEMPLATE``) and the reduced tool set (``Registry.view`` of ``CORE_TOOLS``, compact
schemas). Measured (chars / 4, empty workspace, no skills): full ≈ 665 + 1,475 = 2,140 tokens, 52% of
4,096; compact ≈ 185 + 415 = 600 tokens, 15% of 4,096 and 29% of 2,048.

When even the compact prompt would take more than ``PROMPT_MAX_SHARE`` of the window there is no room
for the conversation and the reply: ``runtime.agent.context`` refuses the request before it is sent
with ``too_small_advice``, which says how to give the model a larger window (a new chat cannot help).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from runtime.chat.history import estimate_tokens
from runtime.chat.messages import SystemMessage
from runtime.prompts.gather import system_prompt
from runtime.prompts.workspace_map import Listing, prompt_map
from runtime.tools.registry import CORE_TOOLS, Registry

if TYPE_CHECKING:
    from runtime.prompts.agent import ProfilePrompt

FULL_MAX_SHARE = 0.3  # of the window, at most, for the full prompt and tools; above: the compact ones
PROMPT_MAX_SHARE = 0.5  # of the window, at most, for the compact ones; above: the turn is refused
ROOMY_SHARE = 0.2  # the window suggested: one where the compact prompt takes at most this share


@dataclass(frozen=True)
class PromptPlan:
    """The system prompt and the tools a turn offers; ``tokens``: their estimate against ``window``."""

    text: str
    tools: Registry
    compact: bool
    tokens: int
    window: int
    left_out: tuple[str, ...] = ()  # the registry's tools the compact plan does not offer


def prompt_tokens(text: str, tools: Registry, workspace: Path) -> int:
    """The estimate of the system message and the tool schemas as a request sends them."""
    return estimate_tokens([SystemMessage(text)], tools.openai_tools(workspace))


def plan_prompt(
    workspace: Path,
    tools: Registry,
    permission_mode: str,
    memories: Sequence[str],
    window: int,
    profile: ProfilePrompt | None = None,
    listed: Listing | None = None,
) -> PromptPlan:
    """The full prompt and every tool when they fit ``FULL_MAX_SHARE`` of ``window``, else the compact ones;
    ``tools``: those the turn may offer (a profile's view of the registry); ``listed``: the workspace map when
    it was just read (both prompts show the same one, read once)."""
    listed = listed if listed is not None else prompt_map(workspace)
    full = system_prompt(workspace, tools.catalog(), permission_mode, memories, profile=profile, listed=listed)
    tokens = prompt_tokens(full, tools, workspace)
    if tokens <= FULL_MAX_SHARE * window:
        return PromptPlan(full, tools, False, tokens, window)
    core = tools.view(CORE_TOOLS, compact=True)
    text = system_prompt(
        workspace,
        core.catalog(),
        permission_mode,
        memories,
        compact=True,
        window=window,
        profile=profile,
        listed=listed,
    )
    left_out = tuple(t.name for t in tools if t.name not in core)
    return PromptPlan(text, core, True, prompt_tokens(text, core, workspace), window, left_out)


def compact_notice(plan: PromptPlan) -> str:
    """The note the chat shows once when the compact prompt comes into use."""
    return (
        f"The model's context window is small ({plan.window:,} tokens), so Tidepool uses a compact system "
        f"prompt and fewer tools to leave room for the conversation (left out: {', '.join(plan.left_out)}). "
        "A larger context window brings them back."
    )


def too_small_advice(tokens: int, window: int, provider_kind: str | None) -> str:
    """Why a request cannot go (its prompt and tools alone take ``tokens`` of ``window``), and how to give
    the model a larger window, for the provider in use."""
    said = (
        f"The model's context window ({window:,} tokens) is too small for Tidepool's prompt and tools "
        f"(about {tokens:,} tokens, even compact), with no room left for the conversation and the reply; a "
        "new chat cannot help. "
    )
    if provider_kind == "openrouter":
        return said + "Choose a model with a larger context window in Settings."
    return (
        said
        + _raise_window(provider_kind, _suggested_window(tokens))
        + f" If the model's window is already larger than {window:,}, set it in Settings → Advanced → Context window."
    )


def _raise_window(provider_kind: str | None, suggested: int) -> str:
    if provider_kind == "ollama":
        return (
            f"Give the model a larger context: Settings → Advanced → Context window {suggested} or more (Ollama's "
            f"num_ctx), or PARAMETER num_ctx {suggested} in its Modelfile."
        )
    return (
        f"Restart the server with a larger context size, e.g. llama-server -c {suggested} (llama.cpp), "
        f"python -m llama_cpp.server --n_ctx {suggested} (llama-cpp-python), --max-model-len {suggested} "
        "(vLLM), or the model's context length in LM Studio."
    )


def _suggested_window(tokens: int) -> int:
    window = 4_096
    while tokens > ROOMY_SHARE * window:
        window *= 2
    return window

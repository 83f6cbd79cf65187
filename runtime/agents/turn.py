"""What a turn under an agent profile runs with: the profile, the tools it may offer, its mode.

The tools are the registry's view of the profile's ``tools`` (``Registry.view``): the provider is
offered those only, and the turn looks every call up in that view, so a call to any other tool is
refused at lookup like an unknown one (``runtime.agent.calls``). The mode is the profile's, never wider
than the chat's (``profiles.effective_mode``).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from runtime.agents.profiles import BUILTIN, AgentProfile, effective_mode, load
from runtime.tools.registry import Registry


class ProfileMissing(Exception):
    """The session's profile is not there (deleted, renamed, or its file cannot be read): why, in words."""


@dataclass(frozen=True)
class TurnAgent:
    profile: AgentProfile
    tools: Registry
    mode: str

    def model(self, chat_model: str | None) -> str | None:
        return self.profile.model or chat_model


def turn_agent(workspace: Path, registry: Registry, name: str, chat_mode: str) -> TurnAgent:
    """The session's profile ``name`` as a turn runs it; raises ``ProfileMissing``."""
    catalog = load(workspace, known_tools=[t.name for t in registry])
    profile = catalog.find(name)
    if profile is None:
        why = next((reason for path, reason in catalog.problems if Path(path).stem == name), None)
        detail = f"its file cannot be used: {why}" if why else "there is no profile of that name any more"
        raise ProfileMissing(
            f"This chat runs under the agent profile {name!r}, but {detail}. Nothing was sent. "
            "Choose a profile for this chat, or fix the file in the Agents panel."
        )
    tools = registry if profile.tools is None else registry.view(profile.tools)
    return TurnAgent(profile, tools, effective_mode(chat_mode, profile.permission_mode))


def general(registry: Registry, chat_mode: str) -> TurnAgent:
    """The everyday agent (every tool, the chat's mode)."""
    return TurnAgent(next(p for p in BUILTIN if p.name == "general"), registry, chat_mode)

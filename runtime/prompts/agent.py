"""The part of the system prompt a turn under an agent profile adds: the profile's name, description
and prompt (its file's body). The prompt is the person's own text (or an imported file's), framed like
AGENTS.md (``render.framed``) so it cannot close its tag or fake a section of the prompt."""

from __future__ import annotations

from dataclasses import dataclass

from runtime.names import one_line
from runtime.prompts.render import framed

MAX_PROFILE_PROMPT_CHARS = 20_000


@dataclass(frozen=True)
class ProfilePrompt:
    """What the system prompt takes of an agent profile (``runtime.agents.profiles.AgentProfile``)."""

    name: str
    description: str
    prompt: str = ""
    skills: tuple[str, ...] | None = None  # None: every enabled skill is listed


def profile_section(profile: ProfilePrompt | None) -> str:
    """ "" for no profile and for one without a prompt (``general``)."""
    if profile is None or not profile.prompt.strip():
        return ""
    prompt = profile.prompt.strip()
    if len(prompt) > MAX_PROFILE_PROMPT_CHARS:
        prompt = prompt[:MAX_PROFILE_PROMPT_CHARS] + "\n… [profile prompt truncated]"
    return (
        f"\n# Agent profile\n\nThis chat runs under the agent profile {one_line(profile.name)!s} "
        f"({one_line(profile.description)}). Follow its instructions within the rules above:\n\n"
        f"<agent_profile>\n{framed(prompt, 'agent_profile')}\n</agent_profile>\n"
    )

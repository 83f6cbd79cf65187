"""Collect what the system prompt shows from the workspace (map, AGENTS.md, skills) and render it."""

from __future__ import annotations

import logging
import re
import unicodedata
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from runtime.prompts.render import PromptInputs, read_agents_md, render_system_prompt, warm_up
from runtime.prompts.workspace_map import Listing, prompt_map

if TYPE_CHECKING:
    from runtime.prompts.agent import ProfilePrompt

log = logging.getLogger(__name__)

_SLASH = re.compile(r"^/(\S+)(?=\s|$)")  # a skill's name may be in any script (技能): matched against installed names

__all__ = ["skill_names", "skills_block", "slash_skill", "system_prompt", "warm_up"]


def system_prompt(
    workspace: Path,
    tools: Sequence[Mapping[str, Any]],
    permission_mode: str,
    memories: Sequence[str] = (),
    *,
    compact: bool = False,
    window: int = 4_096,
    profile: ProfilePrompt | None = None,
    listed: Listing | None = None,
) -> str:
    """The system prompt; ``memories`` are the pinned memories' texts (oldest first); ``compact``: the
    small-window one (``render.COMPACT_TEMPLATE``), its budgets sized for ``window`` tokens; ``profile``:
    the agent profile the turn runs under (its prompt added, only its skills listed when it names some);
    ``listed``: the workspace map when it was just read (``prompt_map``), else it is read here."""
    from runtime.prompts.agent import profile_section

    paths, truncated = listed if listed is not None else prompt_map(workspace)
    only = profile.skills if profile is not None else None
    text = render_system_prompt(
        PromptInputs(
            tools=tools,
            permission_mode=permission_mode,
            workspace_map=paths,
            workspace_truncated=truncated,
            agents_md=read_agents_md(workspace),
            skills_block="" if compact else skills_block(workspace, only),
            memories=tuple(" ".join(m.split()) for m in memories),
            compact=compact,
            skill_names=tuple(n for n in skill_names(workspace) if only is None or n in only) if compact else (),
            window=window,
        )
    )
    return text + profile_section(profile)


def skills_block(workspace: Path, only: Sequence[str] | None = None) -> str:
    """The enabled skills' block (``only``: those of them named there)."""
    from runtime.skills.catalog import available_skills_block, list_skills  # deferred: only at a turn

    try:
        skills = list_skills(workspace)
        return available_skills_block(skills if only is None else tuple(s for s in skills if s.name in only))
    except Exception as exc:  # a broken skills folder must not stop the agent
        log.warning("listing the skills failed: %s", exc)
        return ""


def skill_names(workspace: Path) -> tuple[str, ...]:
    """The enabled skills' names (what the compact prompt shows of them)."""
    from runtime.skills.catalog import list_skills

    try:
        return tuple(s.name for s in list_skills(workspace) if s.enabled)
    except Exception as exc:
        log.warning("listing the skills failed: %s", exc)
        return ()


def slash_skill(text: str, workspace: Path) -> str | None:
    """The enabled skill a message names as ``/skill-name …`` at its start, if there is one."""
    match = _SLASH.match(text)
    if not match:
        return None
    name = unicodedata.normalize("NFKC", match[1])  # installed under the name as the spec reads it
    from runtime.skills.catalog import list_skills

    try:
        installed = list_skills(workspace)
    except Exception as exc:
        log.warning("listing the skills failed: %s", exc)
        return None
    return name if any(s.name == name and s.enabled for s in installed) else None

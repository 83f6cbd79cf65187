"""Render the system prompt from ``system.md.j2`` (jinja2, StrictUndefined).

Every value from the workspace or the store is untrusted text and passes a filter in the template:
``literal`` (a name as a one-line JSON string: the workspace map), ``one_line`` (memories, the mode) and
``framed`` (AGENTS.md: its lines kept, unsafe characters escaped, its ``<agents_md>`` tag defused). None
of them lets a value end a line where the template did not, so no name or text can close the map's
fence, open a heading or fake a section. The skills block is built with the same functions (``catalog``).

``system_compact.md.j2`` is the prompt for a small context window (``runtime.prompts.fit``): the same
identity, safety rules and permission mode in fewer words, no tool list (the schemas carry it), and
the workspace's parts within budgets sized to the window (``COMPACT_*``): a few map lines, AGENTS.md
cut, skill names only, pinned memories cut. The same filters apply.

jinja2 is imported at the first render, not at import time: it costs ~300 ms in Pyodide and boot
speed matters.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from runtime.names import literal, one_line, shown
from runtime.tools.untrusted import defuse, tag_opening

log = logging.getLogger(__name__)

TEMPLATE = "system.md.j2"
COMPACT_TEMPLATE = "system_compact.md.j2"
MAX_AGENTS_MD_CHARS = 20_000
# The compact prompt's budgets, in characters (about 4 a token) or lines per token of the window:
COMPACT_AGENTS_MD_SHARE = 0.2  # AGENTS.md: about 5% of the window
COMPACT_MEMORY_SHARE = 0.1  # all pinned memories together: about 2.5%
COMPACT_TOKENS_PER_MAP_LINE = 512  # the workspace map: 8 lines for 4,096 tokens

MODE_HELP = {
    "ask": "Read and memory tools run at once; writes, network and code execution wait for the user's approval.",
    "auto-edit": "Reads, memory and file writes run at once; network and code execution wait for approval.",
    "full-auto": "Every tool runs without asking.",
    "read-only": "Only read tools and memory_search run; saving or deleting a memory asks the user first; "
    "anything that writes, fetches or executes is refused.",
}


@dataclass(frozen=True)
class PromptInputs:
    tools: Sequence[Mapping[str, Any]]  # registry catalog entries
    permission_mode: str = "ask"
    agent_name: str = "Tidepool"
    workspace_map: Sequence[str] = ()
    workspace_truncated: bool = False
    agents_md: str | None = None
    skills_block: str = ""  # runtime.skills.catalog.available_skills_block: "" when no skill is enabled
    memories: Sequence[str] = field(default_factory=tuple)
    compact: bool = False  # the small-window prompt (``COMPACT_TEMPLATE``)
    skill_names: Sequence[str] = ()  # the enabled skills' names: what the compact prompt shows of them
    window: int = 4_096  # the context window (tokens) the compact prompt's budgets are sized for


_env: Any = None
# The last rendering of each template, keyed by its inputs: a turn whose inputs did not change skips
# jinja2 (time to first token; ~1 ms in Pyodide). The templates are fixed for the process, so the
# inputs decide the text.
_last: dict[bool, tuple[str, str]] = {}


def _get_template(name: str = TEMPLATE) -> Any:
    global _env
    if _env is None:
        import jinja2  # deferred: see the module docstring

        env = jinja2.Environment(
            loader=jinja2.PackageLoader("runtime.prompts", "."),
            undefined=jinja2.StrictUndefined,
            autoescape=False,
            keep_trailing_newline=True,
            trim_blocks=True,
            lstrip_blocks=True,
        )
        env.filters.update(literal=literal, one_line=one_line, framed=framed)
        _env = env
    return _env.get_template(name)


def render_system_prompt(inputs: PromptInputs) -> str:
    key = _cache_key(inputs)
    last = _last.get(inputs.compact)
    if last is not None and last[0] == key:
        return last[1]
    text = _render_compact(inputs) if inputs.compact else _render(inputs)
    _last[inputs.compact] = (key, text)
    return text


def _cache_key(inputs: PromptInputs) -> str:
    fields = [
        [_tool_line(t) for t in inputs.tools],
        inputs.permission_mode,
        inputs.agent_name,
        list(inputs.workspace_map),
        inputs.workspace_truncated,
        inputs.agents_md,
        inputs.skills_block,
        list(inputs.memories),
        inputs.compact,
        list(inputs.skill_names),
        inputs.window,
    ]
    return json.dumps(fields, ensure_ascii=False)


def _render(inputs: PromptInputs) -> str:
    agents_md = inputs.agents_md
    if agents_md and len(agents_md) > MAX_AGENTS_MD_CHARS:
        agents_md = agents_md[:MAX_AGENTS_MD_CHARS] + "\n… [AGENTS.md truncated]"
    text: str = _get_template().render(
        agent_name=inputs.agent_name,
        permission_mode=inputs.permission_mode,
        mode_help=MODE_HELP.get(inputs.permission_mode, ""),
        tools=[_tool_line(t) for t in inputs.tools],
        workspace_map=list(inputs.workspace_map),
        workspace_truncated=inputs.workspace_truncated,
        agents_md=agents_md,
        skills_block=inputs.skills_block.strip(),
        memories=list(inputs.memories),
    )
    return text.strip() + "\n"


def _render_compact(inputs: PromptInputs) -> str:
    agents_md = inputs.agents_md
    budget = max(200, int(COMPACT_AGENTS_MD_SHARE * inputs.window))
    if agents_md and len(agents_md) > budget:
        agents_md = agents_md[:budget] + "\n… [AGENTS.md cut to fit a small context window]"
    paths = list(inputs.workspace_map)
    lines = max(3, inputs.window // COMPACT_TOKENS_PER_MAP_LINE)
    text: str = _get_template(COMPACT_TEMPLATE).render(
        agent_name=inputs.agent_name,
        permission_mode=inputs.permission_mode,
        mode_help=MODE_HELP.get(inputs.permission_mode, ""),
        workspace_map=paths[:lines],
        workspace_truncated=inputs.workspace_truncated or len(paths) > lines,
        agents_md=agents_md,
        skill_names=list(inputs.skill_names),
        memories=_within(inputs.memories, max(100, int(COMPACT_MEMORY_SHARE * inputs.window))),
    )
    return text.strip() + "\n"


def _within(texts: Sequence[str], budget: int) -> list[str]:
    """The first ``texts`` that fit in ``budget`` characters together; the one that crosses it, cut."""
    out: list[str] = []
    for text in texts:
        if budget <= 0:
            break
        out.append(text if len(text) <= budget else text[:budget] + "…")
        budget -= len(text)
    return out


def framed(text: str, tag: str) -> str:
    """``text`` for inside ``<tag>…</tag>``: line breaks and tabs kept (``\\r\\n`` read as ``\\n``), every
    other unsafe character escaped, every opening of ``tag`` defused."""
    return defuse(shown(text.replace("\r\n", "\n"), keep="\n\t"), tag_opening(tag))


def _tool_line(entry: Mapping[str, Any]) -> dict[str, str]:
    return {"name": str(entry["name"]), "effect": str(entry["effect"]), "description": str(entry["description"])}


def read_agents_md(root: Path) -> str | None:
    path = root / "AGENTS.md"
    try:
        return path.read_text(encoding="utf-8", errors="replace") if path.is_file() else None
    except OSError as exc:
        log.warning("could not read AGENTS.md: %s", exc)
        return None


def warm_up() -> None:
    """Import and compile the template ahead of the first turn (jinja2 costs ~300 ms in Pyodide)."""
    try:
        _get_template()
    except Exception as exc:
        log.warning("warming up the prompt template failed: %s", exc)

"""A user's profile as its file: written from the panel's fields, read back by ``profiles.parse``.

The file is ``.agents/agents/<name>.md`` in the workspace (so the Files panel shows it and a backup
carries it), with the frontmatter Claude Code writes (``tools`` as one comma-separated line) and the
prompt as the body. Saving checks the text by parsing it back, so a saved file always loads.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import yaml

from runtime.agents.profiles import BUILTIN, PROFILES_DIR, AgentProfile, ProfileError, parse


@dataclass(frozen=True)
class ProfileFields:
    """What the panel edits; ``None``/empty: not set (every tool, the chat's model, every skill, …)."""

    name: str
    description: str
    prompt: str = ""
    tools: tuple[str, ...] | None = None
    model: str | None = None
    skills: tuple[str, ...] | None = None
    permission_mode: str | None = None
    max_rounds: int | None = None


def render(fields: ProfileFields) -> str:
    """The file's text."""
    head: dict[str, object] = {"name": fields.name, "description": " ".join(fields.description.split())}
    if fields.tools is not None:
        head["tools"] = ", ".join(fields.tools)
    if fields.model:
        head["model"] = fields.model.strip()
    if fields.skills is not None:
        head["skills"] = ", ".join(fields.skills)
    if fields.permission_mode:
        head["permission-mode"] = fields.permission_mode
    if fields.max_rounds is not None:
        head["max-rounds"] = str(fields.max_rounds)
    front = yaml.safe_dump(head, sort_keys=False, allow_unicode=True, width=10_000)
    body = fields.prompt.strip()
    return f"---\n{front}---\n\n{body}\n" if body else f"---\n{front}---\n"


def profile_path(name: str) -> Path:
    """The profile's path in the workspace."""
    return PROFILES_DIR / f"{name}.md"


def save(
    workspace: Path, fields: ProfileFields, *, known_tools: Iterable[str] | None, previous: str | None = None
) -> tuple[AgentProfile, list[str]]:
    """Write the profile; ``previous``: the workspace path of the file it was read from, when it is edited
    (a renamed profile's old file goes). Returns the profile as it now loads and the workspace paths that
    changed. Raises ``ProfileError`` with why; then nothing was written."""
    rel = profile_path(fields.name).as_posix()
    if fields.tools is not None and known_tools is not None:
        unknown = sorted(set(fields.tools) - set(known_tools))
        if unknown:
            raise ProfileError(f"These are not tools here: {', '.join(unknown)}.")
    text = render(fields)
    profile = parse(text, source=rel, known_tools=known_tools)
    if previous != rel and (workspace / rel).exists():
        raise ProfileError(f"A profile file {rel} exists already; choose another name.")
    if previous is None and any(p.name == fields.name for p in BUILTIN):
        raise ProfileError(f"{fields.name!r} is a built-in profile; choose another name.")
    old = _profile_file(workspace, previous) if previous is not None else None
    (workspace / PROFILES_DIR).mkdir(parents=True, exist_ok=True)
    (workspace / rel).write_text(text, encoding="utf-8")
    changed = [rel]
    if old is not None and previous != rel and old.is_file():
        old.unlink()
        changed.append(str(previous))
    return profile, changed


def _profile_file(workspace: Path, source: str) -> Path:
    rel = Path(source)
    if rel.parent != PROFILES_DIR or rel.suffix != ".md" or ".." in rel.parts:
        raise ProfileError(f"{source!r} is not a profile file ({PROFILES_DIR.as_posix()}/<name>.md).")
    return workspace / rel


def delete(workspace: Path, source: str) -> str:
    """Remove the profile file at ``source`` (a workspace path under ``.agents/agents/``)."""
    path = _profile_file(workspace, source)
    if not path.is_file():
        raise ProfileError(f"There is no profile file {source!r}.")
    path.unlink()
    return Path(source).as_posix()

"""Agent profiles: who an agent is (its prompt), what it may use (its tools, skills, mode) and its budget.

The built-in presets live here; the user's own are files in the workspace, ``.agents/agents/<name>.md``,
with the frontmatter people already write for Claude Code subagents (``name``, ``description``,
``tools``, ``model``; ours adds ``skills``, ``permission-mode``, ``max-rounds``) and the prompt as the
body. A profile's ``tools`` is what the runtime enforces: the provider is offered only those, and a call
to any other is refused at lookup (the prompt never is the enforcement).

Claude Code's tool names (``Read, Grep, Glob``) read as ours (``runtime.agents.toolnames``). A name that
is not a tool here, and a Claude Code model alias (``sonnet``, ``inherit``), do not make the file
unusable: the profile loads without that tool (or with the chat's model) and ``warnings`` says why, so
the panel shows it on the entry. A file that cannot be read at all is one of ``Catalog.problems``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from runtime.agents.toolnames import resolve
from runtime.skills import frontmatter

PROFILES_DIR = Path(".agents") / "agents"
NAME = re.compile(r"^[a-z0-9][a-z0-9-]{0,63}$")
MODES: tuple[str, ...] = ("read-only", "ask", "auto-edit", "full-auto")  # narrowest first
MAX_FILE_BYTES = 64 * 1024
# Claude Code's model aliases: not model ids of any provider here; the chat's model is used.
CLAUDE_MODEL_ALIASES = frozenset({"inherit", "sonnet", "opus", "haiku"})


class ProfileError(ValueError):
    """A profile file that cannot be used, with the reason in words (shown as it is)."""


@dataclass(frozen=True)
class AgentProfile:
    name: str
    description: str
    prompt: str = ""
    tools: tuple[str, ...] | None = None  # None: every tool the session has
    model: str | None = None  # None: the chat's model
    skills: tuple[str, ...] | None = None  # None: every enabled skill
    permission_mode: str | None = None  # None: the parent's; never wider than it
    max_rounds: int | None = None
    builtin: bool = False
    source: str | None = None  # the workspace path of a user's profile
    warnings: tuple[str, ...] = ()  # what of the file was left out, and why (the profile works without it)

    def allows(self, tool: str) -> bool:
        return self.tools is None or tool in self.tools


_READ = ("list_files", "read_file", "search_files", "activate_skill")
_WRITE = ("write_file", "edit_file", "delete_file", "move_file")

BUILTIN: tuple[AgentProfile, ...] = (
    AgentProfile("general", "The everyday agent: every tool the session has.", builtin=True),
    AgentProfile(
        "explore",
        "Reads the workspace to answer a question; changes nothing.",
        "You explore the workspace to answer the task. Read what you need, change nothing, and answer "
        "with what you found and where (paths).",
        tools=_READ,
        builtin=True,
    ),
    AgentProfile(
        "researcher",
        "Reads the workspace and fetches web pages; changes nothing.",
        "You research the task in the workspace and on the web. Cite the pages and files you used.",
        tools=(*_READ, "web_fetch"),
        builtin=True,
    ),
    AgentProfile(
        "worker",
        "Reads and writes files and runs Python to carry out a task.",
        "You carry out the task: read, write and run Python as needed, then say what you changed.",
        tools=(*_READ, *_WRITE, "run_python"),
        builtin=True,
    ),
)


def parse(text: str, *, source: str | None = None, known_tools: Iterable[str] | None = None) -> AgentProfile:
    """A user's profile from its file's text. Raises ``ProfileError`` with the reason."""
    if len(text.encode()) > MAX_FILE_BYTES:
        raise ProfileError(f"The profile file is over {MAX_FILE_BYTES // 1024} KB.")
    try:
        parts = frontmatter.split(text)
        if parts is None:
            raise ProfileError("The profile file has no frontmatter (a block between '---' lines at the top).")
        head, body = parts
        fm = frontmatter.parse(head)
    except frontmatter.FrontmatterError as exc:
        raise ProfileError(f"The frontmatter cannot be read: {exc}") from None
    f = fm.fields
    name = _text(f, "name", required=True)
    if not NAME.match(name):
        raise ProfileError(f"The name {name!r} is not lowercase letters, digits and hyphens (at most 64).")
    warnings: list[str] = []
    tools = _names(f, "tools")
    if tools is not None:
        resolved = resolve(tools, known_tools)
        tools, warnings = resolved.names, list(resolved.problems)
    mode = _text(f, "permission-mode")
    if mode and mode not in MODES:
        raise ProfileError(f"permission-mode is {mode!r}; it is one of {', '.join(MODES)}.")
    rounds = _rounds(f.get("max-rounds"))
    model = _text(f, "model") or None
    if model in CLAUDE_MODEL_ALIASES:
        if model != "inherit":
            warnings.append(f"model {model!r} is a Claude Code alias, not a model id here; the chat's model is used.")
        model = None
    return AgentProfile(
        name=name,
        description=_text(f, "description", required=True),
        prompt=body.strip(),
        tools=tools,
        model=model,
        skills=_names(f, "skills"),
        permission_mode=mode or None,
        max_rounds=rounds,
        source=source,
        warnings=tuple(warnings),
    )


def _rounds(value: object) -> int | None:
    # The frontmatter's YAML reads scalars as text (``runtime.skills.frontmatter``): "5" is 5.
    if value is None:
        return None
    text = str(value).strip() if isinstance(value, (str, int)) and not isinstance(value, bool) else ""
    if not text.isdigit() or not 1 <= int(text) <= 200:
        raise ProfileError("max-rounds is a whole number from 1 to 200.")
    return int(text)


def _text(fields: dict[str, object], key: str, *, required: bool = False) -> str:
    value = fields.get(key)
    if value is None:
        if required:
            raise ProfileError(f"The frontmatter has no '{key}'.")
        return ""
    if not isinstance(value, (str, int, float)) or isinstance(value, bool):
        raise ProfileError(f"'{key}' is not text.")
    return str(value).strip()


def _names(fields: dict[str, object], key: str) -> tuple[str, ...] | None:
    """A list of names, written as a YAML list or as Claude Code writes it ("Read, Grep, Glob")."""
    value = fields.get(key)
    if value is None:
        return None
    if isinstance(value, str):
        items: list[object] = [v for v in re.split(r"[,\s]+", value) if v]
    elif isinstance(value, list):
        items = value
    else:
        raise ProfileError(f"'{key}' is a list of names.")
    if not all(isinstance(v, str) and v.strip() for v in items):
        raise ProfileError(f"'{key}' is a list of names.")
    return tuple(dict.fromkeys(str(v).strip() for v in items))


@dataclass(frozen=True)
class Catalog:
    profiles: tuple[AgentProfile, ...]
    problems: tuple[tuple[str, str], ...]  # (workspace path, reason) of files that could not be used

    def find(self, name: str) -> AgentProfile | None:
        return next((p for p in self.profiles if p.name == name), None)


def load(workspace: Path, *, known_tools: Iterable[str] | None = None) -> Catalog:
    """The built-ins, then the workspace's profiles (a file may replace a built-in of the same name)."""
    known = None if known_tools is None else tuple(known_tools)
    found: dict[str, AgentProfile] = {p.name: p for p in BUILTIN}
    problems: list[tuple[str, str]] = []
    folder = workspace / PROFILES_DIR
    for path in sorted(folder.glob("*.md")) if folder.is_dir() else ():
        rel = path.relative_to(workspace).as_posix()
        try:
            profile = parse(path.read_text(encoding="utf-8"), source=rel, known_tools=known)
        except (ProfileError, OSError, UnicodeDecodeError) as exc:
            problems.append((rel, str(exc)))
            continue
        found[profile.name] = profile
    return Catalog(tuple(found.values()), tuple(problems))


def effective_mode(parent: str, wanted: str | None) -> str:
    """The permission mode an agent runs under: its profile's, but never wider than ``parent``'s."""
    if wanted is None or wanted not in MODES or parent not in MODES:
        return parent
    return MODES[min(MODES.index(parent), MODES.index(wanted))]

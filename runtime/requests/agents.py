"""Agent profile requests: list the profiles (built-ins, the workspace's files, files that cannot be
used), save one from the panel's fields, delete one, and choose the profile the open session runs under.

A saved profile is the workspace file ``.agents/agents/<name>.md`` (``runtime.agents.files``), flushed
to the host like any other workspace change, so the Files panel shows it and a backup carries it.
"""

from typing import TYPE_CHECKING, Literal, NotRequired, TypedDict

from runtime.host.constants import PermissionMode
from runtime.host.workspace_fetch import AGENTS_DIR
from runtime.requests.method import Method, NoParams, Table
from runtime.requests.params import RequestError, integer, optional_text, text

if TYPE_CHECKING:
    from runtime.agents.profiles import AgentProfile, Catalog
    from runtime.requests.ports import Ports


class ListedAgent(TypedDict):
    name: str
    description: str
    prompt: str
    tools: list[str] | None  # None: every tool the session has
    model: str | None  # None: the chat's model
    skills: list[str] | None  # None: every enabled skill
    permission_mode: str | None  # None: the chat's
    max_rounds: int | None
    builtin: bool
    source: str | None  # the workspace path of a user's profile
    warnings: list[str]  # what of the file was left out (a tool that is not here), and why


class AgentProblem(TypedDict):
    path: str  # a file under .agents/agents/ that cannot be used as a profile
    message: str  # why


class AgentList(TypedDict):
    agents: list[ListedAgent]
    problems: list[AgentProblem]
    tools: list[str]  # the tool names a profile may list (the registry's, tool servers' included)


class AgentSaveParams(TypedDict):
    name: str
    description: str
    prompt: NotRequired[str]
    tools: NotRequired[list[str] | None]
    model: NotRequired[str | None]
    skills: NotRequired[list[str] | None]
    permission_mode: NotRequired[PermissionMode | None]
    max_rounds: NotRequired[int | None]
    previous: NotRequired[str]  # the file it was read from, when editing (a rename removes it)


class AgentName(TypedDict):
    name: str


class SessionAgent(TypedDict):
    agent: str


def _tool_names(ports: "Ports") -> list[str]:
    return [t["name"] for t in ports.tools.catalog()]


def _listed(profile: "AgentProfile") -> ListedAgent:
    return {
        "name": profile.name,
        "description": profile.description,
        "prompt": profile.prompt,
        "tools": None if profile.tools is None else list(profile.tools),
        "model": profile.model,
        "skills": None if profile.skills is None else list(profile.skills),
        "permission_mode": profile.permission_mode,
        "max_rounds": profile.max_rounds,
        "builtin": profile.builtin,
        "source": profile.source,
        "warnings": list(profile.warnings),
    }


async def _catalog(ports: "Ports") -> "Catalog":
    await ports.on_demand.tree(AGENTS_DIR)
    from runtime.agents.profiles import load

    return load(ports.workspace, known_tools=_tool_names(ports))


async def agents_list(ports: "Ports", params: NoParams) -> AgentList:
    catalog = await _catalog(ports)
    return {
        "agents": [_listed(p) for p in catalog.profiles],
        "problems": [{"path": path, "message": why} for path, why in catalog.problems],
        "tools": _tool_names(ports),
    }


def _names(params: AgentSaveParams, key: Literal["tools", "skills"]) -> tuple[str, ...] | None:
    value = params.get(key)
    if value is None:
        return None
    if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
        raise RequestError("bad_params", f"params.{key} must be a list of names or null")
    return tuple(dict.fromkeys(v.strip() for v in value))


async def agent_save(ports: "Ports", params: AgentSaveParams) -> AgentList:
    """Write the profile's file (a new one, or the one ``previous`` names); bad fields: a clear message."""
    await ports.on_demand.tree(AGENTS_DIR)
    from runtime.agents.files import ProfileFields, save
    from runtime.agents.profiles import ProfileError

    rounds = None if params.get("max_rounds") is None else integer(params, "max_rounds", low=1, high=200)
    fields = ProfileFields(
        name=text(params, "name").strip(),
        description=text(params, "description"),
        prompt=optional_text(params, "prompt") or "",
        tools=_names(params, "tools"),
        model=(optional_text(params, "model") or "").strip() or None,
        skills=_names(params, "skills"),
        permission_mode=optional_text(params, "permission_mode") or None,
        max_rounds=rounds,
    )
    try:
        _, changed = save(ports.workspace, fields, known_tools=_tool_names(ports), previous=params.get("previous"))
    except ProfileError as exc:
        raise RequestError("bad_profile", str(exc)) from None
    await ports.state.flusher.workspace(changed)
    return await agents_list(ports, {})


async def agent_delete(ports: "Ports", params: AgentName) -> AgentList:
    """Delete a user's profile file (a built-in cannot be deleted)."""
    from runtime.agents.files import delete
    from runtime.agents.profiles import ProfileError

    catalog = await _catalog(ports)
    name = text(params, "name")
    profile = catalog.find(name)
    source = profile.source if profile is not None else _problem_file(catalog, name)
    if source is None:
        raise RequestError("not_found", f"No profile is named {name!r}, or it is a built-in (those stay).")
    try:
        await ports.state.flusher.workspace([delete(ports.workspace, source)])
    except ProfileError as exc:
        raise RequestError("bad_profile", str(exc)) from None
    return await agents_list(ports, {})


def _problem_file(catalog: "Catalog", name: str) -> str | None:
    """A file that cannot be used, named by its file name (the panel deletes broken files that way)."""
    return next((path for path, _ in catalog.problems if path.rsplit("/", 1)[-1] == f"{name}.md"), None)


async def session_agent_set(ports: "Ports", params: SessionAgent) -> SessionAgent:
    """The open session runs under this profile from its next turn (kept with the session)."""
    store = await ports.state.store()
    session_id = ports.state.session_id
    if session_id is None:
        raise RequestError("no_session", "No session is open yet.")
    catalog = await _catalog(ports)
    name = text(params, "agent")
    if catalog.find(name) is None:
        raise RequestError("not_found", f"No profile is named {name!r}. The chat's profile did not change.")
    store.set_session_agent(session_id, name)
    await ports.state.save()
    return {"agent": name}


METHODS: Table = {
    "agents_list": Method(NoParams, AgentList, agents_list),
    "agent_save": Method(AgentSaveParams, AgentList, agent_save),
    "agent_delete": Method(AgentName, AgentList, agent_delete),
    "session_agent_set": Method(SessionAgent, SessionAgent, session_agent_set),
}

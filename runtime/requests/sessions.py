"""Session requests: list, new, open, current, rename, delete, export (Markdown or JSON)."""

from __future__ import annotations

import json
import re
from dataclasses import asdict
from typing import TYPE_CHECKING, Any

from runtime.persist.display import SHOWN_MESSAGES
from runtime.requests.params import RequestError, integer, text

if TYPE_CHECKING:
    from runtime.requests.ports import Handler, Ports


async def sessions_list(ports: Ports, params: dict[str, Any]) -> dict[str, Any]:
    store = await ports.state.store()
    limit = integer(params, "limit", default=200, low=1, high=10_000)
    current = ports.state.session_id
    rows = [{**asdict(s), "current": s.id == current} for s in store.list_sessions(limit)]
    return {"sessions": rows, "current": current}


async def sessions_search(ports: Ports, params: dict[str, Any]) -> dict[str, Any]:
    """Sessions whose title or messages hold every word of ``query``, newest first, with an excerpt."""
    store = await ports.state.store()
    query = text(params, "query", empty=True)
    limit = integer(params, "limit", default=50, low=1, high=500)
    current = ports.state.session_id
    hits = store.search_sessions(query, limit)
    return {"sessions": [{**asdict(h.session), "current": h.session.id == current, "excerpt": h.excerpt} for h in hits]}


async def session_new(ports: Ports, params: dict[str, Any]) -> dict[str, Any]:
    """A new, empty session becomes current (the current one is reused when it is still empty)."""
    store = await ports.state.store()
    current = ports.state.session_id
    if current and not store.list_messages(current, limit=1) and not ports.sessions.turn_running:
        return ports.sessions.view()
    return await ports.sessions.switch(None, create=True)


async def session_open(ports: Ports, params: dict[str, Any]) -> dict[str, Any]:
    return await ports.sessions.switch(text(params, "session_id"))


async def session_current(ports: Ports, params: dict[str, Any]) -> dict[str, Any]:
    """The open session's view; ``shown``: how many of its last messages (0: all; default 200)."""
    await ports.state.store()
    return ports.sessions.view(integer(params, "shown", default=SHOWN_MESSAGES, low=0, high=10_000_000))


async def session_rename(ports: Ports, params: dict[str, Any]) -> dict[str, Any]:
    store = await ports.state.store()
    renamed = store.rename_session(text(params, "session_id"), text(params, "title", empty=True))
    await ports.state.save()
    return {"session": asdict(renamed)}


async def session_delete(ports: Ports, params: dict[str, Any]) -> dict[str, Any]:
    """Delete a session; deleting the current one opens the latest other one (or a new one)."""
    store = await ports.state.store()
    session_id = text(params, "session_id")
    store.get_session(session_id)
    if session_id == ports.state.session_id:
        await ports.sessions.leave()
        store.delete_session(session_id)
        await ports.sessions.switch(None)
    else:
        store.delete_session(session_id)
        await ports.state.save()
    return {"deleted": session_id, "current": ports.state.session_id}


async def session_export(ports: Ports, params: dict[str, Any]) -> dict[str, Any]:
    store = await ports.state.store()
    session_id = text(params, "session_id", default=ports.state.session_id)
    fmt = params.get("format", "markdown")
    meta = store.get_session(session_id)
    stem = re.sub(r"[^A-Za-z0-9._-]+", "-", meta.title or session_id).strip("-")[:60] or session_id
    if fmt == "markdown":
        body = store.export_markdown(session_id)
        return {"format": fmt, "filename": f"{stem}.md", "mime": "text/markdown", "text": body}
    if fmt == "json":
        body = json.dumps(store.export_json(session_id), ensure_ascii=False, indent=2)
        return {"format": fmt, "filename": f"{stem}.json", "mime": "application/json", "text": body}
    raise RequestError("bad_params", 'params.format must be "markdown" or "json"')


METHODS: dict[str, Handler] = {
    "sessions_list": sessions_list,
    "sessions_search": sessions_search,
    "session_new": session_new,
    "new_session": session_new,  # the older name
    "session_open": session_open,
    "session_current": session_current,
    "session_rename": session_rename,
    "session_delete": session_delete,
    "session_export": session_export,
}

"""Session requests: list, new, open, current, rename, delete, export (Markdown or JSON)."""

from __future__ import annotations

import json
import re
from dataclasses import asdict
from typing import TYPE_CHECKING, Any

from runtime.requests.dispatch import RequestError, integer, text

if TYPE_CHECKING:
    from runtime.requests.dispatch import Handler
    from runtime.session import Session


async def sessions_list(session: Session, params: dict[str, Any]) -> dict[str, Any]:
    store = await session.state.store()
    limit = integer(params, "limit", default=200, low=1, high=10_000)
    current = session.state.session_id
    rows = [{**asdict(s), "current": s.id == current} for s in store.list_sessions(limit)]
    return {"sessions": rows, "current": current}


async def session_new(session: Session, params: dict[str, Any]) -> dict[str, Any]:
    """A new, empty session becomes current (the current one is reused when it is still empty)."""
    store = await session.state.store()
    current = session.state.session_id
    if current and not store.list_messages(current, limit=1) and not session.turn_running:
        return session.session_view()
    return await session.switch_session(None, create=True)


async def session_open(session: Session, params: dict[str, Any]) -> dict[str, Any]:
    return await session.switch_session(text(params, "session_id"))


async def session_current(session: Session, params: dict[str, Any]) -> dict[str, Any]:
    await session.state.store()
    return session.session_view()


async def session_rename(session: Session, params: dict[str, Any]) -> dict[str, Any]:
    store = await session.state.store()
    renamed = store.rename_session(text(params, "session_id"), text(params, "title", empty=True))
    await session.state.save()
    return {"session": asdict(renamed)}


async def session_delete(session: Session, params: dict[str, Any]) -> dict[str, Any]:
    """Delete a session; deleting the current one opens the latest other one (or a new one)."""
    store = await session.state.store()
    session_id = text(params, "session_id")
    store.get_session(session_id)
    if session_id == session.state.session_id:
        await session.leave_session()
        store.delete_session(session_id)
        await session.switch_session(None)
    else:
        store.delete_session(session_id)
        await session.state.save()
    return {"deleted": session_id, "current": session.state.session_id}


async def session_export(session: Session, params: dict[str, Any]) -> dict[str, Any]:
    store = await session.state.store()
    session_id = text(params, "session_id", default=session.state.session_id)
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
    "session_new": session_new,
    "new_session": session_new,  # the older name
    "session_open": session_open,
    "session_current": session_current,
    "session_rename": session_rename,
    "session_delete": session_delete,
    "session_export": session_export,
}

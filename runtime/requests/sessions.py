"""Session requests: list, new, open, current, rename, delete, export (Markdown or JSON)."""

import json
import re
from typing import TYPE_CHECKING, Literal, NotRequired, TypedDict

from runtime.persist.display import SHOWN_MESSAGES, SessionRecord, SessionView, session_record
from runtime.requests.method import Method, NoParams, Table
from runtime.requests.params import RequestError, integer, text

if TYPE_CHECKING:
    from runtime.requests.ports import Ports


class SessionRow(SessionRecord):
    current: bool


class SessionHitRow(SessionRow):
    excerpt: str  # a little text around the first hit in a message ("" when the title matched)
    seq: int | None  # that message (null when only the title matched): the page can show it


class SessionListParams(TypedDict):
    limit: NotRequired[int]


class SessionList(TypedDict):
    sessions: list[SessionRow]
    current: str | None


class SessionSearchParams(TypedDict):
    query: str
    limit: NotRequired[int]


class SessionSearch(TypedDict):
    sessions: list[SessionHitRow]


class SessionId(TypedDict):
    session_id: str


class SessionCurrentParams(TypedDict):
    shown: NotRequired[int]
    before: NotRequired[int]
    after: NotRequired[int]


class SessionRenameParams(TypedDict):
    session_id: str
    title: str


class SessionRenamed(TypedDict):
    session: SessionRecord


class SessionDeleted(TypedDict):
    deleted: str
    current: str | None


ExportFormat = Literal["markdown", "json"]


class SessionExportParams(TypedDict):
    session_id: NotRequired[str]
    format: NotRequired[ExportFormat]


class SessionExport(TypedDict):
    format: ExportFormat
    filename: str
    mime: Literal["text/markdown", "application/json"]
    text: str


async def sessions_list(ports: "Ports", params: SessionListParams) -> SessionList:
    store = await ports.state.store()
    limit = integer(params, "limit", default=200, low=1, high=10_000)
    current = ports.state.session_id
    rows: list[SessionRow] = [{**session_record(s), "current": s.id == current} for s in store.list_sessions(limit)]
    return {"sessions": rows, "current": current}


async def sessions_search(ports: "Ports", params: SessionSearchParams) -> SessionSearch:
    """Sessions whose title or messages hold every word of ``query``, newest first, with an excerpt."""
    store = await ports.state.store()
    query = text(params, "query", empty=True)
    limit = integer(params, "limit", default=50, low=1, high=500)
    current = ports.state.session_id
    hits = store.search_sessions(query, limit)
    rows: list[SessionHitRow] = [
        {**session_record(h.session), "current": h.session.id == current, "excerpt": h.excerpt, "seq": h.seq}
        for h in hits
    ]
    return {"sessions": rows}


async def session_new(ports: "Ports", params: NoParams) -> SessionView:
    """A new, empty session becomes current (the current one is reused when it is still empty)."""
    store = await ports.state.store()
    current = ports.state.session_id
    if current and not store.list_messages(current, limit=1) and not ports.sessions.turn_running:
        return ports.sessions.view()
    return await ports.sessions.switch(None, create=True)


async def session_open(ports: "Ports", params: SessionId) -> SessionView:
    return await ports.sessions.switch(text(params, "session_id"))


async def session_current(ports: "Ports", params: SessionCurrentParams) -> SessionView:
    """The open session's view; ``shown``: how many of its last messages (0: all; default 50); ``before``:
    the last ``shown`` before this seq (the earlier messages of a long session, a page at a time); ``after``:
    the first ``shown`` after this seq (the later messages below a search's hit, a page at a time)."""
    await ports.state.store()
    shown = integer(params, "shown", default=SHOWN_MESSAGES, low=0, high=10_000_000)
    before = integer(params, "before", low=1, high=2**53) if "before" in params else None
    after = integer(params, "after", low=0, high=2**53) if "after" in params else None
    if before is not None and after is not None:
        raise RequestError("bad_params", "params.before and params.after cannot both be given")
    return ports.sessions.view(shown, before=before, after=after)


async def session_rename(ports: "Ports", params: SessionRenameParams) -> SessionRenamed:
    store = await ports.state.store()
    renamed = store.rename_session(text(params, "session_id"), text(params, "title", empty=True))
    await ports.state.save()
    return {"session": session_record(renamed)}


async def session_delete(ports: "Ports", params: SessionId) -> SessionDeleted:
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


async def session_export(ports: "Ports", params: SessionExportParams) -> SessionExport:
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


METHODS: Table = {
    "sessions_list": Method(SessionListParams, SessionList, sessions_list),
    "sessions_search": Method(SessionSearchParams, SessionSearch, sessions_search),
    "session_new": Method(NoParams, SessionView, session_new),
    "new_session": Method(NoParams, SessionView, session_new),  # the older name
    "session_open": Method(SessionId, SessionView, session_open),
    "session_current": Method(SessionCurrentParams, SessionView, session_current),
    "session_rename": Method(SessionRenameParams, SessionRenamed, session_rename),
    "session_delete": Method(SessionId, SessionDeleted, session_delete),
    "session_export": Method(SessionExportParams, SessionExport, session_export),
}

"""Branch requests: bring another version of a message into view, fork a new session from a message.

The versions are the store's (store/branches.py); a view marks where they are (persist/branch_view.py).
Both change what the conversation is, so neither runs while a turn does.
"""

from typing import TYPE_CHECKING, TypedDict

from runtime.persist.display import SessionView
from runtime.requests.method import Method, Table
from runtime.requests.params import RequestError, integer

if TYPE_CHECKING:
    from runtime.requests.ports import Ports

_FORK_TITLE_CHARS = 50


class MessageSeq(TypedDict):
    seq: int


def _idle(ports: "Ports") -> str:
    """The open session's id, when no turn runs."""
    session_id = ports.state.session_id
    if session_id is None:
        raise RequestError("not_found", "No session is open yet.")
    if ports.sessions.turn_running:
        raise RequestError("busy", "A turn is running. Wait for it, or stop it first.")
    return session_id


async def session_branch(ports: "Ports", params: MessageSeq) -> SessionView:
    """Show the version ``seq`` of a message, with the later turns last in view under it; the next turn
    continues from there. Kept: a reload shows the same branch."""
    store = await ports.state.store()
    session_id = _idle(ports)
    if store.show_branch(session_id, integer(params, "seq", low=1)):
        await ports.state.save()
    return ports.sessions.view()


async def session_fork(ports: "Ports", params: MessageSeq) -> SessionView:
    """A new session with the branch up to and including message ``seq``, opened at once; the original
    does not change."""
    store = await ports.state.store()
    session_id = _idle(ports)
    title = store.get_session(session_id).title or "a chat"
    short = title if len(title) <= _FORK_TITLE_CHARS else title[: _FORK_TITLE_CHARS - 1].rstrip() + "…"
    forked = store.fork_session(session_id, integer(params, "seq", low=1), f"Fork of {short}")
    await ports.state.save()
    return await ports.sessions.switch(forked.id)


METHODS: Table = {
    "session_branch": Method(MessageSeq, SessionView, session_branch),
    "session_fork": Method(MessageSeq, SessionView, session_fork),
}

"""Where the versions of a message show in a session's view (``ViewMessage.branch``).

The versions of a user message are its siblings in the store (store/branches.py). Those whose texts
differ are the message's own versions (an edit): ``branch`` on the user message counts the different
texts. Those with the same text as the one in view are versions of its reply (a regenerate):
``branch`` on the turn's last reply counts them (on the user message when the turn has no reply and
no edit to show). ``prev`` / ``next``: the seq to bring into view (``session_branch``) for the version
before / after, the one last in view when several share a text; null at the ends.
"""

from typing import TypedDict

from runtime.store.branches import Version
from runtime.store.export import content_text


class ViewBranch(TypedDict):
    """Version ``index`` of ``count`` (1-based); ``prev`` / ``next``: the seq to show for its neighbours."""

    index: int
    count: int
    prev: int | None
    next: int | None


def _step(picks: list[int], at: int) -> ViewBranch:
    return {
        "index": at + 1,
        "count": len(picks),
        "prev": picks[at - 1] if at > 0 else None,
        "next": picks[at + 1] if at + 1 < len(picks) else None,
    }


def edit_branch(group: list[Version], shown: Version) -> ViewBranch | None:
    """The user message's versions by text (each text: its version last in view), or None when one text."""
    by_text: dict[str, Version] = {}
    for version in group:
        key = content_text(version.content)
        if key not in by_text or version.rank > by_text[key].rank:
            by_text[key] = version
    if len(by_text) < 2:
        return None
    texts = list(by_text)
    return _step([by_text[t].seq for t in texts], texts.index(content_text(shown.content)))


def reply_branch(group: list[Version], shown: Version) -> ViewBranch | None:
    """The versions of the reply: those that asked the same text, or None when there is one."""
    same = [v.seq for v in group if content_text(v.content) == content_text(shown.content)]
    return _step(same, same.index(shown.seq)) if len(same) > 1 else None

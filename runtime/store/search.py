"""Finding past conversations by what was said in them (the sidebar's search).

Every word of the query must appear (case-insensitively) in the session's title or in one of its
user or assistant messages of the current branch; the newest sessions come first, each with a short
excerpt around the first hit. A plain scan: a person's store holds thousands of messages, not
millions, and it needs no index to keep in step with message edits.
"""

from __future__ import annotations

from dataclasses import dataclass

from runtime.store.agent_tasks import CHILD_SESSIONS
from runtime.store.base import StoreBase, loads
from runtime.store.export import content_text
from runtime.store.values import Session

EXCERPT_CHARS = 90


@dataclass(frozen=True)
class SessionHit:
    session: Session
    excerpt: str


class SearchMixin(StoreBase):
    def search_sessions(self, query: str, limit: int = 50) -> list[SessionHit]:
        words = [w.casefold() for w in query.split()][:8]
        if not words:
            return []
        rows = self._rows(
            "SELECT s.id, s.title, s.created, s.updated, s.model, m.content FROM sessions s"
            " LEFT JOIN messages m ON m.session_id = s.id AND m.kind = 'message' AND m.role IN ('user', 'assistant')"
            f" WHERE s.id NOT IN ({CHILD_SESSIONS}) ORDER BY s.updated DESC, s.rowid DESC, m.seq"
        )
        hits: dict[str, tuple[Session, list[str]]] = {}
        for row in rows:
            session = Session(row["id"], row["title"], row["created"], row["updated"], row["model"])
            texts = hits.setdefault(session.id, (session, [session.title]))[1]
            if row["content"] is not None:
                texts.append(content_text(loads(row["content"])))
        out = []
        for session, texts in hits.values():
            folded = [t.casefold() for t in texts]
            if all(any(w in t for t in folded) for w in words):
                out.append(SessionHit(session, _excerpt(texts, folded, words[0])))
            if len(out) >= limit:
                break
        return out


def _excerpt(texts: list[str], folded: list[str], word: str) -> str:
    for text, low in zip(texts[1:], folded[1:], strict=True):  # a message, not the title
        at = low.find(word)
        if at >= 0:
            start = max(0, at - EXCERPT_CHARS // 3)
            piece = " ".join(text[start : start + EXCERPT_CHARS].split())
            return ("…" if start else "") + piece + ("…" if start + EXCERPT_CHARS < len(text) else "")
    return ""

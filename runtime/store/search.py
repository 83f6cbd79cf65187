"""Finding past conversations by what was said in them (the sidebar's search).

Every word of the query must appear (case-insensitively) in the session's title or in one of its
user or assistant messages in view; the newest sessions come first, each with a short excerpt around
the first word in the first message that holds every word (looked for among the rows the index names
for the rarest word, or the first 100), or else in the first message that holds the first word.

What is read grows with what is found, not with what is stored: an index of the messages' trigrams
(``messages_search``, migration 0011, kept in step by triggers) names the rows that may hold a word of
two or more characters, and only those are read and checked. A word of one character is checked on
the rows of the sessions the other words found (on every session, newest first, until ``limit`` hits,
when it is alone).

The index holds each message's stored JSON, so a word is looked up there only when it is written the
same in JSON and in the text and folds the same in SQLite as in ``str.casefold``: ASCII but ``"``,
``\\`` and brackets, and characters without case (CJK, digits). Other words are checked on the rows
the rest of the query found. One consequence: a word that matches the text only through Unicode case
folding (``strasse`` for "Straße") is not found when the index is asked for it.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from itertools import islice

from runtime.store.agent_tasks import CHILD_SESSIONS
from runtime.store.base import StoreBase, loads
from runtime.store.export import content_text
from runtime.store.values import Session

EXCERPT_CHARS = 90
SEARCH_TABLE = "messages_search"
DELETE_TRIGGER = "messages_search_ad"  # the index forgets a deleted message (migration 0011)
# A session holding this much text, and more than all the others, leaves the index by its rebuild from the others.
BULK_DELETE_CHARS = 1_000_000
COMMON_ROWS = 500  # a word in more messages than this is read for in order, not through the index
PLAIN_TOGETHER = 100  # rows read in order for one that holds every word, when no word is read through the index
_JSON_SPECIAL = frozenset('"\\[]')  # escaped in JSON, or written by content_text and not stored


def searched(row: str = "") -> str:
    """The rows the search reads and the index holds (``row``: ``"new."`` or ``"old."`` in a trigger)."""
    return f"{row}kind = 'message' AND {row}role IN ('user', 'assistant')"


@dataclass(frozen=True)
class SessionHit:
    session: Session
    excerpt: str
    seq: int | None = None  # the message the excerpt comes from (None: only the title matched)


class SearchMixin(StoreBase):
    def _delete_messages(self, session_id: str) -> None:
        """Delete the session's messages (within the caller's transaction). The index forgets a message by
        cutting its text into trigrams once more (``DELETE_TRIGGER``), which for a long chat costs seconds; when
        the session holds more text than every other one together, the index is emptied and what stays is
        indexed afresh instead, which cuts less text, and the trigger is put back as it was."""
        delete = ("DELETE FROM messages WHERE session_id = ?", [session_id])
        mine = self._chars("session_id = ?", session_id)
        trigger = self._one("SELECT sql FROM sqlite_master WHERE type = 'trigger' AND name = ?", [DELETE_TRIGGER])
        if mine < BULK_DELETE_CHARS or trigger is None or self._chars("session_id != ?", session_id) >= mine:
            self._db.execute(*delete)
            return
        self._db.execute(f"DROP TRIGGER {DELETE_TRIGGER}")
        self._db.execute(*delete)
        self._db.execute(f"INSERT INTO {SEARCH_TABLE}({SEARCH_TABLE}) VALUES ('delete-all')")
        self._db.execute(
            f"INSERT INTO {SEARCH_TABLE}(rowid, content) SELECT rowid, content FROM messages WHERE {searched()}"
        )
        self._db.execute(trigger["sql"])

    def _chars(self, where: str, session_id: str) -> int:
        """The characters of the searched messages ``where`` says (their text is read, not cut into trigrams)."""
        row = self._one(
            f"SELECT coalesce(sum(length(content)), 0) AS n FROM messages WHERE {where} AND {searched()}", [session_id]
        )
        return int(row["n"]) if row else 0

    def search_sessions(self, query: str, limit: int = 50) -> list[SessionHit]:
        typed = query.split()[:8]
        words = list(dict.fromkeys(w.casefold() for w in typed))
        if not words:
            return []
        # as typed: "straße" folds to an ASCII word that its stored form does not hold
        unindexed = {w.casefold() for w in typed if not _indexed(w)}
        looked_up = [w for w in words if w not in unindexed]
        sessions = [
            Session(r["id"], r["title"], r["created"], r["updated"], r["model"])
            for r in self._rows(
                f"SELECT * FROM sessions WHERE id NOT IN ({CHILD_SESSIONS}) ORDER BY updated DESC, rowid DESC"
            )
        ]
        matches = {w: self._match(w) for w in looked_up}
        counts = {w: self._count(m) for w, m in matches.items()}
        # a word in few rows is read through the index (its rows per session, found once); one in many is found
        # soon in a plain read
        narrow = {w: self._rows_holding(m) for w, m in matches.items() if m is not None and counts[w] <= COMMON_ROWS}
        absent = {w for w, m in matches.items() if m is None}
        rarest = min(looked_up, key=counts.__getitem__) if looked_up else None
        if rarest is not None:  # the sessions that may hold the rarest word: every other is left unread
            holding = set(narrow[rarest]) if rarest in narrow else self._sessions_holding(matches[rarest])
            sessions = [s for s in sessions if s.id in holding or rarest in s.title.casefold()]
        out = []
        for session in sessions:
            excerpt = self._checked(session, words, narrow, absent)
            if excerpt is not None and len(words) > 1:  # one message that holds every word, if there is one
                rows = narrow[rarest].get(session.id, []) if rarest in narrow else None
                excerpt = self._together(session.id, words, rows) or excerpt
            if excerpt is not None:
                out.append(SessionHit(session, *excerpt))
                if len(out) >= limit:
                    break
        return out

    def _match(self, word: str) -> str | None:
        """The index's query for the rows that may hold ``word``: each of its trigrams, or for two characters,
        any trigram that starts with them (in the stored JSON a character of the text is always followed by
        another: a closing quote at least). None: no row holds it."""
        if len(word) > 2:
            grams = list(dict.fromkeys(word[i : i + 3] for i in range(len(word) - 2)))
        else:
            grams = [
                term
                for (term,) in self._db.execute(
                    f"SELECT term FROM {SEARCH_TABLE}_terms WHERE term >= ? AND term < ?",
                    [word, word[0] + chr(ord(word[1]) + 1)],
                )
            ]
        joined = (" AND " if len(word) > 2 else " OR ").join('"' + g.replace('"', '""') + '"' for g in grams)
        return joined or None

    def _count(self, match: str | None) -> int:
        """How many rows may hold the word, counted up to one past COMMON_ROWS."""
        if match is None:
            return 0
        sql = f"SELECT count(*) FROM ({_HOLDING} LIMIT {COMMON_ROWS + 1})"
        return int(self._db.execute(sql, [match]).fetchone()[0])

    def _sessions_holding(self, match: str | None) -> set[str]:
        """Every session with a message the index names (for the rarest word when it is in many: the sessions
        alone, in SQLite; `_rows_holding` keeps the rowids of a word in few)."""
        if match is None:
            return set()
        sql = f"SELECT DISTINCT session_id FROM messages WHERE rowid IN ({_HOLDING})"
        return {session_id for (session_id,) in self._db.execute(sql, [match])}

    def _rows_holding(self, match: str) -> dict[str, list[int]]:
        """Session → the rowids of its messages the index names (for a word in few rows)."""
        found: dict[str, list[int]] = {}
        sql = f"SELECT session_id, rowid FROM messages WHERE rowid IN ({_HOLDING})"
        for session_id, rowid in self._db.execute(sql, [match]):
            found.setdefault(session_id, []).append(rowid)
        return found

    def _checked(
        self, session: Session, words: Sequence[str], narrow: Mapping[str, Mapping[str, list[int]]], absent: set[str]
    ) -> tuple[str, int | None] | None:
        """The excerpt around the first word's first hit and its message's seq (or "", None) when every word is
        in the title or in a message, else None. Each word reads the rows in order until one holds it: those the
        index names for a word in ``narrow``, none for one ``absent``, else all."""
        title = session.title.casefold()
        excerpt: tuple[str, int | None] = ("", None)
        for n, word in enumerate(words):
            if n and word in title:
                continue
            rows = narrow[word].get(session.id, []) if word in narrow else None
            texts = () if word in absent else self._texts(session.id, rows)
            hit = next(((seq, t) for seq, t in texts if word in t.casefold()), None)
            if hit is None and word not in title:
                return None
            if hit is not None and not n:
                excerpt = (_excerpt(hit[1], hit[1].casefold(), word), hit[0])
        return excerpt

    def _together(self, session_id: str, words: Sequence[str], rows: Sequence[int] | None) -> tuple[str, int] | None:
        """The excerpt around the first word in the first message that holds every word (among ``rows``, or
        the session's first PLAIN_TOGETHER), and that message, if one does."""
        for seq, text in islice(self._texts(session_id, rows), COMMON_ROWS if rows is not None else PLAIN_TOGETHER):
            folded = text.casefold()
            if all(w in folded for w in words):
                return _excerpt(text, folded, words[0]), seq
        return None

    def _texts(self, session_id: str, rows: Sequence[int] | None) -> Iterator[tuple[int, str]]:
        """The seq and text of the session's messages in view, in order (``rows``: only these)."""
        if rows is None:
            sql, params = "session_id = ?", [session_id]
        elif not rows:
            return
        else:  # from the few rows, not along the session's (`+`: its index is not used)
            sql, params = "+session_id = ? AND rowid IN (SELECT value FROM json_each(?))", [session_id, str(list(rows))]
        cursor = self._db.execute(
            f"SELECT seq, content FROM messages WHERE {sql} AND {searched()} ORDER BY seq", params
        )
        try:
            for seq, content in cursor:
                yield seq, content_text(loads(content))
        finally:
            cursor.close()


_HOLDING = f"SELECT rowid FROM {SEARCH_TABLE} WHERE {SEARCH_TABLE} MATCH ?"


def _indexed(word: str) -> bool:
    """Whether the index can name every row holding ``word`` (casefolded): see the module's text."""
    return len(word) >= 2 and all(_as_stored(c) for c in word)


def _as_stored(c: str) -> bool:
    """ASCII that JSON writes as it is, or a printable character without case."""
    if c < "\x80":
        return " " < c < "\x7f" and c not in _JSON_SPECIAL
    return c.isprintable() and c.upper() == c == c.lower() == c.casefold()


def _excerpt(text: str, low: str, word: str) -> str:
    at = low.find(word)
    start = max(0, at - EXCERPT_CHARS // 3)
    piece = " ".join(text[start : start + EXCERPT_CHARS].split())
    return ("…" if start else "") + piece + ("…" if start + EXCERPT_CHARS < len(text) else "")

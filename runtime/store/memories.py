"""Memories: short notes the agent keeps across sessions, full-text searchable (FTS5, bm25-ranked).

User text never reaches FTS5's query syntax: ``fts_query`` keeps only word characters and quotes
each term, so ``"``, ``*``, ``AND``, ``-`` or ``NEAR(`` are plain text and a search never raises.

Ranking cost is bounded: bm25 is computed for at most ``RANK_CANDIDATES`` matches (the most recent
ones) so a very broad query over 100k memories stays within a few milliseconds; a query whose
matches fit under that bound is ranked exactly. Common English words are dropped from "any"
queries (when other words remain) so they neither dilute the ranking nor crowd out the candidates.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any, Literal

from runtime.store.base import Row, StoreBase, dumps, loads
from runtime.store.errors import StoreError
from runtime.store.values import Memory, MemoryHit

MAX_QUERY_TERMS = 32
RANK_CANDIDATES = 500
# Innermost: the most recent matches (bounded work); then the best `limit` of them by bm25; then their rows.
_SEARCH_SQL = (
    "SELECT m.*, f.rank AS rank FROM ("
    " SELECT rowid, rank FROM ("
    "  SELECT rowid, rank FROM memories_fts WHERE memories_fts MATCH ? ORDER BY rowid DESC LIMIT ?"
    " ) ORDER BY rank LIMIT ?"
    ") AS f JOIN memories AS m ON m.id = f.rowid ORDER BY f.rank, m.id DESC"
)
MAX_MEMORY_CHARS = 20_000
_WORD = re.compile(r"\w+", re.UNICODE)

Match = Literal["any", "all"]

_STOPWORDS_TEXT = """
    a about after all also am an and any are as at be been but by can could did do does for from had has
    have he her his how i if in into is it its me my no not of on or our she so than that the their them then
    there these they this to too up us was we were what when where which who why will with would you your"""
STOPWORDS = frozenset(_STOPWORDS_TEXT.split())


def fts_query(text: str, *, match: Match = "any", prefix_last: bool = False) -> str | None:
    """An FTS5 MATCH expression for free text, or None when the text has no searchable word.

    ``any``: a memory matching more (and rarer) terms ranks higher; ``all``: every term must match
    (for filter-as-you-type, with ``prefix_last`` so a half-typed word matches).
    """
    terms = _WORD.findall(text)[:MAX_QUERY_TERMS]
    if not terms:
        return None
    if match == "any":
        terms = [t for t in terms if t.lower() not in STOPWORDS] or terms
    quoted = [f'"{t}"' for t in terms]  # \w+ holds no double quote, so nothing to escape
    if prefix_last:
        quoted[-1] += "*"
    return (" OR " if match == "any" else " AND ").join(quoted)


def _clean_tags(tags: Iterable[str] | str | None) -> list[str]:
    seen: list[str] = []
    for tag in [tags] if isinstance(tags, str) else tags or ():
        clean = " ".join(str(tag).split())
        if clean and clean not in seen:
            seen.append(clean)
    return seen


def _memory(row: Row) -> Memory:
    return Memory(
        row["id"], row["text"], tuple(loads(row["tags"], [])), bool(row["pinned"]), row["created"], row["updated"]
    )


class MemoriesMixin(StoreBase):
    def memory_save(self, text: str, tags: Iterable[str] | str | None = None, *, pinned: bool = False) -> Memory:
        clean = _clean_text(text)
        now = self._now()
        cursor = self._db.execute(
            "INSERT INTO memories (text, tags, pinned, created, updated) VALUES (?, ?, ?, ?, ?)",
            [clean, dumps(_clean_tags(tags)), int(pinned), now, now],
        )
        return self.memory_get(int(cursor.lastrowid or 0))

    def memory_get(self, memory_id: int) -> Memory:
        row = self._one("SELECT * FROM memories WHERE id = ?", [memory_id])
        if row is None:
            raise StoreError("not_found", f"No memory with id {memory_id}.", entity="memory", key=memory_id)
        return _memory(row)

    def memory_update(
        self,
        memory_id: int,
        *,
        text: str | None = None,
        tags: Iterable[str] | str | None = None,
        pinned: bool | None = None,
    ) -> Memory:
        current = self.memory_get(memory_id)
        self._db.execute(
            "UPDATE memories SET text = ?, tags = ?, pinned = ?, updated = ? WHERE id = ?",
            [
                current.text if text is None else _clean_text(text),
                dumps(list(current.tags) if tags is None else _clean_tags(tags)),
                int(current.pinned if pinned is None else pinned),
                self._now(),
                memory_id,
            ],
        )
        return self.memory_get(memory_id)

    def memory_delete(self, memory_id: int) -> None:
        cursor = self._db.execute("DELETE FROM memories WHERE id = ?", [memory_id])
        if cursor.rowcount == 0:
            raise StoreError("not_found", f"No memory with id {memory_id}.", entity="memory", key=memory_id)

    def memory_list(self, *, limit: int | None = None, offset: int = 0) -> list[Memory]:
        """Most recently updated first."""
        rows = self._rows(
            "SELECT * FROM memories ORDER BY updated DESC, id DESC LIMIT ? OFFSET ?", [limit or -1, offset]
        )
        return [_memory(r) for r in rows]

    def memory_pinned(self) -> list[Memory]:
        """Pinned memories, oldest first: they go into every system prompt."""
        return [_memory(r) for r in self._rows("SELECT * FROM memories WHERE pinned = 1 ORDER BY created, id")]

    def memory_count(self) -> int:
        row = self._one("SELECT COUNT(*) AS n FROM memories")
        return int(row["n"]) if row else 0

    def memory_search(
        self, query: str, *, limit: int = 10, match: Match = "any", prefix_last: bool = False
    ) -> list[MemoryHit]:
        """Best match first (bm25 over text and tags). Text with no searchable word finds nothing."""
        expression = fts_query(query, match=match, prefix_last=prefix_last)
        if expression is None or limit <= 0:
            return []
        rows = self._rows(_SEARCH_SQL, [expression, RANK_CANDIDATES, limit])
        return [MemoryHit(_memory(r), float(r["rank"])) for r in rows]


def _clean_text(text: Any) -> str:
    clean = str(text).strip()
    if not clean:
        raise StoreError("invalid", "A memory needs some text.", entity="memory")
    if len(clean) > MAX_MEMORY_CHARS:
        raise StoreError("invalid", f"A memory is limited to {MAX_MEMORY_CHARS} characters.", entity="memory")
    return clean

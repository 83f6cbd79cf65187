"""Images that messages carry (pasted or dropped into a user message): stored as bytes in their own
table (``message_images``, migration ``0005_message_images``), keyed by the message's session and seq.

Readers attach them to ``StoredMessage.images``: with their bytes for what goes to the model
(``context_messages``), without for what the UI lists; the UI reads each one with ``get_image``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from runtime.store.base import Row, StoreBase
from runtime.store.errors import StoreError
from runtime.store.values import StoredImage, StoredMessage

NewImage = tuple[str, str, bytes]  # media type, name, bytes


def _image(row: Row) -> StoredImage:
    data = row.get("data")
    return StoredImage(
        row["id"], row["session_id"], row["seq"], row["position"], row["media_type"], row["name"], row["size"],
        bytes(data) if data is not None else None,
    )  # fmt: skip


class ImagesMixin(StoreBase):
    def add_images(self, session_id: str, seq: int, images: Sequence[NewImage]) -> tuple[StoredImage, ...]:
        """Store ``images`` with message ``seq`` of the session, in order."""
        now = self._now()
        with self._db.atomic():
            for position, (media_type, name, data) in enumerate(images):
                self._db.execute(
                    "INSERT INTO message_images (session_id, seq, position, media_type, name, data, created)"
                    " VALUES (?, ?, ?, ?, ?, ?, ?)",
                    [session_id, seq, position, media_type, name, data, now],
                )
        return tuple(self._images(session_id, False, [seq]).get(seq, ()))

    def get_image(self, image_id: int) -> StoredImage:
        row = self._one(
            "SELECT id, session_id, seq, position, media_type, name, length(data) AS size, data"
            " FROM message_images WHERE id = ?",
            [image_id],
        )
        if row is None:
            raise StoreError("not_found", f"No image {image_id} in the store.", entity="image", key=str(image_id))
        return _image(row)

    def with_images(self, messages: list[StoredMessage], *, data: bool) -> list[StoredMessage]:
        """``messages`` (of one session) with their images attached, bytes included when ``data``."""
        users = [m.seq for m in messages if m.role == "user"]
        if not users:
            return messages
        found = self._images(messages[0].session_id, data, users)
        return [replace(m, images=tuple(found[m.seq])) if m.seq in found else m for m in messages]

    def _images(self, session_id: str, data: bool, seqs: Sequence[int]) -> dict[int, list[StoredImage]]:
        column = ", data" if data else ""
        wanted = set(seqs)
        rows = self._rows(
            f"SELECT id, session_id, seq, position, media_type, name, length(data) AS size{column}"
            " FROM message_images WHERE session_id = ? ORDER BY seq, position",
            [session_id],
        )  # one session's images, few: filtered here rather than with a parameter per seq
        out: dict[int, list[StoredImage]] = {}
        for row in rows:
            if row["seq"] in wanted:
                out.setdefault(row["seq"], []).append(_image(row))
        return out

"""The store's error: one class, branched on by ``code``, never by text."""

from __future__ import annotations

from typing import Literal

from runtime.errors import TidepoolError

StoreErrorCode = Literal[
    "newer_schema",  # the database was written by a newer Tidepool; it is left untouched
    "corrupt",  # the bytes or file are not a readable SQLite database
    "not_found",  # no session / memory / ledger entry / approval with that id
    "invalid",  # a value the store refuses (empty text, unknown status, ...)
    "in_transaction",  # serialize() while a transaction is open would persist uncommitted work
]


class StoreError(TidepoolError):
    """A store operation failed. ``code`` says why; the other fields say about what."""

    def __init__(
        self,
        code: StoreErrorCode,
        message: str,
        *,
        entity: str | None = None,
        key: str | int | None = None,
        found_version: int | None = None,
        known_version: int | None = None,
    ) -> None:
        super().__init__(message)
        self.code: StoreErrorCode = code
        self.entity = entity
        self.key = key
        self.found_version = found_version
        self.known_version = known_version

    def __repr__(self) -> str:
        return f"StoreError(code={self.code!r}, message={self.message!r})"

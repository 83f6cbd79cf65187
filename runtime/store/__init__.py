"""The workspace's state in SQLite: sessions, messages, tool ledger, memories (FTS5), approvals, settings.

Importing this package is cheap; sqlite-utils is imported when a ``Store`` is opened.
"""

from runtime.store.durability import Choice, Generations, check_integrity, integrity_ok
from runtime.store.errors import StoreError
from runtime.store.store import Store
from runtime.store.values import LedgerEntry, Memory, MemoryHit, PendingApproval, Session, StoredMessage

__all__ = [
    "Choice",
    "Generations",
    "LedgerEntry",
    "Memory",
    "MemoryHit",
    "PendingApproval",
    "Session",
    "Store",
    "StoreError",
    "StoredMessage",
    "check_integrity",
    "integrity_ok",
]

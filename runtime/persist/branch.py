"""An edited or regenerated turn replaces the conversation from that turn on (``user_message.replaces_turn``).

The replaced messages stay in the store as an earlier branch (``runtime/store/branches.py``); the new
turn is then stored after them and saved with its first step.
"""

from __future__ import annotations

import logging

from runtime.persist.journal import SessionJournal
from runtime.store import StoreError

log = logging.getLogger(__name__)


def supersede_turn(journal: SessionJournal, turn_id: str) -> int:
    """Set turn ``turn_id`` and everything after it aside; how many messages (0: nothing stored for it)."""
    if journal.detached:
        return 0
    try:
        count = journal.store.supersede_turn(journal.session_id, turn_id)
    except StoreError as exc:
        log.warning("could not keep turn %s as an earlier branch: %s", turn_id, exc)
        return 0
    log.info("turn %s and what followed (%d messages) kept as an earlier branch", turn_id, count)
    return count

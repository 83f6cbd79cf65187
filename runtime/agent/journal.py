"""What the loop tells the conversation's record as each step completes (``Journal``).

The loop and the call runner report every completed step here: the user's message, each assistant
message, each tool call's approval, start and result, the end of the turn. The implementation
(``runtime.persist.journal``) stores them and persists the database once per step; a step's methods
return after the host confirmed the save (or said it failed). ``context`` is what the model may see:
the stored messages of the session with any summary in place of what it covers.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from runtime.chat.messages import AssistantMessage, ImagePart, ToolResultMessage
from runtime.host.messages import Decision, ToolStatus, TurnEndReason
from runtime.store.values import MessageStatus, StoredMessage


class Journal(Protocol):
    async def user_message(self, turn_id: str, text: str, images: Sequence[tuple[ImagePart, bytes]] = ()) -> None:
        """The person's message, with the images it carries (each with its bytes)."""
        ...

    async def assistant_message(self, turn_id: str, message: AssistantMessage, status: MessageStatus) -> None: ...

    def fresh_call_id(self, call_id: str) -> str:
        """``call_id`` when no call of this workspace has it yet, else a new unique id."""
        ...

    async def call_asking(self, turn_id: str, call_id: str, tool: str, arguments: dict[str, object]) -> None:
        """The call waits for the person: the pending approval is saved before anyone is asked."""
        ...

    async def call_decided(self, call_id: str, decision: Decision) -> None: ...

    def call_started(self, turn_id: str, call_id: str, tool: str, arguments: dict[str, object]) -> None:
        """The tool runs now (saved with its result, not on its own)."""
        ...

    async def tool_result(
        self, turn_id: str, result: ToolResultMessage, status: ToolStatus, arguments: dict[str, object]
    ) -> None:
        """The call's result (every call gets one, whatever happened), with its ledger entry closed."""
        ...

    async def turn_finished(self, turn_id: str, reason: TurnEndReason) -> None: ...

    def context(self) -> list[StoredMessage]:
        """The session's messages as the model should see them (a summary in place of older ones)."""
        ...

    async def save_summary(self, text: str, covers_to_seq: int) -> None: ...

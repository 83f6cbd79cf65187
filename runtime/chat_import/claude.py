"""Claude.ai's data export: ``conversations.json``, a list of conversations with ``chat_messages``.

Each message has ``sender`` (``human`` or ``assistant``), ``text`` and, in newer exports, ``content``
blocks (``text``, ``thinking``, ``tool_use``, ``tool_result``) and ``parent_message_uuid``, which makes
the conversation a tree (edits and retries); without it the messages are one line in order. Files
the person attached come with their ``extracted_content`` when Claude read them as text (kept, as
part of the message); other files only by name.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from runtime.chat_import.model import joined
from runtime.chat_import.times import from_iso
from runtime.store.imported import ImportedChat, ImportedMessage, ImportRole

_ROOT = "00000000-0000-4000-8000-000000000000"  # Claude's parent of a conversation's first message


def is_claude(item: object) -> bool:
    return isinstance(item, Mapping) and isinstance(item.get("chat_messages"), list)


def read_conversation(item: Mapping[str, Any]) -> ImportedChat:
    problems: list[str] = []
    messages: list[ImportedMessage] = []
    previous: str | None = None
    rows = [m for m in item["chat_messages"] if isinstance(m, Mapping)]
    tree = any("parent_message_uuid" in m for m in rows)
    known = {str(m.get("uuid")) for m in rows}
    for index, row in enumerate(rows):
        message_id = str(row.get("uuid") or f"m{index}")
        parent = _parent(row, known) if tree else previous
        message = _message(row, message_id, parent, problems)
        if message is None:
            continue
        messages.append(message)
        previous = message_id
    problems.extend(_skipped_senders(rows))
    current = item.get("current_leaf_message_uuid")
    created = from_iso(item.get("created_at"))
    return ImportedChat(
        "claude", str(item.get("uuid") or ""), str(item.get("name") or "").strip(), created,
        from_iso(item.get("updated_at")) or created, tuple(messages),
        str(current) if current in known else (messages[-1].id if messages else None), tuple(dict.fromkeys(problems)),
    )  # fmt: skip


def _parent(row: Mapping[str, Any], known: set[str]) -> str | None:
    parent = row.get("parent_message_uuid")
    return str(parent) if parent and parent != _ROOT and str(parent) in known else None


def _message(
    row: Mapping[str, Any], message_id: str, parent: str | None, problems: list[str]
) -> ImportedMessage | None:
    sender = row.get("sender")
    if sender not in ("human", "assistant"):
        return None
    text, reasoning = _blocks(row, problems)
    if sender == "human":
        text = joined([text, *_attached(row, problems)])
    if not text and not reasoning:
        return None
    role: ImportRole = "user" if sender == "human" else "assistant"
    return ImportedMessage(message_id, parent, role, text, from_iso(row.get("created_at")), reasoning)


def _blocks(row: Mapping[str, Any], problems: list[str]) -> tuple[str, str]:
    blocks = row.get("content")
    if not isinstance(blocks, list) or not blocks:
        return str(row.get("text") or ""), ""
    texts: list[str] = []
    thinking: list[str] = []
    for block in blocks:
        if not isinstance(block, Mapping):
            continue
        kind = block.get("type")
        if kind == "text":
            texts.append(str(block.get("text") or ""))
        elif kind == "thinking":
            thinking.append(str(block.get("thinking") or ""))
        elif kind == "tool_use":
            texts.append(_tool_use(block))
        elif kind == "tool_result":
            texts.append(_tool_result(block))
        elif kind not in ("token_budget",):
            problems.append(f"a '{kind}' block was not imported")
    return joined(texts), joined(thinking)


def _tool_use(block: Mapping[str, Any]) -> str:
    arguments = json.dumps(block.get("input"), ensure_ascii=False, indent=2) if block.get("input") else ""
    head = f"*Used Claude's tool {block.get('name') or 'a tool'}:*"
    return f"{head}\n\n```json\n{arguments}\n```" if arguments else head


def _tool_result(block: Mapping[str, Any]) -> str:
    content = block.get("content")
    if isinstance(content, list):
        text = joined([str(c.get("text") or "") for c in content if isinstance(c, Mapping)])
    else:
        text = str(content or "")
    head = f"*Result of {block.get('name') or 'the tool'}{' (an error)' if block.get('is_error') else ''}:*"
    return f"{head}\n\n{text}" if text else head


def _attached(row: Mapping[str, Any], problems: list[str]) -> list[str]:
    out: list[str] = []
    for attachment in row.get("attachments") or []:
        if not isinstance(attachment, Mapping):
            continue
        name = str(attachment.get("file_name") or "a file")
        content = attachment.get("extracted_content")
        if isinstance(content, str) and content:
            out.append(f"Attached file `{name}`:\n\n````\n{content}\n````")
        else:
            out.append(f"[attached: {name}]")
            problems.append(f"the attachment {name} came without its content (only its name is kept)")
    for file in row.get("files") or []:
        if isinstance(file, Mapping):
            name = str(file.get("file_name") or "a file")
            out.append(f"[attached: {name}]")
            problems.append(f"the file {name} is not in the export (only its name is kept)")
    return out


def _skipped_senders(rows: list[Mapping[str, Any]]) -> list[str]:
    others = sorted({str(r.get("sender")) for r in rows if r.get("sender") not in ("human", "assistant")})
    return [f"messages from '{s}' were not imported" for s in others]

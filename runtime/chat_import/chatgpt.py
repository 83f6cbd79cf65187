"""ChatGPT's data export: ``conversations.json`` (a list), or the 2026 zip of ``conversations-*.json`` files.

Each conversation is a tree (``mapping``: node id → ``{message, parent, children}``) with
``current_node`` the leaf the app showed. Messages the app hides (system prompts, custom
instructions, ``is_visually_hidden_from_conversation``) are left out and their children hang on
the nearest message kept. ChatGPT's own tools (code it ran, browsing, their output) have no
Tidepool counterpart: they are folded into the assistant's reply as text, and named in the report.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from runtime.chat_import.model import joined
from runtime.chat_import.times import from_epoch
from runtime.store.imported import ImportedChat, ImportedMessage, ImportRole


@dataclass
class _Read:
    role: ImportRole
    text: str
    reasoning: str = ""
    problems: list[str] = field(default_factory=list)
    tool: bool = False  # a tool's output or a call to one: folded into the assistant's reply


def is_chatgpt(item: object) -> bool:
    return isinstance(item, Mapping) and isinstance(item.get("mapping"), Mapping)


def read_conversation(item: Mapping[str, Any]) -> ImportedChat:
    mapping: Mapping[str, Any] = item["mapping"]
    messages: list[ImportedMessage] = []
    problems: list[str] = []
    kept: dict[str, str | None] = {}  # node id → the id of the message it hangs on (itself when kept)
    for node_id in _in_tree_order(mapping):
        node = mapping[node_id]
        parent = kept.get(str(node.get("parent") or "")) if isinstance(node, Mapping) else None
        read = _read_node(node)
        if read is None:
            kept[node_id] = parent
            continue
        problems.extend(read.problems)
        folded = _fold(messages, parent, read)
        if folded is not None:
            kept[node_id] = folded
            continue
        message = _message(node_id, parent, read, node)
        messages.append(message)
        kept[node_id] = message.id
    current = kept.get(str(item.get("current_node") or ""))
    source_id = str(item.get("conversation_id") or item.get("id") or "")
    title = str(item.get("title") or "").strip()
    created = from_epoch(item.get("create_time"))
    return ImportedChat(
        "chatgpt", source_id, title, created, from_epoch(item.get("update_time")) or created,
        tuple(messages), current, tuple(_unique(problems)),
    )  # fmt: skip


def _in_tree_order(mapping: Mapping[str, Any]) -> list[str]:
    """Node ids, each after its parent (the export's own order is not promised)."""
    roots = [k for k, v in mapping.items() if not isinstance(v, Mapping) or v.get("parent") not in mapping]
    order: list[str] = []
    seen: set[str] = set()
    stack = list(reversed(roots))
    while stack:
        node_id = stack.pop()
        if node_id in seen:
            continue
        seen.add(node_id)
        order.append(node_id)
        node = mapping.get(node_id)
        children = node.get("children") if isinstance(node, Mapping) else None
        if isinstance(children, list):
            stack.extend(str(c) for c in reversed(children) if str(c) in mapping)
    return order


def _message(node_id: str, parent: str | None, read: _Read, node: Mapping[str, Any]) -> ImportedMessage:
    message = _map(node.get("message"))
    meta = _map(message.get("metadata"))
    model = meta.get("model_slug") if isinstance(meta.get("model_slug"), str) else None
    created = from_epoch(message.get("create_time"))
    return ImportedMessage(node_id, parent, read.role, read.text, created, read.reasoning, model)


def _fold(messages: list[ImportedMessage], parent: str | None, read: _Read) -> str | None:
    """Join a tool step or a second assistant part onto the assistant reply it continues; its id, or None."""
    if read.role != "assistant" or not messages:
        return None
    index = next((i for i, m in enumerate(messages) if m.id == parent), None)
    if index is None or messages[index].role != "assistant":
        return None
    if any(m.parent == parent for m in messages):  # the reply already goes on: a sibling, not a continuation
        return None
    before = messages[index]
    messages[index] = ImportedMessage(
        before.id, before.parent, "assistant", joined([before.text, read.text]), before.created,
        joined([before.reasoning, read.reasoning]), before.model,
    )  # fmt: skip
    return before.id


def _read_node(node: object) -> _Read | None:
    message = node.get("message") if isinstance(node, Mapping) else None
    if not isinstance(message, Mapping):
        return None
    meta = _map(message.get("metadata"))
    if meta.get("is_visually_hidden_from_conversation"):
        return None
    author = _map(message.get("author"))
    role = author.get("role")
    if role not in ("user", "assistant", "tool"):
        return None
    content = _map(message.get("content"))
    read = _read_content(content)
    if read is None:
        return None
    if role == "user":
        read.role = "user"
        read.problems.extend(f"the attachment {a} was not imported (only its name is kept)" for a in _attachments(meta))
        read.text = joined([read.text, *(f"[attached: {a}]" for a in _attachments(meta))])
    elif role == "tool" or message.get("recipient") not in (None, "all"):
        read.tool = True
        read.text = _tool_text(author, message, read.text)
    return read if (read.text or read.reasoning) else None


def _tool_text(author: Mapping[str, Any], message: Mapping[str, Any], text: str) -> str:
    if author.get("role") == "tool":
        name = str(author.get("name") or "a tool")
        return f"*Output of ChatGPT's {name}:*\n\n{text}" if text else ""
    return f"*Sent to ChatGPT's {message.get('recipient')}:*\n\n{text}" if text else ""


def _attachments(meta: Mapping[str, Any]) -> list[str]:
    found = meta.get("attachments")
    if not isinstance(found, list):
        return []
    return [str(a.get("name") or a.get("id") or "a file") for a in found if isinstance(a, Mapping)]


def _read_content(content: Mapping[str, Any]) -> _Read | None:
    kind = content.get("content_type")
    if kind in ("text", "multimodal_text"):
        return _read_parts(content.get("parts"))
    if kind == "code":
        language = str(content.get("language") or "")
        language = "" if language == "unknown" else language
        return _Read("assistant", f"```{language}\n{content.get('text', '')}\n```")
    if kind == "execution_output":
        return _Read("assistant", f"```\n{content.get('text', '')}\n```")
    if kind == "thoughts":
        thoughts = content.get("thoughts")
        listed = thoughts if isinstance(thoughts, list) else []
        texts = [str(t.get("content") or t.get("summary") or "") for t in listed if isinstance(t, Mapping)]
        return _Read("assistant", "", reasoning=joined(texts))
    if kind in ("reasoning_recap", "user_editable_context", "model_editable_context"):
        return None
    return _read_other(kind, content)


def _read_other(kind: object, content: Mapping[str, Any]) -> _Read:
    if kind == "tether_quote":
        quote = "\n".join(f"> {line}" for line in str(content.get("text") or "").splitlines())
        return _Read("assistant", joined([quote, f"— {content.get('title') or ''} {content.get('url') or ''}".strip()]))
    if kind == "tether_browsing_display":
        return _Read("assistant", str(content.get("result") or content.get("summary") or ""))
    if kind == "system_error":
        return _Read("assistant", f"*Error:* {content.get('name') or ''} {content.get('text') or ''}".strip())
    text = str(content.get("text") or "")
    return _Read("assistant", text, problems=[] if text else [f"a '{kind}' part was not imported"])


def _read_parts(parts: object) -> _Read:
    texts: list[str] = []
    problems: list[str] = []
    for part in parts if isinstance(parts, list) else ():
        if isinstance(part, str):
            texts.append(part)
        elif isinstance(part, Mapping) and isinstance(part.get("text"), str):
            texts.append(part["text"])  # audio transcriptions and the like
        elif isinstance(part, Mapping) and part.get("content_type") == "image_asset_pointer":
            texts.append("[image not imported]")
            problems.append("an image was not imported (the export keeps it as a separate file)")
        elif isinstance(part, Mapping):
            problems.append(f"a '{part.get('content_type', 'unknown')}' part was not imported")
    return _Read("assistant", joined(texts), problems=problems)


def _unique(items: list[str]) -> list[str]:
    counts: dict[str, int] = {}
    for item in items:
        counts[item] = counts.get(item, 0) + 1
    return [item if n == 1 else f"{item} (×{n})" for item, n in counts.items()]


def _map(value: object) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}

"""Tool servers' resources attached to a user's message (``user_message.resources``).

The worker read them (``web/src/mcp/resources.ts``); here each becomes a block after the typed text,
wrapped as outside text with the server and the URI named (``wrap_untrusted``, kind ``resource``): a
text resource with its text, a blob by its type and size only (an image blob went in the message's
images, for a vision model). The blocks are stored with the message, so the model reads them again in
later turns and the page shows them as the message's attachments after a reload (it finds the
wrappers: ``web/src/ui/chat/attached-resources.ts``).
"""

from __future__ import annotations

from collections.abc import Sequence

from runtime.host.messages import AttachedResource
from runtime.tools.untrusted import wrap_untrusted

RESOURCES_PER_MESSAGE = 8
"""At most this many resources in one message (the composer holds no more)."""


def resource_source(resource: AttachedResource) -> str:
    """The wrapper's ``source``: the page reads the URI back from it."""
    return f"resource {resource['uri']} from tool server {resource['server']}"


def resource_block(resource: AttachedResource) -> str:
    """One resource as the model reads it."""
    kind = resource.get("mime_type") or "of unknown type"
    if "text" in resource:
        body = resource["text"]
    elif resource.get("image"):
        body = f"[an image ({kind}, {resource['size']} bytes): sent with this message as an image]"
    else:
        body = f"[binary content ({kind}, {resource['size']} bytes), not inlined]"
    return wrap_untrusted(body, resource_source(resource), "resource")


def with_resources(text: str, resources: Sequence[AttachedResource] | None) -> str:
    """``text`` followed by one block per attached resource (at most ``RESOURCES_PER_MESSAGE``)."""
    if not resources:
        return text
    blocks = [resource_block(r) for r in resources[:RESOURCES_PER_MESSAGE]]
    left = len(resources) - RESOURCES_PER_MESSAGE
    if left > 0:
        blocks.append(f"[{left} more attached resources left out: at most {RESOURCES_PER_MESSAGE} a message]")
    return "\n\n".join([text, *blocks]) if text else "\n\n".join(blocks)

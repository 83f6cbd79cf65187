"""Values both sides of the frame protocol share: the version, the enumerations, defaults and limits.

This module and ``runtime/host/messages.py`` are the one definition; ``scripts/gen_protocol.py`` writes
them to ``web/src/protocol/*.gen.ts`` for the TypeScript side. Every public name here is exported:
an UPPER_CASE value as a ``const``, a ``Literal`` alias as a TS type plus a ``const`` list of its values
(``PermissionMode`` → ``PERMISSION_MODES``). Keep to values JSON can carry.
"""

from typing import Literal

import runtime.errors as _errors

PROTOCOL_VERSION = 1
"""Bumped whenever the wire changes (a frame, a field or a meaning); both sides refuse a mismatch."""

MAX_FRAME_BYTES = 16 * 1024 * 1024
"""Frames over this are skipped and answered with ``frame_too_large``. Large inputs never ride in a frame:
the host stores an uploaded archive in the runtime's file system (``INCOMING_DIR``) and sends its path."""

INCOMING_DIR = "/tmp/incoming"
"""Where the host stores an upload for a request (``skill_import``'s ``path``); removed after the reply."""

OUTGOING_DIR = "/tmp/outgoing"
"""Where the runtime writes a reply's result too large for one frame (``result_file``); the host removes it."""

SKILL_ARCHIVE_MAX_BYTES = 50 * 1024 * 1024
"""The largest skill archive ``skill_import`` takes."""

IMAGE_MAX_BYTES = 2 * 1024 * 1024
"""The largest image a message may carry (after the composer's downscale); larger ones are refused."""

IMAGES_PER_MESSAGE = 4
"""At most this many images in one message."""

MESSAGE_IMAGES_MAX_BYTES = 6 * 1024 * 1024
"""All images of one message together: their base64 (8 MiB) keeps a ``user_message`` far under the frame limit."""

REQUEST_IMAGES_MAX_BYTES = 6 * 1024 * 1024
"""Images in one model request; older ones beyond this are replaced by a note (the request stays one frame)."""

EXEC_DEFAULT_TIMEOUT_S = 30
"""run_python's timeout when none is given (seconds)."""

EXEC_MAX_TIMEOUT_S = 300
"""The longest run_python may run (seconds)."""

# "replay" is the host's: it answers model requests from a recording and configures the runtime with
# the recorded provider (docs/recording.md), so the runtime never gets it as a kind.
ProviderKind = Literal["openrouter", "ollama", "openai-compatible", "replay"]
PROVIDER_DEFAULT_BASE_URLS: dict[ProviderKind, str] = {
    "openrouter": "https://openrouter.ai/api/v1",
    "ollama": "http://localhost:11434",
    "openai-compatible": "http://127.0.0.1:8080/v1",  # llama.cpp's llama-server
    "replay": "",
}

PermissionMode = Literal["ask", "auto-edit", "full-auto", "read-only"]
ReasoningEffort = Literal["auto", "off", "low", "medium", "high"]
"""How hard a reasoning model thinks (OpenRouter's ``reasoning.effort``); ``auto``: medium for models that
reason, nothing for the others; ``off``: none."""
Decision = Literal["allow", "allow_session", "deny"]
HttpErrorKind = _errors.HostErrorKind  # how a request through the host failed (errors.py sits below host/)
HttpAuth = Literal["provider", "none"]
TurnEndReason = Literal["stop", "aborted", "max_rounds", "error"]
ToolStatus = Literal["ok", "error", "denied"]
ToolEffect = Literal["read", "write", "network", "execute", "memory"]
ExecErrorKind = Literal["timeout", "exception", "sandbox", "install"]
FlushWhat = Literal["workspace", "state"]
ImageMediaType = Literal["image/png", "image/jpeg", "image/gif", "image/webp"]
"""Image types a message may carry: what vision models take (OpenAI, OpenRouter, Ollama)."""

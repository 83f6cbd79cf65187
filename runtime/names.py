"""Names from the workspace: what a path component may hold, and how any name is shown.

One rule for every way a path is made in the runtime (the file tools, a run's write-back, skill
archives) and for every listing. A component may not hold:

- a control character (Unicode category ``Cc``): C0 (U+0000–U+001F), DEL (U+007F), C1 (U+0080–U+009F);
  a newline in a name can close a code fence or start a heading wherever the name is printed;
- a line or paragraph separator (``Zl``, ``Zp``: U+2028, U+2029), which readers treat as a line break;
- a format character (``Cf``): bidirectional controls (U+200E/U+200F, U+202A–U+202E, U+2066–U+2069,
  U+061C) that make a name display as another, and invisible ones (U+200B, U+2060, U+FEFF, U+00AD,
  tag characters, ...) that hide a difference between two names or smuggle text past a reader; but the
  joiners U+200C and U+200D, which Persian, Indic scripts and emoji sequences (👩‍💻) need, are allowed;
- a lone surrogate (``Cs``): bytes that were not text.

The web side applies the same classes (``web/src/protocol/names.ts``); both are checked against
``tests/vectors/names.json``.

How a name or a text from the workspace is printed (a name stored before this rule, or by another
route, included): ``shown`` writes every such character as ``\\uXXXX``; ``literal`` makes a name a
one-line JSON string (the prompt's workspace map); ``one_line`` flattens a text to one line (memories,
skill descriptions). None of them can end a line, so printed names cannot close a fence or open a heading.
"""

from __future__ import annotations

import json
import unicodedata
from dataclasses import dataclass
from typing import Literal

UnsafeKind = Literal["control", "format", "invalid"]

_KINDS: dict[str, UnsafeKind] = {"Cc": "control", "Zl": "control", "Zp": "control", "Cf": "format", "Cs": "invalid"}
_WORDS: dict[UnsafeKind, str] = {
    "control": "a control character",
    "format": "an invisible or bidirectional formatting character",
    "invalid": "bytes that are not text",
}
JOINERS = frozenset("\u200c\u200d")  # format characters that scripts and emoji sequences need
MAX_COMPONENT_BYTES = 255  # what file systems allow for one name
MAX_SHOWN_NAME_CHARS = 300  # a name printed longer is cut (with "…")


@dataclass(frozen=True)
class Unsafe:
    """The first character a name may not hold, and its class."""

    char: str
    kind: UnsafeKind

    @property
    def code(self) -> str:
        return f"U+{ord(self.char):04X}"

    def describe(self) -> str:
        return f"{self.code} ({_WORDS[self.kind]})"


def unsafe_kind(char: str) -> UnsafeKind | None:
    """The class of a character a name may not hold, or None when it may."""
    if char in JOINERS:
        return None
    return _KINDS.get(unicodedata.category(char))


def first_unsafe(text: str) -> Unsafe | None:
    """The first character of ``text`` that no name may hold."""
    if text.isascii() and text.isprintable():  # the usual name, at once: no printable ASCII is unsafe
        return None
    for char in text:
        kind = unsafe_kind(char)
        if kind is not None:
            return Unsafe(char, kind)
    return None


def name_problem(name: str) -> str | None:
    """Why ``name`` (a path or one component) may not name a file, as a sentence end; None when it may."""
    bad = first_unsafe(name)
    if bad is not None:
        return f"it contains {bad.describe()}; names may not hold control or invisible formatting characters"
    longest = max((len(part.encode("utf-8", "surrogatepass")) for part in name.split("/")), default=0)
    if longest > MAX_COMPONENT_BYTES:
        return f"a part of it is over {MAX_COMPONENT_BYTES} bytes"
    return None


def shown(text: str, keep: str = "") -> str:
    """``text`` with every character a name may not hold, but those in ``keep``, written as ``\\uXXXX``
    (``\\U`` past U+FFFF)."""
    if first_unsafe(text) is None:
        return text
    return "".join(_escape(c) if c not in keep and unsafe_kind(c) else c for c in text)


def _escape(char: str) -> str:
    code = ord(char)
    return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"


def literal(name: str, limit: int = MAX_SHOWN_NAME_CHARS) -> str:
    """``name`` as a one-line JSON string: quotes, backslashes and unsafe characters escaped; cut past ``limit``."""
    cut = name if len(name) <= limit else name[:limit] + "…"
    text = json.dumps(cut, ensure_ascii=False)
    if first_unsafe(text) is None:
        return text
    return "".join(_json_escape(c) if unsafe_kind(c) else c for c in text)


def one_line(text: str, limit: int | None = None) -> str:
    """``text`` on one line: each run of whitespace (line breaks too) one space, unsafe characters escaped."""
    flat = " ".join(text.split())
    if limit is not None and len(flat) > limit:
        flat = flat[:limit] + "…"
    return shown(flat)


def _json_escape(char: str) -> str:
    code = ord(char)
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    code -= 0x10000
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"

"""A small, strict parser for SKILL.md frontmatter: the YAML subset the Agent Skills spec uses.

Supported: ``key: value`` at the top level; plain scalars (continuation lines folded with spaces,
`` #`` comments stripped), single- and double-quoted strings (may span lines), block scalars ``|`` and
``>`` with ``-``/``+`` chomping; a one-level map of scalars (``metadata``); a list of scalars as a block
(``- item``, indented or not) or in flow form (``[a, b]``). ``~``/``null``/empty are ``None``; every
other scalar is a string (no numbers or booleans). Anything else (anchors, tags, nested collections,
flow maps, duplicate keys, tabs in indentation) is an error rather than a guess.

As YAML does, a plain scalar holding ``": "`` is an error (code ``unquoted-colon``); with
``lenient=True`` the rest of the line is taken as text, which is the retry the spec's client guide
recommends.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

Value = str | list[str] | dict[str, str] | None
ErrorCode = Literal["unterminated", "syntax", "unquoted-colon", "unsupported", "duplicate-key"]

_KEY = re.compile(r"^([A-Za-z0-9_][A-Za-z0-9_.-]*)[ \t]*:(?:[ \t]+(.*)|)$")
_BLOCK_HEADER = re.compile(r"^([|>])([+-]?)([1-9]?)[ \t]*(?:#.*)?$")
_ESCAPES = {"n": "\n", "t": "\t", '"': '"', "\\": "\\", "/": "/", "r": "\r", "0": "\x00", " ": " "}


@dataclass(frozen=True)
class FrontmatterError(ValueError):
    code: ErrorCode
    message: str
    line: int = 0

    def __str__(self) -> str:
        return f"line {self.line}: {self.message}" if self.line else self.message


def split(text: str) -> tuple[str, str] | None:
    """Split SKILL.md into (frontmatter, body); ``None`` when it does not start with ``---``."""
    text = text.removeprefix("\ufeff").replace("\r\n", "\n")
    lines = text.split("\n")
    if lines[0].rstrip() != "---":
        return None
    for i in range(1, len(lines)):
        if lines[i].rstrip() in ("---", "..."):
            return "".join(f"{line}\n" for line in lines[1:i]), "\n".join(lines[i + 1 :])
    raise FrontmatterError("unterminated", "The frontmatter has no closing '---' line.")


def parse(source: str, *, lenient: bool = False) -> dict[str, Value]:
    """Parse the frontmatter text (between the ``---`` lines) into a flat mapping."""
    lines = source.split("\n")
    if source.endswith("\n"):
        lines.pop()
    out: dict[str, Value] = {}
    i = 0
    while i < len(lines):
        line = lines[i]
        if _blank(line):
            i += 1
            continue
        if line[0] in " \t":
            raise FrontmatterError("syntax", "Unexpected indentation.", i + 1)
        match = _KEY.match(line.rstrip())
        if not match:
            raise FrontmatterError("syntax", f"Expected 'key: value', got {line.strip()[:60]!r}.", i + 1)
        key, rest = match.group(1), (match.group(2) or "").strip()
        if key in out:
            raise FrontmatterError("duplicate-key", f"The key {key!r} appears twice.", i + 1)
        end = _block_end(lines, i + 1, allow_dash=not rest)
        out[key] = _value(key, rest, lines[i + 1 : end], i + 1, lenient)
        i = end
    return out


def _blank(line: str) -> bool:
    stripped = line.strip()
    return not stripped or stripped.startswith("#")


def _block_end(lines: list[str], start: int, *, allow_dash: bool) -> int:
    """Index after the lines that belong to the key above ``start`` (indented, blank, or ``- `` items)."""
    i = start
    while i < len(lines):
        line = lines[i]
        if line.strip() and line[0] not in " \t" and not (allow_dash and (line == "-" or line.startswith("- "))):
            break
        i += 1
    return i


def _value(key: str, rest: str, block: list[str], lineno: int, lenient: bool) -> Value:
    if any(line[: len(line) - len(line.lstrip())].count("\t") for line in block if line.strip()):
        raise FrontmatterError("syntax", "Tabs are not allowed in indentation.", lineno + 1)
    if rest[:1] in ("|", ">"):
        return _block_scalar(rest, block, lineno)
    while block and not block[-1].strip():
        block = block[:-1]
    if rest[:1] in ('"', "'"):
        return _quoted(" ".join([rest, *(b.strip() for b in block)]).strip(), lineno)
    if rest.startswith("["):
        return _flow_list(" ".join([rest, *(b.strip() for b in block)]), lineno, lenient)
    if rest[:1] in ("{", "&", "*", "!"):
        raise FrontmatterError(
            "unsupported", f"{key!r}: flow maps, anchors, aliases and tags are not supported.", lineno
        )
    if rest:
        return _plain(" ".join([rest, *_folded(block)]).strip(), key, lineno, lenient)
    return _collection(key, block, lineno, lenient)


def _folded(block: list[str]) -> list[str]:
    return [b.strip() if b.strip() else "\n" for b in block if not b.strip().startswith("#")]


def _plain(text: str, key: str, lineno: int, lenient: bool) -> str | None:
    text = re.sub(r"[ \t]+#.*$", "", text)
    text = text.replace(" \n ", "\n").strip()
    if text in ("~", "null", "Null", "NULL"):
        return None
    if not lenient and (": " in text or text.endswith(":")):
        raise FrontmatterError("unquoted-colon", f"The value of {key!r} holds an unquoted ': '.", lineno)
    if not lenient and text.startswith(("@", "`", "%")):
        raise FrontmatterError("syntax", f"The value of {key!r} starts with a reserved character.", lineno)
    return text


def _quoted(text: str, lineno: int) -> str:
    quote = text[0]
    i, out = 1, []
    while i < len(text):
        ch = text[i]
        if quote == "'" and ch == "'":
            if text[i + 1 : i + 2] == "'":
                out.append("'")
                i += 2
                continue
            return _after_quote("".join(out), text[i + 1 :], lineno)
        if quote == '"' and ch == '"':
            return _after_quote("".join(out), text[i + 1 :], lineno)
        if quote == '"' and ch == "\\":
            i, piece = _escape(text, i, lineno)
            out.append(piece)
            continue
        out.append(ch)
        i += 1
    raise FrontmatterError("syntax", "A quoted string is not closed.", lineno)


def _escape(text: str, i: int, lineno: int) -> tuple[int, str]:
    code = text[i + 1 : i + 2]
    if code in _ESCAPES:
        return i + 2, _ESCAPES[code]
    if code in ("x", "u", "U"):
        width = {"x": 2, "u": 4, "U": 8}[code]
        digits = text[i + 2 : i + 2 + width]
        if len(digits) == width and all(c in "0123456789abcdefABCDEF" for c in digits):
            return i + 2 + width, chr(int(digits, 16))
    raise FrontmatterError("syntax", f"Unknown escape '\\{code}' in a double-quoted string.", lineno)


def _after_quote(value: str, tail: str, lineno: int) -> str:
    tail = tail.strip()
    if tail and not tail.startswith("#"):
        raise FrontmatterError("syntax", f"Unexpected text after a quoted string: {tail[:40]!r}.", lineno)
    return value


def _block_scalar(header: str, block: list[str], lineno: int) -> str:
    match = _BLOCK_HEADER.match(header)
    if not match:
        raise FrontmatterError("syntax", f"Bad block scalar header {header!r}.", lineno)
    style, chomp, explicit = match.groups()
    content = [b for b in block if b.strip()]
    indent = int(explicit) if explicit else min((len(b) - len(b.lstrip(" ")) for b in content), default=0)
    lines = [b[indent:] if b.strip() else "" for b in block]
    text = "\n".join(lines) if style == "|" else _fold(lines)
    body = text.rstrip("\n")
    trailing = len(text) - len(body) + 1
    if chomp == "-" or not body:
        return body
    return body + ("\n" * trailing if chomp == "+" else "\n")


def _fold(lines: list[str]) -> str:
    """YAML folding: a line break between two text lines becomes a space; each blank line is a newline;
    lines indented more than the block keep their line breaks."""
    out = ""
    for idx, line in enumerate(lines):
        prev = lines[idx - 1] if idx else None
        if prev is None:
            out = line
        elif not line:
            out += "\n"
        elif not prev:
            out += line
        elif line.startswith((" ", "\t")) or prev.startswith((" ", "\t")):
            out += "\n" + line
        else:
            out += " " + line
    return out


def _flow_list(text: str, lineno: int, lenient: bool) -> list[str]:
    text = re.sub(r"\][ \t]*#.*$", "]", text.strip())
    if not text.endswith("]") or text.count("[") != 1 or text.count("]") != 1:
        raise FrontmatterError("unsupported", "Only a flat list like [a, b] is supported.", lineno)
    items = [p.strip() for p in text[1:-1].split(",")]
    return [_item(p, lineno, lenient) for p in items if p]


def _item(text: str, lineno: int, lenient: bool) -> str:
    if text[:1] in ('"', "'"):
        return _quoted(text, lineno)
    value = _plain(text, "list item", lineno, lenient)
    return value if value is not None else ""


def _collection(key: str, block: list[str], lineno: int, lenient: bool) -> Value:
    items = [(n, b) for n, b in enumerate(block, lineno + 1) if not _blank(b)]
    if not items:
        return None
    if all(b.strip() == "-" or b.strip().startswith("- ") for _, b in items):
        return [_item(b.strip()[1:].strip(), n, lenient) for n, b in items]
    if not _KEY.match(items[0][1].strip()):
        return _plain(" ".join(_folded(block)).strip(), key, lineno, lenient)
    indent = len(items[0][1]) - len(items[0][1].lstrip())
    mapping: dict[str, str] = {}
    for n, b in items:
        match = _KEY.match(b.strip())
        if len(b) - len(b.lstrip()) != indent or not match:
            raise FrontmatterError("unsupported", f"{key!r}: only one level of 'key: value' is supported.", n)
        sub, rest = match.group(1), (match.group(2) or "").strip()
        if sub in mapping:
            raise FrontmatterError("duplicate-key", f"The key {key}.{sub} appears twice.", n)
        if rest[:1] in ("|", ">", "[", "{", "&", "*", "!"):
            raise FrontmatterError("unsupported", f"{key}.{sub}: only plain or quoted values are supported.", n)
        value = _quoted(rest, n) if rest[:1] in ('"', "'") else _plain(rest, f"{key}.{sub}", n, lenient)
        mapping[sub] = value or ""
    return mapping

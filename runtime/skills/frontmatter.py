"""SKILL.md frontmatter: YAML read with PyYAML, and a key-by-key reading for what strict YAML refuses.

The frontmatter is read with a ``SafeLoader`` whose only implicit type is null: every other scalar stays
the text that was written (``version: 1.0`` is ``"1.0"``, ``on: yes`` is ``"yes"``), since every field
of the spec is text. Aliases (``*name``) are refused, so a small frontmatter cannot expand into a huge
value. Whatever YAML allows otherwise is accepted: block scalars, flow maps, nested maps and lists
(Claude Code's ``hooks:``), comments.

Real skills often hold values YAML refuses, most often an unquoted ``": "`` in a long description
(``description: Use this when: the user asks``). When the whole frontmatter is not valid YAML it is read
again key by key: each top-level ``key:`` line with its indented continuation lines is read as YAML on
its own, and when that fails too its value is taken as plain text (the rest of the line and the
continuation lines, joined with spaces; a trailing `` # comment`` is dropped). Those keys are listed in
``Frontmatter.as_text`` with the reason. A line that is not ``key: value`` (or a continuation) is an error.

Bounded work: a SKILL.md comes from an archive or a workspace anyone may have written, and is read again at
every turn, so reading it costs time linear in the frontmatter and never more than the caps allow. The
frontmatter block may be at most ``MAX_BYTES`` (64 KiB; the spec's fields fit in under 2 KiB and real
frontmatter is a few KB), and is looked for only that far into the file; it may hold at most ``MAX_NODES``
keys and values in all (composing stops at the first one over) and nest ``MAX_DEPTH`` deep. Past a cap
the frontmatter is refused (``too-large``) with a message that names the limit; nothing is retried.
Duplicate keys are found with a set, and the key-by-key reading scans each line once.

Most frontmatter is a few ``key: plain text`` lines, and the catalog reads every SKILL.md after each boot
(PyYAML in Pyodide spends ~1–2 ms on each). Such a frontmatter is read with a line pattern instead
(``_plain_fields``): only where YAML would read exactly the text after ``": "`` (no character YAML treats
specially, no null, no repeated key, no continuation line); anything else goes to YAML.
tests/unit/skills/test_skills_frontmatter_plain.py checks the two agree.
"""

from __future__ import annotations

import re
from collections.abc import Hashable
from dataclasses import dataclass, field
from typing import Any, Literal

import yaml
from yaml.composer import ComposerError
from yaml.constructor import ConstructorError
from yaml.error import Mark
from yaml.events import AliasEvent
from yaml.nodes import MappingNode, Node
from yaml.scanner import ScannerError

ErrorCode = Literal["unterminated", "syntax", "not-a-mapping", "too-large"]

_KEY_START = frozenset(" \t\n\r\f\v#:'\"")  # what a top-level key may not start with
_COMMENT_START = re.compile(r"[ \t]#")  # one match tried per position: linear
_NULL_TAG = "tag:yaml.org,2002:null"
# A ``key: text`` line YAML reads as that text: the key and the value start with a letter, digit or "_",
# hold no ":", "#", tab or line break of YAML's (nor anything YAML refuses: control characters, surrogates,
# the byte order mark, U+FFFE/U+FFFF), and the value, less trailing spaces, does not end in white space.
_PLAIN_CHAR = "[^\x00-\x1f\x7f-\x9f:#\u2028\u2029\ud800-\udfff\ufeff\ufffe\uffff]"
# One way to match each line (the value's first character is not a space): linear in its length.
_PLAIN_LINE = re.compile(f"([A-Za-z0-9_][A-Za-z0-9_.-]*): +([A-Za-z0-9_]{_PLAIN_CHAR}*)")
_YAML_NULLS = frozenset(("null", "Null", "NULL"))
_PLAIN_MAX_LINES = 64
MAX_DEPTH = 32  # nested lists and maps; real frontmatter (hooks:) is 6 deep
MAX_BYTES = 64 * 1024  # the frontmatter block, UTF-8
MAX_NODES = 2_000  # keys, values and list items in all; real frontmatter has a few dozen


@dataclass(frozen=True)
class FrontmatterError(ValueError):
    code: ErrorCode
    message: str
    line: int = 0

    def __str__(self) -> str:
        return f"line {self.line}: {self.message}" if self.line else self.message


@dataclass(frozen=True)
class Frontmatter:
    """The fields (YAML values: text, ``None``, lists and maps of them) and the keys read as plain text."""

    fields: dict[str, Any]
    as_text: dict[str, str] = field(default_factory=dict)  # key -> why YAML refused its value
    repeated: tuple[str, ...] = ()  # top-level keys given more than once (the last one counts)


class _Budget:
    """What is left of ``MAX_NODES`` for one frontmatter (shared by the key-by-key reading's loads)."""

    def __init__(self) -> None:
        self.nodes = MAX_NODES

    def spend(self) -> None:
        self.nodes -= 1
        if self.nodes < 0:
            limit = f"the limit of {MAX_NODES:,} keys and values"
            raise FrontmatterError("too-large", f"The frontmatter holds more than {limit}.")


class _TextLoader(yaml.SafeLoader):
    """``SafeLoader`` that keeps scalars as text (only null is implicit), refuses aliases and nesting
    deeper than ``MAX_DEPTH`` (composing and constructing recurse per level: in Pyodide a deep enough
    value would overflow the stack rather than raise), and stops at the node over ``MAX_NODES``."""

    depth = 0
    budget: _Budget

    def compose_node(self, parent: Node | None, index: Any) -> Node | None:
        event = self.peek_event()  # type: ignore[no-untyped-call]
        mark = event.start_mark if isinstance(event.start_mark, Mark) else None
        if isinstance(event, AliasEvent):
            raise ComposerError(None, None, "aliases (*name) are not supported here", mark)
        if self.depth >= MAX_DEPTH:
            raise ComposerError(None, None, f"values are nested more than {MAX_DEPTH} deep", mark)
        self.budget.spend()
        self.depth += 1
        try:
            return super().compose_node(parent, index)
        finally:
            self.depth -= 1

    def fetch_flow_collection_start(self, TokenClass: Any) -> None:
        # The scanner reads a whole flow collection ahead before the composer sees it; stop it here.
        if self.flow_level >= MAX_DEPTH:
            raise ScannerError(None, None, f"values are nested more than {MAX_DEPTH} deep", self.get_mark())
        super().fetch_flow_collection_start(TokenClass)

    def construct_mapping(self, node: MappingNode, deep: bool = False) -> dict[Hashable, Any]:
        seen: set[Hashable] = set()
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=True)
            if isinstance(key, Hashable) and key in seen:
                raise ConstructorError(None, None, f"the key {key!r} appears twice", key_node.start_mark)
            if isinstance(key, Hashable):
                seen.add(key)
        return super().construct_mapping(node, deep)


_TextLoader.yaml_implicit_resolvers = {
    first: [(tag, regexp) for tag, regexp in resolvers if tag == _NULL_TAG]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}


def split(text: str) -> tuple[str, str] | None:
    """Split SKILL.md into (frontmatter, body); ``None`` when it does not start with ``---``.

    The closing line is looked for only within ``MAX_BYTES`` of the start (``too-large`` past it).
    """
    text = text.removeprefix("\ufeff").replace("\r\n", "\n")
    first, _, rest = text.partition("\n")
    if first.rstrip() != "---":
        return None
    start = 0
    while start <= min(len(rest), MAX_BYTES):
        end = rest.find("\n", start)
        end = len(rest) if end < 0 else end
        if rest[start:end].rstrip() in ("---", "..."):
            source = rest[:start]
            _check_size(source)
            return source, rest[end + 1 :]
        start = end + 1
    if len(rest) > MAX_BYTES:
        raise FrontmatterError("too-large", f"The frontmatter runs past {_LIMIT} without its closing '---' line.")
    raise FrontmatterError("unterminated", "The frontmatter has no closing '---' line.")


_LIMIT = f"the limit of {MAX_BYTES // 1024} KiB ({MAX_BYTES:,} bytes)"


def _check_size(source: str) -> None:
    size = len(source.encode("utf-8", "surrogatepass"))
    if size > MAX_BYTES:
        raise FrontmatterError("too-large", f"The frontmatter is {size:,} bytes, over {_LIMIT}.")


def load(source: str, budget: _Budget | None = None) -> Any:
    """One YAML document, scalars as text; raises ``yaml.YAMLError`` (``FrontmatterError`` past a cap)."""
    loader = _TextLoader(source)
    loader.budget = budget or _Budget()
    try:
        return loader.get_single_data()
    finally:
        loader.dispose()


def parse(source: str) -> Frontmatter:
    """Parse the frontmatter text (between the ``---`` lines) into its top-level fields.

    Raises ``FrontmatterError``: ``too-large`` past ``MAX_BYTES`` or ``MAX_NODES``, ``syntax`` and
    ``not-a-mapping`` when it is not ``key: value`` fields.
    """
    _check_size(source)
    plain = _plain_fields(source)
    if plain is not None:
        return Frontmatter(plain)
    try:
        data = load(source)
    except yaml.YAMLError as exc:
        return _key_by_key(source, describe(exc))
    if data is None:
        return Frontmatter({})
    if not isinstance(data, dict):
        kind = "list" if isinstance(data, list) else "line of text"
        raise FrontmatterError("not-a-mapping", f"The frontmatter is a {kind}, not 'key: value' fields.")
    return Frontmatter({_key(k): v for k, v in data.items()})


def _plain_fields(source: str) -> dict[str, str] | None:
    """The fields of a frontmatter of only ``key: plain text`` lines (what YAML would read); None otherwise."""
    lines = source.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    if not lines or len(lines) > _PLAIN_MAX_LINES:
        return None
    fields: dict[str, str] = {}
    for line in lines:
        match = _PLAIN_LINE.fullmatch(line)
        if match is None:
            return None
        key, value = match.group(1), match.group(2).rstrip(" ")
        if value[-1].isspace() or key in fields or key in _YAML_NULLS or value in _YAML_NULLS:
            return None
        fields[key] = value
    return fields


def describe(exc: yaml.YAMLError, *, with_line: bool = True) -> str:
    """A YAML error in one line: what is wrong and, ``with_line``, where (1-based, within the frontmatter)."""
    mark = getattr(exc, "problem_mark", None)
    problem = str(getattr(exc, "problem", None) or str(exc).split("\n", 1)[0])
    return f"{problem} at line {mark.line + 1}" if mark is not None and with_line else problem


def _key(key: object) -> str:
    return "" if key is None else str(key)


def _key_by_key(source: str, problem: str) -> Frontmatter:
    fields: dict[str, Any] = {}
    as_text: dict[str, str] = {}
    repeated: list[str] = []
    budget = _Budget()
    for key, rest, block in _top_level_blocks(source, problem):
        budget.spend()
        if key in fields:
            repeated.append(key)
        try:
            value = load(f"{key}: {rest}\n" + "".join(f"{b}\n" for b in block), budget)
            if not isinstance(value, dict) or len(value) != 1:
                raise yaml.YAMLError(f"{key!r} is not one 'key: value' field")
            fields[key] = next(iter(value.values()))
            as_text.pop(key, None)
        except yaml.YAMLError as exc:
            fields[key] = _plain_text(rest, block) or None
            as_text[key] = describe(exc, with_line=False)
    return Frontmatter(fields, as_text, tuple(dict.fromkeys(repeated)))


def _top_level_blocks(source: str, problem: str) -> list[tuple[str, str, list[str]]]:
    """Each top-level ``key: rest`` line with the indented and blank lines after it (top-level comments dropped)."""
    blocks: list[tuple[str, str, list[str]]] = []
    for lineno, line in enumerate(source.split("\n"), 1):
        stripped = line.strip()
        if blocks and (not stripped or line[:1] in (" ", "\t")):
            blocks[-1][2].append(line)
            continue
        if not stripped or stripped.startswith("#"):
            continue
        field_line = _key_line(line.rstrip())
        if field_line is None:
            raise FrontmatterError(
                "syntax",
                f"The frontmatter is not valid YAML ({problem}), and {line.rstrip()[:60]!r} is not a top-level "
                "'key: value' line.",
                lineno,
            )
        blocks.append((*field_line, []))
    return blocks


def _key_line(line: str) -> tuple[str, str] | None:
    """``(key, rest)`` of a ``key: rest`` line: the key up to the first colon, which ends the line or is
    followed by a space or tab (string operations, not a backtracking pattern: a long line costs its length)."""
    colon = line.find(":")
    key = line[:colon].rstrip(" \t") if colon > 0 else ""
    after = line[colon + 1 :]
    if not key or key[0] in _KEY_START or (after and after[0] not in " \t"):
        return None
    return key, after.strip()


def _plain_text(rest: str, block: list[str]) -> str:
    parts = [_uncomment(part.strip()) for part in [rest, *block]]
    return " ".join(p for p in parts if p).strip()


def _uncomment(text: str) -> str:
    """``text`` less a trailing `` # comment``."""
    match = _COMMENT_START.search(text)
    return text[: match.start()].rstrip(" \t") if match else text

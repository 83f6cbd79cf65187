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

ErrorCode = Literal["unterminated", "syntax", "not-a-mapping"]

_KEY_LINE = re.compile(r"^([^\s#:'\"][^:]*?)[ \t]*:(?:[ \t]+(.*)|[ \t]*)$")
_COMMENT = re.compile(r"[ \t]+#.*$")
_NULL_TAG = "tag:yaml.org,2002:null"
MAX_DEPTH = 32  # nested lists and maps; real frontmatter (hooks:) is 6 deep


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


class _TextLoader(yaml.SafeLoader):
    """``SafeLoader`` that keeps scalars as text (only null is implicit), refuses aliases and nesting
    deeper than ``MAX_DEPTH`` (composing and constructing recurse per level: in Pyodide a deep enough
    value would overflow the stack rather than raise)."""

    depth = 0

    def compose_node(self, parent: Node | None, index: Any) -> Node | None:
        event = self.peek_event()  # type: ignore[no-untyped-call]
        mark = event.start_mark if isinstance(event.start_mark, Mark) else None
        if isinstance(event, AliasEvent):
            raise ComposerError(None, None, "aliases (*name) are not supported here", mark)
        if self.depth >= MAX_DEPTH:
            raise ComposerError(None, None, f"values are nested more than {MAX_DEPTH} deep", mark)
        self.depth += 1
        try:
            return super().compose_node(parent, index)
        finally:
            self.depth -= 1

    def construct_mapping(self, node: MappingNode, deep: bool = False) -> dict[Hashable, Any]:
        keys = [self.construct_object(key, deep=True) for key, _ in node.value]
        for i, (key, _) in enumerate(node.value):
            if keys[i] in keys[:i]:
                raise ConstructorError(None, None, f"the key {keys[i]!r} appears twice", key.start_mark)
        return super().construct_mapping(node, deep)


_TextLoader.yaml_implicit_resolvers = {
    first: [(tag, regexp) for tag, regexp in resolvers if tag == _NULL_TAG]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}


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


def load(source: str) -> Any:
    """One YAML document, scalars as text; raises ``yaml.YAMLError``."""
    return yaml.load(source, Loader=_TextLoader)


def parse(source: str) -> Frontmatter:
    """Parse the frontmatter text (between the ``---`` lines) into its top-level fields."""
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
    for key, rest, block in _top_level_blocks(source, problem):
        if key in fields:
            repeated.append(key)
        try:
            value = load(f"{key}: {rest}\n" + "".join(f"{b}\n" for b in block))
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
        match = _KEY_LINE.match(line.rstrip())
        if not match:
            raise FrontmatterError(
                "syntax",
                f"The frontmatter is not valid YAML ({problem}), and {line.rstrip()[:60]!r} is not a top-level "
                "'key: value' line.",
                lineno,
            )
        blocks.append((match.group(1), (match.group(2) or "").strip(), []))
    return blocks


def _plain_text(rest: str, block: list[str]) -> str:
    parts = [_COMMENT.sub("", part.strip()) for part in [rest, *block]]
    return " ".join(p for p in parts if p).strip()

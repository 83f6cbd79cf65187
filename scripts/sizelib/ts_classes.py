"""The classes of a TypeScript (or JavaScript) file and the methods each declares, for the size check.

Not a TypeScript parser: comments, strings, template literals and regular expressions are blanked out
(kept as spaces, so line numbers stay), then each `class` body is read member by member at its own
brace depth. A member counts as a method when it is called like one: a method, a constructor, a
getter or setter, or a property that holds a function (`private onKey = (e) => …`). Nested classes
are found and counted on their own. A return type written as an object literal (`(): { a: 1 } {`) is
read correctly; anything odder is outside what this code base writes (tests/unit/test_check_sizes.py).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_REGEX_AFTER = set("(,=:[!&|?{};+-*%<>~^")
_REGEX_KEYWORDS = {"return", "typeof", "case", "in", "of", "void", "delete", "throw", "new", "yield", "await", "else"}
_CLASS = re.compile(r"(?<![\w$.])class\b(?:\s+([A-Za-z_$][\w$]*))?")
# The member name that ends a member's header (`private async load`, `get x`, `["k"]`, `#p?`, `m<T>`).
_HEADER_NAME = re.compile(r"(?:^|[\s*])(#?[A-Za-z_$][\w$]*|\[[^\]]*\])\s*[?!]?\s*(?:<[^()]*>)?\s*$")
_ARROW_VALUE = re.compile(r"\s*(?:async\b\s*)?(?:function\b|[A-Za-z_$][\w$]*\s*=>)")
_TYPE_CONTEXT = set(":|&<,(")


@dataclass(frozen=True)
class TsClass:
    name: str
    line: int
    methods: tuple[str, ...]


def _skip_string(text: str, i: int) -> int:
    quote = text[i]
    j = i + 1
    while j < len(text) and text[j] != quote and text[j] != "\n":
        j += 2 if text[j] == "\\" else 1
    return j + 1


def _regex_allowed(out: list[str]) -> bool:
    k = len(out) - 1
    while k >= 0 and out[k].isspace():
        k -= 1
    if k < 0 or out[k] in _REGEX_AFTER:
        return True
    end = k + 1
    while k >= 0 and (out[k].isalnum() or out[k] in "_$"):
        k -= 1
    return "".join(out[k + 1 : end]) in _REGEX_KEYWORDS


def _skip_regex(text: str, i: int) -> int:
    j, in_class = i + 1, False
    while j < len(text) and text[j] != "\n":
        c = text[j]
        if c == "\\":
            j += 2
            continue
        if c == "[":
            in_class = True
        elif c == "]":
            in_class = False
        elif c == "/" and not in_class:
            return j + 1
        j += 1
    return j


def blank(text: str) -> str:
    """`text` with comments, string and template contents and regex literals turned into spaces."""
    out: list[str] = []
    templates: list[int] = []  # for each open `${`: the brace depth inside it
    i = 0
    while i < len(text):
        c, nxt = text[i], text[i + 1 : i + 2]
        start = i
        if c == "/" and nxt == "/":
            i = text.find("\n", i)
            i = len(text) if i < 0 else i
        elif c == "/" and nxt == "*":
            end = text.find("*/", i + 2)
            i = len(text) if end < 0 else end + 2
        elif c in "'\"":
            i = _skip_string(text, i)
        elif c == "`" or (c == "}" and templates and templates[-1] == 0):
            if c == "}":
                templates.pop()
            i = _template_part(text, i + 1, templates)
        elif c == "/" and _regex_allowed(out):
            i = _skip_regex(text, i)
        else:
            if templates and c in "{}":
                templates[-1] += 1 if c == "{" else -1
            out.append(c)
            i += 1
            continue
        out.extend(ch if ch == "\n" else " " for ch in text[start:i])
    return "".join(out)


def _template_part(text: str, j: int, templates: list[int]) -> int:
    """From inside a template literal to after its closing backtick or its next `${` (pushed)."""
    while j < len(text):
        if text[j] == "\\":
            j += 2
        elif text[j] == "`":
            return j + 1
        elif text.startswith("${", j):
            templates.append(0)
            return j + 2
        else:
            j += 1
    return j


def _match(code: str, i: int) -> int:
    """The index after the bracket that closes the one at `i`."""
    pairs = {"(": ")", "[": "]", "{": "}"}
    stack = [pairs[code[i]]]
    j = i + 1
    while j < len(code) and stack:
        c = code[j]
        if c in pairs:
            stack.append(pairs[c])
        elif stack and c == stack[-1]:
            stack.pop()
        j += 1
    return j


def _until(code: str, i: int, stops: str) -> int:
    """The index of the first of `stops` at depth 0 from `i` (brackets skipped), or len(code)."""
    while i < len(code) and code[i] not in stops:
        i = _match(code, i) if code[i] in "([{" else i + 1
    return i


def _prev_char(code: str, i: int) -> str:
    k = i - 1
    while k >= 0 and code[k].isspace():
        k -= 1
    return code[k] if k >= 0 else ""


def _skip_method(code: str, paren: int, end: int) -> int:
    """After a method's parameters: past its body (or its `;` when it has none)."""
    i = _match(code, paren)
    while i < end:
        stop = _until(code, i, "{;}")
        if stop >= end or code[stop] != "{":
            return min(stop + 1, end)
        if _prev_char(code, stop) not in _TYPE_CONTEXT:
            return _match(code, stop)
        i = _match(code, stop)  # an object type in the return type
    return end


def _members(code: str, text: str, start: int, end: int) -> list[str]:
    """The method names in the class body code[start:end] (`text`: the source, for names in quotes)."""
    methods: list[str] = []
    i = start
    while i < end:
        while i < end and (code[i].isspace() or code[i] == ";"):
            i += 1
        if i >= end:
            break
        stop = _until(code, i, "(=;{:}")
        stop = min(stop, end)
        found = _HEADER_NAME.search(code[i:stop])
        name = text[i + found.start(1) : i + found.end(1)] if found else None
        if stop < end and code[stop] == "(" and name is not None:
            methods.append(name)
            i = _skip_method(code, stop, end)
        elif stop < end and code[stop] == "{":
            i = _match(code, stop)  # a static block
        else:
            value_end = min(_until(code, stop, ";}"), end) if stop < end else end
            assign = _assignment(code, stop, value_end)
            if assign is not None and name is not None and _is_function(code[assign + 1 : value_end]):
                methods.append(name)
            i = value_end + 1
    return methods


def _assignment(code: str, stop: int, end: int) -> int | None:
    """Where a property's `=` is (after its type, if it has one), or None."""
    i = stop
    while i < end:
        c = code[i]
        if c == "=" and code[i + 1 : i + 2] != ">" and code[i - 1 : i] not in ("=", "!", "<", ">"):
            return i
        i = _match(code, i) if c in "([{" else i + 1
    return None


def _is_function(value: str) -> bool:
    if _ARROW_VALUE.match(value):
        return True
    stripped = value.lstrip()
    if stripped.startswith("async"):
        stripped = stripped[5:].lstrip()
    if not stripped.startswith("("):
        return False
    offset = len(value) - len(stripped)
    after = value[_match(value, offset) :].lstrip()
    return after.startswith("=>") or (after.startswith(":") and "=>" in after)


def _body_brace(code: str, i: int) -> int | None:
    """The `{` that opens a class body, past type parameters and heritage (`<T extends { id: 1 }>`)."""
    angles = 0
    while i < len(code):
        c = code[i]
        if c == "<":
            angles += 1
        elif c == ">" and code[i - 1] != "=":
            angles -= 1
        elif c == "{" and angles == 0:
            return i
        elif c in ";)" and angles == 0:
            return None
        if c in "([{" and angles > 0:
            i = _match(code, i)
            continue
        i += 1
    return None


def classes(text: str) -> list[TsClass]:
    """Every class in a TypeScript source, with its methods (constructor, getters and setters included)."""
    code = blank(text)
    found = []
    for match in _CLASS.finditer(code):
        brace = _body_brace(code, match.end())
        if brace is None:
            continue
        body_end = _match(code, brace) - 1
        line = code.count("\n", 0, match.start()) + 1
        found.append(TsClass(match.group(1) or "(anonymous)", line, tuple(_members(code, text, brace + 1, body_end))))
    return found

"""The plain-lines reading of a frontmatter agrees with YAML wherever it answers, and answers for the usual one."""

from __future__ import annotations

import random

import pytest
import yaml

from runtime.skills import frontmatter
from runtime.skills.frontmatter import Frontmatter, _plain_fields, load, parse

# Characters YAML treats specially somewhere, with plain ones; random lines of them probe every rule.
ALPHABET = [*"abcXY09_-. :#'\"[]{},&*!|>%@`?~=<\t\\/", "\x85", "\u2028", "\xa0", "\ufeff", "é", "\x07", "\r"]
USUAL = list("abcXY09_ é(),.-'")


def text(rng: random.Random, most: list[str], length: int) -> str:
    """Mostly usual characters, one in five from anywhere in ALPHABET."""
    return "".join(rng.choice(most if rng.random() < 0.8 else ALPHABET) for _ in range(length))


def yaml_reading(source: str) -> Frontmatter | None:
    """What YAML alone makes of it (None where YAML refuses it or it is not a mapping of text)."""
    try:
        data = load(source)
    except yaml.YAMLError:
        return None
    if not isinstance(data, dict) or not all(isinstance(v, str) and isinstance(k, str) for k, v in data.items()):
        return None
    return Frontmatter(dict(data))


def test_the_usual_frontmatter_is_read_without_yaml(monkeypatch: pytest.MonkeyPatch) -> None:
    def no_yaml(*_: object) -> None:
        raise AssertionError("YAML was used")

    monkeypatch.setattr(frontmatter, "load", no_yaml)
    text = "Fill in PDF forms, merge files (and split them) — with 'care'."
    source = f"name: pdf-tools\ndescription: {text}\nlicense: MIT\n"
    assert parse(source).fields == {
        "name": "pdf-tools",
        "description": text,
        "license": "MIT",
    }


@pytest.mark.parametrize(
    "source",
    [
        "name: a\ndescription: Use this when: the user asks\n",  # YAML refuses; key by key
        "name: a\nname: b\n",  # repeated
        "name: null\n",  # null
        "name: a # comment\n",
        "description: >\n  folded\n",
        "description: a\n  continued\n",
        "name: 'quoted'\n",
        "name: *alias\n",
        "name: [a, b]\n",
        "metadata:\n  k: v\n",
        "name: a\n\ndescription: b\n",
        "name: a\u2028b\n",
        "name: a\xa0\n",
    ],
)
def test_anything_else_goes_to_yaml(source: str) -> None:
    assert _plain_fields(source) is None


def test_a_long_line_costs_its_length() -> None:
    assert _plain_fields("k: a" + " " * 60_000 + "\x07\n") is None  # one pass, no backtracking over the spaces
    assert _plain_fields("k: a" + " " * 60_000 + "\n") == {"k": "a"}


def test_random_lines_agree_with_yaml() -> None:
    rng = random.Random(25)
    answered = 0
    for _ in range(10_000):
        lines = []
        for _ in range(rng.randint(1, 3)):
            key = text(rng, list("abXY0_-."), rng.randint(1, 4))
            value = text(rng, USUAL, rng.randint(0, 12))
            lines.append(f"{key}:{' ' * rng.randint(0, 2)}{value}")
        source = "\n".join(lines) + "\n"
        plain = _plain_fields(source)
        if plain is None:
            continue
        answered += 1
        assert yaml_reading(source) == Frontmatter(plain), source
    assert answered > 300  # the comparison covered many lines the plain reading took

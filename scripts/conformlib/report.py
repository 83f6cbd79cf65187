"""A conformance check's outcome and the Markdown table of them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Outcome = Literal["pass", "fail", "not available"]


@dataclass(frozen=True)
class Check:
    layer: str  # "wire" (HTTP straight to the server) or "app" (the built app in Chromium)
    name: str
    outcome: Outcome
    seen: str  # what was seen, in a line

    @staticmethod
    def of(layer: str, name: str, ok: bool, seen: str) -> Check:
        return Check(layer, name, "pass" if ok else "fail", seen)


def _cell(text: str, limit: int = 300) -> str:
    flat = " ".join(text.split()).replace("|", "\\|")
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def table(checks: list[Check]) -> str:
    lines = ["| layer | check | result | what was seen |", "|---|---|---|---|"]
    lines += [f"| {c.layer} | {_cell(c.name)} | {c.outcome} | {_cell(c.seen)} |" for c in checks]
    return "\n".join(lines)

"""Tool calls whose arguments cannot be used: never run, never kept as they came.

A reply that ends ``finish_reason: "length"`` stops wherever the output limit fell, often inside the
last call's arguments (``{"path``); a model may also write arguments that are not a JSON object. Such
a call is not run: in the conversation its arguments become ``{}`` (``chat.arguments``) and its result
tells the model what went wrong and how to recover.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from runtime.chat.arguments import object_problem
from runtime.chat.messages import ToolCall

EXCERPT_CHARS = 200
CUT_OFF = "Cut off, not run:"


@dataclass(frozen=True)
class Screened:
    """A reply's calls as they go into the conversation, and why the unusable ones are not run."""

    calls: tuple[ToolCall, ...]
    refused: dict[str, str]  # call id → the result the model sees instead of the call's result


def excerpt(raw: str) -> str:
    if len(raw) <= EXCERPT_CHARS:
        return raw
    return f"{raw[:EXCERPT_CHARS]}… ({len(raw) - EXCERPT_CHARS} more characters)"


def cut_off_result(call: ToolCall) -> str:
    return (
        f'{CUT_OFF} your reply reached the output length limit (finish_reason "length") while you were still '
        f"writing the arguments of this {call.name} call, so they stopped after {len(call.arguments)} characters: "
        f"{excerpt(call.arguments)!r}. Nothing was run or changed. Send the call again, complete. If its arguments "
        "are long (a whole file's content), make them shorter: write a first part, then add the rest with further "
        "calls (edit_file), or tell the user the output limit is too small for this."
    )


def invalid_result(call: ToolCall, problem: str) -> str:
    return (
        f"Not run: the arguments of this {call.name} call could not be used: {problem}. They were: "
        f"{excerpt(call.arguments)!r}. Send the call again with its arguments as one JSON object, "
        'e.g. {"path": "notes.md"}.'
    )


def screen(calls: Sequence[ToolCall], finish_reason: str | None) -> Screened:
    """Each call with usable arguments as it is; each other one with ``{}`` and the reason it is not run.

    In a ``length`` reply the last call is cut off when its arguments do not parse (the limit fell inside
    them); any other call whose arguments do not parse is invalid.
    """
    kept: list[ToolCall] = []
    refused: dict[str, str] = {}
    for index, call in enumerate(calls):
        problem = object_problem(call.arguments)
        if problem is None:
            kept.append(call)
            continue
        last = index == len(calls) - 1
        refused[call.id] = cut_off_result(call) if finish_reason == "length" and last else invalid_result(call, problem)
        kept.append(replace(call, arguments="{}"))
    return Screened(tuple(kept), refused)

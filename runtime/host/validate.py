"""The boundary check: a message from the host against its definition in ``messages.py``.

``parse_host_message`` runs once per received message; past it the runtime trusts the shape. The
tables by tag (``host_message_types`` …) serve the checks here, the doc test and the TS generator.
"""

import logging
import typing
from typing import Any, Literal, Union, get_args, get_origin

from runtime.host.messages import Event, HostMessage, RuntimeMessage

log = logging.getLogger(__name__)

_HINTS: dict[type, dict[str, Any]] = {}


def hints(cls: Any) -> dict[str, Any]:
    """The fields of a TypedDict (inherited ones included) with their types, cached."""
    found = _HINTS.get(cls)
    if found is None:
        found = typing.get_type_hints(cls)
        _HINTS[cls] = found
    return found


def tag_of(cls: Any, key: str) -> str:
    (value,) = get_args(hints(cls)[key])
    return str(value)


def host_message_types() -> dict[str, type]:
    """Every host → runtime message type by its ``type`` tag."""
    return {tag_of(cls, "type"): cls for cls in get_args(HostMessage)}


def runtime_message_types() -> dict[str, type]:
    return {tag_of(cls, "type"): cls for cls in get_args(RuntimeMessage)}


def event_kinds() -> dict[str, type]:
    return {tag_of(cls, "kind"): cls for cls in get_args(Event)}


def shapes_in(*roots: Any) -> list[type]:
    """Every TypedDict reachable from the type hints ``roots``, once each, the shapes inside one before it
    (the checks' tables; the order the TS generator writes them in)."""
    order: list[type] = []

    def visit(hint: Any) -> None:
        if isinstance(hint, type) and typing.is_typeddict(hint):
            if hint not in order:
                for inner in hints(hint).values():
                    visit(inner)
                order.append(hint)
        else:
            for arg in get_args(hint):
                visit(arg)

    for root in roots:
        visit(root)
    return order


def prime() -> None:
    """Fill the tables the checks read (each host message's fields, and those of the shapes inside them),
    so that a memory snapshot holds them: after a warm boot neither the first ``hello`` nor the first
    message sent computes type hints (a few milliseconds in Pyodide)."""
    _host_types()
    shapes_in(HostMessage)


class BadMessage(ValueError):
    """A message from the host has a known ``type`` but fields of the wrong shape."""

    def __init__(self, type_: str, detail: str, request_id: str | None = None) -> None:
        super().__init__(f"bad {type_!r} message: {detail}")
        self.type = type_
        self.detail = detail
        self.request_id = request_id


_HOST_TYPES: dict[str, type] = {}


def _host_types() -> dict[str, type]:
    if not _HOST_TYPES:
        _HOST_TYPES.update(host_message_types())
    return _HOST_TYPES


def parse_host_message(raw: dict[str, Any]) -> HostMessage | None:
    """Check a decoded message against its definition. ``None`` for an unknown type (skipped).

    Raises ``BadMessage`` when a known type has missing or mistyped fields.
    """
    type_ = raw.get("type")
    cls = _host_types().get(type_) if isinstance(type_, str) else None
    if cls is None:
        log.debug("skipping a message of unknown type %r", type_)
        return None
    problem = typed_dict_problem(raw, cls)
    if problem:
        rid = raw.get("id")
        raise BadMessage(str(type_), problem, rid if isinstance(rid, str) else None)
    return typing.cast(HostMessage, raw)


def typed_dict_problem(value: dict[str, Any], cls: Any) -> str:
    """What is wrong with ``value`` as an instance of the TypedDict ``cls`` (``""``: nothing)."""
    for key in cls.__required_keys__:
        if key not in value:
            return f"missing field {key!r}"
    for key, hint in hints(cls).items():
        if key in value and not _conforms(value[key], hint):
            return f"field {key!r} is not {_describe(hint)}"
    return ""


def _conforms(value: Any, hint: Any) -> bool:
    if hint is Any:
        return True
    origin = get_origin(hint)
    if origin is Literal:
        return value in get_args(hint)
    if origin in (Union, typing.get_origin(int | None)):
        return any(_conforms(value, arm) for arm in get_args(hint))
    if hint is type(None):
        return value is None
    if origin is dict or hint is dict:
        args = get_args(hint)
        return isinstance(value, dict) and (not args or all(_conforms(v, args[1]) for v in value.values()))
    if origin is list or hint is list:
        args = get_args(hint)
        return isinstance(value, list) and (not args or all(_conforms(v, args[0]) for v in value))
    if isinstance(hint, type) and typing.is_typeddict(hint):
        return isinstance(value, dict) and not typed_dict_problem(value, hint)
    if hint is float:
        return isinstance(value, int | float) and not isinstance(value, bool)
    if hint is int:
        return isinstance(value, int) and not isinstance(value, bool)
    return isinstance(hint, type) and isinstance(value, hint)


def _describe(hint: Any) -> str:
    if get_origin(hint) is None and hasattr(hint, "__name__"):
        return str(hint.__name__)
    return str(hint).replace("typing.", "")

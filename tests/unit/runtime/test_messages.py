"""The message definitions: boundary checks, and docs/protocol.md naming every type and event kind."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from runtime.host.validate import BadMessage, event_kinds, host_message_types, parse_host_message, runtime_message_types

PROTOCOL_MD = (Path(__file__).resolve().parents[3] / "docs" / "protocol.md").read_text()


def _section(title: str) -> str:
    return PROTOCOL_MD.split(f"## {title}", 1)[1].split("\n## ", 1)[0]


@pytest.mark.parametrize(
    ("section", "types"),
    [
        pytest.param("Runtime → host", runtime_message_types, id="runtime to host"),
        pytest.param("Host → runtime", host_message_types, id="host to runtime"),
    ],
)
def test_protocol_doc_lists_every_message_type(section: str, types: Any) -> None:
    documented = set(re.findall(r"^\| `([a-z_]+)` \|", _section(section), re.M))
    assert documented == set(types())


def test_protocol_doc_lists_every_event_kind() -> None:
    text = _section("Runtime → host")
    documented = set(re.findall(r"`([a-z_]+)` \(", text.split("UI events", 1)[1].split("\n\n", 1)[0]))
    assert documented == set(event_kinds())


GOOD = [
    pytest.param({"type": "hello", "protocol": 1}, id="hello"),
    pytest.param({"type": "config", "model": None}, id="partial config"),
    pytest.param(
        {
            "type": "config",
            "provider": {"kind": "ollama", "base_url": "http://x", "has_key": False},
            "permission_mode": "full-auto",
            "page_origin": "http://localhost:5173",
        },
        id="full config",
    ),
    pytest.param({"type": "http_head", "id": "r1", "status": 200, "headers": {"a": "b"}}, id="http_head"),
    pytest.param({"type": "http_error", "id": "r1", "kind": "refused", "message": "no"}, id="http_error"),
    pytest.param({"type": "user_message", "text": "hi", "extra": [1]}, id="unknown fields are ignored"),
    pytest.param({"type": "request", "id": "h1", "method": "ping"}, id="request without params"),
]


@pytest.mark.parametrize("message", GOOD)
def test_valid_messages_pass(message: dict[str, Any]) -> None:
    assert parse_host_message(message) is message


BAD = [
    pytest.param({"type": "hello"}, "missing field 'protocol'", id="hello without protocol"),
    pytest.param({"type": "hello", "protocol": "1"}, "'protocol' is not int", id="protocol as a string"),
    pytest.param({"type": "http_head", "id": "r1", "status": True, "headers": {}}, "'status'", id="bool is not int"),
    pytest.param({"type": "approval", "call_id": "c", "decision": "maybe"}, "'decision'", id="unknown decision"),
    pytest.param({"type": "config", "provider": {"kind": "x"}}, "'provider'", id="provider missing fields"),
    pytest.param({"type": "config", "permission_mode": "yolo"}, "'permission_mode'", id="unknown mode"),
    pytest.param(
        {"type": "http_head", "id": "r1", "status": 200, "headers": {"a": 1}},
        "'headers'",
        id="header value not a string",
    ),
    pytest.param({"type": "request", "id": 5, "method": "ping"}, "'id'", id="id not a string"),
]


@pytest.mark.parametrize(("message", "detail"), BAD)
def test_invalid_messages_are_refused(message: dict[str, Any], detail: str) -> None:
    with pytest.raises(BadMessage) as info:
        parse_host_message(message)
    assert detail in str(info.value)


def test_unknown_type_is_skipped() -> None:
    assert parse_host_message({"type": "from_the_future", "x": 1}) is None


def test_primed_tables_hold_every_shape_a_host_message_is_checked_against() -> None:
    """What a warm boot restores: after ``prime`` no message, nested shapes included, computes hints."""
    from runtime.host import validate

    validate.prime()
    before = dict(validate._HINTS)
    image = {"media_type": "image/png", "name": "a.png", "data": "iVBO"}
    resource = {"server": "docs", "uri": "file:///a", "name": "a", "size": 1, "text": "x"}
    message = {
        "type": "user_message",
        "text": "hi",
        "images": [image],
        "resources": [resource],
        "prompt": {"server": "docs", "name": "summary"},
        "presend": {"id": "p1", "text": "hi"},
    }
    assert parse_host_message(message) is not None
    assert parse_host_message({"type": "approval", "call_id": "c1", "decision": "allow"}) is not None
    assert before == validate._HINTS
    assert len(before) > len(host_message_types())  # the nested shapes too

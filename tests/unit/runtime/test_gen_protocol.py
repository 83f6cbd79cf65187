"""scripts/gen_protocol.py: the TypeScript side is written from the Python definition, and kept current."""

from typing import Any, Literal, NotRequired, TypedDict

import pytest

from scripts import gen_protocol


class Sample(TypedDict):
    type: Literal["sample"]
    id: str
    count: int
    ratio: float | None
    tags: NotRequired[list[str]]
    mode: NotRequired[Literal["a", "b"]]
    extra: dict[str, Any]


def test_the_committed_files_are_what_the_generator_writes() -> None:
    assert gen_protocol.main(["--check"]) == 0, "run `npm run protocol:gen` and commit the result"


def test_a_typed_dict_becomes_a_type_and_a_field_table() -> None:
    fields = {name: (gen_protocol.ts_type(hint), required) for name, hint, required in gen_protocol._fields(Sample)}
    assert fields == {
        "type": ('"sample"', True),
        "id": ("string", True),
        "count": ("number", True),
        "ratio": ("number | null", True),
        "tags": ("string[]", False),
        "mode": ('"a" | "b"', False),
        "extra": ("Record<string, unknown>", True),
    }
    assert gen_protocol.schema(int) == "integer" and gen_protocol.schema(float) == "number"
    assert gen_protocol.schema(list[str] | None) == {"anyOf": [{"list": "string"}, "null"]}


def test_an_enumeration_of_constants_is_named_in_typescript() -> None:
    from runtime.host.constants import PermissionMode

    assert gen_protocol.ts_type(PermissionMode) == "PermissionMode"
    assert "export const PERMISSION_MODES = " in gen_protocol.constants_ts()


def test_a_type_hint_it_cannot_spell_stops_it_with_a_message() -> None:
    with pytest.raises(TypeError, match=r"extend scripts/gen_protocol\.py"):
        gen_protocol.ts_type(set[str])

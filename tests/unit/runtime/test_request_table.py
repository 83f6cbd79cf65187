"""The request method table is the one definition: every method has its params and result TypedDicts,
its handler is typed by them, the dispatcher checks params against them, the TypeScript map is written
from them, and docs/protocol.md documents every method of the table and no other."""

import re
import typing
from pathlib import Path
from typing import Any, TypedDict

import pytest

from runtime.requests.dispatch import methods
from runtime.requests.method import FILE_PARAMS, Method, NoParams
from runtime.requests.ports import Ports
from scripts import gen_requests
from tests.support.rigs import StateRig

PROTOCOL_MD = (Path(__file__).resolve().parents[3] / "docs" / "protocol.md").read_text()
REQUESTS_SECTION = PROTOCOL_MD.split("## Requests", 1)[1].split("\n## ", 1)[0]
TABLE = methods()


@pytest.mark.parametrize("name", sorted(TABLE))
def test_each_method_has_typed_params_and_result_and_a_handler_typed_by_them(name: str) -> None:
    method = TABLE[name]
    assert typing.is_typeddict(method.params) and typing.is_typeddict(method.result)
    hints = typing.get_type_hints(method.handler, localns={"Ports": Ports})
    params = [h for n, h in hints.items() if n not in ("ports", "return")]
    assert params == [method.params], f"{name}'s handler takes {params}, the table says {method.params}"
    assert hints["return"] is method.result
    if method.file:
        assert set(FILE_PARAMS) <= set(typing.get_type_hints(method.params)), "an upload's path and size are params"


@pytest.mark.parametrize("name", sorted(TABLE))
def test_protocol_doc_documents_each_method(name: str) -> None:
    assert re.search(rf"`{name}`", REQUESTS_SECTION), f"docs/protocol.md (Requests) does not name {name}"


def test_protocol_doc_documents_no_method_that_is_not_in_the_table() -> None:
    documented = set(re.findall(r"^\| `([a-z_]+)` \|", REQUESTS_SECTION, re.M))
    assert documented and documented <= set(TABLE), sorted(documented - set(TABLE))


def test_the_typescript_map_has_every_method_and_leaves_an_uploads_params_to_the_host() -> None:
    written = gen_requests.requests_ts()
    for name, method in TABLE.items():
        assert f"  {name}: {{ params: " in written
        if method.file:
            assert f"{name}: {{ params: Omit<{method.params.__name__}, " in written


def test_two_shapes_of_one_name_stop_the_generator() -> None:
    class Shown(TypedDict):
        a: int

    first = Shown

    class Shown(TypedDict):  # type: ignore[no-redef]
        b: str

    async def handler(ports: Ports, params: NoParams) -> Any:
        return {}

    table: dict[str, Method[Any, Any]] = {
        "one": Method(NoParams, first, handler),
        "two": Method(NoParams, Shown, handler),
    }
    with pytest.raises(TypeError, match="two request shapes are named Shown"):
        gen_requests.request_shapes(table)


@pytest.mark.parametrize(
    ("method", "params", "says"),
    [
        pytest.param("sessions_list", {"limit": "ten"}, "field 'limit' is not int", id="a wrong type"),
        pytest.param("session_open", {}, "missing field 'session_id'", id="a missing field"),
        pytest.param("memory_save", {"text": "t", "tags": "a,b"}, "field 'tags'", id="a wrong list"),
        pytest.param("session_export", {"format": "html"}, "field 'format'", id="a value out of its Literal"),
    ],
)
async def test_params_are_checked_against_the_params_typed_dict(
    rig: StateRig, method: str, params: dict[str, Any], says: str
) -> None:
    reply = await rig.request(method, **params)
    assert reply["ok"] is False and reply["error"]["code"] == "bad_params", reply
    assert reply["error"]["message"].startswith(f"{method}: params ") and says in reply["error"]["message"]


async def test_fields_a_method_does_not_know_are_ignored(rig: StateRig) -> None:
    assert await rig.result("sessions_list", limit=5, sort="newest") == await rig.result("sessions_list", limit=5)

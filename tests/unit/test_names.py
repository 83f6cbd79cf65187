"""One rule for names: runtime.names, the file tools, skill archives and the sandbox's safe_relative agree on
every vector of tests/vectors/names.json (the web suite reads the same file)."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from runtime.names import first_unsafe, name_problem, shown
from runtime.skills.entries import Limits, normalize_path
from runtime.skills.errors import ArchiveError
from runtime.tools.paths import PathRefused, resolve

ROOT = Path(__file__).resolve().parents[2]
VECTORS: dict[str, Any] = json.loads((ROOT / "tests" / "vectors" / "names.json").read_text(encoding="utf-8"))
DRIVER = ROOT / "web" / "public" / "sandbox" / "tidepool_sandbox.py"
ARCHIVE_CODES = {"control": "bad-name", "invalid": "bad-name", "format": "bidi-control"}


def _params(group: str) -> list[Any]:
    return [pytest.param(v, id=v["id"]) for v in VECTORS[group]]


@pytest.fixture(scope="module")
def sandbox() -> ModuleType:
    spec = importlib.util.spec_from_file_location("tidepool_sandbox_names_under_test", DRIVER)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("vector", _params("allowed"))
def test_allowed_names_pass_every_check(vector: dict[str, str], tmp_path: Path, sandbox: ModuleType) -> None:
    name = vector["name"]
    assert first_unsafe(name) is None and name_problem(name) is None
    assert shown(name) == name
    assert resolve(tmp_path, name) == tmp_path.resolve().joinpath(*name.split("/"))
    assert normalize_path(name, Limits()) == name
    assert sandbox.safe_relative(name)


@pytest.mark.parametrize("vector", _params("refused"))
def test_refused_names_are_refused_everywhere_naming_the_character(
    vector: dict[str, str], tmp_path: Path, sandbox: ModuleType
) -> None:
    name, code = vector["name"], vector["code"]
    bad = first_unsafe(name)
    assert bad is not None and (bad.code, bad.kind) == (code, vector["kind"])
    problem = name_problem(name)
    assert problem is not None and code in problem
    with pytest.raises(PathRefused) as refused:
        resolve(tmp_path, name)
    assert code in str(refused.value)
    with pytest.raises(ArchiveError) as archive:
        normalize_path(name, Limits())
    assert archive.value.reason == ("nul-byte" if code == "U+0000" else ARCHIVE_CODES[vector["kind"]])
    assert not sandbox.safe_relative(name)
    assert first_unsafe(shown(name)) is None  # what is printed of it holds none of them


@pytest.mark.parametrize("vector", _params("shown"))
def test_shown(vector: dict[str, str]) -> None:
    assert shown(vector["name"]) == vector["shown"]


@pytest.mark.parametrize(
    ("name", "refused"),
    [
        pytest.param("a" * 255, False, id="255-bytes"),
        pytest.param("a" * 256, True, id="256-bytes"),
        pytest.param("é" * 128, True, id="256-bytes-of-two-byte-letters"),
        pytest.param("d/" + "a" * 255, False, id="long-path-short-parts"),
        pytest.param("x" * 10_000, True, id="10k-chars"),
    ],
)
def test_a_part_over_255_bytes_is_refused(name: str, refused: bool, tmp_path: Path) -> None:
    assert (name_problem(name) is not None) is refused
    if refused:
        with pytest.raises(PathRefused, match="over 255 bytes"):
            resolve(tmp_path, name)


def test_printable_ascii_is_never_unsafe_and_the_rest_of_ascii_is_still_found() -> None:
    from runtime.names import first_unsafe, unsafe_kind

    printable = "".join(chr(c) for c in range(0x20, 0x7F))
    assert all(unsafe_kind(c) is None for c in printable) and first_unsafe(printable) is None
    for code in [*range(0x20), 0x7F]:
        found = first_unsafe(f"name{chr(code)}")
        assert found is not None and found.char == chr(code)

"""The sandbox reads which modules a run imports (without running it), to unpack the bundled wheels of
those it has (pygal) before the run: what ``imports`` in web/public/sandbox/tidepool_sandbox.py finds."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from types import ModuleType

import pytest

DRIVER = Path(__file__).resolve().parents[2] / "web" / "public" / "sandbox" / "tidepool_sandbox.py"
BUILD_WHEELS = Path(__file__).resolve().parents[2] / "scripts" / "build_wheels.py"


def _load(path: Path, name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def driver() -> ModuleType:
    return _load(DRIVER, "tidepool_sandbox_imports_under_test")


@pytest.mark.parametrize(
    ("code", "found"),
    [
        pytest.param("import pygal\nchart = pygal.Bar()", ["pygal"], id="import"),
        pytest.param("from pygal.style import DarkStyle", ["pygal"], id="from-submodule"),
        pytest.param("import os, json as j\nimport xml.etree.ElementTree", ["json", "os", "xml"], id="several"),
        pytest.param("def plot():\n    import pygal\n    return pygal", ["pygal"], id="inside-a-function"),
        pytest.param("from . import sibling\nfrom .pkg import x", [], id="relative-left-out"),
        pytest.param("print('import pygal')", [], id="in-a-string-is-not-an-import"),
        pytest.param("import (", [], id="does-not-parse"),
    ],
)
def test_the_imports_of_a_run_are_read_not_run(driver: ModuleType, code: str, found: list[str]) -> None:
    assert json.loads(driver.imports(code)) == found


def test_the_bundled_plotting_wheels_are_pinned_and_installed_on_import() -> None:
    build = _load(BUILD_WHEELS, "build_wheels_under_test")
    ((imports, requirements),) = build.SANDBOX_ON_IMPORT
    assert imports == ["pygal"]
    assert all("==" in r for r in requirements), "every on-import wheel is pinned"
    assert requirements[0].startswith("pygal==")

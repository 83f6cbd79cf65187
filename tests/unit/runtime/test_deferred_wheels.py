"""A boot from a memory snapshot unpacks the wheels after `ready` (runtime.pyodide_entry.defer_wheels):
until then an import that nothing else can answer unpacks the wheels holding its top-level name first,
and then finds its module; an import no wheel holds fails as it would anyway."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from runtime.pyodide_entry import defer_wheels, wheels_unpacked

MODULE = "tidepool_deferred_wheel_probe"


def waiting() -> int:
    return sum(type(finder).__name__ == "_UnpackFirst" for finder in sys.meta_path)


def test_an_import_before_the_unpack_unpacks_its_wheel_first(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(tmp_path))  # site-packages: on sys.path, empty until unpacked
    asked: list[str] = []

    def unpack(name: str) -> bool:
        asked.append(name)
        if name != MODULE:
            return False  # no wheel holds it
        (tmp_path / MODULE).mkdir()
        (tmp_path / MODULE / "__init__.py").write_text("VALUE = 'from the wheel'\n")
        (tmp_path / MODULE / "part.py").write_text("PART = 'a submodule'\n")
        return True

    defer_wheels(unpack)
    try:
        assert waiting() == 1
        module = __import__(MODULE)
        assert module.VALUE == "from the wheel"
        assert __import__(f"{MODULE}.part", fromlist=["PART"]).PART == "a submodule"
        assert asked == [MODULE], "the submodule came with its package's wheel"
        with pytest.raises(ModuleNotFoundError):
            __import__("tidepool_no_such_module_anywhere")
        assert asked == [MODULE, "tidepool_no_such_module_anywhere"]
        assert waiting() == 1, "the other wheels are unpacked in their turn, after ready"
    finally:
        sys.modules.pop(f"{MODULE}.part", None)
        sys.modules.pop(MODULE, None)
        wheels_unpacked()
    assert waiting() == 0


def test_unpacked_after_ready_nothing_waits(tmp_path: Path) -> None:
    calls: list[str] = []
    defer_wheels(lambda name: calls.append(name))
    wheels_unpacked()  # the worker unpacked them itself, right after ready
    assert waiting() == 0
    with pytest.raises(ModuleNotFoundError):
        __import__("tidepool_no_such_module_anywhere")
    assert calls == []

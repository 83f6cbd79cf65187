"""A boot from a memory snapshot unpacks the wheels after `ready` (runtime.pyodide_entry.defer_wheels):
until then an import that nothing else can answer unpacks them first, once, and then finds its module."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from runtime.pyodide_entry import defer_wheels, wheels_unpacked

MODULE = "tidepool_deferred_wheel_probe"


def waiting() -> int:
    return sum(type(finder).__name__ == "_UnpackFirst" for finder in sys.meta_path)


def test_an_import_before_the_unpack_unpacks_first(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(tmp_path))  # site-packages: on sys.path, empty until unpacked
    calls: list[int] = []

    def unpack() -> None:
        calls.append(1)
        (tmp_path / f"{MODULE}.py").write_text("VALUE = 'from the wheel'\n")

    defer_wheels(unpack)
    try:
        assert waiting() == 1
        module = __import__(MODULE)
        assert module.VALUE == "from the wheel"
        assert calls == [1]
        assert waiting() == 0
        with pytest.raises(ModuleNotFoundError):
            __import__("tidepool_no_such_module_anywhere")
        assert calls == [1], "unpacked once only"
    finally:
        sys.modules.pop(MODULE, None)
        wheels_unpacked()


def test_unpacked_after_ready_nothing_waits(tmp_path: Path) -> None:
    calls: list[int] = []
    defer_wheels(lambda: calls.append(1))
    wheels_unpacked()  # the worker unpacked them itself, right after ready
    assert waiting() == 0
    with pytest.raises(ModuleNotFoundError):
        __import__("tidepool_no_such_module_anywhere")
    assert calls == []

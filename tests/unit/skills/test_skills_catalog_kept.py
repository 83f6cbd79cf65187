"""The catalog is built once and kept until something it reads changes (``runtime.skills.layout``)."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from runtime.skills.catalog import Catalog, read_catalog, set_enabled
from runtime.skills.layout import skills_dir
from runtime.skills.origins import checked_origin, record_origin
from tests.unit.skills.support import skill_md


def _install(workspace: Path, name: str, description: str = "Does a thing.") -> Path:
    folder = skills_dir(workspace) / name
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "SKILL.md").write_bytes(skill_md(name, description))
    return folder


@pytest.fixture
def three(workspace: Path) -> Path:
    for name in ("alpha", "beta", "gamma"):
        _install(workspace, name)
    set_enabled(workspace, "alpha", True)  # state.json and origins.json are there: a change is an edit
    assert record_origin(skills_dir(workspace), ["gamma"], checked_origin("first", "skill://first/gamma"))
    return workspace


def _listed(catalog: Catalog) -> list[tuple[str, str, bool, str | None]]:
    return [(s.name, s.description, s.enabled, s.origin.server if s.origin else None) for s in catalog[0]]


def _skipped(catalog: Catalog) -> list[str]:
    return [s.folder for s in catalog[1]]


def test_nothing_changed_gives_the_same_catalog_without_reading_again(three: Path) -> None:
    first = read_catalog(three)
    assert [n for n, *_ in _listed(first)] == ["alpha", "beta", "gamma"]
    assert read_catalog(three) is first
    (three / "notes" / "todo.md").write_text("- more\n")  # outside the skills folder: not read by the catalog
    assert read_catalog(three) is first


def _same_size_edit(ws: Path) -> None:
    path = skills_dir(ws) / "beta" / "SKILL.md"
    before = path.stat()
    path.write_bytes(skill_md("beta", "Does a thinG."))  # the same size, in place (the same inode)
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns + 1_000_000))


def _origin(ws: Path) -> None:
    assert record_origin(skills_dir(ws), ["gamma"], checked_origin("docs", "skill://docs/gamma"))


def _folder_without_skill_md(ws: Path) -> None:
    (skills_dir(ws) / "delta").mkdir()


def _skill_md_removed(ws: Path) -> None:
    (skills_dir(ws) / "alpha" / "SKILL.md").unlink()


CHANGES = [
    pytest.param(
        lambda ws: _install(ws, "beta", "Does another thing."),
        [("alpha", "Does a thing.", True, None), ("beta", "Does another thing.", True, None)],
        [],
        id="a SKILL.md edited",
    ),
    pytest.param(
        _same_size_edit,
        [("alpha", "Does a thing.", True, None), ("beta", "Does a thinG.", True, None)],
        [],
        id="a SKILL.md edited to the same size",
    ),
    pytest.param(
        lambda ws: _install(ws, "aardvark"), [("aardvark", "Does a thing.", True, None)], [], id="a skill added"
    ),
    pytest.param(
        lambda ws: shutil.rmtree(skills_dir(ws) / "alpha"),
        [("beta", "Does a thing.", True, None)],
        [],
        id="a skill removed",
    ),
    pytest.param(
        lambda ws: set_enabled(ws, "alpha", False),
        [("alpha", "Does a thing.", False, None)],
        [],
        id="a skill disabled (state.json)",
    ),
    pytest.param(_origin, [("gamma", "Does a thing.", True, "docs")], [], id="an origin recorded (origins.json)"),
    pytest.param(_folder_without_skill_md, [], ["delta"], id="a folder without SKILL.md"),
    pytest.param(_skill_md_removed, [("beta", "Does a thing.", True, None)], ["alpha"], id="a SKILL.md removed"),
]


@pytest.mark.parametrize(("change", "listed", "skipped"), CHANGES)
def test_a_change_to_what_the_catalog_reads_builds_it_again(
    three: Path, change: Callable[[Path], object], listed: list[tuple[str, str, bool, str | None]], skipped: list[str]
) -> None:
    first = read_catalog(three)
    change(three)
    again = read_catalog(three)
    assert again is not first
    got = _listed(again)
    for entry in listed:  # what the change made of the listed skills (first by name)
        assert entry in got, got
    assert _skipped(again) == skipped
    assert read_catalog(three) is again


def test_a_skill_md_added_to_a_skipped_folder_lists_it(three: Path) -> None:
    _folder_without_skill_md(three)
    assert _skipped(read_catalog(three)) == ["delta"]
    _install(three, "delta", "Now a skill.")
    catalog = read_catalog(three)
    assert _skipped(catalog) == [] and ("delta", "Now a skill.", True, None) in _listed(catalog)


def test_no_skills_folder_is_an_empty_catalog(workspace: Path) -> None:
    assert read_catalog(workspace) == ((), ())
    _install(workspace, "first")
    assert [n for n, *_ in _listed(read_catalog(workspace))] == ["first"]

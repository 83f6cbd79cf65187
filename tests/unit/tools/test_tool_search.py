"""search_files: regex matches as path:line: text; binary, .agent/ and links out skipped; bounded."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from runtime.tools import files, search
from runtime.tools.base import ToolError
from tests.unit.tools.support import FakeContext, call, unwrapped


@pytest.fixture
def tree(workspace: Path) -> Path:
    (workspace / "src" / "pkg").mkdir(parents=True)
    (workspace / "src" / "pkg" / "mod.py").write_text("import os\n\ndef alpha():\n    return 'alpha'\n")
    (workspace / "src" / "top.py").write_text("# alpha at the top\n")
    (workspace / ".agent" / "results").mkdir(parents=True)
    (workspace / ".agent" / "results" / "c1.txt").write_text("alpha spilled\n")
    (workspace / "blob.bin").write_bytes(b"alpha\x00\x01\x02")
    return workspace


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        pytest.param(
            {"pattern": "alpha"},
            "notes/a.md:2: alpha line\nsrc/top.py:1: # alpha at the top\n"
            "src/pkg/mod.py:3: def alpha():\nsrc/pkg/mod.py:4:     return 'alpha'",
            id="everywhere-skipping-binary-agent-and-links-out",
        ),
        pytest.param({"pattern": r"^def \w+\("}, "src/pkg/mod.py:3: def alpha():", id="regex"),
        pytest.param({"pattern": "alpha", "path": "notes"}, "notes/a.md:2: alpha line", id="path-folder"),
        pytest.param({"pattern": "alpha", "path": "src/top.py"}, "src/top.py:1: # alpha at the top", id="path-file"),
        pytest.param(
            {"pattern": "alpha", "glob": "*.py"},
            "src/top.py:1: # alpha at the top\nsrc/pkg/mod.py:3: def alpha():\nsrc/pkg/mod.py:4:     return 'alpha'",
            id="glob-name",
        ),
        pytest.param(
            {"pattern": "alpha", "glob": "src/pkg/*.py"},
            "src/pkg/mod.py:3: def alpha():\nsrc/pkg/mod.py:4:     return 'alpha'",
            id="glob-path",
        ),
        pytest.param(
            {"pattern": "alpha", "glob": "src/**/*.py"},
            "src/top.py:1: # alpha at the top\nsrc/pkg/mod.py:3: def alpha():\nsrc/pkg/mod.py:4:     return 'alpha'",
            id="glob-double-star",
        ),
        pytest.param({"pattern": "just", "path": "link_in"}, "notes/b.txt:1: just b", id="link-inside"),
        pytest.param(
            {"pattern": "alpha", "path": ".agent"}, ".agent/results/c1.txt:1: alpha spilled", id="agent-asked"
        ),
        pytest.param({"pattern": "zeta"}, "no match for 'zeta' in 9 files", id="no-match"),
    ],
)
async def test_search(tree: Path, arguments: dict[str, Any], expected: str) -> None:
    text = await call(search.search_files, FakeContext(tree), **arguments)
    assert (text if text.startswith("no match") else unwrapped(text)) == expected


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        pytest.param({"pattern": "("}, "not a valid regular expression", id="bad-regex"),
        pytest.param({"pattern": ""}, "1 to 1000 characters", id="empty"),
        pytest.param({"pattern": "a" * 1001}, "1 to 1000 characters", id="too-long"),
        pytest.param({"pattern": "a", "path": "../"}, "'..' is not allowed", id="parent"),
        pytest.param({"pattern": "a", "path": "/etc"}, "absolute paths", id="absolute"),
        pytest.param({"pattern": "secret", "path": "dir_out"}, "outside the workspace", id="link-out"),
        pytest.param({"pattern": "a", "path": "nowhere"}, "nowhere does not exist", id="missing"),
    ],
)
async def test_search_refusals(ctx: FakeContext, arguments: dict[str, Any], message: str) -> None:
    with pytest.raises(ToolError, match=message):
        unwrapped(await call(search.search_files, ctx, **arguments))


async def test_matches_are_bounded_and_long_lines_cut(workspace: Path) -> None:
    (workspace / "many.txt").write_text("hit " + "x" * 1000 + "\n" + "hit\n" * 500)
    text = unwrapped(await call(search.search_files, FakeContext(workspace), pattern="hit", path="many.txt"))
    lines = text.splitlines()
    assert len(lines) == search.MAX_MATCHES + 1
    assert lines[0] == "many.txt:1: hit " + "x" * (search.MAX_LINE_CHARS - 4) + " [...]"
    assert lines[-1].startswith(f"[search incomplete: the first {search.MAX_MATCHES} matches are shown")


@pytest.mark.parametrize(
    ("limits", "note"),
    [
        pytest.param(search.SearchLimits(files=2), "stopped after 2 files", id="files"),
        pytest.param(search.SearchLimits(seconds=0.0), "stopped after 0 s", id="time"),
        pytest.param(search.SearchLimits(matches=1), "the first 1 matches are shown", id="matches"),
    ],
)
async def test_search_limits(tree: Path, limits: search.SearchLimits, note: str) -> None:
    text = await search.search(tree, "alpha|just|hello", ".", None, limits)
    assert text.endswith(f"[search incomplete: {note}; narrow it with path or glob]")


async def test_big_files_are_skipped(workspace: Path) -> None:
    (workspace / "huge.log").write_bytes(b"needle\n" + b"." * search.MAX_FILE_BYTES)
    (workspace / "small.log").write_text("needle\n")
    text = unwrapped(await call(search.search_files, FakeContext(workspace), pattern="needle"))
    assert text == "small.log:1: needle"


async def test_line_numbers_agree_with_read_file(workspace: Path) -> None:
    (workspace / "odd.txt").write_bytes(b"a\x0cb\r\nc\rneedle\n")
    ctx = FakeContext(workspace)
    assert unwrapped(await call(search.search_files, ctx, pattern="needle", path="odd.txt")) == "odd.txt:3: needle"
    assert unwrapped(await call(files.read_file, ctx, path="odd.txt", offset=3)) == "     3\tneedle"

"""The file tools on a temporary workspace: results, refusals, bounds, changed paths and previews."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from runtime.tools import files
from runtime.tools.base import ToolDefinition, ToolError, ToolOutput
from tests.unit.tools.support import FakeContext, call, unwrapped

# --- list_files -----------------------------------------------------------------------------------


async def test_list_root_shows_folders_first_sizes_and_links_out(ctx: FakeContext) -> None:
    text = await call(files.list_files, ctx)
    lines = text.splitlines()
    out = "(not accessible: it leads outside the workspace (through a symbolic link))"
    assert lines[:3] == [f"dir_out {out}", "empty/", "notes/"]
    assert "hello.py (15 bytes)" in lines
    assert f"link_out {out}" in lines
    assert "link_in (7 bytes)" in lines


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        pytest.param("notes", "notes/a.md (25 bytes)\nnotes/b.txt (7 bytes)", id="subfolder"),
        pytest.param("./notes/", "notes/a.md (25 bytes)\nnotes/b.txt (7 bytes)", id="normalized"),
        pytest.param("empty", "empty is empty", id="empty-folder"),
        pytest.param("hello.py", "hello.py (15 bytes)", id="a-file"),
    ],
)
async def test_list_paths(ctx: FakeContext, path: str, expected: str) -> None:
    assert await call(files.list_files, ctx, path=path) == expected


@pytest.mark.parametrize(
    ("path", "message"),
    [
        pytest.param("missing", "does not exist", id="missing"),
        pytest.param("../", "'..' is not allowed", id="parent"),
        pytest.param("/etc", "absolute paths", id="absolute"),
        pytest.param("dir_out", "outside the workspace", id="symlink-out"),
    ],
)
async def test_list_refusals(ctx: FakeContext, path: str, message: str) -> None:
    with pytest.raises(ToolError, match=message):
        await call(files.list_files, ctx, path=path)


async def test_list_is_bounded(ctx: FakeContext, workspace: Path) -> None:
    many = workspace / "many"
    many.mkdir()
    for i in range(files.MAX_LIST_ENTRIES + 7):
        (many / f"f{i:04}.txt").write_text("")
    lines = (await call(files.list_files, ctx, path="many")).splitlines()
    assert len(lines) == files.MAX_LIST_ENTRIES + 1
    assert lines[-1] == "... and 7 more entries"


# --- read_file ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        pytest.param({}, "     1\t# A\n     2\talpha line\n     3\tbeta line", id="whole"),
        pytest.param({"offset": 2}, "     2\talpha line\n     3\tbeta line", id="offset"),
        pytest.param(
            {"offset": 1, "limit": 2},
            "     1\t# A\n     2\talpha line\n[lines 1-2 of 3; continue with offset=3]",
            id="offset-and-limit",
        ),
        pytest.param({"limit": 1}, "     1\t# A\n[lines 1-1 of 3; continue with offset=2]", id="limit"),
        pytest.param({"offset": 3, "limit": 10}, "     3\tbeta line", id="limit-past-end"),
    ],
)
async def test_read_ranges(ctx: FakeContext, arguments: dict[str, Any], expected: str) -> None:
    assert unwrapped(await call(files.read_file, ctx, path="notes/a.md", **arguments)) == expected


@pytest.mark.parametrize(
    ("path", "arguments", "message"),
    [
        pytest.param("image.png", {}, r"image.png is a binary file \(\d+ bytes\); read_file shows text", id="binary"),
        pytest.param("latin1.txt", {}, "latin1.txt is a binary file", id="not-utf8-at-the-start"),
        pytest.param("late.txt", {}, "late.txt is not UTF-8 text", id="not-utf8-further-on"),
        pytest.param("notes", {}, "is a folder; use list_files", id="folder"),
        pytest.param("nope.txt", {}, "nope.txt does not exist", id="missing"),
        pytest.param("notes/a.md", {"offset": 0}, "starts at 1", id="offset-zero"),
        pytest.param("notes/a.md", {"limit": 0}, "at least 1", id="limit-zero"),
        pytest.param("notes/a.md", {"offset": 9}, "has 3 lines; offset 9 is past its end", id="offset-past-end"),
        pytest.param("../outside/secret.txt", {}, "'..' is not allowed", id="parent"),
        pytest.param("/etc/passwd", {}, "absolute paths are not allowed", id="absolute"),
        pytest.param("link_out", {}, "outside the workspace", id="symlink-out"),
    ],
)
async def test_read_refusals(
    ctx: FakeContext, workspace: Path, path: str, arguments: dict[str, Any], message: str
) -> None:
    (workspace / "latin1.txt").write_bytes("caf\xe9 ol\xe9 ".encode("latin-1") * 3)
    (workspace / "late.txt").write_bytes(b"ascii line\n" * 1000 + "caf\xe9\n".encode("latin-1"))
    with pytest.raises(ToolError, match=message):
        unwrapped(await call(files.read_file, ctx, path=path, **arguments))


async def test_read_follows_a_link_inside(ctx: FakeContext) -> None:
    assert unwrapped(await call(files.read_file, ctx, path="link_in")) == "     1\tjust b"


async def test_read_empty_file(ctx: FakeContext, workspace: Path) -> None:
    (workspace / "blank.txt").write_text("")
    assert await call(files.read_file, ctx, path="blank.txt") == "(blank.txt is empty)"


async def test_read_is_bounded_in_lines_and_line_length(ctx: FakeContext, workspace: Path) -> None:
    long_line = "x" * (files.MAX_LINE_CHARS + 50)
    (workspace / "big.txt").write_text(long_line + "\n" + "".join(f"line {i}\n" for i in range(3000)))
    text = unwrapped(await call(files.read_file, ctx, path="big.txt"))
    lines = text.splitlines()
    assert len(lines) == files.MAX_READ_LINES + 1
    assert lines[0].endswith(f"[line cut at {files.MAX_LINE_CHARS:,} characters]")
    assert lines[-1] == "[lines 1-2,000 of 3,001; continue with offset=2001]"
    more = unwrapped(await call(files.read_file, ctx, path="big.txt", offset=2001, limit=5000))
    assert more.splitlines()[-1] == "  3001\tline 2999"


async def test_read_keeps_crlf_out_of_the_text(ctx: FakeContext, workspace: Path) -> None:
    (workspace / "dos.txt").write_bytes(b"one\r\ntwo\r\n")
    assert unwrapped(await call(files.read_file, ctx, path="dos.txt")) == "     1\tone\n     2\ttwo"


# --- write_file -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "changed", "summary"),
    [
        pytest.param("new.txt", "new.txt", "created new.txt (7 bytes, 2 lines)", id="new"),
        pytest.param("deep/er/new.txt", "deep/er/new.txt", "created deep/er/new.txt", id="creates-folders"),
        pytest.param("hello.py", "hello.py", "overwrote hello.py (7 bytes, 2 lines)", id="overwrite"),
        pytest.param("link_in", "notes/b.txt", "overwrote notes/b.txt", id="through-link-inside"),
    ],
)
async def test_write(ctx: FakeContext, workspace: Path, path: str, changed: str, summary: str) -> None:
    result = await call(files.write_file, ctx, path=path, content="one\ntwo")
    assert isinstance(result, ToolOutput)
    assert result.text.startswith(summary)
    assert result.changed_paths == (changed,)
    assert (workspace / changed).read_text() == "one\ntwo"


@pytest.mark.parametrize(
    ("path", "message"),
    [
        pytest.param("notes", "is a folder", id="folder"),
        pytest.param(".", "is a folder", id="root"),
        pytest.param("../escape.txt", "'..' is not allowed", id="parent"),
        pytest.param("/tmp/escape.txt", "absolute paths", id="absolute"),
        pytest.param("dir_out/escape.txt", "outside the workspace", id="through-link-out"),
        pytest.param("link_out", "outside the workspace", id="link-out"),
    ],
)
async def test_write_refusals(ctx: FakeContext, workspace: Path, path: str, message: str) -> None:
    with pytest.raises(ToolError, match=message):
        await call(files.write_file, ctx, path=path, content="x")
    assert (workspace.parent / "outside" / "secret.txt").read_text() == "top secret\n"
    assert not (workspace.parent / "outside" / "escape.txt").exists()


# --- edit_file ------------------------------------------------------------------------------------


async def test_edit_replaces_once_and_returns_the_diff(ctx: FakeContext, workspace: Path) -> None:
    result = await call(files.edit_file, ctx, path="notes/a.md", old_text="alpha", new_text="ALPHA")
    assert (workspace / "notes" / "a.md").read_text() == "# A\nALPHA line\nbeta line\n"
    assert result.changed_paths == ("notes/a.md",)
    assert result.text == (
        "edited notes/a.md\n"
        "--- a/notes/a.md\n+++ b/notes/a.md\n@@ -1,3 +1,3 @@\n # A\n-alpha line\n+ALPHA line\n beta line\n"
    )


async def test_edit_marks_a_missing_final_newline(ctx: FakeContext, workspace: Path) -> None:
    (workspace / "nonl.txt").write_text("a\nb")
    result = await call(files.edit_file, ctx, path="nonl.txt", old_text="b", new_text="c")
    assert "-b\n\\ No newline at end of file\n+c\n\\ No newline at end of file\n" in result.text


async def test_edit_matches_windows_line_ends(ctx: FakeContext, workspace: Path) -> None:
    (workspace / "dos.txt").write_bytes(b"one\r\ntwo\r\nthree\r\n")
    await call(files.edit_file, ctx, path="dos.txt", old_text="one\ntwo", new_text="1\n2")
    assert (workspace / "dos.txt").read_bytes() == b"1\r\n2\r\nthree\r\n"


@pytest.mark.parametrize(
    ("path", "old_text", "new_text", "message"),
    [
        pytest.param("notes/a.md", "gamma", "x", "was not found in notes/a.md", id="no-match"),
        pytest.param("notes/a.md", "  alpha", "x", "whitespace and indentation", id="whitespace-differs"),
        pytest.param("notes/a.md", "line", "x", "matches 2 places in notes/a.md", id="ambiguous"),
        pytest.param("notes/a.md", "", "x", "old_text is empty", id="empty-old"),
        pytest.param("notes/a.md", "alpha", "alpha", "are the same", id="no-change"),
        pytest.param("image.png", "PNG", "JPG", "binary file", id="binary"),
        pytest.param("missing.md", "a", "b", "does not exist", id="missing"),
        pytest.param("link_out", "top", "x", "outside the workspace", id="link-out"),
    ],
)
async def test_edit_refusals_change_nothing(
    ctx: FakeContext, workspace: Path, path: str, old_text: str, new_text: str, message: str
) -> None:
    before = (workspace / "notes" / "a.md").read_bytes()
    with pytest.raises(ToolError, match=message):
        await call(files.edit_file, ctx, path=path, old_text=old_text, new_text=new_text)
    assert (workspace / "notes" / "a.md").read_bytes() == before


# --- delete_file and move_file --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "gone", "kept"),
    [
        pytest.param("hello.py", "hello.py", None, id="file"),
        pytest.param("empty", "empty", None, id="empty-folder"),
        pytest.param("link_in", "link_in", "notes/b.txt", id="link-itself-not-its-target"),
    ],
)
async def test_delete(ctx: FakeContext, workspace: Path, path: str, gone: str, kept: str | None) -> None:
    result = await call(files.delete_file, ctx, path=path)
    assert result.changed_paths == (gone,)
    assert not (workspace / gone).exists() and not (workspace / gone).is_symlink()
    if kept:
        assert (workspace / kept).exists()


@pytest.mark.parametrize(
    ("path", "message"),
    [
        pytest.param("notes", "folder holding 2 entries", id="non-empty-folder"),
        pytest.param(".", "workspace root", id="root"),
        pytest.param("missing", "does not exist", id="missing"),
        pytest.param("link_out", "outside the workspace", id="link-out"),
        pytest.param("dir_out/secret.txt", "outside the workspace", id="through-link-out"),
    ],
)
async def test_delete_refusals(ctx: FakeContext, workspace: Path, path: str, message: str) -> None:
    with pytest.raises(ToolError, match=message):
        await call(files.delete_file, ctx, path=path)
    assert (workspace.parent / "outside" / "secret.txt").exists()
    assert (workspace / "notes" / "a.md").exists()


@pytest.mark.parametrize(
    ("src", "dst", "changed"),
    [
        pytest.param("hello.py", "hi.py", ("hello.py", "hi.py"), id="rename"),
        pytest.param("hello.py", "src/app/hello.py", ("hello.py", "src/app/hello.py"), id="into-new-folder"),
        pytest.param("notes", "docs/notes", ("notes", "docs/notes"), id="folder"),
    ],
)
async def test_move(ctx: FakeContext, workspace: Path, src: str, dst: str, changed: tuple[str, str]) -> None:
    result = await call(files.move_file, ctx, src=src, dst=dst)
    assert result.changed_paths == changed
    assert not (workspace / src).exists()
    assert (workspace / dst).exists()


@pytest.mark.parametrize(
    ("src", "dst", "message"),
    [
        pytest.param("hello.py", "notes/a.md", "already exists", id="dst-exists"),
        pytest.param("notes", "notes/sub", "into itself", id="into-itself"),
        pytest.param("missing", "x", "does not exist", id="missing-src"),
        pytest.param("hello.py", "../hello.py", "'..' is not allowed", id="dst-outside"),
        pytest.param("hello.py", "dir_out/hello.py", "outside the workspace", id="dst-through-link-out"),
        pytest.param("dir_out/secret.txt", "stolen.txt", "outside the workspace", id="src-through-link-out"),
    ],
)
async def test_move_refusals(ctx: FakeContext, workspace: Path, src: str, dst: str, message: str) -> None:
    with pytest.raises(ToolError, match=message):
        await call(files.move_file, ctx, src=src, dst=dst)
    assert (workspace / "hello.py").exists()
    assert (workspace.parent / "outside" / "secret.txt").exists()


# --- previews for the approval card ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("tool", "arguments", "expected"),
    [
        pytest.param(
            files.write_file,
            {"path": "n.txt", "content": "hi\n"},
            "--- /dev/null\n+++ b/n.txt\n@@ -0,0 +1 @@\n+hi\n",
            id="write-new",
        ),
        pytest.param(
            files.write_file,
            {"path": "notes/b.txt", "content": "just c\n"},
            "--- a/notes/b.txt\n+++ b/notes/b.txt\n@@ -1 +1 @@\n-just b\n+just c\n",
            id="write-existing",
        ),
        pytest.param(
            files.edit_file,
            {"path": "notes/b.txt", "old_text": "b", "new_text": "B"},
            "--- a/notes/b.txt\n+++ b/notes/b.txt\n@@ -1 +1 @@\n-just b\n+just B\n",
            id="edit",
        ),
        pytest.param(
            files.edit_file,
            {"path": "notes/a.md", "old_text": "line", "new_text": "x"},
            "(this edit would fail: old_text matches 2 places",
            id="edit-would-fail",
        ),
        pytest.param(files.delete_file, {"path": "notes/b.txt"}, "delete notes/b.txt (7 bytes)", id="delete"),
        pytest.param(files.move_file, {"src": "hello.py", "dst": "x.py"}, "move hello.py → x.py", id="move"),
        pytest.param(files.write_file, {"path": "../x", "content": ""}, "(no preview: path '../x'", id="bad-path"),
        pytest.param(files.read_file, {"path": "notes/a.md"}, None, id="read-has-none"),
    ],
)
def test_previews_show_what_would_happen_and_change_nothing(
    ctx: FakeContext, workspace: Path, tool: ToolDefinition, arguments: dict[str, Any], expected: str | None
) -> None:
    before = sorted((p.relative_to(workspace).as_posix(), p.read_bytes()) for p in workspace.rglob("*") if p.is_file())
    preview = tool.render_preview(ctx, arguments)
    if expected is None:
        assert preview is None
    else:
        assert preview is not None and preview.startswith(expected)
    after = sorted((p.relative_to(workspace).as_posix(), p.read_bytes()) for p in workspace.rglob("*") if p.is_file())
    assert after == before

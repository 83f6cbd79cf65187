"""paths.resolve: what stays inside the workspace is allowed, everything else is refused with a reason."""

from __future__ import annotations

from pathlib import Path

import pytest

from runtime.tools.paths import PathRefused, display, relative, resolve


@pytest.mark.parametrize(
    ("user_path", "reason"),
    [
        pytest.param("../x", "'..' is not allowed", id="parent"),
        pytest.param("notes/../../x", "'..' is not allowed", id="parent-nested"),
        pytest.param("notes/../a.md", "'..' is not allowed", id="parent-even-if-inside"),
        pytest.param("/etc/passwd", "absolute paths are not allowed", id="absolute"),
        pytest.param("C:/Windows", "absolute paths are not allowed", id="drive-letter"),
        pytest.param("notes\\a.md", "not '\\'", id="backslash"),
        pytest.param("a\x00b", "U+0000 (a control character)", id="nul"),
        pytest.param("a\nb", "U+000A (a control character)", id="newline"),
        pytest.param("a\u202eb", "U+202E (an invisible or bidirectional", id="bidi-override"),
        pytest.param("", "empty", id="empty"),
        pytest.param("   ", "empty", id="blank"),
        pytest.param("link_out", "outside the workspace", id="symlink-file-out"),
        pytest.param("dir_out/secret.txt", "outside the workspace", id="symlink-dir-out"),
        pytest.param("dir_out/new.txt", "outside the workspace", id="symlink-dir-out-new-file"),
    ],
)
def test_refused(workspace: Path, user_path: str, reason: str) -> None:
    with pytest.raises(PathRefused) as info:
        resolve(workspace, user_path)
    assert reason in str(info.value)
    assert info.value.path == user_path


@pytest.mark.parametrize(
    ("user_path", "expected"),
    [
        pytest.param(".", ".", id="root"),
        pytest.param("notes/a.md", "notes/a.md", id="file"),
        pytest.param("./notes//a.md", "notes/a.md", id="normalized"),
        pytest.param("new/deeper/file.txt", "new/deeper/file.txt", id="not-yet-existing"),
        pytest.param("link_in", "notes/b.txt", id="symlink-inside-followed"),
        pytest.param("~", "~", id="tilde-is-a-name"),
    ],
)
def test_allowed(workspace: Path, user_path: str, expected: str) -> None:
    assert relative(workspace, resolve(workspace, user_path)) == expected


def test_not_following_the_last_link_names_the_link_itself(workspace: Path) -> None:
    link = resolve(workspace, "link_in", follow_last=False)
    assert link.is_symlink()
    assert relative(workspace, link) == "link_in"
    with pytest.raises(PathRefused):
        resolve(workspace, "link_out", follow_last=False)


@pytest.mark.parametrize(
    ("user_path", "shown"),
    [pytest.param("./a//b", "a/b", id="dots-and-slashes"), pytest.param(".", ".", id="root")],
)
def test_display(user_path: str, shown: str) -> None:
    assert display(user_path) == shown

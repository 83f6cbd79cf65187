"""``python -m runtime`` never imports from its workspace: files named like modules there stay files.

``-m`` puts the working directory first on ``sys.path``, and the default workspace is the working
directory; a workspace ``jinja2.py`` (imported at boot) or ``argparse.py`` (imported by the entry point
itself) must not run. The runtime is started as a person would: from inside the workspace, with ``.``.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from runtime.host.codec import Decoder, Frame, encode

SHADOWS = ["jinja2", "argparse", "asyncio", "sqlite3", "tempfile"]
PLANTED = "open(__file__ + '.ran', 'w').close()\nraise SystemExit('planted module imported')\n"
FRAMES = [{"type": "hello", "protocol": 1}, {"type": "request", "id": "h1", "method": "ping"}]


@pytest.mark.parametrize("workspace_arg", [".", None], ids=["--workspace .", "default workspace"])
def test_workspace_modules_are_never_imported(tmp_path: Path, workspace_arg: str | None) -> None:
    for name in SHADOWS:
        (tmp_path / f"{name}.py").write_text(PLANTED)
    (tmp_path / "in.bin").write_bytes(b"".join(encode(f) for f in FRAMES))
    args = [sys.executable, "-m", "runtime"] + (["--workspace", workspace_arg] if workspace_arg else [])
    with (tmp_path / "in.bin").open("rb") as stdin:
        proc = subprocess.run(args, stdin=stdin, capture_output=True, timeout=30, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr.decode()[-2000:]
    assert sorted(p.name for p in tmp_path.glob("*.ran")) == []
    replies = [i.message for i in Decoder().feed(proc.stdout) if isinstance(i, Frame) and i.message["type"] == "reply"]
    assert len(replies) == 1 and replies[0]["result"]["pong"] is True

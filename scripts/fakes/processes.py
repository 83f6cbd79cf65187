"""Run `scripts/serve.py` as a real subprocess on a free port, for the server and end-to-end tests."""

from __future__ import annotations

import contextlib
import os
import re
import select
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SERVE = ROOT / "scripts" / "serve.py"
URL_LINE = re.compile(r"at (http://\S+)/")


@contextlib.contextmanager
def serve_process(dist: Path, *extra: str, timeout_s: float = 20.0) -> Iterator[str]:
    """Start `serve.py --port 0 --dist DIST EXTRA...`; yield its base URL (no trailing slash)."""
    with serve_process_and_pid(dist, *extra, timeout_s=timeout_s) as (url, _pid):
        yield url


@contextlib.contextmanager
def serve_process_and_pid(dist: Path, *extra: str, timeout_s: float = 20.0) -> Iterator[tuple[str, int]]:
    """`serve_process`, yielding the server's process id too (to read its memory use)."""
    cmd = [sys.executable, str(SERVE), "--port", "0", "--dist", str(dist), *extra]
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True, env=env)
    try:
        yield _wait_for_url(proc, timeout_s), proc.pid
    finally:
        stop(proc)


def stop(proc: subprocess.Popen[str] | subprocess.Popen[bytes]) -> None:
    """End a server started for a test: asked first, killed after 5 s; its output pipe closed."""
    proc.terminate()
    try:
        proc.wait(timeout=5)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(timeout=5)
    if proc.stdout is not None:
        proc.stdout.close()


def _wait_for_url(proc: subprocess.Popen[str], timeout_s: float) -> str:
    assert proc.stdout is not None
    deadline = time.monotonic() + timeout_s
    seen: list[str] = []
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"serve.py exited with {proc.returncode}: {''.join(seen)}")
        ready, _, _ = select.select([proc.stdout], [], [], 0.2)
        if ready:
            line = proc.stdout.readline()
            seen.append(line)
            match = URL_LINE.search(line)
            if match:
                return match.group(1)
    raise TimeoutError(f"serve.py did not print its URL within {timeout_s} s: {''.join(seen)}")

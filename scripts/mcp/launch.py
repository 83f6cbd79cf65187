"""Start the test tool servers as subprocesses on free ports of 127.0.0.1 and stop them afterwards.

``python_server(cors_origins, skills=False)`` runs ``python_server.py`` (stateless, both revisions, with
CORS for those origins, or none; publishing skills with ``skills``; ``legacy_only`` refuses the
2026-07-28 revision, ``allow_headers`` limits CORS to those); ``hostile_server()`` runs
``hostile_server.py`` (yields its base URL: a case is at ``/<case>/mcp``); ``everything_server()`` runs
the reference ``@modelcontextprotocol/server-everything`` (pinned in package.json) with its Streamable
HTTP transport, preloading ``loopback.cjs`` so that it binds 127.0.0.1 although it takes no host option.
Each yields the server's endpoint URL.
"""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

from scripts.fakes.processes import stop

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
EVERYTHING = ROOT / "node_modules" / "@modelcontextprotocol" / "server-everything" / "dist" / "index.js"


@contextlib.contextmanager
def python_server(
    cors_origins: list[str],
    timeout_s: float = 30.0,
    skills: bool = False,
    extra_tools: int = 0,
    *,
    legacy_only: bool = False,
    allow_headers: list[str] | None = None,
) -> Iterator[str]:
    args = ["--port", "0", "--extra-tools", str(extra_tools), *(["--skills"] if skills else [])]
    for origin in cors_origins:
        args += ["--cors-origin", origin]
    if legacy_only:
        args.append("--legacy-only")
    if allow_headers:
        args += ["--cors-allow-headers", ",".join(allow_headers)]
    with _python_script("python_server.py", args, timeout_s) as url:
        yield url


@contextlib.contextmanager
def hostile_server(timeout_s: float = 30.0) -> Iterator[str]:
    with _python_script("hostile_server.py", ["--port", "0"], timeout_s) as url:
        yield url


@contextlib.contextmanager
def _python_script(script: str, args: list[str], timeout_s: float) -> Iterator[str]:
    cmd = [sys.executable, str(HERE / script), *args]
    path = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p)  # scripts.mcp.* imports
    env = {**os.environ, "PYTHONUNBUFFERED": "1", "PYTHONPATH": path}
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True, env=env)
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()  # the server prints its URL once it listens
        if not line.startswith("tool server at "):
            raise RuntimeError(f"{script} did not start: {line!r}")
        url = line.removeprefix("tool server at ").strip()
        _wait_for_port(url, timeout_s)
        yield url
    finally:
        stop(proc)


@contextlib.contextmanager
def everything_server(timeout_s: float = 60.0) -> Iterator[str]:
    if not EVERYTHING.is_file():
        raise RuntimeError(f"{EVERYTHING} is missing: run npm ci")
    port = free_port()
    cmd = ["node", "--require", str(HERE / "loopback.cjs"), str(EVERYTHING), "streamableHttp"]
    proc = subprocess.Popen(cmd, env={**os.environ, "PORT": str(port)}, stdout=subprocess.DEVNULL)
    try:
        url = f"http://127.0.0.1:{port}/mcp"
        _wait_for_port(url, timeout_s, proc)
        yield url
    finally:
        stop(proc)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _wait_for_port(url: str, timeout_s: float, proc: subprocess.Popen[bytes] | None = None) -> None:
    port = int(url.split(":")[2].split("/")[0])
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            raise RuntimeError(f"the tool server exited with {proc.returncode}")
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=0.5):
            return
        time.sleep(0.1)
    raise TimeoutError(f"no tool server listened at {url} within {timeout_s} s")

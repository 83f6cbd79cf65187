"""``python -m runtime``: the runtime on real pipes. Frames on stdin/stdout; human logs on stderr.

Stray ``print`` calls cannot corrupt the frame stream: frames go to a private copy of the original
stdout descriptor, and descriptor 1 is pointed at stderr.

The workspace is never on ``sys.path``: ``-m`` puts the working directory (the default workspace) first,
where a workspace file ``jinja2.py`` or ``argparse.py`` would replace the real module at boot. So before
anything else is imported the working directory is dropped, and once the arguments are read, the
workspace folder too (the ``runtime`` package itself is already loaded and finds its modules by its own
``__path__``).
"""

# ruff: noqa: E402 - the path must be cleaned before any import that could be shadowed
from __future__ import annotations

import os
import sys


def without_folder(path: list[str], folder: str) -> list[str]:
    """``path`` without entries naming ``folder`` ("" and "." name the working directory)."""
    here = os.path.realpath(folder)
    return [p for p in path if os.path.realpath(p or ".") != here]


sys.path[:] = without_folder(sys.path, os.getcwd())

import argparse
import asyncio
import logging
import tempfile
from pathlib import Path

from runtime.boot import BootConfig, boot
from runtime.host.codec import DEFAULT_MAX_FRAME
from runtime.host.transport import StdioTransport


def _args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m runtime", description=__doc__)
    parser.add_argument("--workspace", type=Path, default=Path(os.environ.get("TIDEPOOL_WORKSPACE", ".")))
    parser.add_argument("--log-level", default="INFO", choices=["DEBUG", "INFO", "WARNING", "ERROR"])
    parser.add_argument("--max-frame", type=int, default=DEFAULT_MAX_FRAME)
    parser.add_argument("--max-rounds", type=int, default=12)
    parser.add_argument(
        "--state-dir",
        type=Path,
        default=os.environ.get("TIDEPOOL_STATE_DIR"),
        help="folder of the state database (current.sqlite); default: a new temporary folder",
    )
    parser.add_argument("--session-id", default=None, help="the stored session to open (default: the latest)")
    return parser.parse_args(argv)


async def serve(config: BootConfig, read_fd: int, write_fd: int, max_frame: int) -> None:
    transport = StdioTransport(read_fd, write_fd, max_frame)
    await transport.open()
    await boot(config, transport).run()


def main(argv: list[str] | None = None) -> int:
    args = _args(argv)
    sys.path[:] = without_folder(sys.path, str(args.workspace))
    logging.basicConfig(stream=sys.stderr, level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    frames_fd = os.dup(sys.stdout.fileno())
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    state_dir = Path(args.state_dir) if args.state_dir else Path(tempfile.mkdtemp(prefix="tidepool-state-"))
    config = BootConfig(
        workspace=args.workspace.resolve(),
        max_rounds=args.max_rounds,
        log_level=getattr(logging, args.log_level),
        state_dir=state_dir.resolve(),
        session_id=args.session_id,
    )
    try:
        asyncio.run(serve(config, sys.stdin.fileno(), frames_fd, args.max_frame))
    except KeyboardInterrupt:
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())

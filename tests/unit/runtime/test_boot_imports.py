"""What the runtime imports on its way to `ready`: every import there is paid on each cold boot (in
Pyodide, ~10 × CPython), and what the memory snapshot must hold for a warm one."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]

BOOT_TO_READY = """
import asyncio, json, sys, tempfile
from pathlib import Path
from runtime.boot import BootConfig, boot
from runtime.host.codec import encode
from runtime.host.transport import FeedTransport

seen = {}
def write(data):
    if b'"ready"' in data and not seen:
        seen["modules"] = sorted(sys.modules)
transport = FeedTransport(write)
session = boot(BootConfig(workspace=Path(tempfile.mkdtemp())), transport)

async def main():
    task = asyncio.ensure_future(session.run())
    transport.received(encode({"type": "hello", "protocol": 1, "capabilities": []}))
    for _ in range(500):
        if seen:
            break
        await asyncio.sleep(0.01)
    await transport.close()
    await asyncio.wait_for(task, 5)

asyncio.run(main())
print(json.dumps(seen.get("modules")))
"""


def modules_at_ready() -> set[str]:
    done = subprocess.run([sys.executable, "-c", BOOT_TO_READY], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr[-2000:]
    modules = json.loads(done.stdout.strip().splitlines()[-1])
    assert modules, "the runtime did not send ready"
    return set(modules)


def test_ready_does_not_wait_for_modules_only_some_tools_use() -> None:
    modules = modules_at_ready()
    assert "runtime.tools.web" in modules  # the tools are registered before ready ...
    for lazy in ("html.parser", "difflib", "runtime.tools.html_text", "sqlite_utils", "jinja2"):
        assert lazy not in modules, f"{lazy} is imported before ready"  # ... what they use is not

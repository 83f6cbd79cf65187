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
WARM = "--warm" in sys.argv
if WARM:
    from runtime.pyodide_entry import warm_up
    seen["warmed"] = warm_up()
def write(data):
    if b'"ready"' in data and "modules" not in seen:
        seen["modules"] = sorted(sys.modules)
transport = FeedTransport(write)
session = boot(BootConfig(workspace=Path(tempfile.mkdtemp())), transport)

async def main():
    task = asyncio.ensure_future(session.run())
    transport.received(encode({"type": "hello", "protocol": 1, "capabilities": []}))
    for _ in range(500):
        if "modules" in seen:
            break
        await asyncio.sleep(0.01)
    await transport.close()
    await asyncio.wait_for(task, 5)

asyncio.run(main())
print(json.dumps(seen))
"""


def boot_to_ready(*args: str) -> dict[str, list[str]]:
    command = [sys.executable, "-c", BOOT_TO_READY, *args]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr[-2000:]
    seen: dict[str, list[str]] = json.loads(done.stdout.strip().splitlines()[-1])
    assert seen.get("modules"), "the runtime did not send ready"
    return seen


def modules_at_ready() -> set[str]:
    return set(boot_to_ready()["modules"])


def test_ready_does_not_wait_for_modules_only_some_tools_use() -> None:
    modules = modules_at_ready()
    assert "runtime.tools.web" in modules  # the tools are registered before ready ...
    lazies = ("html", "html.entities", "html.parser", "difflib", "runtime.tools.html_text", "sqlite_utils", "jinja2")
    for lazy in lazies:
        assert lazy not in modules, f"{lazy} is imported before ready"  # ... what they use is not


def test_the_snapshot_warm_up_imports_every_runtime_module_the_boot_needs() -> None:
    """What the memory snapshot holds is runtime/pyodide_entry.py's warm_up: a boot after it imports no
    runtime module of its own (one it did would be read from the wheel on every warm boot)."""
    seen = boot_to_ready("--warm")
    warmed = set(seen["warmed"])
    assert {"runtime.pyodide_entry", "runtime.boot", "runtime.tools.web", "runtime.providers.ollama"} <= warmed
    runtime_at_ready = {m for m in seen["modules"] if m == "runtime" or m.startswith("runtime.")}
    assert runtime_at_ready - warmed == set(), "imported after the warm-up, on the way to ready"

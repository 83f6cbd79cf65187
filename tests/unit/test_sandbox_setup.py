"""A sandbox's start imports neither micropip nor pyodide-http: ``setup`` in
web/public/sandbox/tidepool_sandbox.py patches HTTP when code first imports ``urllib.request``. Run in a
fresh CPython, where ``urllib.request`` is not yet imported (``patch_http`` is recorded, not run)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

DRIVER = Path(__file__).resolve().parents[2] / "web" / "public" / "sandbox" / "tidepool_sandbox.py"

PROBE = """
import importlib.util, inspect, json, sys
spec = importlib.util.spec_from_file_location("driver_under_test", sys.argv[1])
driver = importlib.util.module_from_spec(spec)
spec.loader.exec_module(driver)
patched = []
def record(requests_only=False):
    patched.append(getattr(sys.modules["urllib"], "request", None) is sys.modules.get("urllib.request"))
driver.patch_http = record
before = "urllib.request" in sys.modules
driver.setup("")
started = {"urllib": "urllib.request" in sys.modules, "micropip": "micropip" in sys.modules, "patched": list(patched)}
import urllib.request
source = inspect.getsource(urllib.request.urlopen)
import urllib.request as again
print(json.dumps({"before": before, "started": started, "patched": patched,
                  "hooks_left": sum(type(f).__name__ == "_PatchOnImport" for f in sys.meta_path),
                  "source": source.startswith("def urlopen"), "same": again is urllib.request}))
"""


def test_http_is_patched_at_the_first_urllib_import_not_at_start() -> None:
    done = subprocess.run(
        [sys.executable, "-c", PROBE, str(DRIVER)], capture_output=True, text=True, timeout=60, check=True
    )
    got = json.loads(done.stdout)
    assert got["before"] is False, "the probe needs a Python that has not imported urllib.request"
    assert got["started"] == {"urllib": False, "micropip": False, "patched": []}
    assert got["patched"] == [True], "patched once, with urllib.request loaded and bound on urllib"
    assert got["hooks_left"] == 0
    assert got["source"] and got["same"]

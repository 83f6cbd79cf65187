"""Issue 12: one step's state save vs the database's size, with the state on OPFS page by page.

The state harness worker (`web/tests/harness/state-kill.worker.ts`, op `step`) mounts three state folders
with the agent worker's own code (`StateSave.open`: sync access handles on OPFS) and real Pyodide SQLite,
grows their databases to 1, 10 and 50 MB, and times 45 steps of each, the sizes taking turns (each first
in turn): commit one message-sized row, then the state save (`StateSave.flush`: flush the handles). Taking
turns keeps the machine's load, which moves within seconds here, out of the ratios. It is bundled with
esbuild and served, with the built app, from a copy of `dist/` (same origin, same headers). Baseline: the
1 MB database; the target is flat.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from pathlib import Path

from playwright.sync_api import Browser

from scripts.fakes.processes import serve_process

from .common import Row, Samples

ROOT = Path(__file__).resolve().parents[2]
HARNESS = ROOT / "web" / "tests" / "harness" / "state-kill.worker.ts"
WORKER = "__bench_state_worker.js"
RUN = """async ([path, limit]) => {
  const worker = new Worker(path, { type: "module" });
  try {
    return await new Promise((resolve, reject) => {
      setTimeout(() => reject(new Error(`no answer in ${limit} ms`)), limit);
      worker.onmessage = ({ data }) => (data.error ? reject(new Error(data.error)) : resolve(data.result));
      worker.postMessage({ op: "step" });
    });
  } finally {
    worker.terminate();
    const root = await navigator.storage.getDirectory();
    await root.removeEntry("state-kill-test", { recursive: true }).catch(() => undefined);
  }
}"""


def measure_state_step(browser: Browser, dist: Path) -> list[Row]:
    esbuild = ROOT / "node_modules" / ".bin" / "esbuild"
    cmd = [str(esbuild), str(HARNESS), "--bundle", "--format=esm", "--target=es2022"]
    bundle = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=120, check=True).stdout
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / "dist"
        shutil.copytree(dist, copy)
        (copy / WORKER).write_text(bundle)
        with serve_process(copy) as url:
            ctx = browser.new_context()
            page = ctx.new_page()
            page.goto(url + "/favicon.svg")
            result: dict[str, list[float]] = page.evaluate(RUN, ["/" + WORKER, 600_000])
            ctx.close()
    base = Samples(result["1MB"])
    rows = []
    for mb in (1, 10, 50):
        times = Samples(result[f"{mb}MB"])
        rows.append(Row(f"one step's state save, {mb} MB database (commit + flush)", "same, 1 MB database", base,
                        times, "median", "flat (≤ 1.1 ×)", note=f"p95 {times.stat('p95'):.1f} ms"))
    return rows

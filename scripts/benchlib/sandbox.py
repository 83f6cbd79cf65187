"""Issue 3: the run_python sandbox — cold start (a fresh runner: new worker + Pyodide) and a warm `pass`.

web/src/sandbox/runner.ts is bundled with esbuild (as tests/e2e/test_sandbox.py does) and evaluated in
the booted app's page, so the served CSP applies. Baseline: a bare cold `loadPyodide()` in a worker.

The cold starts are timed once the page has settled: right after `ready` the app boots two more Pyodides
of its own (the agent worker's warm sandbox, then the snapshot maker), and on 2 cores a sandbox started
then measures that contention, not its own start.
"""

from __future__ import annotations

import subprocess

from playwright.sync_api import Browser

from .boot import bare_load_ms
from .common import READY_WATCH, ROOT, Row, Samples, boot_ready_ms, snapshot_stored

RUNNER = ROOT / "web" / "src" / "sandbox" / "runner.ts"
ESBUILD = ROOT / "node_modules" / ".bin" / "esbuild"
LIMIT_MS = 120_000
SETTLE_MS = 3_000  # after the snapshot is stored (the app's own warm sandbox boots before it)

INSTALL = """
globalThis.__bounded = (promise, ms) => Promise.race([
  promise, new Promise((_, reject) => setTimeout(() => reject(new Error(`over ${ms} ms`)), ms))]);
globalThis.TidepoolSandbox = TidepoolSandbox;
globalThis.__warm = new TidepoolSandbox.SandboxRunner(location.origin, { recycle: "on-failure" });
0;
"""

TIME_RUN = """
async ([fresh, limit]) => {
  const runner = fresh ? new TidepoolSandbox.SandboxRunner(location.origin) : __warm;
  const t0 = performance.now();
  const result = await __bounded(runner.run({ code: "pass", files: {}, timeout_s: 30 }), limit);
  const ms = performance.now() - t0;
  if (fresh) runner.dispose(); // else its replacement sandbox would boot beside the next cold start
  if (!result.ok) throw new Error(JSON.stringify(result).slice(0, 500));
  return [ms, runner.lastBoot];
}
"""


def bundle() -> str:
    cmd = [str(ESBUILD), str(RUNNER), "--bundle", "--format=iife", "--global-name=TidepoolSandbox", "--target=es2022"]
    return subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=60, check=True).stdout


def measure_sandbox(browser: Browser, base: str, runs: int) -> list[Row]:
    bare = [bare_load_ms(browser, base) for _ in range(runs)]
    ctx = browser.new_context()
    ctx.add_init_script(READY_WATCH)
    page = ctx.new_page()
    boot_ready_ms(page, base)
    settled = snapshot_stored(page)
    page.wait_for_timeout(SETTLE_MS)
    page.evaluate(bundle() + INSTALL)
    timed = [page.evaluate(TIME_RUN, [True, LIMIT_MS]) for _ in range(runs)]
    cold = [float(ms) for ms, _ in timed]
    restored = sum(1 for _, boot in timed if boot == "snapshot")
    page.evaluate(TIME_RUN, [False, LIMIT_MS])  # start the warm runner
    warm = [float(page.evaluate(TIME_RUN, [False, LIMIT_MS])[0]) for _ in range(runs * 5)]
    ctx.close()
    baseline = Samples(bare)
    return [Row("sandbox cold start + `run_python(\"pass\")`", "bare cold `loadPyodide()`", baseline,
                Samples(cold), "median", "≤ 0.7 ×",
                ("page settled (snapshot stored)" if settled else "the app stored no snapshot: timed without waiting")
                + f"; {restored} of {len(timed)} from the sandbox snapshot"),
            Row("sandbox warm `run_python(\"pass\")`", "—", None, Samples(warm), "median", "—")]

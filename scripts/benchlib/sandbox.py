"""Issue 3: the run_python sandbox — cold start (a fresh runner: new worker + Pyodide) and a warm `pass`.

web/src/sandbox/runner.ts is bundled with esbuild (as tests/e2e/test_sandbox.py does) and evaluated in
the booted app's page, so the served CSP applies. Baseline: a bare cold `loadPyodide()` in a worker.
"""

from __future__ import annotations

import subprocess

from playwright.sync_api import Browser

from .boot import bare_load_ms
from .common import READY_WATCH, ROOT, Row, Samples, boot_ready_ms

RUNNER = ROOT / "web" / "src" / "sandbox" / "runner.ts"
ESBUILD = ROOT / "node_modules" / ".bin" / "esbuild"
LIMIT_MS = 120_000

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
  if (!result.ok) throw new Error(JSON.stringify(result).slice(0, 500));
  return performance.now() - t0;
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
    page.evaluate(bundle() + INSTALL)
    cold = [float(page.evaluate(TIME_RUN, [True, LIMIT_MS])) for _ in range(runs)]
    page.evaluate(TIME_RUN, [False, LIMIT_MS])  # start the warm runner
    warm = [float(page.evaluate(TIME_RUN, [False, LIMIT_MS])) for _ in range(runs * 5)]
    ctx.close()
    baseline = Samples(bare)
    return [Row("sandbox cold start + `run_python(\"pass\")`", "bare cold `loadPyodide()`", baseline,
                Samples(cold), "median", "—"),
            Row("sandbox warm `run_python(\"pass\")`", "—", None, Samples(warm), "median", "—")]

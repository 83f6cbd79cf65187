#!/usr/bin/env python3
"""Tidepool benchmarks: each number is a ratio against a baseline measured in the same Chromium run.

    bash scripts/bench            # build if needed, then measure; prints a Markdown table
    bash scripts/bench --runs 5   # more repetitions

Measured (DESIGN §9):
- cold boot to `ready` vs. a bare `loadPyodide()` in a module worker (fresh browser context each run,
  so nothing is cached);
- warm boot (second visit, same context) vs. the bare cold `loadPyodide()`;
- time to first token: from pressing Send to the first assistant text in the page, through the
  runtime and the frames, vs. a direct `fetch` of the same stream from the page to its first text delta.

Only 127.0.0.1 is used: the app comes from scripts/serve.py, the model from the fake provider.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from playwright.sync_api import Browser, Page, sync_playwright  # noqa: E402

from tests.e2e.build import ensure_built  # noqa: E402
from tests.fakes.fake_llm import FakeLLM  # noqa: E402
from tests.fakes.processes import serve_process  # noqa: E402
from tests.fakes.replies import Reply  # noqa: E402

CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync"]
BOOT_TIMEOUT_MS = 180_000

READY_WATCH = """
(() => {
  const mark = () => {
    const el = document.querySelector('[data-testid="runtime-status"]');
    if (el && el.dataset.state === "ready" && window.__readyAt === undefined) window.__readyAt = performance.now();
  };
  new MutationObserver(mark).observe(document, { subtree: true, childList: true, attributes: true });
})();
"""

BARE_LOAD = """
async (origin) => {
  const src = `const t0 = performance.now();
    const { loadPyodide } = await import("${origin}/pyodide/pyodide.mjs");
    await loadPyodide({ indexURL: "${origin}/pyodide/" });
    postMessage(performance.now() - t0);`;
  const url = URL.createObjectURL(new Blob([src], { type: "text/javascript" }));
  const worker = new Worker(url, { type: "module" });
  const ms = await new Promise((resolve, reject) => {
    worker.onmessage = (e) => resolve(e.data);
    worker.onerror = (e) => reject(new Error(e.message));
  });
  worker.terminate();
  return ms;
}
"""

FIRST_TOKEN_UI = """
async (text) => {
  const count = () => document.querySelectorAll('[data-testid="message"][data-role="assistant"]').length;
  const before = count();
  const input = document.querySelector('[data-testid="chat-input"]');
  input.value = text;
  input.dispatchEvent(new Event("input", { bubbles: true }));
  const t0 = performance.now();
  document.querySelector('[data-testid="chat-send"]').click();
  return await new Promise((resolve) => {
    const check = () => {
      const all = document.querySelectorAll('[data-testid="message"][data-role="assistant"]');
      if (all.length > before && all[all.length - 1].textContent.trim().length > 0) {
        observer.disconnect();
        resolve(performance.now() - t0);
      }
    };
    const observer = new MutationObserver(check);
    observer.observe(document.body, { subtree: true, childList: true, characterData: true });
  });
}
"""

FIRST_TOKEN_FETCH = """
async ([url, model]) => {
  const t0 = performance.now();
  const response = await fetch(url, {
    method: "POST",
    headers: { "Content-Type": "application/json", "Authorization": "Bearer sk-bench" },
    body: JSON.stringify({ model, stream: true, messages: [{ role: "user", content: "hi" }] }),
  });
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return null;
    buffer += decoder.decode(value, { stream: true });
    for (const line of buffer.split("\\n")) {
      if (!line.startsWith("data: ") || line === "data: [DONE]") continue;
      try {
        const delta = JSON.parse(line.slice(6)).choices?.[0]?.delta;
        if (delta && delta.content) { reader.cancel(); return performance.now() - t0; }
      } catch { /* an event split across reads: wait for the rest */ }
    }
  }
}
"""


def launch(p) -> Browser:  # type: ignore[no-untyped-def]
    return p.chromium.launch(executable_path="/usr/bin/chromium", headless=True, args=CHROMIUM_ARGS)


def boot_ready_ms(page: Page, base: str) -> float:
    """Navigate and return the page-side time of `ready` (recorded in the page by READY_WATCH).

    Polling only reads the recorded value; it does not add to it. (`wait_for_function` would need
    `eval`, which the app's CSP forbids.)
    """
    page.goto(base + "/")
    deadline = time.monotonic() + BOOT_TIMEOUT_MS / 1000
    while time.monotonic() < deadline:
        ready_at = page.evaluate("() => window.__readyAt")
        if ready_at is not None:
            return float(ready_at)
        page.wait_for_timeout(50)
    raise TimeoutError("the app did not reach ready")


def measure_boot(browser: Browser, base: str, runs: int) -> dict[str, list[float]]:
    out: dict[str, list[float]] = {"bare": [], "cold": [], "warm": []}
    for _ in range(runs):
        ctx = browser.new_context()
        page = ctx.new_page()
        page.goto(base + "/pyodide/pyodide-lock.json")
        out["bare"].append(float(page.evaluate(BARE_LOAD, base)))
        ctx.close()
        ctx = browser.new_context()
        ctx.add_init_script(READY_WATCH)
        page = ctx.new_page()
        out["cold"].append(boot_ready_ms(page, base))
        out["warm"].append(boot_ready_ms(page, base))
        ctx.close()
    return out


def configure(page: Page, fake_base: str) -> str:
    page.get_by_test_id("settings-open").click()
    page.get_by_test_id("provider-select").select_option("openrouter")
    page.get_by_test_id("base-url-input").fill(fake_base + "/api/v1")
    page.get_by_test_id("api-key-input").fill("sk-bench")
    page.get_by_test_id("settings-save").click()
    page.wait_for_selector('[data-testid="connection-status"][data-state="ok"]', timeout=30_000)
    page.wait_for_selector('[data-testid="model-select"] option[value]', state="attached", timeout=30_000)
    model = page.get_by_test_id("model-select").input_value()
    if page.get_by_test_id("settings-open").is_visible() and page.get_by_test_id("provider-select").is_visible():
        page.keyboard.press("Escape")
    return model


def measure_first_token(browser: Browser, base: str, fake_base: str, runs: int) -> dict[str, list[float]]:
    ctx = browser.new_context()
    ctx.add_init_script(READY_WATCH)
    page = ctx.new_page()
    boot_ready_ms(page, base)
    model = configure(page, fake_base)
    out: dict[str, list[float]] = {"direct": [], "frames": []}
    url = fake_base + "/api/v1/chat/completions"
    for i in range(runs):
        out["direct"].append(float(page.evaluate(FIRST_TOKEN_FETCH, [url, model])))
        out["frames"].append(float(page.evaluate(FIRST_TOKEN_UI, f"bench {i}")))
        page.wait_for_selector('[data-testid="runtime-status"][data-state="ready"]', timeout=30_000)
    ctx.close()
    return out


def median(xs: list[float]) -> float:
    return statistics.median(xs)


def report(boot: dict[str, list[float]], ttft: dict[str, list[float]]) -> str:
    bare = median(boot["bare"])
    rows = [
        ("cold boot to `ready`", "bare cold `loadPyodide()`", bare, median(boot["cold"]), "≤ 1.3 ×"),
        ("warm boot to `ready`", "bare cold `loadPyodide()`", bare, median(boot["warm"]), "≤ 0.35 ×"),
    ]
    lines = ["| what | baseline | baseline ms (median) | Tidepool ms (median) | ratio | target |",
             "|---|---|---|---|---|---|"]
    for what, base_name, b, t, target in rows:
        lines.append(f"| {what} | {base_name} | {b:.0f} | {t:.0f} | {t / b:.2f} × | {target} |")
    d, f = median(ttft["direct"]), median(ttft["frames"])
    lines.append(f"| time to first token | direct `fetch` of the same stream | {d:.1f} | {f:.1f} | "
                 f"+{f - d:.1f} ms ({f / d:.2f} ×) | ≤ +5 ms |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=3, help="boot repetitions (first-token runs are 5×)")
    args = parser.parse_args()
    dist = ensure_built()
    fake = FakeLLM(default_reply=Reply.text("Hello from the benchmark. " * 4))
    with fake.running_in_thread() as fake_base, serve_process(dist) as base, sync_playwright() as p:
        browser = launch(p)
        boot = measure_boot(browser, base, args.runs)
        ttft = measure_first_token(browser, base, fake_base, args.runs * 5)
        browser.close()
    print(report(boot, ttft))
    print("\nraw (ms):", {k: [round(x, 1) for x in v] for k, v in {**boot, **ttft}.items()})


if __name__ == "__main__":
    main()

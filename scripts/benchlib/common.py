"""Shared pieces: the browser, boot detection, provider setup, OPFS seeding, statistics and the table."""

from __future__ import annotations

import re
import shutil
import statistics
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from playwright.sync_api import Browser, BrowserContext, ConsoleMessage, Page, Playwright

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync"]
BOOT_TIMEOUT_MS = 180_000
BLANK = "/pyodide/pyodide-lock.json"  # a same-origin page that does not start the app
SNAPSHOT_WAIT_S = 300
SETTLE_MS = 2_000.0

READY_WATCH = """
(() => {
  const mark = () => {
    const el = document.querySelector('[data-testid="runtime-status"]');
    if (el && el.dataset.state === "ready" && window.__readyAt === undefined) window.__readyAt = performance.now();
  };
  new MutationObserver(mark).observe(document, { subtree: true, childList: true, attributes: true });
})();
"""

# Write files into OPFS the way web/src/worker/persistence.ts lays them out (docs/storage.md):
# tidepool/workspaces/default/{state,files}/… . `spec` = {prefix, count, perDir, bytes, files: {path: b64}}.
SEED_OPFS = """
async (spec) => {
  const root = await navigator.storage.getDirectory();
  const dirOf = async (parts) => {
    let dir = root;
    for (const p of parts) dir = await dir.getDirectoryHandle(p, { create: true });
    return dir;
  };
  const write = async (path, data) => {
    const parts = path.split("/");
    const dir = await dirOf(parts.slice(0, -1));
    const w = await (await dir.getFileHandle(parts[parts.length - 1], { create: true })).createWritable();
    await w.write(data);
    await w.close();
  };
  const base = "tidepool/workspaces/default/";
  const filler = new Uint8Array(spec.bytes || 0).fill(120);
  for (let i = 0; i < (spec.count || 0); i++) {
    const sub = Math.floor(i / (spec.perDir || 100)).toString().padStart(3, "0");
    await write(`${base}files/${spec.prefix}/d${sub}/f${i}.txt`, filler);
  }
  for (const [path, b64] of Object.entries(spec.files || {})) {
    await write(base + path, Uint8Array.from(atob(b64), (c) => c.charCodeAt(0)));
  }
  return true;
}
"""

Stat = Literal["median", "p95"]


@dataclass(frozen=True)
class Samples:
    values: tuple[float, ...]

    def __init__(self, values: list[float] | tuple[float, ...]) -> None:
        object.__setattr__(self, "values", tuple(float(v) for v in values))

    @staticmethod
    def single(value: float) -> Samples:
        return Samples([value])

    def stat(self, which: Stat) -> float:
        return statistics.median(self.values) if which == "median" else percentile(list(self.values), 0.95)


@dataclass(frozen=True)
class Row:
    what: str
    baseline_name: str
    baseline: Samples | None
    value: Samples
    stat: Stat
    target: str
    note: str = ""
    ratio_text: str = field(default="")


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(fraction * (len(ordered) - 1))))
    return ordered[index]


def fmt_ms(ms: float) -> str:
    return f"{ms:.2f}" if ms < 10 else f"{ms:.1f}" if ms < 100 else f"{ms:.0f}"


def table(rows: list[Row]) -> str:
    lines = ["| what | baseline (same run) | baseline ms | Tidepool ms | ratio | target | notes |",
             "|---|---|---|---|---|---|---|"]
    for r in rows:
        value = r.value.stat(r.stat)
        base = r.baseline.stat(r.stat) if r.baseline else None
        count = f", n={len(r.value.values)}" if len(r.value.values) > 1 else ""
        ratio = r.ratio_text or (f"{value / base:.2f} ×" if base else "—")
        lines.append(f"| {r.what} | {r.baseline_name} | {fmt_ms(base) if base is not None else '—'} | "
                     f"{fmt_ms(value)} ({r.stat}{count}) | {ratio} | {r.target} | {r.note} |")
    return "\n".join(lines)


def raw(rows: list[Row]) -> dict[str, Any]:
    return {r.what: {"baseline": [round(v, 2) for v in r.baseline.values] if r.baseline else None,
                     "value": [round(v, 2) for v in r.value.values]} for r in rows}


def launch(p: Playwright) -> Browser:
    return p.chromium.launch(executable_path="/usr/bin/chromium", headless=True, args=CHROMIUM_ARGS)


Contexts = Callable[[], BrowserContext]
"""Opens a fresh browser context (closed by its user)."""


class OnDiskProfiles:
    """Fresh browser contexts with their profile on disk, as people use the app. `browser.new_context()`
    is an incognito context: its OPFS lives in the browser process and every call on a sync access
    handle is a round trip (about 1 ms here), which a step's SQLite writes pay dozens of times."""

    def __init__(self, p: Playwright) -> None:
        self._p = p
        self._dirs: list[str] = []

    def __call__(self) -> BrowserContext:
        profile = tempfile.mkdtemp(prefix="tidepool-bench-profile-")
        self._dirs.append(profile)
        return self._p.chromium.launch_persistent_context(
            profile, executable_path="/usr/bin/chromium", headless=True, args=CHROMIUM_ARGS)

    def remove(self) -> None:
        for profile in self._dirs:
            shutil.rmtree(profile, ignore_errors=True)


def boot_ready_ms(page: Page, base: str) -> float:
    """Navigate and return the page-side time of `ready` (recorded in the page by READY_WATCH).

    Polling only reads the recorded value; it does not add to it. (`wait_for_function` would need
    `eval`, which the app's CSP forbids.)
    """
    page.goto(base + "/")
    return recorded_ms(page, "__readyAt", BOOT_TIMEOUT_MS, "the app did not reach ready")


def settle(page: Page, after_ready_ms: float = SETTLE_MS) -> None:
    """Wait until the page is past what it does after `ready` (it starts a sandbox, checks the snapshot's sha256
    at 1 s): `after_ready_ms` on its clock since `ready`. A boot that lands on that work is slower for it (a
    navigation at once: +90 ms here, +450 ms with the app's server just stopped)."""
    left = page.evaluate("(ms) => window.__readyAt + ms - performance.now()", after_ready_ms)
    if left > 0:
        page.wait_for_timeout(left)


def recorded_ms(page: Page, name: str, timeout_ms: float, failure: str, every_ms: int = 50) -> float:
    """The page-side time an init script recorded in `window[name]`, polled until it is there."""
    deadline = time.monotonic() + timeout_ms / 1000
    while time.monotonic() < deadline:
        at = page.evaluate("(name) => window[name]", name)
        if at is not None:
            return float(at)
        page.wait_for_timeout(every_ms)
    raise TimeoutError(failure)


def snapshot_stored(page: Page) -> bool:
    """Wait (bounded) until the page stored its Python snapshot; False if it did not."""
    deadline = time.monotonic() + SNAPSHOT_WAIT_S
    while time.monotonic() < deadline:
        state = page.get_by_test_id("runtime-status").get_attribute("data-snapshot")
        if state in ("stored", "present", "loaded"):
            return True
        if state in ("refused", "failed", "none", None):  # None: a build that makes no snapshot after ready
            return False
        page.wait_for_timeout(200)
    return False


def seed_opfs(page: Page, base: str, spec: dict[str, Any]) -> None:
    """Fill OPFS from a same-origin page that does not run the app (before the app boots)."""
    page.goto(base + BLANK)
    page.evaluate(SEED_OPFS, spec)


def configure(page: Page, fake_base: str) -> str:
    page.get_by_test_id("settings-open").click()
    page.get_by_test_id("provider-select").select_option("openrouter")
    page.get_by_test_id("base-url-input").fill(fake_base + "/api/v1")
    page.get_by_test_id("api-key-input").fill("sk-bench")
    page.get_by_test_id("settings-save").click()
    # attached, not visible: the settings close by themselves after a save that connects
    page.wait_for_selector('[data-testid="connection-status"][data-state="ok"]', state="attached", timeout=120_000)
    page.wait_for_selector('[data-testid="model-select"] option[value]', state="attached", timeout=120_000)
    model = page.get_by_test_id("model-select").input_value()
    if page.get_by_test_id("settings-open").is_visible() and page.get_by_test_id("provider-select").is_visible():
        page.keyboard.press("Escape")
    return model


def new_chat(page: Page, timeout_ms: int = 60_000) -> None:
    """Start a new chat (so a run's history is not the last run's) and wait until it is open and empty."""
    page.get_by_test_id("session-new").click()
    deadline = time.monotonic() + timeout_ms / 1000
    while page.locator('[data-testid="message"]').count() and time.monotonic() < deadline:
        page.wait_for_timeout(50)
    wait_idle(page, timeout_ms)


def send(page: Page, text: str) -> None:
    box = page.get_by_test_id("chat-input")
    box.fill(text)
    page.get_by_test_id("chat-send").click()


def wait_idle(page: Page, timeout_ms: int = 60_000) -> None:
    page.wait_for_selector('[data-testid="runtime-status"][data-state="ready"]', timeout=timeout_ms)


# Before each timed first token: what the page does after a turn (the session list and the context gauge ask
# again 120–150 ms after it ends) and the next request's preparation are over, as they are when a person sends
# the next message. The direct fetch it is compared with runs in the same quiet page.
PERSON_PAUSE_MS = 300


def at_a_persons_pace(page: Page) -> None:
    page.wait_for_timeout(PERSON_PAUSE_MS)


BOOT_LINE = re.compile(r"boot \((?P<mode>[\w-]+)\): (?P<marks>.*?)(?: ms)?$")


class BootLines:
    """The worker's boot marks (`name@ms`, worker clock) from the console of a page, one boot at a time."""

    def __init__(self, page: Page) -> None:
        self.lines: list[str] = []
        page.on("console", self._keep)

    def _keep(self, message: ConsoleMessage) -> None:
        if "] boot (" in message.text:
            self.lines.append(message.text)

    def take(self, page: Page, timeout_ms: int = 30_000) -> dict[str, float]:
        """The marks of the boot just done (the worker logs them at `ready`); empty when it said none."""
        waited = 0
        while not self.lines and waited < timeout_ms:
            page.wait_for_timeout(50)
            waited += 50
        match = BOOT_LINE.search(self.lines[-1]) if self.lines else None
        self.lines.clear()
        if not match:
            return {}
        marks = (part.rpartition("@") for part in match.group("marks").split())
        return {name: float(ms) for name, _, ms in marks if name}

"""Issue 22: backup and restore of a 100 MB profile in the app, against a plain copy of the same OPFS files.

The profile: 100 workspace files of 1 MB each seeded in OPFS before the app boots (docs/storage.md
layout), and the app's own state. Backup: a click on `backup-export` until `backup-status` says the file
was written (the zip streamed into OPFS, then handed to the download). Restore: choosing that file in
`backup-import` (every entry read and its sha256 checked) until the preview shows, plus the click on
`backup-restore-replace` until `backup-report` is `ok` (staged into OPFS, then applied). The baseline,
in the same tab and run: every file of the workspace read and written to another OPFS folder, the
plainest copy a page can make. Peak memory: the page's JS heap (CDP `Runtime.getHeapUsage`: used heap
plus array-buffer backing stores), sampled every 20 ms while each runs.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from playwright.sync_api import Browser, CDPSession, Page

from .common import READY_WATCH, Row, Samples, boot_ready_ms, seed_opfs, snapshot_stored

MB = 1_000_000
FILES = 100
TIMEOUT_S = 300

PLAIN_COPY = """
async () => {
  const root = await navigator.storage.getDirectory();
  const app = await root.getDirectoryHandle("tidepool");
  const files = await (await (await app.getDirectoryHandle("workspaces")).getDirectoryHandle("default"))
    .getDirectoryHandle("files");
  const out = await app.getDirectoryHandle("bench-copy", { create: true });
  const t0 = performance.now();
  const copy = async (from, to) => {
    for await (const [name, handle] of from.entries()) {
      if (handle.kind === "directory") await copy(handle, await to.getDirectoryHandle(name, { create: true }));
      else {
        const w = await (await to.getFileHandle(name, { create: true })).createWritable();
        await w.write(await handle.getFile());
        await w.close();
      }
    }
  };
  await copy(files, out);
  const ms = performance.now() - t0;
  await app.removeEntry("bench-copy", { recursive: true });
  return ms;
}
"""


class HeapPeak:
    def __init__(self, page: Page) -> None:
        self._cdp: CDPSession = page.context.new_cdp_session(page)
        self.peak = 0.0

    def sample(self) -> None:
        usage: dict[str, Any] = self._cdp.send("Runtime.getHeapUsage")
        self.peak = max(self.peak, float(usage.get("usedSize", 0)) + float(usage.get("backingStorageSize", 0)))


def _until(page: Page, heap: HeapPeak, selector: str) -> None:
    deadline = time.monotonic() + TIMEOUT_S
    while time.monotonic() < deadline:
        heap.sample()
        if page.locator(selector).count():
            return
        page.wait_for_timeout(20)
    raise TimeoutError(f"{selector} did not appear")


def _profile(page: Page) -> None:
    if not page.get_by_test_id("backup-export").is_visible():
        page.get_by_test_id("profile-open").click()


def _backup(page: Page, folder: Path, run: int) -> tuple[float, float, Path]:
    _profile(page)
    heap = HeapPeak(page)
    page.evaluate("() => { const s = document.querySelector('[data-testid=\"backup-status\"]'); "
                  "if (s) delete s.dataset.state; }")
    with page.expect_download(timeout=TIMEOUT_S * 1000) as info:
        started = time.monotonic()
        page.get_by_test_id("backup-export").click()
        _until(page, heap, '[data-testid="backup-status"][data-state="ok"]')
        elapsed = (time.monotonic() - started) * 1000
    path = folder / f"backup-{run}.zip"
    info.value.save_as(path)
    return elapsed, heap.peak, path


def _restore(page: Page, backup: Path) -> tuple[float, float]:
    _profile(page)
    heap = HeapPeak(page)
    started = time.monotonic()
    page.get_by_test_id("backup-import").set_input_files(str(backup))
    _until(page, heap, '[data-testid="backup-restore-replace"]:visible')
    with page.expect_navigation(timeout=TIMEOUT_S * 1000):  # it reloads to read everything again
        page.get_by_test_id("backup-restore-replace").click()
        _until(page, heap, '[data-testid="backup-report"][data-state="ok"]')
        elapsed = (time.monotonic() - started) * 1000
    return elapsed, heap.peak


def measure_backup(browser: Browser, base: str, runs: int, folder: Path) -> list[Row]:
    copies: list[float] = []
    backups: list[float] = []
    restores: list[float] = []
    peaks = {"backup": 0.0, "restore": 0.0}
    for run in range(max(1, runs)):
        ctx = browser.new_context(accept_downloads=True)
        ctx.add_init_script(READY_WATCH)
        page = ctx.new_page()
        try:
            seed_opfs(page, base, {"prefix": "bulk", "count": FILES, "perDir": 10, "bytes": MB})
            boot_ready_ms(page, base)
            snapshot_stored(page)  # the worker is idle: the backup's state request is not queued behind it
            copies.append(float(page.evaluate(PLAIN_COPY)))
            ms, peak, path = _backup(page, folder, run)
            backups.append(ms)
            peaks["backup"] = max(peaks["backup"], peak)
            ms, peak = _restore(page, path)
            restores.append(ms)
            peaks["restore"] = max(peaks["restore"], peak)
            path.unlink()
        finally:
            ctx.close()
    size = f"{FILES * MB // 1_000_000} MB"
    return [
        Row(f"back up a {size} profile (`backup-export` to the file)", "plain OPFS copy of its files", Samples(copies),
            Samples(backups), "median", "≤ 2 × (throughput ≥ 0.5 ×)",
            note=f"peak page heap {peaks['backup'] / MB:.0f} MB"),
        Row(f"restore a {size} profile (verify + replace)", "plain OPFS copy of its files", Samples(copies),
            Samples(restores), "median", "≤ 2 × (throughput ≥ 0.5 ×)",
            note=f"peak page heap {peaks['restore'] / MB:.0f} MB"),
    ]

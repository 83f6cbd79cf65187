"""Issue 4 in the browser: OPFS persist time for 1/10/50 MB databases, and boot with a 50 MB database.

Persist: what web/src/worker/persistence.ts does for one state flush (getFileHandle, createWritable,
write, close), run from a page of the app's origin on bytes already in memory (the runtime's copy out
of Pyodide's FS is not included). Boot: `current.sqlite` is written into OPFS before the app starts
(docs/storage.md layout); the adapter copies it into /state before starting the runtime.
"""

from __future__ import annotations

import base64
import sqlite3
import tempfile
from pathlib import Path

from playwright.sync_api import Browser

from runtime.store.store import Store

from .common import READY_WATCH, Row, Samples, boot_ready_ms, seed_opfs

MB = 1_000_000

PERSIST = """
async ([bytes, runs]) => {
  const root = await navigator.storage.getDirectory();
  const app = await root.getDirectoryHandle("tidepool", { create: true });
  const dir = await app.getDirectoryHandle("bench", { create: true });
  const data = new Uint8Array(bytes);
  for (let i = 0; i < data.length; i += 4096) data[i] = i & 255;
  const out = [];
  for (let r = 0; r < runs; r++) {
    const t0 = performance.now();
    const handle = await dir.getFileHandle("current.sqlite", { create: true });
    const writable = await handle.createWritable();
    await writable.write(data);
    await writable.close();
    out.push(performance.now() - t0);
  }
  await app.removeEntry("bench", { recursive: true });
  return out;
}
"""


def measure_persist(browser: Browser, base: str, runs: int, sizes_mb: tuple[int, ...] = (1, 10, 50)) -> list[Row]:
    ctx = browser.new_context()
    page = ctx.new_page()
    page.goto(base + "/pyodide/pyodide-lock.json")
    rows = []
    for mb in sizes_mb:
        times = Samples(page.evaluate(PERSIST, [mb * MB, max(runs, 5)]))
        rows.append(Row(f"persist a {mb} MB database (OPFS createWritable)", "—", None, times, "p95",
                        "p95 ≤ 40 ms" if mb == 10 else "—", note=f"median {times.stat('median'):.1f} ms"))
    ctx.close()
    return rows


def make_database(path: Path, target_bytes: int) -> None:
    """A real state database (the runtime's schema, some memories) padded to about `target_bytes`."""
    store = Store(path)
    with store.atomic():
        for i in range(2_000):
            store.memory_save(f"benchmark memory {i}: the user likes tea, kyoto and sqlite " * 4, ["bench"])
    store.close()
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE IF NOT EXISTS bench_padding (data BLOB)")
    chunk = bytes(range(256)) * 4096  # 1 MiB
    while path.stat().st_size < target_bytes:
        conn.execute("INSERT INTO bench_padding VALUES (?)", (chunk,))
        conn.commit()
    conn.close()


def measure_big_boot(browser: Browser, base: str, runs: int, size_mb: int = 50) -> list[Row]:
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "current.sqlite"
        make_database(db, size_mb * MB)
        encoded = base64.b64encode(db.read_bytes()).decode("ascii")
        actual_mb = db.stat().st_size / MB
    empty: list[float] = []
    big: list[float] = []
    cases = [(empty, {}), (big, {"state/current.sqlite": encoded})]
    for run in range(runs):
        for sink, files in cases if run % 2 == 0 else cases[::-1]:  # alternate which goes first
            ctx = browser.new_context()
            ctx.add_init_script(READY_WATCH)
            page = ctx.new_page()
            if files:
                seed_opfs(page, base, {"files": files})
            sink.append(boot_ready_ms(page, base))
            ctx.close()
    return [Row(f"boot to `ready`, {actual_mb:.0f} MB database in OPFS", "same, empty OPFS", Samples(empty),
                Samples(big), "median", "—", note="cold context each run")]

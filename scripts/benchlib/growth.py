"""Issue 12: cost against the size of what is kept — boot with 0 / 1,000 / 10,000 / 50,000 workspace files,
and one tool step with 1 / 10 / 100 MB of conversation history.

Boot: the workspace is seeded in OPFS before the app starts (`tidepool/workspaces/default/files/…`, 100
files of 64 B per folder, written by a worker with sync access handles so 50,000 files take seconds, not
minutes), then the app boots in that context: the first boot is cold (no HTTP cache, no snapshot); after
the page has stored its Python snapshot the page is reloaded `runs` times (warm boots, the common case).
Row: the warm boots' median; baseline: the same with an empty workspace; the note gives the cold boot.

History: a real state database (the runtime's schema) with one session whose messages total the size
(user questions and long markdown answers; a summary covers them, as compaction leaves a long session),
written into OPFS `state/current.sqlite` before boot, in a
profile on disk (an incognito profile keeps OPFS, 100 MB here, in the browser process's memory). One
`write_file` round is timed at the fake model as the `tools` group does (end of the tool-call reply →
the next request). Baseline: the 1 MB history.
"""

from __future__ import annotations

import base64
import sqlite3
import sys
import tempfile
from pathlib import Path

from playwright.sync_api import Browser, BrowserContext, Error, Page

from runtime.store.store import Store

from .common import (
    BLANK,
    BOOT_TIMEOUT_MS,
    READY_WATCH,
    Contexts,
    Row,
    Samples,
    boot_ready_ms,
    configure,
    settle,
    snapshot_stored,
)
from .tools import TimedFakeLLM, tool_round_ms

MB = 1_000_000
SEED_LIMIT_MS = 600_000
SEED_STALL_MS = 60_000  # no folder seeded for this long: stalled

SEED_FILES = """
async (spec) => {
  const src = `onmessage = async ({ data: spec }) => {
    const t0 = performance.now();
    let dir = await navigator.storage.getDirectory();
    for (const p of ["tidepool", "workspaces", "default", "files", spec.prefix]) {
      dir = await dir.getDirectoryHandle(p, { create: true });
    }
    const filler = new Uint8Array(spec.bytes).fill(120);
    for (let first = 0; first < spec.count; first += spec.perDir) {
      const sub = await dir.getDirectoryHandle("d" + String(first / spec.perDir).padStart(3, "0"), { create: true });
      const names = [];
      for (let i = first; i < Math.min(spec.count, first + spec.perDir); i++) names.push("f" + i + ".txt");
      await Promise.all(names.map(async (name) => {
        const handle = await (await sub.getFileHandle(name, { create: true })).createSyncAccessHandle();
        handle.write(filler, { at: 0 });
        handle.close();
      }));
      postMessage({ seeded: first + names.length });
    }
    postMessage({ ms: performance.now() - t0 });
  };`;
  const worker = new Worker(URL.createObjectURL(new Blob([src], { type: "text/javascript" })));
  let seeded = 0;
  let timer = 0;
  try {
    return await new Promise((resolve, reject) => {
      const stalled = () =>
        reject(new Error(`seeding stalled at ${seeded} of ${spec.count} files (${spec.stall} ms without progress)`));
      setTimeout(() => reject(new Error(`seeding did not finish in ${spec.limit} ms (${seeded} files)`)), spec.limit);
      timer = setTimeout(stalled, spec.stall);
      worker.onmessage = (e) => {
        if (e.data.ms !== undefined) return resolve(e.data.ms);
        seeded = e.data.seeded;
        clearTimeout(timer);
        timer = setTimeout(stalled, spec.stall);
      };
      worker.onerror = (e) => reject(new Error(e.message));
      worker.postMessage(spec);
    });
  } finally {
    clearTimeout(timer);
    worker.terminate();
  }
}
"""

# One piece of the database (base64) written at its offset: a Playwright route answering with the
# whole 100 MB file closes the page (the body travels through the driver's protocol in one message).
SEED_STATE = """
async ([b64, at]) => {
  const t0 = performance.now();
  let dir = await navigator.storage.getDirectory();
  for (const p of ["tidepool", "workspaces", "default", "state"]) {
    dir = await dir.getDirectoryHandle(p, { create: true });
  }
  const bytes = Uint8Array.fromBase64 ? Uint8Array.fromBase64(b64) : Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
  const handle = await dir.getFileHandle("current.sqlite", { create: true });
  const writable = await handle.createWritable({ keepExistingData: at > 0 });
  await writable.seek(at);
  await writable.write(bytes);
  await writable.close();
  return performance.now() - t0;
}
"""
SEED_PIECE = 8 * 1024 * 1024


def _fresh(contexts: Contexts) -> tuple[BrowserContext, Page]:
    ctx = contexts()
    ctx.add_init_script(READY_WATCH)
    return ctx, ctx.new_page()


def _seeded(browser: Browser, base: str, count: int) -> tuple[BrowserContext, Page, float, int]:
    """A fresh context whose workspace holds `count` files. Seeding 50,000 files takes about a minute, but in
    three full runs it stopped making progress with the machine idle (never in a run of this group alone): a
    stall fails within SEED_STALL_MS and the seeding is tried once more in another fresh context."""
    for attempt in (1, 2):
        ctx, page = _fresh(browser.new_context)
        page.goto(base + BLANK)
        if not count:
            return ctx, page, 0.0, attempt
        spec = {"prefix": "seed", "count": count, "perDir": 100, "bytes": 64, "limit": SEED_LIMIT_MS,
                "stall": SEED_STALL_MS}
        try:
            return ctx, page, float(page.evaluate(SEED_FILES, spec)), attempt
        except Error as exc:
            ctx.close()
            if attempt == 2 or "stalled" not in str(exc):
                raise
            print(f"[bench] bootfiles: {count:,} files: {exc}; seeding again", file=sys.stderr)
    raise AssertionError("unreachable")


def settled_boot_ms(page: Page, base: str) -> float:
    """A boot once the page is past its last boot's after-`ready` work (`settle`)."""
    settle(page)
    return boot_ready_ms(page, base)


def measure_boot_files(browser: Browser, base: str, runs: int,
                       sizes: tuple[int, ...] = (0, 1_000, 10_000, 50_000)) -> list[Row]:
    warm: dict[int, Samples] = {}
    notes: dict[int, str] = {}
    for count in sizes:
        ctx, page, seed_ms, tries = _seeded(browser, base, count)
        try:
            try:
                cold = boot_ready_ms(page, base)
            except TimeoutError:  # a size that cannot boot in time is reported, not fatal to the group
                limit_s = BOOT_TIMEOUT_MS / 1000
                notes[count] = f"did not reach ready within {limit_s:.0f} s (seeding {seed_ms / 1000:.1f} s)"
                continue
            snapshot = snapshot_stored(page)
            warm[count] = Samples([settled_boot_ms(page, base) for _ in range(runs)])
            mode = page.get_by_test_id("runtime-status").get_attribute("data-snapshot")
            retried = f" (on try {tries}: the first stalled)" if tries > 1 else ""
            notes[count] = (f"cold boot {cold:.0f} ms; seeding {seed_ms / 1000:.1f} s{retried}; "
                            f"warm boots from {'the snapshot' if snapshot and mode == 'loaded' else 'no snapshot'}")
        finally:
            ctx.close()
    booted = [c for c in sizes if c in warm]
    for count in sizes:
        if count not in warm:
            print(f"[bench] bootfiles: {count:,} files: {notes[count]}", file=sys.stderr)
    return [Row(f"boot to `ready` (warm), {count:,}-file workspace", "same, empty workspace", warm.get(sizes[0]),
                warm[count], "median", "flat (≤ 1.1 ×)", note=notes[count]) for count in booted]


def make_history(path: Path, total_bytes: int) -> int:
    """A state database with one session of user/assistant turns totalling about `total_bytes` of text."""
    store = Store(path)
    session = store.create_session("benchmark history")
    answer = ("## Notes\n\nThe **benchmark** answer covers `sqlite`, tea and kyoto in some detail. " * 60 + "\n") * 6
    question = "Please explain the benchmark topic in detail, with examples. " * 8
    written = 0
    turn = 0
    with store.atomic():
        while written < total_bytes:
            turn += 1
            tid = f"t{turn}"
            store.append_message(session.id, "user", question, turn_id=tid)
            last = store.append_message(session.id, "assistant", answer, turn_id=tid, finish_reason="stop")
            written += len(question) + len(answer)
        store.save_summary(session.id, "The user asked many benchmark questions; all were answered.",
                           covers_to_seq=last.seq, turn_id=f"t{turn}")
    store.close()
    conn = sqlite3.connect(path)
    conn.execute("VACUUM")
    conn.close()
    return turn


def _history_page(contexts: Contexts, base: str, fake_base: str, db: Path) -> tuple[BrowserContext, Page, float, float]:
    ctx, page = _fresh(contexts)
    page.goto(base + BLANK)
    seed_ms = 0.0
    with db.open("rb") as fh:
        at = 0
        while piece := fh.read(SEED_PIECE):
            seed_ms += float(page.evaluate(SEED_STATE, [base64.b64encode(piece).decode("ascii"), at]))
            at += len(piece)
    boot_ms = boot_ready_ms(page, base)
    snapshot_stored(page)  # the first visit's background work is done before anything is timed
    configure(page, fake_base)
    page.get_by_test_id("permission-mode").select_option("auto-edit")
    return ctx, page, seed_ms, boot_ms


# A turn's after-work (its state save, the next request prepared, the page's follow-ups) outlasts 400 ms: with
# that pause the middle size, the only one timed right after another size in every round, read 1.23–1.30 ×
# in three of four full runs and 1.26 × alone while both ends were flat; with 1.5 s all three read 1.00–1.02 ×
# (2026-12-05). In one page, a round 50 ms after the last one's end is ~4 ms slower at any size: not growth.
SETTLE_MS = 1500


def measure_history_step(contexts: Contexts, base: str, fake: TimedFakeLLM, fake_base: str, runs: int,
                         sizes_mb: tuple[int, ...] = (1, 10, 100)) -> list[Row]:
    """Every size's page is booted first; then the sizes take turns, 5 × `runs` rounds each (a slower
    minute of the machine falls on every size alike, and the median of 15 holds still where 3 did not)."""
    steps: dict[int, list[float]] = {mb: [] for mb in sizes_mb}
    notes: dict[int, str] = {}
    pages: dict[int, Page] = {}
    opened: list[BrowserContext] = []
    with tempfile.TemporaryDirectory() as tmp:
        try:
            for mb in sizes_mb:
                db = Path(tmp) / f"history-{mb}.sqlite"
                turns = make_history(db, mb * MB)
                ctx, page, seed_ms, boot_ms = _history_page(contexts, base, fake_base, db)
                opened.append(ctx)
                pages[mb] = page
                notes[mb] = (f"{turns:,} turns, database {db.stat().st_size / MB:.0f} MB; "
                             f"boot to ready {boot_ms:.0f} ms (seeding {seed_ms:.0f} ms); sizes in turn")
                db.unlink()
            for mb in sizes_mb:  # not counted
                tool_round_ms(pages[mb], fake, "write_file", {"path": "out/warm-up.txt", "content": "w\n"})
            for i in range(runs * 5):
                for mb in sizes_mb if i % 2 == 0 else sizes_mb[::-1]:  # none is always first after a pause
                    args = {"path": f"out/new-{i}.txt", "content": f"x{i}\n"}
                    steps[mb].append(tool_round_ms(pages[mb], fake, "write_file", args))
                    # a turn's after-work (its state save, the next request prepared) is not timed in the
                    # next size's round: without this pause the middle size always paid for its neighbour's
                    pages[mb].wait_for_timeout(SETTLE_MS)
        finally:
            for ctx in opened:
                ctx.close()
    small = Samples(steps[sizes_mb[0]])
    return [Row(f"one tool step (`write_file` round), {mb} MB of history", f"same, {sizes_mb[0]} MB of history",
                small, Samples(steps[mb]), "median", "flat (≤ 1.1 ×)", note=notes[mb]) for mb in sizes_mb]

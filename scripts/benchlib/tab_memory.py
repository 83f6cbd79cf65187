"""Issue 25, item 6: the tab's memory after a long session is opened, against a fresh boot.

Four cases, each in a fresh context, taking turns `runs` times: a fresh boot (no database); the state
database of `long_session.seed_sessions` (a 1,000- and a 5,000-message session with tool calls — a
`read_file` call, its result and an answer per turn — and a newer 2-message one) with the short session
open; the same database with the 1,000- or the 5,000-message session opened. In each, one real turn
that runs `run_python` first (in the session open after boot, so the sandbox and its Pyodide are up in
every case, and the long sessions hold no new turn), then the Python snapshot stored (its short-lived
worker gone), the session opened, its view drawn (its last 50 messages) and the runtime idle (the next turn's
request prepared). Read then, with only that tab open: the private memory of the browser's renderer
processes (`/proc/<pid>/smaps_rollup`, pids from CDP `SystemInfo.getProcessInfo`: every JS heap, the
runtime's and the sandbox's Wasm memories, the DOM) and, per target (`targets.py`), the JS heap after a
GC and its array buffers. The growth should follow what is shown (at most 50 messages when it opens), not what
is stored.
"""

from __future__ import annotations

import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from playwright.sync_api import Browser, Page

from scripts.fakes.replies import Reply

from .common import Row, Samples, configure, send, snapshot_stored, wait_idle
from .long_session import LIMIT_MS, MIB, open_ms, seed_sessions, seeded_page
from .targets import TargetMemory, tab_targets
from .tools import TimedFakeLLM

SETTLE_MS = 3000  # the view's idle slices, the state save, the next request prepared
GC_SETTLE_MS = 300  # after the targets' garbage collections, before the renderers are read


@dataclass(frozen=True)
class Case:
    name: str
    seeded: bool
    title: str | None  # the session opened after the turn (None: the one open after boot)
    last: str = ""  # its last answer's text


@dataclass(frozen=True)
class Reading:
    renderers: tuple[int, ...]  # private bytes of each renderer process
    targets: tuple[TargetMemory, ...]

    def heap(self, kind: str) -> int:
        return sum(t.heap_used for t in self.targets if t.kind == kind)

    def buffers(self) -> int:
        return sum(t.backing for t in self.targets)


CASES = (
    Case("fresh", False, None),
    Case("stored", True, None),
    Case("1k", True, "tools 1k", "Answer 250 of tools 1k"),
    Case("5k", True, "tools 5k", "Answer 1250 of tools 5k"),
)


def _progress(started: float, what: str) -> None:
    print(f"[bench] memory: {time.monotonic() - started:.0f} s: {what}", file=sys.stderr, flush=True)


def renderers_private_bytes(browser: Browser) -> tuple[int, ...]:
    cdp = browser.new_browser_cdp_session()
    try:
        processes = cdp.send("SystemInfo.getProcessInfo")["processInfo"]
    finally:
        cdp.detach()
    out = []
    for proc in processes:
        if proc.get("type") != "renderer":
            continue
        try:
            rollup = Path(f"/proc/{int(proc['id'])}/smaps_rollup").read_text()
        except OSError:
            continue
        lines = [line.split() for line in rollup.splitlines()]
        out.append(sum(int(f[1]) * 1024 for f in lines if f and f[0] in ("Private_Clean:", "Private_Dirty:")))
    return tuple(sorted(out, reverse=True))


def _python_turn(page: Page, fake: TimedFakeLLM, fake_base: str) -> None:
    """One turn that runs `run_python` (full-auto; an approval that still comes is allowed)."""
    configure(page, fake_base)
    page.get_by_test_id("permission-mode").select_option("full-auto")
    fake.script([Reply.tool_call("run_python", {"code": "print(6 * 7)"}), Reply.text("Ran it: the end.")])
    send(page, "run some python")
    done = page.locator('[data-testid="message"][data-role="assistant"]', has_text="Ran it: the end.")
    allow = page.get_by_test_id("approval-allow")
    deadline = time.monotonic() + LIMIT_MS / 1000
    while not done.count():
        if time.monotonic() > deadline:
            raise TimeoutError("the run_python turn did not end")
        if allow.count():
            allow.first.click()
        page.wait_for_timeout(250)
    status = page.locator('[data-testid="tool-call"][data-tool="run_python"]').last.get_attribute("data-status")
    if status != "ok":
        raise RuntimeError(f"run_python ended {status}, not ok: the sandbox is not up")


def _measure_case(browser: Browser, base: str, fake: TimedFakeLLM, fake_base: str, database: Path,
                  ids: dict[str, str], case: Case) -> Reading:
    started = time.monotonic()
    ctx, page = seeded_page(browser, base, database if case.seeded else None)
    try:
        _python_turn(page, fake, fake_base)
        wait_idle(page, LIMIT_MS)
        if not snapshot_stored(page):
            raise RuntimeError("the Python snapshot was not stored (its worker would be counted)")
        _progress(started, f"{case.name}: booted, turn done, snapshot stored")
        if case.title is not None:
            open_ms(page, ids[case.title], case.last)
        wait_idle(page, LIMIT_MS)
        page.wait_for_timeout(SETTLE_MS)
        # The targets first: reading them collects each one's garbage, so that what the renderers hold is
        # read after it (read before, a 31 MB snapshot's bytes not yet collected made one reading in four
        # 20–45 MiB higher, in any of the cases).
        targets = tuple(tab_targets(browser, page))
        page.wait_for_timeout(GC_SETTLE_MS)
        reading = Reading(renderers_private_bytes(browser), targets)
        shown = " + ".join(f"{r / MIB:.0f}" for r in reading.renderers)
        heaps = ", ".join(f"{t.kind} {t.heap_used / MIB:.1f}" for t in reading.targets)
        _progress(started, f"{case.name}: renderers {shown} MiB; JS heaps {heaps} MiB")
        return reading
    finally:
        ctx.close()


def measure_memory(browser: Browser, base: str, fake: TimedFakeLLM, fake_base: str, runs: int) -> list[Row]:
    readings: dict[str, list[Reading]] = {c.name: [] for c in CASES}
    with tempfile.TemporaryDirectory() as tmp:
        database = Path(tmp) / "current.sqlite"
        ids = seed_sessions(database, [("tools 1k", 1000, True), ("tools 5k", 5000, True), ("other", 2, False)])
        for _ in range(runs):
            for case in CASES:
                readings[case.name].append(_measure_case(browser, base, fake, fake_base, database, ids, case))
    fresh = readings["fresh"]
    rows = []
    for case, label in ((CASES[1], "the stored database, its 2-message session open"),
                        (CASES[2], "the 1,000-message session with tool calls opened"),
                        (CASES[3], "the 5,000-message session with tool calls opened")):
        rows.append(_row(label, fresh, readings[case.name]))
    return rows


def _mib(readings: list[Reading], value: str) -> Samples:
    pick = {"renderers": lambda r: sum(r.renderers), "page": lambda r: r.heap("page"),
            "workers": lambda r: r.heap("worker") + r.heap("iframe"), "buffers": lambda r: r.buffers()}[value]
    return Samples([pick(r) / MIB for r in readings])


def _row(label: str, fresh: list[Reading], case: list[Reading]) -> Row:
    def both(value: str) -> str:
        return f"{_mib(case, value).stat('median'):.1f} vs {_mib(fresh, value).stat('median'):.1f}"

    tab, base = _mib(case, "renderers"), _mib(fresh, "renderers")
    return Row(f"tab memory, {label} (MiB, renderers' private memory)", "fresh boot, the same turn", base, tab,
               "median", "growth with what is shown (≤ 50 messages)",
               ratio_text=f"{tab.stat('median') - base.stat('median'):+.0f} MiB",
               note=f"page JS heap {both('page')} MiB; workers' and frames' JS heaps {both('workers')} MiB; "
                    f"array buffers {both('buffers')} MiB (after a GC); {len(case[0].renderers)} renderers")

"""Issue 2: cold/warm boot to `ready` vs a bare `loadPyodide()` (and the warm one vs a bare restore of a
snapshot), and time to first token vs a direct fetch.

The boot contexts allow service workers, as a person's browser does: the first visit (cold) registers
one after `ready`, which caches the build; the warm boot is timed once both the snapshot and that cache
are complete (a second visit comes later than the first visit's background work), so neither overlaps
what is measured. The notes give the worker's own boot steps (its `boot (…)` log line), median.

Each profile holds a stored 2-message chat (seeded in OPFS before the first visit), so the warm boot is
also timed to that conversation shown: `ready` says the runtime answers, the chat drawn is what a person
waits for (the store opens right after `ready`).
"""

from __future__ import annotations

import json
import statistics
import tempfile
from pathlib import Path
from string import Template
from typing import Any

from playwright.sync_api import Browser, Page

from .common import (
    READY_WATCH,
    BootLines,
    Contexts,
    Row,
    Samples,
    at_a_persons_pace,
    boot_ready_ms,
    configure,
    recorded_ms,
    send,
    snapshot_stored,
    wait_idle,
)
from .long_session import SEED, seed_sessions
from .offline import cached_after_ms
from .tools import TimedFakeLLM, same_request

# A module worker made from `src`; resolves with the first thing it posts.
IN_WORKER = """
async (src) => {
  const url = URL.createObjectURL(new Blob([src], { type: "text/javascript" }));
  const worker = new Worker(url, { type: "module" });
  try {
    return await new Promise((resolve, reject) => {
      worker.onmessage = (e) => resolve(e.data);
      worker.onerror = (e) => reject(new Error(e.message));
    });
  } finally {
    worker.terminate();
    URL.revokeObjectURL(url);
  }
}
"""

# The workers' bodies ($origin: the app's origin). A bare cold load, timed from the worker's start:
BARE_LOAD = Template("""const t0 = performance.now();
const { loadPyodide } = await import("$origin/pyodide/pyodide.mjs");
await loadPyodide({ indexURL: "$origin/pyodide/" });
postMessage(performance.now() - t0);""")

# A fresh Pyodide heap's snapshot, kept in Cache Storage:
BARE_SNAPSHOT = Template("""const { loadPyodide } = await import("$origin/pyodide/pyodide.mjs");
const pyodide = await loadPyodide({ indexURL: "$origin/pyodide/", _makeSnapshot: true });
const bytes = pyodide.makeMemorySnapshot();
await (await caches.open("bench-bare-snapshot")).put("$origin/bench-bare-snapshot", new Response(bytes));
postMessage(bytes.byteLength);""")

# That snapshot read and restored, timed from the worker's start:
BARE_WARM_LOAD = Template("""const t0 = performance.now();
const { loadPyodide } = await import("$origin/pyodide/pyodide.mjs");
const stored = await (await caches.open("bench-bare-snapshot")).match("$origin/bench-bare-snapshot");
await loadPyodide({ indexURL: "$origin/pyodide/", _loadSnapshot: new Uint8Array(await stored.arrayBuffer()) });
postMessage(performance.now() - t0);""")

# A page of the app's origin that does no more than start a worker restoring that snapshot ($worker: its
# body); the page's clock at the restore, as READY_WATCH records the app's `ready`:
BARE_WARM_PAGE = Template("""<!doctype html><meta charset="utf-8"><title>bare warm load</title>
<script type="module">
const url = URL.createObjectURL(new Blob([$worker], { type: "text/javascript" }));
new Worker(url, { type: "module" }).onmessage = () => { window.__restoredAt = performance.now(); };
</script>""")
BARE_WARM_PATH = "/bench-bare-warm.html"

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
        resolve([performance.now() - t0, performance.timeOrigin + t0]);
      }
    };
    const observer = new MutationObserver(check);
    observer.observe(document.body, { subtree: true, childList: true, characterData: true });
  });
}
"""

FIRST_TOKEN_FETCH = """
async ([url, model, wall, body]) => {
  const t0 = performance.now();
  const response = await fetch(url, {
    method: "POST",
    headers: { "Content-Type": "application/json", "Authorization": "Bearer sk-bench" },
    body: body ?? JSON.stringify({ model, stream: true, messages: [{ role: "user", content: "hi" }] }),
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
        if (delta && delta.content) {
          reader.cancel();
          return wall ? [performance.now() - t0, performance.timeOrigin + t0] : performance.now() - t0;
        }
      } catch { /* an event split across reads: wait for the rest */ }
    }
  }
}
"""


def in_worker(page: Page, body: Template, origin: str) -> Any:
    """Run `body` in a fresh module worker of `page`; what it posts first."""
    return page.evaluate(IN_WORKER, body.substitute(origin=origin))


def bare_load_ms(browser: Browser, base: str) -> float:
    ctx = browser.new_context()
    page = ctx.new_page()
    page.goto(base + "/pyodide/pyodide-lock.json")
    ms = float(in_worker(page, BARE_LOAD, base))
    ctx.close()
    return ms


def bare_warm_ms(browser: Browser, base: str) -> float:
    """A bare warm load: a worker reading a fresh Pyodide heap's snapshot from Cache Storage and
    restoring it with `loadPyodide({ _loadSnapshot })`, timed from the worker's start; what the app's warm
    boot does before any of its own code (its page, its checks, its runtime) runs."""
    ctx = browser.new_context()
    page = ctx.new_page()
    page.goto(base + "/pyodide/pyodide-lock.json")
    in_worker(page, BARE_SNAPSHOT, base)
    ms = float(in_worker(page, BARE_WARM_LOAD, base))
    ctx.close()
    return ms


def bare_warm_page_ms(browser: Browser, base: str) -> float:
    """The same restore from a page's navigation: a second visit to a page that only starts that worker (the
    first visit before it, as the app's warm boot follows its first visit), timed on the page's clock, as the
    app's `ready` is. What a page of this origin must do to be back where the snapshot was taken."""
    html = BARE_WARM_PAGE.substitute(worker=json.dumps(BARE_WARM_LOAD.substitute(origin=base)))
    ctx = browser.new_context()
    try:
        ctx.route(base + BARE_WARM_PATH, lambda route: route.fulfill(body=html, content_type="text/html"))
        page = ctx.new_page()
        page.goto(base + "/pyodide/pyodide-lock.json")
        in_worker(page, BARE_SNAPSHOT, base)
        visits = [_restored_ms(page, base + BARE_WARM_PATH) for _ in range(2)]  # the first, then the one timed
        return visits[1]
    finally:
        ctx.close()


def _restored_ms(page: Page, url: str) -> float:
    page.goto(url)
    return recorded_ms(page, "__restoredAt", 60_000, "the bare page did not restore its snapshot")


def steps_note(boots: list[dict[str, float]]) -> str:
    """Each step's start (median over the boots that have it, ms on the worker's clock)."""
    names: list[str] = []
    for marks in boots:
        names += [n for n in marks if n not in names and n != "wheels-unpacked"]
    starts = [(n, statistics.median([m[n] for m in boots if n in m])) for n in names]
    return "worker steps (median, ms on its clock): " + ", ".join(
        f"{n} {ms:.0f}" for n, ms in sorted(starts, key=lambda s: s[1])
    )


SHOWN_WATCH = """
(() => {
  new MutationObserver(() => {
    if (window.__shownAt === undefined && document.querySelector('[data-testid="message"]'))
      window.__shownAt = performance.now();
  }).observe(document, { subtree: true, childList: true });
})();
"""


def shown_ms(page: Page) -> float:
    """The page-side time the stored conversation's first message was drawn (recorded by SHOWN_WATCH)."""
    return recorded_ms(page, "__shownAt", 60_000, "the stored conversation was not shown", every_ms=20)


def measure_boot(browser: Browser, base: str, runs: int) -> list[Row]:
    bare: list[float] = []
    bare_warm: list[float] = []
    bare_page: list[float] = []
    cold: list[float] = []
    warm: list[float] = []
    shown: list[float] = []
    steps: tuple[list[dict[str, float]], list[dict[str, float]]] = ([], [])
    from_snapshot = unknown = 0
    with tempfile.TemporaryDirectory() as tmp:
        database = Path(tmp) / "current.sqlite"
        seed_sessions(database, [("a stored chat", 2, False)])
        for _ in range(runs):
            bare.append(bare_load_ms(browser, base))
            bare_warm.append(bare_warm_ms(browser, base))
            bare_page.append(bare_warm_page_ms(browser, base))
            ctx = browser.new_context()
            ctx.add_init_script(READY_WATCH)
            ctx.add_init_script(SHOWN_WATCH)
            ctx.route("**/__seed/current.sqlite", lambda route: route.fulfill(path=str(database)))
            page = ctx.new_page()
            page.goto(base + "/pyodide/pyodide-lock.json")  # the app's origin, without starting the app
            page.evaluate(SEED, base + "/__seed/current.sqlite")
            lines = BootLines(page)
            cold.append(boot_ready_ms(page, base))
            steps[0].append(lines.take(page))
            snapshot_stored(page)  # the first visit's idle work: the next visit boots from it
            cached_after_ms(page)  # and its service worker caches the build (the next visit is served from it)
            warm.append(boot_ready_ms(page, base))
            shown.append(shown_ms(page))
            steps[1].append(lines.take(page))
            mode = page.get_by_test_id("runtime-status").get_attribute("data-snapshot")
            from_snapshot += mode == "loaded"
            unknown += mode is None  # a build that does not say
            ctx.close()
    baseline = Samples(bare)
    after_ready = Samples([s - w for s, w in zip(shown, warm, strict=True)])
    warm_note = "" if unknown else f"{from_snapshot} of {runs} from the snapshot; "
    return [
        Row(
            "cold boot to `ready`",
            "bare cold `loadPyodide()`",
            baseline,
            Samples(cold),
            "median",
            "≤ 1.3 ×",
            note=steps_note(steps[0]),
        ),
        Row(
            "warm boot to `ready` (second visit)",
            "bare cold `loadPyodide()`",
            baseline,
            Samples(warm),
            "median",
            "≤ 0.2 ×",
            note=warm_note + steps_note(steps[1]),
        ),
        Row(
            "warm boot to `ready` (second visit), against restoring a bare snapshot",
            "bare warm `loadPyodide({ _loadSnapshot })` from a page's navigation",
            Samples(bare_page),
            Samples(warm),
            "median",
            "≤ 1.5 × (proposed)",
            note="the baseline: a second visit to a page that only starts a worker reading a fresh Pyodide heap's "
            "snapshot (31 MB) from Cache Storage and restoring it, from the navigation as the app's row; the same "
            f"worker alone, from its start: {statistics.median(bare_warm):.0f} ms "
            f"({statistics.median(warm) / statistics.median(bare_warm):.2f} ×)",
        ),
        Row(
            "warm boot to the stored conversation shown (second visit)",
            "bare cold `loadPyodide()`",
            baseline,
            Samples(shown),
            "median",
            "report",
            note=f"`ready` → its first message drawn: {after_ready.stat('median'):.0f} ms (median)",
        ),
    ]


def _hops(timed: list[float], at_fake: float) -> tuple[float, float]:
    """(start → the request at the fake, the fake's reply → the first text at the page), ms; page and fake
    clocks are both the wall clock (performance.timeOrigin + now(), time.time())."""
    ms, wall0 = timed
    return at_fake * 1000 - wall0, wall0 + ms - at_fake * 1000


def _hops_note(direct: list[tuple[float, float]], frames: list[tuple[float, float]]) -> str:
    def median(values: list[float]) -> float:
        return Samples(values).stat("median")

    return (
        f"hops (median): to the provider {median([h[0] for h in frames]):.1f} ms "
        f"(direct {median([h[0] for h in direct]):.1f}), its reply to the page "
        f"{median([h[1] for h in frames]):.1f} ms (direct {median([h[1] for h in direct]):.1f})"
    )


def measure_first_token(contexts: Contexts, base: str, fake: TimedFakeLLM, fake_base: str, runs: int) -> list[Row]:
    ctx = contexts()
    ctx.add_init_script(READY_WATCH)
    page = ctx.new_page()
    boot_ready_ms(page, base)
    snapshot_stored(page)  # not timed while the first visit's snapshot is made in the background
    model = configure(page, fake_base)
    direct: list[float] = []
    frames: list[float] = []
    hops: tuple[list[tuple[float, float]], list[tuple[float, float]]] = ([], [])
    url = fake_base + "/api/v1/chat/completions"
    send(page, "warm up")  # the app's first request, which the direct fetches send again
    wait_idle(page, 30_000)
    for i in range(runs):
        at_a_persons_pace(page)
        for script, arg, said, into, hop in (
            (FIRST_TOKEN_FETCH, [url, model, True, same_request(fake, "hi")], "hi", direct, hops[0]),
            (FIRST_TOKEN_UI, f"bench {i}", f"bench {i}", frames, hops[1]),
        ):
            mark = len(fake.streams)
            timed = page.evaluate(script, arg)
            into.append(float(timed[0]))
            page.wait_for_timeout(50)  # the fake notes a stream once it is written
            answered = [s for s in fake.streams[mark:] if s.last == said]
            if answered:
                hop.append(_hops(timed, answered[0].wall))
        wait_idle(page, 30_000)
    ctx.close()
    d, f = Samples(direct), Samples(frames)
    extra = f.stat("median") - d.stat("median")
    return [
        Row(
            "time to first token (Send → first text in the page)",
            "direct `fetch` of the same request and stream",
            d,
            f,
            "median",
            "≤ +5 ms",
            ratio_text=f"+{extra:.1f} ms ({f.stat('median') / d.stat('median'):.2f} ×)",
            note=_hops_note(*hops) if hops[0] and hops[1] else "",
        )
    ]
